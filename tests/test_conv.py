"""conv2d, maxpool2d, avgpool2d and the statistics nodes (dp/conv.py): values against a direct
definition written with loops over the pixels, gradients against central differences
(dp.gradcheck), and both against torch.nn.functional on random shapes (skipped without PyTorch)."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

import dp
from dp import Node, ShapeError, gradcheck

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

requires_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def random_case(seed):
    """A random convolution: shapes, stride, padding, and arrays of those shapes."""
    rng = np.random.default_rng(seed)
    n, c, f = rng.integers(1, 4, 3)
    kh, kw = rng.integers(1, 4, 2)
    stride = tuple(int(s) for s in rng.integers(1, 3, 2))
    padding = tuple(int(p) for p in rng.integers(0, 2, 2))
    h, w = kh + rng.integers(0, 5), kw + rng.integers(0, 5)
    return (rng.standard_normal((n, c, h, w)), rng.standard_normal((f, c, kh, kw)),
            rng.standard_normal(f), stride, padding)


def reference_conv2d(x, w, b, stride, padding):
    """The definition, one output pixel at a time."""
    (sh, sw), (ph, pw) = stride, padding
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = w.shape[2:]
    oh, ow = (x.shape[2] - kh) // sh + 1, (x.shape[3] - kw) // sw + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
            y[:, :, i, j] = np.einsum("ncpq,fcpq->nf", patch, w) + b
    return y


def reference_pool(x, reduce, size, stride, padding, fill):
    (kh, kw), (sh, sw), (ph, pw) = size, stride, padding
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    oh, ow = (x.shape[2] - kh) // sh + 1, (x.shape[3] - kw) // sw + 1
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = reduce(x[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw], axis=(2, 3))
    return y


SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_conv2d_value_is_the_definition(seed):
    x, w, b, stride, padding = random_case(seed)
    y = dp.conv2d(x, w, b, stride=stride, padding=padding)
    assert_allclose(y.value, reference_conv2d(x, w, b, stride, padding), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_conv2d_gradients_pass_gradcheck(seed):
    x, w, b, stride, padding = random_case(seed)
    assert gradcheck(lambda x, w, b: dp.conv2d(x, w, b, stride, padding), x, w, b) < 1e-7


def pool_case(seed):
    rng = np.random.default_rng(100 + seed)
    size = tuple(int(k) for k in rng.integers(1, 4, 2))
    stride = tuple(int(s) for s in rng.integers(1, 4, 2))
    padding = tuple(int(rng.integers(0, k // 2 + 1)) for k in size)
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3)),
             size[0] + int(rng.integers(0, 5)), size[1] + int(rng.integers(0, 5)))
    return rng.standard_normal(shape), size, stride, padding


@pytest.mark.parametrize("seed", SEEDS)
def test_pooling_values_are_the_definition(seed):
    x, size, stride, padding = pool_case(seed)
    assert_allclose(dp.maxpool2d(x, size, stride, padding).value,
                    reference_pool(x, np.max, size, stride, padding, -np.inf), rtol=1e-12)
    assert_allclose(dp.avgpool2d(x, size, stride, padding).value,
                    reference_pool(x, np.mean, size, stride, padding, 0.0), rtol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_pooling_gradients_pass_gradcheck(seed):
    x, size, stride, padding = pool_case(seed)
    assert gradcheck(lambda x: dp.maxpool2d(x, size, stride, padding), x) < 1e-7
    assert gradcheck(lambda x: dp.avgpool2d(x, size, stride, padding), x) < 1e-7


def test_maxpool_gradient_goes_to_the_maximum_and_overlaps_add_up():
    x = Node(np.array([[[[1.0, 5.0, 2.0]]]]), "x")
    y = dp.maxpool2d(x, (1, 2), stride=1)        # windows [1, 5] and [5, 2]: both pick the 5
    assert y.value.tolist() == [[[[5.0, 5.0]]]]
    assert y.sum().grad()["x"].tolist() == [[[[0.0, 2.0, 0.0]]]]


def test_default_pool_stride_is_the_window():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    assert dp.maxpool2d(x, 2).value.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert dp.avgpool2d(x, 2).value.tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]


def test_float32_stays_float32():
    x, w, b, stride, padding = random_case(3)
    x, w, b = (Node(a.astype(np.float32), name) for a, name in ((x, "x"), (w, "w"), (b, "b")))
    y = dp.avgpool2d(dp.maxpool2d(dp.conv2d(x, w, b, stride, padding), 1), 1)
    grads = y.sum().grad()
    assert y.dtype == np.float32 and all(g.dtype == np.float32 for g in grads.values())


@pytest.mark.parametrize("call, message", [
    (lambda: dp.conv2d(np.zeros((2, 3, 5, 5)), np.zeros((4, 2, 3, 3))),
     r"conv2d: input \(2, 3, 5, 5\) with weight \(4, 2, 3, 3\)"),
    (lambda: dp.conv2d(np.zeros((3, 5, 5)), np.zeros((4, 3, 3, 3))), r"conv2d: input \(3, 5, 5\)"),
    (lambda: dp.conv2d(np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 3, 3))),
     r"conv2d: window \(3, 3\) is larger than the padded input \(2, 2\)"),
    (lambda: dp.conv2d(np.zeros((1, 1, 4, 4)), np.zeros((2, 1, 3, 3)), np.zeros(3)),
     r"conv2d: bias \(3,\) for weight \(2, 1, 3, 3\)"),
    (lambda: dp.conv2d(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 3, 3)), stride=0),
     r"conv2d: stride must be an integer >= 1"),
    (lambda: dp.maxpool2d(np.zeros((1, 1, 4, 4)), 2, padding=2), r"maxpool2d: padding \(2, 2\)"),
    (lambda: dp.avgpool2d(np.zeros((1, 4, 4)), 2), r"avgpool2d: the input must be 4-d"),
])
def test_errors_name_the_op_and_the_shapes(call, message):
    with pytest.raises(ShapeError, match=message):
        call()


# -- statistics nodes ------------------------------------------------------------------------------
def test_statistics_nodes_values():
    x = np.random.default_rng(0).standard_normal((50, 3)) * [1.0, 2.0, 3.0] + [1.0, -1.0, 0.0]
    s = dp.inv_std_dev(x)
    assert_allclose(s.value, 1 / x.std(axis=0, keepdims=True), rtol=1e-12)
    y = dp.per_dim_mean_var_norm(x, Node(x).mean(axis=0), s)
    assert_allclose(y.value.mean(axis=0), 0, atol=1e-12)
    assert_allclose(y.value.std(axis=0), 1, rtol=1e-12)


def test_statistics_nodes_pass_gradcheck():
    rng = np.random.default_rng(1)
    x, m, s = rng.standard_normal((6, 4)), rng.standard_normal((1, 4)), rng.standard_normal(4)
    assert gradcheck(lambda x: dp.inv_std_dev(x, eps=0.1), x) < 1e-7
    assert gradcheck(lambda x: dp.inv_std_dev(x, axis=1), x) < 1e-7
    assert gradcheck(dp.per_dim_mean_var_norm, x, m, s) < 1e-7
    # normalising by the batch's own statistics: gradients through all three nodes
    assert gradcheck(lambda x: dp.per_dim_mean_var_norm(x, x.mean(axis=0), dp.inv_std_dev(x)),
                     x) < 1e-7


def test_precomputed_statistics_over_batches_equal_the_whole_set():
    x = np.random.default_rng(2).standard_normal((103, 5)) * 4 + 7
    stats = dp.Statistics(eps=0.0)
    for start in range(0, 103, 20):                   # batches of 20, the last one of 3
        stats.add(x[start:start + 20])
    assert stats.count == 103
    assert_allclose(stats.mean().value, x.mean(axis=0, keepdims=True), rtol=1e-12)
    assert_allclose(stats.inv_std_dev().value, 1 / x.std(axis=0, keepdims=True), rtol=1e-10)
    assert not stats.mean().needs_grad               # constants: no gradient flows into them


def test_statistics_refuse_mismatched_batches_and_no_data():
    stats = dp.Statistics()
    with pytest.raises(ValueError, match="no samples"):
        stats.mean()
    stats.add(np.zeros((4, 3)))
    with pytest.raises(ShapeError, match=r"Statistics.add: a batch of shape \(4, 2\)"):
        stats.add(np.zeros((4, 2)))


# -- against PyTorch ------------------------------------------------------------------------------
def torch_check(dp_fn, torch_fn, *arrays):
    leaves = [Node(a, f"a{i}") for i, a in enumerate(arrays)]
    out = dp_fn(*leaves)
    u = np.random.default_rng(7).standard_normal(out.shape)
    grads = out.grad(u)
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    expected = torch_fn(*tensors)
    expected.backward(torch.from_numpy(u))
    assert_allclose(out.value, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    for i, t in enumerate(tensors):
        assert_allclose(grads[f"a{i}"], t.grad.numpy(), rtol=1e-10, atol=1e-12,
                        err_msg=f"gradient of operand {i}")


@pytest.mark.torch
@requires_torch
@pytest.mark.parametrize("seed", range(20))
def test_conv2d_equals_torch(seed):
    x, w, b, stride, padding = random_case(1000 + seed)
    torch_check(lambda x, w, b: dp.conv2d(x, w, b, stride, padding),
                lambda x, w, b: F.conv2d(x, w, b, stride, padding), x, w, b)


@pytest.mark.torch
@requires_torch
@pytest.mark.parametrize("seed", range(20))
def test_pooling_equals_torch(seed):
    x, size, stride, padding = pool_case(1000 + seed)
    torch_check(lambda x: dp.maxpool2d(x, size, stride, padding),
                lambda x: F.max_pool2d(x, size, stride, padding), x)
    torch_check(lambda x: dp.avgpool2d(x, size, stride, padding),
                lambda x: F.avg_pool2d(x, size, stride, padding), x)
