"""The grader's own work on one submission is bounded (issue 31): its checks run under a CPU
budget (grader_cpu_limit) and a deadline (autograder.grading.budget), whatever the replies cost
them. The checks here are 01's real ones, on the solution probed in this process; the probes of
the last task (numerical_gradient) cost the grader CPU or time of their own, as a reply that a
check reads slowly would."""
import dataclasses
import time

import pytest

from autograder.course.config import CourseError, load_course
from autograder.grading import budget, executors
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import COURSE, notebook_fixture

A = "01_scalar_autodiff"
LAST = "numerical_gradient"         # the task of the last checks of 01, and of its numgrad probe
namespace = notebook_fixture(A)


def burn(seconds):
    """Use `seconds` of this process's CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class Costly(LocalSubmission):
    """The solution, whose every `numgrad` reply costs the grader `cost(seconds)` first."""

    def __init__(self, namespace, assignment, cost, seconds):
        super().__init__(namespace, assignment)
        self.cost, self.seconds = cost, seconds

    def probe(self, name, **kwargs):
        if name == "numgrad":
            self.cost(self.seconds)
        return super().probe(name, **kwargs)


def with_cpu_budget(seconds):
    assignment = COURSE.assignment(A)
    return dataclasses.replace(assignment, limits=dataclasses.replace(
        assignment.limits, grader_cpu_limit=seconds))


@pytest.fixture(scope="module")
def honest(namespace):
    """(CPU seconds, wall seconds) of 01's checks on the solution, under no budget."""
    cpu, wall = time.process_time(), time.monotonic()
    results = run_checks(LocalSubmission(namespace, COURSE.assignment(A)), COURSE.assignment(A), 1)
    assert all(r["points"] == r["max_points"] for r in results), results
    return time.process_time() - cpu, time.monotonic() - wall


def by_task(results):
    return {r["id"]: r for r in results}


def test_checks_past_their_cpu_budget_stop_and_say_why(namespace, honest):
    # 21 numgrad probes of 0.5 s each: 10.5 s of CPU unbounded; the budget leaves 1 s for them
    allowed = round(1.5 * honest[0] + 1, 1)
    assignment = with_cpu_budget(allowed)
    start = time.process_time()     # CPU, as the budget counts it (wall time varies with the load)
    results = by_task(run_checks(Costly(namespace, assignment, burn, 0.5), assignment, 1,
                                 deadline=time.monotonic() + 600))
    assert time.process_time() - start < allowed + 3 * budget.RAISE_AGAIN
    stopped = results[LAST]
    assert stopped["status"] == "timeout" and stopped["points"] == 0, stopped
    assert f"more than the {allowed:g} s allowed" in stopped["message"], stopped["message"]
    assert "the tasks not checked in full earn nothing" in stopped["message"]
    for task in COURSE.assignment(A).tasks:       # checked in full before: kept
        if task.id != LAST:
            assert results[task.id]["points"] == task.points, results[task.id]


def test_checks_past_the_deadline_stop_and_say_why(namespace, honest):
    assignment = COURSE.assignment(A)
    start = time.monotonic()
    results = by_task(run_checks(Costly(namespace, assignment, time.sleep, 0.5), assignment, 1,
                                 deadline=time.monotonic() + honest[1] + 1))
    assert time.monotonic() - start < honest[1] + 1 + 3 * budget.RAISE_AGAIN
    assert results[LAST]["status"] == "timeout" and results[LAST]["points"] == 0
    assert "the submission's time limit passed" in results[LAST]["message"]


def test_the_next_submission_is_checked_in_full_at_its_normal_speed(namespace, honest):
    assignment = with_cpu_budget(round(1.5 * honest[0] + 1, 1))
    run_checks(Costly(namespace, assignment, burn, 0.5), assignment, 1, deadline=time.monotonic() + 600)
    start = time.monotonic()
    results = run_checks(LocalSubmission(namespace, assignment), assignment, 1,
                         deadline=time.monotonic() + 600)
    assert all(r["points"] == r["max_points"] and r["status"] == "passed" for r in results), results
    assert time.monotonic() - start < 2 * honest[1] + 1
    time.sleep(2 * budget.RAISE_AGAIN)      # nothing is pending in this thread: no OverBudget here


