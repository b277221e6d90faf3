"""`nbgrader autograde` that grades in the sandbox, as `python -m autograder grade` does.

nbgrader's own autograde runs the notebook in a Jupyter kernel and scores each grade cell by its
output: an error is 0 points, no error full points. Here a grade cell is `check("<task id>")`,
and in the student's kernel `check` is whatever the student's earlier cells made it: a stub that
starts with `check = lambda *a: None` (or patches autograder.grading.selfcheck) would get full marks.

So the course that `python -m autograder nbgrader-course` writes replaces nbgrader's Execute
preprocessor with `SandboxGrade` (nbgrader_config.py, `c.Autograde.autograde_preprocessors`).
For each submitted notebook it calls the grader's own `grade_one` on the file in `submitted/`:
the notebook runs in the sandbox, the checks run here with the grading seed of the nbgrader
student id. Nothing runs in a kernel. It then writes each task's verdict into its grade cell,
as nbgrader's SaveAutoGrades reads it (nbgrader.utils.determine_grade):

    task passed (all its points)     the report on stdout                    -> full points
    some of its points               the report, then the points as result   -> partial credit
    no points                        the report, then an error (CheckFailed) -> 0

so the gradebook gets, task by task, the points of `grade`. Errors of the notebook's own cells
become error outputs of those cells (they score nothing in nbgrader); the flags go into the
first grade cell's report. Last, the notebook is made inert (autograder.platforms.inert): what
nbgrader stores, its feedback pages and formgrader show no script, handler or unsafe link of
the student's markdown, attachments or outputs.
"""
from __future__ import annotations

import math
from pathlib import Path

from nbformat.v4 import new_code_cell, new_output
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from ..grading import feedback
from .inert import inert

MAX_REPORT = 20_000   # characters of a grade cell's report (the grader caps its messages too)


def autograde_preprocessors() -> list:
    """nbgrader's autograde preprocessors, with Execute (the kernel) replaced by SandboxGrade."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute
    default = Autograde.autograde_preprocessors.default()
    if Execute not in default:
        raise RuntimeError("this nbgrader's autograde has no Execute preprocessor to replace; "
                           "autograder.platforms.nbgrader_plugin needs updating for it")
    return [SandboxGrade if p is Execute else p for p in default]


def task_report(task: dict) -> str:
    """The verdict of one graded task, in the self-check's words (autograder.grading.selfcheck)."""
    checks = task.get("checks") or []
    passed = sum(c.get("status") == "passed" for c in checks)
    points = f"{task['points']:g} of {task['max_points']:g} point{'' if task['max_points'] == 1 else 's'}"
    if task["status"] == "passed" and task["points"] >= task["max_points"]:
        return f"✔ {task['id']}: {feedback.all_passed(len(checks))} ({points})"
    head = (f"✘ {task['id']}: {feedback.some_passed(passed, len(checks))} ({points})" if checks
            else f"✘ {task['id']}: {task['status']} ({points})")
    lines = [head] + feedback.failed_lines(checks)
    if not checks and task.get("message"):
        lines.append(f"  - {task['message']}")
    return "\n".join(lines)


def _verdict_outputs(task: dict, notes: str = "") -> list:
    """The outputs of a grade cell that make nbgrader score it `task['points']`."""
    text = task_report(task)
    if len(text) > MAX_REPORT:
        text = text[:MAX_REPORT] + " … (truncated)"
    outputs = [new_output("stream", name="stdout", text=notes + text + "\n")]
    points, most = float(task["points"]), float(task["max_points"])
    if not math.isfinite(points) or points <= 0:
        first = text.splitlines()[0]
        outputs.append(new_output("error", ename="CheckFailed", evalue=first,
                                  traceback=[f"CheckFailed: {first} (graded in the sandbox; the report is above)"]))
    elif points < most:
        outputs.append(new_output("execute_result", data={"text/plain": repr(points)},
                                  execution_count=None))
    return outputs


def _not_graded(grade_id: str) -> list:
    text = f"✘ {grade_id}: not a task of this assignment in course.toml; no points"
    return [new_output("stream", name="stdout", text=text + "\n"),
            new_output("error", ename="CheckFailed", evalue=text, traceback=[text])]


def _cell_ids(path: Path) -> dict:
    """{cell number (from 1, as the grader counts): cell id} of the submitted notebook."""
    from ..course.notebook import NotebookError, read_notebook
    try:
        cells = read_notebook(path)["cells"]
    except (NotebookError, KeyError, TypeError):
        return {}
    return {n: c.get("id") for n, c in enumerate(cells, start=1)
            if isinstance(c, dict) and isinstance(c.get("id"), str)}


