#!/usr/bin/env python3
"""Runs tally_bench (or reads its JSON) and reports issue 3's targets.

For every case it prints, as a Markdown table: tally's median time, memcpy's median time
of the same bytes, their ratio, tally's speedup over each peer (peer time / tally time),
the issue's target and PASS/MISS; and it renders a PNG bar chart of time / memcpy per case.

    report.py build-bench/benchmarks/tally_bench            # run it (about 2-3 minutes)
    report.py --json run.json                               # report a saved run
    report.py BIN --filter 'B1/' --min-time 0.01 --repetitions 1   # a quick smoke run

Only the Python standard library is needed for the table; the chart needs matplotlib
(Debian: python3-matplotlib) and is skipped with a note when it is missing.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# The peers, in table and chart order; "memcpy" is the yardstick, not a peer.
PEERS = [("naive", "naive loop"), ("inclusive_scan", "std::inclusive_scan"), ("eigen", "Eigen Tensor")]

# id, description, case whose memcpy is the yardstick, target (kind, value), tally's name.
#   ("memcpy", r): tally time <= r x memcpy
#   ("naive", s):  tally >= s x faster than the naive loop
#   ("threads", s): tally with 2 threads >= s x faster than tally with 1 thread (same run)
CASES = [
    ("B1", "1-D, 16M float32", "B1", ("memcpy", 1.25), "tally"),
    ("B2", "1-D, 64K float32 (in L2)", "B2", ("naive", 4.0), "tally"),
    ("B3", "2-D 4096x4096, axis 1", "B3", ("memcpy", 1.25), "tally"),
    ("B4", "2-D 4096x4096, axis 0", "B4", ("memcpy", 1.25), "tally"),
    ("B5", "4-D 64^4, axis 1, decreasing, exclusive", "B5", ("memcpy", 1.25), "tally"),
    ("B6", "2-D 4096x4096 float16, axis 1", "B6", ("memcpy", 1.5), "tally"),
    ("B7a", "2-D 4096x4096 int32 sum, axis 1", "B7a", ("memcpy", 1.25), "tally"),
    ("B7b", "2-D 4096x4096 int64 sum, axis 1", "B7b", ("memcpy", 1.25), "tally"),
    ("B7c", "2-D 4096x4096 int32 product, axis 1", "B7c", ("memcpy", 1.25), "tally"),
    ("B8", "4096x4096 seen transposed, axis 1", "B8", ("memcpy", 2.5), "tally"),
    ("B9a", "B1 with 2 threads", "B1", ("threads", 1.4), "tally_2t"),
    ("B9b", "B3 with 2 threads", "B3", ("threads", 1.4), "tally_2t"),
]

TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def run_binary(binary, args):
    """Runs the benchmark binary; its console output goes to stderr, the JSON is returned."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        cmd = [binary, f"--benchmark_out={out}", "--benchmark_out_format=json",
               f"--benchmark_repetitions={args.repetitions}",
               f"--benchmark_min_time={args.min_time}"]
        if args.repetitions > 1:
            cmd.append("--benchmark_report_aggregates_only=true")
        if args.filter:
            cmd.append(f"--benchmark_filter={args.filter}")
        cmd += args.extra
        print("running:", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True, stdout=sys.stderr)
        return json.loads(out.read_text())


