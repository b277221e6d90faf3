"""Every op in dp, checked against NumPy (forward), central differences (backward) and, where
PyTorch is installed, torch.autograd (both).

`OPS` is the one table: for each op, how it is written on Nodes, its forward value as a NumPy
formula, where its inputs are drawn from, and the input shapes to check it on. Every test below
runs over the whole table:

* the forward value equals the NumPy formula,
* `dp.gradcheck` agrees with the backward pass (float64, a random upstream gradient),
* every gradient has its leaf's shape and dtype float64; float32 inputs stay float32 throughout,
* forward values and gradients equal torch's (tests marked `torch`, skipped without PyTorch).

Then come the same checks on shapes drawn by hypothesis (broadcasting binary ops, reductions),
worked examples that show single behaviours, the error messages, and regressions.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from numpy.testing import assert_allclose, assert_array_equal

import dp
from dp import Node

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = F = None

requires_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
FORWARD_RTOL = 1e-12  # forward values are the same floating-point formula, up to rounding
FEW_EXAMPLES = settings(max_examples=25, deadline=None, database=None)  # no files in the repo


# -- input domains: draw(rng, shape) -> float64 array ---------------------------------------------
def real(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape):
    """For log, sqrt and the base of a power."""
    return rng.uniform(0.5, 2.0, shape)


def nonzero(rng, shape):
    """|a| >= 0.1: away from the kinks of relu, abs, leaky_relu, and from division by 0."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.1, 2.0, shape)


def distinct(rng, shape):
    """Values 0.1 apart in a random order: no ties for max and maxpool1d."""
    return 0.1 * rng.permutation(int(np.prod(shape))).reshape(shape) - 1.0


def whole(rng, shape):
    return rng.integers(-3, 4, shape).astype(np.float64)


def half(rng, shape):
    """Whole numbers + 0.5: never equal to `whole`, so maximum/minimum never tie."""
    return whole(rng, shape) + 0.5


def one_hot(rng, shape):
    return dp.one_hot(rng.integers(0, shape[-1], shape[0]), shape[-1])


def bits(rng, shape):
    return rng.integers(0, 2, shape).astype(np.float64)


@dataclass(frozen=True)
class Const:
    """An operand passed as it is (a Python number or an ndarray), not as a Node."""
    draw: Callable


NUMBER = Const(lambda rng, shape: float(rng.uniform(0.5, 2.0)))
ARRAY, POSITIVE_ARRAY = Const(real), Const(positive)


# -- the table ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Op:
    name: str           # how the op is written; also the test id
    fn: Callable        # the op on Nodes (constants are passed as they are)
    numpy: Callable     # its forward value, on ndarrays
    domains: tuple      # one per operand: a draw function, or Const(draw)
    shapes: list        # operand shapes to check on: one tuple of shapes per check
    torch: Callable | None = None  # the op on torch tensors, when `fn` does not work on them


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _log_softmax(a, axis):
    return a - np.log(np.exp(a).sum(axis=axis, keepdims=True))


def _conv1d(x, k):
    """'valid' cross-correlation along the last axis: y[..., i] = sum_j x[..., i + j] k[j]."""
    n = x.shape[-1] - len(k) + 1
    return sum(k[j] * x[..., j:j + n] for j in range(len(k)))


def _maxpool1d(x, size):
    return np.stack([x[..., i * size:(i + 1) * size].max(axis=-1)
                     for i in range(x.shape[-1] // size)], axis=-1)


def _torch_conv1d(x, k):
    return F.conv1d(x.reshape(-1, 1, x.shape[-1]), k.reshape(1, 1, -1)).reshape(*x.shape[:-1], -1)


def _torch_maxpool1d(x, size):
    return F.max_pool1d(x.reshape(-1, 1, x.shape[-1]), size).reshape(*x.shape[:-1], -1)


def _torch_reversed_axes(a):
    return a.permute(*reversed(range(a.ndim)))


BROADCASTING = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)),
                ((), (3, 4)), ((2, 3), ())]
WITH_NUMBER = [((3, 4), ()), ((5,), ()), ((), ())]       # node op number
NUMBER_WITH = [((), (3, 4)), ((), (5,)), ((), ())]       # number op node
ELEMENTWISE = [(5,), (3, 4), (2, 3, 4), ()]
MATRICES = [(3, 4), (2, 5), (2, 3, 4)]
TWO_D = [(3, 4), (2, 5), (1, 3)]
THREE_D = [(2, 3, 4), (3, 2, 2)]
EXAMPLES_BY_CLASSES = [((4, 3), (4, 3)), ((2, 5), (2, 5)), ((1, 2), (1, 2))]

