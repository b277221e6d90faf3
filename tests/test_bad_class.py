"""One submission, one result: a class in which every kind of bad submission that used to stop
the run (or impersonate, or bloat the output) is graded in one batch with honest students.

Each bad submission must get its own row with a clear message; the honest ones keep full marks;
the CLI exits 0; and nothing a submission sends makes a result or a feedback page large."""
import csv
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from autograder.grading import report
from autograder.course.notebook import NotebookError, read_notebook
from tests.grading import COURSE, ROOT, full_marks, notebook_from_source, points, solution_source

A = "01_scalar_autodiff"
HUGE = 60 * 2 ** 20            # characters: each of these strings is a 60 MiB reply or message
MAX_FILE = 2 ** 20             # bytes: what a result or a feedback page may weigh, at most

# Cells appended to the (quick, honest) solution of 01.
SURROGATE_CELL = "\n# %%\nraise ValueError('bad ' + chr(0xD800))\n"
SURROGATE_PROBE = ("\n# %%\ndef numerical_gradient(f, x, eps=1e-6):\n"
                   "    raise ValueError('probe ' + chr(0xDFFF))\n")
HUGE_TEXT = (f"\n# %%\nprint('x' * {HUGE})\n"
             f"def numerical_gradient(f, x, eps=1e-6):\n    raise ValueError('y' * {HUGE})\n"
             f"# %%\nraise ValueError('z' * {HUGE})\n")
DEEP = "\n# %%\nx = " + "-" * 5000 + "1\n"      # Python's parser gives up: RecursionError
WRONG = "\n# %%\ndef numerical_gradient(f, x, eps=1e-6):\n    return 0.0\n"
# Names as found in a submitted/ tree or a folder of loose notebooks (an LMS's zip, unpacked):
# a formula, control characters, and a Latin-1 name of 198 bytes that as escaped text would be
# longer than a file name may be.
FORMULA, CONTROL1, CONTROL2 = "=1+1", "bob\x01", "bob\x02"
LATIN1 = os.fsdecode("Jos\xe9 Mar\xeda ".encode("latin-1") * 16)


def autograder(*args):
    """`python -m autograder ARGS` as an instructor runs it (stdout and stderr not a terminal)."""
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def submit(root, student, extra="", name="scalar_autodiff.ipynb", assignment=A):
    folder = root / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    return notebook_from_source(solution_source(A) + extra, folder / name)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    top = tmp_path_factory.mktemp("bad_class")
    sub = top / "submitted"
    submit(sub, "honest1")
    submit(sub, "honest2")
    submit(sub, "surrogate_cell", SURROGATE_CELL)
    submit(sub, "surrogate_probe", SURROGATE_PROBE)
    path = submit(sub, "metadata_list")
    notebook = json.loads(path.read_text())
    notebook["metadata"] = []
    path.write_text(json.dumps(notebook))
    submit(sub, "copy")                                            # JupyterLab's leftover next to it:
    submit(sub, "copy", "\n# %%\ndef numerical_gradient(f, x, eps=1e-6):\n    return 0.0\n",
           name="scalar_autodiff-Copy1.ipynb")                    # ... an older, wrong version
    submit(sub, "nested")
    submit(sub / "nested" / A / "submitted", "victim")             # must not be graded as "victim"
    submit(sub, "huge", HUGE_TEXT)
    submit(sub, "deep", DEEP)
    submit(sub, "bigcode", "\n# %%\nx = [" + "1, " * 400_000 + "]\n")    # 1.2 million characters
    submit(sub, FORMULA)
    submit(sub, CONTROL1)
    submit(sub, CONTROL2, WRONG)              # the same name once cleaned: must stay two students
    submit(sub, LATIN1)
    misfiled = sub / "misfiled" / A
    misfiled.mkdir(parents=True)
    shutil.copy(COURSE.assignment("04_activation_functions").exercise_path(ROOT), misfiled)
    (sub / "empty_student").mkdir()
    (sub / "empty_folder" / A).mkdir(parents=True)
    loose = top / "loose"
    loose.mkdir()
    notebook = json.loads(path.read_text())     # no metadata, no check() cells, no telling name
    notebook["metadata"] = {}
    notebook["cells"] = [c for c in notebook["cells"] if "check(" not in "".join(c["source"])]
    (loose / "mystery.ipynb").write_text(json.dumps(notebook))
    (loose / "deepjson_scalar_autodiff.ipynb").write_text('{"cells": ' + "[" * 200_000 + "]" * 200_000 + "}")
    out = top / "out"
    return top, out, autograder("grade", sub, loose, "--out", out, "--jobs", "2")


