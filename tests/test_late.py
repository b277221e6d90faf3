"""Late work: course.toml's late policy, submission timestamps, and the penalty on each row.
Cheap: synthetic results and files; one real grading (01's stub, through the CLI)."""
import csv
import datetime
import hashlib
import io
import json
import os
import subprocess
import sys

import pytest

from autograder.grading import late, report
from autograder.course.config import CourseError, LatePolicy, load_course
from autograder.grading.grade import Submission, _up_to_date
from autograder.platforms import gradescope, lms
from tests.grading import ROOT

UTC = datetime.timezone.utc
A = "01_scalar_autodiff"     # due 2026-10-05T23:59:00 Europe/London (BST): 22:59 UTC
DUE = datetime.datetime(2026, 10, 5, 22, 59, tzinfo=UTC)
POLICY = "\n[late]\npenalty_per_day = 0.1\nmax_penalty = 0.5\ngrace_minutes = 15\nhard_deadline_days = 7\n"


def course_with(tmp_path, extra=POLICY):
    """The repository's course with `extra` appended (a [late] table by default)."""
    path = tmp_path / "course.toml"
    path.write_text((ROOT / "course.toml").read_text(encoding="utf-8") + extra, encoding="utf-8")
    return load_course(path)


def mini(tmp_path, text):
    path = tmp_path / "mini.toml"
    path.write_text("[course]\ntimezone = 'Europe/London'\n[limits]\ntime_limit=1\ncpu_limit=1\n"
                    "memory_limit='1GiB'\nmax_processes=1\nmax_file_size='1MiB'\nmax_reply='1MiB'\n"
                    "max_output='1MiB'\n" + text, encoding="utf-8")
    return load_course(path)


def result(score=10.0, status="graded", assignment=A, max_score=10.0):
    return {"student": "alice", "assignment": assignment, "status": status, "score": score,
            "raw_score": score, "max_score": max_score, "flags": [], "tasks": [], "message": ""}


# -- timestamps ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("2026-10-06 10:12:03.123456 UTC", datetime.datetime(2026, 10, 6, 10, 12, 3, 123456, tzinfo=UTC)),
    ("2026-10-06 11:12:03.123456 +0100\n", datetime.datetime(2026, 10, 6, 10, 12, 3, 123456, tzinfo=UTC)),
    ("2026-10-06 11:12:03.000000 Europe/London", datetime.datetime(2026, 10, 6, 10, 12, 3, tzinfo=UTC)),
    ("2026-10-06T03:12:03.365935-07:00", datetime.datetime(2026, 10, 6, 10, 12, 3, 365935, tzinfo=UTC)),
    ("2026-10-06 10:12:03", datetime.datetime(2026, 10, 6, 10, 12, 3, tzinfo=UTC)),   # no zone: UTC
])
def test_nbgrader_and_iso_timestamps_are_read_as_moments(text, expected):
    assert late.parse_timestamp(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "2026-10-06 10:12:03 Mars/Olympus", "", "2026-13-01 00:00:00 UTC"])
def test_a_bad_timestamp_is_refused(text):
    with pytest.raises(late.TimestampError):
        late.parse_timestamp(text)


def test_timestamp_txt_next_to_the_notebook_wins_over_the_mtime(tmp_path):
    folder = tmp_path / "submitted" / "alice" / A
    folder.mkdir(parents=True)
    notebook = folder / "n.ipynb"
    notebook.write_text("{}")
    os.utime(notebook, (0, DUE.timestamp()))
    assert late.from_files(notebook) == late.Submitted(DUE, late.MTIME_SOURCE)
    (folder / "timestamp.txt").write_text("2026-10-07 10:00:00.000000 UTC")
    found = late.from_files(notebook)
    assert found.at == datetime.datetime(2026, 10, 7, 10, tzinfo=UTC) and found.source == "timestamp.txt"
    (folder / "timestamp.txt").write_text("not a time")
    found = late.from_files(notebook)
    assert found.at == DUE and found.source == late.MTIME_SOURCE and "timestamp.txt not used" in found.note