OPS = [
    # arithmetic, broadcasting like NumPy
    Op("a + b", lambda a, b: a + b, np.add, (real, real), BROADCASTING),
    Op("a - b", lambda a, b: a - b, np.subtract, (real, real), BROADCASTING),
    Op("a * b", lambda a, b: a * b, np.multiply, (real, real), BROADCASTING),
    Op("a / b", lambda a, b: a / b, np.divide, (real, nonzero), BROADCASTING),
    Op("a ** b", lambda a, b: a ** b, np.power, (positive, real), BROADCASTING),
    Op("-a", lambda a: -a, np.negative, (real,), ELEMENTWISE),
    # with a Python number
    Op("a + number", lambda a, c: a + c, np.add, (real, NUMBER), WITH_NUMBER),
    Op("a * number", lambda a, c: a * c, np.multiply, (real, NUMBER), WITH_NUMBER),
    Op("a ** number", lambda a, c: a ** c, np.power, (positive, NUMBER), WITH_NUMBER),
    Op("a ** 3", lambda a: a ** 3, lambda a: a * a * a, (real,), ELEMENTWISE),
    Op("number + a", lambda c, a: c + a, np.add, (NUMBER, real), NUMBER_WITH),
    Op("number - a", lambda c, a: c - a, np.subtract, (NUMBER, real), NUMBER_WITH),
    Op("number * a", lambda c, a: c * a, np.multiply, (NUMBER, real), NUMBER_WITH),
    Op("number / a", lambda c, a: c / a, np.divide, (NUMBER, nonzero), NUMBER_WITH),
    Op("number ** a", lambda c, a: c ** a, np.power, (NUMBER, real), NUMBER_WITH),
    # with an ndarray (ndarray op Node must call the Node's reflected method)
    Op("a - ndarray", lambda a, c: a - c, np.subtract, (real, ARRAY), BROADCASTING),
    Op("ndarray + a", lambda c, a: c + a, np.add, (ARRAY, real), BROADCASTING),
    Op("ndarray - a", lambda c, a: c - a, np.subtract, (ARRAY, real), BROADCASTING),
    Op("ndarray * a", lambda c, a: c * a, np.multiply, (ARRAY, real), BROADCASTING),
    Op("ndarray / a", lambda c, a: c / a, np.divide, (ARRAY, nonzero), BROADCASTING),
    Op("ndarray ** a", lambda c, a: c ** a, np.power, (POSITIVE_ARRAY, real), BROADCASTING),
    Op("ndarray @ a", lambda c, a: c @ a, np.matmul, (ARRAY, real), [((3, 4), (4, 2))]),
    # matrix products
    Op("a.dot(b)", lambda a, b: a.dot(b), np.matmul, (real, real),
       [((3, 4), (4, 2)), ((1, 5), (5, 1)), ((2, 2), (2, 3))], torch=lambda a, b: a @ b),
    Op("a @ b, 1-d @ 2-d", lambda a, b: a @ b, np.matmul, (real, real), [((4,), (4, 3))]),
    Op("a @ b, 2-d @ 1-d", lambda a, b: a @ b, np.matmul, (real, real), [((3, 4), (4,))]),
    Op("a @ b, 1-d @ 1-d", lambda a, b: a @ b, np.matmul, (real, real), [((4,), (4,))]),
    Op("a @ b, 3-d @ 2-d", lambda a, b: a @ b, np.matmul, (real, real),
       [((2, 3, 4), (4, 5)), ((3, 1, 2), (2, 2))]),
    # axes
    Op("a.T", lambda a: a.T, np.transpose, (real,), TWO_D + THREE_D, torch=_torch_reversed_axes),
    Op("a.transpose()", lambda a: a.transpose(), np.transpose, (real,), THREE_D,
       torch=_torch_reversed_axes),
    Op("a.transpose(1, 0, 2)", lambda a: a.transpose(1, 0, 2),
       lambda a: np.transpose(a, (1, 0, 2)), (real,), THREE_D,
       torch=lambda a: a.permute(1, 0, 2)),
    Op("a.transpose((2, 0, 1))", lambda a: a.transpose((2, 0, 1)),
       lambda a: np.transpose(a, (2, 0, 1)), (real,), THREE_D,
       torch=lambda a: a.permute(2, 0, 1)),
    Op("a.reshape(-1)", lambda a: a.reshape(-1), np.ravel, (real,), MATRICES),
    Op("a.reshape(a.shape[-1], -1)", lambda a: a.reshape(a.shape[-1], -1),
       lambda a: np.reshape(a, (a.shape[-1], -1)), (real,), MATRICES),
    Op("a.reshape((1, a.size))", lambda a: a.reshape((1, a.value.size)),
       lambda a: np.reshape(a, (1, a.size)), (real,), MATRICES,
       torch=lambda a: a.reshape(1, a.numel())),
    # elementwise functions
    Op("a.exp()", lambda a: a.exp(), np.exp, (real,), ELEMENTWISE),
    Op("a.log()", lambda a: a.log(), np.log, (positive,), ELEMENTWISE),
    Op("a.sqrt()", lambda a: a.sqrt(), np.sqrt, (positive,), ELEMENTWISE),
    Op("a.square()", lambda a: a.square(), np.square, (real,), ELEMENTWISE),
    Op("a.abs()", lambda a: a.abs(), np.abs, (nonzero,), ELEMENTWISE),
    Op("a.sin()", lambda a: a.sin(), np.sin, (real,), ELEMENTWISE),
    Op("a.cos()", lambda a: a.cos(), np.cos, (real,), ELEMENTWISE),
    Op("a.tanh()", lambda a: a.tanh(), np.tanh, (real,), ELEMENTWISE),
    Op("a.sigmoid()", lambda a: a.sigmoid(), _sigmoid, (real,), ELEMENTWISE),
    Op("a.relu()", lambda a: a.relu(), lambda a: np.where(a > 0, a, 0.0), (nonzero,), ELEMENTWISE),
    Op("a.leaky_relu()", lambda a: a.leaky_relu(), lambda a: np.where(a > 0, a, 0.01 * a),
       (nonzero,), ELEMENTWISE, torch=lambda a: F.leaky_relu(a, 0.01)),
    Op("a.leaky_relu(0.2)", lambda a: a.leaky_relu(0.2), lambda a: np.where(a > 0, a, 0.2 * a),
       (nonzero,), ELEMENTWISE, torch=lambda a: F.leaky_relu(a, 0.2)),
    Op("maximum(a, b)", dp.maximum, np.maximum, (whole, half), BROADCASTING,
       torch=lambda a, b: torch.maximum(a, b)),
    Op("minimum(a, b)", dp.minimum, np.minimum, (whole, half), BROADCASTING,
       torch=lambda a, b: torch.minimum(a, b)),
    Op("maximum(a, 0.0)", lambda a: dp.maximum(a, 0.0), lambda a: np.maximum(a, 0.0),
       (nonzero,), ELEMENTWISE, torch=lambda a: a.clamp(min=0.0)),
    # normalisations
    Op("a.softmax()", lambda a: a.softmax(),
       lambda a: np.exp(a) / np.exp(a).sum(axis=-1, keepdims=True), (real,), MATRICES + [(5,)],
       torch=lambda a: a.softmax(-1)),
    Op("a.softmax(axis=0)", lambda a: a.softmax(axis=0),
       lambda a: np.exp(a) / np.exp(a).sum(axis=0, keepdims=True), (real,), MATRICES + [(5,)],
       torch=lambda a: a.softmax(0)),
    Op("a.log_softmax()", lambda a: a.log_softmax(), lambda a: _log_softmax(a, -1),
       (real,), MATRICES + [(5,)], torch=lambda a: a.log_softmax(-1)),
    Op("a.log_softmax(axis=0)", lambda a: a.log_softmax(axis=0), lambda a: _log_softmax(a, 0),
       (real,), MATRICES + [(5,)], torch=lambda a: a.log_softmax(0)),
    # reductions: everything gives 0-d; an axis is kept with length 1
    Op("a.sum()", lambda a: a.sum(), np.sum, (real,), MATRICES + [(5,), ()]),
    Op("a.sum(axis=0)", lambda a: a.sum(axis=0), lambda a: a.sum(axis=0, keepdims=True),
       (real,), MATRICES + [(5,)], torch=lambda a: a.sum(0, keepdim=True)),
    Op("a.sum(axis=1)", lambda a: a.sum(axis=1), lambda a: a.sum(axis=1, keepdims=True),
       (real,), MATRICES, torch=lambda a: a.sum(1, keepdim=True)),
    Op("a.mean()", lambda a: a.mean(), np.mean, (real,), MATRICES + [(5,), ()]),
    Op("a.mean(axis=0)", lambda a: a.mean(axis=0), lambda a: a.mean(axis=0, keepdims=True),
       (real,), MATRICES + [(5,)], torch=lambda a: a.mean(0, keepdim=True)),
    Op("a.mean(axis=1)", lambda a: a.mean(axis=1), lambda a: a.mean(axis=1, keepdims=True),
       (real,), MATRICES, torch=lambda a: a.mean(1, keepdim=True)),
    Op("a.max()", lambda a: a.max(), np.max, (distinct,), MATRICES + [(5,), ()],
       torch=lambda a: a.amax()),
    Op("a.max(axis=0)", lambda a: a.max(axis=0), lambda a: a.max(axis=0, keepdims=True),
       (distinct,), MATRICES + [(5,)], torch=lambda a: a.amax(0, keepdim=True)),
    Op("a.max(axis=1)", lambda a: a.max(axis=1), lambda a: a.max(axis=1, keepdims=True),
       (distinct,), MATRICES, torch=lambda a: a.amax(1, keepdim=True)),
    # joining and selecting
    Op("concatenate([a, b, c], axis=0)", lambda *abc: dp.concatenate(abc, axis=0),
       lambda *abc: np.concatenate(abc, axis=0), (real, real, real),
       [((2, 3), (1, 3), (4, 3)), ((1,), (3,), (2,))], torch=lambda *abc: torch.cat(abc, 0)),
    Op("concatenate([a, b, c], axis=1)", lambda *abc: dp.concatenate(abc, axis=1),
       lambda *abc: np.concatenate(abc, axis=1), (real, real, real),
       [((3, 2), (3, 1), (3, 4)), ((2, 1, 3), (2, 2, 3), (2, 1, 3))],
       torch=lambda *abc: torch.cat(abc, 1)),
    Op("a[1:3]", lambda a: a[1:3], lambda a: a[1:3], (real,), [(4, 3), (5,)]),
    Op("a[1]", lambda a: a[1], lambda a: a[1], (real,), [(4, 3), (5,)]),
    Op("a[-1, 1:]", lambda a: a[-1, 1:], lambda a: a[-1, 1:], (real,), [(4, 3), (2, 3, 2)]),
    Op("a[::-1]", lambda a: a[::-1], lambda a: a[::-1], (real,), [(4, 3), (5,)],
       torch=lambda a: a.flip(0)),
    Op("a[::-2, 1:]", lambda a: a[::-2, 1:], lambda a: a[::-2, 1:], (real,), [(5, 3), (4, 3)],
       torch=lambda a: a.flip(0)[::2, 1:]),
    Op("a[[0, 2, 0, 0]]", lambda a: a[[0, 2, 0, 0]], lambda a: a[[0, 2, 0, 0]], (real,),
       [(3, 4), (4,)]),
    Op("a[[0, 1, 1], [2, 0, 0]]", lambda a: a[[0, 1, 1], [2, 0, 0]],
       lambda a: a[[0, 1, 1], [2, 0, 0]], (real,), [(3, 4), (2, 3, 2)]),
    # convolution and pooling along the last axis
    Op("x.conv1d(k)", lambda x, k: x.conv1d(k), _conv1d, (real, real),
       [((2, 7), (3,)), ((3, 5), (5,)), ((1, 4), (1,)), ((6,), (2,)), ((4,), (4,))],
       torch=_torch_conv1d),
    Op("x.maxpool1d(2)", lambda x: x.maxpool1d(2), lambda x: _maxpool1d(x, 2), (distinct,),
       [(2, 6), (8,), (3, 2)], torch=lambda x: _torch_maxpool1d(x, 2)),
    Op("x.maxpool1d(3), tail dropped", lambda x: x.maxpool1d(3), lambda x: _maxpool1d(x, 3),
       (distinct,), [(2, 7), (3, 5), (8,)], torch=lambda x: _torch_maxpool1d(x, 3)),
    # losses (targets are differentiated too: the formulas are smooth in them)
    Op("cross_entropy(z, y)", dp.cross_entropy,
       lambda z, y: -(y * _log_softmax(z, -1)).sum(axis=-1).mean(), (real, one_hot),
       EXAMPLES_BY_CLASSES, torch=lambda z, y: F.cross_entropy(z, y)),
    Op("cross_entropy(z, y, reduction='sum')", lambda z, y: dp.cross_entropy(z, y, "sum"),
       lambda z, y: -(y * _log_softmax(z, -1)).sum(), (real, one_hot), EXAMPLES_BY_CLASSES,
       torch=lambda z, y: F.cross_entropy(z, y, reduction="sum")),
    Op("binary_cross_entropy(z, y)", dp.binary_cross_entropy,
       lambda z, y: -(y * np.log(_sigmoid(z)) + (1 - y) * np.log(1 - _sigmoid(z))).mean(),
       (nonzero, bits), [((5,), (5,)), ((4, 1), (4, 1)), ((3, 2), (3, 2))],
       torch=lambda z, y: F.binary_cross_entropy_with_logits(z, y)),
    Op("mean_squared_error(p, y)", dp.mean_squared_error, lambda p, y: np.mean((p - y) ** 2),
       (real, real), [((5,), (5,)), ((4, 3), (4, 3))], torch=lambda p, y: F.mse_loss(p, y)),
]

