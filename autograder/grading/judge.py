"""Run an assignment's checks (pytest) against a submission and turn outcomes into tasks.

Checks are ordinary pytest test functions in autograder/checks/<notebook>.py, each marked with
``@pytest.mark.task("<task id>")``. They receive these fixtures:

  submission   `.probe(name, **kwargs)` runs a probe next to the student's code -> plain data,
               checked against the probe's reply schema (autograder/grading/replies.py) before any
               check sees it: a malformed reply fails the check that asked for it
  rng          a NumPy Generator seeded from the grading seed (public seed in self-checks)
               and the test's name, so hidden inputs differ per student but are repeatable
  public       True in the in-notebook self-check, False when grading (hidden variants)
  assignment   the Assignment from course.toml (thresholds, limits)
  metrics      a dict; numbers put there appear in the task's result `metrics`

Expected values are computed inside the check, here, with dp and NumPy.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import zlib

import numpy as np
import pytest

from ..course.config import PACKAGE
from ..sandbox.errors import ProbeError, ProbeTimeout, SubmissionCrashed, SubmissionTimeout
from ..course.exercise import missing_name
from ..references import NotPublic, per_task
from . import checking
from .budget import OverBudget, limited
from .replies import MalformedReply, Validated

# "unchecked": the self-check in the student bundle has no public case for a reference value
# (autograder/references); grading never gives it, since the references are there.
# A task's status is its worst check's. A wrong value outranks an error: when the code gave a
# wrong answer in one check and raised in another (a gradient of the wrong shape, used further
# on), the task failed, and its message is the wrong value's, the error's added after it.
SEVERITY = {"passed": 0, "unchecked": 1, "error": 2, "failed": 3, "timeout": 4}
# pytest plugins the judge does without (one session per submission: their cost adds up). The
# exception plugins collect garbage at the end of each session to find exceptions raised in
# __del__ or threads, half of an empty session's time; the checks are trusted code that starts
# no threads, and when grading, the student's objects never reach this process (plain data).
UNNEEDED_PLUGINS = ("cacheprovider", "terminal", "stepwise", "unraisableexception",
                    "threadexception", "faulthandler")


# A probe's lookup of a name in the notebook's namespace failed: a KeyError raised outside the
# student's code (which would have said its cell or function), maybe with what was being done.
_LOOKUP = re.compile(r"KeyError: '(?P<name>[A-Za-z_]\w*)'(?P<doing>, .*)?", re.S)


def _message(excinfo, assignment=None) -> tuple:
    error = excinfo.value
    if isinstance(error, SubmissionTimeout):
        return "timeout", str(error)
    if type(error) is ProbeError and assignment is not None and (
            lookup := _LOOKUP.fullmatch(str(error))):
        missing = missing_name(lookup["name"], assignment.exercise_path())
        if missing:
            return "error", missing + (lookup["doing"] or "")
    if isinstance(error, (SubmissionCrashed, ProbeError)):
        return "error", f"your code raised {error}" if type(error) is ProbeError else str(error)
    if isinstance(error, MalformedReply):
        return "failed", str(error)
    if isinstance(error, NotPublic):
        return "unchecked", "not checked here: this check needs the grader's reference (grading checks it)"
    if isinstance(error, AssertionError):
        text = str(error).split("\nassert ")[0].strip() or "a check failed"
        return "failed", text
    return "error", GRADER_FAULT.format(error=f"{type(error).__name__}: {error}")


# the message of a check that raised what no reply can make it raise (a probe's error, a malformed
# reply and a failed assertion are the submission's): the check or its reference is at fault
GRADER_FAULT = ("the grader's own check raised {error}: a fault of the grader, not of your code; "
                "the instructor is told, and grades this task again once it is fixed")


def grader_fault(excinfo) -> bool:
    """Whether a check's exception is the grader's fault (see GRADER_FAULT)."""
    return not excinfo.errisinstance((SubmissionTimeout, SubmissionCrashed, ProbeError,
                                      MalformedReply, NotPublic, AssertionError, OverBudget))


class JudgePlugin:
    """A pytest plugin providing the fixtures and collecting each test's outcome."""

    def __init__(self, submission, assignment, seed, public, tasks=None):
        self._submission, self._assignment, self._seed = submission, assignment, seed
        self._public, self.only = public, set(tasks) if tasks else None
        self.outcomes = []    # (task, test name, status, message, metrics)
        self._task_started = None   # the task whose checks run now (derived mistakes' time)
        self.problems = []    # checks without a valid task marker, collection errors
        self._metrics = {}
        self.planned = {}     # task -> how many of its checks were to run
        self.spent = None     # the budget.Spent of a run under a budget
        self.faults = set()   # the checks that raised by the grader's fault (GRADER_FAULT)
        self.stalled = set()  # tasks with a probe past its budget: their other checks do not run

    # -- fixtures ---------------------------------------------------------------------------
    @pytest.fixture
    def submission(self):
        return Validated(self._submission, importlib.import_module(self._assignment.probes_module))

    @pytest.fixture
    def rng(self, request):
        return np.random.default_rng([self._seed, zlib.crc32(request.node.name.encode())])

    @pytest.fixture
    def public(self):
        return self._public

    @pytest.fixture
    def assignment(self):
        return self._assignment

    @pytest.fixture
    def metrics(self, request):
        return self._metrics.setdefault(request.node.nodeid, {})

    @pytest.fixture
    def expect(self, metrics):
        """expect(received, expected, what, tol=1e-6, mistakes=(), part=None): the reply (a
        number or an array) is `expected` to `tol` relative error in every entry, or the check
        fails with the worst entry, expected and received, and the known mistake it matches
        (`checking.expect`)."""
        return functools.partial(checking.expect, metrics=metrics)

    # -- hooks ------------------------------------------------------------------------------
    def pytest_collection_modifyitems(self, items):
        task_ids = {t.id for t in self._assignment.tasks}
        keep = []
        for item in items:
            marks = _task_marks(item)
            if len(marks) != 1 or marks[0] not in task_ids:
                self.problems.append(f"check {item.name} must be marked with exactly one task "
                                     f"of {sorted(task_ids)}, has {marks}")
                continue
            item.task_id = marks[0]
            if self.only is None or marks[0] in self.only:
                keep.append(item)
                self.planned[marks[0]] = self.planned.get(marks[0], 0) + 1
        items[:] = keep

    def pytest_runtest_setup(self, item):
        if self.spent is not None and self.spent.over:     # stopped: run no other check
            item.session.shouldstop = "over the grader's budget"
            raise OverBudget()
        if getattr(item, "task_id", None) in self.stalled:   # it has lost its points already
            pytest.skip(STALLED)
        if getattr(item, "task_id", None) != self._task_started:   # a task's first check
            self._task_started = getattr(item, "task_id", None)
            per_task()

    def pytest_collectreport(self, report):
        if report.failed:
            self.problems.append(f"collecting {report.nodeid}: {report.longreprtext[-2000:]}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        """Record the check's outcome; for an exception, return a report of its message alone.
        The judge reads only `outcomes`: pytest's own traceback of a failed check (each entry's
        source located by parsing the checks module) is never shown, and made up 70 % of the
        grader's work on a submission that fails many checks."""
        self._record(item, call)
        if call.excinfo is None:
            return None     # pytest's report: nothing to format
        skipped = call.excinfo.errisinstance(pytest.skip.Exception)
        text = f"{call.excinfo.typename}: {call.excinfo.value}"[:2000]
        return pytest.TestReport(item.nodeid, item.location, {}, "skipped" if skipped else "failed",
                                 (str(item.path), item.location[1] or 0, text) if skipped else text,
                                 call.when, duration=call.duration, start=call.start, stop=call.stop)

    def _record(self, item, call):
        if call.when == "teardown" and not call.excinfo:
            if not any(o[1] == item.name for o in self.outcomes):
                self.outcomes.append((item.task_id, item.name, "passed", "",
                                      self._metrics.get(item.nodeid, {})))
        elif call.excinfo is not None and not any(o[1] == item.name for o in self.outcomes):
            if call.excinfo.errisinstance(pytest.skip.Exception):
                self.outcomes.append((item.task_id, item.name, "skipped", "", {}))
                return
            status, message = ("timeout", OVER_BUDGET.format(over=self.spent.over)) \
                if call.excinfo.errisinstance(OverBudget) and self.spent is not None \
                else _message(call.excinfo, self._assignment)
            if grader_fault(call.excinfo):
                self.faults.add(item.name)
            if call.excinfo.errisinstance(ProbeTimeout):
                self.stalled.add(item.task_id)
            self.outcomes.append((item.task_id, item.name, status, message,
                                  self._metrics.get(item.nodeid, {})))