def result(out, student, assignment=A):
    return json.loads((out / "results" / student / f"{assignment}.json").read_text(encoding="utf-8"))


def test_the_run_exits_zero_with_a_legend(graded):
    run = graded[2]
    assert run.returncode == 0, run.stderr[-3000:]
    assert report.LEGEND in run.stdout and "⚠ error" in run.stdout and "✘ failed" in run.stdout


def test_honest_students_keep_full_marks(graded):
    out = graded[1]
    for student in ("honest1", "honest2", "copy", "nested", "surrogate_cell"):
        assert points(result(out, student)) == full_marks(A), (student, result(out, student)["tasks"])


def test_everyone_gets_a_row_and_no_one_is_impersonated(graded):
    rows = {(r["student"], r["assignment"]): r for r in csv.DictReader((graded[1] / "grades.csv").open())}
    students = {"honest1", "honest2", "surrogate_cell", "surrogate_probe", "metadata_list", "copy",
                "nested", "huge", "deep", "misfiled", "empty_student", "empty_folder", "bigcode",
                "deepjson", *map(report.student_name, (FORMULA, CONTROL1, CONTROL2, LATIN1))}
    assert set(rows) == {(report.defused(s), A) for s in students} | {("mystery", "unidentified")}
    assert not (graded[1] / "results" / "victim").exists()
    assert {rows[s, A]["status"] for s in ("empty_student", "empty_folder")} == {"missing"}
    assert rows["deep", A]["status"] == "graded" and rows["honest1", A]["status"] == "graded"


def test_names_are_one_line_short_and_never_merged(graded):
    """Control characters and undecodable bytes give a name of their own, "~" and a hash, which is a
    file name of at most 113 bytes: two names found stay two students, graded each on their own."""
    out = graded[1]
    one, two, latin = map(report.student_name, (CONTROL1, CONTROL2, LATIN1))
    assert len({one, two}) == 2 and all("~" in name and name.isprintable() for name in (one, two, latin))
    assert len(latin.encode()) <= 113 and latin.startswith("Jos_ Mar_")
    assert report.student_name(FORMULA) == FORMULA and report.student_name("honest1") == "honest1"
    assert points(result(out, one)) == full_marks(A)
    assert points(result(out, two))["numerical_gradient"] == 0
    assert points(result(out, latin)) == full_marks(A)
    assert (out / "feedback" / latin / f"{A}.html").is_file()


def test_no_cell_of_the_grades_csv_is_a_formula(graded):
    """A spreadsheet opening grades.csv sees every name and message as text."""
    text = (graded[1] / "grades.csv").read_text()
    assert "\n'=1+1," in text
    for row in csv.reader(text.splitlines(keepends=True)):
        for cell in row:
            assert not re.match(r"[\s\x00-\x1f]*[=+\-@]", cell) or _number(cell), (cell, row)