def _cases():
    for op in OPS:
        for shapes in op.shapes:
            shapes = shapes if len(op.domains) > 1 else (shapes,)
            yield pytest.param(op, shapes, id=f"{op.name} | {' '.join(map(str, shapes))}")


CASES = list(_cases())




# -- helpers --------------------------------------------------------------------------------------
def draw(op, shapes, seed=0) -> list:
    """Operand values for `op` with these shapes: float64 arrays, or Python numbers."""
    rng = np.random.default_rng(seed)
    values = [(domain.draw if isinstance(domain, Const) else domain)(rng, shape)
              for domain, shape in zip(op.domains, shapes)]
    return [v if type(v) is float else np.asarray(v, np.float64) for v in values]


def variables(op) -> list:
    """Positions of the operands that are Nodes (and are differentiated)."""
    return [i for i, domain in enumerate(op.domains) if not isinstance(domain, Const)]


def apply(op, values):
    """`op.fn` with named leaves x0, x1, ... for the variables, constants as they are."""
    args = list(values)
    for i in variables(op):
        args[i] = Node(values[i], f"x{i}")
    return op.fn(*args)


def check_gradients(op, values) -> float:
    """`dp.gradcheck` of `op` with respect to its variables, the constants held fixed."""
    def with_constants(*nodes):
        args = list(values)
        for i, node in zip(variables(op), nodes):
            args[i] = node
        return op.fn(*args)
    return dp.gradcheck(with_constants, *[values[i] for i in variables(op)])