def test_a_timestamp_txt_outside_nbgrader_s_layout_is_the_student_s_file(tmp_path):
    """Loose notebooks, Gradescope's submission/: a timestamp.txt there is not nbgrader's."""
    notebook = tmp_path / "loose" / "alice.ipynb"
    notebook.parent.mkdir()
    notebook.write_text("{}")
    os.utime(notebook, (0, DUE.timestamp()))
    (notebook.parent / "timestamp.txt").write_text("2020-01-01 00:00:00.000000 UTC")
    assert late.from_files(notebook) == late.Submitted(DUE, late.MTIME_SOURCE)


def test_gradescope_created_at():
    found = late.from_gradescope({"created_at": "2026-10-06T03:12:03.365935-07:00"})
    assert found.source == late.GRADESCOPE_SOURCE and found.at.astimezone(UTC).hour == 10
    assert late.from_gradescope({}) is None and late.from_gradescope({"created_at": "soon"}) is None
    assert late.from_gradescope([]) is None


# -- the policy ---------------------------------------------------------------------------------
@pytest.mark.parametrize("after, grace, days", [
    (datetime.timedelta(0), 0, 0), (datetime.timedelta(minutes=-5), 0, 0),
    (datetime.timedelta(minutes=1), 0, 1), (datetime.timedelta(days=1), 0, 1),
    (datetime.timedelta(days=1, minutes=1), 0, 2),
    (datetime.timedelta(minutes=15), 15, 0), (datetime.timedelta(minutes=16), 15, 1),
])
def test_days_late_round_up_after_the_grace_period(after, grace, days):
    assert late.days_late(DUE, DUE + after, grace) == days


def test_penalty_per_day_cap_and_hard_deadline():
    policy = LatePolicy(penalty_per_day=0.1, max_penalty=0.5, hard_deadline_days=7)
    at = lambda **kw: DUE + datetime.timedelta(**kw)     # noqa: E731
    assert late.assess(policy, DUE, at(hours=30), 8, 10)["penalty"] == 2       # 2 days: 0.2 of 10
    assert late.assess(policy, DUE, at(days=6), 8, 10)["penalty"] == 5         # capped at 0.5
    assert late.assess(policy, DUE, at(hours=30), 1, 10)["penalty"] == 1       # never below 0
    past = late.assess(policy, DUE, at(days=7, seconds=1), 8, 10)
    assert past["past_hard_deadline"] and past["penalty"] == 8
    assert not late.assess(policy, DUE, at(days=7), 8, 10)["past_hard_deadline"]


# -- course.toml --------------------------------------------------------------------------------
def test_course_late_policy_applies_to_assignments_with_a_due_date(tmp_path):
    course = course_with(tmp_path, POLICY + "[[assignment]]\nid='x'\nnotebook='x'\n"
                         "[[assignment.task]]\nid='x1'\npoints=1\n")
    assert course.assignment(A).late == LatePolicy(0.1, 0.5, 15, 7)
    assert course.assignment("x").late is None       # no due date: never late
    assert load_course().assignment(A).late is None   # the repository's course: no [late] table


def test_an_assignment_overrides_keys_of_the_course_policy(tmp_path):
    course = mini(tmp_path, "[late]\npenalty_per_day = 0.1\nmax_penalty = 0.5\n"
                  "[[assignment]]\nid='a'\nnotebook='a'\ndue=2026-10-05\n"
                  "  [assignment.late]\n  penalty_per_day = 0.25\n"
                  "  [[assignment.task]]\n  id='t'\n  points=4\n")
    assert course.assignment("a").late == LatePolicy(0.25, 0.5)


@pytest.mark.parametrize("table, message", [
    ("[late]\npenalty_per_day = 10\n", "[late]: penalty_per_day must be a number from 0 to 1"),
    ("[late]\npenalty_per_day = '10%'\n", "penalty_per_day must be a number"),
    ("[late]\nmax_penalty = 1.5\npenalty_per_day = 0.1\n", "max_penalty must be a number from 0 to 1"),
    ("[late]\nhard_deadline_days = 0\n", "hard_deadline_days must be a number above 0"),
    ("[late]\ngrace_minutes = -1\npenalty_per_day = 0.1\n", "grace_minutes must be a number >= 0"),
    ("[late]\npenalty_per_dy = 0.1\n", "unknown key 'penalty_per_dy'; did you mean 'penalty_per_day'?"),
    ("[late]\nmax_penalty = 0.5\n", "needs penalty_per_day or hard_deadline_days"),
])
def test_a_bad_course_policy_names_its_key(tmp_path, table, message):
    with pytest.raises(CourseError) as error:
        mini(tmp_path, table + "[[assignment]]\nid='a'\nnotebook='a'\n[[assignment.task]]\nid='t'\npoints=1\n")
    assert message in str(error.value)


