"""Per-submission cost of grading a trivial notebook: `python -m autograder grade` against the
real `nbgrader autograde` on the same notebook, and where our time goes, phase by phase.

    python benchmarks/grading_overhead.py              # about 3 minutes on 2 cores
    python benchmarks/grading_overhead.py --repeat 1 --class-size 3

The notebook: the reference solution of 01 (scalar autodiff), in nbgrader's format. Its code is
trivial (a scalar autodiff class, a numerical gradient, a small matplotlib plot), so the time
is the grader's: start, run, probe, judge, report. Graded with its real checks.
(--assignment grades another assignment's solution instead, e.g. 04_activation_functions.)

1. End to end, from the command line, as an instructor runs them (median of --repeat runs):
   one notebook (cold: the tool's own start-up included), and a class of --class-size copies
   graded serially, whose slope is the cost of one more submission.
2. Our phases, timed around the real `grade_one` (warm, median of 5) in a fresh process that
   imports what a grader's worker process imports, and no more (a larger heap makes pytest's
   garbage collections, and so the judge, slower than in the grader).
3. The pieces that make up the start of a submission process, each timed on its own, and the
   fixed cost of one pytest session (the judge starts one per submission).

Submission processes are forked by a zygote that has imported NumPy, matplotlib and dp once per
grader process (autograder.sandbox.zygote): "fork/exec" is then the fork and the isolation set-up, and
"interpreter, imports" what is left of the start (the guards). --no-zygote measures the former
way, a fresh interpreter per submission (AUTOGRADER_ZYGOTE=0).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import machine
from grading_classes import ROOT, OtherLoad, Timing



def median_of(repeat, measure) -> float:
    return statistics.median(measure() for _ in range(repeat))


def median_timing(repeat, measure) -> Timing:
    """The median wall time of `repeat` runs, and the median CPU time."""
    runs = [measure() for _ in range(repeat)]
    timing = Timing(statistics.median(runs))
    timing.cpu = statistics.median(run.cpu for run in runs)
    return timing


def end_to_end(tmp: Path, a, size: int, repeat: int) -> dict:
    """Seconds for 1 and for `size` notebooks, ours and nbgrader's; and the slope of each."""
    import nbformat
    from grading_classes import NbgraderCourse, grade, variants
    solution = variants(a.id)["solution"]
    classes = {}
    for n in (1, size):
        for i in range(n):
            path = tmp / f"class{n}" / "submitted" / f"s{i:03d}" / a.id / f"{a.notebook}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(solution, str(path))
        classes[n] = tmp / f"class{n}" / "submitted"
    nbgrader = NbgraderCourse(tmp / "nbgrader", a.id)
    seconds = {}
    for n, submitted in classes.items():
        seconds["ours", n] = median_timing(repeat, lambda: grade(submitted, tmp / "out", "--jobs", "1"))
        nbgrader.submit(submitted)
        seconds["nbgrader", n] = median_timing(repeat, nbgrader.autograde)
        seconds["feedback", n] = median_timing(repeat, nbgrader.generate_feedback)
    for tool in ("ours", "nbgrader", "feedback"):
        slope = Timing((seconds[tool, size] - seconds[tool, 1]) / (size - 1))
        slope.cpu = (seconds[tool, size].cpu - seconds[tool, 1].cpu) / (size - 1)
        seconds[tool, "slope"] = slope
    scores = nbgrader.scores()
    assert set(scores.values()) == {a.max_score}, f"nbgrader did not give full marks to the solution: {scores}"
    return seconds


class Phases:
    """Accumulates the time spent in wrapped functions, by phase."""

    def __init__(self):
        self.seconds = defaultdict(float)

    def wrap(self, owner, name, phase):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                label = phase(*args, **kwargs) if callable(phase) else phase
                self.seconds[label] += time.perf_counter() - start
        setattr(owner, name, timed)


PHASES = ["load course.toml", "read & scan the notebook", "sandbox set-up (temp dir, uid)",
          "start: fork/exec + isolation", "start: interpreter, imports, guards", "run the notebook's cells",
          "probes (round trips + student code)", "judge: pytest + reference values",
          "figures (PNGs rendered in the sandbox)", "close (stop, kill, clean up)",
          "report (feedback HTML + result JSON)", "other"]


