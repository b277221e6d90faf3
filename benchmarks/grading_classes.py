"""Synthetic classes for the grading benchmarks, as notebooks both graders accept, and the two
ways of grading them: `python -m autograder grade` and the real `nbgrader autograde`.

Every submission is an nbgrader notebook of the assignment (cell ids, grade ids, locked grade
cells), made by the course build (`autograder.authoring.build`) from the assignment's source:

  solution   the reference solution                     (the nbgrader *source* notebook)
  stub       the released exercise, untouched           (exercises/<id>/<notebook>.ipynb)
  mutant     the solution with one realistic bug        (tests/mutants/<notebook>.py)
  partial    the solution with its last exercise undone (as in `python -m autograder.demo`)

so that both graders grade the same files: ours runs the code cells in a sandbox and its checks
outside; nbgrader runs every cell in a Jupyter kernel, the `check("task")` grade cells included
(the in-notebook self-check: the same checks, on the notebook's own globals).
"""
from __future__ import annotations

import itertools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# autograder, nbformat and nbgrader are imported where they are needed: grading_overhead.py times
# the grader in a process that should hold what a grader's process holds, and no more.


def variants(assignment_id: str) -> dict:
    """{kind: nbgrader notebook} for one assignment: solution, stub, partial, mutant_<name>..."""
    import nbformat
    from autograder.authoring import build
    from autograder.course.config import load_course
    from autograder.demo import _last_solution_undone
    from tests.mutants import all_mutants
    course = load_course()
    a = course.assignment(assignment_id)
    task_ids = {t.id: x.id for x in course.assignments for t in x.tasks}
    source = a.solution_path().read_text(encoding="utf-8")
    sources = {"solution": source, "partial": _last_solution_undone(source)}
    for mutant in all_mutants():
        if mutant.assignment == assignment_id:
            sources[f"mutant_{mutant.name}"] = mutant.source()
    notebooks = {"stub": nbformat.read(str(a.exercise_path()), as_version=4)}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, text in sources.items():
            path = Path(tmp) / f"{a.notebook}.py"
            path.write_text(text, encoding="utf-8")
            notebook, problems = build._source_notebook(a, path, path.name, task_ids)
            if problems:
                raise RuntimeError(f"{kind}: {problems}")
            notebooks[kind] = notebook
    return notebooks


def make_class(folder: Path, assignment_id: str, students: int) -> Path:
    """nbgrader's submitted/<student>/<assignment>/<notebook>.ipynb for `students` students,
    taking turns through solution, stub, partial and the mutants."""
    import nbformat
    from autograder.course.config import load_course
    a = load_course().assignment(assignment_id)
    kinds = variants(assignment_id)
    order = ["solution", "stub", "partial"] + sorted(k for k in kinds if k.startswith("mutant_"))
    submitted = Path(folder) / "submitted"
    for number, kind in zip(range(students), itertools.cycle(order)):
        path = submitted / f"s{number:04d}_{kind}" / a.id / f"{a.notebook}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(kinds[kind], str(path))
    return submitted


# The rest of the machine's load, sampled in the second before each timed command (run_timed).
QUIET_SAMPLES: list = []


class OtherLoad(common.OtherLoad):
    """common.OtherLoad for the grading benchmarks. The sealed submissions run as another user in
    PID namespaces of their own: their CPU time never reaches our rusage, so the machine's load
    during a run cannot be split into ours and the rest. Instead, the rest is measured in the
    second before each timed command, when nothing of ours runs; `cores` is their mean."""

    def __enter__(self):
        QUIET_SAMPLES.clear()
        self.cores = None
        return self

    def __exit__(self, *exc):
        if QUIET_SAMPLES:
            self.cores = sum(QUIET_SAMPLES) / len(QUIET_SAMPLES)

    def warning(self) -> str:
        return super().warning().replace("meanwhile", "in the second before each timed run")