def _task_marks(item) -> list:
    return [m.args[0] for m in item.iter_markers("task") if m.args]


def _pytest_args(paths) -> list:
    args = [*map(str, paths), "-c", str(PACKAGE / "checks" / "pytest.ini"),
            "--rootdir", str(PACKAGE / "checks"), "--import-mode=importlib", "-s", "-W", "ignore"]
    for unneeded in UNNEEDED_PLUGINS:
        args += ["-p", f"no:{unneeded}"]
    return args


@contextlib.contextmanager
def _quiet_pytest():
    saved = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = saved


def _credit(outcomes) -> float:
    """The share of a task's points its checks earn: all when every check passed; when the only
    other checks failed with a measured partial credit (metrics["credit"] in [0, 1], e.g. 09's
    accuracy between its floor and its bar), the smallest of those; else none."""
    if not outcomes:
        return 0.0
    shares = [1.0 if o[2] == "passed" else o[4].get("credit") if o[2] == "failed" else None
              for o in outcomes]
    if any(not isinstance(s, float) or not 0.0 <= s <= 1.0 for s in shares):
        return 0.0
    return min(shares)


def run_checks(submission, assignment, seed, public=False, tasks=None, deadline=None,
               takeover=None) -> list:
    """Run the checks; return one result per task of `assignment` (or of `tasks`):
    {"id", "points", "max_points", "status", "message", "metrics", "checks"}.
    With a `deadline` (time.monotonic()), they run under a budget (grading.budget): until then,
    and for at most the assignment's grader_cpu_limit seconds of CPU; `takeover(reason)` is
    called if they do not stop. Stopped, a task whose checks did not all finish earns nothing,
    with the status "timeout" and a message that says why; the others keep what they earned."""
    plugin, code = JudgePlugin(submission, assignment, seed, public, tasks), None
    bounded = contextlib.nullcontext() if deadline is None else \
        limited(assignment.limits.grader_cpu_limit, deadline, takeover)
    try:
        with _quiet_pytest(), bounded as plugin.spent:
            code = pytest.main(_pytest_args([assignment.checks_path]), plugins=[plugin])
    finally:
        per_task(started=False)     # the last task's time for derived mistakes ends with it
    over = plugin.spent is not None and plugin.spent.over
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR) and not over:
        plugin.problems.append(f"pytest exited with {code!r}")
    if plugin.problems:
        raise RuntimeError("the checks of " + assignment.id + " are broken: " + "; ".join(plugin.problems))
    results = _results(plugin, assignment, tasks)
    if over:
        message = OVER_BUDGET.format(over=plugin.spent.over)
        for result in results:
            done = [o for o in plugin.outcomes if o[0] == result["id"] and o[3] != message]
            if len(done) < plugin.planned.get(result["id"], 0):
                result.update(points=0.0, status="timeout", message=message)
    return results


