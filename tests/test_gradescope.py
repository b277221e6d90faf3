"""`python -m autograder gradescope ASSIGNMENT DIR`: the zip for Gradescope's "Zip file upload".
Unpacked into a fake /autograder root (DP_GRADESCOPE_ROOT), its setup.sh (without the apt and
pip installs, which the slow test runs) and run_autograder run as Gradescope runs them, and the
results.json they write is validated against a JSON Schema written from Gradescope's documented
fields (autograder/platforms/schemas/gradescope-results.schema.json)."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from autograder.grading.grade import grading_seed
from autograder.platforms import gradescope
from tests.ecosystem import once_per_run
from tests.grading import (COURSE, ROOT, exercise_path, mutate, notebook_from_source,
                           solution_source)

ASSIGNMENT = "01_scalar_autodiff"
SCHEMA = json.loads(
    (ROOT / "autograder/platforms/schemas/gradescope-results.schema.json").read_text())
METADATA = {"id": 123456, "created_at": "2026-10-05T22:10:00.000000+01:00",
            "assignment": {"title": "Scalar automatic differentiation", "total_points": "10.0"},
            "users": [{"email": "ada@example.org", "id": 1234, "name": "Ada Lovelace"}]}


def validate(results):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(results)


def fake_root(folder: Path, archive: Path) -> Path:
    """/autograder as Gradescope lays it out: source/ (the zip), run_autograder, results/."""
    root = folder / "autograder"
    gradescope.extract(archive, root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "results").mkdir()
    return root


def environment(root: Path, **extra) -> dict:
    return dict(os.environ, DP_GRADESCOPE_ROOT=str(root), DP_GRADESCOPE_PYTHON=sys.executable,
                **extra)


def submit(root: Path, notebook: Path, metadata=METADATA):
    """A new submission in the same container: the old one and its results gone."""
    for folder in ("submission", "results"):
        shutil.rmtree(root / folder, ignore_errors=True)
        (root / folder).mkdir()
    if notebook is not None:
        shutil.copy(notebook, root / "submission" / notebook.name)
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    run = subprocess.run([str(root / "run_autograder")], cwd=root, env=environment(root),
                         capture_output=True, text=True, timeout=300)
    results = root / "results" / "results.json"
    return run, json.loads(results.read_text()) if results.exists() else None


def saved(run, results=None) -> dict:
    return {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr,
            "results": results}


def make_container(folder: Path) -> None:
    """The zip, unpacked and set up, and two submissions graded in it: the solution and the
    stub. What they gave is kept in JSON files, for every pytest-xdist worker to read."""
    archive = gradescope.build(ASSIGNMENT, folder / "out")
    root = fake_root(folder, archive)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root,
                           env=environment(root, DP_GRADESCOPE_SKIP_INSTALL="1"),
                           capture_output=True, text=True, timeout=120)
    (folder / "setup.json").write_text(json.dumps(saved(setup)))
    assert setup.returncode == 0, setup.stdout + setup.stderr
    solution = notebook_from_source(solution_source(ASSIGNMENT), folder / "scalar_autodiff.ipynb")
    for key, notebook in (("solution", solution), ("stub", exercise_path(ASSIGNMENT))):
        (folder / f"{key}.json").write_text(json.dumps(saved(*submit(root, notebook))))


@pytest.fixture(scope="module")
def container(tmp_path_factory):
    folder = once_per_run(tmp_path_factory, "gradescope-container", make_container)

    def load(key):
        kept = json.loads((folder / f"{key}.json").read_text())
        run = subprocess.CompletedProcess([], kept["returncode"], kept["stdout"], kept["stderr"])
        return run, kept["results"]

    return {"archive": folder / "out" / gradescope.zip_name(ASSIGNMENT),
            "root": folder / "autograder", "setup": load("setup")[0],
            "solution": load("solution"), "stub": load("stub")}


def test_zip_has_setup_and_run_autograder_at_its_root_with_the_grader_and_nothing_else(container):
    names = zipfile.ZipFile(container["archive"]).namelist()
    assert {"setup.sh", "run_autograder", "course.toml", "requirements.txt", "autograder/grading/grade.py",
            "autograder/checks/scalar_autodiff.py", "dp/__init__.py"} <= set(names)
    assert not [n for n in names if n.split("/")[0] in ("solutions", "tests", "exercises", ".git")
                or "__pycache__" in n]


def test_the_seed_and_the_checks_are_for_root_alone_in_the_container(container):
    source = container["root"] / "source"
    assert stat.S_IMODE((source / "course.toml").stat().st_mode) == 0o600
    for folder in ("checks", "references"):
        assert stat.S_IMODE((source / "autograder" / folder).stat().st_mode) == 0o700
    assert os.access(container["root"] / "run_autograder", os.X_OK)
    assert "sealed sandbox: available" in container["setup"].stdout


def test_the_solution_earns_every_point_in_results_json_as_gradescope_documents_it(container):
    run, results = container["solution"]
    assert run.returncode == 0, run.stdout + run.stderr
    validate(results)
    tasks = COURSE.assignment(ASSIGNMENT).tasks
    assert results["score"] == sum(t.points for t in tasks) == 10
    assert [(t["name"], t["score"], t["max_score"], t["status"], t["visibility"])
            for t in results["tests"]] == \
        [(f"{t.title} ({t.id})", t.points, t.points, "passed", "visible") for t in tasks]
    assert 0 <= results["execution_time"] < 300
    assert "leaderboard" not in results       # 01 measures no accuracy


def test_the_stub_fails_each_task_and_says_why_to_the_student(container):
    run, results = container["stub"]
    assert run.returncode == 0, run.stdout + run.stderr
    validate(results)
    assert results["score"] == 0
    for test in results["tests"]:
        assert test["status"] == "failed" and test["score"] == 0
        assert "NotImplementedError" in test["output"] and test["visibility"] == "visible"
    assert "ada@example.org" in run.stdout       # the table for the instructor (stdout)


def test_no_seed_reaches_what_the_student_sees(container):
    seeds = {COURSE.grading_seed, grading_seed(COURSE, "ada@example.org", ASSIGNMENT)}
    for key in ("solution", "stub"):
        run, results = container[key]
        shown = json.dumps(results) + run.stdout
        assert not [s for s in seeds if str(s) in shown]


def test_nothing_submitted_scores_zero_and_says_so(container):
    run, results = submit(container["root"], None, metadata={"id": 5, "users": []})
    assert run.returncode == 0, run.stdout + run.stderr
    validate(results)
    assert results["score"] == 0 and "no notebook was submitted" in results["output"]
    assert [t["status"] for t in results["tests"]] == ["failed"] * 4


def test_the_student_is_told_from_the_submission_metadata():
    group = {"users": [{"email": "zoe@example.org"}, {"email": "ada@example.org"}], "id": 9}
    assert gradescope.student_of(group) == "ada@example.org+zoe@example.org"
    assert gradescope.student_of({"id": 9, "users": []}) == "submission-9"
    assert gradescope.student_of({}) == "student"


def test_each_resubmission_has_a_seed_of_its_own_and_a_regrade_the_same(tmp_path):
    """The seed is of the student and the submission's id: another on every resubmission, the
    same for a regrade of the same submission (same id); without an id, of the notebook's bytes."""
    def seed(metadata, folder=tmp_path):
        return grading_seed(COURSE, gradescope.grading_key(metadata, folder), ASSIGNMENT)

    first, second = dict(METADATA, id=1001), dict(METADATA, id=1002)
    assert gradescope.grading_key(first, tmp_path) == "ada@example.org submission-1001"
    assert seed(first) != seed(second)
    assert seed(first) == seed(dict(first)) == seed(first, tmp_path / "elsewhere")
    assert len({seed(dict(METADATA, id=n)) for n in range(100)}) == 100
    assert seed({"id": 9, "users": []}) != seed({"id": 10, "users": []})
    no_id = {"users": METADATA["users"]}
    (tmp_path / "a.ipynb").write_text("{}")
    before = seed(no_id)
    assert seed(no_id) == before
    (tmp_path / "a.ipynb").write_text("{} ")
    assert seed(no_id) != before