def _number(text) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def test_notebooks_built_against_the_parsers_are_rows_of_their_own(graded):
    """JSON nested 200,000 deep, code nested 5,000 deep, more code than the cap: each its own
    row, with a message that says what is wrong; the code that Python cannot parse is flagged
    and the rest of the notebook graded."""
    nested = result(graded[1], "deepjson")
    assert nested["status"] == "error" and "nested too deeply" in nested["message"], nested["message"]
    big = result(graded[1], "bigcode")
    assert big["status"] == "error" and "characters of code, more than the 1,048,576 allowed" in \
        big["message"], big["message"]
    deep = result(graded[1], "deep")
    assert any(f.startswith("code that Python cannot parse in the cell") for f in deep["flags"]), deep["flags"]
    assert points(deep) == full_marks(A)


def test_similarity_of_the_class_runs_to_its_end(graded, tmp_path):
    run = autograder("similarity", graded[0] / "submitted", A, "--out", tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "'=1+1" in (tmp_path / f"similarity-{A}.csv").read_text()


def test_a_nested_submitted_tree_is_ignored_and_said(graded):
    flags = result(graded[1], "nested")["flags"]
    assert any(f.startswith(f"ignored submitted/nested/{A}/submitted/victim/") for f in flags), flags


def test_lone_surrogates_are_written_as_escapes(graded):
    out = graded[1]
    cell = result(out, "surrogate_cell")
    assert any(e["error"] == "ValueError: bad \\ud800" for e in cell["cell_errors"]), cell["cell_errors"]
    probe = {t["id"]: t for t in result(out, "surrogate_probe")["tasks"]}["numerical_gradient"]
    assert probe["status"] == "error" and "ValueError: probe \\udfff" in probe["message"], probe
    page = (out / "feedback" / "surrogate_cell" / f"{A}.html").read_text(encoding="utf-8")
    assert "bad \\ud800" in page


def test_a_rerun_resumes_without_crashing(graded):
    top, out, _ = graded
    before = {p: p.stat().st_mtime_ns for p in (out / "results").rglob("*.json")}
    run = autograder("grade", top / "submitted", top / "loose", "--out", out, "--jobs", "1", "--quiet")
    assert run.returncode == 0, run.stderr[-3000:]
    assert {p: p.stat().st_mtime_ns for p in before} == before


def test_wrong_types_in_the_notebook_are_named(graded):
    r = result(graded[1], "metadata_list")
    assert r["status"] == "error" and r["score"] == 0
    assert r["message"].startswith("unreadable notebook: the notebook's metadata is a list, not an "
                                   "object"), r["message"]


def test_a_copy_is_not_graded_and_is_named(graded):
    flags = result(graded[1], "copy")["flags"]
    assert ("graded scalar_autodiff.ipynb; other notebooks in the folder not graded: "
            "scalar_autodiff-Copy1.ipynb") in flags, flags


def test_an_unidentifiable_loose_notebook_is_a_row_of_its_own(graded):
    r = result(graded[1], "mystery", "unidentified")
    assert r["status"] == "error" and r["tasks"] == [] and r["score"] == 0
    assert r["message"].startswith("mystery.ipynb: cannot tell which assignment this notebook is for")
    assert "pass --assignment" in r["message"]


def test_a_notebook_filed_under_another_assignment_says_so_without_cheating_flags(graded):
    r = result(graded[1], "misfiled")
    assert r["status"] == "error" and r["score"] == 0
    assert r["message"].startswith("this is the notebook of 04_activation_functions, filed under "
                                   "01_scalar_autodiff"), r["message"]
    assert not any("forbidden" in f for f in r["flags"]), r["flags"]


def test_an_unexpected_error_in_the_grader_is_that_submissions_result(monkeypatch, tmp_path):
    from autograder.grading import grade

    def broken(notebook):
        raise KeyError("a bug of the grader's")
    monkeypatch.setattr(grade, "code_cells", broken)
    path = submit(tmp_path, "alice")
    r, figures = grade.grade_one(grade.Submission(path, "alice", A))
    assert r["status"] == "error" and r["score"] == 0 and figures == []
    assert r["message"].startswith("the grader could not grade this notebook: KeyError"), r["message"]
    assert r["notebook_sha256"] == ""          # a rerun tries again


def test_huge_texts_are_capped_and_said(graded):
    out = graded[1]
    for path in [*(out / "results").rglob("*.json"), *(out / "feedback").rglob("*.html")]:
        assert path.stat().st_size < MAX_FILE, (path, path.stat().st_size)
    r = result(out, "huge")
    assert r["output"].startswith("(truncated) … ") and r["output"].endswith("x" * 100)
    assert len(r["output"]) <= report.CAPS["output"]
    texts = [t["message"] for t in r["tasks"]] + [e["error"] for e in r["cell_errors"]]
    assert all(len(t) <= report.CAPS["message"] for t in texts)
    assert any(t.endswith("yyy" + report.TRUNCATED) for t in texts), texts
    assert points(r)["numerical_gradient"] == 0


def test_results_and_feedback_are_readable_by_the_group(graded):
    out = graded[1]
    for path in (out / "results" / "honest1" / f"{A}.json", out / "feedback" / "honest1" / f"{A}.html",
                 out / "grades.csv"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o640, path
    assert stat.S_IMODE(out.stat().st_mode) == 0o750


def test_progress_in_a_log_is_lines_not_frames(graded):
    stderr = graded[2].stderr
    assert "\r" not in stderr and "grading: 19/19 notebooks" in stderr, stderr[-2000:]
    assert stderr.count("grading:") <= 11


def test_grade_wide_writes_a_row_per_student_and_a_column_per_assignment(graded, tmp_path):
    """`grade --wide`, as an LMS import wants it (here on a copy of the run: it resumes)."""
    top, out, _ = graded
    shutil.copytree(out, tmp_path / "out")
    run = autograder("grade", top / "submitted", top / "loose", "--out", tmp_path / "out",
                     "--jobs", "1", "--quiet", "--wide")
    assert run.returncode == 0, run.stderr[-3000:]
    rows = list(csv.reader((tmp_path / "out" / "grades.csv").open()))
    assert rows[0] == ["student", A]        # the assignments of the input, in course.toml's order
    wide = {r[0]: r[1:] for r in rows[1:]}
    assert wide["honest1"] == ["10"] and wide["empty_student"] == [""] and wide["metadata_list"] == ["0"]
    assert len(rows) == 1 + len({r["student"] for r in report.load_results(out)})


# -- the caps and the text cleaning, on their own (no sandbox) ---------------------------------
def test_bounded_caps_every_field_a_submission_can_fill():
    huge = "\ud800" + "m" * HUGE
    r = report.bounded({
        "student": "s", "assignment": A, "output": huge, "message": huge,
        "flags": [huge] * 1000, "cell_errors": [{"cell": 3, "error": huge}] * 1000,
        "tasks": [{"id": "t", "points": 0, "max_points": 1, "status": "failed", "message": huge,
                   "metrics": {f"k{i}": huge for i in range(1000)} | {"n": 0.5},
                   "checks": [{"name": "c", "status": "failed", "message": huge}] * 1000}]})
    text = json.dumps(r, ensure_ascii=False)
    assert len(text.encode("utf-8")) < 100_000
    assert r["message"].startswith("\\ud800m") and r["message"].endswith(report.TRUNCATED)
    assert len(r["flags"]) == report.CAPS["flags"] and r["flags"][-1].endswith("(truncated)")
    assert len(r["tasks"][0]["metrics"]) == report.CAPS["metrics"]
    assert report.bounded(r) == r                      # idempotent: bounded twice is bounded once


@pytest.mark.parametrize("change, message", [
    (lambda nb: nb.update(metadata=[]), "the notebook's metadata is a list, not an object"),
    (lambda nb: nb["metadata"].update(kernelspec="python3"), "metadata.kernelspec is a string"),
    (lambda nb: nb["cells"].append("print(1)"), "cell 2 is a string, not an object"),
    (lambda nb: nb["cells"][0].update(source=7), "cell 1's source is a number"),
    (lambda nb: nb["cells"][0].update(source=["a", None]), "cell 1's source line is null"),
    (lambda nb: nb["cells"][0].update(metadata={"nbgrader": []}), "cell 1's metadata.nbgrader is a list"),
])
def test_malformed_structure_is_a_notebook_error_naming_it(tmp_path, change, message):
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": []}]}
    change(notebook)
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(notebook))
    with pytest.raises(NotebookError, match=message):
        read_notebook(path)


@pytest.mark.parametrize("typo, first_line", [
    (('id = "scalar_arithmetic"', 'id = "scalar_arithmetik"'),
     "error: course.toml: assignment '01_scalar_autodiff': task 'scalar_arithmetik' has no check "
     "in autograder/checks/scalar_autodiff.py; did you mean 'scalar_arithmetic' (the task of 13 "
     "check(s) there)?"),
    (('notebook = "scalar_autodiff"', 'notebook = "scalar_autodif"'),
     "error: course.toml: assignment '01_scalar_autodiff': notebook = 'scalar_autodif' has no checks "
     "(autograder/checks/scalar_autodif.py) and no probes (autograder/probes/scalar_autodif.py); "
     "did you mean 'scalar_autodiff'?"),
])
@pytest.mark.parametrize("command", ["grade", "check"])
def test_a_typo_in_the_course_stops_before_grading_anyone_in_two_lines(tmp_path, typo, first_line,
                                                                        command):
    """The instructor's error is not the students': a task id that the checks do not know, or a
    notebook with no checks, stops `grade` and `check` before anyone is graded (no output folder,
    no zeros), in two lines; `build --check` finds the same."""
    course = (ROOT / "course.toml").read_text()
    assert course.count(typo[0]) == 1
    (tmp_path / "course.toml").write_text(course.replace(*typo))
    notebook = submit(tmp_path / "submitted", "honest")
    given = ["grade", tmp_path / "submitted", "--out", tmp_path / "out", "--jobs", "1"] \
        if command == "grade" else ["check", notebook]
    run = autograder("--course", tmp_path / "course.toml", *given)
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.splitlines() == [
        first_line, "nothing was graded: fix course.toml or the checks, then run again "
                    "(`python -m autograder build --check` finds the same problems)"], run.stderr
    assert not (tmp_path / "out").exists()


def test_build_check_runs_the_same_preflight(monkeypatch):
    import dataclasses
    from autograder.authoring import build
    from autograder.grading import judge
    broken = [dataclasses.replace(a, notebook="scalar_autodif") if a.id == A else a
              for a in COURSE.assignments]
    monkeypatch.setattr(build, "_tasks_by_assignment", lambda root: broken)
    monkeypatch.setattr(build, "_generate", lambda root, log: ({}, set(), []))
    monkeypatch.setattr(build, "_committed", lambda root: {})
    assert build.build(ROOT, check=True, log=lambda *_: None) == judge.preflight(broken) != []


def test_check_of_one_unidentifiable_notebook_says_what_to_do(graded):
    """Alone (`check x.ipynb`), there is nothing else to grade: the message, exit status 2."""
    run = autograder("check", graded[0] / "loose" / "mystery.ipynb")
    assert run.returncode == 2 and "cannot tell which assignment" in run.stderr, run.stderr[-2000:]
    assert "pass --assignment" in run.stderr


def test_only_the_documented_depth_counts(tmp_path):
    """submitted/<student>/<assignment>/<notebook>.ipynb, from the path given: notebooks deeper, or
    beside the assignment folders, are flagged on the student's rows and never graded as anyone."""
    sub = tmp_path / "submitted"
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}
    for path in (f"alice/{A}/scalar_autodiff.ipynb", f"alice/{A}/.ipynb_checkpoints/x-checkpoint.ipynb",
                 f"alice/submitted/mallory/{A}/scalar_autodiff.ipynb", f"alice/{A}/old/x.ipynb",
                 f"alice/notes/x.ipynb", "bob/readme.ipynb"):
        (sub / path).parent.mkdir(parents=True, exist_ok=True)
        (sub / path).write_text(json.dumps(notebook))
    from autograder.grading.grade import discover
    for given in (tmp_path, sub):
        found = {(s.student, s.assignment_id): s for s in discover([given], COURSE)}
        assert set(found) == {("alice", A), ("bob", A)}
        alice, bob = found["alice", A], found["bob", A]
        assert alice.status == "graded" and alice.path == sub / "alice" / A / "scalar_autodiff.ipynb"
        assert sorted(f.split(":")[0] for f in alice.flags) == [
            f"ignored submitted/alice/{A}/old/x.ipynb", "ignored submitted/alice/notes/x.ipynb",
            f"ignored submitted/alice/submitted/mallory/{A}/scalar_autodiff.ipynb"]
        assert bob.status == "missing" and bob.flags == [
            "ignored submitted/bob/readme.ipynb: only submitted/<student>/<assignment>/<notebook>.ipynb is graded"]
    (sub / "carol" / A).mkdir(parents=True)            # links to another student's work: not hers
    (sub / "carol" / A / "scalar_autodiff.ipynb").symlink_to(sub / "alice" / A / "scalar_autodiff.ipynb")
    (sub / "dave").symlink_to(sub / "alice")
    found = {(s.student, s.assignment_id): s for s in discover([sub], COURSE)}
    assert found["carol", A].status == "missing" and ("dave", A) not in found
    [only] = discover([sub / "alice" / A], COURSE)      # an assignment folder given: that one row
    assert (only.student, only.assignment_id, only.status) == ("alice", A, "graded")