def phases(path: Path, assignment_id: str, repeat: int, solution: bool = True) -> dict:
    """Median seconds per phase of grading the notebook at `path`, in this process (`solution`:
    it must earn full marks; a failing variant must not)."""
    from autograder.grading import grade as g
    from autograder.grading import report
    from autograder.sandbox.process import Sandbox
    clock = Phases()
    clock.wrap(g, "load_course", "load course.toml")
    for name in ("read_notebook", "code_cells", "scan_imports", "notebook_flags"):
        clock.wrap(g, name, "read & scan the notebook")
    clock.wrap(Sandbox, "__init__", "sandbox set-up (temp dir, uid)")
    clock.wrap(Sandbox, "_spawn", "start: fork/exec + isolation")

    def start(sandbox):     # the child reports how long the notebook's cells ran
        report = sandbox.report if isinstance(sandbox.report, dict) else {}
        clock.seconds["run the notebook's cells"] += report.get("seconds", 0.0)
        return "start"
    clock.wrap(Sandbox, "start", start)
    clock.wrap(Sandbox, "probe", lambda self, name, **kw: "figures (PNGs rendered in the sandbox)"
               if name == "__figures__" else "probes (round trips + student code)")
    clock.wrap(g, "run_checks", "checks")
    clock.wrap(Sandbox, "close", "close (stop, kill, clean up)")
    clock.wrap(report, "write_feedback", "report (feedback HTML + result JSON)")
    clock.wrap(report, "write_result", "report (feedback HTML + result JSON)")
    runs = []
    submission = g.Submission(path, "student", assignment_id)
    g.grade_one(submission)                  # warm: imports and first-time costs
    for _ in range(repeat):
        clock.seconds.clear()
        begin = time.perf_counter()
        result, figures = g.grade_one(submission)
        report.write_feedback(path.parent / "out", result, figures)
        report.write_result(path.parent / "out", result)
        total = time.perf_counter() - begin
        s = dict(clock.seconds)
        s["start: interpreter, imports, guards"] = (s.pop("start") - s["run the notebook's cells"]
                                                   - s.get("start: fork/exec + isolation", 0.0))
        probes = s.get("probes (round trips + student code)", 0.0)
        s["judge: pytest + reference values"] = s.pop("checks") - probes
        s["other"] = total - sum(s.values())
        s["total"] = total
        assert (result["score"] == result["max_score"]) == solution, result
        runs.append(s)
    return {k: statistics.median(r.get(k, 0.0) for r in runs) for k in PHASES + ["total"]}


