"""The class at a glance: `python -m autograder report graded/`.

Reads the result JSON that `grade` wrote (graded/results/<student>/<assignment>.json) and writes
two files beside them, with the same numbers:

  graded/class-report.html   per assignment the score distribution (a plot), per task the pass
                             rate, its most common failure messages and the known mistakes its
                             feedback named, each ranked; per question (graded by hand, never
                             counted as 0) its points and the answers to grade; the students who
                             have not submitted;
                             the slowest notebooks; every flag raised
  graded/class-report.csv    the same, one number or message a row:
                             section, assignment, task, student, item, value

`summarize` computes everything (a pure function of the results and the course); `report_html`
and `report_rows` only lay it out. Everything a result holds may have come from a submission
(messages, flags, names): it is escaped in the page and defused in the CSV.
"""
from __future__ import annotations

import base64
import html
import io
import re
import statistics
from collections import Counter
from pathlib import Path

from ..grading import checking, names, report
from ..grading.grade import Submission, on_the_roster, ungraded
from .. import references
from ..references.derived import DERIVED_WHY

HTML_NAME, CSV_NAME = "class-report.html", "class-report.csv"
TOP_FAILURES = 5        # failure messages shown per task, most common first
SLOWEST = 10            # notebooks listed as the slowest
EXAMPLE_CAP = 400       # characters of the example shown for a failure message
CSV_FIELDS = ["section", "assignment", "task", "student", "item", "value"]

# A failure message with its numbers taken out: the same mistake on the different hidden inputs
# of each student reads the same ("expected 0.41, received 0.2" and "expected 1.3, received 0.7").
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_RUN_OF_NUMBERS = re.compile(r"#(?:[,\s]+#)+")


def message_pattern(message: str) -> str:
    """`message` with every number as # and every list of numbers as #…, whitespace collapsed."""
    text = _NUMBER.sub("#", message)
    return " ".join(_RUN_OF_NUMBERS.sub("#…", text).split())


def _submitted(result) -> bool:
    return report.status(result) != "missing"


def named_mistakes(message: str, known: list) -> list:
    """The known mistakes (of `known`, the notebook's catalogue: a message's own text, which may
    quote a submission, names nothing else) that a failure message names, as
    `checking.misconception` words it, then those derived from the reference's code that it
    names (each counted by its mutation: its why, which quotes no input)."""
    return [why for why in known
            if checking.NAMES + why in message or checking.OR_NAMES + why in message] + \
        [DERIVED_WHY + why.rstrip(". ") for why in _DERIVED.findall(message)]


# a derived mistake as `checking.misconception` names it: its why runs to the next ';' that is
# not inside a `quoted` piece of code, or to the end of the message
_DERIVED = re.compile("(?:" + re.escape(checking.NAMES) + "|" + re.escape(checking.OR_NAMES) +
                      ")" + re.escape(DERIVED_WHY) + r"((?:[^`;]|`[^`]*`)*)")


def _task_summary(task, results, known=()) -> dict:
    """Pass rate, ranked failures and ranked known mistakes (of the catalogue `known`) of one
    task over the submitted notebooks (`results`)."""
    rows = [t for r in results for t in r["tasks"] if t["id"] == task.id]
    passed = sum(t["status"] == "passed" for t in rows)
    failures, example, mistakes = Counter(), {}, Counter()
    for t in rows:
        if t["status"] != "passed":
            key = message_pattern(t["message"]) or f"({t['status']}, no message)"
            failures[key] += 1
            example.setdefault(key, report.clean_text(t["message"] or key, EXAMPLE_CAP))
            mistakes.update(named_mistakes(t["message"], known))
    return {"id": task.id, "title": task.title, "max_points": task.points,
            "submitted": len(rows), "passed": passed,
            "pass_rate": passed / len(rows) if rows else None,
            "mean_points": statistics.fmean(t["points"] for t in rows) if rows else None,
            "statuses": dict(Counter(t["status"] for t in rows)),
            "failures": [{"pattern": key, "count": count, "example": example[key]}
                         for key, count in failures.most_common(TOP_FAILURES)],
            "failure_kinds": len(failures),
            "misconceptions": [{"why": why, "count": count} for why, count in mistakes.most_common()]}


