"""`python -m autograder prairielearn ASSIGNMENT DIR --image NAME`: a PrairieLearn question with
its external grader. The grader folder is laid out as PrairieLearn lays out a grading job
(/grade/serverFilesCourse, /grade/student, /grade/data/data.json; DP_PRAIRIELEARN_ROOT), its
run.sh runs as PrairieLearn runs the entrypoint, and results.json is validated against a JSON
Schema written from PrairieLearn's documented fields
(autograder/platforms/schemas/prairielearn-results.schema.json)."""
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from autograder.grading.grade import grading_seed
from autograder.platforms import prairielearn
from tests.ecosystem import once_per_run
from tests.grading import COURSE, ROOT, mutate, notebook_from_source, solution_source
from tests.test_gradescope import EXPECTED, ORACLE, WRONG, near

ASSIGNMENT = "01_scalar_autodiff"
IMAGE = "example/dp-grader:1"
SCHEMA = json.loads(
    (ROOT / "autograder/platforms/schemas/prairielearn-results.schema.json").read_text())
DATA = {"params": {}, "correct_answers": {}, "submitted_answers": {}, "variant_seed": 8675309}


def numerical_gradient_test(results) -> dict:
    return next(t for t in results["tests"] if t["description"] == "numerical_gradient")


def asked(results) -> dict:
    """{x: the expected value} that the feedback on numerical_gradient names."""
    return {float(x): float(value)
            for x, value in EXPECTED.findall(numerical_gradient_test(results)["output"])}


def validate(results):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(results)


def grade_job(course: Path, job: Path, files=()):
    """A grading job as PrairieLearn makes one, and its entrypoint run as info.json says."""
    info = json.loads((course / "questions" / ASSIGNMENT / "info.json").read_text())
    options = info["externalGradingOptions"]
    for folder in options["serverFilesCourse"]:
        shutil.copytree(course / "serverFilesCourse" / folder, job / "serverFilesCourse" / folder)
    (job / "student").mkdir(parents=True)
    for file in files:
        shutil.copy(file, job / "student" / Path(file).name)
    (job / "data").mkdir()
    (job / "data" / "data.json").write_text(json.dumps(DATA))
    command = shlex.split(options["entrypoint"].replace("/grade", str(job), 1))
    run = subprocess.run(command, cwd=job, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, DP_PRAIRIELEARN_ROOT=str(job),
                                  DP_PRAIRIELEARN_PYTHON=sys.executable))
    assert run.returncode == 0, run.stdout + run.stderr
    return run, json.loads((job / "results" / "results.json").read_text())


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("prairielearn")
    prairielearn.build(ASSIGNMENT, folder / "course", IMAGE)
    return folder / "course"


@pytest.fixture(scope="module")
def solution(course, tmp_path_factory):
    """The solution graded once per test run (pytest-xdist's workers share it)."""
    def make(folder):
        notebook = notebook_from_source(solution_source(ASSIGNMENT),
                                        folder / "scalar_autodiff.ipynb")
        run, results = grade_job(course, folder / "grade", [notebook])
        (folder / "job.json").write_text(json.dumps({"stdout": run.stdout, "results": results}))

    folder = once_per_run(tmp_path_factory, "prairielearn-job", make)
    kept = json.loads((folder / "job.json").read_text())
    return subprocess.CompletedProcess([], 0, kept["stdout"], ""), kept["results"]


