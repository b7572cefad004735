#!/usr/bin/env python3
"""Runs tally_bench or tally_bench_vocabulary (or reads their JSON) and reports the targets
of issues 3, 10 and 14.

It prints five Markdown tables, each for the cases the run holds:

- the case table (B1 .. B9, B4t): for each case on std::vector buffers and again on 64-byte
  aligned ones ("<id>@aligned"), tally's median time, memcpy's median time of the same bytes
  on the same kind of buffer, their ratio, where the buffers start (address % 64), tally's
  speedup over each peer (peer time / tally time), the vector / aligned ratio, the target
  and PASS/MISS;
- the shape sweep (16M elements as [N/L, L] axis 1 and [L, N/L] axis 0, narrow widths, other
  types): tally / memcpy and tally / plain loop per row, PASS when within 1.25x of memcpy
  and faster than the plain loop;
- lines whose output sits 64 bytes past (or, read downwards, behind) their input modulo
  4 KiB: tally / memcpy;
- the small calls: ns per call of both layers beside the plain loop, and the fixed overhead
  (tally time - plain loop time) against its target;
- the vocabulary's rows (tally_bench_vocabulary, V0 .. V7 along each axis, std::vector and
  aligned buffers): tally / memcpy against issue 14's target, and tally / PyTorch where the
  binary has PyTorch's rows.

It renders a bar chart of the case table (--png, docs/benchmarks.png) and a line chart of
the sweep (--sweep-png, docs/benchmarks-sweep.png): time / memcpy against L; and one of the
vocabulary's rows (--vocabulary-png, docs/benchmarks-vocabulary.png).

    report.py build-bench/benchmarks/tally_bench            # run it (the whole suite)
    report.py --json run.json                               # report a saved run
    report.py BIN --filter '^sweep' --min-time 0.05 --repetitions 1   # a quick sweep

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
PEERS = [("plain", "plain loop"), ("naive", "naive loop"), ("inclusive_scan", "std::inclusive_scan"),
         ("eigen", "Eigen Tensor")]

ALIGNED = "@aligned"          # case-id suffix of the rows on 64-byte aligned buffers
ALIGNMENT_TARGET = 1.1        # issue 10: tally on std::vector within 1.1x of tally on aligned buffers
SWEEP_MEMCPY_TARGET = 1.25    # issue 10: every sweep row within 1.25x memcpy, and faster than the plain loop
SMALL_OVERHEAD_NS = {"typed": 25.0, "descriptor": 40.0, "tally_2t": 25.0, "tally_1t": 25.0, "typed_fast": 25.0}
SWEEP_N = 16 << 20
TYPE_NAMES = {"f32": "float32", "f16": "float16", "i8": "int8", "i32": "int32", "f64": "float64"}

# id, description, case whose memcpy is the yardstick, target (kind, value), tally's name.
#   ("memcpy", r): tally time <= r x memcpy
#   ("naive", s):  tally >= s x faster than the naive loop
#   ("threads", s): tally with 2 threads >= s x faster than tally with 1 thread (same run)
# Each case also runs on aligned buffers as "<id>@aligned" (yardstick "<base>@aligned").
# Issue 10 asks every row within 1.25x memcpy, B6 and B8 included (issue 3 had 1.5x, 2.5x).
CASES = [
    ("B1", "1-D, 16M float32", "B1", ("memcpy", 1.25), "tally"),
    ("B2", "1-D, 64K float32 (in L2)", "B2", ("naive", 4.0), "tally"),
    ("B3", "2-D 4096x4096, axis 1", "B3", ("memcpy", 1.25), "tally"),
    ("B4", "2-D 4096x4096, axis 0", "B4", ("memcpy", 1.25), "tally"),
    ("B4t", "4096x4096 seen transposed, axis 0", "B4t", ("memcpy", 1.25), "tally"),
    ("B5", "4-D 64^4, axis 1, decreasing, exclusive", "B5", ("memcpy", 1.25), "tally"),
    ("B6", "2-D 4096x4096 float16, axis 1", "B6", ("memcpy", 1.25), "tally"),
    ("B7a", "2-D 4096x4096 int32 sum, axis 1", "B7a", ("memcpy", 1.25), "tally"),
    ("B7b", "2-D 4096x4096 int64 sum, axis 1", "B7b", ("memcpy", 1.25), "tally"),
    ("B7c", "2-D 4096x4096 int32 product, axis 1", "B7c", ("memcpy", 1.25), "tally"),
    ("B8", "4096x4096 seen transposed, axis 1", "B8", ("memcpy", 1.25), "tally"),
    ("B10a", "2-D 4096x4096 float32 product, axis 1", "B10a", ("memcpy", 1.25), "tally"),
    ("B10b", "2-D 2048x4096 float64 product, axis 1", "B10b", ("memcpy", 1.25), "tally"),
    ("B9a", "B1 with 2 threads", "B1", ("threads", 1.4), "tally_2t"),
    ("B9b", "B3 with 2 threads", "B3", ("threads", 1.4), "tally_2t"),
    ("B9c", "1-D, 16M int32 with 2 threads", "B7a", ("threads", 1.4), "tally_2t"),
]

# The vocabulary's rows (issue 14): id, operator, target in memcpy units (None: a user
# operator, whose target is a scalar loop's speed, not a ratio to memcpy).
VOCABULARY = [
    ("V0", "cumsum (the SIMD engine, for reference)", 1.5),
    ("V1", "cummax values", 1.5),
    ("V2", "cummax values + indices", 1.5),
    ("V2d", "cummax values + indices, float64", 1.5),
    ("V1w3", "cummax values, [5592405, 3] (3 columns)", 1.5),
    ("V2w3", "cummax values + indices, [5592405, 3]", 1.5),
    ("V1w3ip", "cummax values, [5592405, 3] in place", 1.5),
    ("V1l1", "cummax values, [16M, 1] (lines of 1)", 1.5),
    ("V1l4", "cummax values, [4M, 4] (lines of 4)", 1.5),
    ("V1l16", "cummax values, [1M, 16] (lines of 16)", 1.5),
    ("V3", "logcumsumexp", 2.0),
    ("V3f", "logcumsumexp, scan_accuracy::fast", 2.0),
    ("V4", "nancumsum", 1.5),
    ("V5", "cumsum float32 -> float64", 1.5),
    ("V5i8", "cumsum int8 -> int64", 1.5),
    ("V5h", "cumsum float16 -> float32", 1.5),
    ("V6", "segmented cumsum", 1.5),
    ("V7", "scan with a user lambda (sum)", None),
    ("V8", "cumsum float32, scan_accuracy::exact", None),
    ("V9", "cumsum float64, scan_accuracy::exact", None),
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
    """{(case, implementation): median real time in ms}, {name: error message} and
    {(case, implementation): (input address % 64, output address % 64)}."""
    samples, aggregated, errors, offsets = {}, {}, {}, {}
    for b in data.get("benchmarks", []):
        run_name = b.get("run_name", b["name"])
        parts = run_name.split("/")
        if len(parts) < 2:
            continue
        key = (parts[0], parts[1])
        if b.get("error_occurred"):
            errors["/".join(key)] = b.get("error_message", "error")
            continue
        # Aggregates carry the counters too (a stddev of 0, a cv of 0%): only runs and medians are addresses.
        if "in_mod64" in b and "out_mod64" in b and b.get("aggregate_name", "median") == "median":
            offsets[key] = (int(round(b["in_mod64"])), int(round(b["out_mod64"])))
        ms = b["real_time"] * TO_MS[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                aggregated[key] = ms
        else:
            samples.setdefault(key, []).append(ms)
    result = {k: statistics.median(v) for k, v in samples.items()}
    result.update(aggregated)  # prefer Google Benchmark's own median when repetitions ran
    return result, errors, offsets


def offset_text(offsets, case, impl="tally"):
    o = offsets.get((case, impl))
    return "-" if o is None else f"{o[0]}/{o[1]}"


# ------------------------------------------------------------------------------------------
# The case table.

def evaluate(times, offsets):
    """One dict per case and buffer kind that has a tally time: ratios, speedups, target check."""
    rows = []
    for cid, label, base, (kind, value), tally_name in CASES:
        for suffix in ("", ALIGNED):
            rid = cid + suffix
            tally = times.get((rid, tally_name))
            if tally is None:
                continue
            memcpy = times.get((base + suffix, "memcpy"))
            row = {"id": rid, "case": cid, "aligned": bool(suffix),
                   "label": label + (" (64-byte aligned)" if suffix else ""),
                   "tally": tally, "memcpy": memcpy, "ratio": tally / memcpy if memcpy else None,
                   "offsets": offset_text(offsets, rid, tally_name),
                   "peers": {p: times[(rid, p)] for p, _ in PEERS if (rid, p) in times},
                   "exact": times.get((rid, "exact")),
                   "kind": kind, "value": value}
            if not suffix:  # issue 10: a user's buffer within 1.1x of an aligned one
                aligned = times.get((rid + ALIGNED, tally_name))
                row["vs_aligned"] = tally / aligned if aligned else None
            if kind == "memcpy":
                row["measured"] = row["ratio"]
                row["target_text"] = f"<= {value:g}x memcpy"
                row["ok"] = row["ratio"] is not None and row["ratio"] <= value
            elif kind == "naive":
                naive = times.get((cid, "naive"))  # the peer runs on std::vector buffers only
                row["measured"] = naive / tally if naive else None
                row["target_text"] = f">= {value:g}x faster than naive"
                row["ok"] = row["measured"] is not None and row["measured"] >= value
            else:
                one = times.get((rid, "tally_1t"))
                row["one_thread"] = one
                row["measured"] = one / tally if one else None
                row["target_text"] = f">= {value:g}x faster than 1 thread"
                row["ok"] = row["measured"] is not None and row["measured"] >= value
            # The issues also ask every case to beat every peer.
            row["loses_to"] = [p for p, t in row["peers"].items() if t <= tally]
            rows.append(row)
    return rows


def fmt(x, spec=".3g", suffix=""):
    return "-" if x is None else f"{x:{spec}}{suffix}"


def verdict(ok):
    return "PASS" if ok else "**MISS**"


def header(context):
    return (f"tally SIMD variant: **{context.get('tally_simd', 'unknown')}**; "
            f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz; "
            f"{context.get('date', '')}; median real time.")


def markdown(rows):
    lines = ["Median real time, ms; 'in/out % 64': where tally's buffers start (address modulo 64; "
             "std::vector rows: what malloc gave, `@aligned` rows: 0/0); 'x peer' = peer time / tally "
             "time (> 1: tally is faster; peers run on std::vector buffers only); 'vector / aligned' = "
             f"tally on std::vector / tally on aligned buffers (target <= {ALIGNMENT_TARGET:g}). 'tally' is "
             "the fast mode (scan_accuracy::fast), whose kernels the targets are for; 'exact / memcpy' is the "
             "exact mode (the default for float32 and float64) on the same buffers.", ""]
    head = ["id", "case", "in/out % 64", "tally ms", "memcpy ms", "tally / memcpy", "exact / memcpy"] + \
           [f"x {name}" for _, name in PEERS] + ["target", "measured", "result", "vector / aligned", "beats peers"]
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
        va = r.get("vs_aligned")
        va_text = "-" if va is None else f"{va:.2f} {verdict(va <= ALIGNMENT_TARGET)}"
        exact = r["exact"] / r["memcpy"] if r["exact"] and r["memcpy"] else None
        # In backticks: pasted into docs/, a bare "@aligned" is a Doxygen command.
        cells = [f"`{r['id']}`", r["label"], r["offsets"], fmt(r["tally"]), fmt(r["memcpy"]), fmt(r["ratio"], ".2f"),
                 fmt(exact, ".2f")] + peers + [r["target_text"], measured, verdict(r["ok"]), va_text, beats]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# The shape sweep: "sweep:<type>:a<axis>[d][x][p]:L=<L>" ([N/L, L] axis 1 or [L, N/L] axis 0;
# d: decreasing, x: exclusive, p: products) and "sweep:<type>:a0[p]:w=<w>" ([N/w, w] axis 0).

def parse_count(text):
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def count_text(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def sweep_rows(times, offsets):
    cases = []
    for case, impl in times:
        if impl == "tally" and case.startswith("sweep:") and case not in cases:
            cases.append(case)
    rows = []
    for case in cases:
        try:
            _, dtype, axis_text, param = case.split(":")
            flags = axis_text[2:]
            decreasing, exclusive, product = "d" in flags, "x" in flags, "p" in flags
            axis = int(axis_text[1])
            what, value = param.split("=")
        except ValueError:
            continue
        if what == "w":
            width = int(value)
            rows_n = SWEEP_N // width
            length, shape = rows_n, f"[{count_text(rows_n)}, {width}]"
            series = (f"{TYPE_NAMES.get(dtype, dtype)} axis {axis}" + (" decreasing" if decreasing else "") +
                      f", {width} columns" + (", products" if product else ""))
        else:
            length = parse_count(value)
            other = SWEEP_N // length
            shape = f"[{count_text(other)}, {value}]" if axis == 1 else f"[{value}, {count_text(other)}]"
            series = (f"{TYPE_NAMES.get(dtype, dtype)} axis {axis}" + (" decreasing" if decreasing else "") +
                      (" exclusive" if exclusive else "") + (" products" if product else ""))
        tally, memcpy, plain, exact = (times.get((case, i)) for i in ("tally", "memcpy", "plain", "exact"))
        r = {"id": case, "dtype": dtype, "axis": axis, "decreasing": decreasing, "exclusive": exclusive,
             "product": product,
             "narrow": what == "w",
             "length": length,
             "width": int(value) if what == "w" else 0,
             "series": series, "shape": shape, "offsets": offset_text(offsets, case),
             "tally": tally, "memcpy": memcpy, "plain": plain,
             "ratio": tally / memcpy if memcpy else None,
             "exact_ratio": exact / memcpy if exact and memcpy else None,
             "vs_plain": tally / plain if plain else None,
             "plain_ratio": plain / memcpy if plain and memcpy else None}
        r["ok_memcpy"] = r["ratio"] is not None and r["ratio"] <= SWEEP_MEMCPY_TARGET
        r["ok_plain"] = r["vs_plain"] is not None and r["vs_plain"] < 1.0
        rows.append(r)
    order = {"f32": 0, "i8": 1, "i32": 2, "f16": 3}
    rows.sort(key=lambda r: (order.get(r["dtype"], 9), r["product"], -r["axis"], r["decreasing"], r["exclusive"],
                             r["narrow"], r["width"], r["length"]))
    return rows


def sweep_markdown(rows):
    lines = [f"16M elements in every row (int8: 16 MiB, float16: 32 MiB, 32-bit types: 64 MiB per "
             f"buffer), std::vector buffers, 1 thread; L = the scan length (axis 1: elements per line, "
             f"axis 0: rows). Median real time, ms. Target: tally <= {SWEEP_MEMCPY_TARGET:g}x memcpy "
             "and faster than the plain loop (tally / plain < 1), for the fast mode ('tally'); 'exact / "
             "memcpy' is the exact mode, the float32 default.", ""]
    head = ["series", "shape", "L", "in/out % 64", "tally ms", "memcpy ms", "plain ms",
            "tally / memcpy", "exact / memcpy", "tally / plain", "plain / memcpy", "result"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        misses = []
        if not r["ok_memcpy"]:
            misses.append("memcpy")
        if not r["ok_plain"]:
            misses.append("plain")
        result = "PASS" if not misses else "**MISS** (" + ", ".join(misses) + ")"
        cells = [r["series"], r["shape"], count_text(r["length"]), r["offsets"], fmt(r["tally"]), fmt(r["memcpy"]),
                 fmt(r["plain"]), fmt(r["ratio"], ".2f"), fmt(r["exact_ratio"], ".2f"), fmt(r["vs_plain"], ".2f"),
                 fmt(r["plain_ratio"], ".2f"),
                 result]
        lines.append("| " + " | ".join(cells) + " |")
    passed = sum(1 for r in rows if r["ok_memcpy"] and r["ok_plain"])
    lines += ["", f"{passed} of {len(rows)} sweep rows pass."]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# Lines whose output sits 64 bytes past (behind, read downwards) their input modulo 4 KiB:
# "alias:<type>:<i|d>" (tally, exact, memcpy), the same target as the sweep's.

def alias_rows(times, offsets):
    rows = []
    for (case, impl), tally in sorted(times.items()):
        if impl != "tally" or not case.startswith("alias:"):
            continue
        _, dtype, direction = case.split(":")
        memcpy, exact = times.get((case, "memcpy")), times.get((case, "exact"))
        rows.append({"series": f"{TYPE_NAMES.get(dtype, dtype)}, " +
                               ("increasing, output 64 B past the input" if direction == "i"
                                else "decreasing, output 64 B behind the input"),
                     "offsets": offset_text(offsets, case), "tally": tally, "memcpy": memcpy,
                     "ratio": tally / memcpy if memcpy else None,
                     "exact_ratio": exact / memcpy if exact and memcpy else None})
    return rows


def alias_markdown(rows):
    lines = ["One line of 64 MiB, input and output in one std::vector, 1 thread. Median real time, ms; "
             f"target: tally <= {SWEEP_MEMCPY_TARGET:g}x memcpy.", ""]
    head = ["line", "in/out % 64", "tally ms", "memcpy ms", "tally / memcpy", "exact / memcpy"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        cells = [r["series"], r["offsets"], fmt(r["tally"]), fmt(r["memcpy"]), fmt(r["ratio"], ".2f"),
                 fmt(r["exact_ratio"], ".2f")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# The small calls: "small:f32:n=<n>" (typed, descriptor, plain), "small:f32:8x8:a1"
# (tally_2t, tally_1t, typed_fast, descriptor, plain); the vocabulary's rows (cummax,
# cummax_indices, cumsum_to_f64, logcumsumexp) have no plain loop of their own and no target: time only.

SMALL_LAYERS = [("typed", "typed (tally::cumsum, views)"), ("descriptor", "descriptor (tally::execute)"),
                ("tally_2t", "typed, threads = 2"), ("tally_1t", "typed, threads = 1"),
                ("typed_fast", "typed, scan_accuracy::fast"), ("cummax", "tally::cummax"),
                ("cummax_indices", "tally::cummax with indices"), ("cumsum_to_f64", "tally::cumsum into double"),
                ("logcumsumexp", "tally::logcumsumexp")]


def small_rows(times, offsets):
    cases = []
    for case, _ in times:
        if case.startswith("small:") and case not in cases:
            cases.append(case)
    rows = []
    for case in cases:
        plain = times.get((case, "plain"))
        label = case.split(":", 2)[2]
        label = {"8x8:a1": "8x8, axis 1"}.get(label, label.replace("n=", "1-D, n = "))
        for layer, name in SMALL_LAYERS:
            t = times.get((case, layer))
            if t is None:
                continue
            target = SMALL_OVERHEAD_NS.get(layer)
            ns, plain_ns = t * 1e6, plain * 1e6 if plain and target is not None else None
            overhead = ns - plain_ns if plain_ns is not None else None
            rows.append({"case": label, "layer": name, "offsets": offset_text(offsets, case, layer), "ns": ns,
                         "plain": plain_ns, "overhead": overhead, "vs_plain": ns / plain_ns if plain_ns else None,
                         "target": target, "ok": overhead is not None and target is not None and overhead <= target})
    return rows


def small_markdown(rows):
    lines = ["ns per call (median real time of back-to-back calls), float32, std::vector buffers; "
             "'overhead' = tally - plain loop on the same elements, the target is on it "
             f"(<= {SMALL_OVERHEAD_NS['typed']:g} ns typed, <= {SMALL_OVERHEAD_NS['descriptor']:g} ns descriptor).",
             ""]
    head = ["case", "layer", "in/out % 64", "tally ns", "plain loop ns", "overhead ns", "tally / plain",
            "target", "result"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        cells = [r["case"], r["layer"], r["offsets"], fmt(r["ns"], ".1f"), fmt(r["plain"], ".1f"),
                 fmt(r["overhead"], ".1f"), fmt(r["vs_plain"], ".2f"),
                 "-" if r["target"] is None else f"overhead <= {r['target']:g} ns",
                 "-" if r["target"] is None else verdict(r["ok"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# Charts.

# ------------------------------------------------------------------------------------------
# The vocabulary's rows: "V<n>a<axis>[@aligned]/<tally|torch|memcpy>".

def vocabulary_rows(times):
    rows = []
    for vid, label, target in VOCABULARY:
        for axis in ("a1", "a0"):
            for kind in ("", ALIGNED):
                case = vid + axis + kind
                tally, memcpy = times.get((case, "tally")), times.get((case, "memcpy"))
                if tally is None or not memcpy:
                    continue
                torch = times.get((case, "torch"))
                ratio = tally / memcpy
                ok = (target is None or ratio <= target) and (torch is None or tally <= torch)
                rows.append({"id": case, "label": label, "tally": tally, "memcpy": memcpy, "torch": torch,
                             "ratio": ratio, "target": target, "ok": ok, "aligned": bool(kind)})
    return rows


def vocabulary_markdown(rows):
    lines = ["Median real time, ms; target: tally / memcpy at most the value shown and, where PyTorch has "
             "the operator, faster than PyTorch (V7, a user operator: a scalar loop's speed, no ratio).", ""]
    head = ["row", "operator", "tally ms", "PyTorch ms", "memcpy ms", "tally / memcpy", "tally / PyTorch",
            "target", "result"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        target = "-" if r["target"] is None else f"<= {r['target']:g}x"
        cells = [f"`{r['id']}`", r["label"], fmt(r["tally"]), fmt(r["torch"]), fmt(r["memcpy"]), fmt(r["ratio"], ".2f"),
                 fmt(r["tally"] / r["torch"] if r["torch"] else None, ".2f"), target, verdict(r["ok"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def vocabulary_chart(rows, context, path):
    """Bars of time / memcpy per row: tally on std::vector and on aligned buffers, PyTorch."""
    plt = pyplot()
    if plt is None:
        return False
    by_id = {r["id"]: r for r in rows}
    base = [r for r in rows if not r["aligned"]]
    series = [("vector", "tally, std::vector", "#1f77b4"), ("aligned", "tally, 64-byte aligned", "#17becf"),
              ("torch", "PyTorch (CPU, 1 thread), std::vector", "#d62728")]

    def value(r, key):
        if key == "vector":
            return r["ratio"]
        if key == "aligned":
            a = by_id.get(r["id"] + ALIGNED)
            return a["ratio"] if a else None
        return r["torch"] / r["memcpy"] if r["torch"] else None

    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(base) + 4), 5.5))
    labelled = set()
    for x, r in enumerate(base):
        bars = [(key, name, color, value(r, key)) for key, name, color in series if value(r, key)]
        width = 0.8 / max(len(bars), 1)
        for i, (key, name, color, v) in enumerate(bars):
            bx = x - 0.4 + width * (i + 0.5)
            ax.bar(bx, v, width, color=color, label=None if key in labelled else name)
            labelled.add(key)
            if key != "torch":
                ax.annotate(f"{v:.2f}", (bx, v), ha="center", va="bottom", fontsize=6)
        if r["target"] is not None:
            ax.hlines(r["target"], x - 0.45, x + 0.45, colors="red", linewidth=2,
                      label=None if "target" in labelled else "target for tally")
            labelled.add("target")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--", label="memcpy of the same output bytes")
    ax.set_yscale("log")
    ax.set_xticks(range(len(base)))
    ax.set_xticklabels([r["id"] for r in base], rotation=45)
    ax.set_ylabel("time / memcpy time (log scale; lower is better)")
    ax.set_title(f"scan vocabulary, 4096 x 4096 float32, median of the run "
                 f"({context.get('tally_simd', 'unknown')} variant)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"chart written to {path}", file=sys.stderr)
    return True


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("matplotlib is missing (apt-get install python3-matplotlib): no chart", file=sys.stderr)
        return None


def matplotlib_ticker():
    import matplotlib.ticker
    return matplotlib.ticker


def chart(rows, context, path):
    plt = pyplot()
    if plt is None:
        return False
    memcpy_of = {r["id"]: r["memcpy"] for r in rows}
    tally_of = {r["id"]: r["tally"] for r in rows}
    one_of = {r["id"]: r.get("one_thread") for r in rows}
    rows = [r for r in rows if r["memcpy"] and not r["aligned"]]
    series = [("tally_1t", "tally, 1 thread (B9)", "#aec7e8"),
              ("tally", "tally, std::vector (1 thread; B9: 2 threads)", "#1f77b4"),
              ("tally_aligned", "tally, 64-byte aligned, vs aligned memcpy", "#17becf")] + \
             [(p, name, c) for (p, name), c in zip(PEERS, ["#d62728", "#ff7f0e", "#2ca02c", "#9467bd"])]

    def value(r, key):
        if key == "tally":
            return r["tally"] / r["memcpy"]
        if key == "tally_1t":
            return r["one_thread"] / r["memcpy"] if r.get("one_thread") else None
        if key == "tally_aligned":
            aid = r["id"] + ALIGNED
            return tally_of[aid] / memcpy_of[aid] if memcpy_of.get(aid) else None
        t = r["peers"].get(key)
        return t / r["memcpy"] if t else None

    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(rows) + 4), 5.5))
    labelled, lowest = set(), 1.0
    for x, r in enumerate(rows):  # each group holds only the bars it has, centred on its tick
        bars = [(key, name, color, value(r, key)) for key, name, color in series if value(r, key)]
        width = 0.8 / max(len(bars), 1)
        for i, (key, name, color, v) in enumerate(bars):
            bx = x - 0.4 + width * (i + 0.5)
            ax.bar(bx, v, width, color=color, label=None if key in labelled else name)
            labelled.add(key)
            lowest = min(lowest, v)
            if key in ("tally", "tally_aligned"):
                ax.annotate(f"{v:.2f}", (bx, v), ha="center", va="bottom", fontsize=6)
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


def sweep_chart(rows, context, path):
    """Time / memcpy against L (log2): tally's float32 axis 1 and axis 0 as lines, the plain
    loop of each as a dashed line of the same colour, the other types and the narrow
    widths as markers."""
    plt = pyplot()
    if plt is None:
        return False
    rows = [r for r in rows if r["memcpy"]]
    fig, ax = plt.subplots(figsize=(11, 6))
    lines = [("f32", 1, False, "tally, float32 [N/L, L] axis 1", "#1f77b4"),
             ("f32", 1, True, "tally, float32 [N/L, L] axis 1 decreasing", "#17becf"),
             ("f32", 0, False, "tally, float32 [L, N/L] axis 0", "#d62728"),
             ("f32", 0, True, "tally, float32 [L, N/L] axis 0 decreasing", "#e377c2")]
    everything = []
    for dtype, axis, decreasing, name, color in lines:
        pts = sorted((r["length"], r) for r in rows if r["dtype"] == dtype and r["axis"] == axis and
                     r["decreasing"] == decreasing and not r["exclusive"] and not r["product"] and not r["narrow"])
        if not pts:
            continue
        xs = [x for x, _ in pts]
        ys = [r["ratio"] for _, r in pts]
        ax.plot(xs, ys, "-o", color=color, label=name, linewidth=2, markersize=5)
        everything += ys
        plain = [(x, r["plain_ratio"]) for x, r in pts if r["plain_ratio"]]
        if plain:
            ax.plot([x for x, _ in plain], [y for _, y in plain], "--", color=color, alpha=0.6,
                    label=name.replace("tally", "plain loop"), linewidth=1.2)
            everything += [y for _, y in plain]
    markers = {"i8": ("s", "#2ca02c", "int8"), "i32": ("^", "#9467bd", "int32"), "f16": ("D", "#ff7f0e", "float16")}
    for dtype, (marker, color, tname) in markers.items():
        pts = sorted((r["length"], r["ratio"]) for r in rows if r["dtype"] == dtype and not r["product"])
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], linestyle="none", marker=marker, color=color,
                    markersize=8, label=f"tally, {tname} axis 1")
            everything += [y for _, y in pts]
    narrow = [r for r in rows if r["narrow"] and r["dtype"] == "f32"]
    if narrow:
        ax.plot([r["length"] for r in narrow], [r["ratio"] for r in narrow], linestyle="none", marker="*",
                color="#8c564b", markersize=12, label="tally, float32 axis 0, 3 and 7 columns (x: rows)")
        for r in narrow:
            ax.annotate(r["shape"], (r["length"], r["ratio"]), textcoords="offset points", xytext=(6, 4),
                        fontsize=7)
        everything += [r["ratio"] for r in narrow]
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--", label="memcpy of the same bytes")
    ax.axhline(SWEEP_MEMCPY_TARGET, color="red", linewidth=1.5, label=f"target: {SWEEP_MEMCPY_TARGET:g}x memcpy")
    ax.set_xscale("log", base=2)
    ticks = [1 << k for k in range(0, 25, 2)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([count_text(t) for t in ticks])
    ax.set_yscale("log")
    low = min([0.5] + [y * 0.8 for y in everything])
    high = max([2.0] + [y * 1.25 for y in everything])
    ax.set_ylim(low, high)
    yticks = [t for t in (0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500)
              if low <= t <= high]
    ax.yaxis.set_minor_locator(matplotlib_ticker().NullLocator())
    ax.set_yticks(yticks)
    ax.set_yticklabels([f"{t:g}" for t in yticks])
    ax.set_xlabel("L: scan length (axis 1: elements per line; axis 0: rows), 16M elements in all")
    ax.set_ylabel("time / memcpy time (log scale; lower is better)")
    ax.set_title(f"Shape sweep, std::vector buffers, 1 thread ({context.get('tally_simd', 'unknown')} variant, "
                 f"{context.get('num_cpus', '?')} CPUs)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"chart written to {path}", file=sys.stderr)
    return True


def main():
    repo = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", help="path to tally_bench or tally_bench_vocabulary (omit with --json)")
    parser.add_argument("--json", help="read this Google Benchmark JSON file instead of running")
    parser.add_argument("--save-json", help="also keep the raw JSON of the run here")
    parser.add_argument("--png", default=str(repo / "docs" / "benchmarks.png"),
                        help="case-table chart path (default: docs/benchmarks.png); '' for none")
    parser.add_argument("--sweep-png", default=str(repo / "docs" / "benchmarks-sweep.png"),
                        help="sweep chart path (default: docs/benchmarks-sweep.png); '' for none")
    parser.add_argument("--vocabulary-png", default=str(repo / "docs" / "benchmarks-vocabulary.png"),
                        help="vocabulary chart path (default: docs/benchmarks-vocabulary.png); '' for none")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per repetition")
    parser.add_argument("--filter", help="--benchmark_filter regex, e.g. '^B[13][/@]', '^sweep', '^small'")
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

    times, errors, offsets = medians(data)
    context = data.get("context", {})
    rows, sweep, small = evaluate(times, offsets), sweep_rows(times, offsets), small_rows(times, offsets)
    vocabulary, aliased = vocabulary_rows(times), alias_rows(times, offsets)
    print(header(context))
    if rows:
        print("\n### Cases\n\n" + markdown(rows))
    if sweep:
        print("\n### Shape sweep\n\n" + sweep_markdown(sweep))
    if aliased:
        print("\n### Output just past the input modulo 4 KiB\n\n" + alias_markdown(aliased))
    if small:
        print("\n### Small calls\n\n" + small_markdown(small))
    if vocabulary:
        print("\n### Scan vocabulary\n\n" + vocabulary_markdown(vocabulary))
    for name, message in errors.items():
        print(f"\nERROR {name}: {message}")
    if args.png and rows:
        chart(rows, context, args.png)
    if args.sweep_png and sweep:
        sweep_chart(sweep, context, args.sweep_png)
    if args.vocabulary_png and vocabulary:
        vocabulary_chart(vocabulary, context, args.vocabulary_png)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
