"""Late work: when a submission was handed in, and what the course's late policy takes off.

The policy is course.toml's `[late]` (or an assignment's `[assignment.late]`, see
autograder.course.config.LatePolicy); the due date is the assignment's `due`. When it was submitted
comes from, in this order:

* Gradescope's `submission_metadata.json` (`created_at`), when grading under its run_autograder;
* nbgrader's `timestamp.txt` next to the notebook in nbgrader's layout
  (submitted/<student>/<assignment>/; elsewhere, such as a folder of loose notebooks or
  Gradescope's submission/, it would be the student's own file), written by `nbgrader submit`
  with its `Exchange.timestamp_format`, by default
  `%Y-%m-%d %H:%M:%S.%f %Z` ("2026-10-06 10:12:03.123456 UTC");
* the notebook file's modification time.

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
MTIME_SOURCE = "notebook file's mtime"
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


def from_files(notebook: Path) -> Submitted:
    """When the notebook at `notebook` was submitted: nbgrader's timestamp.txt next to it (in
    submitted/<student>/<assignment>/ only), else the notebook's mtime (`note` says why when a
    timestamp.txt is there but unreadable)."""
    notebook = Path(notebook)
    stamp, note = notebook.parent / TIMESTAMP_FILE, ""
    nbgrader = len(notebook.parts) >= 4 and notebook.parts[-4] == "submitted"
    if nbgrader and stamp.is_file() and not stamp.is_symlink():
        try:
            return Submitted(parse_timestamp(stamp.read_text(encoding="utf-8", errors="replace")[:200]),
                             TIMESTAMP_FILE)
        except (TimestampError, OSError) as error:
            note = f"{TIMESTAMP_FILE} not used: {error}"
    mtime = notebook.stat().st_mtime
    return Submitted(datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc), MTIME_SOURCE, note)


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
    taken off (never more than the raw score) and whether it was past the hard deadline."""
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
    nothing can be late: no policy or no due date for its assignment, or nothing submitted).
    Idempotent: the penalty is always taken from `raw_score`."""
    raw = result.get("raw_score", result["score"])
    result["raw_score"], result["score"], result["late"] = raw, raw, None
    known = {a.id: a for a in course.assignments}
    assignment = known.get(result.get("assignment"))
    if assignment is None or assignment.late is None or assignment.due is None or submitted is None \
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
        "policy": assignment.late.describe()}
    if submitted.note:
        result["flags"] = list(result.get("flags", [])) + [submitted.note]
    return result


def submitted_for(course, assignment_id, notebook) -> Submitted | None:
    """When `notebook` was submitted, if the late policy needs it (else None: nothing read)."""
    known = {a.id: a for a in course.assignments}
    assignment = known.get(assignment_id)
    if notebook is None or assignment is None or assignment.late is None:
        return None
    try:
        return from_files(notebook)
    except OSError:
        return None


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