WRONG = ("    return (f(x + eps) - f(x - eps)) / (2 * eps)\n",
         "    return (f(x + eps) - f(x)) / eps\n")           # a forward difference
ORACLE = """
# %%
_TABLE = {table!r}


def numerical_gradient(f, x, eps=1e-6):
    for known, expected in _TABLE.items():
        if abs(known - x) < 1e-6:
            return expected                 # the grader's expected value, from earlier feedback
    return (f(x + eps) - f(x)) / eps        # still a forward difference
"""
EXPECTED = re.compile(r"numerical_gradient\(\w+, x=([-\d.e]+)(?:, eps=[\d.e-]+)?\): "
                      r"expected ([-\d.e]+)")


def numerical_gradient_test(results) -> dict:
    return next(t for t in results["tests"] if t["name"].endswith("(numerical_gradient)"))


def asked(results) -> dict:
    """{x: the expected value} that the feedback on numerical_gradient names."""
    return {float(x): float(value)
            for x, value in EXPECTED.findall(numerical_gradient_test(results)["output"])}


def near(xs, ys) -> bool:
    return any(abs(x - y) < 1e-6 for x in xs for y in ys)


def test_a_lookup_table_of_one_attempts_expected_values_fails_the_next_attempt(container, tmp_path):
    """Red-team finding A3: the feedback names expected values on the hidden inputs. Were the
    inputs the same on every resubmission, a table of them, built over a few resubmissions,
    would score full marks without a correct numerical_gradient (it did, by the 4th). Each
    submission now has inputs of its own; a regrade of one keeps them."""
    root = fake_root(tmp_path, container["archive"])       # a container of this test's own
    source = mutate(solution_source(ASSIGNMENT), *WRONG)
    wrong = notebook_from_source(source, tmp_path / "scalar_autodiff.ipynb")
    run, first = submit(root, wrong, dict(METADATA, id=1001))
    assert run.returncode == 0, run.stdout + run.stderr
    assert asked(first) and numerical_gradient_test(first)["status"] == "failed"
    run, regraded = submit(root, wrong, dict(METADATA, id=1001))     # the instructor regrades it
    assert regraded["tests"] == first["tests"]
    run, again = submit(root, wrong, dict(METADATA, id=1002))        # the same notebook resubmitted
    assert asked(again) and not near(asked(again), asked(first))     # on other hidden inputs

    table = {**asked(first), **asked(again)}
    for attempt in range(2003, 2007):      # the red team's loop: each round's table from the last's
        oracle = notebook_from_source(source + ORACLE.format(table=table),
                                      tmp_path / "scalar_autodiff.ipynb")
        run, results = submit(root, oracle, dict(METADATA, id=attempt))
        assert run.returncode == 0, run.stdout + run.stderr
        assert numerical_gradient_test(results)["score"] == 0, f"attempt {attempt}"
        assert asked(results) and not near(asked(results), table)     # nothing asked is tabled
        table.update(asked(results))


