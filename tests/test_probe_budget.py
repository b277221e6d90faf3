"""A time budget per probe call (probe_time_limit): a slow answer fails its own probe, and its
task, and nothing else; the notebook runs again, in a fresh process, for the probes after it;
the time limit still covers them all. 02 gives each gradient task a case on large matrices, where
a backward pass by numerical differentiation runs past that budget (benchmarks/probe_budget.py
measures the margins)."""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from autograder.sandbox.errors import ProbeTimeout, SubmissionTimeout
from autograder.sandbox.process import Sandbox
from tests.grading import COURSE, explain, grade_source, points, solution_namespace, solution_source
from tests.mutants.matrix_autodiff import NUMERICAL_LINEAR

A = "02_matrix_autodiff"

# A Tensor whose transpose is quick and whose matrix product never ends: it first spoils a
# global, and blocks every signal it can, so that nothing but a kill from outside stops it.
SLOW_DOT = """
import signal
import numpy as np
spoiled = False

class Tensor:
    def __init__(self, value, parents=()):
        self.value, self.parents, self.grad = np.array(value, dtype=float), parents, None

    @property
    def T(self):
        return Tensor(self.value.T * (-1 if spoiled else 1), parents=(self,))

    def dot(self, other):
        global spoiled
        spoiled = True
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        while True:
            pass

    def backward(self, upstream):
        self.grad = upstream
        for parent in self.parents:
            parent.grad = upstream.T
"""


def assignment_with(**limits):
    assignment = COURSE.assignment(A)
    return dataclasses.replace(assignment, limits=dataclasses.replace(assignment.limits, **limits))


def transpose(sandbox, x):
    return sandbox.probe("run", inputs=[x], program=[["T", 0]], upstream=np.ones(x.T.shape))


def slow_dot(sandbox, x):
    return sandbox.probe("run", inputs=[x, x.T], program=[["dot", 0, 1]],
                         upstream=np.ones((len(x), len(x))))


def test_a_slow_probe_fails_alone_and_the_next_runs_on_a_fresh_run_of_the_notebook():
    x = np.arange(6.0).reshape(2, 3)
    with Sandbox([(1, SLOW_DOT)], assignment_with(time_limit=30, probe_time_limit=1.5)) as sandbox:
        assert transpose(sandbox, x)["value"].tolist() == x.T.tolist()
        start = time.monotonic()
        with pytest.raises(ProbeTimeout) as stopped:
            slow_dot(sandbox, x)
        assert 1.5 <= time.monotonic() - start < 4
        assert "probe 'run' took longer than its 1.5 s (probe_time_limit" in str(stopped.value)
        assert "numerical differentiation" in str(stopped.value)
        again = transpose(sandbox, x)      # not spoiled: the notebook ran again
        assert again["value"].tolist() == x.T.tolist() and again["grads"][0].tolist() == np.ones((2, 3)).tolist()
    assert "probe 'run' ran past its 1.5 s (probe_time_limit) and its process was killed" in \
        sandbox.captured_output


def test_the_time_limit_still_covers_every_probe():
    x = np.arange(6.0).reshape(2, 3)
    start = time.monotonic()
    with Sandbox([(1, SLOW_DOT)], assignment_with(time_limit=5, probe_time_limit=2)) as sandbox:
        stopped = []
        while not stopped or isinstance(stopped[-1], ProbeTimeout):
            with pytest.raises(SubmissionTimeout) as error:
                slow_dot(sandbox, x)
            stopped.append(error.value)
        # each probe its 2 s, each on a fresh run of the notebook, until the 5 s are up
        assert [type(e) for e in stopped[:-1]] in ([ProbeTimeout], [ProbeTimeout] * 2), stopped
        assert "time limit of 5 s reached" in str(stopped[-1])
        with pytest.raises(SubmissionTimeout, match="time limit of 5 s reached"):
            transpose(sandbox, x)
    assert time.monotonic() - start < 5 + 3


class SlowDotSubmission(LocalSubmission):
    """The solution, probed in-process, whose every matrix product runs past its budget."""

    def __init__(self, namespace, assignment):
        super().__init__(namespace, assignment)
        self.slow = 0

    def probe(self, name, **kwargs):
        if any(op == "dot" for op, *_ in kwargs.get("program", [])):
            self.slow += 1
            raise ProbeTimeout("probe 'run' took longer than its budget")
        return super().probe(name, **kwargs)


def test_a_task_with_a_probe_past_its_budget_runs_no_further_check_and_the_others_all_run():
    assignment = COURSE.assignment(A)
    submission = SlowDotSubmission(solution_namespace(A), assignment)
    results = {r["id"]: r for r in run_checks(submission, assignment, seed=1)}
    assert submission.slow == 1
    slow = results.pop("matrix_dot_transpose")
    assert (slow["points"], slow["status"]) == (0, "timeout"), slow
    assert slow["message"].startswith("probe 'run' took longer than its budget (the probe was "
                                      "computing a.dot(b) with a of shape")
    assert {c["status"] for c in slow["checks"]} == {"timeout"}     # the skipped ones not listed
    assert all(r["status"] == "passed" and r["points"] == r["max_points"]
               for r in results.values()), results