def _question_summary(question, results) -> dict:
    """A question graded by hand: its points, and how many submitted notebooks have an answer
    to grade (status `manual`); `grade` scores none of them."""
    rows = [q for r in results for q in r.get("questions", []) if q["id"] == question.id]
    return {"id": question.id, "title": question.title, "max_points": question.points,
            "to_grade": sum(q["status"] == "manual" for q in rows)}


def summarize(results: list, course) -> dict:
    """Every number of the report. Students are those of any result (the class as graded); an
    assignment is reported when at least one of them has a result for it."""
    students = sorted({r["student"] for r in results})
    similar = names.lookalikes(students)
    known = {a.id for a in course.assignments}
    assignments = []
    for assignment in course.assignments:
        rows = [r for r in results if r["assignment"] == assignment.id]
        if not rows:
            continue
        submitted = [r for r in rows if _submitted(r)]
        known_mistakes = [m.why for m in references.catalogue(assignment.notebook)]
        has_row = {r["student"] for r in rows}
        scores = [r["score"] for r in submitted]
        assignments.append({
            "id": assignment.id, "title": assignment.title, "max_score": assignment.max_score,
            "optional": assignment.optional,
            "time_limit": assignment.limits.time_limit,
            "scores": scores, "submitted": len(submitted),
            "mean": statistics.fmean(scores) if scores else None,
            "median": statistics.median(scores) if scores else None,
            "missing": sorted({r["student"] for r in rows if not _submitted(r)}
                              | (set(students) - has_row)),
            "not_graded": sorted((r["student"], r.get("message", "")) for r in submitted
                                 if report.status(r) == "error"),
            "tasks": [_task_summary(task, submitted, known_mistakes) for task in assignment.tasks],
            "max_by_hand": assignment.hand_points,
            "questions": [_question_summary(q, submitted) for q in assignment.questions]})
    limits = {a.id: a.limits.time_limit for a in course.assignments}
    timed = [r for r in results if isinstance(r.get("seconds"), (int, float))]
    slowest = [{"student": r["student"], "assignment": r["assignment"], "seconds": r["seconds"],
                "time_limit": limits.get(r["assignment"])}
               for r in sorted(timed, key=lambda r: (-r["seconds"], r["student"]))[:SLOWEST]]
    flags = [{"student": r["student"], "assignment": r["assignment"], "flag": flag}
             for r in sorted(results, key=lambda r: (r["assignment"], r["student"]))
             for flag in report.with_lookalike(r, similar)]
    unknown = sorted((r["student"], r["assignment"], r.get("message", ""))
                     for r in results if r["assignment"] not in known)
    return {"students": students, "assignments": assignments, "slowest": slowest,
            "flags": flags, "unknown": unknown, "lookalikes": similar}


