"""Test helpers: turn a solution source (jupytext percent) into a notebook and grade it."""
from __future__ import annotations

import json
from pathlib import Path

import jupytext
import nbformat

from autograder.course import ROOT, load_course
from autograder.grade import Submission, grade_one

COURSE = load_course()


def solution_source(assignment_id: str) -> str:
    return COURSE.assignment(assignment_id).solution_path().read_text(encoding="utf-8")


def notebook_from_source(source: str, path: Path) -> Path:
    """Write the jupytext percent `source` as a notebook at `path`."""
    notebook = jupytext.reads(source, fmt="py:percent")
    nbformat.write(notebook, str(path))
    return path


def mutate(source: str, old: str, new: str) -> str:
    """`source` with the one occurrence of `old` replaced by `new` (an error if not exactly one)."""
    count = source.count(old)
    if count != 1:
        raise AssertionError(f"the mutation's text occurs {count} times in the solution, not once:\n{old}")
    return source.replace(old, new)


def grade_notebook(path: Path, assignment_id: str, student: str = "student") -> dict:
    """Grade one notebook exactly as `python -m autograder grade` does; returns the result."""
    result, _ = grade_one(Submission(Path(path), student, assignment_id))
    return result


def grade_source(source: str, assignment_id: str, tmp_path: Path, student="student") -> dict:
    path = notebook_from_source(source, Path(tmp_path) / f"{student}.ipynb")
    return grade_notebook(path, assignment_id, student)


def exercise_path(assignment_id: str) -> Path:
    return COURSE.assignment(assignment_id).exercise_path(ROOT)


def points(result: dict) -> dict:
    """{task id: points} of a result, for compact assertions."""
    return {t["id"]: t["points"] for t in result["tasks"]}


def explain(result: dict) -> str:
    """The result's tasks, readable, for assertion messages."""
    return json.dumps([{k: t[k] for k in ("id", "status", "points", "message")}
                       for t in result["tasks"]] + [{"flags": result["flags"],
                                                     "cell_errors": result["cell_errors"]}], indent=1)


class Mutant:
    """A realistic bug planted in a solution: `old` -> `new` in its source. It must cost the
    points of `task` and of no other task."""

    def __init__(self, assignment: str, task: str, name: str, old: str, new: str, why: str = ""):
        self.assignment, self.task, self.name = assignment, task, name
        self.old, self.new, self.why = old, new, why

    def __repr__(self):
        return f"{self.assignment}:{self.name}"

    def source(self) -> str:
        return mutate(solution_source(self.assignment), self.old, self.new)