def _results(plugin, assignment, tasks) -> list:
    """One result per task, from the outcomes of its checks."""
    results = []
    for task in assignment.tasks:
        if tasks and task.id not in tasks:
            continue
        mine = [o for o in plugin.outcomes if o[0] == task.id and o[2] != "skipped"]
        status = max((o[2] for o in mine), key=SEVERITY.get, default="error")
        failed = [o for o in mine if o[2] != "passed"]
        message = _task_message(failed, status) if failed else ("" if mine else "no check ran for this task")
        metrics = {}
        for o in mine:     # several checks may measure the same thing: keep the largest
            for key, value in o[4].items():
                metrics[key] = max(metrics[key], value) if isinstance(value, (int, float)) and \
                    isinstance(metrics.get(key), (int, float)) else value
        results.append({"id": task.id, "title": task.title, "points": task.points * _credit(mine),
                        "max_points": task.points, "status": status if mine else "error",
                        "message": message, "metrics": metrics,
                        "checks": [{"name": o[1], "status": o[2], "message": o[3]} for o in mine],
                        **({"grader_fault": True} if any(o[1] in plugin.faults for o in mine) else {})})
    return results


def _task_message(failed, status) -> str:
    """The message of the first check with the task's status; a failure's message says too what
    another check's error was (a wrong shape that made the student's code raise further on)."""
    first = next(o for o in failed if o[2] == status)
    other = next((o for o in failed if o[2] == "error"), None) if status == "failed" else None
    return first[3] + (f"\n(another check: {other[3]})" if other else "")


