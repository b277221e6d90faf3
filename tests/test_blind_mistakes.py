"""The blind corpus of student mistakes (tests/blind_mistakes): every entry applies to its solution
(its `old` text occurs exactly once) and, graded by the self-check with the public seed, costs its
task; an entry that gives no wrong value keeps every point. The solution itself passes the same
path, so a failure is the planted bug's.

Cost, measured on one core of a loaded machine: the tests not marked slow take about 30 s of CPU
in all (each entry runs its notebook up to its task's check cell, then the checks); the slow ones
(the entries of 09 and 11 that train a network again, and ten solution runs) about 35 s more."""
import pytest

from autograder.grading import public_cases
from autograder.grading.checking import NAMES, OR_NAMES
from tests.blind_mistakes import NOTEBOOKS, corpus, outcome, self_check
from tests.grading import COURSE, solution_source
from tests.misconception_coverage import blind_coverage, record_blind, verdict

MISTAKES = corpus()


def _param(mistake):
    return pytest.param(mistake, id=repr(mistake), marks=[pytest.mark.slow] if mistake.slow else [])


def test_every_notebook_has_six_mistakes_that_give_a_wrong_value():
    counts = {n: sum(m.wrong_value for m in corpus(n)) for n in NOTEBOOKS}
    assert len(NOTEBOOKS) == len(COURSE.assignments) and min(counts.values()) >= 6, counts


def test_each_mistake_names_a_task_of_its_notebook_and_is_named_once():
    for mistake in MISTAKES:
        assignment = COURSE.assignment(mistake.assignment)
        assert mistake.task in {t.id for t in assignment.tasks}, mistake
        assert mistake.expect and all(isinstance(e, (str, tuple)) for e in mistake.expect), mistake
    names = [repr(m) for m in MISTAKES]
    assert len(names) == len(set(names))


def _mistake(name):
    [mistake] = [m for m in MISTAKES if m.name == name]
    return mistake


def test_expect_is_matched_case_insensitively():
    mistake = _mistake("adam_betas_swapped")
    assert mistake.names_it("it matches a known mistake: BETA1 and beta2 exchanged")
    assert not mistake.names_it("theta after step 1 is [nan, nan]")


def test_expect_tuple_needs_all_its_words():
    mistake = _mistake("adam_betas_swapped")
    mistake = type(mistake)(mistake.assignment, mistake.task, "probe", "o", "n", "why",
                            (("beta1", "beta2"),))
    assert mistake.names_it("beta1 and beta2") and not mistake.names_it("beta1 alone")


def test_a_message_is_named_named_wrongly_located_or_neither():
    mistake = _mistake("bce_sum_not_mean")              # expect: mean, sum, average
    before = "bce_loss(p, y) for 12 examples is 12.5, the binary cross-entropy is 1.04"
    assert verdict(mistake, before + NAMES + "the sum over the examples") == "named"
    assert verdict(mistake, before + NAMES + "the sign flipped" + OR_NAMES + "a sum") == "named"
    assert verdict(mistake, before + NAMES + "the sign flipped") == "named wrongly"
    assert verdict(mistake, before + ". The first difference: the reduction.") == "located"
    assert verdict(mistake, before + "; the loss first differs at node 4") == "located"
    assert verdict(mistake, before + "; see the first difference") == "neither"
    assert verdict(mistake, before) == "neither"


def test_the_coverage_counts_each_mistake_once_and_lists_the_wrong_names():
    outcomes = {repr(m): {"message": "expected 1, received 2"} for m in MISTAKES}
    wrong, slowdown = _mistake("bce_sum_not_mean"), _mistake("predict_builds_a_graph")
    outcomes[repr(wrong)] = {"message": "expected 1, received 12" + NAMES + "the sign flipped"}
    outcomes[repr(slowdown)] = {"message": NAMES + "a graph"}
    found = blind_coverage(outcomes)
    assert sum(sum(row.values()) for row in found["table"].values()) == \
        sum(m.wrong_value for m in MISTAKES)
    assert found["table"][wrong.assignment]["named wrongly"] == 1
    assert found["wrongly"] == [(repr(wrong), ["the sign flipped"])]
    assert found["slowdowns named"] == [repr(slowdown)]


@pytest.mark.parametrize("mistake", [_param(m) for m in MISTAKES])
def test_mistake_applies_and_costs_its_task(mistake):
    result = outcome(mistake)           # mistake.source() fails unless `old` occurs exactly once
    record_blind(mistake, result)       # for python -m tests.misconception_coverage
    if mistake.wrong_value:
        assert result["status"] in ("failed", "error") and result["points"] < result["max_points"], \
            (mistake.why, result["message"])
    else:
        assert result["status"] == "passed" and result["points"] == result["max_points"], \
            (mistake.why, result["message"])


@pytest.mark.parametrize("notebook", [
    pytest.param(n, marks=[] if n in ("scalar_autodiff", "optimizers") else [pytest.mark.slow])
    for n in NOTEBOOKS])
def test_the_solution_passes_every_task_of_the_corpus_on_the_same_path(notebook):
    """(Two cheap notebooks always, the others with the slow tests: the notebook tests' own
    test_check_cells_pass_on_the_solution covers them by the notebook's check cells.)"""
    [assignment] = {m.assignment for m in corpus(notebook)}
    tasks = sorted({m.task for m in corpus(notebook)})
    results = self_check(solution_source(assignment), assignment, tasks)
    # what a notebook without public cases checks against its references is checked when graded
    # (09's sweep: the grader trains its networks again)
    unchecked = "unchecked" if not public_cases.needs_recording(COURSE.assignment(assignment)) \
        else "passed"
    assert all(results[t]["status"] in ("passed", unchecked) for t in tasks) and set(results) == \
        set(tasks), {t: r["message"] for t, r in results.items()}


def test_every_mistake_and_mutant_applies_to_its_solution_once():
    """Cheap, in `make test`: a slow mistake or mutant (graded only by `make test-slow`) whose
    text a change of the solution made ambiguous or removed is found here too (09's sweep
    repeated `dp.one_hot(y_train, 10)`)."""
    from tests.grading import mutate, solution_source
    from tests.mutants import all_mutants
    for planted in corpus() + all_mutants():
        mutate(solution_source(planted.assignment), planted.old, planted.new)
