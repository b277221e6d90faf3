"""Checks of 12 recurrent networks: the unrolled forward pass, BPTT, and the adding problem.

Sizes, sequences and parameters are drawn here from `rng` (other ones when grading than in the
self-check); every expected value comes from the references (autograder/references/
recurrent_networks.py, the grader's side only, replayed from public cases in the student bundle):
- rnn_forward: the states of h_t = tanh(x_t W_x + h_{t-1} W_h + b) by a NumPy loop, and the
  gradients of dp's own unrolled graph, against dp's backprop through the student's graph;
- bptt_gradients: the student's hand-written gradients against central differences of the NumPy
  forward pass and against dp's backprop through the explicitly unrolled graph, whose parameters
  are named leaves shared by every step;
- sequence_task: the mean squared error on new sequences of the adding problem, whose targets
  never leave the grader, of the student's predict, and of the grader's own forward pass of the
  notebook's SequenceModel with the student's trained parameters (so that only a trained network
  earns the task).
"""
from __future__ import annotations

import numpy as np
import pytest

from autograder import references
from autograder.grading import checking
from autograder.grading.checking import probe, shape_located
from autograder.probes.recurrent_networks import MAX_UNITS
from dp import relative_error

ref = references.of(__name__)

TOL, FLOOR = 1e-6, 1e-6                # exact computations: the same arithmetic up to rounding
NUMERICAL_TOL, NUMERICAL_FLOOR = 1e-4, 1e-4     # central differences, eps = 1e-6
PARAMETERS = ("W_x", "W_h", "b")
T_ADD = 10                             # the adding problem's length, as in the notebook
SEQUENCE_MSE = 0.02                    # unless course.toml sets thresholds.sequence_mse


def compare(received, expected, what, metrics, tol=TOL, floor=FLOOR, mistakes=(), part=None):
    """checking.compare with dp's relative error, its absolute floor `floor` (see there)."""
    return checking.compare(received, expected, what, metrics, tol=tol,
                            errors=lambda a, b: relative_error(a, b, floor), mistakes=mistakes,
                            part=part)


# -- the grader's cases ---------------------------------------------------------------------------

def sizes(rng, public) -> tuple:
    """(T, n, d, k): fixed in the self-check, drawn when grading."""
    if public:
        return 4, 2, 3, 5
    return tuple(int(rng.integers(low, high)) for low, high in ((3, 9), (2, 6), (2, 6), (3, 8)))


def random_case(rng, public, T=None):
    """Inputs x (T, n, d), parameters with a bias and a W_h large enough that the past matters,
    and a nonzero initial state."""
    T0, n, d, k = sizes(rng, public)
    T = T0 if T is None else T
    params = {"W_x": rng.normal(0, 1 / np.sqrt(d), (d, k)),
              "W_h": rng.normal(0, 1.2 / np.sqrt(k), (k, k)),
              "b": rng.normal(0, 0.3, (1, k))}
    return rng.normal(size=(T, n, d)), params, rng.normal(0, 0.5, (n, k))


def describe(x, h_init=None) -> str:
    T, n, d = x.shape
    start = "from zeros (h_init=None)" if h_init is None else "from a given h_init"
    return f"{n} sequences of {T} steps with {d} features, {start}"


# the known mistakes of BPTT that the references name (tests/test_nb12 checks each is caught)
MISTAKES = ("tanh", "overwrite", "last_step", "no_delay", "wrap", "untransposed")


# -- rnn_forward -----------------------------------------------------------------------------------

def check_states(submission, metrics, x, params, h_init=None):
    steps, width = x.shape[1], params["W_h"].shape[0]
    where = describe(x, h_init)
    out = probe(submission, "forward", f"in rnn_forward on {where}", x=x, params=params,
                h_init=h_init)
    assert out["type"] == "list", (
        f"rnn_forward on {where} returned a {out['type']}; it must return a list of Nodes, the "
        f"states h_0, ..., h_{{T-1}}")
    assert len(out["shapes"]) == len(x), (
        f"rnn_forward on {where} returned {len(out['shapes'])} states; expected {len(x)}, one "
        f"per step{shape_located((len(out['shapes']),), (len(x),))}")
    assert all(shape == [steps, width] for shape in out["shapes"]), (
        f"rnn_forward on {where}: the states have shapes {out['shapes']}; expected ({steps}, {width}) each")
    assert "values" in out, f"rnn_forward on {where}: the states' values are missing from the reply"
    start = np.zeros((steps, width)) if h_init is None else h_init
    compare(out["values"], ref.states(x, params, start), f"the states on {where}", metrics,
            mistakes=ref.misconceptions.states(x, params, start))


