"""Notebook 14, convolutional networks: the solution earns full marks, the exercise nothing; the check
cells pass on the solution and fail readably on the exercise; a network that skips the convolution
earns nothing on cnn_accuracy, however accurate; the grader's references agree with the textbook
formulas and its forward pass with the notebook's CNN; the hidden cases vary what they must; and
the filter plot is judged by what it shows."""
from __future__ import annotations

import jupytext
import numpy as np
import pytest

import dp
from autograder.probes.convolutional_networks import stack_problem
from autograder.references import convolutional_networks as reference
from tests.grading import (LIKE_JUPYTER_IN_ITS_FOLDER, assert_full_marks, explain, full_marks,
                           grade_notebook, grade_source, load_checks, mutate, notebook_tests,
                           notebooks_fixture, points, solution_source)

ASSIGNMENT = "14_convolutional_networks"
FULL = full_marks(ASSIGNMENT)
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT, built=True)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["conv2d_grad"]["max_rel_error"] < 1e-12, metrics
    assert metrics["maxpool2d_grad"]["max_rel_error"] < 1e-12, metrics
    assert metrics["cnn_accuracy"]["accuracy"] >= 0.92 and metrics["cnn_accuracy"]["credit"] == 1, metrics
    assert metrics["filter_plot"] == {"filters": 8, "images": 8}, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **LIKE_JUPYTER_IN_ITS_FOLDER)


# -- a network that skips the convolution ----------------------------------------------------------
def test_a_dense_network_on_the_pixels_earns_nothing_however_accurate(tmp_path):
    """The solution with net a dense 784-256-128-10 on the pixels (0.93 on the held-out digits,
    above the bar): cnn_accuracy earns 0 and says why; plot_filters finds no Conv layer to show
    (filter_plot 0); the ops keep their points."""
    source = mutate(solution_source(ASSIGNMENT),
                    'net = CNN(Conv(1, 8, 3, "conv1", padding=1), ReLU(), MaxPool(2), Flatten(),\n'
                    '          Dense(8 * 14 * 14, 64, "hidden", activation="relu"), Dense(64, 10, "out"))',
                    'net = CNN(Flatten(), Dense(784, 256, "h1", activation="relu"),\n'
                    '          Dense(256, 128, "h2", activation="relu"), Dense(128, 10, "out"))')
    result = grade_source(source, ASSIGNMENT, tmp_path, "dense")
    assert points(result) == {**FULL, "cnn_accuracy": 0, "filter_plot": 0}, explain(result)
    [task] = [t for t in result["tasks"] if t["id"] == "cnn_accuracy"]
    assert "skips the convolution" in task["message"], task


def conv(f, c, k, stride=1, padding=0, value=None) -> dict:
    W = np.random.default_rng(f + c + k).normal(size=(f, c, k, k)) if value is None else value
    return {"kind": "conv", "W": W, "b": np.zeros(f), "stride": stride, "padding": padding}


def dense(n_in, n_out, activation="linear") -> dict:
    return {"kind": "dense", "activation": activation, "W": np.ones((n_in, n_out)),
            "b": np.zeros((1, n_out))}


RELU, FLATTEN = {"kind": "relu"}, {"kind": "flatten"}


def pool(size, kind="maxpool", stride=None) -> dict:
    return {"kind": kind, "size": size, "stride": stride or size}


DELTA = np.zeros((4, 1, 3, 3))
DELTA[:, 0, 1, 1] = 1.0           # each filter copies one pixel: no neighbourhood combined


