"""Write what grading found: result JSON, the grades CSV, and HTML feedback. Atomically.

Everything in a result that a submission could have chosen (messages, cell errors, output,
flags, metrics, figures) is hostile text: `bounded` sanitizes and caps all of it, in one place
(`CAPS`), before a result is returned by the grading of one submission and again before it is
written. Writing cannot fail on a submission's text.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import math
import os
import re
import reprlib
import tempfile
import unicodedata
from pathlib import Path

from . import late, names
from .feedback import BY_HAND, BY_HAND_MARK

STATUS_MARK = {"passed": "✔", "failed": "✘", "error": "⚠", "timeout": "⌛", "missing": "–",
               "manual": BY_HAND_MARK}
STATUS_MEANING = {"passed": "passed", "failed": "failed (the message says why)",
                  "error": "error: the code raised or could not be run (or, its message says, a check did)",
                  "timeout": "time limit reached",
                  "missing": "not submitted", "manual": BY_HAND}
LEGEND = "  ".join(f"{STATUS_MARK[s]} {m}" for s, m in STATUS_MEANING.items())

# The caps on what grading one submission may put into its result and feedback, in characters
# (text) or items (lists), whatever the sandbox replied. Text longer than its cap ends in TRUNCATED.
CAPS = {"message": 2000,          # a task's message (its first failed check's), the result's own
        "checks": 20,             # checks listed per task
        "check_message": 500,     # each of their messages (the task's message has the first)
        "metrics": 20,            # metrics per task (numbers kept; other values as capped text)
        "metric_text": 200,       # a metric that is not a number, or a metric's name
        "flags": 50, "flag": 300,
        "cell_errors": 20, "cell_error": 1000,
        "output": 4000,           # what the notebook printed: its last characters are kept
        "text": 300,              # any other text field (student, notebook name, ...)
        "figures": 10, "figure_bytes": 2 ** 20, "figures_bytes": 2 * 2 ** 20}   # PNGs: each, all
TRUNCATED = " … (truncated)"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|" + names.BIDI.pattern)
_ZERO_WIDTH = re.compile("[\u200b\u2060-\u2064\ufeff]")
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = CAPS["text"]
FILE_MODE, DIR_MODE = 0o640, 0o750     # the instructor's group may read results and feedback


def clean_text(value, cap: int = CAPS["text"], keep_end: bool = False) -> str:
    """`value` as text that can be written anywhere: at most `cap` characters (the start kept,
    or the end with `keep_end`, and TRUNCATED said), surrogates and other unencodable characters
    as backslash escapes, control characters (but newline and tab) and the bidi controls
    (names.BIDI: they would reorder the text around them, the grader's own included) as U+FFFD,
    zero-width characters left out. Not a string: its bounded repr (no huge str() of a huge reply)."""
    if not isinstance(value, str):
        value = _REPR.repr(value)
    value = _cut(value, cap, keep_end).encode("utf-8", "backslashreplace").decode("utf-8")
    return _cut(_CONTROL.sub("\ufffd", _ZERO_WIDTH.sub("", value)), cap, keep_end)    # escapes made it longer


NAME_BYTES = 100     # a student's name, also a folder's name: well within a file system's 255


def student_name(found: str) -> str:
    """A student's name as the grader writes it everywhere (CSV, JSON, HTML, and as the name of
    their results/ and feedback/ folders), from the name of their folder or notebook as found.

    The name itself when it is one line of printable characters, at most NAME_BYTES bytes in
    UTF-8, not hidden (a leading "."), without "~", U+FFFD or an invisible character
    (names.INVISIBLE), and its own NFKC normal form with no blank at either end ("José", "Zoë",
    "王芳"). Any other name becomes its normal form's printable start (invisible characters
    left out, other unprintable ones as "_"), "~" and a hash of the name as found ("alice " ->
    "alice~…"): two names found never become one (the unchanged names have no "~"), no name
    becomes too long for a file system, and names.lookalikes still sees what it looks like."""
    raw = found.encode("utf-8", "surrogatepass")
    normal = unicodedata.normalize("NFKC", found).strip()
    if (normal == found and found.isprintable() and len(raw) <= NAME_BYTES
            and not found.startswith(".") and "~" not in found and "\ufffd" not in found
            and not names.INVISIBLE.search(found)):
        return found
    shown = "".join(c if c.isprintable() and c not in "~\ufffd/" else "_"
                    for c in names.INVISIBLE.sub("", normal)[:40])
    return f"{shown.lstrip('.')}~{hashlib.sha256(raw).hexdigest()[:12]}"


_FORMULA = re.compile(r"[\s\x00-\x1f]*[=+\-@]")


def defused(value):
    """A CSV cell that a spreadsheet shows as the text it is: a text that could be read as a
    formula (=, +, - or @ first, after any blanks or control characters) gets a quote first;
    a carriage return becomes a newline (the writer quotes a cell with a newline, and a bare
    CR would start a row of its own). Numbers, and texts that are numbers ("-1.5"), are kept."""
    if not isinstance(value, str):
        return value
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    try:
        float(value)
        return value
    except ValueError:
        return "'" + value if _FORMULA.match(value) else value


def csv_text(rows, lineterminator="\n") -> str:
    """`rows` (the first the header) as CSV text, every cell `defused`: every CSV the grader
    writes goes through here."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=lineterminator)
    writer.writerows([defused(v) for v in row] for row in rows)
    return buffer.getvalue()