def test_an_assignment_policy_without_a_due_date_is_refused(tmp_path):
    with pytest.raises(CourseError, match="assignment 'a': late: the assignment has no due date"):
        mini(tmp_path, "[[assignment]]\nid='a'\nnotebook='a'\n[assignment.late]\npenalty_per_day=0.1\n"
             "[[assignment.task]]\nid='t'\npoints=1\n")
    with pytest.raises(CourseError, match=r"assignment 'a': late: penalty_per_day must be"):
        mini(tmp_path, "[[assignment]]\nid='a'\nnotebook='a'\ndue=2026-10-05\n[assignment.late]\n"
             "penalty_per_day=2\n[[assignment.task]]\nid='t'\npoints=1\n")
    with pytest.raises(CourseError, match=r"assignment 'a': late: expected a table"):
        mini(tmp_path, "[[assignment]]\nid='a'\nnotebook='a'\ndue=2026-10-05\nlate=0.1\n"
             "[[assignment.task]]\nid='t'\npoints=1\n")


# -- applying it to a result --------------------------------------------------------------------
def test_apply_keeps_the_raw_score_and_says_how_late(tmp_path):
    course = course_with(tmp_path)
    submitted = late.Submitted(DUE + datetime.timedelta(hours=35), late.TIMESTAMP_FILE)
    r = late.apply(result(8.0), course, submitted)
    assert (r["raw_score"], r["score"]) == (8.0, 6.0)
    assert r["late"] == {
        "due": "2026-10-05T23:59:00+01:00", "submitted_at": "2026-10-07T10:59:00+01:00",
        "source": "timestamp.txt", "days_late": 2, "penalty": 2.0,
        "hard_deadline": "2026-10-12T23:59:00+01:00", "past_hard_deadline": False,
        "policy": "0.1 of the points per day late, at most 0.5; 15 minutes' grace; "
                  "0 points when more than 7 days late"}
    assert late.apply(r, course, submitted) == r          # again: from raw_score, not twice
    assert "2 days late, -2 points" in late.describe(r) and "6 of 8 earned" in late.describe(r)


def test_nothing_is_late_without_a_due_date_or_a_submission(tmp_path):
    at = late.Submitted(DUE + datetime.timedelta(days=3), late.MTIME_SOURCE)
    for course, r in [(course_with(tmp_path), result(assignment="unidentified")),  # no assignment
                      (course_with(tmp_path), result(0.0, status="missing"))]:
        done = late.apply(r, course, at)
        assert done["late"] is None and done["score"] == done["raw_score"]
    assert late.apply(result(), course_with(tmp_path), None)["late"] is None


def test_a_due_date_without_a_policy_shows_the_days_late_and_takes_nothing(tmp_path):
    """Issue 33: with due dates set but no [late] table, the times and days late are shown."""
    at = late.Submitted(DUE + datetime.timedelta(days=3), late.TIMESTAMP_FILE)
    done = late.apply(result(), load_course(), at)                   # the repository's: no [late]
    assert done["score"] == done["raw_score"] == 10.0
    assert (done["late"]["days_late"], done["late"]["penalty"], done["late"]["policy"]) == (3, 0.0, "no late policy")
    assert "3 days late, -0 points (no late policy)" in late.describe(done)
    assert "(late: 3 d)" in report.table([done])