def medians(data):
    """{(case, implementation): median real time in ms}, and {name: error message}."""
    samples, aggregated, errors = {}, {}, {}
    for b in data.get("benchmarks", []):
        run_name = b.get("run_name", b["name"])
        parts = run_name.split("/")
        if len(parts) < 2:
            continue
        key = (parts[0], parts[1])
        if b.get("error_occurred"):
            errors["/".join(key)] = b.get("error_message", "error")
            continue
        ms = b["real_time"] * TO_MS[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                aggregated[key] = ms
        else:
            samples.setdefault(key, []).append(ms)
    result = {k: statistics.median(v) for k, v in samples.items()}
    result.update(aggregated)  # prefer Google Benchmark's own median when repetitions ran
    return result, errors


def evaluate(times):
    """One dict per case that has a tally time: ratios, speedups, target check."""
    rows = []
    for cid, label, base, (kind, value), tally_name in CASES:
        tally = times.get((cid, tally_name))
        if tally is None:
            continue
        memcpy = times.get((base, "memcpy"))
        row = {"id": cid, "label": label, "tally": tally, "memcpy": memcpy,
               "ratio": tally / memcpy if memcpy else None,
               "peers": {p: times[(cid, p)] for p, _ in PEERS if (cid, p) in times},
               "kind": kind, "value": value}
        if kind == "memcpy":
            row["measured"] = row["ratio"]
            row["target_text"] = f"<= {value:g}x memcpy"
            row["ok"] = row["ratio"] is not None and row["ratio"] <= value
        elif kind == "naive":
            naive = row["peers"].get("naive")
            row["measured"] = naive / tally if naive else None
            row["target_text"] = f">= {value:g}x faster than naive"
            row["ok"] = row["measured"] is not None and row["measured"] >= value
        else:
            one = times.get((cid, "tally_1t"))
            row["one_thread"] = one
            row["measured"] = one / tally if one else None
            row["target_text"] = f">= {value:g}x faster than 1 thread"
            row["ok"] = row["measured"] is not None and row["measured"] >= value
        # The issue also asks every case to beat every peer.
        row["loses_to"] = [p for p, t in row["peers"].items() if t <= tally]
        rows.append(row)
    return rows


def fmt(x, spec=".3g", suffix=""):
    return "-" if x is None else f"{x:{spec}}{suffix}"


def markdown(rows, context):
    lines = [f"tally SIMD variant: **{context.get('tally_simd', 'unknown')}**; "
             f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz; "
             f"{context.get('date', '')}; median real time, ms; "
             "'x peer' = peer time / tally time (> 1: tally is faster).", ""]
    head = ["id", "case", "tally ms", "memcpy ms", "tally / memcpy"] + [f"x {name}" for _, name in PEERS] + \
           ["target", "measured", "result", "beats peers"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        peers = [fmt(r["peers"][p] / r["tally"], ".2f", "x") if p in r["peers"] else "-" for p, _ in PEERS]
        measured = fmt(r["measured"], ".2f", "x")
        if r["kind"] == "threads":
            measured += f" (1 thread {fmt(r['one_thread'])} ms)"
        beats = "yes" if not r["loses_to"] else "no: " + ", ".join(r["loses_to"])
        if not r["peers"]:
            beats = "-"
        cells = [r["id"], r["label"], fmt(r["tally"]), fmt(r["memcpy"]), fmt(r["ratio"], ".2f")] + peers + \
                [r["target_text"], measured, "PASS" if r["ok"] else "**MISS**", beats]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chart(rows, context, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (apt-get install python3-matplotlib): no chart", file=sys.stderr)
        return False
    rows = [r for r in rows if r["memcpy"]]
    series = [("tally_1t", "tally, 1 thread (B9)", "#aec7e8"),
              ("tally", "tally (1 thread; B9: 2 threads)", "#1f77b4")] + \
             [(p, name, c) for (p, name), c in zip(PEERS, ["#ff7f0e", "#2ca02c", "#9467bd"])]

    def value(r, key):
        if key == "tally":
            return r["tally"] / r["memcpy"]
        if key == "tally_1t":
            return r["one_thread"] / r["memcpy"] if r.get("one_thread") else None
        t = r["peers"].get(key)
        return t / r["memcpy"] if t else None

    fig, ax = plt.subplots(figsize=(max(8, 1.0 * len(rows) + 4), 5.5))
    labelled, lowest = set(), 1.0
    for x, r in enumerate(rows):  # each group holds only the bars it has, centred on its tick
        bars = [(key, name, color, value(r, key)) for key, name, color in series if value(r, key)]
        width = 0.8 / max(len(bars), 1)
        for i, (key, name, color, v) in enumerate(bars):
            bx = x - 0.4 + width * (i + 0.5)
            ax.bar(bx, v, width, color=color, label=None if key in labelled else name)
            labelled.add(key)
            lowest = min(lowest, v)
            if key == "tally":
                ax.annotate(f"{v:.2f}", (bx, v), ha="center", va="bottom", fontsize=7)
    for x, r in enumerate(rows):  # the target, in memcpy units
        if r["kind"] == "memcpy":
            level = r["value"]
        elif r["kind"] == "naive" and "naive" in r["peers"]:
            level = r["peers"]["naive"] / r["value"] / r["memcpy"]
        elif r["kind"] == "threads" and r.get("one_thread"):
            level = r["one_thread"] / r["value"] / r["memcpy"]
        else:
            continue
        ax.hlines(level, x - 0.45, x + 0.45, colors="red", linewidth=2,
                  label=None if "target" in labelled else "target for tally")
        labelled.add("target")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--", label="memcpy of the same bytes")
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["id"] for r in rows])
    ax.set_ylabel("time / memcpy time (log scale; lower is better)")
    ax.set_title(f"tally vs peers, median of the run ({context.get('tally_simd', 'unknown')} variant, "
                 f"{context.get('num_cpus', '?')} CPUs)")
    ax.set_ylim(bottom=lowest * 0.7)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"chart written to {path}", file=sys.stderr)
    return True


def main():
    repo = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", help="path to tally_bench (omit with --json)")
    parser.add_argument("--json", help="read this Google Benchmark JSON file instead of running")
    parser.add_argument("--save-json", help="also keep the raw JSON of the run here")
    parser.add_argument("--png", default=str(repo / "docs" / "benchmarks.png"),
                        help="chart path (default: docs/benchmarks.png); '' for none")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per repetition")
    parser.add_argument("--filter", help="--benchmark_filter regex, e.g. 'B[13]/'")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser.epilog = "Arguments after -- go to the binary unchanged."
    args = parser.parse_args(argv)
    args.extra = extra
    if bool(args.binary) == bool(args.json):
        parser.error("give the binary or --json FILE")

    if args.json:
        data = json.loads(Path(args.json).read_text())
    else:
        data = run_binary(args.binary, args)
    if args.save_json:
        Path(args.save_json).write_text(json.dumps(data, indent=1))

    times, errors = medians(data)
    rows = evaluate(times)
    context = data.get("context", {})
    print(markdown(rows, context))
    for name, message in errors.items():
        print(f"\nERROR {name}: {message}")
    if args.png and rows:
        chart(rows, context, args.png)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
