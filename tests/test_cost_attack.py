"""The red team's attack on the cost of the grader's checks (issue 31), graded as a class, as
root and as an unprivileged user (as tests/test_hostile.py runs both).

A 01 stub replaces its `binary` and `unary` probes, in its own process, with a reply that every
check reads: a chain of 10,000 nodes with duplicate edges on every link (15, the red team's,
which the schema now refuses; 4, the most it allows). 01's chain-rule check once did quadratic
work on it, 26.5 s of the grader's CPU per call. Two such students and two honest ones are
graded with --jobs 2: the run ends within 01's time limit plus 10 s, the attackers earn 0, the
honest keep full marks.
"""
import json
import os
import subprocess
import sys
import time

import jupytext
import nbformat
import pytest

from autograder.sandbox import isolation, seal
from tests.grading import COURSE, ROOT, exercise_path, full_marks, solution_source
from tests.test_hostile import MODES, UNPRIVILEGED

A = "01_scalar_autodiff"
pytestmark = pytest.mark.skipif(seal.unavailable() is not None,
                                reason=f"no sealed sandbox here: {seal.unavailable()}")

ATTACK = '''import sys
probes = sys.modules["autograder.probes.scalar_autodiff"]
N, DUPLICATES = 10_000, {duplicates}
CHAIN = [[[k + 1, 1.0]] * DUPLICATES for k in range(N - 1)] + [[]]

def chain(ns, *args, number=None, **kwargs):
    operands = [N - 1] if "fn" in kwargs else [
        None if number == "left" else N - 1, None if number == "right" else N - 2]
    return {{"type": "Scalar", "value": 0.0, "parents": CHAIN, "operands": operands}}

probes.binary = probes.unary = chain
'''
ATTACKERS = {"attacker_15_duplicates": 15, "attacker_4_duplicates": 4}
HONEST = ("honest_a", "honest_b")


def write_class(submitted):
    """submitted/<student>/01_scalar_autodiff/scalar_autodiff.ipynb for the four students."""
    notebooks = {name: jupytext.reads(solution_source(A), fmt="py:percent") for name in HONEST}
    for name, duplicates in ATTACKERS.items():
        stub = nbformat.read(str(exercise_path(A)), as_version=4)
        stub.cells.append(nbformat.v4.new_code_cell(ATTACK.format(duplicates=duplicates)))
        notebooks[name] = stub
    for name, notebook in notebooks.items():
        path = submitted / name / A / "scalar_autodiff.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, str(path))


def grade_class(root, mode, code=ROOT):
    """Grade the class in `root` with the grader of the tree `code`; the run's wall seconds."""
    submitted, out = root / "submitted", root / "out"
    write_class(submitted)
    extra = {}
    if mode == "unprivileged" and os.geteuid() == 0:
        for path in [root, *root.rglob("*")]:
            os.chown(path, UNPRIVILEGED, UNPRIVILEGED)
        extra["preexec_fn"] = isolation.run_as(UNPRIVILEGED, [sys.prefix, sys.base_prefix,
                                                              str(code), str(root)])
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(submitted), "--out",
                          str(out), "--jobs", "2", "--quiet"], cwd=code, capture_output=True,
                         text=True, timeout=900, env={**os.environ, "HOME": str(root),
                                                      "PYTHONDONTWRITEBYTECODE": "1"}, **extra)
    seconds = time.monotonic() - start
    assert run.returncode == 0, run.stderr[-3000:]
    return seconds, {p.parent.name: json.loads(p.read_text())
                     for p in (out / "results").glob(f"*/{A}.json")}


@pytest.mark.parametrize("mode", MODES)
def test_two_attackers_and_two_honest_students_with_two_jobs(mode, tmp_path, record_property):
    seconds, results = grade_class(tmp_path, mode)
    record_property("seconds", round(seconds, 1))
    print(f"\n{mode}: the class took {seconds:.1f} s; each: "
          + ", ".join(f"{name} {r['seconds']} s" for name, r in sorted(results.items())))
    assert sorted(results) == sorted([*ATTACKERS, *HONEST])
    assert seconds < COURSE.assignment(A).limits.time_limit + 10
    for name in ATTACKERS:
        assert results[name]["score"] == 0, results[name]["tasks"]
    forged = {name: {t["id"]: t["message"] for t in results[name]["tasks"]} for name in ATTACKERS}
    assert "has 15 items, expected at most 4" in forged["attacker_15_duplicates"]["scalar_arithmetic"]
    assert "expected" in forged["attacker_4_duplicates"]["scalar_arithmetic"]
    for name in HONEST:
        assert {t["id"]: t["points"] for t in results[name]["tasks"]} == full_marks(A), \
            results[name]["tasks"]
