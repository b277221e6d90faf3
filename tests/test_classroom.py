"""`python -m autograder classroom ASSIGNMENT DIR`: GitHub Classroom's template repository, the
student bundle of one assignment and a workflow whose command is run here as the workflow runs it."""
import os
import subprocess
import sys

import pytest
import yaml

from tests.grading import COURSE, ROOT, notebook_from_source, solution_source

A = "01_scalar_autodiff"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    folder = tmp_path_factory.mktemp("classroom") / "repo"
    run = subprocess.run([sys.executable, "-m", "autograder", "classroom", A, folder,
                          "--date", "2026-09-20"], cwd=ROOT, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "formative feedback, never the grade" in run.stdout
    return folder


def test_the_workflow_grades_each_task_with_its_points_and_reports_them(template):
    text = (template / ".github" / "workflows" / "classroom.yml").read_text()
    assert "never the grade" in text
    flow = yaml.safe_load(text)
    assert set(flow["on"]) == {"push", "workflow_dispatch"}
    assert flow["permissions"] == {"checks": "write", "actions": "read", "contents": "read"}
    steps = flow["jobs"]["self-check"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and \
        steps[1]["uses"].startswith("actions/setup-python@")
    assert steps[2]["run"] == "python -m pip install -e ."
    graders = [s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-command-grader@")]
    tasks = COURSE.assignment(A).tasks
    assert [(g["with"]["test-name"], g["with"]["max-score"]) for g in graders] == [(t.id, t.points) for t in tasks]
    for g, t in zip(graders, tasks):
        assert g["with"]["command"] == f"python -m autograder.grading.selfcheck exercises/{A}/scalar_autodiff.ipynb {t.id}"
    [reporter] = [s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-grading-reporter@")]
    assert reporter["with"]["runners"].split(",") == [g["id"] for g in graders]
    assert reporter["env"] == {f"{g['id'].upper()}_RESULTS": f"${{{{steps.{g['id']}.outputs.result}}}}" for g in graders}
    assert steps[-1] is reporter
    assert {p.name for p in template.iterdir()} >= {"dp", "exercises", "autograder", "course.toml", "pyproject.toml"}
    assert not (template / "solutions").exists()


@pytest.mark.parametrize("submitted", ["the exercise as released", "the solution"])
def test_its_command_runs_here_as_the_workflow_runs_it(template, submitted, tmp_path):
    """The workflow's first task command, in a copy of the template (its own autograder and dp on
    the path, as `pip install -e .` puts them): the released stub fails, the solution passes."""
    flow = yaml.safe_load((template / ".github" / "workflows" / "classroom.yml").read_text())
    command = next(s for s in flow["jobs"]["self-check"]["steps"] if s.get("id") == "scalar-arithmetic")["with"]["command"]
    notebook = template / "exercises" / A / "scalar_autodiff.ipynb"
    original = notebook.read_bytes()
    try:
        if submitted == "the solution":
            notebook_from_source(solution_source(A), notebook)
        run = subprocess.run([sys.executable, *command.split()[1:]], cwd=template, capture_output=True,
                             text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(template)})
    finally:
        notebook.write_bytes(original)
    assert "✔ scalar_arithmetic" in run.stdout if submitted == "the solution" else "✘ scalar_arithmetic" in run.stdout, \
        run.stdout + run.stderr[-2000:]
    assert run.returncode == (0 if submitted == "the solution" else 1)
