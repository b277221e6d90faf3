"""The nbgrader path, with the real nbgrader: `python -m autograder nbgrader-course DIR`, then
nbgrader's own autograde, generate_feedback, export and formgrader in DIR, and the same totals
as `python -m autograder grade` on the same submissions, hostile ones included: autograde grades
in the sandbox (autograder.platforms.nbgrader_plugin), not in the student's kernel."""
import csv
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.authoring import build
from autograder.platforms.gradebook import open_gradebook
from tests.grading import COURSE, ROOT
from tests.ecosystem import answered, get, jupyter, once_per_run

ASSIGNMENT = "01_scalar_autodiff"
NOTEBOOK = "scalar_autodiff.ipynb"
STUDENTS = ("solution", "stub", "partial", "forger", "patcher", "deleter")
EXPECTED = {"solution": 10.0, "stub": 0.0, "partial": 6.0,   # partial: parts 1 and 2 done
            "forger": 0.0, "patcher": 0.0,                  # stubs that disarm check() first
            "deleter": 10.0}                                # the solution, a grade cell deleted
# What a stub adds, in a cell of its own after the imports, to pass every grade cell when the
# grade cells run in its kernel (nbgrader's default autograde)
HOSTILE = {"forger": "check = lambda *args, **kwargs: None",
           "patcher": "import autograder.grading.selfcheck\n"
                      "autograder.grading.selfcheck.check = lambda *args, **kwargs: None"}


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


def submission(student, filled):
    notebook = answered(ASSIGNMENT, 1000 if student == "deleter" else filled)
    if student in HOSTILE:
        imports = next(i for i, c in enumerate(notebook.cells) if "from autograder import check" in c.source)
        notebook.cells.insert(imports + 1, nbformat.v4.new_code_cell(HOSTILE[student]))
    if student == "deleter":
        notebook.cells = [c for c in notebook.cells
                          if c.metadata.get("nbgrader", {}).get("grade_id") != "scalar_arithmetic"]
    return notebook


def make_course(tmp: Path):
    """A course directory for 01 with three submissions (one of them through nbgrader's
    exchange), autograded by nbgrader and graded by `grade`, which also writes its grades into
    a copy of the gradebook as it was before nbgrader's autograde (ours.db)."""
    course_dir = tmp / "course"
    run("-m", "autograder", "nbgrader-course", course_dir, "--assignment", ASSIGNMENT,
        "--students", ",".join(STUDENTS), cwd=ROOT)
    env = autograde_environment()
    filled = {"solution": 1000, "stub": 0, "partial": 2}   # answer cells filled in
    for student in STUDENTS[1:]:
        path = course_dir / "submitted" / student / ASSIGNMENT / NOTEBOOK
        path.parent.mkdir(parents=True)
        nbformat.write(submission(student, filled.get(student, 0)), str(path))
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
    started = time.monotonic()
    log = run("-m", "nbgrader", "autograde", ASSIGNMENT, cwd=course_dir, env=env)
    (tmp / "autograde.log").write_text(log.stdout + log.stderr)
    (tmp / "autograde.seconds").write_text(f"{time.monotonic() - started:.1f}")
    run("-m", "autograder", "grade", course_dir / "submitted", "--out", tmp / "graded", "--quiet",
        "--gradebook", f"sqlite:///{tmp / 'ours.db'}", cwd=ROOT)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = once_per_run(tmp_path_factory, "nbgrader-course", make_course)
    return tmp / "course", tmp / "graded", tmp / "ours.db", autograde_environment()


def nbgrader_grades(db: Path) -> dict:
    """{student: (total, {task: points})} of assignment 01, read from an nbgrader gradebook (the
    code grade cells: the questions' answer cells wait for manual grading)."""
    grades = {}
    with open_gradebook(f"sqlite:///{db}", build.COURSE_ID) as gb:
        for student in STUDENTS:
            found = gb.find_submission(ASSIGNMENT, student)
            grades[student] = (found.score, {g.name: g.score for nb in found.notebooks
                                             for g in nb.grades if g.cell.cell_type == "code"})
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
            cells = {(c.name, c.cell_type): c.max_score
                     for c in gb.find_notebook(a.notebook, a.id).grade_cells}
            assert cells == {**{(t.id, "code"): t.points for t in a.tasks},
                             **{(q.id, "markdown"): q.points for q in a.questions}}, a.id