def _cut(value: str, cap: int, keep_end: bool) -> str:
    if len(value) <= cap:
        return value
    cut = max(cap - len(TRUNCATED), 0)
    return "(truncated) … " + value[len(value) - cut:] if keep_end else value[:cut] + TRUNCATED


def _texts(values, count: int, cap: int) -> list:
    values = values if isinstance(values, list) else [] if values is None else [values]
    if len(values) <= count:
        return [clean_text(v, cap) for v in values]
    return [clean_text(v, cap) for v in values[:count - 1]] + [f"… and {len(values) - count + 1} more (truncated)"]


def _metric(value):
    if hasattr(value, "item") and getattr(value, "size", None) == 1:
        value = value.item()           # a NumPy scalar or one-element array: its number
    if isinstance(value, bool) or isinstance(value, int) and abs(value) < 2 ** 63:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return clean_text(value, CAPS["metric_text"])


def _task(task) -> dict:
    task = dict(task)
    task["message"] = clean_text(task.get("message", ""), CAPS["message"])
    task["status"] = clean_text(task.get("status", "error"), 20)
    metrics = task.get("metrics") if isinstance(task.get("metrics"), dict) else {}
    task["metrics"] = {clean_text(k, CAPS["metric_text"]): _metric(v)
                       for k, v in list(metrics.items())[:CAPS["metrics"]]}
    checks = task.get("checks") if isinstance(task.get("checks"), list) else []
    task["checks"] = [{"name": clean_text(c.get("name", ""), CAPS["text"]),
                       "status": clean_text(c.get("status", ""), 20),
                       "message": clean_text(c.get("message", ""), CAPS["check_message"])}
                      for c in checks[:CAPS["checks"]] if isinstance(c, dict)]
    return task


def _number(value):
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cell_error(error) -> dict:
    """An error of a notebook cell: `cell` (its number, counting every cell: for tools), `line`
    (in the cell, or None), `where` (the cell as the student finds it) and `error`."""
    error = error if isinstance(error, dict) else {"cell": "?", "error": error}
    cell = error.get("cell")
    return {"cell": cell if _number(cell) is not None else clean_text(cell, 20),
            "line": _number(error.get("line")),
            "where": clean_text(error.get("where") or f"cell {clean_text(cell, 20)}", CAPS["text"]),
            "error": clean_text(error.get("error", ""), CAPS["cell_error"])}


def cell_place(error: dict) -> str:
    """Where a (bounded) cell error happened, for the student: the cell, and the line in it."""
    return f"{error['where']}, line {error['line']}" if error["line"] else error["where"]


def grader_faults(results) -> list:
    """'student, assignment: task' of every task that a fault of the grader's own checks stopped
    (judge.GRADER_FAULT), counted apart from the students' errors."""
    return [f"{r.get('student')}, {r.get('assignment')}: {t.get('id')}" for r in results
            for t in r.get("tasks") or [] if isinstance(t, dict) and t.get("grader_fault") is True]


def bounded(result: dict) -> dict:
    """`result` with every text sanitized and every field within CAPS (idempotent)."""
    result = dict(result)
    for key, value in result.items():
        if isinstance(value, str) and key not in ("output", "message"):
            result[key] = clean_text(value, CAPS["text"])
    result["message"] = clean_text(result.get("message", ""), CAPS["message"])
    result["output"] = clean_text(result.get("output", ""), CAPS["output"], keep_end=True)
    result["flags"] = _texts(result.get("flags"), CAPS["flags"], CAPS["flag"])
    errors = result.get("cell_errors") if isinstance(result.get("cell_errors"), list) else []
    result["cell_errors"] = [_cell_error(e) for e in errors[:CAPS["cell_errors"]]]
    result["tasks"] = [_task(t) for t in result.get("tasks", []) if isinstance(t, dict)]
    result["questions"] = [dict(q, points=None, message=clean_text(q.get("message", ""), CAPS["message"]),
                                status=clean_text(q.get("status", "manual"), 20))
                           for q in result.get("questions", []) if isinstance(q, dict)]
    return result


