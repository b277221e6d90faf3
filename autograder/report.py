"""Write what grading found: result JSON, the grades CSV, and HTML feedback. Atomically."""
from __future__ import annotations

import base64
import csv
import html
import io
import json
import os
import tempfile
from pathlib import Path

STATUS_MARK = {"passed": "✔", "failed": "✘", "error": "⚠", "timeout": "⌛"}


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write `path` so that readers see the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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


def write_grades_csv(out: Path, results: list, course) -> Path:
    """One row per student and assignment, a column per task of the course."""
    task_ids = [t.id for a in course.assignments for t in a.tasks]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "assignment", "score", "max_score", *task_ids, "flags"])
    for r in sorted(results, key=lambda r: (r["student"], r["assignment"])):
        points = {t["id"]: t["points"] for t in r["tasks"]}
        writer.writerow([r["student"], r["assignment"], f"{r['score']:g}", f"{r['max_score']:g}",
                         *[f"{points[t]:g}" if t in points else "" for t in task_ids],
                         "; ".join(r.get("flags", []))])
    path = Path(out) / "grades.csv"
    atomic_write(path, buffer.getvalue())
    return path


def _png_ok(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < 8 * 2 ** 20


def feedback_html(result: dict, figures=()) -> str:
    e = html.escape
    rows = "".join(
        f"<tr class='{e(t['status'])}'><td>{e(t['id'])}<div class='title'>{e(t.get('title', ''))}</div></td>"
        f"<td>{STATUS_MARK.get(t['status'], '')} {e(t['status'])}</td>"
        f"<td>{t['points']:g} / {t['max_points']:g}</td><td>{e(t['message'])}</td>"
        f"<td>{e(', '.join(f'{k} = {v:.4g}' if isinstance(v, float) else f'{k} = {v}' for k, v in t['metrics'].items()))}</td></tr>"
        for t in result["tasks"])
    flags = "".join(f"<li>{e(f)}</li>" for f in result.get("flags", []))
    errors = "".join(f"<li>cell {e(str(c['cell']))}: <code>{e(c['error'])}</code></li>"
                     for c in result.get("cell_errors", []))
    images = "".join(f"<figure><img alt='figure {i + 1}' src='data:image/png;base64,"
                     f"{base64.b64encode(png).decode()}'><figcaption>Figure {i + 1}</figcaption></figure>"
                     for i, png in enumerate(p for p in figures if _png_ok(p)))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{e(result['assignment'])}: feedback for {e(result['student'])}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border: 1px solid #ccc; padding: .4em .6em; vertical-align: top; text-align: left; }}
tr.passed td:nth-child(2) {{ color: #17692d; }} tr.failed td:nth-child(2), tr.error td:nth-child(2),
tr.timeout td:nth-child(2) {{ color: #a4161a; }}
.title {{ color: #666; font-size: .85em; }} img {{ max-width: 100%; border: 1px solid #ddd; }}
</style></head><body>
<h1>{e(result['assignment'])}</h1>
<p>Student: <b>{e(result['student'])}</b> &mdash; score <b id="score">{result['score']:g} / {result['max_score']:g}</b></p>
<table><thead><tr><th>task</th><th>verdict</th><th>points</th><th>message</th><th>measured</th></tr></thead>
<tbody>{rows}</tbody></table>
{f"<h2>Flags</h2><ul id='flags'>{flags}</ul>" if flags else ""}
{f"<h2>Errors while running your notebook</h2><ul>{errors}</ul>" if errors else ""}
{f"<h2>Your plots</h2>{images}" if images else ""}
</body></html>
"""


def write_feedback(out: Path, result: dict, figures=()) -> Path:
    path = feedback_path(out, result["student"], result["assignment"])
    atomic_write(path, feedback_html(result, figures))
    return path


def table(results: list) -> str:
    """A plain-text gradebook: one line per student and assignment."""
    if not results:
        return "(no results)"
    width = max(len("student"), *(len(r["student"]) for r in results))
    lines = [f"{'student':<{width}}  {'assignment':<26} {'score':>11}  tasks"]
    for r in sorted(results, key=lambda r: (r["student"], r["assignment"])):
        marks = " ".join(f"{STATUS_MARK.get(t['status'], '?')}{t['id']}" for t in r["tasks"])
        lines.append(f"{r['student']:<{width}}  {r['assignment']:<26} "
                     f"{r['score']:>5g}/{r['max_score']:<5g}  {marks}")
    return "\n".join(lines)
