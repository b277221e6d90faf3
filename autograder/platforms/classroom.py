"""GitHub Classroom: a student repository template for one assignment, `python -m autograder
classroom ASSIGNMENT DIR`.

DIR holds the student bundle of that assignment (authoring.release: dp, the exercise, its
self-check with the public cases, no solution or reference code) and a workflow,
.github/workflows/classroom.yml, that on every push installs the course, runs the notebook's
self-check task by task (`python -m autograder.grading.selfcheck NOTEBOOK TASK`: its cells,
then `check(TASK)` with the public seed) and reports each task's points through GitHub
Classroom's autograding reporter (classroom-resources/autograding-command-grader and
autograding-grading-reporter).

Formative feedback only: a student controls their repository and its workflow, and can make it
report any points. These points are never the grade; the grade comes from `grade`, Gradescope
or PrairieLearn, on the hidden inputs.
"""
from __future__ import annotations

import datetime
import math
from pathlib import Path

from ..authoring.release import make_bundle
from ..course.config import load_course

WORKFLOW = ".github/workflows/classroom.yml"
COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
PYTHON = "3.11"


def step_id(task_id: str) -> str:
    return task_id.replace("_", "-")


def workflow(assignment) -> dict:
    """The workflow, as data: a command-grader step per task, then the reporter."""
    notebook = f"exercises/{assignment.id}/{assignment.notebook}.ipynb"
    minutes = math.ceil(assignment.limits.time_limit / 60) + 5
    tasks = [{"name": f"{t.id}: {t.title}" if t.title != t.id else t.id, "id": step_id(t.id),
              "uses": COMMAND_GRADER,
              "with": {"test-name": t.id,
                       "command": f"python -m autograder.grading.selfcheck {notebook} {t.id}",
                       "timeout": minutes, "max-score": t.points}}
             for t in assignment.tasks]
    reporter = {"name": "Autograding Reporter", "uses": REPORTER,
                "env": {f"{s['id'].upper()}_RESULTS": f"${{{{steps.{s['id']}.outputs.result}}}}"
                        for s in tasks},
                "with": {"runners": ",".join(s["id"] for s in tasks)}}
    return {
        "name": f"Self-check: {assignment.title} (formative: not the grade)",
        "on": ["push", "workflow_dispatch"],
        "permissions": {"checks": "write", "actions": "read", "contents": "read"},
        "jobs": {"self-check": {
            "runs-on": "ubuntu-latest",
            "if": "github.actor != 'github-classroom[bot]'",
            "steps": [{"uses": "actions/checkout@v4"},
                      {"uses": "actions/setup-python@v5", "with": {"python-version": PYTHON}},
                      {"name": "Install the course", "run": "python -m pip install -e ."},
                      *tasks, reporter]}}}


def write_template(assignment_id: str, folder, course_path=None, now=None, expose=False,
                   force=False, log=print) -> Path:
    """The student repository template of `assignment_id` in `folder`; returns the workflow."""
    import yaml
    course = load_course(course_path)
    assignment = course.assignment(assignment_id)
    folder = make_bundle(folder, [assignment.id], force=force, log=log, expose=expose,
                         now=now or datetime.datetime.now(datetime.timezone.utc),
                         course_path=course_path)
    path = Path(folder) / WORKFLOW
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ("# GitHub Classroom's autograding, written by `python -m autograder classroom`: on\n"
              "# every push, the notebook's self-check with the public seed, task by task.\n"
              "# Formative feedback: these points are never the grade (the grader's are).\n")
    path.write_text(header + yaml.safe_dump(workflow(assignment), sort_keys=False, width=100),
                    encoding="utf-8")
    (Path(folder) / ".gitignore").write_text(".venv/\n__pycache__/\n.ipynb_checkpoints/\n",
                                             encoding="utf-8")
    return path


def cli(args) -> int:
    from ..authoring.release import ReleaseError, parse_moment
    from ..course.config import CourseError
    try:
        course = load_course(args.course)
        now = parse_moment(args.date, course.timezone) if args.date else None
        path = write_template(args.assignment, args.directory, args.course, now=now,
                              expose=args.all, force=args.force)
    except (ReleaseError, CourseError) as error:
        print(f"error: {error}")
        return 1
    print(f"workflow: {path}\npush {args.directory} as the assignment's template repository in "
          "GitHub Classroom; its points are formative feedback, never the grade")
    return 0
