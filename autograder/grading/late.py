"""Late work: when a submission was handed in, and what the course's late policy takes off.

The policy is course.toml's `[late]` (or an assignment's `[assignment.late]`, see
autograder.course.config.LatePolicy); the due date is the assignment's `due`. When it was submitted
comes from sources that mean it, in this order:

* Gradescope's `submission_metadata.json` (`created_at`), when grading under its run_autograder;
* nbgrader's `timestamp.txt` next to the notebook in nbgrader's layout
  (<class>/<student>/<assignment>/; elsewhere, such as a folder of loose notebooks or
  Gradescope's submission/, it would be the student's own file), written by `nbgrader submit`
  with its `Exchange.timestamp_format`, by default
  `%Y-%m-%d %H:%M:%S.%f %Z` ("2026-10-06 10:12:03.123456 UTC");
* a CSV of times that the instructor passes (`grade --times FILE`: `read_times`);
* the notebook file's modification time, only when asked for (`grade --times-from-mtime`): a
  copy (`cp -r`, an unzipped download) sets it to the moment of the copy.
Without any, a submission's lateness is not assessed, and the run's `summary` says so. With a
due date but no late policy, the days late are shown and nothing is taken off.

A result keeps `raw_score` (the points its tasks earned) and its `score` is what is left after
the penalty: what the LMS exports, Gradescope and the gradebook CSVs show. `late` says how
(`apply`), or is None where nothing can be late (no policy, no due date, nothing submitted).
"""
from __future__ import annotations

import dataclasses
import datetime
import math
import re
import zoneinfo
from pathlib import Path

TIMESTAMP_FILE = "timestamp.txt"
GRADESCOPE_SOURCE = "submission_metadata.json created_at"
TIMES_SOURCE = "--times file"
MTIME_SOURCE = "notebook file's mtime"
MOSTLY_LATE = 0.5     # more than this share of a class late: a loud warning (are the times right?)
DAY = datetime.timedelta(days=1)


class TimestampError(ValueError):
    """A timestamp that cannot be read as one."""


@dataclasses.dataclass(frozen=True)
class Submitted:
    at: datetime.datetime    # time-zone aware
    source: str              # where `at` comes from: TIMESTAMP_FILE, GRADESCOPE_SOURCE, MTIME_SOURCE
    note: str = ""           # why a better source was not used, when it was there but unreadable


def _zone(name: str):
    if name in ("UTC", "GMT", "Z"):
        return datetime.timezone.utc
    if re.fullmatch(r"[+-]\d{4}", name):        # nbgrader's numeric form (utils.to_numeric_tz)
        sign = -1 if name[0] == "-" else 1
        return datetime.timezone(sign * datetime.timedelta(hours=int(name[1:3]), minutes=int(name[3:])))
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise TimestampError(f"unknown time zone {name!r}") from None


def parse_timestamp(text: str) -> datetime.datetime:
    """An nbgrader timestamp as an aware datetime: "2026-10-06 10:12:03.123456 UTC" (its default
    format), with a zone name or a numeric offset in the third field, or an ISO 8601 date-time.
    Without a zone it is UTC, as nbgrader reads it (nbgrader.utils.parse_utc)."""
    text = text.strip()
    parts = text.split(" ")
    try:
        if len(parts) == 3:
            return datetime.datetime.fromisoformat(" ".join(parts[:2])).replace(tzinfo=_zone(parts[2]))
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise TimestampError(f"{text[:80]!r} is not a timestamp (nbgrader writes e.g. "
                             "'2026-10-06 10:12:03.123456 UTC')") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=datetime.timezone.utc)


def from_files(notebook: Path, layout: bool = False, at: datetime.datetime | None = None,
               use_mtime: bool = True) -> Submitted | None:
    """When the notebook at `notebook` was submitted: nbgrader's timestamp.txt next to it (in
    nbgrader's layout only: `layout`, or a path .../submitted/<student>/<assignment>/x), else `at`
    (the instructor's --times), else the notebook's mtime if `use_mtime`; None when none of them
    says (`note` says why when a timestamp.txt is there but unreadable)."""
    notebook = Path(notebook)
    stamp, note = notebook.parent / TIMESTAMP_FILE, ""
    nbgrader = layout or (len(notebook.parts) >= 4 and notebook.parts[-4] == "submitted")
    if nbgrader and stamp.is_file() and not stamp.is_symlink():
        try:
            return Submitted(parse_timestamp(stamp.read_text(encoding="utf-8", errors="replace")[:200]),
                             TIMESTAMP_FILE)
        except (TimestampError, OSError) as error:
            note = f"{TIMESTAMP_FILE} not used: {error}"
    if at is not None:
        return Submitted(at, TIMES_SOURCE, note)
    if not use_mtime:
        return None
    mtime = notebook.stat().st_mtime
    return Submitted(datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc), MTIME_SOURCE, note)


