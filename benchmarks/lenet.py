"""LeNet-5 forward and backward on a batch of 64 MNIST digits, one thread: dp against a
hand-written NumPy step and PyTorch on the CPU (when installed), side by side.

    python benchmarks/lenet.py [--repeats N] [--dtype float32|float64] [--clock wall|cpu]

The network: conv 1->6 5x5 (padding 2), ReLU, max pool 2; conv 6->16 5x5, ReLU, max pool 2;
dense 400-120-84-10 with ReLU; softmax cross-entropy. One step is the forward pass and the
gradients of every parameter (no update). The three start from the same weights; before timing,
their gradients are compared (the script stops if they disagree). Target (design, "Performance
targets"): dp <= 2 x PyTorch.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]  # this checkout's dp, and common.py
from common import (agree, benchmark_arguments, import_torch, machine, one_thread,  # noqa: E402
                    time_side_by_side)

one_thread()
import numpy as np  # noqa: E402

import dp  # noqa: E402

BATCH = 64
CONVS = {"c1": (6, 1, 5, 5), "c2": (16, 6, 5, 5)}
DENSE = {"f1": (400, 120), "f2": (120, 84), "f3": (84, 10)}


def initial_weights(dtype, seed=0) -> dict:
    """He-normal weights, small random biases (so that a wrong bias gradient shows)."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in {**CONVS, **DENSE}.items():
        fan_in = np.prod(shape[1:]) if name in CONVS else shape[0]
        weights[name + "_W"] = (rng.standard_normal(shape) * np.sqrt(2 / fan_in)).astype(dtype)
        outputs = shape[0] if name in CONVS else shape[1]
        weights[name + "_b"] = (0.01 * rng.standard_normal(outputs)).astype(dtype)
    return weights


def dp_step(weights, x, targets):
    """dp: the gradients of the mean cross-entropy, {name: array}; `targets` one-hot."""
    p = {name: dp.Node(value, name) for name, value in weights.items()}
    h = dp.maxpool2d(dp.conv2d(x, p["c1_W"], p["c1_b"], padding=2).relu(), 2)
    h = dp.maxpool2d(dp.conv2d(h, p["c2_W"], p["c2_b"]).relu(), 2).reshape(len(x), -1)
    for name in DENSE:
        h = h @ p[name + "_W"] + p[name + "_b"]
        h = h if name == "f3" else h.relu()
    return dp.cross_entropy(h, targets).grad()


def numpy_step(weights, x, labels):
    """The same by hand: convolution forward as a tensordot over the windows, its input
    gradient as the 'full' correlation of the upstream gradient with the flipped kernels."""
    view = np.lib.stride_tricks.sliding_window_view
    grads, saved = {}, []

    def conv(a, name, pad):
        a = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        windows = view(a, (5, 5), axis=(2, 3))                    # (N, C, OH, OW, 5, 5)
        y = np.tensordot(windows, weights[name + "_W"], axes=([1, 4, 5], [1, 2, 3]))
        saved.append((name, windows, pad))
        return y.transpose(0, 3, 1, 2) + weights[name + "_b"][:, None, None]

    def conv_back(g):
        name, windows, pad = saved.pop()
        grads[name + "_W"] = np.tensordot(g, windows, axes=([0, 2, 3], [0, 2, 3]))
        grads[name + "_b"] = g.sum(axis=(0, 2, 3))
        full = np.pad(g, ((0, 0), (0, 0), (4, 4), (4, 4)))
        flipped = weights[name + "_W"][:, :, ::-1, ::-1]
        gx = np.tensordot(view(full, (5, 5), axis=(2, 3)), flipped, axes=([1, 4, 5], [0, 2, 3]))
        gx = gx.transpose(0, 3, 1, 2)
        return gx[:, :, pad:gx.shape[2] - pad, pad:gx.shape[3] - pad]

    def relu_pool(a):               # max pool 2 after ReLU; remembers the first maximum
        n, c, h, w = a.shape
        blocks = np.maximum(a, 0).reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
        blocks = blocks.reshape(n, c, h // 2, w // 2, 4)
        first = blocks.argmax(axis=-1)[..., None]
        out = np.take_along_axis(blocks, first, -1)
        saved.append(((np.arange(4) == first) & (out > 0), a.shape))
        return out[..., 0]

    def relu_pool_back(g):
        at_max, (n, c, h, w) = saved.pop()
        g = (at_max * g[..., None]).reshape(n, c, h // 2, w // 2, 2, 2)
        return g.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h, w)

    h = relu_pool(conv(x, "c1", 2))
    h = relu_pool(conv(h, "c2", 0))
    flat = [h.reshape(len(x), -1)]
    for name in DENSE:
        z = flat[-1] @ weights[name + "_W"] + weights[name + "_b"]
        flat.append(z if name == "f3" else np.maximum(z, 0))
    e = np.exp(flat[-1] - flat[-1].max(axis=1, keepdims=True))
    g = e / e.sum(axis=1, keepdims=True)
    g[np.arange(len(x)), labels] -= 1
    g /= len(x)
    for i, name in reversed(list(enumerate(DENSE))):
        grads[name + "_W"] = flat[i].T @ g
        grads[name + "_b"] = g.sum(axis=0)
        g = (g @ weights[name + "_W"].T) * (flat[i] > 0)
    g = conv_back(relu_pool_back(g.reshape(h.shape)))
    conv_back(relu_pool_back(g))
    return grads


def torch_step_function(torch, weights):
    F = torch.nn.functional
    p = {name: torch.tensor(value, requires_grad=True) for name, value in weights.items()}

    def step(x, labels):
        h = F.max_pool2d(F.relu(F.conv2d(x, p["c1_W"], p["c1_b"], padding=2)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["c2_W"], p["c2_b"])), 2).flatten(1)
        for name in DENSE:
            h = h @ p[name + "_W"] + p[name + "_b"]
            h = h if name == "f3" else F.relu(h)
        names = list(p)
        return dict(zip(names, torch.autograd.grad(F.cross_entropy(h, labels), list(p.values()))))
    return step


def main(argv=None):
    args = benchmark_arguments(__doc__, argv)
    dtype = np.dtype(args.dtype).type
    torch = import_torch(threads=1)
    digits = dp.data.mnist(verbose=False)
    x = digits.x_train[:BATCH].reshape(BATCH, 1, 28, 28).astype(dtype)
    labels = digits.y_train[:BATCH]
    weights = initial_weights(dtype)

    targets = dp.one_hot(labels, 10, dtype)
    steps = {"dp": lambda: dp_step(weights, x, targets),
             "numpy": lambda: numpy_step(weights, x, labels)}
    if torch:
        torch_step = torch_step_function(torch, weights)
        tx, tlabels = torch.from_numpy(x), torch.from_numpy(labels)
        steps["torch"] = lambda: torch_step(tx, tlabels)
    reference = steps["dp"]()
    tolerance = 1e-4 if dtype is np.float32 else 1e-9
    for name, step in steps.items():
        theirs = step()
        agree(name, {k: v.detach().numpy() if name == "torch" else v for k, v in theirs.items()},
              reference, tolerance)
    print(machine())
    print(f"LeNet-5, batch {BATCH}, {args.dtype}, 1 thread; gradients agree "
          f"(relative error <= {tolerance:g}); source: {digits.source}")
    if not torch:
        print("PyTorch is not installed (make torch): no comparison with it")
    time_side_by_side(steps, args)


if __name__ == "__main__":
    main()