def test_a_block_that_does_not_stop_is_taken_over(monkeypatch):
    monkeypatch.setattr(budget, "TAKEOVER", 0.5)
    taken = []
    start = time.monotonic()
    with budget.limited(60, time.monotonic() + 0.2, taken.append) as spent:
        time.sleep(2)           # one call that an OverBudget cannot interrupt
        pytest.fail("an OverBudget was due when the sleep ended")
    assert spent.over and spent.over.startswith("the submission's time limit passed")
    assert taken == [spent.over] and time.monotonic() - start < 3


@pytest.mark.parametrize("key, share", [("grader_cpu_limit", 2), ("probe_time_limit", 4)])
def test_a_limit_left_out_is_a_share_of_the_time_limit_unless_set(key, share, tmp_path):
    path = tmp_path / "course.toml"
    path.write_text(_course_text().format(""))
    assert getattr(load_course(path).assignment("a").limits, key) == 100 / share
    path.write_text(_course_text().format(f"{key} = 7"))
    assert getattr(load_course(path).assignment("a").limits, key) == 7
    path.write_text(_course_text().format(f"{key} = 0"))
    with pytest.raises(CourseError, match=rf"'a'\.{key}: must be a positive number, not 0"):
        load_course(path)


def test_a_probe_may_not_have_more_time_than_the_whole_submission(tmp_path):
    path = tmp_path / "course.toml"
    path.write_text(_course_text().format("probe_time_limit = 101"))
    with pytest.raises(CourseError, match=r"'a'\.probe_time_limit: 101 s, more than its "
                                          r"time_limit of 100 s"):
        load_course(path)


def _course_text() -> str:
    """A course of one assignment 'a' with a time_limit of 100 s; '{}': more of its keys."""
    return "[course]\n[limits]\n" + "\n".join(
        f"{k} = {v}" for k, v in {"time_limit": 100, "cpu_limit": 1, "memory_limit": '"1GiB"',
                                  "max_processes": 1, "max_file_size": '"1MiB"',
                                  "max_reply": '"1MiB"', "max_output": '"1MiB"'}.items()) + \
        "\n[[assignment]]\nid='a'\nnotebook='n'\n{}\n[[assignment.task]]\nid='t'\npoints=1\n"


def stuck_or_done(name, tries):
    """A call of a pool: "stuck" is taken over (counted in the file `tries`), others answer."""
    if name == "stuck":
        with open(tries, "a") as count:
            count.write("x")
        executors.takeover("stuck in C")
    return name


def test_a_pool_worker_taken_over_ends_and_its_call_is_answered_once(tmp_path):
    tries = tmp_path / "tries"
    calls = [("stuck", str(tries)), ("done", str(tries)), ("also done", str(tries))]
    with executors.completed(stuck_or_done, calls, workers=2,
                             lost=lambda args, reason: f"{args[0]}: {reason}") as answers:
        got = sorted(answers)
    assert got == ["also done", "done", "stuck: the grader's checks went over their budget and "
                                        "did not stop, so their process was ended"]
    assert tries.read_text() == "x"       # not run again: it would do the same


LEFT_CLEAN = """
import sys, time
from autograder.grading.budget import limited
with limited(60, time.monotonic() + 60):          # a block within its budget
    pass
with limited(0.05, time.monotonic() + 60):        # and one stopped
    while True:
        pass
def f():
    return sum(range(10))
sys.settrace(lambda frame, event, arg: None)       # a traced call, as derived mistakes trace
print(f())
"""


def test_a_budget_leaves_no_asynchronous_exception_flag_behind(tmp_path):
    """After `limited` blocks, stopped or not, the process runs on as before: a traced call
    returns (cancelling a pending exception with PyThreadState_SetAsyncExc(id, NULL) left the
    interpreter's flag set, and CPython 3.11 then spun forever at the traced frame's start: a
    suite worker hung 20 minutes in references.derived's trace of 06's reference)."""
    import subprocess
    import sys
    run = subprocess.run([sys.executable, "-c", LEFT_CLEAN], capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 0 and run.stdout.strip() == "45", (run.stdout, run.stderr[-2000:])