def pieces(tmp: Path, a, repeat: int) -> dict:
    """The start of a submission process, piece by piece (subprocesses, median seconds)."""
    def run(code):
        def once():
            start = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-c", code], check=True, cwd=tempfile.gettempdir())
            return time.perf_counter() - start
        return median_of(repeat, once)
    path = f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
    found = {
        "python -I -c pass": run("pass"),
        "+ import numpy": run("import numpy"),
        "+ autograder.sandbox.runner, probes, guard (what a sandbox imports)": run(
            path + "import numpy, numpy.testing, autograder.sandbox.runner, autograder.sandbox.guard, autograder.sandbox.protocol, "
                   f"autograder.probes.common, {a.probes_module}"),
        "+ matplotlib.pyplot (the notebook's own import)": run(
            path + "import numpy, autograder.sandbox.runner, autograder.probes.common, matplotlib.pyplot"),
    }

    def forked():
        code = (path + "import os, time, numpy, autograder.sandbox.runner, autograder.probes.common, matplotlib.pyplot\n"
                "start = time.perf_counter()\npid = os.fork()\nif pid == 0:\n    os._exit(0)\n"
                "os.waitpid(pid, 0)\nprint(time.perf_counter() - start)")
        return float(subprocess.run([sys.executable, "-I", "-c", code], check=True, capture_output=True,
                                    text=True, cwd=tempfile.gettempdir()).stdout)
    found["for comparison: fork() of a process that has all that imported"] = median_of(repeat, forked)

    def zygote():       # once per grader process, before its first submission
        code = (path + "import time; from autograder.sandbox import forkserver\n"
                "from autograder.course.config import load_course\n"
                f"a = load_course().assignment({a.id!r})\n"
                "start = time.perf_counter(); zygote = forkserver.Zygote(a, forkserver.preload_for(a), True)\n"
                "print(time.perf_counter() - start); zygote.stop()")
        return float(subprocess.run([sys.executable, "-I", "-c", code], check=True, capture_output=True,
                                    text=True, cwd=tempfile.gettempdir()).stdout)
    found["zygote start, once per grader process (bubblewrap, interpreter, imports)"] = median_of(repeat, zygote)
    from autograder.course.config import PACKAGE
    from autograder.grading.judge import UNNEEDED_PLUGINS
    empty = tmp / "pytest" / "test_nothing.py"
    empty.parent.mkdir()
    empty.write_text("def test_nothing():\n    pass\n")
    args = [str(empty), "-c", str(PACKAGE / "checks" / "pytest.ini"), "--rootdir", str(empty.parent),
            "--import-mode=importlib", "-s", "-W", "ignore"]
    for plugin in UNNEEDED_PLUGINS:     # as the judge runs it
        args += ["-p", f"no:{plugin}"]

    def session():      # in a process like a grader's worker: autograder.grading.grade imported
        code = (path + "import statistics, time, pytest, autograder.grading.grade\n"
                "from autograder.grading.judge import _quiet_pytest\nseconds = []\n"
                "for _ in range(6):\n    start = time.perf_counter()\n    with _quiet_pytest():\n"
                f"        pytest.main({args!r})\n    seconds.append(time.perf_counter() - start)\n"
                "print(statistics.median(seconds[1:]), file=sys.stderr)")
        run = subprocess.run([sys.executable, "-I", "-c", code], check=True, capture_output=True, text=True)
        return float(run.stderr.strip().splitlines()[-1])
    found["pytest.main() session, one empty test (judge, per submission)"] = median_of(repeat, session)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per end-to-end measurement (median)")
    parser.add_argument("--class-size", type=int, default=5, help="notebooks in the class for the slope")
    parser.add_argument("--skip-nbgrader", action="store_true", help="only our phases and pieces")
    parser.add_argument("--assignment", default="01_scalar_autodiff",
                        help="whose reference solution to grade (default: 01, the trivial one)")
    parser.add_argument("--variant", default="solution",
                        help="which notebook of the assignment to grade in 2. (grading_classes.variants: "
                             "solution, stub, partial, mutant_<name>: a failing one)")
    parser.add_argument("--no-zygote", action="store_true",
                        help="start each submission process with exec, as before the zygote")
    parser.add_argument("--phases-of", type=Path, help=argparse.SUPPRESS)   # the fresh process of 2.
    args = parser.parse_args(argv)
    if args.no_zygote:
        os.environ["AUTOGRADER_ZYGOTE"] = "0"      # for every grader this script starts
    if args.phases_of:
        print(json.dumps(phases(args.phases_of, args.assignment, 5, args.variant == "solution")))
        return 0
    import nbformat
    from autograder.course.config import load_course
    from grading_classes import variants
    a = load_course().assignment(args.assignment)
    how = "exec per submission (no zygote)" if args.no_zygote else "forked by a zygote"
    print(f"Grading overhead per submission: notebook {a.id} ({args.variant}), submission processes "
          f"{how}; {machine()}\n")
    with tempfile.TemporaryDirectory(prefix="grading-overhead-") as tmp, OtherLoad() as load:
        tmp = Path(tmp)
        if not args.skip_nbgrader:
            s = end_to_end(tmp, a, args.class_size, args.repeat)
            n = args.class_size
            print(f"1. End to end, serial, median of {args.repeat}: wall seconds (the machine's busy "
                  f"CPU seconds during the run: see grading_classes.run_timed)")
            print(f"   {'':<44}{'ours':>14}{'nbgrader':>16}{'ratio':>14}")
            rows = [("one notebook (cold: the tool's start-up too)", 1),
                    (f"a class of {n} notebooks", n),
                    ("per submission (slope: one more notebook)", "slope")]
            for label, key in rows:
                ours, theirs = s["ours", key], s["nbgrader", key]
                print(f"   {label:<44}{ours:>7.2f} ({ours.cpu:>5.2f}){theirs:>8.2f} ({theirs.cpu:>5.2f})"
                      f"{ours / theirs:>7.2f} ({ours.cpu / theirs.cpu:.2f})")
            print(f"   nbgrader autograde writes no feedback: `nbgrader generate_feedback` adds "
                  f"{s['feedback', 'slope']:.2f} s per submission ({s['feedback', 1]:.2f} s for one); "
                  f"ours includes it.")
            print(f"   target: ours / nbgrader <= 0.15 per submission (issue 20) -> "
                  f"{s['ours', 'slope'] / s['nbgrader', 'slope']:.2f}\n")
        notebook = tmp / "phases" / f"{a.notebook}.ipynb"
        notebook.parent.mkdir()
        nbformat.write(variants(a.id)[args.variant], str(notebook))
        p = json.loads(subprocess.run([sys.executable, __file__, "--phases-of", str(notebook), "--assignment",
                                       a.id, "--variant", args.variant], check=True, capture_output=True,
                                      text=True).stdout)
        print("2. Our phases for one submission, in a fresh process (warm), median of 5: seconds")
        for phase in PHASES:
            print(f"   {phase:<44}{p[phase]:>8.3f}  {100 * p[phase] / p['total']:>4.0f} %")
        print(f"   {'total (grade_one + report)':<44}{p['total']:>8.3f}\n")
        print("3. The pieces of a submission process's start, each on its own: seconds")
        for label, seconds in pieces(tmp, a, args.repeat).items():
            print(f"   {label:<66}{seconds:>7.3f}")
    print(f"\n{load.warning()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