def upstream(shape, dtype=np.float64, seed=1) -> np.ndarray:
    return np.asarray(np.random.default_rng(seed).standard_normal(shape), dtype)


# -- the table, checked ---------------------------------------------------------------------------
@pytest.mark.parametrize("op, shapes", CASES)
def test_forward_equals_the_numpy_formula(op, shapes):
    values = draw(op, shapes)
    out = apply(op, values)
    assert isinstance(out, Node)
    expected = op.numpy(*values)
    assert out.shape == np.shape(expected)
    assert_allclose(out.value, expected, rtol=FORWARD_RTOL, atol=FORWARD_RTOL)


@pytest.mark.parametrize("op, shapes", CASES)
def test_backward_agrees_with_central_differences(op, shapes):
    for seed in (0, 1):
        assert check_gradients(op, draw(op, shapes, seed)) < 1e-6


@pytest.mark.parametrize("op, shapes", CASES)
def test_gradients_have_the_leaf_shapes_and_float64_dtype(op, shapes):
    values = draw(op, shapes)
    out = apply(op, values)
    grads = out.grad(upstream(out.shape))
    assert out.dtype == np.float64
    assert sorted(grads) == [f"x{i}" for i in variables(op)]
    for i in variables(op):
        assert grads[f"x{i}"].shape == np.shape(values[i])
        assert grads[f"x{i}"].dtype == np.float64


