"""The class list: a roster CSV, as the instructor writes it or as Canvas and Moodle export it.

Three forms are read as they come, told apart by their header:
  * the course's own: `student` (the id the grader knows: the folder name in the class layout, or
    the notebook's name), then any of name, email, canvas_id, sis_user_id, sis_login_id, section,
    id_number;
  * Canvas's gradebook export (Grades > Export): Student, ID, SIS User ID, SIS Login ID, Section
    and a column per assignment; its "Points Possible" row is skipped;
  * Moodle's grade export (Grade administration > Export > CSV): First name, Last name, ID number,
    Email address (Username where the export has it) and a column per grade item.
Every row becomes a dict of ROSTER_COLUMNS. An LMS's row has no `student` of its own: it is its
first id (Canvas: SIS Login ID, SIS User ID, ID; Moodle: Username, ID number, the email's name),
and `known_as` matches a person with the grader's student by any of their ids.
"""
from __future__ import annotations

import csv
from pathlib import Path

from .config import CourseError

ROSTER_COLUMNS = ("student", "name", "email", "canvas_id", "sis_user_id", "sis_login_id",
                  "section", "id_number")
CANVAS = {"Student": "name", "ID": "canvas_id", "SIS User ID": "sis_user_id",
          "SIS Login ID": "sis_login_id", "Section": "section"}
MOODLE = {"Email address": "email", "ID number": "id_number", "Username": "student"}
POINTS_POSSIBLE = "Points Possible"


def _rows(path: Path) -> tuple:
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            header = [h.strip() for h in reader.fieldnames or []]
            rows = [{k.strip(): (v or "").strip() for k, v in row.items() if isinstance(k, str)}
                    for row in reader]
    except FileNotFoundError:
        raise CourseError(f"{path}: roster not found") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"{path}: not a UTF-8 CSV file ({error})") from None
    return header, rows


def _from_lms(rows, columns, first_ids) -> list:
    people = []
    for row in rows:
        person = {c: "" for c in ROSTER_COLUMNS}
        person.update({ours: row.get(theirs, "") for theirs, ours in columns.items()})
        if "First name" in row or "Last name" in row:
            person["name"] = f"{row.get('First name', '')} {row.get('Last name', '')}".strip()
        person["student"] = next((person[c] for c in first_ids if person[c]), "") \
            or person["email"].partition("@")[0]
        people.append(person)
    return people


def read_roster(path) -> list:
    """The roster's people, as dicts of every column of ROSTER_COLUMNS ("" where absent)."""
    path = Path(path)
    header, rows = _rows(path)
    if "student" in header:
        unknown = [h for h in header if h not in ROSTER_COLUMNS]
        if unknown:
            raise CourseError(f"{path}: unknown roster column(s) {', '.join(unknown)} "
                              f"(known: {', '.join(ROSTER_COLUMNS)})")
        people = [{c: row.get(c, "") for c in ROSTER_COLUMNS} for row in rows]
    elif {"Student", "ID"} <= set(header):
        people = _from_lms([r for r in rows if r.get("Student") != POINTS_POSSIBLE], CANVAS,
                           ("sis_login_id", "sis_user_id", "canvas_id"))
    elif "Email address" in header:
        people = _from_lms(rows, MOODLE, ("student", "id_number"))
    else:
        raise CourseError(f"{path}: not a roster: it needs a 'student' column (the student id as "
                          f"in the class folder; also: {', '.join(ROSTER_COLUMNS[1:])}), or to be "
                          "Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID, "
                          "Section) or Moodle's grade export (First name, Last name, ID number, "
                          "Email address)")
    seen = set()
    for number, person in enumerate(people, 2):
        if not person["student"]:
            raise CourseError(f"{path}, line {number}: no student id")
        if person["student"] in seen:
            raise CourseError(f"{path}, line {number}: student {person['student']!r} listed twice")
        seen.add(person["student"])
    return people


def ids(person) -> list:
    """Every id the person may be known by to the grader, in order of preference."""
    found = [person[c] for c in ("student", "sis_login_id", "sis_user_id", "canvas_id",
                                 "id_number", "email") if person.get(c)]
    if person.get("email"):
        found.append(person["email"].partition("@")[0])
    return list(dict.fromkeys(found))


def known_as(person, students) -> str | None:
    """The student among `students` (the grader's ids) that `person` of a roster is, by any of
    their ids, case aside; None when none is."""
    by_lower = {s.lower(): s for s in students}
    return next((by_lower[i.lower()] for i in ids(person) if i.lower() in by_lower), None)