# why a check did not run (skipped): a probe of its task had run past its own budget, which
# costs the task its points; each further slow probe would cost the others' time
STALLED = "not run: a probe of this task ran past its budget before"

# the message of a check stopped by the budget, and of its task
OVER_BUDGET = ("the grader stopped checking this submission: its replies took the grader's checks "
               "{over}. A submission's time limit covers the grader's work on it too: the tasks "
               "not checked in full earn nothing")


class _Collector:
    """Collects the checks' task marks, per check file, and runs none of them."""

    def __init__(self):
        self.marks, self.errors = {}, {}     # {path: [(check, [tasks])]}, {path: error}

    def pytest_collection_modifyitems(self, items):
        for item in items:
            self.marks.setdefault(str(item.path), []).append((item.name, _task_marks(item)))
        items[:] = []

    def pytest_collectreport(self, report):
        if report.failed:
            lines = [line for line in report.longreprtext.splitlines() if line.startswith("E ")]
            self.errors[report.nodeid] = (lines[-1][1:].strip() if lines else
                                          report.longreprtext.strip().splitlines()[-1])


def preflight(assignments) -> list:
    """What stops `assignments` (from course.toml) from being graded at all, one line each:
    no checks or probes for its notebook, checks that cannot be imported, a task with no check,
    a check marked with no task of the assignment. Empty when all is well. The instructor's
    problems, found before any student is graded (`grade`, `check`, `build --check`)."""
    import difflib
    problems, present = [], []
    for a in assignments:
        missing = [f"{kind} ({path.relative_to(PACKAGE.parent)})"
                   for kind, path in (("checks", a.checks_path),
                                      ("probes", PACKAGE / "probes" / f"{a.notebook}.py"))
                   if not path.is_file()]
        if missing:
            checks = [p.stem for p in (PACKAGE / "checks").glob("*.py")]
            near = difflib.get_close_matches(a.notebook, checks, n=1)
            problems.append(f"course.toml: assignment {a.id!r}: notebook = {a.notebook!r} has no "
                            + " and no ".join(missing)
                            + (f"; did you mean {near[0]!r}?" if near else ""))
        else:
            present.append(a)
    if not present:
        return problems
    collector = _Collector()
    with _quiet_pytest():
        pytest.main(_pytest_args([a.checks_path for a in present]), plugins=[collector])
    for a in present:
        where = a.checks_path.relative_to(PACKAGE.parent)
        errors = [e for node, e in collector.errors.items() if node.endswith(a.checks_path.name)]
        if errors:
            problems.append(f"{where} cannot be imported: {errors[0]}")
            continue
        marks = collector.marks.get(str(a.checks_path), [])
        tasks = [t.id for t in a.tasks]
        unmarked = [name for name, found in marks if len(found) != 1]
        graded = {}
        for name, found in marks:
            if len(found) == 1:
                graded[found[0]] = graded.get(found[0], 0) + 1
        unknown = [task for task in graded if task not in tasks]
        said = []
        for task in tasks:
            if task not in graded:
                near = difflib.get_close_matches(task, unknown, n=1)
                said += near
                guess = f"; did you mean {near[0]!r} (the task of {graded[near[0]]} check(s) " \
                    "there)?" if near else ""
                problems.append(f"course.toml: assignment {a.id!r}: task {task!r} has no check in "
                                f"{where}{guess}")
        problems += [f"{where}: {graded[task]} check(s) grade task {task!r}, which assignment "
                     f"{a.id!r} does not have in course.toml"
                     for task in unknown if task not in said]
        if unmarked:
            problems.append(f"{where}: {len(unmarked)} check(s) not marked with exactly one task "
                            f"(@pytest.mark.task(\"<task id>\")): {', '.join(unmarked[:5])}")
    return problems