# -- the plot ----------------------------------------------------------------------------------
def score_histogram(scores: list, max_score: float, title: str) -> bytes:
    """A PNG: how many submissions got each score (one bar per point up to 20 points, else 20
    bins), the mean marked. matplotlib's object API: no pyplot, no global backend state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    figure = Figure(figsize=(5.2, 2.6), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    step = 1.0 if max_score <= 20 else max_score / 20
    edges = [i * step - step / 2 for i in range(int(round(max_score / step)) + 2)]
    axes.hist(scores, bins=edges, color="#4c72b0", edgecolor="white")
    if scores:
        mean = statistics.fmean(scores)
        axes.axvline(mean, color="#c44e52", linestyle="--", label=f"mean {mean:.3g}")
        axes.legend(loc="upper left", frameon=False, fontsize=8)
    axes.set_xlim(edges[0], edges[-1])
    axes.set_xlabel(f"score (of {max_score:g})")
    axes.set_ylabel("submissions")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.set_title(title, fontsize=10)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


# -- the page ----------------------------------------------------------------------------------
def _percent(value) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


def _failures_html(task, e) -> str:
    if not task["failures"]:
        return ""
    items = "".join(f"<li><span class='count'>{f['count']}×</span> {e(f['example'])}</li>"
                    for f in task["failures"])
    more = task["failure_kinds"] - len(task["failures"])
    others = f"<p class='more'>and {more} other message(s)</p>" if more > 0 else ""
    return f"<ol class='failures'>{items}</ol>{others}"


def _misconceptions_html(task, e) -> str:
    items = "".join(f"<li><span class='count'>{m['count']}×</span> {e(m['why'])}</li>"
                    for m in task["misconceptions"])
    return f"<ol class='misconceptions'>{items}</ol>" if items else ""


def _assignment_html(a, e) -> str:     # `e`: escape a text, and mark a name (report_html)
    png = score_histogram(a["scores"], a["max_score"], f"{a['id']}: {a['submitted']} submitted")
    rows = "".join(
        f"<tr><td>{e(t['id'])}<div class='title'>{e(t['title'])}</div></td>"
        f"<td class='rate'>{_percent(t['pass_rate'])}</td><td>{t['passed']} / {t['submitted']}</td>"
        f"<td>{_failures_html(t, e)}</td><td>{_misconceptions_html(t, e)}</td></tr>"
        for t in a["tasks"])
    questions = "".join(
        f"<tr><td>{e(q['id'])}<div class='title'>{e(q['title'])}</div></td>"
        f"<td class='rate'>{report.STATUS_MARK['manual']} {report.BY_HAND}</td>"
        f"<td>{q['to_grade']} to grade, {q['max_points']:g} point{'' if q['max_points'] == 1 else 's'}"
        f"</td></tr>" for q in a["questions"])
    if questions:
        questions = ("<table class='questions'><thead><tr><th>question</th><th>graded</th>"
                     f"<th>answers</th></tr></thead><tbody>{questions}</tbody></table>")
    by_hand = (f" The questions' {a['max_by_hand']:g} points are {report.BY_HAND} (nbgrader's "
               f"formgrader), in none of these scores." if a["max_by_hand"] else "")
    missing = ", ".join(map(e.name, a["missing"])) or "none"
    errors = "".join(f"<li>{e.name(s)}: {e(m)}</li>" for s, m in a["not_graded"])
    mean = "–" if a["mean"] is None else f"{a['mean']:.3g}"
    median = "–" if a["median"] is None else f"{a['median']:g}"
    return f"""<section class="assignment" id="{e(a['id'])}">
<h2>{e(a['id'])} — {e(a['title'])}{" (optional)" if a["optional"] else ""}</h2>
<div class="overview"><img class="histogram" alt="score distribution of {e(a['id'])}"
 src="data:image/png;base64,{base64.b64encode(png).decode()}">
<p>{a['submitted']} submitted, mean <b>{mean}</b>, median <b>{median}</b> of {a['max_score']:g}.{by_hand}<br>
<span class="missing">{"Optional, not taken" if a["optional"] else "Not submitted"} ({len(a['missing'])}): {missing}</span></p></div>
{f"<p>Submitted but not graded:</p><ul class='not-graded'>{errors}</ul>" if errors else ""}
<table class="tasks"><thead><tr><th>task</th><th>pass rate</th><th>passed</th>
<th>most common failure messages</th><th>known mistakes named</th></tr></thead><tbody>{rows}</tbody></table>
{questions}
</section>"""


class _Escape:
    """html.escape, and `name`: a student's name escaped, marked when it has a look-alike."""

    def __init__(self, similar):
        self.similar = similar

    def __call__(self, text):
        return html.escape(text)

    def name(self, student):
        return html.escape(names.marked(student, self.similar))


def report_html(summary: dict) -> str:
    e = _Escape(summary["lookalikes"])
    sections = "".join(_assignment_html(a, e) for a in summary["assignments"])
    slowest = "".join(
        f"<tr><td>{e.name(s['student'])}</td><td>{e(s['assignment'])}</td><td>{s['seconds']:.1f} s</td>"
        f"<td>{'' if not s['time_limit'] else _percent(s['seconds'] / s['time_limit'])}</td></tr>"
        for s in summary["slowest"])
    flags = "".join(f"<tr><td>{e.name(f['student'])}</td><td>{e(f['assignment'])}</td>"
                    f"<td>{e(f['flag'])}</td></tr>" for f in summary["flags"])
    unknown = "".join(f"<li>{e.name(s)}: {e(m)}</li>" for s, _, m in summary["unknown"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>The class at a glance</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }}