@pytest.mark.parametrize("op, shapes", CASES)
def test_float32_inputs_stay_float32_forward_and_backward(op, shapes):
    values = [v.astype(np.float32) if isinstance(v, np.ndarray) else v for v in draw(op, shapes)]
    out = apply(op, values)
    assert out.dtype == np.float32
    assert_allclose(out.value, op.numpy(*draw(op, shapes)), rtol=1e-4, atol=1e-5)
    grads = out.grad(upstream(out.shape, np.float32))
    for i in variables(op):
        assert grads[f"x{i}"].dtype == np.float32
        assert grads[f"x{i}"].shape == values[i].shape


@pytest.mark.torch
@requires_torch
@pytest.mark.parametrize("op, shapes", CASES)
def test_forward_and_gradients_equal_torch_autograd(op, shapes):
    values = draw(op, shapes)
    out = apply(op, values)
    u = upstream(out.shape)
    grads = out.grad(u)

    tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=i in variables(op))
               if isinstance(v, np.ndarray) else v
               for i, v in enumerate(values)]
    expected = (op.torch or op.fn)(*tensors)
    expected.backward(torch.from_numpy(u))

    assert_allclose(out.value, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    for i in variables(op):
        assert_allclose(grads[f"x{i}"], tensors[i].grad.numpy(), rtol=1e-10, atol=1e-12,
                        err_msg=f"gradient of operand {i}")


# -- the same on shapes drawn by hypothesis -------------------------------------------------------
OPS_BY_NAME = {op.name: op for op in OPS}
BROADCASTING_OPS = [OPS_BY_NAME[name] for name in ("a + b", "a - b", "a * b", "a / b", "a ** b",
                                                   "maximum(a, b)", "minimum(a, b)")]


@pytest.mark.parametrize("op", BROADCASTING_OPS, ids=lambda op: op.name)
@FEW_EXAMPLES
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4),
       seed=st.integers(0, 2**16))