def test_a_loose_notebook_named_dots_is_no_path_out_of_results(tmp_path):
    (tmp_path / "..._scalar_autodiff.ipynb").write_text(json.dumps({"nbformat": 4, "metadata": {}, "cells": []}))
    from autograder.grading.grade import discover
    [found] = discover([tmp_path], COURSE)
    assert (found.student, found.assignment_id) == ("unnamed...", A)


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1+2", "@SUM(A1)", "\r=3+3", "\t=2+2", " =HYPERLINK(1)",
                                  "\x01@x", "a\rb", "\r\n-x"])
def test_every_csv_cell_reads_back_as_text_not_a_formula(text):
    """What csv_text writes (grades.csv, the class report, similarity, Canvas and Moodle) reads
    back as one row whose cells are no formulas; numbers stay numbers."""
    for terminator in ("\n", "\r\n"):
        written = report.csv_text([["student", "score"], [text, "-1.5"]], lineterminator=terminator)
        rows = list(csv.reader(written.splitlines(keepends=True)))
        assert len(rows) == 2 and rows[1][1] == "-1.5", (text, written)
        assert not re.match(r"[\s\x00-\x1f]*[=+\-@]", rows[1][0]) or _number(text), (text, rows)
        assert rows[1][0].lstrip("'") == text.replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.parametrize("top", ["spring2026", "sub_copy"])
