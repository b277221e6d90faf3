"""Load and validate course.toml: assignments, tasks, points, thresholds, limits, seeds."""
from __future__ import annotations

import dataclasses
import datetime
import difflib
import re
import tomllib
import zoneinfo
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent     # autograder/
ROOT = PACKAGE.parent

SIZE_UNITS = {"": 1, "B": 1, "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "KB": 10 ** 3,
              "MB": 10 ** 6, "GB": 10 ** 9}
LIMIT_KEYS = {"time_limit": float, "cpu_limit": float, "memory_limit": "size",
              "max_processes": int, "max_file_size": "size", "max_reply": "size",
              "max_output": "size", "grader_cpu_limit": float, "probe_time_limit": float}
# Limits that course.toml may leave out: their value from the others.
LIMIT_DEFAULTS = {"grader_cpu_limit": lambda values: values["time_limit"] / 2,
                  "probe_time_limit": lambda values: values["time_limit"] / 4}
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
# The keys each table may have: a misspelt key would otherwise be ignored without a word.
KEYS = {
    "top level": {"course", "limits", "late", "assignment"},
    "course": {"name", "seed_policy", "public_seed", "grading_seed", "secret_from_grading_seed",
               "timezone"},
    "limits": set(LIMIT_KEYS),
    "assignment": {"id", "notebook", "title", "task", "question", "forbidden_imports",
                   "library_answers", "thresholds", "due", "late", "optional", *LIMIT_KEYS},
    "late": {"penalty_per_day", "max_penalty", "grace_minutes", "hard_deadline_days"},
    "task": {"id", "points", "title"},
    "question": {"id", "points", "title"},
}


class CourseError(ValueError):
    """course.toml is missing, malformed, or inconsistent; the message says where."""


@dataclasses.dataclass(frozen=True)
class Task:
    id: str
    points: float
    title: str = ""


@dataclasses.dataclass(frozen=True)
class Question:
    """A question the student answers in words, graded by hand (nbgrader's manually graded
    answer cell, grade_id = id): its points count in nbgrader's maximum, never in `grade`'s."""
    id: str
    points: float
    title: str = ""


@dataclasses.dataclass(frozen=True)
class Limits:
    time_limit: float
    cpu_limit: float
    memory_limit: int
    max_processes: int
    max_file_size: int
    max_reply: int
    max_output: int
    grader_cpu_limit: float     # seconds of the grader's own CPU time checking one submission
    probe_time_limit: float     # seconds of wall time for one probe call (within time_limit)


@dataclasses.dataclass(frozen=True)
class LatePolicy:
    """What a late submission loses (autograder.grading.late applies it): `penalty_per_day` of the
    assignment's points per day late (days rounded up; late by at most `grace_minutes` counts
    as on time), at most `max_penalty` of them in all, and everything once it is more than
    `hard_deadline_days` days late (None: no hard deadline). Fractions are in [0, 1]."""
    penalty_per_day: float = 0.0
    max_penalty: float = 1.0
    grace_minutes: float = 0.0
    hard_deadline_days: float | None = None

    def describe(self) -> str:
        parts = [f"{self.penalty_per_day:.4g} of the points per day late"
                 + (f", at most {self.max_penalty:.4g}" if self.max_penalty < 1 else "")]
        if self.grace_minutes:
            parts.append(f"{self.grace_minutes:g} minutes' grace")
        if self.hard_deadline_days is not None:
            parts.append(f"0 points when more than {self.hard_deadline_days:g} days late")
        return "; ".join(parts)


@dataclasses.dataclass(frozen=True)
class Assignment:
    id: str
    notebook: str
    title: str
    tasks: tuple
    forbidden_imports: tuple
    thresholds: dict
    limits: Limits
    due: datetime.datetime | None = None   # time-zone aware; None: no due date (see `parse_due`)
    late: LatePolicy | None = None         # None: nothing is late (no policy, or no due date)
    library_answers: tuple = ()            # dp's names for what the students write: flagged
    questions: tuple = ()                  # graded by hand: Question
    optional: bool = False                 # graded as any other; not submitting it is no gap

    @property
    def max_score(self) -> float:
        """The points that `grade` awards: those of the tasks (not of the questions)."""
        return sum(t.points for t in self.tasks)

    @property
    def hand_points(self) -> float:
        """The points of the questions, graded by hand (in nbgrader's formgrader)."""
        return sum(q.points for q in self.questions)

    def task(self, task_id) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(f"assignment {self.id!r} has no task {task_id!r}")

    @property
    def checks_path(self) -> Path:
        return PACKAGE / "checks" / f"{self.notebook}.py"

    @property
    def probes_module(self) -> str:
        return f"autograder.probes.{self.notebook}"

    def solution_path(self, root=ROOT) -> Path:
        return Path(root) / "solutions" / self.id / f"{self.notebook}.py"

    def exercise_path(self, root=ROOT) -> Path:
        return Path(root) / "exercises" / self.id / f"{self.notebook}.ipynb"


