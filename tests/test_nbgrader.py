"""The nbgrader path, with the real nbgrader: `python -m autograder nbgrader-course DIR`, then
nbgrader's own autograde, generate_feedback, export and formgrader in DIR, and the same totals
as `python -m autograder grade` on the same submissions."""
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import build
from autograder.gradebook import open_gradebook
from tests.grading import COURSE, ROOT
from tests.ecosystem import answered, get, jupyter, once_per_run

ASSIGNMENT = "01_scalar_autodiff"
NOTEBOOK = "scalar_autodiff.ipynb"
STUDENTS = ("solution", "stub", "partial")
EXPECTED = {"solution": 10.0, "stub": 0.0, "partial": 6.0}   # partial: parts 1 and 2 done


def run(*command, cwd, env=None, timeout=600):
    result = subprocess.run([sys.executable, *map(str, command)], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=timeout,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def autograde_environment() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "JUPYTER"))}
    env["AUTOGRADER_GRADING"] = "1"   # as if set in the shell: the course config must unset it
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = ""            # the course config puts the repository on the path
    return env


def make_course(tmp: Path):
    """A course directory for 01 with three submissions (one of them through nbgrader's
    exchange), autograded by nbgrader and graded by `grade`, which also writes its grades into
    a copy of the gradebook as it was before nbgrader's autograde (ours.db)."""
    course_dir = tmp / "course"
    run("-m", "autograder", "nbgrader-course", course_dir, "--assignment", ASSIGNMENT,
        "--students", ",".join(STUDENTS), cwd=ROOT)
    env = autograde_environment()
    filled = {"solution": 1000, "stub": 0, "partial": 2}   # answer cells filled in
    for student in ("stub", "partial"):
        path = course_dir / "submitted" / student / ASSIGNMENT / NOTEBOOK
        path.parent.mkdir(parents=True)
        nbformat.write(answered(ASSIGNMENT, filled[student]), str(path))
    # "solution" goes through nbgrader's exchange, as in class: release, fetch, submit, collect
    run("-m", "nbgrader", "release_assignment", ASSIGNMENT, cwd=course_dir, env=env)
    home = tmp / "solution-home"
    home.mkdir()
    exchange = [f"--Exchange.root={course_dir / 'exchange'}", "--Exchange.path_includes_course=True",
                f"--course={build.COURSE_ID}"]
    run("-m", "nbgrader", "fetch_assignment", ASSIGNMENT, *exchange, cwd=home, env=env)
    nbformat.write(answered(ASSIGNMENT, filled["solution"]),
                   str(home / build.COURSE_ID / ASSIGNMENT / NOTEBOOK))
    run("-m", "nbgrader", "submit", ASSIGNMENT, *exchange, "--student=solution", cwd=home, env=env)
    run("-m", "nbgrader", "collect", ASSIGNMENT, cwd=course_dir, env=env)
    shutil.copyfile(course_dir / "gradebook.db", tmp / "ours.db")
    run("-m", "nbgrader", "autograde", ASSIGNMENT, cwd=course_dir, env=env)
    run("-m", "autograder", "grade", course_dir / "submitted", "--out", tmp / "graded", "--quiet",
        "--gradebook", f"sqlite:///{tmp / 'ours.db'}", cwd=ROOT)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = once_per_run(tmp_path_factory, "nbgrader-course", make_course)
    return tmp / "course", tmp / "graded", tmp / "ours.db", autograde_environment()


def nbgrader_grades(db: Path) -> dict:
    """{student: (total, {task: points})} of assignment 01, read from an nbgrader gradebook."""
    grades = {}
    with open_gradebook(f"sqlite:///{db}", build.COURSE_ID) as gb:
        for student in STUDENTS:
            found = gb.find_submission(ASSIGNMENT, student)
            grades[student] = (found.score, {g.name: g.score for nb in found.notebooks for g in nb.grades})
    return grades


def our_grades(out: Path) -> dict:
    import json
    grades = {}
    for student in STUDENTS:
        result = json.loads((out / "results" / student / f"{ASSIGNMENT}.json").read_text())
        grades[student] = (result["score"], {t["id"]: t["points"] for t in result["tasks"]})
    return grades