def test_the_question_folder_is_laid_out_as_prairielearn_documents(course):
    question = course / "questions" / ASSIGNMENT
    info = json.loads((question / "info.json").read_text())
    assert info["gradingMethod"] == "External" and info["type"] == "v3"
    options = info["externalGradingOptions"]
    assert options == {"enabled": True, "image": IMAGE, "serverFilesCourse": ["dp_autograder/"],
                       "entrypoint": f"/grade/serverFilesCourse/dp_autograder/run.sh {ASSIGNMENT}",
                       "timeout": 180}
    html = (question / "question.html").read_text()
    assert '<pl-file-upload file-names="scalar_autodiff.ipynb">' in html
    grader = course / "serverFilesCourse" / "dp_autograder"
    assert {"run.sh", "Dockerfile", "course.toml", "requirements.txt", "autograder", "dp"} <= \
        {p.name for p in grader.iterdir()}
    # the same question, built again, keeps its uuid (PrairieLearn's identity of a question)
    assert info["uuid"] == prairielearn.question_info(COURSE.assignment(ASSIGNMENT), IMAGE)["uuid"]


def test_the_solution_scores_one_with_a_test_per_task_and_its_figure(solution):
    run, results = solution
    validate(results)
    assert results["gradable"] is True and results["score"] == 1.0
    tasks = COURSE.assignment(ASSIGNMENT).tasks
    assert [(t["name"], t["points"], t["max_points"]) for t in results["tests"]] == \
        [(t.title, t.points, t.points) for t in tasks]
    assert results["images"] and results["images"][0]["url"].startswith("data:image/png;base64,")
    assert len(json.dumps(results)) < prairielearn.MAX_BYTES


def test_the_seed_is_root_only_in_the_job_and_never_in_its_results(solution, course):
    run, results = solution
    key = re.search(r"variant-8675309 notebook-[0-9a-f]{16}", run.stdout)[0]   # the table's
    seeds = {COURSE.grading_seed, grading_seed(COURSE, key, ASSIGNMENT),
             grading_seed(COURSE, "variant-8675309", ASSIGNMENT)}
    assert not [s for s in seeds if str(s) in json.dumps(results) + run.stdout]


def test_each_notebook_submitted_has_a_seed_of_its_own_and_a_regrade_the_same(tmp_path):
    """data.json names no submission: the seed is of the variant and the notebook's bytes."""
    def seed(data=DATA):
        return grading_seed(COURSE, prairielearn.grading_key(data, tmp_path), ASSIGNMENT)

    notebook = tmp_path / "scalar_autodiff.ipynb"
    notebook.write_text('{"cells": []}')
    first = seed()
    assert seed() == first                                           # a regrade
    assert seed(dict(DATA, variant_seed=8675310)) != first           # another variant
    notebook.write_text('{"cells": [] }')
    assert seed() != first                                           # another attempt
    notebook.write_text('{"cells": []}')
    assert seed() == first


def test_a_lookup_table_of_one_attempts_expected_values_fails_the_next_attempt(course, tmp_path):
    """Red-team finding A3 on PrairieLearn: the expected values that one attempt's feedback
    names are of inputs that the next attempt (another notebook) is not asked."""
    source = mutate(solution_source(ASSIGNMENT), *WRONG)
    wrong = notebook_from_source(source, tmp_path / "scalar_autodiff.ipynb")
    _, first = grade_job(course, tmp_path / "first", [wrong])
    _, regraded = grade_job(course, tmp_path / "regraded", [wrong])
    assert regraded["tests"] == first["tests"]
    table = asked(first)
    assert table and numerical_gradient_test(first)["points"] == 0
    oracle = notebook_from_source(source + ORACLE.format(table=table),
                                  tmp_path / "scalar_autodiff.ipynb")
    _, second = grade_job(course, tmp_path / "second", [oracle])
    assert numerical_gradient_test(second)["points"] == 0
    assert asked(second) and not near(asked(second), table)


def test_the_job_makes_the_seed_root_only(tmp_path, course):
    run, results = grade_job(course, tmp_path / "grade")       # nothing submitted: not graded
    grader = tmp_path / "grade" / "serverFilesCourse" / "dp_autograder"
    assert stat.S_IMODE((grader / "course.toml").stat().st_mode) == 0o600
    assert stat.S_IMODE((grader / "autograder" / "checks").stat().st_mode) == 0o700
    validate(results)
    assert results["gradable"] is False and "no notebook" in results["format_errors"][0]


