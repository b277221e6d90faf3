"""`check("task_id")` in a notebook: the grader's own checks, on the notebook's own code.

It uses the public seed, prints a short verdict, and raises `CheckFailed` when a check fails,
so that nbgrader gives the grade cell zero points. In the student bundle, the checks' reference
values are the public cases recorded when the bundle was built (autograder/references): a check
whose reference value is not among them is "unchecked", printed with ⚠ as not checked here
(grading checks it), and does not make the cell fail by itself. While the grader runs a
notebook, `check` does nothing: grading runs the checks itself, from outside.
"""
from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time

from ..course.config import load_course
from ..sandbox import protocol
from ..sandbox.errors import SELF_CHECK_TIMEOUT, ProbeError, ProbeTimeout, where_raised
from .feedback import BY_HAND, BY_HAND_MARK, all_passed, failed_lines, name as _name, some_passed

PACKAGE_DIR = os.path.dirname(os.path.dirname(__file__))   # autograder/: its frames are not the student's


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple:
    """The folders of code that is not the student's: the grader's, dp's, Python's own and the
    installed packages' (NumPy's, ...)."""
    import sysconfig
    import dp
    paths = sysconfig.get_paths()
    return tuple({PACKAGE_DIR, os.path.dirname(dp.__file__),
                  *(paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))})


def _theirs(filename: str) -> bool:
    """The file is the student's code: a notebook cell (or a module of theirs), not a library."""
    return not filename.startswith(("<frozen", *_library_dirs()))


class CheckFailed(AssertionError):
    """The self-check of a task did not pass (the message says why)."""

    def _render_traceback_(self) -> list:
        """What IPython shows instead of a traceback: the report itself is printed just above,
        and a traceback into the grader's code would only repeat it."""
        verdict = str(self).splitlines()[0] if str(self) else "the check did not pass"
        return [f"CheckFailed: {verdict} (the report is above)"]


class _PastBudget(BaseException):
    """Raised into the student's code when a probe call runs past its budget: a BaseException,
    so that the student's `except Exception` does not swallow it."""


@contextlib.contextmanager
def _stopped_after(seconds: float):
    """Interrupt the code inside after `seconds` (a SIGALRM timer), where the process lets us:
    in its main thread (Jupyter runs cells there), with no other SIGALRM handler. Elsewhere the
    code runs to its end, and its time is measured after."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None):
        yield
        return

    def stop(*_):
        raise _PastBudget()
    signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


class LocalSubmission:
    """The notebook's own namespace, probed in-process (self-check only: never for grading).

    Each probe call has grading's budget, probe_time_limit: one that runs past it is stopped
    (where a timer can stop it) and fails its check as grading would fail it."""

    def __init__(self, namespace, assignment):
        import importlib
        self.namespace = namespace
        self.probes = importlib.import_module(assignment.probes_module)
        self.budget = assignment.limits.probe_time_limit

    def probe(self, name, **kwargs):
        start = time.monotonic()
        try:
            with _stopped_after(self.budget):
                result = getattr(self.probes, name)(self.namespace, **kwargs)
        except _PastBudget:
            result = _PastBudget
        except NotImplementedError:
            raise ProbeError("NotImplementedError: this part is not implemented yet") from None
        except Exception as error:  # noqa: BLE001 - any error of the student's code
            where = where_raised(error.__traceback__, _theirs,
                                 lambda file, function, line: f"in {function}, line {line}")
            raise ProbeError(f"{type(error).__name__}: {error}{where}") from None
        if result is _PastBudget or time.monotonic() - start > self.budget:
            raise ProbeTimeout(SELF_CHECK_TIMEOUT.format(name=name, budget=self.budget))
        return protocol.decode(protocol.encode(result))   # exactly what grading would see


def _caller_namespace():
    frame = sys._getframe(2)
    return frame.f_globals


def check(task_id: str, namespace=None) -> None:
    """Run the checks of `task_id` on this notebook's code and print the verdict."""
    if os.environ.get("AUTOGRADER_GRADING"):
        return None
    from .judge import run_checks
    course = load_course()
    if any(q.id == task_id for a in course.assignments for q in a.questions):
        print(f"{BY_HAND_MARK} {task_id}: a question {BY_HAND}; check() has nothing to check")
        return None
    assignment = course.task_owner(task_id)
    namespace = namespace if namespace is not None else _caller_namespace()
    [result] = run_checks(LocalSubmission(namespace, assignment), assignment,
                          seed=course.public_seed, public=True, tasks=[task_id])
    checks = result["checks"]
    total, passed = len(checks), sum(c["status"] == "passed" for c in checks)
    unchecked = [f"  ⚠ {_name(c)}: {c['message']}" for c in checks if c["status"] == "unchecked"]
    if result["status"] == "passed":
        points = result["max_points"]
        print(f"✔ {task_id}: {all_passed(total)} ({points:g} point{'' if points == 1 else 's'} when graded)")
        return None
    if result["status"] == "unchecked":     # the others passed: not a failure of the student's
        print("\n".join([f"⚠ {task_id}: {some_passed(passed, total)}; {len(unchecked)} "
                         f"not checked here (checked when graded)"] + unchecked))
        return None
    lines = [f"✘ {task_id}: {some_passed(passed, total)}"
             + (f"; {len(unchecked)} not checked here (checked when graded)" if unchecked else "")]
    lines += failed_lines(checks)
    report = "\n".join(lines + unchecked)
    print(report)
    raise CheckFailed(report)


def run_notebook(path) -> dict:
    """The namespace of the notebook at `path` after its code cells ran in order, in its own
    folder, as Jupyter runs them, its check cells left out (course.notebook.code_cells); a cell
    that raises is said on stderr and the next one runs, as in a student's kernel."""
    import traceback as tb
    from pathlib import Path
    import matplotlib
    matplotlib.use("Agg")
    from ..course.notebook import code_cells, read_notebook
    path = Path(path).resolve()
    namespace, cwd = {"__name__": "__main__"}, os.getcwd()
    os.chdir(path.parent)
    try:
        for number, code in code_cells(read_notebook(path)):
            try:
                exec(compile(code, f"<cell {number}>", "exec"), namespace)
            except Exception:  # noqa: BLE001 - the student's cell: said, and the next one runs
                print(f"cell {number} raised:\n{tb.format_exc(limit=-3)}", file=sys.stderr)
    finally:
        os.chdir(cwd)
    return namespace


def main(argv=None) -> int:
    """`python -m autograder.grading.selfcheck NOTEBOOK TASK`: the notebook's cells, then
    `check(TASK)` with the public seed, as in JupyterLab; exit status 0 when it passed, 1 when
    it did not (what a GitHub Classroom workflow runs on each push: formative, never the grade)."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m autograder.grading.selfcheck",
                                     description=main.__doc__)
    parser.add_argument("notebook")
    parser.add_argument("task")
    args = parser.parse_args(argv)
    namespace = run_notebook(args.notebook)
    try:
        check(args.task, namespace)
    except CheckFailed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