def test_binary_op_broadcasts_like_numpy(op, shapes, seed):
    values = draw(op, shapes.input_shapes, seed)
    out = apply(op, values)
    assert_allclose(out.value, op.numpy(*values), rtol=FORWARD_RTOL, atol=FORWARD_RTOL)
    assert out.shape == shapes.result_shape
    grads = out.grad(upstream(out.shape, seed=seed))
    assert [grads[name].shape for name in ("x0", "x1")] == list(shapes.input_shapes)
    assert check_gradients(op, values) < 1e-6


REDUCTIONS = {"sum": (np.sum, real), "mean": (np.mean, real), "max": (np.max, distinct)}


@pytest.mark.parametrize("name", REDUCTIONS)
@FEW_EXAMPLES
@given(data=st.data(), shape=array_shapes(min_dims=1, max_dims=3, max_side=4),
       seed=st.integers(0, 2**16))
def test_reduction_over_an_axis_keeps_it_and_over_everything_gives_0d(name, data, shape, seed):
    formula, domain = REDUCTIONS[name]
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]), label="axis")
    values = domain(np.random.default_rng(seed), shape)
    out = getattr(Node(values, "a"), name)(axis)
    assert_allclose(out.value, formula(values, axis=axis, keepdims=axis is not None),
                    rtol=FORWARD_RTOL, atol=FORWARD_RTOL)
    assert out.shape == (() if axis is None else
                         tuple(1 if i == axis % len(shape) else n for i, n in enumerate(shape)))
    assert dp.gradcheck(lambda a: getattr(a, name)(axis), values) < 1e-6