def test_submission_times_come_from_sources_that_mean_it(tmp_path):
    """timestamp.txt (nbgrader's layout), then the instructor's --times, then the mtime only
    when asked: a plain copy of a class is not late by the moment of the copy."""
    notebook = tmp_path / "spring" / "alice" / A / "n.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text("{}")
    course = course_with(tmp_path)
    assert late.submitted_for(course, A, notebook, "alice") is None               # nothing says
    assert late.submitted_for(course, A, notebook, "alice", use_mtime=True).source == late.MTIME_SOURCE
    times_csv = tmp_path / "times.csv"
    times_csv.write_text("student,assignment,submitted_at\nalice,,2026-10-06 10:00:00 UTC\n"
                         f"alice,{A},2026-10-07T10:00:00+00:00\n")
    times = late.read_times(times_csv)
    found = late.submitted_for(course, A, notebook, "alice", times, use_mtime=True)
    assert (found.source, found.at) == (late.TIMES_SOURCE, datetime.datetime(2026, 10, 7, 10, tzinfo=UTC))
    (notebook.parent / "timestamp.txt").write_text("2026-10-06 09:00:00.000000 UTC")
    # outside nbgrader's layout a timestamp.txt is the student's own file: not read
    assert late.submitted_for(course, A, notebook, "alice", times).source == late.TIMES_SOURCE
    found = late.submitted_for(course, A, notebook, "alice", times, layout=True)     # nbgrader's file
    assert (found.source, found.at) == (late.TIMESTAMP_FILE, datetime.datetime(2026, 10, 6, 9, tzinfo=UTC))
    assert late.submitted_for(load_course(), "no such assignment", notebook) is None
    times_csv.write_text("student,submitted_at\nbob,yesterday\n")
    with pytest.raises(late.TimestampError, match="times.csv, line 2"):
        late.read_times(times_csv)
    times_csv.write_text("name,when\nbob,2026-10-06\n")
    with pytest.raises(late.TimestampError, match="needs the columns student and submitted_at"):
        late.read_times(times_csv)


def test_the_run_says_how_many_were_late_and_warns_when_most_are(tmp_path):
    course = course_with(tmp_path)
    at = {name: late.Submitted(DUE + datetime.timedelta(days=days), source)
          for name, days, source in [("a", 53, late.MTIME_SOURCE), ("b", 53, late.MTIME_SOURCE),
                                     ("c", -1, late.TIMESTAMP_FILE)]}
    results = [late.apply(dict(result(), student=name), course, when) for name, when in at.items()]
    results.append(dict(result(), student="d"))            # no time at all
    lines = late.summary(course, results, {})
    assert lines[0] == (f"late work: 2 of 3 submissions with a time were late, 2 past the hard deadline; "
                        f"times from {late.MTIME_SOURCE} (2), timestamp.txt (1)")
    assert lines[1].startswith("warning: 1 submission(s) of assignments with a late policy have no "
                               "submission time") and "--times FILE" in lines[1]
    assert lines[2].startswith("WARNING: 2 of 3 submissions are late; 2 of these times are the "
                               "notebooks' modification times") and "cp -r" in lines[2]
    assert late.summary(course, results[2:3], {}) == [
        "late work: 0 of 1 submissions with a time were late; times from timestamp.txt (1)"]
    assert late.summary(load_course(), [dict(result(), student="d")], {}) == []   # no policy: nothing to say


def test_grades_csv_and_lms_exports_carry_the_final_score(tmp_path):
    course = course_with(tmp_path)
    lateone = late.apply(result(8.0), course, late.Submitted(DUE + datetime.timedelta(days=8), late.MTIME_SOURCE))
    ontime = late.apply(dict(result(9.0), student="bob"), course, late.Submitted(DUE, late.MTIME_SOURCE))
    rows = {r["student"]: r for r in csv.DictReader(report.write_grades_csv(tmp_path, [lateone, ontime], course).open())}
    assert rows["alice"]["score"] == "0" and rows["alice"]["raw_score"] == "8"
    assert rows["alice"]["days_late"] == "8" and rows["alice"]["late_penalty"] == "8"
    assert rows["alice"]["submitted_source"] == late.MTIME_SOURCE
    assert rows["bob"]["score"] == "9" and rows["bob"]["days_late"] == "0" and rows["bob"]["late_penalty"] == "0"
    roster = [{c: "" for c in lms.ROSTER_COLUMNS} | {"student": s, "email": f"{s}@x"} for s in ("alice", "bob")]
    text = lms.moodle_csv([lateone, ontime], course, roster)[0]
    assert [r[-1] for r in csv.reader(io.StringIO(text))][1:] == ["0", "9"]
    assert "past the hard deadline" in report.feedback_html(lateone)
    assert "(late: 8 d, -8)" in report.table([lateone])