@pytest.mark.parametrize("layers, says", [
    ([FLATTEN, dense(784, 64, "relu"), dense(64, 10)], "skips the convolution"),
    ([pool(2, "avgpool"), FLATTEN, dense(196, 10)], "skips the convolution"),
    ([conv(8, 1, 1), RELU, pool(2), FLATTEN, dense(8 * 14 * 14, 10)], "skips the convolution"),
    ([conv(16, 1, 28), RELU, FLATTEN, dense(16, 10)], "skips the convolution"),
    ([conv(4, 1, 3, padding=1, value=DELTA), FLATTEN, dense(4 * 784, 10)], "skips the convolution"),
    ([FLATTEN, dense(784, 10), conv(8, 1, 3)], "comes after Flatten"),
    ([conv(8, 1, 3), dense(8 * 26 * 26, 10)], "put Flatten() before the dense layers"),
    ([conv(8, 2, 3), FLATTEN, dense(8 * 26 * 26, 10)], "for an input of 1 channels"),
    ([conv(8, 1, 3), FLATTEN, dense(8 * 26 * 26, 9)], "not 10 scores"),
    ([conv(256, 1, 5, padding=2), conv(256, 256, 5, padding=2), FLATTEN, dense(256 * 784, 10)],
     "multiply-adds"),
])
def test_networks_that_are_no_cnn_are_refused_with_a_reason(layers, says):
    assert says in (stack_problem(layers) or ""), stack_problem(layers)


@pytest.mark.parametrize("layers", [
    [conv(8, 1, 3, padding=1), RELU, pool(2), FLATTEN, dense(8 * 14 * 14, 10)],
    [conv(8, 1, 5), RELU, pool(2, "avgpool"), FLATTEN, dense(8 * 12 * 12, 64, "relu"), dense(64, 10)],
    [conv(8, 1, 3, stride=2, padding=1), RELU, FLATTEN, dense(8 * 14 * 14, 10)],
    [conv(4, 1, 3, padding=1), RELU, pool(3, stride=2), conv(8, 4, 3), RELU, pool(2), FLATTEN,
     dense(8 * 5 * 5, 10)],
])
def test_textbook_cnns_are_accepted(layers):
    assert stack_problem(layers) is None


# -- the grader's references -----------------------------------------------------------------------
def test_reference_conv2d_is_the_textbook_formula_with_its_gradients():
    rng = np.random.default_rng(3)
    x, w, b = rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(4, 3, 3, 2)), rng.normal(size=4)
    stride, padding = 2, 1
    out = reference.conv(x, w, b, stride, padding, g := rng.normal(size=(2, 4, 3, 3)))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.array([[[[b[f] + np.sum(w[f] * padded[n, :, i * stride:i * stride + 3, j * stride:j * stride + 2])
                     for j in range(3)] for i in range(3)] for f in range(4)] for n in range(2)])
    np.testing.assert_allclose(out["value"], y, rtol=1e-12)
    np.testing.assert_allclose(out["b"], g.sum(axis=(0, 2, 3)), rtol=1e-12)
    # every gradient against central differences of the textbook formula
    for name, value in (("x", x), ("w", w)):
        def loss(v, name=name):
            args = {"x": x, "w": w, **{name: v}}
            return float(np.sum(g * dp.conv2d(args["x"], args["w"], b, stride, padding).value))
        np.testing.assert_allclose(out[name], dp.numerical_gradient(loss, value.copy()), rtol=1e-6,
                                   atol=1e-8)


def test_reference_maxpool2d_routes_each_window_to_its_maximum_and_overlaps_add():
    x = np.array([[[[1.0, 5, 2], [0, 3, 4], [7, 1, 6]]]])
    out = reference.pool(x, 2, 1, np.array([[[[1.0, 2], [3, 4]]]]))
    assert out["value"].tolist() == [[[[5, 5], [7, 6]]]]
    # the 5 wins the two upper windows: 1 + 2
    assert out["x"].tolist() == [[[[0, 3, 0], [0, 0, 0], [3, 0, 4]]]]