def bounded_figures(figures) -> list:
    """At most CAPS["figures"] PNG images of at most CAPS["figure_bytes"] each, and
    CAPS["figures_bytes"] in all (the first ones are kept)."""
    kept, total = [], 0
    for figure in (f for f in figures if isinstance(f, bytes) and _png_ok(f)):
        total += len(figure)
        if len(kept) == CAPS["figures"] or total > CAPS["figures_bytes"]:
            break
        kept.append(figure)
    return kept


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write `path` so that readers see the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    data = data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, FILE_MODE)         # mkstemp's 0600 would hide it from the instructor's group
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def result_path(out: Path, student: str, assignment: str) -> Path:
    return Path(out) / "results" / student / f"{assignment}.json"


def feedback_path(out: Path, student: str, assignment: str) -> Path:
    return Path(out) / "feedback" / student / f"{assignment}.html"


def write_result(out: Path, result: dict) -> None:
    result = bounded(result)
    atomic_write(result_path(out, result["student"], result["assignment"]),
                 json.dumps(result, indent=2, sort_keys=True) + "\n")


def load_results(out: Path) -> list:
    results = []
    for path in sorted((Path(out) / "results").glob("*/*.json")):
        try:
            results.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return results


def write_grades_csv(out: Path, results: list, course, wide: bool = False) -> Path:
    """One row per student and assignment, a column per task of the course, then the flags, the
    status (graded, error, missing) and the message of a submission that could not be graded.
    `wide`: one row per student, one column per assignment (its score; empty when missing),
    in the order of course.toml, as gradebook imports expect."""
    rows = []
    results = sorted(results, key=lambda r: (r["student"], r["assignment"]))
    if wide:
        present = {r["assignment"] for r in results}
        columns = [a.id for a in course.assignments if a.id in present]
        scores = {(r["student"], r["assignment"]): r for r in results}
        rows.append(["student", *columns])
        for student in sorted({r["student"] for r in results}):
            cells = [scores.get((student, a)) for a in columns]
            rows.append([student, *["" if r is None or status(r) == "missing" else f"{r['score']:g}"
                                    for r in cells]])
    else:
        task_ids = [t.id for a in course.assignments for t in a.tasks]
        question_ids = [q.id for a in course.assignments for q in a.questions]
        rows.append(["student", "assignment", "score", "max_score", *LATE_COLUMNS, *task_ids,
                     "max_by_hand", *question_ids, "flags", "status", "message"])
        similar = names.lookalikes(r["student"] for r in results)
        for r in results:
            points = {t["id"]: t["points"] for t in r["tasks"]}
            pending = {q["id"]: q["status"] for q in r.get("questions", [])}
            rows.append([r["student"], r["assignment"], f"{r['score']:g}", f"{r['max_score']:g}",
                         *late_cells(r),
                         *[f"{points[t]:g}" if t in points else "" for t in task_ids],
                         f"{r.get('max_by_hand', 0):g}", *[pending.get(q, "") for q in question_ids],
                         "; ".join(with_lookalike(r, similar)), status(r), r.get("message", "")])
    path = Path(out) / "grades.csv"
    atomic_write(path, csv_text(rows))
    return path


def with_lookalike(result: dict, similar: dict) -> list:
    """The flags of `result`, with names.flag first where its student's name looks like another
    of `similar` (names.lookalikes of the class) and it does not say so already."""
    flags = list(result.get("flags", []))
    said = result["student"] in similar and names.flag(result["student"], similar[result["student"]])
    return [said] + flags if said and said not in flags else flags


LATE_COLUMNS = ("raw_score", "submitted_at", "submitted_source", "days_late", "late_penalty")


def late_cells(result: dict) -> list:
    """The LATE_COLUMNS of a result: its points before the late penalty, and (with a late
    policy and a due date, see autograder.grading.late) when it was submitted, by which source, how
    many days late and the points taken off; empty where nothing can be late."""
    late = result.get("late") or {}
    return [f"{result.get('raw_score', result['score']):g}", late.get("submitted_at", ""),
            late.get("source", ""), late.get("days_late", ""),
            f"{late['penalty']:g}" if "penalty" in late else ""]


def status(result: dict) -> str:
    """graded, error (the submission could not be graded: `message` says why) or missing."""
    return result.get("status", "graded")


def _png_ok(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) <= CAPS["figure_bytes"]


