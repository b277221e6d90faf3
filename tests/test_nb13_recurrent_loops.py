"""Notebook 13, recurrent loops: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise; the grader's references
agree with each other (dp's unrolled network, the NumPy unrolling, central differences) and with
the notebook (the task's distribution, the LSTM's forward pass); any valid forward order passes."""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder import references
from autograder.references import recurrent_loops as reference
from tests.grading import (STUBS_FAIL_EVERYWHERE, assert_full_marks, forbidden_imports_of_probes,
                           grade_notebook, load_checks, notebook_cells, notebook_tests,
                           notebooks_fixture)

ASSIGNMENT = "13_recurrent_loops"
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["loop_forward"]["max_rel_error"] < 1e-12, metrics
    assert metrics["loop_backward"]["max_rel_error"] < 1e-12, metrics
    assert metrics["lstm_task"]["accuracy_of_the_parameters"] >= 0.97, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **STUBS_FAIL_EVERYWHERE)


@pytest.mark.parametrize("seed", range(3))
def test_the_unrolled_references_agree_with_each_other_and_central_differences(seed):
    rng = np.random.default_rng(seed)
    network, params, inputs = checks.random_case(rng, public=False)
    upstream = checks.upstream_on(rng, network, inputs, list(network))
    unrolled = reference.unrolled(network, params, inputs, upstream)
    by_numpy = reference.mistaken(network, params, inputs, upstream)
    for part in ("values", "params", "nodes"):
        for name, value in unrolled[part].items():
            np.testing.assert_allclose(by_numpy[part][name], value, rtol=1e-10, atol=1e-12)
    name = next(n for n in params if n.startswith("h"))       # a delay's initial value

    def loss(v):
        values = reference.mistaken(network, {**params, name: v}, inputs, upstream)["values"]
        return sum(float(np.sum(values[n] * g)) for n, g in upstream.items())
    numerical = dp.numerical_gradient(loss, params[name].copy())
    assert dp.relative_error(unrolled["params"][name], numerical, 1e-4).max() < 1e-6


def test_every_known_mistake_differs_from_the_right_gradients():
    rng = np.random.default_rng(7)
    network, params, inputs = checks.random_case(rng, public=False)
    upstream = checks.upstream_on(rng, network, inputs, list(network))
    right = reference.unrolled(network, params, inputs, upstream)
    for mistake in reference.MISTAKES:
        wrong = reference.mistaken(network, params, inputs, upstream, mistake)
        worst = max(np.abs(wrong[p][n] - right[p][n]).max() for p in ("values", "params", "nodes")
                    for n in right[p])
        assert worst > 1e-6, mistake


def test_any_valid_order_passes_and_an_invalid_one_fails(monkeypatch):
    """The order checks accept the grader's order and a different valid one (the loops' nodes
    in another topological order, the components where another order is valid), and reject a
    reversed one."""
    monkeypatch.setattr(checks, "ref", references.of("autograder.checks.recurrent_loops"))
    network, _, _ = checks.random_case(np.random.default_rng(3), public=False)
    where = "a test network"
    order = reference.forward_order(network)
    checks.assert_partition(order, network, where)
    checks.assert_order(order, network, where)
    checks.assert_loop_order(order, network, where)
    other = [c for c in order if len(c) == 1 and network[c[0]][0] == "input"] + \
            [c for c in order if not (len(c) == 1 and network[c[0]][0] == "input")]
    checks.assert_order(other, network, where)
    with pytest.raises(AssertionError, match="comes later"):
        checks.assert_order(order[::-1], network, where)
    loop = next(c for c in order if len(c) > 1)
    with pytest.raises(AssertionError, match="before its operand"):
        checks.assert_loop_order([loop[::-1]], network, where)


def test_the_graders_lstm_is_the_notebooks():
    notebook = notebook_cells(ASSIGNMENT, "first_bit", "LSTMClassifier")
    model = notebook["LSTMClassifier"](k=5, seed=3)
    rng = np.random.default_rng(4)
    model.set_param({"b": rng.normal(0, 1, 20), "c_out": rng.normal(size=2)})
    sequences, _ = notebook["first_bit"](64, checks.T_BIT, rng)
    with dp.no_grad():
        theirs = model.forward(sequences).value.argmax(axis=1)
    np.testing.assert_array_equal(reference.lstm_predictions(model.get_param(), sequences), theirs)
    np.testing.assert_array_equal(checks.dp_lstm_classes(model.get_param(), sequences), theirs)
    ours, _ = checks.first_bit(50, checks.T_BIT, np.random.default_rng(0))
    np.testing.assert_array_equal(ours, notebook["first_bit"](50, checks.T_BIT,
                                                              np.random.default_rng(0))[0])


def test_probes_use_no_forbidden_import():
    assert not forbidden_imports_of_probes(ASSIGNMENT)


def test_a_difference_is_located_at_the_first_node_and_step_that_the_network_computes_wrong():
    """long_loop(2): a0 = x + d, t1 = tanh(a0), t2 = tanh(t1), d = t2 one step back. A wrong
    t1 from step 1 on, and t2 and a0 after it: going forward the first is t1 at step 1; going
    back (as for gradients) the first is the last step's last node that differs, t2 at step 3."""
    from autograder.checks.recurrent_loops import first_difference, long_loop
    from autograder.grading.checking import LOCATED
    network = long_loop(2)
    rng = np.random.default_rng(0)
    expected = {name: rng.normal(size=(4, 2, 3)) for name in network}
    got = {name: value.copy() for name, value in expected.items()}
    got["t1"][1:] += 1.0
    got["t2"][2:] += 1.0
    got["a0"][2] += 1.0
    order = reference.step_order(network)
    assert first_difference(got, expected, network, order) == (
        f"{LOCATED}, in the order the unrolled network computes them, is node 't1' = "
        f"tanh('a0') at step 1 (the earlier nodes and steps are right)")
    assert first_difference(got, expected, network, order, backward=True) == (
        f"{LOCATED}, going back in the order the unrolled network computes them, is node 't2' = "
        f"tanh('t1') at step 3 (the later nodes and steps are right)")
    assert first_difference(expected, expected, network, order) == ""
    assert first_difference(got, expected, network, None) == ""