def apply_result(nb, result: dict, cell_ids=None, log=None):
    """Write `result` (of autograder.grading.grade.grade_one) into the notebook nbgrader is grading:
    grade cells get their task's verdict, cells that raised while the sandbox ran them get the
    error. Returns the notebook."""
    tasks = {t["id"]: t for t in result["tasks"]}
    by_id = {c.get("id"): c for c in nb.cells if c.get("id")}
    unplaced = []
    for error in result.get("cell_errors", []):
        cell = by_id.get((cell_ids or {}).get(error.get("cell")))
        if cell is not None and cell.cell_type == "code" and not utils.is_grade(cell):
            name, _, value = str(error["error"]).partition(": ")
            if not name.isidentifier():
                name, value = "Error", str(error["error"])
            where = f"line {error['line']}" if error.get("line") else "this cell"
            cell.outputs = list(cell.get("outputs", [])) + [new_output(
                "error", ename=name, evalue=value,
                traceback=[f"{error['error']} ({where}, when the grader ran the notebook)"])]
        else:
            unplaced.append(f"{error.get('where') or 'cell ' + str(error.get('cell'))}: {error.get('error')}")
    notes = "".join(f"flag: {f}\n" for f in result.get("flags", []))
    notes += "".join(f"error while running the notebook, {e}\n" for e in unplaced)
    seen = set()
    for cell in nb.cells:
        if not (utils.is_grade(cell) and cell.cell_type == "code"):
            continue
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        task = tasks.get(grade_id)
        cell.execution_count = None
        if task is None:
            cell.outputs = _not_graded(grade_id)
            continue
        seen.add(grade_id)
        cell.outputs = _verdict_outputs(task, notes)
        notes = ""
    for task_id in [t for t in tasks if t not in seen]:
        # a grade cell the student deleted, or whose metadata says it is no longer one: `grade`
        # grades the task all the same, so its verdict goes into that cell made a grade cell
        # again, or into one added at the end (nbgrader's own add_missing_cells fails when the
        # cell before it in the source is a read-only cell)
        meta = {"grade": True, "solution": False, "locked": True, "task": False,
                "grade_id": task_id, "points": tasks[task_id]["max_points"], "schema_version": 3}
        cell = next((c for c in nb.cells if c.cell_type == "code"
                     and c.metadata.get("nbgrader", {}).get("grade_id") == task_id), None)
        if cell is None:
            cell = new_code_cell(f"# This grade cell was missing from the submission; added back by "
                                 f"the autograder.\ncheck({task_id!r})",
                                 metadata={"deletable": False, "editable": False})
            nb.cells.append(cell)
        cell.metadata["nbgrader"] = {**cell.metadata.get("nbgrader", {}), **meta}
        if log is not None:
            log.warning("%s/%s: the grade cell of %s was missing; graded all the same",
                        result["student"], result["assignment"], task_id)
        cell.outputs = _verdict_outputs(tasks[task_id], notes)
        notes = ""
    return nb


def _course_directory(preprocessor):
    """The running nbgrader command's CourseDirectory (the preprocessor's exporter's parent)."""
    parent = preprocessor.parent
    while parent is not None:
        if getattr(parent, "coursedir", None) is not None:
            return parent.coursedir
        parent = getattr(parent, "parent", None)
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(parent=preprocessor)


class SandboxGrade(NbGraderPreprocessor):
    """In `nbgrader autograde`, instead of Execute: grade the submitted notebook with
    autograder.grading.grade.grade_one (sandbox, hidden seed, checks in the grader) and write the
    verdicts into the grade cells for SaveAutoGrades."""

    course_file = Unicode("", help="The course.toml to grade with (default: the repository's).").tag(config=True)

    def preprocess(self, nb, resources):
        from ..grading.grade import Submission, grade_one
        info = resources["nbgrader"]
        student, assignment, notebook = info["student"], info["assignment"], info["notebook"]
        coursedir = _course_directory(self)
        path = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment),
                    f"{notebook}.ipynb")
        self.log.info("Grading %s in the sandbox (student %s)", path, student)
        result, _figures = grade_one(Submission(path, student, assignment),
                                     course_path=self.course_file or None,
                                     protect=[coursedir.root])
        self.log.info("%s/%s: %g of %g points (%s)", student, assignment, result["score"],
                      result["max_score"], ", ".join(f"{t['id']} {t['points']:g}" for t in result["tasks"]))
        for flag in result.get("flags", []):
            self.log.warning("%s/%s: %s", student, assignment, flag)
        apply_result(nb, result, _cell_ids(path), self.log)
        inert(nb)
        nb.metadata["autograder"] = {k: result.get(k) for k in (
            "student", "assignment", "score", "max_score", "flags", "grader", "notebook_sha256")}
        resources.setdefault("autograder", {})[notebook] = result
        return nb, resources

    def preprocess_cell(self, cell, resources, index):   # everything is done in preprocess
        return cell, resources
