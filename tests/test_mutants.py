"""Every mutant loses the points of its own task, and only those; and its self-check in the
student bundle would find every reference value it needs among the public cases.

Each mutant is graded once, as `grade` grades it. On the same running notebook its checks then
run again as the self-check runs them (public seed), recording their reference calls
(autograder/references): each must be one that the public cases, recorded on the solution, hold.
A replay then returns exactly what the reference computes, so the bundle's self-check gives
the mutant the verdicts and messages that grading with the public seed gives
(tests/test_public_cases.py replays the solution, the stub and the cascades in full).

The feedback of a mutant of the written-from part of the corpus names its known mistake (issue
19: tests/mutants NAMED); what every mutant's feedback names is written down for
tests/misconception_coverage.py, which reports the coverage of both parts.

A mutant marked slow (`Mutant(..., slow=True)`: one whose grading trains a network again, where
others of its task do already) runs with `make test-slow`; every task keeps one mutant in `make
test`, and every held-out mutant stays there.
"""
from unittest import mock

import pytest

import autograder.grading.grade
from autograder.grading import public_cases
from autograder import references
from tests import misconception_coverage
from tests.grading import COURSE, explain, grade_source, points
from tests.mutants import all_mutants, held_out, naming

MUTANTS = all_mutants()
NAMED, UNNAMEABLE = naming()
_solution_cases: dict = {}


def solution_cases(assignment) -> dict:
    """The public cases of `assignment`, recorded on its solution (cached on disk by release)."""
    if assignment.id not in _solution_cases:
        _solution_cases[assignment.id] = public_cases.record(assignment, COURSE.public_seed)
    return _solution_cases[assignment.id]


def graded_with_self_check_calls(mutant, tmp_path) -> tuple:
    """(the result of grading `mutant`, the keys of its self-check's reference calls)."""
    calls, grade_checks = {}, autograder.grading.grade.run_checks

    def then_self_check(submission, assignment, seed, *args, **kwargs):
        results = grade_checks(submission, assignment, seed, *args, **kwargs)
        with references.record(keys_only=True) as recorded:
            grade_checks(submission, assignment, COURSE.public_seed, public=True)
        calls.update(recorded.get(assignment.notebook, {}))
        return results

    with mock.patch.object(autograder.grading.grade, "run_checks", then_self_check):
        result = grade_source(mutant.source(), mutant.assignment, tmp_path)
    return result, set(calls)


@pytest.mark.parametrize("mutant", [pytest.param(m, id=repr(m), marks=[pytest.mark.slow] if m.slow
                                                  else []) for m in MUTANTS])
def test_mutant_is_caught_by_its_task_only(mutant, tmp_path):
    assignment = COURSE.assignment(mutant.assignment)
    result, calls = graded_with_self_check_calls(mutant, tmp_path)
    full = {t.id: t.points for t in assignment.tasks}
    got = points(result)
    assert got[mutant.task] < full[mutant.task], (
        f"mutant {mutant!r} ({mutant.why}) escaped: task {mutant.task} kept its points\n{explain(result)}")
    others = {t: p for t, p in got.items() if t != mutant.task}
    assert others == {t: p for t, p in full.items() if t != mutant.task}, (
        f"mutant {mutant!r} cost points outside its task {mutant.task}\n{explain(result)}")
    named = misconception_coverage.record(mutant, result)
    if repr(mutant) in NAMED:
        assert NAMED[repr(mutant)] in named, (
            f"the feedback of mutant {mutant!r} ({mutant.why}) does not name its known mistake "
            f"{NAMED[repr(mutant)]!r}\n{explain(result)}")
    if public_cases.has_references(assignment):
        unrecorded = calls - set(solution_cases(assignment))
        assert not unrecorded - references.hint_keys, (
            f"the self-check of mutant {mutant!r} makes {len(unrecorded - references.hint_keys)} "
            f"reference calls that the public cases (recorded on the solution) do not hold: a "
            f"check passes a reference something that depends on the submission")
        assert not unrecorded, (f"the self-check of mutant {mutant!r} words {len(unrecorded)} "
                                f"messages with hints that the public cases do not hold")


def test_every_mutant_of_the_written_from_part_is_named_or_said_to_be_unnameable():
    for mutant in MUTANTS:
        name = repr(mutant)
        assert not (name in NAMED and name in UNNAMEABLE), f"{name} is both named and unnameable"
        if held_out(mutant):
            assert name not in NAMED, f"{name} is held out: no known mistake is written from it"
        else:
            assert name in NAMED or name in UNNAMEABLE, (
                f"{name} ({mutant.why}): say which known mistake its feedback names (NAMED in "
                f"tests/mutants/) or why none can be (UNNAMEABLE)")
    assert set(NAMED) | set(UNNAMEABLE) <= {repr(m) for m in MUTANTS}, "a name of no mutant"


def test_the_corpus_covers_every_assignment_with_a_mutant():
    covered = {m.assignment for m in MUTANTS}
    graded = {a.id for a in COURSE.assignments}
    assert graded <= covered, f"assignments without mutants: {sorted(graded - covered)}"


def test_without_the_slow_tests_every_task_keeps_a_mutant_and_the_held_out_ones_run():
    """A mutant marked slow runs with `make test-slow` only: `make test` still grades, of every
    task with mutants, one mutant at least, and every held-out mutant."""
    tasks = {(m.assignment, m.task) for m in MUTANTS}
    assert tasks == {(m.assignment, m.task) for m in MUTANTS if not m.slow}
    assert not [repr(m) for m in MUTANTS if m.slow and held_out(m)]