def test_a_class_is_read_by_its_shape_whatever_its_folder_is_called(tmp_path, top):
    """A submitted/ tree copied to another name is the same class, and the run says what it
    assumed; what lies elsewhere in it is said on the student's rows, as in submitted/."""
    notebook = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})
    for path in (f"alice/{A}/scalar_autodiff.ipynb", f"bob/{A}/scalar_autodiff.ipynb",
                 f"carol/{A}/scalar_autodiff.ipynb", "alice/notes/x.ipynb"):
        (tmp_path / top / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / top / path).write_text(notebook)
    from autograder.grading.grade import discover
    said = []
    found = {(s.student, s.assignment_id): s for s in discover([tmp_path / top], COURSE, say=said.append)}
    assert set(found) == {("alice", A), ("bob", A), ("carol", A)}
    assert all(s.status == "graded" and s.path.parent.parent.name == s.student for s in found.values())
    assert [f.split(":")[0] for f in found["alice", A].flags] == [f"ignored {top}/alice/notes/x.ipynb"]
    assert len(said) == 1 and f"read {tmp_path / top}/ as a class" in said[0] and "3 folders as students" in said[0]
    said.clear()
    assert {(s.student, s.assignment_id) for s in discover([tmp_path / top / "bob"], COURSE, say=said.append)} \
        == {("bob", A)} and said == [f"read {tmp_path / top / 'bob'}/ as the student bob's folder: "
                                     "<assignment>/<notebook>.ipynb"]
    (tmp_path / "by_assignment" / A).mkdir(parents=True)      # notebooks named after students:
    for student in ("dan", "eve"):                            # loose, as before
        (tmp_path / "by_assignment" / A / f"{student}_scalar_autodiff.ipynb").write_text(notebook)
    assert {s.student for s in discover([tmp_path / "by_assignment"], COURSE)} == {"dan", "eve"}