def test_every_assignment_gets_source_release_and_gradebook_entries(tmp_path):
    run("-m", "autograder", "nbgrader-course", tmp_path / "course", cwd=ROOT)
    course_dir = tmp_path / "course"
    config = (course_dir / "nbgrader_config.py").read_text()
    assert f"course_id = {build.COURSE_ID!r}" in config and "c.Exchange.root" in config
    for a in COURSE.assignments:
        assert (course_dir / "source" / a.id / f"{a.notebook}.ipynb").is_file()
        assert (course_dir / "release" / a.id / f"{a.notebook}.ipynb").is_file()
    with open_gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", build.COURSE_ID) as gb:
        assert sorted(s.id for s in gb.students) == ["alice", "bob", "carol"]
        for a in COURSE.assignments:
            cells = {c.name: c.max_score for c in gb.find_notebook(a.notebook, a.id).grade_cells}
            assert cells == {t.id: t.points for t in a.tasks}, a.id


def test_release_is_the_committed_exercise(course):
    released = build._normalised(course[0] / "release" / ASSIGNMENT / NOTEBOOK)
    assert released == (ROOT / "exercises" / ASSIGNMENT / NOTEBOOK).read_bytes()


def test_nbgrader_totals_equal_the_autograder_totals(course):
    course_dir, out, _, _ = course
    theirs, ours = nbgrader_grades(course_dir / "gradebook.db"), our_grades(out)
    table = "\n".join(f"{s:<9} nbgrader {theirs[s][0]:>4g}  autograder {ours[s][0]:>4g}" for s in STUDENTS)
    assert {s: theirs[s][0] for s in STUDENTS} == EXPECTED, table
    assert theirs == ours, table


def test_grade_cells_show_the_check_verdicts_in_nbgrader(course):
    def outputs(student):
        notebook = nbformat.read(str(course[0] / "autograded" / student / ASSIGNMENT / NOTEBOOK), as_version=4)
        return "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "✔ scalar_arithmetic: all" in outputs("solution")
    stub = outputs("stub")
    assert "✘ scalar_arithmetic: 0 of" in stub and "not implemented yet" in stub
    partial = outputs("partial")
    assert "✔ scalar_functions" in partial and "✘ scalar_backprop" in partial


def test_generate_feedback_and_export_work(course):
    course_dir, _, _, env = course
    run("-m", "nbgrader", "generate_feedback", ASSIGNMENT, cwd=course_dir, env=env)
    page = (course_dir / "feedback" / "stub" / ASSIGNMENT / NOTEBOOK.replace(".ipynb", ".html")).read_text()
    assert "scalar_arithmetic" in page and "not implemented yet" in page
    run("-m", "nbgrader", "export", "--to", "grades.csv", cwd=course_dir, env=env)
    rows = [r for r in csv.DictReader((course_dir / "grades.csv").open()) if r["assignment"] == ASSIGNMENT]
    assert {r["student_id"]: float(r["raw_score"]) for r in rows} == EXPECTED


def test_formgrader_shows_the_grades(course, tmp_path):
    with jupyter(course[0], tmp_path / "home", app="server") as (url, token, _):
        [assignment] = [a for a in get(f"{url}/formgrader/api/assignments", token)
                        if a["name"] == ASSIGNMENT]
        assert assignment["num_submissions"] == 3 and assignment["max_score"] == 10
        submissions = get(f"{url}/formgrader/api/submissions/{ASSIGNMENT}", token)
        assert {s["student"]: s["score"] for s in submissions} == EXPECTED
        assert "nbgrader formgrade" in get(f"{url}/formgrader/manage_submissions/{ASSIGNMENT}", token)


def test_grade_writes_the_same_totals_into_a_gradebook(course):
    _, _, ours_db, _ = course
    assert nbgrader_grades(ours_db) == nbgrader_grades(course[0] / "gradebook.db")


def test_gradebook_gets_assignments_nbgrader_has_not_seen(tmp_path):
    from autograder.gradebook import write_grades
    result = {"student": "dana", "assignment": ASSIGNMENT, "score": 3.0, "tasks": [
        {"id": t.id, "points": 3.0 if t.id == "scalar_arithmetic" else 0.0}
        for t in COURSE.assignment(ASSIGNMENT).tasks]}
    url = f"sqlite:///{tmp_path / 'new.db'}"
    assert write_grades([result], url, COURSE) == 1
    assert write_grades([result], url, COURSE) == 1       # again: replaced, not duplicated
    with open_gradebook(url) as gb:
        found = gb.find_submission(ASSIGNMENT, "dana")
        assert (found.score, found.max_score) == (3.0, 10.0)
        assert len(gb.assignment_submissions(ASSIGNMENT)) == 1