def test_numerical_gradients_lose_exactly_the_tasks_whose_operations_use_them(tmp_path):
    """The solution whose dot, transpose, + * and sum differentiate numerically, entry by
    entry (right values: it passes every small case) loses those three tasks on their large
    case, with the probe's budget as the reason; softmax_log keeps its points."""
    result = grade_source(solution_source(A) + "\n# %%\n" + NUMERICAL_LINEAR, A, tmp_path)
    full = {t.id: t.points for t in COURSE.assignment(A).tasks}
    slow = {"matrix_dot_transpose", "broadcast_add_mul", "matrix_sums"}
    assert points(result) == {t: 0 if t in slow else p for t, p in full.items()}, explain(result)
    budget = COURSE.assignment(A).limits.probe_time_limit
    for task in result["tasks"]:
        if task["id"] in slow:
            assert task["status"] == "timeout", explain(result)
            assert task["message"].startswith(f"probe 'run' took longer than its {budget:g} s"), task
            assert "numerical differentiation" in task["message"]
            failed = [c for c in task["checks"] if c["status"] != "passed"]
            assert [c["name"] for c in failed] == [c["name"] for c in task["checks"]
                                                    if c["name"].startswith("test_large_matrices")]
    assert result["seconds"] < COURSE.assignment(A).limits.time_limit


def test_what_the_notebook_tries_when_it_runs_again_is_reported_too():
    """After a probe past its budget, the notebook runs again in a fresh process: what the guards
    refuse in that run is reported with the first run's (here a command that only the second run
    tries, seeing the file the first one left in the submission's folder, which persists in the
    trusted mode; sealed, each run has a fresh one)."""
    x = np.arange(6.0).reshape(2, 3)
    second = "import os\nif os.path.exists('ran_once'):\n    os.system('true')\nopen('ran_once', 'w').close()\n"
    with Sandbox([(1, SLOW_DOT), (2, second)], assignment_with(time_limit=30, probe_time_limit=1.5),
                 sealed=False) as sandbox:
        assert sandbox.reported("attempts") == []
        with pytest.raises(ProbeTimeout):
            slow_dot(sandbox, x)
        transpose(sandbox, x)
        attempts = sandbox.reported("attempts")
    assert attempts == ["starting processes"], attempts


@pytest.mark.parametrize("forged", [{"attempts": 7}, {"attempts": {"a": 1}}, {"tampered": "x" * 10 ** 6},
                                    {"attempts": [[1, 2]] * 1000}])
def test_a_forged_report_of_attempts_is_read_as_bounded_strings(forged):
    """The report comes from the submission's process: what is no list is read as none, and a
    list as at most 20 strings of at most 200 characters."""
    sandbox = Sandbox([], COURSE.assignment(A))
    sandbox.report = forged
    for kind in ("attempts", "tampered"):
        items = sandbox.reported(kind)
        assert len(items) <= 20 and all(isinstance(i, str) and len(i) <= 200 for i in items)
        assert items == [] or isinstance(forged.get(kind), list)


@pytest.mark.parametrize("catches", [False, True])
def test_the_self_check_stops_a_probe_past_grading_budget_and_says_so(catches, monkeypatch):
    """In the notebook's own process, `check()` gives each probe call grading's budget: a
    student's matrix product that never returns (even one that catches Exception) is stopped,
    and its check says what grading would do, instead of the kernel hanging. The tasks that need
    no matrix product keep their points."""
    namespace = solution_namespace(A)
    loop = ("def dot(self, other):\n    while True:\n"
            + ("        try:\n            sum(range(10 ** 6))\n        except Exception:\n            pass\n"
               if catches else "        pass\n"))
    exec(loop, scope := {})
    monkeypatch.setattr(namespace["Tensor"], "dot", scope["dot"])
    assignment = assignment_with(probe_time_limit=1.0)
    start = time.monotonic()
    tasks = {t["id"]: t for t in run_checks(LocalSubmission(namespace, assignment), assignment,
                                            COURSE.public_seed, public=True)}
    assert time.monotonic() - start < 30
    stopped = [t for t in tasks.values() if t["status"] == "timeout"]
    assert [t["id"] for t in stopped] == ["matrix_dot_transpose"], explain({"tasks": list(tasks.values())})
    assert "ran longer here than the 1 s that grading gives one probe call" in stopped[0]["message"]
    assert stopped[0]["points"] == 0
    assert all(t["status"] == "passed" for t in tasks.values() if t not in stopped)
