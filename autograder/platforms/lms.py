"""Grades into a learning management system: Canvas's gradebook import CSV and Moodle's grade
import CSV, from the results in a graded folder and a roster (`grade --export canvas|moodle
--roster FILE`).

The roster (autograder.course.roster) is the course's own CSV (`student`, the id the grader
knows, then name, email, canvas_id, sis_user_id, sis_login_id, section, id_number), or Canvas's
gradebook export or Moodle's grade export as they come; its columns are copied into the columns
the platforms match students by.

Canvas (Grades > Import) matches a row by its ID, SIS User ID or SIS Login ID (then by the
student's name); it reads the columns Student, ID, SIS User ID, SIS Login ID, Section, then one
column per assignment. A column named "Title (123)" updates Canvas's assignment 123; a plain
title updates the Canvas assignment of exactly that title, or makes one, whose points are read
from the "Points Possible" row (`--canvas-assignment 01_scalar_autodiff=123` names the Canvas
assignment of a course assignment). Moodle (Grade
administration > Import > CSV file) matches a row by the column the instructor maps to the
user ("Email address" to email, or "ID number" to idnumber), and each further column to a grade
item.

A student of the roster without a submission gets 0 or a blank cell (`missing`: "zero" or
"blank"); a graded student missing from the roster cannot be imported and is named in a
warning. Every cell is quoted as CSV requires (RFC 4180: commas, quotes and line breaks
survive), and the file is UTF-8.
"""
from __future__ import annotations

import csv
from pathlib import Path

from ..course.config import CourseError
from ..course.roster import POINTS_POSSIBLE, ROSTER_COLUMNS, known_as, read_roster  # noqa: F401
from ..grading import report

CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDENTITY = ("Full name", "Email address", "ID number")
FORMATS = ("canvas", "moodle")
MISSING = {"zero": "0", "blank": ""}


def _assignments(results, course) -> list:
    present = {r["assignment"] for r in results}
    return [a for a in course.assignments if a.id in present]


def _score(result, missing) -> str:
    if result is None or report.status(result) == "missing":
        return MISSING[missing]
    return f"{result['score']:g}"


def _table(results, course, roster, missing) -> tuple:
    """(assignments, [(roster row, [cell per assignment])], [graded students not on the roster])."""
    assignments = _assignments(results, course)
    scores = {(r["student"], r["assignment"]): r for r in results}
    graded = {r["student"] for r in results}
    found = {person["student"]: known_as(person, graded) for person in roster}
    rows = [(person, [_score(scores.get((found[person["student"]], a.id)), missing) for a in assignments])
            for person in roster]
    strangers = sorted(graded - set(found.values()))
    return assignments, rows, strangers


def canvas_column(assignment, canvas_ids) -> str:
    """"Title (123)" for Canvas's assignment 123 (as Canvas's own export names it), else the
    title alone (Canvas's assignment of that title, or a new one)."""
    number = canvas_ids.get(assignment.id)
    return f"{assignment.title} ({number})" if number else assignment.title


def parse_canvas_ids(pairs, course) -> dict:
    """{assignment id: Canvas assignment id} from ["01_scalar_autodiff=12345", ...]."""
    ids = {}
    for pair in pairs or []:
        name, _, number = pair.partition("=")
        if not number.strip().isdigit():
            raise CourseError(f"--canvas-assignment {pair!r}: expected ASSIGNMENT=NUMBER, the "
                              "number of the assignment in Canvas (its address ends in it)")
        ids[course.assignment(name.strip()).id] = number.strip()
    return ids


def canvas_csv(results, course, roster, missing="blank", canvas_ids=None) -> tuple:
    """(Canvas gradebook import CSV text, students not on the roster)."""
    assignments, rows, strangers = _table(results, course, roster, missing)
    table = [[*CANVAS_IDENTITY, *(canvas_column(a, canvas_ids or {}) for a in assignments)],
             [POINTS_POSSIBLE, "", "", "", "", *(f"{a.max_score:g}" for a in assignments)]]
    table += [[person["name"] or person["student"], person["canvas_id"], person["sis_user_id"],
               person["sis_login_id"], person["section"], *cells] for person, cells in rows]
    return report.csv_text(table, lineterminator="\r\n"), strangers


def moodle_csv(results, course, roster, missing="blank") -> tuple:
    """(Moodle grade import CSV text, students not on the roster)."""
    assignments, rows, strangers = _table(results, course, roster, missing)
    table = [[*MOODLE_IDENTITY, *(a.title for a in assignments)]]
    table += [[person["name"] or person["student"], person["email"], person["id_number"], *cells]
              for person, cells in rows]
    return report.csv_text(table, lineterminator="\r\n"), strangers


def check_identity(kind, roster, path) -> None:
    """Refuse a roster by which the platform could not match a single row."""
    needed = {"canvas": ("canvas_id", "sis_user_id", "sis_login_id"),
              "moodle": ("email", "id_number")}[kind]
    bare = [p["student"] for p in roster if not any(p[c] for c in needed)]
    if bare:
        raise CourseError(f"{path}: {kind.capitalize()} matches students by "
                          f"{' or '.join(needed)}; these have none: {', '.join(bare[:10])}"
                          + (f" and {len(bare) - 10} more" if len(bare) > 10 else ""))


def export(kind, out, course, roster_path, missing="blank", canvas_ids=None) -> tuple:
    """Write OUT/<kind>.csv from the results in OUT; returns (its path, students not on the
    roster). `canvas_ids`: {assignment id: Canvas assignment id} (Canvas only)."""
    roster = read_roster(roster_path)
    check_identity(kind, roster, roster_path)
    results = report.load_results(out)
    if kind == "canvas":
        text, strangers = canvas_csv(results, course, roster, missing, canvas_ids)
    else:
        text, strangers = moodle_csv(results, course, roster, missing)
    path = Path(out) / f"{kind}.csv"
    report.atomic_write(path, text)
    return path, strangers