@pytest.mark.task("rnn_forward")
def test_states_from_the_default_initial_state(submission, rng, public, metrics):
    x, params, _ = random_case(rng, public)
    check_states(submission, metrics, x, params)


@pytest.mark.task("rnn_forward")
def test_states_from_a_given_initial_state(submission, rng, public, metrics):
    x, params, h_init = random_case(rng, public)
    check_states(submission, metrics, x, params, h_init)


@pytest.mark.task("rnn_forward")
def test_a_sequence_of_one_step(submission, rng, public, metrics):
    x, params, h_init = random_case(rng, public, T=1)
    check_states(submission, metrics, x, params, h_init)


@pytest.mark.task("rnn_forward")
def test_the_unrolled_graph_shares_the_parameters(submission, rng, public, metrics):
    x, params, h_init = random_case(rng, public)
    upstream = rng.normal(size=(len(x), x.shape[1], params["W_h"].shape[0]))
    where = describe(x, h_init)
    out = probe(submission, "forward", f"in rnn_forward on {where}", x=x, params=params,
                h_init=h_init, upstream=upstream)
    assert "grads" in out, (
        f"rnn_forward on {where} did not return a list of T states of shape (n, k); see the "
        f"other checks")
    expected = ref.unrolled_gradients(x, params, h_init, upstream)
    missing = [name for name in (*PARAMETERS, "h_init") if name not in out["grads"]]
    assert not missing, (
        f"on {where}, the states do not depend on the leaves {missing} in dp's graph: build "
        f"them with dp operations on the given nodes (params and h_init), not on copies or arrays")
    for name in (*PARAMETERS, "h_init"):
        compare(out["grads"][name], expected[name],
                f"dp's gradient of sum_t sum(u_t * h_t) with respect to {name!r} on {where}",
                metrics)


# -- bptt_gradients --------------------------------------------------------------------------------

def bptt_case(submission, rng, public, T=None, last_state_only=False):
    """The inputs, the student's gradients, and the grader's unrolled-graph gradients."""
    x, params, h_init = random_case(rng, public, T)
    H = ref.states(x, params, h_init)
    dH = rng.normal(size=H.shape)                   # random, not all ones
    if last_state_only:
        dH[:-1] = 0
    loss = "on the last state only" if last_state_only else "on every step"
    where = f"{describe(x, h_init)}, a loss {loss}"
    out = probe(submission, "bptt", f"in bptt on {where}", x=x, params=params, h_init=h_init,
                H=H, dH=dH)
    assert out["type"] == "dict", f"bptt on {where} returned a {out['type']}, not a dict"
    expected = ref.unrolled_gradients(x, params, h_init, dH)
    missing = sorted(set(expected) - set(out["grads"]))
    assert not missing, f"bptt on {where} returned no gradient for {missing}"
    mistakes = ref.misconceptions.unrolled_gradients(x, params, h_init, dH)
    return (x, params, h_init, dH), out["grads"], expected, where, mistakes


def compare_gradients(received, expected, where, metrics, against, mistakes, tol=TOL,
                      floor=FLOOR, names=(*PARAMETERS, "h_init", "H")):
    worst = 0.0
    for name in names:
        worst = max(worst, compare(received[name], expected[name],
                                   f"bptt's {name!r} on {where} (vs {against})", metrics, tol,
                                   floor, mistakes, name))
    return worst


@pytest.mark.task("bptt_gradients")
@pytest.mark.parametrize("loss", ["every_step", "last_state_only"])
def test_bptt_matches_the_unrolled_graph(loss, submission, rng, public, metrics):
    _, received, expected, where, mistakes = bptt_case(submission, rng, public,
                                                       last_state_only=loss == "last_state_only")
    metrics["rel_error_vs_unrolled"] = compare_gradients(
        received, expected, where, metrics, "dp's backprop through the unrolled graph", mistakes)


@pytest.mark.task("bptt_gradients")
def test_bptt_matches_central_differences(submission, rng, public, metrics):
    inputs, received, _, where, mistakes = bptt_case(submission, rng, public)
    metrics["rel_error_vs_numerical"] = compare_gradients(
        received, ref.numerical_gradients(*inputs), where, metrics, "central differences", mistakes,
        NUMERICAL_TOL, NUMERICAL_FLOOR, names=(*PARAMETERS, "h_init"))