def feedback_html(result: dict, figures=()) -> str:
    result, figures = bounded(result), bounded_figures(figures)
    e = html.escape
    lookalike = any(f.startswith(names.MARK) for f in result["flags"])
    student = e(result["student"]) + (f" <span class='lookalike'>[{e(names.MARK)}]</span>" if lookalike else "")
    rows = "".join(
        f"<tr class='{e(t['status'])}'><td>{e(t['id'])}<div class='title'>{e(t.get('title', ''))}</div></td>"
        f"<td>{STATUS_MARK.get(t['status'], '')} {e(t['status'])}</td>"
        f"<td>{t['points']:g} / {t['max_points']:g}</td><td>{e(t['message'])}</td>"
        f"<td>{e(', '.join(f'{k} = {v:.4g}' if isinstance(v, float) else f'{k} = {v}' for k, v in t['metrics'].items()))}</td></tr>"
        for t in result["tasks"])
    rows += "".join(
        f"<tr class='{e(q['status'])}'><td>{e(q['id'])}<div class='title'>{e(q.get('title', ''))}</div></td>"
        f"<td>{STATUS_MARK.get(q['status'], '')} {e(q['status'])}</td>"
        f"<td>– / {q['max_points']:g}</td><td>{e(q['message'])}</td><td></td></tr>"
        for q in result["questions"])
    by_hand = result.get("max_by_hand") or 0
    by_hand = (f" <span id='by-hand'>(and the questions' {by_hand:g} point{'' if by_hand == 1 else 's'}, "
               f"{BY_HAND})</span>" if by_hand else "")
    flags = "".join(f"<li>{e(f)}</li>" for f in result.get("flags", []))
    errors = "".join(f"<li>{e(cell_place(c))}: <code>{e(c['error'])}</code></li>"
                     for c in result.get("cell_errors", []))
    images = "".join(f"<figure><img alt='figure {i + 1}' src='data:image/png;base64,"
                     f"{base64.b64encode(png).decode()}'><figcaption>Figure {i + 1}</figcaption></figure>"
                     for i, png in enumerate(figures))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{e(result.get('title') or result['assignment'])}: feedback for {e(result['student'])}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border: 1px solid #ccc; padding: .4em .6em; vertical-align: top; text-align: left; }}
td, li, h1, p {{ overflow-wrap: anywhere; }} code {{ white-space: pre-wrap; }}
.lookalike {{ color: #a4161a; font-weight: bold; }}
tr.passed td:nth-child(2) {{ color: #17692d; }} tr.failed td:nth-child(2), tr.error td:nth-child(2),
tr.timeout td:nth-child(2) {{ color: #a4161a; }}
.title {{ color: #666; font-size: .85em; }} img {{ max-width: 100%; border: 1px solid #ddd; }}
</style></head><body>
<h1>{e(result.get('title') or result['assignment'])}</h1>
<p>Student: <b id="student">{student}</b> &mdash; score <b id="score">{result['score']:g} / {result['max_score']:g}</b>{by_hand}</p>
{f"<p id='late'>{e(late.describe(result))}</p>" if result.get('late') else ""}
{f"<p id='message'><b>{e(result['message'])}</b></p>" if result['message'] else ""}
<table><thead><tr><th>task</th><th>verdict</th><th>points</th><th>message</th><th>measured</th></tr></thead>
<tbody>{rows}</tbody></table>
<p class='title'>{e(LEGEND)}</p>
{f"<h2>Flags</h2><ul id='flags'>{flags}</ul>" if flags else ""}
{f"<h2>Errors while running your notebook</h2><ul>{errors}</ul>" if errors else ""}
{f"<h2>Your plots</h2>{images}" if images else ""}
</body></html>
"""


def write_feedback(out: Path, result: dict, figures=()) -> Path:
    result = bounded(result)
    path = feedback_path(out, result["student"], result["assignment"])
    atomic_write(path, feedback_html(result, figures))
    return path


def table(results: list) -> str:
    """A plain-text gradebook: one line per student and assignment."""
    if not results:
        return "(no results)"
    similar = names.lookalikes(r["student"] for r in results)
    shown = {r["student"]: names.marked(r["student"], similar) for r in results}
    width = max(len("student"), *map(len, shown.values()))
    lines = [f"{'student':<{width}}  {'assignment':<26} {'score':>11}  tasks"]
    for r in sorted(results, key=lambda r: (r["student"], r["assignment"])):
        marks = " ".join(f"{STATUS_MARK.get(t['status'], '?')}{t['id']}"
                         for t in [*r["tasks"], *r.get("questions", [])])
        if status(r) != "graded":      # say why, instead of a row of ⚠
            marks = f"{STATUS_MARK.get(status(r), '⚠')} {clean_text(r.get('message', ''), 240)}"
        if (r.get("late") or {}).get("days_late"):
            penalty = r["late"]["penalty"]
            marks += f"  (late: {r['late']['days_late']} d" + (f", -{penalty:g})" if penalty else ")")
        lines.append(f"{shown[r['student']]:<{width}}  {r['assignment']:<26} "
                     f"{r['score']:>5g}/{r['max_score']:<5g}  {marks}")
    return "\n".join(lines + ["", LEGEND])