table {{ border-collapse: collapse; width: 100%; margin: .5em 0 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: .35em .6em; vertical-align: top; text-align: left; }}
td, li, p {{ overflow-wrap: anywhere; }}
.title, .more {{ color: #666; font-size: .85em; }} .count {{ font-weight: bold; }}
.overview {{ display: flex; gap: 1.5em; align-items: center; }} .rate {{ white-space: nowrap; }}
ol.failures, ol.misconceptions {{ margin: 0; padding-left: 1.4em; }}
ol.failures li, ol.misconceptions li {{ margin-bottom: .25em; }}
section.assignment {{ border-top: 2px solid #4c72b0; margin-top: 1.5em; }}
</style></head><body>
<h1>The class at a glance</h1>
<p>{len(summary['students'])} students, {len(summary['assignments'])} assignment(s) graded.
Pass rates count the submitted notebooks; failure messages are grouped with their numbers left
out (each student has other hidden inputs) and shown by one example each; a known mistake is
counted when a student's feedback named it (docs/INSTRUCTORS.md, Known mistakes).</p>
{sections}
<h2>Slowest notebooks</h2>
<p class="title">Wall time of running the notebook and its checks, and its share of the
assignment's time limit.</p>
<table id="slowest"><thead><tr><th>student</th><th>assignment</th><th>time</th>
<th>of the limit</th></tr></thead><tbody>{slowest}</tbody></table>
<h2>Flags ({len(summary['flags'])})</h2>
<table id="flags"><thead><tr><th>student</th><th>assignment</th><th>flag</th></tr></thead>
<tbody>{flags}</tbody></table>
{f"<h2>Notebooks of no known assignment</h2><ul id='unknown'>{unknown}</ul>" if unknown else ""}
</body></html>
"""


# -- the CSV -----------------------------------------------------------------------------------
def report_rows(summary: dict) -> list:
    """The report's numbers and messages, one a row: (section, assignment, task, student, item,
    value). Sections: score, histogram, task, failure, misconception, question (graded by
    hand), missing (not_taken for an optional assignment), not_graded, slowest, flag."""
    rows = []
    for a in summary["assignments"]:
        aid = a["id"]
        for item in ("submitted", "mean", "median", "max_score", "max_by_hand"):
            rows.append(("score", aid, "", "", item, a[item]))
        rows += [("histogram", aid, "", "", f"{score:g}", count)
                 for score, count in sorted(Counter(a["scores"]).items())]
        for t in a["tasks"]:
            rows += [("task", aid, t["id"], "", item, t[item])
                     for item in ("submitted", "passed", "pass_rate", "mean_points", "max_points")]
            rows += [("failure", aid, t["id"], "", f["example"], f["count"]) for f in t["failures"]]
            rows += [("misconception", aid, t["id"], "", m["why"], m["count"])
                     for m in t["misconceptions"]]
        for q in a["questions"]:
            rows += [("question", aid, q["id"], "", item, q[item]) for item in ("max_points", "to_grade")]
        rows += [("not_taken" if a["optional"] else "missing", aid, "", s,
                  "optional, not submitted" if a["optional"] else "not submitted", "")
                 for s in a["missing"]]
        rows += [("not_graded", aid, "", s, m, "") for s, m in a["not_graded"]]
    rows += [("slowest", s["assignment"], "", s["student"], "seconds", s["seconds"])
             for s in summary["slowest"]]
    rows += [("flag", f["assignment"], "", f["student"], f["flag"], "") for f in summary["flags"]]
    rows += [("not_graded", a, "", s, m, "") for s, a, m in summary["unknown"]]
    similar = summary["lookalikes"]
    return [tuple("" if v is None else round(v, 6) if isinstance(v, float) else v for v in
                  (*row[:3], names.marked(row[3], similar) if row[3] else "", *row[4:]))
            for row in rows]


def report_csv(summary: dict) -> str:
    return report.csv_text([CSV_FIELDS, *report_rows(summary)])


def write_report(graded: Path, course, roster=None) -> tuple:
    """Write class-report.html and class-report.csv into `graded` (the folder `grade --out`
    wrote); returns their paths. `roster` (course.roster.read_roster): its students who handed
    in nothing are counted as missing."""
    graded = Path(graded)
    results = report.load_results(graded)
    if not results:
        raise FileNotFoundError(f"{graded}: no results in {graded / 'results'}/ (run "
                                "`python -m autograder grade ... --out` on this folder first)")
    results += [ungraded(s, course) for s in on_the_roster(
        [Submission(None, r["student"], r["assignment"]) for r in results], roster or [])]
    summary = summarize(results, course)
    html_path, csv_path = graded / HTML_NAME, graded / CSV_NAME
    report.atomic_write(html_path, report_html(summary))
    report.atomic_write(csv_path, report_csv(summary))
    return html_path, csv_path