@dataclasses.dataclass(frozen=True)
class Course:
    name: str
    public_seed: int
    seed_policy: str
    grading_seed: int
    assignments: tuple
    path: Path
    timezone: str = "UTC"
    secret_from_grading_seed: bool = False   # hidden inputs from public data: autograder.grading.secret

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.timezone)

    def assignment(self, assignment_id) -> Assignment:
        for a in self.assignments:
            if a.id == assignment_id:
                return a
        raise CourseError(f"unknown assignment {assignment_id!r}; course.toml has: "
                          f"{', '.join(a.id for a in self.assignments)}")

    def task_owner(self, task_id) -> Assignment:
        for a in self.assignments:
            if any(t.id == task_id for t in a.tasks):
                return a
        raise CourseError(f"no assignment has a task {task_id!r}; tasks are: "
                          f"{', '.join(t.id for a in self.assignments for t in a.tasks)}")


def parse_size(value, where) -> int:
    if isinstance(value, int) and value > 0:
        return value
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]i?B|B)?\s*", str(value))
    if not match:
        raise CourseError(f"{where}: {value!r} is not a size (e.g. 512MiB, 2GiB)")
    return int(float(match[1]) * SIZE_UNITS[match[2] or ""])


DUE_EXAMPLE = "e.g. due = 2026-10-05T23:59:00+01:00, due = 2026-10-05T23:59:00 or due = 2026-10-05"


def parse_timezone(value, where) -> zoneinfo.ZoneInfo:
    """An IANA time zone name ("Europe/London", "UTC")."""
    if not isinstance(value, str):
        raise CourseError(f"{where}: expected the name of a time zone such as 'Europe/London' "
                          f"or 'UTC', got {value!r}")
    try:
        return zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise CourseError(f"{where}: unknown time zone {value!r} (an IANA name such as "
                          f"'Europe/London', 'America/New_York' or 'UTC')") from None


