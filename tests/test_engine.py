"""Backprop: topological order, accumulation, what gets differentiated, modes."""
import numpy as np
import pytest

import dp
from dp import Node


def test_paper_worked_example():
    a = Node(np.array([[1, 1, 1], [2, 2, 2]]), "A")
    b = Node(np.array([[1, 2, 3]]), "B")
    grads = (a * b).exp().sum().grad(1)
    np.testing.assert_allclose(grads["A"], [[2.71828, 14.7781, 60.2566],
                                            [7.38906, 109.196, 1210.29]], rtol=1e-5)
    np.testing.assert_allclose(grads["B"], [[17.4964, 116.585, 826.943]], rtol=1e-5)


def test_grad_returns_every_named_leaf_and_no_constant():
    x, w = Node(np.ones((2, 3)), "x"), Node(np.full((3, 1), 2.0), "w")
    data = Node(np.arange(6.0).reshape(2, 3))
    grads = ((x + data).dot(w)).sum().grad(1)
    assert set(grads) == {"x", "w"}
    np.testing.assert_allclose(grads["x"], np.full((2, 3), 2.0))
    np.testing.assert_allclose(grads["w"], (np.ones((2, 3)) + np.arange(6.0).reshape(2, 3)).sum(0)[:, None])


def test_grad_can_be_called_twice_with_the_same_answer():
    x = Node(np.array([0.5, -1.0, 2.0]), "x")
    y = (x * x.exp()).sum()
    first, second = y.grad(1), y.grad(1)
    np.testing.assert_array_equal(first["x"], second["x"])


def test_returned_gradients_are_independent_arrays():
    a, b = Node(np.ones(3), "a"), Node(np.ones(3), "b")
    grads = (a + b).sum().grad(1)
    grads["a"] += 1
    np.testing.assert_array_equal(grads["b"], np.ones(3))


def test_gradient_functions_run_only_towards_named_leaves():
    calls = []
    x = Node(np.array([1.0, 2.0]), "x")
    constant = Node(np.array([3.0, 4.0]))
    product = x * constant
    assert [operand for operand, _ in product._inputs] == [x]  # no path to the constant
    traced = [(operand, lambda g, f=f: calls.append(1) or f(g)) for operand, f in product._inputs]
    product._inputs = tuple(traced)
    product.sum().grad(1)
    assert calls == [1]


def test_unnamed_graph_has_nothing_to_differentiate():
    y = (Node(np.ones(3)) * 2).sum()
    assert y.grad(1) == {}


def test_no_grad_builds_no_graph():
    x = Node(np.ones(3), "x")
    with dp.no_grad():
        y = (x * 2).sum()
    assert y._inputs == () and y.grad(1) == {}
    assert ((x * 2).sum()).grad(1)["x"].tolist() == [2.0, 2.0, 2.0]


def test_grad_on_a_non_scalar_says_so():
    with pytest.raises(dp.ShapeError, match=r"output has shape \(2, 3\).*scalar"):
        (Node(np.ones((2, 3)), "x") * 2).grad(1)


def test_grad_of_a_non_scalar_with_an_upstream_gradient():
    x = Node(np.array([1.0, 2.0]), "x")
    upstream = np.array([3.0, -1.0])
    np.testing.assert_allclose((x * x).grad(upstream)["x"], 2 * x.value * upstream)


def test_two_leaves_with_one_name_are_an_error():
    with pytest.raises(ValueError, match="two different leaves are named 'w'"):
        (Node(1.0, "w") + Node(2.0, "w")).grad(1)


def test_detect_anomaly_names_the_op():
    x = Node(np.array([0.0, 1.0]), "x")
    y = x.sqrt().sum()
    with np.errstate(divide="ignore"):
        assert np.isinf(y.grad(1)["x"][0])
        with dp.detect_anomaly(), pytest.raises(FloatingPointError, match="'sqrt'"):
            (y * 2).grad(1)


def test_backprop_cost_is_linear_in_graph_size():
    # The number of gradient-function calls equals the number of edges, for any sharing pattern.
    x = Node(np.array(1.0), "x")
    y = x
    for _ in range(200):
        y = y * x + y
    calls = []
    order = y._topological_order()
    for node in order:
        node._inputs = tuple((o, lambda g, f=f: calls.append(1) or f(g)) for o, f in node._inputs)
    y.grad(1)
    assert len(calls) == sum(len(n._inputs) for n in order) == 200 * 4


