"""dp.cross_entropy is one op with the fused gradient (softmax(z) - y) / n: the same values and
gradients as the composition of ops it replaced, and as central differences."""
import numpy as np
import pytest

import dp
from dp import Node


def composed(z: Node, y: Node, reduction="mean") -> Node:
    """Cross-entropy as dp wrote it before it was one op: log_softmax, mul, sum, mean."""
    per_example = -(y * z.log_softmax()).sum(axis=-1)
    return per_example.mean() if reduction == "mean" else per_example.sum()


def problem(shape, dtype, soft=False, seed=0):
    """Logits of `shape`, one-hot targets (or soft ones: rows of probabilities)."""
    rng = np.random.default_rng(seed)
    z = (3 * rng.standard_normal(shape)).astype(dtype)
    if soft:
        y = rng.random(shape)
        y /= y.sum(axis=-1, keepdims=True)
    else:
        labels = rng.integers(0, shape[-1], size=shape[:-1])
        y = (np.arange(shape[-1]) == labels[..., None]).astype(float)
    return z, y.astype(dtype)


TOLERANCE = {np.float64: 1e-12, np.float32: 2e-6}
CASES = [((128, 10), False), ((5, 3), True), ((2, 4, 6), False), ((7,), True), ((1, 2), False)]


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("shape, soft", CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_value_and_gradients_equal_the_composition_of_ops(dtype, shape, soft, reduction):
    z, y = problem(shape, dtype, soft)
    fused = dp.cross_entropy(Node(z, "z"), Node(y, "y"), reduction)
    old = composed(Node(z, "z"), Node(y, "y"), reduction)
    assert fused.op == "cross_entropy" and fused.dtype == old.dtype == dtype
    assert fused.shape == old.shape == ()
    rtol = TOLERANCE[dtype]
    np.testing.assert_allclose(fused.item(), old.item(), rtol=rtol)
    ours, theirs = fused.grad(1), old.grad(1)
    for name in "zy":
        assert ours[name].dtype == dtype and ours[name].shape == shape
        np.testing.assert_allclose(ours[name], theirs[name], rtol=rtol, atol=rtol * 1e-2)


def test_gradient_is_softmax_minus_targets_over_n():
    z, y = problem((4, 3), np.float64)
    softmax = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(dp.cross_entropy(Node(z, "z"), y).grad()["z"], (softmax - y) / 4,
                               rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(dp.cross_entropy(Node(z, "z"), y, "sum").grad()["z"], softmax - y,
                               rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("shape, soft", CASES)
def test_gradients_match_central_differences(shape, soft, reduction):
    """Logits and targets, float64 (soft targets make d/dz depend on the targets' sums)."""
    z, y = problem(shape, np.float64, soft, seed=1)
    assert dp.gradcheck(lambda a, b: dp.cross_entropy(a, b, reduction), z, y) < 1e-6


def test_float32_gradient_is_the_float64_one_rounded():
    z, y = problem((64, 10), np.float64)
    exact = dp.cross_entropy(Node(z, "z"), y).grad()["z"]
    single = dp.cross_entropy(Node(z.astype(np.float32), "z"), y.astype(np.float32)).grad()["z"]
    np.testing.assert_allclose(single, exact, rtol=1e-5, atol=1e-8)


def test_one_node_above_the_logits():
    z = Node(np.zeros((2, 3)), "z")
    loss = dp.cross_entropy(z, np.eye(3)[[0, 2]])
    assert [operand for operand, _ in loss._inputs] == [z]   # the targets need no gradient


def test_huge_logits_stay_finite():
    z = Node(np.array([[1000.0, -1000.0], [-1000.0, 1000.0]]), "z")
    loss = dp.cross_entropy(z, np.array([[0.0, 1.0], [0.0, 1.0]]))
    assert loss.item() == 1000.0
    np.testing.assert_array_equal(loss.grad()["z"], [[0.5, -0.5], [0.0, 0.0]])


def test_the_2019_mode_keeps_every_axis():
    z, y = problem((3, 4), np.float64)
    with dp.compat_2019():
        loss = dp.cross_entropy(Node(z, "z"), y)
        assert loss.shape == (1, 1)
        np.testing.assert_allclose(loss.grad(1)["z"], dp.cross_entropy(Node(z, "z"), y).grad()["z"])


def test_targets_of_another_shape_are_named():
    with pytest.raises(ValueError, match=r"cross_entropy: targets \(4,\) must be one-hot with the "
                                         r"logits' shape \(4, 3\) \(see dp.one_hot\)"):
        dp.cross_entropy(Node(np.zeros((4, 3))), np.array([0, 1, 2, 0]))


def test_unknown_reduction_is_named():
    with pytest.raises(ValueError, match="reduction must be 'mean' or 'sum', not 'max'"):
        dp.cross_entropy(Node(np.zeros((2, 3))), np.eye(3)[:2], reduction="max")