@pytest.mark.task("bptt_gradients")
def test_bptt_of_a_single_step(submission, rng, public, metrics):
    _, received, expected, where, mistakes = bptt_case(submission, rng, public, T=1)
    compare_gradients(received, expected, where, metrics, "dp's backprop", mistakes)


# -- sequence_task ---------------------------------------------------------------------------------

def adding_problem(n: int, T: int, rng) -> tuple:
    """The notebook's adding problem: (n, T, 2) steps [value ~ U(0, 1), marker], two distinct
    marked steps per sequence, and the targets (n,), the sums of the marked values."""
    values = rng.uniform(0, 1, (n, T))
    first = rng.integers(0, T, n)
    second = (first + rng.integers(1, T, n)) % T
    markers = np.zeros((n, T))
    markers[np.arange(n), first] = 1
    markers[np.arange(n), second] = 1
    return np.stack([values, markers], axis=-1), (values * markers).sum(axis=1)


def assert_learned(predicted, targets, what, assignment, metrics, metric) -> None:
    """Assert that the mean squared error of `predicted` against `targets` reaches the threshold;
    record it in metrics[metric]."""
    mse = float(np.mean((predicted.reshape(-1) - targets) ** 2))
    if np.isfinite(mse):
        metrics[metric] = mse
    threshold = assignment.thresholds.get("sequence_mse", SEQUENCE_MSE)
    assert np.isfinite(mse) and mse <= threshold, (
        f"{what}: mean squared error {mse:.4g}, above the {threshold} required (guessing the "
        f"average scores about 0.167)")


@pytest.mark.task("sequence_task")
def test_the_adding_problem_is_learned(submission, rng, assignment, metrics):
    sequences, targets = adding_problem(2000, T_ADD, rng)
    what = f"predict(sequences) on {len(targets):,} new sequences of the adding problem"
    predicted = probe(submission, "predict", f"in {what}", sequences=sequences)
    assert isinstance(predicted, np.ndarray) and predicted.size == targets.size, (
        f"{what} must return {targets.size} numbers, one per sequence; it returned "
        f"{predicted.get('not_array') if isinstance(predicted, dict) else predicted.shape}"
        f"{'' if isinstance(predicted, dict) else shape_located(predicted.shape, targets.shape)}")
    assert_learned(predicted, targets, what, assignment, metrics, "mse")


def model_shapes(k: int) -> dict:
    """The shapes of SequenceModel's parameters for a cell of k units reading 2 numbers a step."""
    return {"W_x": (2, k), "W_h": (k, k), "b": (1, k), "W_y": (k, 1), "b_y": (1, 1)}


@pytest.mark.task("sequence_task")
def test_the_trained_cell_solves_the_adding_problem(submission, rng, public, assignment, metrics):
    """The trained `model` graded on its parameters: the grader's own forward pass of the
    notebook's SequenceModel (the cell unrolled from zeros, a linear readout of the last state)
    with model's parameters predicts new sequences. A predict that answers without a trained
    network (the sum of the marked values, a lookup) earns nothing here.

    The self-check cannot run that forward pass: no public case holds it on a student's own
    trained parameters. It measures model.forward's own predictions instead (the names and shapes
    of the parameters are checked in both), and grading runs the grader's."""
    sequences, targets = adding_problem(2000, T_ADD, rng)
    out = probe(submission, "model", "in model.get_param() or model.forward(sequences)",
                sequences=sequences)
    params = checking.trained_parameters(out["params"], model_shapes, "W_h", "SequenceModel",
                                         MAX_UNITS)
    new = f"{len(targets):,} new sequences of the adding problem"
    if public:
        what = f"model.forward on {new}"
        predicted = out["predictions"]
        assert isinstance(predicted, np.ndarray) and predicted.size == targets.size, (
            f"{what} must give {targets.size} numbers, one per sequence; it gave "
            f"{predicted.get('not_array') if isinstance(predicted, dict) else predicted.shape}"
        f"{'' if isinstance(predicted, dict) else shape_located(predicted.shape, targets.shape)}")
    else:
        what = f"the grader's SequenceModel with model's trained parameters, on {new}"
        with np.errstate(all="ignore"):             # parameters may overflow: an infinite error
            predicted = ref.adding_predictions(params, sequences)
    assert_learned(predicted, targets, what, assignment, metrics, "mse_of_the_trained_parameters")