def test_release_is_the_committed_exercise(course):
    released = build._normalised(course[0] / "release" / ASSIGNMENT / NOTEBOOK)
    assert released == (ROOT / "exercises" / ASSIGNMENT / NOTEBOOK).read_bytes()


def test_nbgrader_totals_equal_the_autograder_totals(course):
    course_dir, out, _, _ = course
    theirs, ours = nbgrader_grades(course_dir / "gradebook.db"), our_grades(out)
    table = "\n".join(f"{s:<9} nbgrader {theirs[s][0]:>4g}  autograder {ours[s][0]:>4g}" for s in STUDENTS)
    seconds = (course_dir.parent / "autograde.seconds").read_text()
    table += f"\n(nbgrader autograde of {len(STUDENTS)} notebooks: {seconds} s)"
    print(table)
    assert {s: theirs[s][0] for s in STUDENTS} == EXPECTED, table
    assert theirs == ours, table


def test_the_questions_wait_for_manual_grading_in_the_gradebook(course):
    """After autograde, each question's answer cell is a grade of its own, worth its points; the
    submission's maximum counts them, its score does not yet. An answered question needs
    manual grading; one left as released (the stub's "YOUR ANSWER HERE") nbgrader scores 0
    by itself, as it does every unchanged answer cell."""
    questions = COURSE.assignment(ASSIGNMENT).questions
    assert questions
    answered_all = ("solution", "deleter")      # the others filled in no answer cell after part 2
    with open_gradebook(f"sqlite:///{course[0] / 'gradebook.db'}", build.COURSE_ID) as gb:
        for student in STUDENTS:
            found = gb.find_submission(ASSIGNMENT, student)
            assert (found.score, found.max_score) == (EXPECTED[student], 10 + sum(q.points for q in questions))
            grades = {g.name: g for nb in found.notebooks for g in nb.grades}
            waiting = student in answered_all
            assert {q.id: (grades[q.id].needs_manual_grade, grades[q.id].max_score,
                           grades[q.id].auto_score) for q in questions} == {
                q.id: (waiting, q.points, None if waiting else 0.0) for q in questions}, student
            assert found.needs_manual_grade == waiting


def autograded(course_dir, student):
    return nbformat.read(str(course_dir / "autograded" / student / ASSIGNMENT / NOTEBOOK), as_version=4)


def test_grade_cells_show_the_check_verdicts_in_nbgrader(course):
    def outputs(student):
        notebook = autograded(course[0], student)
        return "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "✔ scalar_arithmetic: all" in outputs("solution")
    stub = outputs("stub")
    assert "✘ scalar_arithmetic: 0 of" in stub and "not implemented yet" in stub
    partial = outputs("partial")
    assert "✔ scalar_functions" in partial and "✘ scalar_backprop" in partial