def parse_due(value, where, zone=datetime.timezone.utc) -> datetime.datetime:
    """A due date as a time-zone aware datetime. TOML gives one of

    * an offset date-time `2026-10-05T23:59:00+01:00`: that moment;
    * a local date-time `2026-10-05T23:59:00`: that time in the course's time zone (`zone`);
    * a date `2026-10-05`: the end of that day (23:59:59) in the course's time zone.

    A string is refused (`due = "2026-10-05"` is text to TOML: write the date without quotes),
    and so is a time of day alone."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=zone)
    if isinstance(value, datetime.date):
        return datetime.datetime.combine(value, datetime.time(23, 59, 59), tzinfo=zone)
    if isinstance(value, str):
        try:
            datetime.datetime.fromisoformat(value)
            hint = ": write it without quotes, TOML reads a quoted date as text"
        except ValueError:
            hint = ""
        raise CourseError(f"{where}: {value!r} is not a TOML date or date-time{hint} ({DUE_EXAMPLE})")
    if isinstance(value, datetime.time):
        raise CourseError(f"{where}: {value.isoformat()} is a time of day without a date "
                          f"({DUE_EXAMPLE})")
    raise CourseError(f"{where}: expected a TOML date or date-time ({DUE_EXAMPLE}), got {value!r}")


LATE_EXAMPLE = ("e.g. [late] penalty_per_day = 0.1, max_penalty = 0.5, grace_minutes = 15, "
                "hard_deadline_days = 7")


def parse_late(table, defaults, where) -> LatePolicy:
    """A late policy: `table`'s keys over `defaults` (the course's [late], or {})."""
    if not isinstance(table, dict):
        raise CourseError(f"{where}: expected a table of late-policy keys ({LATE_EXAMPLE}), got {table!r}")
    _known_keys(table, "late", where)
    merged = {**defaults, **table}
    if "penalty_per_day" not in merged and "hard_deadline_days" not in merged:
        raise CourseError(f"{where}: a late policy needs penalty_per_day or hard_deadline_days "
                          f"(or both; {LATE_EXAMPLE})")
    values = {}
    for key, low, high, meaning in (
            ("penalty_per_day", 0, 1, "a fraction of the assignment's points per day late, e.g. 0.1"),
            ("max_penalty", 0, 1, "the most a late submission loses, as a fraction of its points, e.g. 0.5"),
            ("grace_minutes", 0, None, "minutes after the due date that still count as on time"),
            ("hard_deadline_days", 0, None, "days after the due date after which a submission gets 0")):
        if key not in merged:
            continue
        value = merged[key]
        if (not isinstance(value, (int, float)) or isinstance(value, bool) or value < low
                or high is not None and value > high or key == "hard_deadline_days" and value == 0):
            bounds = f"from {low} to {high}" if high is not None else (
                "above 0" if key == "hard_deadline_days" else f">= {low}")
            raise CourseError(f"{where}: {key} must be a number {bounds} ({meaning}), not {value!r}")
        values[key] = float(value)
    return LatePolicy(**values)


def _toml_error(path: Path, text: str, error: tomllib.TOMLDecodeError) -> str:
    """tomllib's message, with the line it is about and the assignment that line belongs to:
    an impossible date (`due = 2026-13-05`) is a TOML syntax error, reported by line only."""
    message = f"{path}: not valid TOML: {error}"
    match = re.search(r"at line (\d+)", str(error))
    lines = text.splitlines()
    if match and 0 < int(match[1]) <= len(lines):
        number = int(match[1])
        message += f"\n  line {number}: {lines[number - 1].strip()}"
        owner = None
        for line in lines[:number]:
            if re.match(r"\s*\[\[\s*assignment\s*\]\]", line):
                owner = "?"
            elif re.match(r"\s*\[", line) and not re.match(r"\s*\[+\s*assignment\.", line):
                owner = None
            elif owner == "?" and (found := re.match(r"\s*id\s*=\s*[\"']([^\"']*)[\"']", line)):
                owner = found[1]
        if owner and owner != "?":
            message += f" (in assignment {owner!r})"
        if re.match(r"\s*due\s*=", lines[number - 1]):
            message += f"\n  a due date is a TOML date or date-time that exists ({DUE_EXAMPLE})"
    return message


def _limits(table: dict, defaults: dict | None, where: str) -> Limits:
    merged = dict(defaults or {})
    for key, value in table.items():
        if key in LIMIT_KEYS:
            merged[key] = value
    values = {}
    for key, kind in LIMIT_KEYS.items():
        if key not in merged and key in LIMIT_DEFAULTS:
            values[key] = LIMIT_DEFAULTS[key](values)
            continue
        if key not in merged:
            raise CourseError(f"{where}: missing limit {key!r} (set it in [limits])")
        value = merged[key]
        if kind == "size":
            values[key] = parse_size(value, f"{where}.{key}")
        else:
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise CourseError(f"{where}.{key}: must be a positive number, not {value!r}")
            values[key] = kind(value)
    if values["probe_time_limit"] > values["time_limit"]:
        raise CourseError(f"{where}.probe_time_limit: {values['probe_time_limit']:g} s, more than "
                          f"its time_limit of {values['time_limit']:g} s (which covers every probe)")
    return Limits(**values)


def _known_keys(table: dict, kind: str, where: str) -> None:
    """Refuse keys that a table of this kind does not have, suggesting the nearest one."""
    for key in table:
        if key not in KEYS[kind]:
            near = difflib.get_close_matches(key, sorted(KEYS[kind]), n=1) or [
                k for k in sorted(KEYS[kind], key=len, reverse=True)     # due_date, duedate: due
                if min(len(k), len(key)) >= 3 and (key.startswith(k) or k.startswith(key))]
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise CourseError(f"{where}: unknown key {key!r}{hint} (a {kind} table has: "
                              f"{', '.join(sorted(KEYS[kind]))}; see docs/INSTRUCTORS.md)")


def _require(table, key, kind, where):
    if key not in table:
        raise CourseError(f"{where}: missing key {key!r}")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise CourseError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _graded_items(tables, kind, make, at, aid, seen) -> list:
    """The [[assignment.task]] or [[assignment.question]] tables of assignment `aid`, as `make`
    (Task, Question). Their ids are nbgrader grade_ids: unique across the course (`seen`, id:
    the assignment that has it), tasks and questions alike."""
    items = []
    for j, t in enumerate(tables):
        if not isinstance(t, dict):
            raise CourseError(f"{at}.{kind}[{j}]: expected a table ([[assignment.{kind}]])")
        tid = _require(t, "id", str, f"{at}.{kind}[{j}]")
        _known_keys(t, kind, f"{at}.{kind} {tid!r}")
        points = _require(t, "points", (int, float), f"{at}.{kind} {tid!r}")
        if not ID.match(tid) or points < 0:
            raise CourseError(f"{at}.{kind} {tid!r}: needs a plain id and points >= 0")
        if tid in seen:
            raise CourseError(f"{at}: {kind} id {tid!r} is already used by assignment "
                              f"{seen[tid]!r} (task and question ids are nbgrader grade_ids: unique)")
        title = t.get("title", "")
        if not isinstance(title, str):
            raise CourseError(f"{at}.{kind} {tid!r}.title: expected a string, got {title!r}")
        seen[tid] = aid
        items.append(make(tid, float(points), title))
    return items


def load_course(path=None) -> Course:
    """Read and validate course.toml (default: the repository's)."""
    path = Path(path or ROOT / "course.toml")
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise CourseError(f"{path}: not found (the course file is needed to grade)") from None
    except tomllib.TOMLDecodeError as error:
        raise CourseError(_toml_error(path, text, error)) from None
    where = path.name
    _known_keys(data, "top level", where)
    course = _require(data, "course", dict, where)
    _known_keys(course, "course", f"{where}: [course]")
    policy = course.get("seed_policy", "per-student")
    if policy not in ("per-student", "fixed"):
        raise CourseError(f"{where}: course.seed_policy must be 'per-student' or 'fixed', not {policy!r}")
    public_secret = course.get("secret_from_grading_seed", False)
    if not isinstance(public_secret, bool):
        raise CourseError(f"{where}: course.secret_from_grading_seed must be true or false, "
                          f"not {public_secret!r}")
    timezone = course.get("timezone", "UTC")
    zone = parse_timezone(timezone, f"{where}: [course] timezone")
    defaults = data.get("limits", {})
    _known_keys(defaults, "limits", f"{where}: [limits]")
    course_late = data.get("late")
    late = parse_late(course_late, {}, f"{where}: [late]") if course_late is not None else None
    assignments, seen_tasks = [], {}
    for i, table in enumerate(_require(data, "assignment", list, where)):
        at = f"{where}: assignment[{i}]"
        aid = _require(table, "id", str, at)
        at = f"{where}: assignment {aid!r}"
        if not ID.match(aid):
            raise CourseError(f"{at}: the id may use letters, digits, '_' and '-' only")
        if any(a.id == aid for a in assignments):
            raise CourseError(f"{at}: defined twice")
        _known_keys(table, "assignment", at)
        tasks = _graded_items(_require(table, "task", list, at), "task", Task, at, aid, seen_tasks)
        questions = table.get("question", [])
        if not isinstance(questions, list):
            raise CourseError(f"{at}.question: expected [[assignment.question]] tables")
        questions = _graded_items(questions, "question", Question, at, aid, seen_tasks)
        forbidden = table.get("forbidden_imports", [])
        if not isinstance(forbidden, list) or not all(isinstance(m, str) for m in forbidden):
            raise CourseError(f"{at}.forbidden_imports: expected a list of module names")
        answers = table.get("library_answers", [])
        if not isinstance(answers, list) or not all(isinstance(m, str) and m.isidentifier()
                                                    for m in answers):
            raise CourseError(f"{at}.library_answers: expected a list of dp's names (Adam, conv1d)")
        late_policy = late
        if "late" in table:
            if "due" not in table:
                raise CourseError(f"{at}: late: the assignment has no due date, so nothing is "
                                  f"late; add due = ... ({DUE_EXAMPLE}) or remove its late table")
            late_policy = parse_late(table["late"], course_late or {}, f"{at}: late")
        optional = table.get("optional", False)
        if not isinstance(optional, bool):
            raise CourseError(f"{at}.optional: expected true or false, not {optional!r}")
        thresholds = table.get("thresholds", {})
        if not all(isinstance(v, (int, float)) for v in thresholds.values()):
            raise CourseError(f"{at}.thresholds: values must be numbers")
        assignments.append(Assignment(
            id=aid, notebook=_require(table, "notebook", str, at), title=table.get("title", aid),
            tasks=tuple(tasks), forbidden_imports=tuple(forbidden), thresholds=dict(thresholds),
            limits=_limits(table, defaults, at),
            due=parse_due(table["due"], f"{at}: due", zone) if "due" in table else None,
            late=late_policy if "due" in table else None, library_answers=tuple(answers),
            questions=tuple(questions), optional=optional))
    return Course(name=course.get("name", "course"), public_seed=int(course.get("public_seed", 0)),
                  seed_policy=policy, grading_seed=int(course.get("grading_seed", 0)),
                  assignments=tuple(assignments), path=path, timezone=timezone,
                  secret_from_grading_seed=public_secret)
