#!/usr/bin/env python3
"""Compiles and runs every ```cpp block of README.md as its own program.

usage: check_snippets.py README.md CXX CXX_FLAGS INCLUDE_DIR WORK_DIR [EIGEN_INCLUDE_DIR [RUNNER]]
A snippet that includes <tally/eigen.hpp> is skipped (with a note) when no Eigen include
directory is given. RUNNER (e.g. wine for a MinGW compiler) runs the programs. Prints 'N passed, N failed'; exits non-zero on any failure.
The snippets compile in parallel, one compiler a core: each compiles tally's kernels, and
one after another they took minutes under the sanitizers."""
import concurrent.futures
import os
import pathlib
import re
import shlex
import subprocess
import sys


def main() -> int:
    readme, cxx, cxx_flags, include, work = sys.argv[1:6]
    eigen = sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] else None
    runner = shlex.split(sys.argv[7]) if len(sys.argv) > 7 else []
    text = pathlib.Path(readme).read_text()
    snippets = re.findall(r"```cpp\n(.*?)```", text, re.S)
    work_dir = pathlib.Path(work)
    work_dir.mkdir(parents=True, exist_ok=True)

    def needs_missing_eigen(code: str) -> bool:
        return "tally/eigen.hpp" in code and not eigen

    def build(number: int, code: str):
        """Compiles snippet NUMBER: (binary, None), or (None, why not)."""
        flags = [*shlex.split(cxx_flags), "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", include, "-pthread"]
        if "tally/eigen.hpp" in code:
            flags += ["-isystem", eigen]
        source = work_dir / f"snippet_{number}.cpp"
        binary = work_dir / f"snippet_{number}"
        source.write_text(code)
        result = subprocess.run([cxx, *flags, str(source), "-o", str(binary)], capture_output=True, text=True)
        if result.returncode != 0:
            return None, f"does not compile\n{result.stderr}"
        if not binary.exists() and binary.with_name(binary.name + ".exe").exists():
            binary = binary.with_name(binary.name + ".exe")  # MinGW adds the suffix
        return binary, None

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        builds = {number: pool.submit(build, number, code)
                  for number, code in enumerate(snippets, 1) if not needs_missing_eigen(code)}

    passed = failed = 0
    for number in range(1, len(snippets) + 1):
        if number not in builds:
            print(f"snippet {number}: skipped (Eigen not found)")
            continue
        binary, why = builds[number].result()
        if binary is None:
            print(f"snippet {number}: {why}")
            failed += 1
            continue
        run = subprocess.run([*runner, str(binary)], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"snippet {number}: exited {run.returncode}\n{run.stdout}{run.stderr}")
            failed += 1
            continue
        print(f"snippet {number}: ok")
        passed += 1
    if not snippets:
        print("no ```cpp snippets found")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
