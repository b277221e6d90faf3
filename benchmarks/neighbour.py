"""A neighbour's grading time beside a CPU hog, with and without the sandbox's CPU share.

Two notebooks are graded at once (--jobs 2): a neighbour that does a fixed amount of work and
prints how long it took, and a hog that keeps eight threads busy for its whole budget (a
submission may start no process: autograder.sandbox.seccomp; NumPy's sums release the GIL). The
neighbour's time is printed alone, beside the hog with the CPU share (a cgroup of one processor
per sandbox, autograder/sandbox/cpushare.py), and beside the hog without it (AUTOGRADER_CPU_SHARE=0).

    .venv/bin/python benchmarks/neighbour.py
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
A = "01_scalar_autodiff"
WORK = ("import time\ntime.sleep(6)      # the hog is busy by then\nt = time.perf_counter()\nx = 0\nfor i in range(6 * 10 ** 6):\n    x += i * i\n"
        "print(f'took {time.perf_counter() - t:.3f} s')")
HOG = ("import threading, numpy as np\ndef busy():\n    a = np.ones(1 << 20)\n    while True:\n"
       "        a.sum()\nfor _ in range(8):\n    threading.Thread(target=busy, daemon=True).start()\n"
       "busy()")


def _write(folder: Path, student: str, code: str):
    path = folder / "submitted" / student / A / "scalar_autodiff.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), str(path))


def neighbour_seconds(with_hog: bool, share: bool) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        course = (ROOT / "course.toml").read_text()
        course = re.sub(r"(?m)^time_limit = .*$", "time_limit = 40", course, count=1)
        (folder / "course.toml").write_text(course)
        if with_hog:
            _write(folder, "a_hog", HOG)        # graded first: it is busy when the neighbour starts
        _write(folder, "b_neighbour", WORK)
        env = {**os.environ, "AUTOGRADER_CPU_SHARE": "1" if share else "0"}
        subprocess.run([sys.executable, "-m", "autograder", "--course", str(folder / "course.toml"),
                        "grade", str(folder / "submitted"), "--out", str(folder / "out"),
                        "--jobs", "2", "--quiet"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        result = json.loads((folder / "out" / "results" / "b_neighbour" / f"{A}.json").read_text())
        return float(re.search(r"took ([\d.]+) s", result["output"]).group(1))


def main():
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    alone = neighbour_seconds(False, True)
    shared = neighbour_seconds(True, True)
    unshared = neighbour_seconds(True, False)
    print(f"{'neighbour alone':<40} {alone:6.2f} s")
    print(f"{'beside a hog, CPU share (cgroup)':<40} {shared:6.2f} s  ({shared / alone:.2f}x)")
    print(f"{'beside a hog, no CPU share':<40} {unshared:6.2f} s  ({unshared / alone:.2f}x)")


if __name__ == "__main__":
    main()
