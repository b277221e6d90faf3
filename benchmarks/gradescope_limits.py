"""Each assignment's solution graded by the Gradescope autograder (the zip of `python -m
autograder gradescope`), under Gradescope's default container limits: 768 MB of memory and half
a CPU. Prints, per assignment, the wall time of run_autograder, the peak memory of the whole
container (the grader, its pytest, the sandbox and the notebook), the CPU time, and the score.

Docker limits a container with cgroups, so the limits are cgroups here too (cgroup v1's cpu and
memory controllers, as root): cpu.cfs_quota_us = 50 ms per 100 ms period, memory.limit_in_bytes
= 768 MiB; the memory high-water mark is memory.max_usage_in_bytes. (`ulimit -v` caps address
space, not memory: NumPy's BLAS alone reserves more than 768 MB of it, so it is no emulation of
a container.) Setup.sh runs without its installs: the packages are this environment's.

    sudo .venv/bin/python benchmarks/gradescope_limits.py                 # every assignment
    sudo .venv/bin/python benchmarks/gradescope_limits.py 09_mnist 01_scalar_autodiff
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.course.config import load_course           # noqa: E402
from autograder.platforms import gradescope          # noqa: E402

MEMORY = 768 * 2 ** 20          # Gradescope's default: 768 MB
CPU_QUOTA, CPU_PERIOD = 50_000, 100_000     # half a CPU, in microseconds per period
CGROUP_V1 = Path("/sys/fs/cgroup")
TIMEOUT = 600                   # Gradescope's default autograder timeout, seconds


def make_cgroups(name, memory_limit=MEMORY, cpu_quota=CPU_QUOTA):
    cpu, memory, account = (CGROUP_V1 / kind / name for kind in ("cpu", "memory", "cpuacct"))
    for group in (cpu, memory, account):
        group.mkdir()
    (cpu / "cpu.cfs_period_us").write_text(str(CPU_PERIOD))
    (cpu / "cpu.cfs_quota_us").write_text(str(cpu_quota))
    (memory / "memory.limit_in_bytes").write_text(str(memory_limit))
    if (memory / "memory.memsw.limit_in_bytes").exists():     # no swap either
        (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_limit))
    return cpu, memory, account


def remove_cgroups(groups):
    for group in groups:
        for child in sorted(group.glob("*/"), reverse=True):   # the grader's sandbox cgroups
            if child.is_dir():
                child.rmdir()
        group.rmdir()


def solution_notebook(assignment, folder: Path) -> Path:
    source = assignment.solution_path().read_text(encoding="utf-8")
    notebook = jupytext.reads(source, fmt="py:percent")
    path = folder / f"{assignment.notebook}.ipynb"
    nbformat.write(notebook, str(path))
    return path


def measure(assignment, memory_limit=MEMORY, cpu_quota=CPU_QUOTA) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root = tmp / "autograder"
        gradescope.extract(gradescope.build(assignment.id, tmp / "zip"), root / "source")
        shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
        env = dict(os.environ, DP_GRADESCOPE_ROOT=str(root), DP_GRADESCOPE_PYTHON=sys.executable)
        subprocess.run(["bash", str(root / "source" / "setup.sh")], check=True, capture_output=True,
                       env=dict(env, DP_GRADESCOPE_SKIP_INSTALL="1"))
        (root / "submission").mkdir()
        (root / "results").mkdir()
        solution_notebook(assignment, root / "submission")
        groups = make_cgroups(f"gradescope-limits-{os.getpid()}", memory_limit, cpu_quota)
        cpu, memory, account = groups

        def enter():
            for group in groups:
                (group / "cgroup.procs").write_text(str(os.getpid()))

        try:
            started = time.monotonic()
            try:
                run = subprocess.run([str(root / "run_autograder")], env=env, preexec_fn=enter,
                                     capture_output=True, text=True, timeout=TIMEOUT)
                code = run.returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
            wall = time.monotonic() - started
            peak = int((memory / "memory.max_usage_in_bytes").read_text())
            failures = int((memory / "memory.failcnt").read_text())
            cpu_seconds = int((account / "cpuacct.usage").read_text()) / 1e9
            stat = (cpu / "cpu.stat").read_text()
        finally:
            remove_cgroups(groups)
        results = root / "results" / "results.json"
        written = json.loads(results.read_text()) if results.exists() else {}
        score = written.get("score")
        why = next((t["output"].splitlines()[0] for t in written.get("tests", [])
                    if t["status"] == "failed" and t["output"]), "")
        if not written:
            why = (run.stdout + run.stderr)[-300:] if code != "timeout" else "timeout"
        throttled = dict(line.split() for line in stat.splitlines()).get("throttled_time", "0")
        return {"assignment": assignment.id, "exit": code, "wall_s": round(wall, 1),
                "peak_MiB": round(peak / 2 ** 20), "limit_hits": failures,
                "throttled_s": round(int(throttled) / 1e9, 1), "score": score,
                "max_score": assignment.max_score, "cpu_s": round(cpu_seconds, 1), "why": why}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignments", nargs="*", help="default: every assignment")
    parser.add_argument("--memory", type=int, default=MEMORY // 2 ** 20,
                        help="memory limit, MiB (default: Gradescope's %(default)s)")
    parser.add_argument("--cpus", type=float, default=CPU_QUOTA / CPU_PERIOD,
                        help="CPU quota, in processors (default: Gradescope's %(default)s)")
    args = parser.parse_args()
    if os.geteuid() != 0 or not (CGROUP_V1 / "memory").is_dir():
        sys.exit("needs root and cgroup v1's cpu, cpuacct and memory controllers "
                 "(/sys/fs/cgroup/{cpu,cpuacct,memory})")
    course = load_course()
    chosen = [course.assignment(a) for a in args.assignments] or list(course.assignments)
    print(f"limits: {args.memory} MiB, {args.cpus:g} CPU, {TIMEOUT} s (Gradescope's defaults: "
          f"{MEMORY // 2 ** 20} MiB, {CPU_QUOTA / CPU_PERIOD:g} CPU, {TIMEOUT} s)")
    print(f"{'assignment':<28} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9} {'limit hits':>10} "
          f"{'throttled s':>12}  score")
    for assignment in chosen:
        m = measure(assignment, args.memory * 2 ** 20, int(args.cpus * CPU_PERIOD))
        print(f"{m['assignment']:<28} {m['wall_s']:>7} {m['cpu_s']:>6} {m['peak_MiB']:>9} "
              f"{m['limit_hits']:>10} "
              f"{m['throttled_s']:>12}  {m['score']}/{m['max_score']:g}"
              + ("" if m["exit"] == 0 else f"  (run_autograder: {m['exit']})")
              + (f"\n    {m['why'][:300]}" if m["why"] else ""), flush=True)


if __name__ == "__main__":
    main()