def test_notebooks_of_the_same_name_read_as_one_student_say_where_they_are(tmp_path):
    """Loose notebooks of one name in folders that are not a class's shape: each is graded, as
    its folder's name, and its row says why and which layout a class is read in, instead of
    'none is named' what all of them are named."""
    notebook = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "scalar_autodiff.ipynb").write_text(notebook)
    from autograder.grading.grade import discover
    rows = {(s.student, s.assignment_id): s for s in discover([tmp_path], COURSE)}
    assert set(rows) == {("x", A), ("y", A)} and all(s.status == "graded" for s in rows.values())
    [flag] = rows["x", A].flags
    assert "none is named" not in flag and "no notebook is named" not in flag, flag
    assert "2 notebooks are named scalar_autodiff.ipynb, in different folders" in flag and "x/" in flag
    assert "<student>/<assignment>/<notebook>.ipynb" in flag


PLANTED = {   # an instructor's mistake in 01's probes: (the text, its replacement, what is said)
    "a probe without a reply schema": ('    "numgrad": {"estimate"', '    "numgrad_": {"estimate"',
                                       "has no reply schema"),
    "a probe argument renamed": ("def numgrad(ns, function, x, eps=None):",
                                 "def numgrad(ns, function, x, epsilon=None):\n    eps = epsilon",
                                 "TypeError"),
}


