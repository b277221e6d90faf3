"""Grade submissions: find them, grade each in its own sandbox, write the reports.

    load course -> read & scan notebook -> run it in a sandbox -> pytest checks -> report

`grade_one` is pure with respect to the output directory (it returns the result); only
`grade_all`, in the main process, writes, so results are written once and atomically, and an
interrupted run resumes with what is missing.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from pathlib import Path

from . import executors, report
from .course import ROOT, CourseError, load_course
from .judge import run_checks
from .notebook import (NotebookError, code_cells, grade_ids, read_notebook, scan_imports,
                       source_of)
from .sandbox import ProbeError, Sandbox

GRADER_VERSION = "1"


class Submission:
    """A notebook to grade: where it is, whose it is, for which assignment."""

    def __init__(self, path, student, assignment_id):
        self.path, self.student, self.assignment_id = Path(path), student, assignment_id

    def __repr__(self):
        return f"Submission({self.student!r}, {self.assignment_id!r}, {str(self.path)!r})"


def _identify(path: Path, course, assignment_hint=None) -> Submission:
    parts = path.resolve().parts
    ids = [a.id for a in course.assignments]
    if "submitted" in parts:                        # nbgrader: submitted/<student>/<assignment>/x.ipynb
        i = len(parts) - 1 - parts[::-1].index("submitted")
        if len(parts) > i + 3 and parts[i + 2] in ids:
            return Submission(path, parts[i + 1], parts[i + 2])
    assignment = assignment_hint
    if assignment is None:
        try:
            notebook = read_notebook(path)
            meta = notebook.get("metadata", {}).get("autograder", {})
            assignment = meta.get("assignment") if isinstance(meta, dict) else None
            if assignment not in ids:
                found = grade_ids(notebook)
                assignment = next((a.id for a in course.assignments
                                   if {t.id for t in a.tasks} & found), None)
        except NotebookError:
            assignment = None
    if assignment is None:   # from names: the file or its folder
        assignment = next((a.id for a in course.assignments
                           for name in (path.parent.name, path.stem)
                           if name == a.id or a.notebook in name), None)
    if assignment is None:
        raise CourseError(f"{path}: cannot tell which assignment this is; pass --assignment")
    stem = path.stem
    for a in course.assignments:
        for suffix in (a.id, a.notebook):
            stem = stem.replace(f"_{suffix}", "").replace(f"-{suffix}", "")
    return Submission(path, stem, assignment)


def discover(paths, course, assignment=None) -> list:
    """Submissions under `paths` (notebooks or folders, e.g. nbgrader's submitted/)."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            notebooks = sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        elif path.exists():
            notebooks = [path]
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
        found += [_identify(p, course, assignment) for p in notebooks]
    return found


def grading_seed(course, student, assignment_id) -> int:
    if course.seed_policy == "fixed":
        return course.grading_seed
    secret = os.environ.get("AUTOGRADER_SECRET", str(course.grading_seed))
    digest = hashlib.sha256(f"{secret}:{student}:{assignment_id}".encode()).hexdigest()
    return int(digest[:12], 16)


def _all_tasks(assignment, status, message):
    return [{"id": t.id, "title": t.title, "points": 0.0, "max_points": t.points,
             "status": status, "message": message, "metrics": {}, "checks": []}
            for t in assignment.tasks]


def grade_one(submission: Submission, course_path=None, protect=(), seed=None) -> tuple:
    """Grade one submission; returns (result dict, list of PNG figures as bytes). The paths in
    `protect` (e.g. the output folder) are hidden from the submission. `seed`: the grading
    seed, when the caller has derived it already (default: `grading_seed`)."""
    course = load_course(course_path)
    assignment = course.assignment(submission.assignment_id)
    result = {"student": submission.student, "assignment": assignment.id,
              "notebook": submission.path.name, "flags": [], "cell_errors": [], "output": ""}
    figures = []
    try:
        raw = submission.path.read_bytes()
        result["notebook_sha256"] = hashlib.sha256(raw).hexdigest()
        notebook = read_notebook(submission.path)
    except (NotebookError, OSError) as error:
        result.setdefault("notebook_sha256", "")
        result["tasks"] = _all_tasks(assignment, "error", f"{error}")
        result["flags"].append("unreadable notebook")
        return _total(result), figures
    cells = code_cells(notebook)
    result["flags"] += scan_imports(cells, assignment.forbidden_imports) + notebook_flags(notebook, assignment)
    sandbox = Sandbox(cells, assignment, protect)
    try:
        sandbox.start()
        result["cell_errors"] = sandbox.report.get("errors", [])[:50]
        result["flags"] += [f"attempted: {a}" for a in sandbox.report.get("attempts", [])[:20]]
        if sandbox.report.get("tampered"):
            result["flags"].append("tampering: replaced " + ", ".join(map(str, sandbox.report["tampered"][:10])))
        result["isolation"] = sandbox.layers
        if seed is None:
            seed = grading_seed(course, submission.student, assignment.id)
        result["tasks"] = run_checks(sandbox, assignment, seed)
        try:
            figures = [base64.b64decode(p) for p in sandbox.probe("__figures__")[:10]
                       if isinstance(p, str)]
        except (ProbeError, ValueError, TypeError):
            figures = []
    except ProbeError as error:     # the notebook did not even finish running
        status = "timeout" if "time limit" in str(error) else "error"
        result["tasks"] = _all_tasks(assignment, status, str(error))
    finally:
        sandbox.close()
        result["output"] = sandbox.captured_output[-4000:]
    return _total(result), figures


def notebook_flags(notebook, assignment) -> list:
    """What is odd about the notebook itself: grading goes on regardless, from course.toml."""
    flags = []
    cells = [c for c in notebook["cells"] if isinstance(c, dict)]
    if not any(c.get("cell_type") == "code" and source_of(c).strip() for c in cells):
        flags.append("the notebook has no code")
    mentioned = [m for c in cells for m in re.findall(r"""check\(\s*["']([\w-]+)["']""", source_of(c))]
    for task in assignment.tasks:
        count = mentioned.count(task.id)
        if count != 1:
            flags.append(f"grade cell check({task.id!r}) appears {count} times (graded anyway)")
    kernel = notebook.get("metadata", {}).get("kernelspec", {})
    name = kernel.get("name") if isinstance(kernel, dict) else None
    if name not in (None, "python3", "python"):
        flags.append(f"kernel {name!r} is not Python 3; graded as Python")
    return flags


def _total(result):
    result["score"] = sum(t["points"] for t in result["tasks"])
    result["max_score"] = sum(t["max_points"] for t in result["tasks"])
    result["grader"] = GRADER_VERSION
    return result


def _up_to_date(out, submission, course_digest) -> bool:
    path = report.result_path(out, submission.student, submission.assignment_id)
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        digest = hashlib.sha256(submission.path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return False
    return old.get("notebook_sha256") == digest and old.get("course_sha256") == course_digest


def course_digest(course) -> str:
    """Changes when course.toml or any check changes: results made before are then stale."""
    h = hashlib.sha256(Path(course.path).read_bytes())
    for a in course.assignments:
        h.update(a.checks_path.read_bytes() if a.checks_path.exists() else b"")
    return h.hexdigest()


def _grade_job(submission, course_path, out, seed):
    """The unit of work of every executor, here or on a Dask worker. The seed comes from the
    main process, so a worker needs neither AUTOGRADER_SECRET nor anything else but the
    repository, the course file and the submission (at the same paths)."""
    return grade_one(submission, course_path, protect=[out], seed=seed)


def grade_all(paths, out, jobs=None, assignment=None, course_path=None, progress=True,
              executor="local", scheduler=None) -> list:
    """Grade every submission under `paths` into `out`; returns all results in `out`.
    `jobs`: submissions graded at once (default: all cores); `executor`: "local" (processes
    here) or "dask" (a Dask LocalCluster of `jobs` workers, or the cluster at `scheduler`)."""
    from tqdm.auto import tqdm
    course = load_course(course_path)
    if assignment is not None:
        course.assignment(assignment)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o700)             # results are for the grader: not readable by submissions
    for stale in out.rglob(".*.tmp"):       # an interrupted run's unfinished write
        stale.unlink(missing_ok=True)
    submissions = discover(paths, course, assignment)
    keys = [(s.student, s.assignment_id) for s in submissions]
    duplicates = {k for k in keys if keys.count(k) > 1}
    if duplicates:
        raise CourseError("two notebooks for the same student and assignment: "
                          + ", ".join(f"{s}/{a}" for s, a in sorted(duplicates)))
    digest = course_digest(course)
    todo = [s for s in submissions if not _up_to_date(out, s, digest)]
    bar = tqdm(total=len(submissions), initial=len(submissions) - len(todo), unit="notebook",
               desc="grading", disable=not progress)

    def finish(result, figures):
        result["course_sha256"] = digest
        report.write_feedback(out, result, figures)
        report.write_result(out, result)       # last: its presence means "done"
        bar.update(1)

    # Absolute paths and seeds derived here: the same call gives the same result on any worker.
    course_file = Path(course_path or ROOT / "course.toml").absolute()
    calls = [(Submission(s.path.absolute(), s.student, s.assignment_id), course_file, out.absolute(),
              grading_seed(course, s.student, s.assignment_id)) for s in todo]
    same_files = [course_file] + [c[0].path for c in calls[:1]]
    with executors.completed(_grade_job, calls, executor, jobs, scheduler, same_files) as answers:
        for result, figures in answers:     # in the order they finish
            finish(result, figures)
    bar.close()
    results = [r for r in report.load_results(out)
               if (r["student"], r["assignment"]) in set(keys)] if submissions else []
    report.write_grades_csv(out, report.load_results(out), course)
    return results