def test_partial_credit_is_a_fraction_and_figures_stop_at_one_megabyte():
    task = {"id": "t", "title": "T", "points": 1.5, "max_points": 3.0, "status": "failed",
            "message": "off by one", "metrics": {}, "checks": []}
    result = {"assignment": "x", "status": "graded", "score": 1.5, "max_score": 6.0,
              "tasks": [task, dict(task, id="u")], "flags": [], "cell_errors": [], "output": ""}
    png = b"\x89PNG\r\n\x1a\n" + bytes(400_000)
    results = prairielearn.results_json(result, [png, png, png])
    validate(results)
    assert results["score"] == 0.25
    assert len(results["images"]) == 1 and "left out" in results["message"]
    assert len(json.dumps(results)) < prairielearn.MAX_BYTES


def test_the_schema_refuses_what_prairielearn_does_not_document():
    bad = [{"score": 7.0},                                   # points, not a fraction
           {"gradable": True},                                # no score
           {"gradable": False},                               # no format_errors
           {"score": 1, "tests": [{"name": "x", "max_score": 1}]},   # Gradescope's spelling
           {"score": 1, "images": [{"url": "http://example.org/a.png"}]}]
    for results in bad:
        with pytest.raises(jsonschema.ValidationError):
            validate(results)


def test_the_course_file_knows_the_question_s_topic_and_tags(course, tmp_path):
    """Issue 33: PrairieLearn requires a question's topic and tags to exist in infoCourse.json,
    which nothing wrote or explained. A course without one gets a minimal one; a course's own
    gets the topic and tags added, and nothing else of it changes."""
    info = json.loads((course / "infoCourse.json").read_text())
    assert {t["name"] for t in info["topics"]} == {"Differentiable programming"}
    assert {t["name"] for t in info["tags"]} == {"dp-courseware", ASSIGNMENT}
    assert {"uuid", "name", "title", "assessmentSets"} <= set(info)
    own = tmp_path / "pl"
    own.mkdir()
    mine = {"uuid": "x", "name": "CS 101", "title": "Mine", "topics": [{"name": "Loops", "color": "red1"}],
            "tags": [{"name": "dp-courseware", "color": "blue2", "description": "mine"}], "options": {"a": 1}}
    (own / "infoCourse.json").write_text(json.dumps(mine))
    said = []
    prairielearn.build(ASSIGNMENT, own, IMAGE, log=said.append)
    info = json.loads((own / "infoCourse.json").read_text())
    assert {k: info[k] for k in ("uuid", "name", "title", "options")} == \
        {k: mine[k] for k in ("uuid", "name", "title", "options")}
    assert [t["name"] for t in info["topics"]] == ["Loops", "Differentiable programming"]
    assert info["tags"][0] == mine["tags"][0] and [t["name"] for t in info["tags"]] == ["dp-courseware", ASSIGNMENT]
    assert said == [f"{own / 'infoCourse.json'}: added to: topic 'Differentiable programming', tag '{ASSIGNMENT}'"]
    prairielearn.build(ASSIGNMENT, own, IMAGE, log=said.append)          # again: nothing to add
    assert said[-1].endswith("has the question's topic and tags already")


def test_the_command_says_what_it_wrote_and_what_comes_next(tmp_path):
    run = subprocess.run([sys.executable, "-m", "autograder", "prairielearn", ASSIGNMENT,
                          tmp_path / "pl", "--image", IMAGE], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    for line in (f"questions/{ASSIGNMENT}/info.json", f"questions/{ASSIGNMENT}/question.html",
                 "serverFilesCourse/dp_autograder/run.sh", "serverFilesCourse/dp_autograder/Dockerfile",
                 "serverFilesCourse/dp_autograder/autograder/  ("):
        assert line in run.stdout, run.stdout
    assert "infoCourse.json: written" in run.stdout and '"points": 10' in run.stdout