@pytest.mark.parametrize("mistake", PLANTED)
def test_an_instructors_mistake_stops_grade_before_anyone_is_graded(tmp_path, mistake):
    """A check that fails the course's own solution with the public seed is the instructor's
    mistake: grade stops before anyone is graded, in lines that name the solution and what failed,
    instead of giving the class 0 (issue 33: the solution got 0, 'has no reply schema')."""
    copy = tmp_path / "course"
    for part in ("autograder", "dp", "solutions", "exercises"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "course.toml", copy / "course.toml")
    probes = copy / "autograder" / "probes" / "scalar_autodiff.py"
    old, new, said = PLANTED[mistake]
    assert probes.read_text().count(old) == 1
    probes.write_text(probes.read_text().replace(old, new))
    notebook = submit(tmp_path / "submitted", "honest")
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", tmp_path / "submitted",
                          "--out", tmp_path / "out", "--jobs", "1"], cwd=copy, capture_output=True,
                         text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(copy)})
    assert run.returncode == 2, run.stderr[-3000:]
    assert f"solutions/{A}/scalar_autodiff.py: the solution fails the checks of {A} with the " \
           "public seed" in run.stderr and said in run.stderr, run.stderr[-3000:]
    assert "nothing was graded" in run.stderr and not (tmp_path / "out" / "results").exists()
    assert notebook.is_file()