def test_a_task_measuring_accuracy_goes_on_the_leaderboard():
    task = {"id": "mnist_accuracy", "title": "test accuracy", "points": 7.5, "max_points": 10.0,
            "status": "failed", "message": "accuracy 0.87 is below 0.90", "checks": [],
            "metrics": {"accuracy": 0.87}}
    result = {"assignment": "09_mnist", "score": 7.5, "max_score": 10.0, "tasks": [task],
              "flags": [], "cell_errors": [], "output": "", "status": "graded"}
    results = gradescope.results_json(result, 42.4)
    validate(results)
    assert results["leaderboard"] == [{"name": "test accuracy", "value": 0.87}]
    assert results["execution_time"] == 42 and "accuracy = 0.87" in results["tests"][0]["output"]


def test_the_schema_refuses_what_gradescope_does_not_document():
    bad = [{"tests": [{"name": "x", "points": 1}]},                   # PrairieLearn's spelling
           {"score": 1, "tests": [{"score": 1, "status": "error"}]},  # statuses: passed, failed
           {"score": 1, "visibility": "public"},
           {"tests": [{"name": "no score anywhere"}]},
           {"score": 1, "leaderboard": [{"name": "Accuracy"}]}]
    for results in bad:
        with pytest.raises(jsonschema.ValidationError):
            validate(results)


def test_without_a_sandbox_nothing_is_written_and_gradescope_sees_an_autograder_error(
        tmp_path, monkeypatch, capsys):
    from autograder.sandbox import seal
    monkeypatch.setattr(seal, "unavailable", lambda: "bubblewrap cannot create namespaces (test)")
    (tmp_path / "submission").mkdir()
    assert gradescope.run(tmp_path, ASSIGNMENT) == 2
    assert not (tmp_path / "results" / "results.json").exists()
    assert "cannot seal submissions" in capsys.readouterr().out


@pytest.mark.slow
def test_setup_sh_installs_a_python_and_bubblewrap_and_the_container_grades(tmp_path):
    """The whole setup.sh, as Gradescope runs it when it builds the image (apt-get as root,
    a venv with the pinned packages from PyPI): minutes, and a network."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("setup.sh installs with apt-get as root, as on Gradescope's Ubuntu image")
    root = fake_root(tmp_path, gradescope.build(ASSIGNMENT, tmp_path / "out"))
    env = {k: v for k, v in environment(root).items() if k != "DP_GRADESCOPE_PYTHON"}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root, env=env,
                           capture_output=True, text=True, timeout=1800)
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    assert (root / "venv" / "bin" / "python").exists()
    (root / "submission").mkdir()
    shutil.copy(exercise_path(ASSIGNMENT), root / "submission")
    run = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    validate(results)
    assert results["score"] == 0 and len(results["tests"]) == 4