def test_custom_op_builds_an_op_whose_gradients_are_its_backward_functions():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))

    def mul(x, y):
        return dp.custom_op("mul", x.value * y.value, (x, lambda g: g * y.value),
                            (y, lambda g: g * x.value))
    assert dp.gradcheck(mul, a, b) < 1e-6
    assert mul(dp.Node(a, "a"), dp.Node(b, "b")).op == "mul"

    def wrong(x, y):   # d/dy given as x + 1: the check must notice
        return dp.custom_op("mul", x.value * y.value, (x, lambda g: g * y.value),
                            (y, lambda g: g * (x.value + 1)))
    with pytest.raises(dp.GradcheckError):
        dp.gradcheck(wrong, a, b)


@pytest.mark.parametrize("bad", [(), "a", (1, 2)])
def test_custom_op_names_a_malformed_input(bad):
    a = dp.Node(np.ones(2), "a")
    inputs = [(a,)] if bad == () else [bad]
    with pytest.raises(TypeError, match="custom_op 'twice': each input must be a pair"):
        dp.custom_op("twice", 2 * a.value, *inputs)


def test_a_sum_added_to_in_place_is_never_a_gradient_another_node_holds():
    # t's gradient, a sum that backprop made, goes on unchanged to both a and b; a then gets
    # more. Adding that into the one array that b holds too would give b a's part as well.
    rng = np.random.default_rng(0)
    x, y = Node(rng.standard_normal((2, 3)), "x"), Node(rng.standard_normal((2, 3)), "y")
    a, b = x * 2.0, y * 3.0
    t = a + b
    g_t = 2 * t.value + 5
    for loss, g_b in ((((a * a).sum() + (b * b).sum()) + ((t * t).sum() + (t * 5.0).sum()),
                       g_t + 2 * b.value),
                      ((a * a).sum() + (b * 1.0).sum() + (t * 5.0).sum() + (t * t).sum(),
                       g_t + 1)):
        grads = loss.grad()
        np.testing.assert_allclose(grads["x"], 2 * (g_t + 2 * a.value), rtol=1e-13)
        np.testing.assert_allclose(grads["y"], 3 * g_b, rtol=1e-13)


def test_slices_add_into_one_gradient_without_touching_one_another_holds():
    # z[:, :2]'s gradient is added into z's gradient in place (getitem's add_to); where z's
    # gradient so far is the one array that an add also handed to y, it must be copied first.
    rng = np.random.default_rng(1)
    x, y = Node(rng.standard_normal((3, 4)), "x"), Node(rng.standard_normal((3, 4)), "y")
    c, d, e = (rng.standard_normal(shape) for shape in ((3, 4), (3, 2), (4,)))
    z = x * 1.0
    t = z + y
    rows = np.array([0, 2, 0])                 # an index with a repeat: its parts add up
    f = rng.standard_normal((3, 4))
    expected_x = c.copy()
    expected_x[:, :2] += d
    expected_x[1] += e
    np.add.at(expected_x, rows, f)
    for loss in ((t * c).sum() + (z[:, :2] * d).sum() + (z[1] * e).sum() + (z[rows] * f).sum(),
                 (z[rows] * f).sum() + (z[1] * e).sum() + (z[:, :2] * d).sum() + (t * c).sum()):
        grads = loss.grad()
        np.testing.assert_array_equal(grads["y"], c)
        np.testing.assert_allclose(grads["x"], expected_x, rtol=1e-14)


def test_detect_anomaly_sees_a_slice_added_in_place():
    # s's gradient overflows where backprop sums it (1e308 twice); the slice hands that on.
    x = Node(np.array([0.1, 0.2, 0.3]), "x")
    y = x * 1.0
    s = y[:2]
    for loss in ((s * 1e308).sum() + (s * 1e308).sum() + (y[1:] * 1.0).sum(),
                 (y[1:] * 1.0).sum() + (s * 1e308).sum() + (s * 1e308).sum()):
        with np.errstate(over="ignore"), dp.detect_anomaly(), \
                pytest.raises(FloatingPointError, match="getitem"):
            loss.grad()
