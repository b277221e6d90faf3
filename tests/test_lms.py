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


CANVAS_EXPORT = ('Student,ID,SIS User ID,SIS Login ID,Section,"Scalar autodiff (4512)",Current Score\r\n'
                 '    Points Possible,,,,,10,\r\n'
                 '"Lovelace, Ada",101,S-1,ada,"A, early",7,70\r\n'
                 '"Babbage, Charles",102,S-2,CB,B,,0\r\n'
                 '"Shaw, Carol",103,,,B,,\r\n')
MOODLE_EXPORT = ("First name,Last name,ID number,Institution,Department,Email address,"
                 "Assignment: Scalar autodiff (Real),Last downloaded from this course\n"
                 "Ada,Lovelace,0001,,,ada@example.org,7.00,1700000000\n"
                 "Charles,Babbage,,,,cb@example.org,-,1700000000\n")


def test_canvas_and_moodle_exports_are_rosters_as_they_come(tmp_path):
    """Issue 33: a Canvas gradebook export was refused ("needs a 'student' column")."""
    path = tmp_path / "canvas.csv"
    path.write_text(CANVAS_EXPORT, encoding="utf-8")
    people = lms.read_roster(path)
    assert [(p["student"], p["name"], p["canvas_id"], p["section"]) for p in people] == [
        ("ada", "Lovelace, Ada", "101", "A, early"), ("CB", "Babbage, Charles", "102", "B"),
        ("103", "Shaw, Carol", "103", "B")]          # Points Possible skipped; no login: the ID
    lms.check_identity("canvas", people, path)
    path.write_text(MOODLE_EXPORT, encoding="utf-8")
    people = lms.read_roster(path)
    assert [(p["student"], p["name"], p["email"], p["id_number"]) for p in people] == [
        ("0001", "Ada Lovelace", "ada@example.org", "0001"), ("cb", "Charles Babbage", "cb@example.org", "")]
    lms.check_identity("moodle", people, path)
    assert [lms.known_as(p, {"ada", "cb", "zed"}) for p in people] == ["ada", "cb"]   # by the email's name
    path.write_text("Name,When\nx,y\n", encoding="utf-8")
    with pytest.raises(CourseError, match="not a roster: it needs a 'student' column .* Canvas's gradebook export"):
        lms.read_roster(path)


def test_roster_students_without_a_submission_are_missing_everywhere(graded, tmp_path):
    """grades.csv (grade --roster), the class report (report --roster) and the exports: a
    person of the roster who handed in nothing is a `missing` row, matched by any of their ids."""
    from autograder.grading.grade import Submission, on_the_roster
    from autograder.reports.classreport import write_report
    path = tmp_path / "canvas.csv"
    path.write_text(CANVAS_EXPORT, encoding="utf-8")
    people = lms.read_roster(path)
    found = [Submission(None, "ada", FIRST.id), Submission(None, "cb", FIRST.id)]   # CB is cb
    [missing] = on_the_roster(found, people)
    assert (missing.student, missing.assignment_id, missing.status) == ("103", FIRST.id, "missing")
    out, _ = graded
    path.write_text(CANVAS_EXPORT.replace(",ada,", ",alice,").replace(",CB,", ",BOB,"), encoding="utf-8")
    people = lms.read_roster(path)             # the graded folder's alice and bob, and carol (103)
    _, csv_path = write_report(out, COURSE, people)
    missing = {(r[1], r[3]) for r in csv.reader(csv_path.read_text(encoding="utf-8").splitlines())
               if r[0] == "missing"}
    assert missing == {(FIRST.id, "103"), (SECOND.id, "103"), (SECOND.id, "bob"), (SECOND.id, "dave")}
    _, csv_path = write_report(out, COURSE)    # without the roster: only who was in the folder
    assert {(r[1], r[3]) for r in csv.reader(csv_path.read_text(encoding="utf-8").splitlines())
            if r[0] == "missing"} == {(SECOND.id, "bob"), (SECOND.id, "dave")}
    text, strangers = lms.canvas_csv(report.load_results(out), COURSE, people)
    table = list(csv.reader(io.StringIO(text)))
    assert [(r[1], r[5]) for r in table[2:]] == [("101", "2.5"), ("102", "1"), ("103", "")]
    assert strangers == ["dave"]