def test_autograde_grades_in_the_sandbox_not_in_the_kernel(course):
    """Nothing of autograde ran in a kernel: the verdicts are the sandbox grading's, for the
    nbgrader student, and the forger's own `check` never ran."""
    log = (course[0].parent / "autograde.log").read_text()
    assert "IPKernelApp" not in log and "in the sandbox (student forger)" in log
    for student in STUDENTS:
        notebook = autograded(course[0], student)
        meta = notebook.metadata["autograder"]
        assert (meta["student"], meta["assignment"], meta["score"]) == (student, ASSIGNMENT, EXPECTED[student])
        graded = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert sorted((c.metadata.nbgrader.grade_id, c.cell_type) for c in graded) == sorted(
            [(t.id, "code") for t in COURSE.assignment(ASSIGNMENT).tasks]
            + [(q.id, "markdown") for q in COURSE.assignment(ASSIGNMENT).questions]), student
        assert all(c.execution_count is None for c in notebook.cells if c.cell_type == "code")
    forger = autograded(course[0], "forger")
    errors = [o for c in forger.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert {o.ename for o in errors} >= {"CheckFailed", "NotImplementedError"}
    # the deleted grade cell is back (at the end), with the verdict of `grade`
    last = autograded(course[0], "deleter").cells[-1]
    assert last.metadata.nbgrader.grade_id == "scalar_arithmetic"
    assert "✔ scalar_arithmetic: all" in last.outputs[0].text


def copy_of_course(course_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "course"
    shutil.copytree(course_dir, copy, symlinks=True)
    return copy


def test_the_hostile_stubs_forge_full_marks_when_graded_in_the_kernel(course, tmp_path):
    """Why autograde must not run the grade cells: with nbgrader's own autograde (the
    instructor's explicit opt-in: Execute back in the list), the same two stubs get full marks."""
    copy = copy_of_course(course[0], tmp_path)
    with (copy / "nbgrader_config.py").open("a") as config:
        config.write("\nfrom nbgrader.converters.autograde import Autograde\n"
                     "c.Autograde.autograde_preprocessors = Autograde.autograde_preprocessors.default()\n")
    others = ",".join(s for s in STUDENTS if s not in HOSTILE)
    run("-m", "nbgrader", "autograde", ASSIGNMENT, "--force",
        f"--CourseDirectory.student_id_exclude={others}", cwd=copy, env=course[3])
    theirs = nbgrader_grades(copy / "gradebook.db")
    assert {s: theirs[s][0] for s in HOSTILE} == {s: 10.0 for s in HOSTILE}


def test_autograde_refuses_when_the_sandbox_grading_cannot_be_loaded(course, tmp_path):
    """nbgrader skips a configuration file that raises and grades with its defaults (in the
    kernel): the course's configuration must not raise, and refuses to grade instead."""
    copy = copy_of_course(course[0], tmp_path)
    broken = tmp_path / "broken" / "autograder"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    config = (copy / "nbgrader_config.py").read_text()
    config = config.replace(f"repository = {str(ROOT.resolve())!r}", f"repository = {str(broken.parent)!r}")
    assert str(broken.parent) in config
    (copy / "nbgrader_config.py").write_text(config)
    result = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force",
                             "--student=forger"], cwd=copy, env=course[3], capture_output=True,
                            text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode != 0
    assert "autograde refused" in result.stderr and "broken on purpose" in result.stderr
    assert "IPKernelApp" not in result.stderr
    assert nbgrader_grades(copy / "gradebook.db")["forger"][0] == 0.0


def test_generate_feedback_and_export_work(course):
    course_dir, _, _, env = course
    run("-m", "nbgrader", "generate_feedback", ASSIGNMENT, cwd=course_dir, env=env)
    page = (course_dir / "feedback" / "stub" / ASSIGNMENT / NOTEBOOK.replace(".ipynb", ".html")).read_text()
    assert "scalar_arithmetic" in page and "not implemented yet" in page
    question = COURSE.assignment(ASSIGNMENT).questions[0]
    assert question.id in page           # the answer cell, shown for its manual grade
    run("-m", "nbgrader", "export", "--to", "grades.csv", cwd=course_dir, env=env)
    rows = [r for r in csv.DictReader((course_dir / "grades.csv").open()) if r["assignment"] == ASSIGNMENT]
    assert {r["student_id"]: float(r["raw_score"]) for r in rows} == EXPECTED


def test_formgrader_shows_the_grades(course, tmp_path):
    with jupyter(course[0], tmp_path / "home", app="server") as (url, token, _):
        [assignment] = [a for a in get(f"{url}/formgrader/api/assignments", token)
                        if a["name"] == ASSIGNMENT]
        by_hand = COURSE.assignment(ASSIGNMENT).hand_points
        assert assignment["num_submissions"] == len(STUDENTS) and assignment["max_score"] == 10 + by_hand
        submissions = get(f"{url}/formgrader/api/submissions/{ASSIGNMENT}", token)
        assert {s["student"]: s["score"] for s in submissions} == EXPECTED
        assert "nbgrader formgrade" in get(f"{url}/formgrader/manage_submissions/{ASSIGNMENT}", token)


def test_grade_writes_the_same_totals_into_a_gradebook(course):
    _, _, ours_db, _ = course
    assert nbgrader_grades(ours_db) == nbgrader_grades(course[0] / "gradebook.db")


def test_gradebook_gets_assignments_nbgrader_has_not_seen(tmp_path):
    from autograder.platforms.gradebook import write_grades
    result = {"student": "dana", "assignment": ASSIGNMENT, "score": 3.0, "tasks": [
        {"id": t.id, "points": 3.0 if t.id == "scalar_arithmetic" else 0.0}
        for t in COURSE.assignment(ASSIGNMENT).tasks]}
    url = f"sqlite:///{tmp_path / 'new.db'}"
    assert write_grades([result], url, COURSE) == 1
    assert write_grades([result], url, COURSE) == 1       # again: replaced, not duplicated
    with open_gradebook(url) as gb:
        found = gb.find_submission(ASSIGNMENT, "dana")
        assert (found.score, found.max_score) == (3.0, 10.0 + COURSE.assignment(ASSIGNMENT).hand_points)
        assert len(gb.assignment_submissions(ASSIGNMENT)) == 1


def test_rows_without_a_submission_are_not_written_into_the_gradebook(tmp_path):
    """`grade` gives every student a row; nbgrader's gradebook gets only submissions: a missing
    notebook and an unidentified loose one are skipped, a notebook that could not be graded is
    written, worth 0."""
    from autograder.platforms.gradebook import write_grades
    tasks = [{"id": t.id, "points": 0.0} for t in COURSE.assignment(ASSIGNMENT).tasks]
    rows = [{"student": "erin", "assignment": ASSIGNMENT, "status": "missing", "tasks": tasks},
            {"student": "mystery", "assignment": "unidentified", "status": "error", "tasks": []},
            {"student": "fred", "assignment": ASSIGNMENT, "status": "error", "tasks": tasks}]
    url = f"sqlite:///{tmp_path / 'rows.db'}"
    assert write_grades(rows, url, COURSE) == 1
    with open_gradebook(url) as gb:
        assert [s.student.id for s in gb.assignment_submissions(ASSIGNMENT)] == ["fred"]
        assert gb.find_submission(ASSIGNMENT, "fred").score == 0.0


def test_verdicts_become_nbgrader_scores_partial_credit_included():
    """apply_result's outputs, scored by nbgrader's own determine_grade (what SaveAutoGrades
    records): full, partial, none, a grade cell that is no task, and a deleted grade cell."""
    from nbgrader.nbgraderformat import MetadataValidator
    from nbgrader.utils import determine_grade

    from autograder.platforms.nbgrader_plugin import apply_result

    def grade_cell(grade_id, points):
        return nbformat.v4.new_code_cell(f"check({grade_id!r})", metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "task": False,
            "grade_id": grade_id, "points": points, "schema_version": 3}})
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1", id="answer"), grade_cell("full", 3), grade_cell("some", 3),
        grade_cell("none", 3), grade_cell("unknown", 2), grade_cell("demoted", 3)])
    notebook.cells[-1].metadata.nbgrader.update(grade=False, points=0)   # "no longer a grade cell"
    task = {"status": "failed", "message": "", "metrics": {}, "max_points": 3.0, "checks": [
        {"name": "test_one", "status": "passed", "message": ""},
        {"name": "test_two", "status": "failed", "message": "differs"}]}
    result = {"student": "x", "assignment": ASSIGNMENT, "flags": ["forbidden import: torch (cell 1)"],
              "cell_errors": [{"cell": 1, "line": 1, "error": "NameError: name 'y' is not defined"}],
              "tasks": [dict(task, id="full", points=3.0, status="passed"), dict(task, id="some", points=1.25),
                        dict(task, id="none", points=0.0), dict(task, id="gone", points=2.0),
                        dict(task, id="demoted", points=3.0, status="passed")]}
    apply_result(notebook, result, cell_ids={1: "answer"})
    MetadataValidator().validate_nb(notebook)          # nbgrader's CheckCellMetadata accepts it
    scores = {c.metadata.nbgrader.grade_id: determine_grade(c)[0]
              for c in notebook.cells if "nbgrader" in c.metadata}
    assert scores == {"full": 3.0, "some": 1.25, "none": 0.0, "unknown": 0.0, "gone": 2.0, "demoted": 3.0}
    assert len(notebook.cells) == 7 and notebook.cells[-1].metadata.nbgrader.points == 3.0
    assert notebook.cells[0].outputs[0].ename == "NameError"
    assert "flag: forbidden import: torch" in notebook.cells[1].outputs[0].text
    assert "✘ some: 1 of 2 checks passed (1.25 of 3 points)\n  - two: differs" in notebook.cells[2].outputs[0].text