def _machine_busy():
    """Busy CPU-seconds of the whole machine so far (Linux: /proc/stat), or None."""
    sample = common.OtherLoad._sample()
    return sample and sample[0]


class Timing(float):
    """Wall seconds of a command, with `.cpu`: the CPU seconds of all its processes, which other
    programs on the machine inflate much less than the wall time."""


def run_timed(command, **kwargs) -> Timing:
    """subprocess.run(command, check=True, ...), timed: wall seconds and CPU seconds. On Linux
    the CPU seconds are the whole machine's busy time during the run: the sealed submissions'
    time never reaches our rusage (another user, their own PID namespaces), so rusage would
    count nbgrader's kernels but not our sandboxes. The load of the rest of the machine is
    sampled in the second before (QUIET_SAMPLES, reported by OtherLoad); elsewhere, rusage."""
    idle = _machine_busy()
    if idle is not None:
        time.sleep(1.0)
        QUIET_SAMPLES.append(_machine_busy() - idle)
    machine, before = _machine_busy(), resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(command, **kwargs)
    timing = Timing(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    timing.cpu = (_machine_busy() - machine if machine is not None else
                  (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{run.stdout or ''}{run.stderr or ''}")
    return timing


def grade(submitted: Path, out: Path, *options) -> Timing:
    """`python -m autograder grade` from the command line, as an instructor runs it."""
    shutil.rmtree(out, ignore_errors=True)
    return run_timed([sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out),
                      "--quiet", *map(str, options)], cwd=ROOT, stdout=subprocess.DEVNULL)


class NbgraderCourse:
    """A throwaway nbgrader course directory with one assignment, its source notebook (from the
    course build) and its gradebook entry (from the real `nbgrader generate_assignment`)."""

    def __init__(self, folder: Path, assignment_id: str):
        import nbformat
        from autograder.authoring import build
        from autograder.course.config import load_course
        self.root, self.assignment = Path(folder), load_course().assignment(assignment_id)
        source = self.root / "source" / assignment_id / f"{self.assignment.notebook}.ipynb"
        source.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(variants(assignment_id)["solution"], str(source))
        build._run_nbgrader(self.root, [assignment_id])

    def environment(self) -> dict:
        env = dict(os.environ)
        env["JUPYTER_CONFIG_DIR"] = str(self.root / ".jupyter")     # as the build: no user config
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["PYTHONPATH"] = str(ROOT)       # the kernel imports dp and autograder (the grade cells)
        env["DP_OFFLINE"] = "1"
        return env

    def submit(self, submitted: Path, students=None) -> list:
        """Copy submissions (all, or the first `students`) into the course; returns the ids."""
        shutil.rmtree(self.root / "submitted", ignore_errors=True)
        shutil.rmtree(self.root / "autograded", ignore_errors=True)
        ids = sorted(p.name for p in Path(submitted).iterdir())[:students]
        for student in ids:
            shutil.copytree(Path(submitted) / student, self.root / "submitted" / student)
        return ids

    def autograde(self, *options) -> Timing:
        """The real `nbgrader autograde <assignment>` (serial over the submitted students)."""
        return run_timed([sys.executable, "-m", "nbgrader", "autograde", self.assignment.id, "--force",
                          "--log-level=ERROR", "--Execute.timeout=600", *options], cwd=self.root,
                         env=self.environment(), stdin=subprocess.DEVNULL, capture_output=True, text=True)

    def generate_feedback(self) -> Timing:
        return run_timed([sys.executable, "-m", "nbgrader", "generate_feedback", self.assignment.id, "--force",
                          "--log-level=ERROR"], cwd=self.root, env=self.environment(),
                         stdin=subprocess.DEVNULL, capture_output=True, text=True)

    def scores(self) -> dict:
        """{student: total} from the gradebook."""
        from nbgrader.api import Gradebook
        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gradebook:
            return {s.student.id: s.score for s in gradebook.assignment_submissions(self.assignment.id)}
