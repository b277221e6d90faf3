"""`grade --export canvas|moodle --roster FILE`: the grade import CSVs of Canvas and Moodle, in
the columns those platforms document (autograder/platforms/lms.py), read back with the csv
module and with pandas, every cell compared; names with commas, quotes and line breaks survive."""
import csv
import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from autograder.grading import report
from autograder.course.config import CourseError
from autograder.platforms import lms
from tests.grading import COURSE, ROOT

ROSTER = [  # student, name, email, canvas_id, sis_user_id, sis_login_id, section, id_number
    ("alice", 'Lovelace, Ada "the Countess"', "ada@example.org", "101", "S-1", "ada", "A, early",
     "0001"),
    ("bob", "Babbage,\nCharles", "charles@example.org", "102", "S-2", "cb", "B", "0002"),
    ("carol", "Carol Shaw", "carol@example.org", "103", "", "", "B", "0003"),  # nothing submitted
]
FIRST, SECOND = COURSE.assignments[0], COURSE.assignments[1]


def result(student, assignment, score, status="graded"):
    tasks = [{"id": t.id, "title": t.title, "points": 0.0, "max_points": t.points,
              "status": "failed", "message": "", "metrics": {}, "checks": []}
             for t in assignment.tasks]
    tasks[0]["points"] = score
    return {"student": student, "assignment": assignment.id, "title": assignment.title,
            "status": status, "message": "", "score": score, "max_score": assignment.max_score,
            "tasks": tasks, "flags": [], "cell_errors": [], "output": ""}


@pytest.fixture
def graded(tmp_path):
    """A graded folder: alice did both assignments, bob the first, dave is not on the roster."""
    out = tmp_path / "graded"
    for r in (result("alice", FIRST, 2.5), result("alice", SECOND, 3.0), result("bob", FIRST, 1.0),
              result("bob", SECOND, 0.0, status="missing"), result("dave", FIRST, 3.0)):
        report.write_result(out, r)
    roster = tmp_path / "roster.csv"
    with roster.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(lms.ROSTER_COLUMNS)
        writer.writerows(ROSTER)
    return out, roster


def read_both(path):
    """The file through the csv module and through pandas (every cell as text)."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    assert [list(frame.columns)] + frame.values.tolist() == rows
    return rows


def test_canvas_csv_has_canvas_columns_points_possible_and_every_cell(graded):
    out, roster = graded
    path, strangers = lms.export("canvas", out, COURSE, roster, missing="blank")
    rows = read_both(path)
    assert rows == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", FIRST.title, SECOND.title],
        ["Points Possible", "", "", "", "", f"{FIRST.max_score:g}", f"{SECOND.max_score:g}"],
        ['Lovelace, Ada "the Countess"', "101", "S-1", "ada", "A, early", "2.5", "3"],
        ["Babbage,\nCharles", "102", "S-2", "cb", "B", "1", ""],
        ["Carol Shaw", "103", "", "", "B", "", ""]]
    assert strangers == ["dave"]
    assert '"Lovelace, Ada ""the Countess"""' in path.read_text(encoding="utf-8")   # RFC 4180


def test_moodle_csv_has_email_and_id_number_and_zero_for_the_missing_when_asked(graded):
    out, roster = graded
    path, _ = lms.export("moodle", out, COURSE, roster, missing="zero")
    assert read_both(path) == [
        ["Full name", "Email address", "ID number", FIRST.title, SECOND.title],
        ['Lovelace, Ada "the Countess"', "ada@example.org", "0001", "2.5", "3"],
        ["Babbage,\nCharles", "charles@example.org", "0002", "1", "0"],
        ["Carol Shaw", "carol@example.org", "0003", "0", "0"]]


def test_a_roster_without_the_ids_the_lms_matches_by_is_refused(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,name,email\nalice,Ada,\n", encoding="utf-8")
    with pytest.raises(CourseError, match="Canvas matches students by canvas_id or sis_user_id"):
        lms.check_identity("canvas", lms.read_roster(roster), roster)
    with pytest.raises(CourseError, match="these have none: alice"):
        lms.check_identity("moodle", lms.read_roster(roster), roster)
    roster.write_text("student,nmae\nalice,Ada\n", encoding="utf-8")
    with pytest.raises(CourseError, match="unknown roster column"):
        lms.read_roster(roster)
    roster.write_text("student\nalice\nalice\n", encoding="utf-8")
    with pytest.raises(CourseError, match="line 3: student 'alice' listed twice"):
        lms.read_roster(roster)


def test_grade_export_writes_the_csv_next_to_grades_csv(graded, tmp_path):
    """The command line: an nbgrader tree where bob submitted nothing (nothing is run)."""
    out, roster = graded
    (tmp_path / "course" / "submitted" / "bob" / FIRST.id).mkdir(parents=True)
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "course"),
                          "--out", str(out), "--quiet", "--export", "canvas", "--export", "moodle",
                          "--roster", str(roster)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not on the roster, so not in canvas.csv: dave" in run.stderr
    canvas = read_both(out / "canvas.csv")
    assert canvas[3][5] == ""        # bob's first assignment: now missing, a blank cell
    assert json.loads((out / "results" / "alice" / f"{FIRST.id}.json").read_text())["score"] == 2.5
    assert read_both(out / "moodle.csv")[1][3] == "2.5"


def test_grade_export_without_a_roster_stops_before_grading(tmp_path):
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path),
                          "--export", "canvas"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2 and "--export needs --roster" in run.stderr


def test_a_canvas_assignment_named_by_its_number_is_updated_not_made_anew(graded):
    out, roster = graded
    ids = lms.parse_canvas_ids([f"{SECOND.id}=4521"], COURSE)
    path, _ = lms.export("canvas", out, COURSE, roster, canvas_ids=ids)
    assert read_both(path)[0][5:] == [FIRST.title, f"{SECOND.title} (4521)"]
    with pytest.raises(CourseError, match="expected ASSIGNMENT=NUMBER"):
        lms.parse_canvas_ids([f"{SECOND.id}=abc"], COURSE)
    with pytest.raises(CourseError, match="unknown assignment 'nope'"):
        lms.parse_canvas_ids(["nope=1"], COURSE)
