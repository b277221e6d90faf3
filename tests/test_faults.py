"""Faults: the grader killed at random points and rerun; grading twice; bad input to the CLI."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import jupytext
import nbformat
import pytest

from tests.grading import ROOT, exercise_path, solution_source
from tests.mutants import all_mutants

A = "01_scalar_autodiff"
SEED = int(os.environ.get("FAULT_SEED", "20261122"))


def _class(folder):
    notebooks = {"solution": jupytext.reads(solution_source(A), fmt="py:percent"),
                 "stub": nbformat.read(str(exercise_path(A)), as_version=4)}
    for mutant in [m for m in all_mutants() if m.assignment == A][:5]:
        notebooks[f"mutant_{mutant.name}"] = jupytext.reads(mutant.source(), fmt="py:percent")
    for student, nb in notebooks.items():
        path = folder / "submitted" / student / A / "scalar_autodiff.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, str(path))
    return folder / "submitted"


def _grade(submitted, out, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out),
                             "--jobs", "2", "--quiet"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)


def _results(out):
    return {p.parent.name: json.loads(p.read_text()) for p in (out / "results").glob(f"*/{A}.json")}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    submitted = _class(root)
    run = _grade(submitted, root / "baseline")
    assert run.wait(timeout=600) == 0, run.stderr.read()
    return submitted, _results(root / "baseline"), root


def test_grading_twice_gives_identical_results(baseline):
    submitted, first, root = baseline
    run = _grade(submitted, root / "again")
    assert run.wait(timeout=600) == 0
    assert _results(root / "again") == first


def test_killed_at_random_points_then_rerun_gives_the_uninterrupted_results(baseline):
    submitted, expected, root = baseline
    out, rng = root / "interrupted", random.Random(SEED)
    for round_ in range(5):
        run = _grade(submitted, out)
        time.sleep(rng.uniform(0.3, 3.0))
        how = rng.choice(["SIGKILL to the group", "SIGTERM", "SIGINT to the group"])
        try:
            if how == "SIGTERM":
                os.kill(run.pid, signal.SIGTERM)
            else:
                os.killpg(run.pid, signal.SIGKILL if "KILL" in how else signal.SIGINT)
        except ProcessLookupError:
            pass
        run.wait(timeout=600)
        if how == "SIGKILL to the group":
            time.sleep(0.5)
        for path in (out / "results").glob("*/*.json"):      # never half a result
            assert json.loads(path.read_text())["student"] == path.parent.name, (SEED, round_, how)
    final = _grade(submitted, out)
    assert final.wait(timeout=600) == 0, final.stderr.read()
    assert _results(out) == expected, f"seed {SEED}"
    assert sorted(p.name for p in (out / "results").iterdir()) == sorted(expected)
    assert not list(out.rglob("*.tmp"))


@pytest.mark.parametrize("args, message", [
    (["grade", "nowhere.ipynb"], "nowhere.ipynb: no such file or folder"),
    (["grade", "exercises", "--assignment", "99_nope"], "unknown assignment '99_nope'"),
    (["--course", "missing.toml", "grade", "exercises"], "missing.toml: not found"),
    (["check", "README.md"], "cannot tell which assignment"),
])
def test_cli_errors_name_what_is_wrong_without_a_traceback(args, message):
    run = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2
    assert message in run.stderr and "Traceback" not in run.stderr


def test_course_with_missing_keys_is_reported_by_the_cli(tmp_path):
    bad = tmp_path / "course.toml"
    bad.write_text("[course]\n[[assignment]]\nid = 'x'\n")
    run = subprocess.run([sys.executable, "-m", "autograder", "--course", str(bad), "grade", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "assignment 'x': missing key 'task'" in run.stderr