# -- single behaviours, worked by hand ------------------------------------------------------------
def test_sum_over_axis_keeps_the_axis():
    a = Node([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert_array_equal(a.sum(axis=1).value, [[6.0], [15.0]])
    assert_array_equal(a.sum(axis=0).value, [[5.0, 7.0, 9.0]])
    assert_array_equal(a.mean(axis=1).value, [[2.0], [5.0]])
    assert_array_equal(a.max(axis=0).value, [[4.0, 5.0, 6.0]])


def test_reduction_over_everything_gives_a_0d_scalar():
    a = Node([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert [a.sum().shape, a.mean().shape, a.max().shape] == [(), (), ()]
    assert [a.sum().item(), a.mean().item(), a.max().item()] == [21.0, 3.5, 6.0]


def test_ndarray_on_the_left_of_a_node_gives_a_node():
    b = Node([1.0, 2.0], "b")
    for out in (np.ones(2) + b, np.ones(2) - b, np.ones(2) * b, np.ones(2) / b,
                np.ones(2) ** b, np.ones((3, 2)) @ b, np.float64(2.0) * b):
        assert isinstance(out, Node)
    assert_array_equal((np.array([10.0, 20.0]) - b).value, [9.0, 18.0])
    assert_array_equal((np.array([10.0, 20.0]) - b).sum().grad()["b"], [-1.0, -1.0])


def test_broadcast_gradient_is_summed_back_to_the_operand_shape():
    a = Node(np.ones((3, 1)), "a")
    b = Node(np.array([[1.0, 2.0, 3.0, 4.0]]), "b")
    grads = (a * b).sum().grad()
    assert_array_equal(grads["a"], [[10.0], [10.0], [10.0]])  # 1 + 2 + 3 + 4 per row
    assert_array_equal(grads["b"], [[3.0, 3.0, 3.0, 3.0]])    # three rows of ones


def test_scalar_0d_node_times_matrix_gets_the_summed_gradient():
    s = Node(2.0, "s")
    m = Node(np.arange(6.0).reshape(2, 3), "m")
    grads = (s * m).sum().grad()
    assert grads["s"].shape == () and grads["s"] == 15.0
    assert_array_equal(grads["m"], np.full((2, 3), 2.0))


def test_repeated_indices_add_up_their_gradients():
    x = Node([10.0, 20.0, 30.0], "x")
    picked = x[[0, 0, 2, 0]]
    assert_array_equal(picked.value, [10.0, 10.0, 30.0, 10.0])
    assert_array_equal(picked.grad(np.array([1.0, 2.0, 3.0, 4.0]))["x"], [7.0, 0.0, 3.0])


def test_negative_step_slice_sends_the_gradient_back_to_the_picked_elements():
    x = Node([0.0, 1.0, 2.0, 3.0, 4.0], "x")
    picked = x[::-2]
    assert_array_equal(picked.value, [4.0, 2.0, 0.0])
    assert_array_equal(picked.grad(np.array([1.0, 2.0, 3.0]))["x"], [3.0, 0.0, 2.0, 0.0, 1.0])


def test_conv1d_is_cross_correlation_not_flipped():
    x = Node([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0]], "x")
    k = Node([1.0, 0.0, -1.0], "k")
    out = x.conv1d(k)
    assert_array_equal(out.value, [[-2.0, -2.0], [0.0, 0.0]])  # x[i] - x[i + 2]
    grads = out.sum().grad()
    assert_array_equal(grads["k"], [3 + 1, 5 + 1, 7 + 1])  # sums of x[:, j:j + 2]
    assert_array_equal(grads["x"], [[1.0, 1.0, -1.0, -1.0]] * 2)


def test_maxpool1d_sends_the_gradient_to_each_window_max_and_nothing_to_the_tail():
    x = Node([1.0, 5.0, 3.0, 2.0, 9.0], "x")  # windows [1, 5] and [3, 2]; 9 is dropped
    out = x.maxpool1d(2)
    assert_array_equal(out.value, [5.0, 3.0])
    assert_array_equal(out.grad(np.array([10.0, 20.0]))["x"], [0.0, 10.0, 20.0, 0.0, 0.0])


def test_maximum_splits_the_gradient_evenly_on_ties():
    a, b = Node([1.0, 2.0, 3.0], "a"), Node([3.0, 2.0, 1.0], "b")
    grads = dp.maximum(a, b).sum().grad()
    assert_array_equal(grads["a"], [0.0, 0.5, 1.0])
    assert_array_equal(grads["b"], [1.0, 0.5, 0.0])


def test_concatenate_gives_each_operand_its_slice_of_the_gradient():
    a, b, c = Node(np.zeros((2, 1)), "a"), Node(np.zeros((2, 2)), "b"), Node(np.zeros((2, 1)), "c")
    out = dp.concatenate([a, b, c], axis=1)
    assert out.shape == (2, 4)
    grads = out.grad(np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]))
    assert_array_equal(grads["a"], [[1.0], [5.0]])
    assert_array_equal(grads["b"], [[2.0, 3.0], [6.0, 7.0]])
    assert_array_equal(grads["c"], [[4.0], [8.0]])


def test_float32_node_times_python_float_stays_float32():
    a = Node(np.ones(3, np.float32), "a")
    for out in (a * 2.0, 2.0 * a, a + 1, a / 3.0, 2.0 ** a, a ** 2, a.mean()):
        assert out.dtype == np.float32
        assert out.sum().grad()["a"].dtype == np.float32


@pytest.mark.parametrize("value", [np.arange(3), np.array([True, False]), 3, np.uint8(7)],
                         ids=["int array", "bool array", "Python int", "uint8"])
def test_int_and_bool_values_become_float64(value):
    assert Node(value).dtype == np.float64


# -- error messages -------------------------------------------------------------------------------
def test_dot_of_mismatched_shapes_names_dot_and_both_shapes():
    with pytest.raises(dp.ShapeError, match=r"dot") as error:
        Node(np.ones((3, 4))).dot(Node(np.ones((5, 2))))
    assert "(3, 4)" in str(error.value) and "(5, 2)" in str(error.value)


@pytest.mark.parametrize("name, combine", [
    ("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
    ("div", operator.truediv), ("pow", operator.pow), ("maximum", dp.maximum),
    ("minimum", dp.minimum)])
def test_broadcasting_failure_names_the_op_and_the_shapes(name, combine):
    with pytest.raises(dp.ShapeError, match=name) as error:
        combine(Node(np.ones((3, 4))), Node(np.ones(5)))
    assert "(3, 4)" in str(error.value) and "(5,)" in str(error.value)


def test_conv1d_with_a_kernel_longer_than_the_input_names_both_shapes():
    with pytest.raises(dp.ShapeError, match="conv1d") as error:
        Node(np.ones((2, 3))).conv1d(np.ones(5))
    assert "(2, 3)" in str(error.value) and "(5,)" in str(error.value)


def test_maxpool1d_with_a_window_longer_than_the_axis_says_so():
    with pytest.raises(dp.ShapeError, match="maxpool1d: window 4 is longer") as error:
        Node(np.ones((2, 3))).maxpool1d(4)
    assert "(2, 3)" in str(error.value)


def test_grad_of_a_non_scalar_output_asks_for_a_scalar():
    with pytest.raises(dp.ShapeError, match="scalar") as error:
        Node(np.ones((3, 4)), "a").sum(axis=0).grad()
    assert "(1, 4)" in str(error.value)


@pytest.mark.parametrize("value", ["abc", np.array(["a", "b"]), None],
                         ids=["str", "str array", "None"])
def test_node_of_a_non_number_raises_type_error(value):
    with pytest.raises(TypeError, match="numbers only"):
        Node(value)


def test_concatenate_and_reshape_failures_name_the_op():
    with pytest.raises(dp.ShapeError, match="concatenate"):
        dp.concatenate([Node(np.ones((2, 3))), Node(np.ones((3, 2)))])
    with pytest.raises(dp.ShapeError, match=r"reshape: operands of shapes \(2, 3\)"):
        Node(np.ones((2, 3))).reshape(4, 2)


# -- regressions of bugs found by this suite ------------------------------------------------------
def test_transpose_with_negative_axes_sends_the_gradient_back():
    values = np.random.default_rng(0).standard_normal((2, 3, 4))
    assert dp.gradcheck(lambda a: a.transpose(-1, 0, 1), values) < 1e-6


def test_binary_cross_entropy_gradient_at_zero_logits_is_sigmoid_minus_target():
    z = Node(np.zeros(2), "z")
    y = np.array([1.0, 0.0])
    assert_allclose(dp.binary_cross_entropy(z, y).grad()["z"], (0.5 - y) / 2)  # [-0.25, 0.25]


def test_sigmoid_keeps_its_digits_in_the_tails_and_never_overflows():
    """(1 + tanh(a/2)) / 2 kept 4 digits at a = -27 (1.9e-12) and none further out: 04's forward
    check then failed the solution for two grading seeds in a thousand."""
    a = np.concatenate([-np.logspace(-3, np.log10(700), 200), [0.0], np.logspace(-3, np.log10(700), 200)])
    exact = np.where(a < 0, np.exp(a) / (1 + np.exp(a)), 1 / (1 + np.exp(-np.abs(a))))
    with np.errstate(all="raise"):
        got = Node(a).sigmoid().value
    assert np.max(np.abs(got - exact) / exact) < 1e-14
    assert Node(np.array([-1e4, 1e4])).sigmoid().value.tolist() == [0.0, 1.0]
    assert Node(np.float32(-60.0)).sigmoid().value.dtype == np.float32


def test_maxpool_with_a_window_of_zero_is_a_shape_error():
    with pytest.raises(dp.ShapeError, match="maxpool1d"):
        Node(np.ones(4)).maxpool1d(0)


def test_maximum_with_a_number_keeps_float32():
    a = Node(np.array([1.0, -1.0], np.float32), "a")
    assert dp.maximum(a, 0.0).dtype == np.float32
    assert dp.maximum(0.0, a).grad(np.ones(2, np.float32))["a"].dtype == np.float32