def test_the_overlap_mistakes_apply_only_where_windows_overlap():
    """Overwriting instead of adding is a mistake only where windows overlap: elsewhere the known
    mistake is None (it would name a right answer); where they do, it differs from the right one."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(1, 2, 6, 6))
    x[:, :, 2, 2] = 10.0                     # the maximum of the four 3x3 windows of stride 2
    g = rng.normal(size=(1, 2, 2, 2))
    assert reference.pool_gradient_overwritten(x, 2, 2, rng.normal(size=(1, 2, 3, 3))) is None
    wrong, right = reference.pool_gradient_overwritten(x, 3, 2, g)["x"], reference.pool(x, 3, 2, g)["x"]
    np.testing.assert_allclose(right[0, :, 2, 2], g[0].sum(axis=(1, 2)))
    np.testing.assert_allclose(wrong[0, :, 2, 2], g[0, :, 1, 1])
    w, b = rng.normal(size=(2, 2, 2, 2)), rng.normal(size=2)
    assert reference.input_gradient_overwritten(x, w, b, 2, 0, rng.normal(size=(1, 2, 3, 3))) is None
    g = rng.normal(size=(1, 2, 5, 5))
    assert not np.allclose(reference.input_gradient_overwritten(x, w, b, 1, 0, g)["x"],
                           reference.conv(x, w, b, 1, 0, g)["x"])


def notebook_cells(*names) -> dict:
    """A namespace with the solution cells that define `names` run in it."""
    notebook = jupytext.reads(solution_source(ASSIGNMENT), fmt="py:percent")
    namespace = {"np": np, "dp": dp, "Node": dp.Node, "Model": dp.Model}
    for cell in notebook.cells:
        if any(f"def {name}" in cell.source or f"class {name}" in cell.source for name in names):
            exec(cell.source, namespace)
    return namespace


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_graders_forward_pass_is_the_notebooks_cnn(dtype):
    """reference.network_digits on the layers the probe reads gives the notebook's CNN's digits,
    for every kind of layer and for float32 parameters."""
    from autograder.probes import convolutional_networks as probes
    nb = notebook_cells("Conv", "ReLU", "MaxPool", "AvgPool", "Flatten", "CNN")
    dp.seed(1)
    net = nb["CNN"](nb["Conv"](1, 4, 3, "c1", padding=1), nb["ReLU"](), nb["MaxPool"](3, 2),
                    nb["Conv"](4, 6, 2, "c2", stride=2), nb["ReLU"](), nb["AvgPool"](2),
                    nb["Flatten"](), dp.Dense(6 * 3 * 3, 16, "h", activation="tanh"),
                    dp.Dense(16, 10, "out"))
    net.set_param({name: np.random.default_rng(0).normal(size=v.shape).astype(dtype)
                   for name, v in net.get_param().items()})
    images = np.random.default_rng(2).uniform(size=(40, 784))
    reply = probes.network({"net": net}, images)
    assert stack_problem(reply["layers"]) is None
    np.testing.assert_array_equal(reference.network_digits(reply["layers"], images), reply["digits"])


def test_hidden_cases_vary_strides_paddings_channels_and_overlaps():
    rng = np.random.default_rng(0)
    convs = [checks.conv_case(rng, False, i) for i in range(300)]
    assert any(x.shape[1] > 1 for x, *_ in convs) and any(w.shape[0] > 1 for _, w, *_ in convs)
    assert any(w.shape[2] != w.shape[3] for _, w, *_ in convs)
    assert any((x.shape[2] + 2 * p - w.shape[2]) % s for x, w, _, s, p, _ in convs)   # leftovers
    assert {s for *_, s, p, _ in convs} == {1, 2, 3} and {p for *_, p, _ in convs} == {0, 1, 2}
    assert all(g.shape[2] >= 1 and g.shape[3] >= 1 for *_, g in convs)
    pools = [checks.pool_case(rng, False, i) for i in range(300)]
    assert any(stride < size for _, size, stride, _ in pools)                        # overlaps
    public = [checks.conv_case(rng, True, i) for i in range(2)]
    assert any((x.shape[2] + 2 * p - w.shape[2]) % s for x, w, _, s, p, _ in public)
    # a window of the self-check ends on the last column of the padding: one padded on one side
    # only (np.pad's (padding, 0)) is found
    assert any(p > 0 and (x.shape[3] + 2 * p - w.shape[3]) % s == 0 for x, w, _, s, p, _ in public)


# -- the filter plot -------------------------------------------------------------------------------
def test_an_image_shows_a_filter_rescaled_but_not_transposed_or_negated():
    w = np.random.default_rng(1).normal(size=(3, 3))
    assert checks.shows(w, w) and checks.shows((w - w.min()) / np.ptp(w), w)
    assert not checks.shows(w.T, w) and not checks.shows(-w, w)
    assert not checks.shows(w[:2], w) and not checks.shows({"not_array": "str"}, w)