def test_gradescope_results_json_scores_after_the_penalty(tmp_path):
    r = late.apply(result(8.0), course_with(tmp_path), late.Submitted(DUE + datetime.timedelta(hours=2),
                                                                      late.GRADESCOPE_SOURCE))
    results = gradescope.results_json(report.bounded(r), 3.0)
    assert results["score"] == 7.0 and "1 day late, -1 points" in results["output"]


def test_a_new_submission_time_grades_it_again(tmp_path):
    """A rerun keeps a result only while the submission time it was late by is the same."""
    course = course_with(tmp_path)
    notebook = tmp_path / "submitted" / "alice" / A / "scalar_autodiff.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text("{}")
    (notebook.parent / "timestamp.txt").write_text("2026-10-06 10:00:00.000000 UTC")
    submission = Submission(notebook, "alice", A)
    when = late.from_files(notebook)
    r = late.apply(dict(result(), notebook_sha256=hashlib.sha256(b"{}").hexdigest(),
                        course_sha256="c"), course, when)
    report.write_result(tmp_path / "out", r)
    assert _up_to_date(tmp_path / "out", submission, "c", when)
    (notebook.parent / "timestamp.txt").write_text("2026-10-09 10:00:00.000000 UTC")
    assert not _up_to_date(tmp_path / "out", submission, "c", late.from_files(notebook))


# -- one real grading, through the CLI ----------------------------------------------------------
def test_grade_cli_shows_the_late_row(tmp_path):
    """01's stub, submitted through nbgrader 2 days late: 0 points, so nothing to take off, but
    the row says when, from where and how late."""
    course = tmp_path / "course.toml"
    course.write_text((ROOT / "course.toml").read_text(encoding="utf-8") + POLICY, encoding="utf-8")
    folder = tmp_path / "submitted" / "alice" / A
    folder.mkdir(parents=True)
    (folder / "scalar_autodiff.ipynb").write_bytes((ROOT / "exercises" / A / "scalar_autodiff.ipynb").read_bytes())
    (folder / "timestamp.txt").write_text("2026-10-07 10:00:00.000000 UTC")
    run = subprocess.run([sys.executable, "-m", "autograder", "--course", course, "grade", tmp_path / "submitted",
                          "--out", tmp_path / "out", "--jobs", "1", "--quiet"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    saved = json.loads((tmp_path / "out" / "results" / "alice" / f"{A}.json").read_text())
    assert saved["late"]["days_late"] == 2 and saved["late"]["source"] == "timestamp.txt"
    assert saved["late"]["submitted_at"] == "2026-10-07T11:00:00+01:00"
    assert saved["raw_score"] == saved["score"] == 0 and saved["late"]["penalty"] == 0
    row = next(csv.DictReader((tmp_path / "out" / "grades.csv").open()))
    assert row["days_late"] == "2" and row["submitted_at"] == "2026-10-07T11:00:00+01:00"


def test_gradescope_run_takes_the_time_from_created_at(tmp_path, monkeypatch):
    """run_autograder's hook (grading itself stubbed out): created_at, not the notebook's mtime."""
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "source" / "course.toml").write_text((ROOT / "course.toml").read_text(encoding="utf-8") + POLICY)
    (root / "submission" / "scalar_autodiff.ipynb").write_text("{}")
    stamp = (DUE + datetime.timedelta(days=8)).timestamp()               # its mtime: 8 days late
    os.utime(root / "submission" / "scalar_autodiff.ipynb", (stamp, stamp))
    (root / "submission_metadata.json").write_text(json.dumps(
        {"id": 1, "created_at": "2026-10-06T03:12:03.365935-07:00", "users": []}))  # 11 h 13 min late
    graded = dict(result(8.0), notebook="scalar_autodiff.ipynb")
    monkeypatch.setattr(gradescope, "grade_folder", lambda *args, **kwargs: (dict(graded), [], 1.0))
    assert gradescope.run(root, A) == 0
    written = json.loads((root / "results" / "results.json").read_text())
    assert written["score"] == 7.0 and f"({late.GRADESCOPE_SOURCE}), due" in written["output"]
    (root / "submission_metadata.json").write_text("{}")   # no created_at: no time (not the mtime)
    assert gradescope.run(root, A) == 0
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 8.0