def read_times(path: Path) -> dict:
    """{(student, assignment id or None): moment} of an instructor's CSV of submission times:
    columns `student`, `submitted_at` (ISO 8601 or nbgrader's format; UTC without a zone) and,
    optionally, `assignment` (empty or absent: every assignment of that student). An LMS export
    reshaped to these columns works. An unreadable row names the file and its line."""
    import csv
    path = Path(path)
    try:
        rows = list(csv.DictReader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise TimestampError(f"{path}: cannot be read as a CSV of times: {error}") from None
    if rows and not {"student", "submitted_at"} <= set(rows[0]):
        raise TimestampError(f"{path}: needs the columns student and submitted_at (and optionally "
                             f"assignment); it has {', '.join(map(str, rows[0]))}")
    times = {}
    for line, row in enumerate(rows, start=2):
        try:
            at = parse_timestamp(row["submitted_at"] or "")
        except TimestampError as error:
            raise TimestampError(f"{path}, line {line}: {error}") from None
        times[(row["student"] or "").strip(), (row.get("assignment") or "").strip() or None] = at
    return times


def from_gradescope(metadata) -> Submitted | None:
    """When Gradescope received the submission (`created_at` of submission_metadata.json, ISO
    8601 with an offset, e.g. "2026-10-06T10:12:03.365935-07:00"); None without one."""
    value = metadata.get("created_at") if isinstance(metadata, dict) else None
    if not isinstance(value, str):
        return None
    try:
        return Submitted(parse_timestamp(value), GRADESCOPE_SOURCE)
    except TimestampError:
        return None


def days_late(due: datetime.datetime, at: datetime.datetime, grace_minutes: float = 0.0) -> int:
    """Whole days late, rounded up: 1 minute late is 1 day, 24 h 1 min is 2. Late by at most
    the grace period is on time (0); past it, days count from the due date itself."""
    late = at - due
    if late <= datetime.timedelta(minutes=grace_minutes):
        return 0
    return math.ceil(late / DAY)


def assess(policy, due, at, raw_score: float, max_score: float) -> dict:
    """What `policy` takes off a submission handed in `at` (due `due`): days late, the points
    taken off (never more than the raw score) and whether it was past the hard deadline. Without
    a policy (None), the days late and nothing taken off."""
    if policy is None:
        return {"days_late": days_late(due, at), "penalty": 0.0, "past_hard_deadline": False,
                "hard_deadline": None}
    days = days_late(due, at, policy.grace_minutes)
    hard = due + datetime.timedelta(days=policy.hard_deadline_days) \
        if policy.hard_deadline_days is not None else None
    past_hard = hard is not None and at > hard
    if past_hard:
        penalty = raw_score
    else:
        penalty = min(days * policy.penalty_per_day, policy.max_penalty) * max_score
    penalty = round(min(max(penalty, 0.0), raw_score), 6)
    return {"days_late": days, "penalty": penalty, "past_hard_deadline": past_hard,
            "hard_deadline": hard}


def apply(result: dict, course, submitted: Submitted | None) -> dict:
    """`result` with `raw_score`, its `score` after the late penalty and `late` (None when
    nothing can be late: no due date for its assignment, or no time for the submission; with a
    due date and no policy, the days late, nothing taken off). Idempotent: the penalty is always
    taken from `raw_score`."""
    raw = result.get("raw_score", result["score"])
    result["raw_score"], result["score"], result["late"] = raw, raw, None
    known = {a.id: a for a in course.assignments}
    assignment = known.get(result.get("assignment"))
    if assignment is None or assignment.due is None or submitted is None \
            or result.get("status") == "missing":
        return result
    found = assess(assignment.late, assignment.due, submitted.at, raw, result["max_score"])
    zone = course.zone
    result["score"] = round(raw - found["penalty"], 6)
    result["late"] = {
        "due": assignment.due.astimezone(zone).isoformat(),
        "submitted_at": submitted.at.astimezone(zone).isoformat(),
        "source": submitted.source,
        "days_late": found["days_late"],
        "penalty": found["penalty"],
        "hard_deadline": found["hard_deadline"].astimezone(zone).isoformat()
        if found["hard_deadline"] else None,
        "past_hard_deadline": found["past_hard_deadline"],
        "policy": assignment.late.describe() if assignment.late else "no late policy"}
    if submitted.note:
        result["flags"] = list(result.get("flags", [])) + [submitted.note]
    return result


def submitted_for(course, assignment_id, notebook, student=None, times=None, use_mtime=False,
                  layout=False) -> Submitted | None:
    """When `notebook` was submitted, if its assignment has a due date (else None: nothing read),
    from `from_files`: timestamp.txt, then `times` (`read_times`), then its mtime if `use_mtime`."""
    known = {a.id: a for a in course.assignments}
    assignment = known.get(assignment_id)
    if notebook is None or assignment is None or assignment.due is None:
        return None
    times = times or {}
    at = times.get((student, assignment_id), times.get((student, None)))
    try:
        return from_files(notebook, layout=layout, at=at, use_mtime=use_mtime)
    except OSError:
        return None


def summary(course, results, submitted: dict) -> list:
    """What the run says about late work, a line each: how many submissions were late and past
    the hard deadline, where their times came from; those without a time where a policy would
    have needed one; and a loud warning when most of a class is late. `submitted`:
    {(student, assignment): Submitted or None} of the run. Empty where no assignment has a due
    date."""
    due = {a.id: a for a in course.assignments if a.due is not None}
    graded = [r for r in results if r.get("assignment") in due and r.get("status") != "missing"]
    if not graded:
        return []
    timed = [r for r in graded if r.get("late")]
    untimed = [r for r in graded if not r.get("late") and due[r["assignment"]].late is not None]
    late = [r for r in timed if r["late"]["days_late"]]
    hard = [r for r in timed if r["late"]["past_hard_deadline"]]
    sources = {}
    for r in timed:
        sources[r["late"]["source"]] = sources.get(r["late"]["source"], 0) + 1
    lines = []
    if timed:
        lines.append(f"late work: {len(late)} of {len(timed)} submissions with a time were late"
                     + (f", {len(hard)} past the hard deadline" if hard else "")
                     + "; times from " + ", ".join(f"{s} ({n})" for s, n in sorted(sources.items())))
    if untimed:
        lines.append(f"warning: {len(untimed)} submission(s) of assignments with a late policy have "
                     f"no submission time (no {TIMESTAMP_FILE} in nbgrader's layout): not assessed "
                     "for lateness; pass --times FILE (columns student, assignment, submitted_at), "
                     "or --times-from-mtime if the files' modification times are the submission times")
    if len(timed) >= 2 and len(late) > MOSTLY_LATE * len(timed):
        mtime = sources.get(MTIME_SOURCE, 0)
        lines.append(f"WARNING: {len(late)} of {len(timed)} submissions are late"
                     + (f"; {mtime} of these times are the notebooks' modification times, which a "
                        "copy (cp -r, an unzipped download) sets to the moment of the copy"
                        if mtime else "")
                     + ": check the due dates and the submission times before publishing grades")
    return lines


def describe(result: dict) -> str:
    """One line on the late penalty of a result, for the feedback and the tables; "" if none."""
    late = result.get("late")
    if not late:
        return ""
    when = f"submitted {late['submitted_at']} ({late['source']}), due {late['due']}"
    if late["past_hard_deadline"]:
        return f"{when}: past the hard deadline {late['hard_deadline']}: 0 points " \
               f"(of {result['raw_score']:g} earned)"
    if not late["days_late"]:
        return f"{when}: on time"
    return (f"{when}: {late['days_late']} day{'s' if late['days_late'] != 1 else ''} late, "
            f"-{late['penalty']:g} points ({late['policy']}): {result['score']:g} of "
            f"{result['raw_score']:g} earned")
