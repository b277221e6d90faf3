"""One test per bug of the systems dp replaces (see issue 2)."""
import time

import numpy as np
import pytest

import dp
from dp import Node


def test_sigmoid_is_sigma_of_x_not_of_minus_x():
    x = np.array([-3.0, 0.0, 2.0])
    np.testing.assert_allclose(Node(x).sigmoid().value, 1 / (1 + np.exp(-x)))
    assert Node(np.array(4.0)).sigmoid().value > 0.98


def test_sigmoid_does_not_overflow():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_allclose(Node(np.array([-1000.0, 1000.0])).sigmoid().value, [0.0, 1.0])


def test_softmax_is_stable_on_large_logits():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        s = Node(np.array([[1000.0, 1001.0, 999.0]])).softmax().value
        ce = dp.cross_entropy(Node(np.array([[1000.0, -1000.0]]), "z"), np.array([[0.0, 1.0]]))
    e = np.exp([-1.0, 0.0, -2.0])
    np.testing.assert_allclose(s, [e / e.sum()])
    assert ce.item() == pytest.approx(2000.0)


def test_reused_node_is_not_counted_once_per_path():
    y = x = Node(1.0, "x")
    start = time.perf_counter()
    for _ in range(40):
        y = y + y          # 2^40 paths from x to y
    grads = y.grad(1)
    assert grads["x"] == 2.0 ** 40
    assert time.perf_counter() - start < 1.0


def test_deep_graph_has_no_recursion_error():
    x = Node(1.0, "x")
    y = x
    for _ in range(10 ** 6):
        y = y * 1.0000001
    assert y.grad(1)["x"] == pytest.approx(1.0000001 ** 10 ** 6, rel=1e-9)


@pytest.mark.parametrize("top", ["add", "exp", "log"])
def test_grad_works_whatever_the_top_op(top):
    x = Node(np.array(2.0), "x")
    y = {"add": lambda: x + 3.0, "exp": lambda: x.exp(), "log": lambda: x.log()}[top]()
    expected = {"add": 1.0, "exp": np.exp(2.0), "log": 0.5}[top]
    assert y.grad(1)["x"] == pytest.approx(expected)


@pytest.mark.parametrize("build, expected", [
    (lambda s: s * s + s, 1.51998),
    (lambda s: s + s * s, 1.51998),
    (lambda s: s.exp() + s, 2.23914),
    (lambda s: s + s.exp(), 2.23914),
])
def test_shared_intermediate_gradient_accumulates(build, expected):
    x = Node(0.3, "x")
    assert build(x.sin()).grad(1)["x"] == pytest.approx(expected, abs=1e-5)


def test_conv1d_kernel_gradient_is_not_reversed():
    x = Node(np.array([[1.0, 2.0, 4.0, 8.0]]))
    k = Node(np.array([1.0, 0.0, -1.0]), "k")   # not symmetric
    grads = x.conv1d(k).sum().grad(1)
    # y[i] = sum_j x[i+j] k[j], so dy/dk[j] = sum_i x[i+j]
    np.testing.assert_allclose(grads["k"], [1 + 2, 2 + 4, 4 + 8])


def test_node_plus_ndarray_works_both_ways():
    a = Node(np.ones((2, 2)), "a")
    for y in (a + np.ones((2, 2)), np.ones((2, 2)) + a, a * np.eye(2), np.eye(2) * a):
        assert isinstance(y, Node) and y.shape == (2, 2)
    np.testing.assert_allclose((np.eye(2) * a).sum().grad(1)["a"], np.eye(2))


class Line(dp.Model):
    def __init__(self):
        super().__init__()
        self.h = self.Linear_Layer(1, 1, "h")

    def forward(self, x):
        return self.h(x)

    def loss(self, x, y):
        return dp.mean_squared_error(self.forward(x), y)


def test_set_param_reaches_the_forward_pass():
    net = Line()
    net.set_param({"h_W": np.array([[2.0]]), "h_b": np.array([[1.0]])})
    np.testing.assert_allclose(net.forward(np.array([[3.0]])).value, [[7.0]])
    assert net.get_param()["h_W"][0, 0] == 2.0


@pytest.mark.parametrize("optimizer", [dp.SGD_Momentum, dp.RMSProp, dp.Adam])
def test_moment_buffers_are_per_parameter_and_not_corrupted_between_steps(optimizer):
    net = Line()
    net.set_param({"h_W": np.array([[1.0]]), "h_b": np.array([[1.0]])})
    opt = optimizer(net, None, None)
    grads = {"h_W": np.array([[1.0]]), "h_b": np.array([[-3.0]])}
    opt.step(grads)
    snapshot = {name: {k: v.copy() for k, v in state.items()} for name, state in opt.state.items()}
    grads["h_W"] *= 100          # the caller reusing its gradient arrays must not reach the state
    for name, state in opt.state.items():
        for key, buffer in state.items():
            np.testing.assert_array_equal(buffer, snapshot[name][key])
    first = next(iter(opt.state["h_W"].values()))
    assert all(first is not b for b in opt.state["h_b"].values())
    assert not np.array_equal(opt.state["h_W"][next(iter(opt.state["h_W"]))],
                              opt.state["h_b"][next(iter(opt.state["h_b"]))])


@pytest.mark.parametrize("a_shape, b_shape", [((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)),
                                              ((3, 4), ()), ((1, 4), (3, 1))])
def test_gradient_shapes_equal_leaf_shapes_under_broadcasting(a_shape, b_shape):
    rng = np.random.default_rng(0)
    a, b = Node(rng.random(a_shape), "a"), Node(rng.random(b_shape), "b")
    grads = (a * b + a - b / (b + 2)).sum().grad(1)
    assert grads["a"].shape == a_shape and grads["b"].shape == b_shape
