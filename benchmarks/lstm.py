"""An LSTM of 128 units over 50 steps, batch 32, forward and backward, one thread: dp (the LSTM
built from nodes and delay nodes, `dp.lstm`, run by `dp.run`) against the same step written by
hand in NumPy and torch.nn.LSTM (when installed), side by side.

    python benchmarks/lstm.py [--repeats N] [--dtype float32|float64] [--clock wall|cpu]

One step is the forward pass over the sequence and the gradients of W, U and b for the loss
sum(h * u) (u random). All start from the same weights; their gradients are compared with dp's
before timing (the script stops if they disagree). Target (design, "Performance targets"): dp <= 2 x
PyTorch.
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

UNITS, STEPS, BATCH, INPUTS = 128, 50, 32, 128


def dp_step(weights, xs, u):
    p = {name: dp.Node(value, name) for name, value in weights.items()}
    h, _ = dp.lstm(dp.Input("x"), p["W"], p["U"], p["b"])
    return (dp.run(h, {"x": xs}) * u).sum().grad()


def numpy_step(weights, xs, u):
    """The same step written by hand in NumPy: no graph, each step's arrays freed as it goes
    (what dp's cost per node and its kept graph are measured against). Forward as `dp.lstm`
    (the same sigmoid), then backpropagation through time with the four gates in one array."""
    W, U, b = weights["W"], weights["U"], weights["b"]
    steps, batch, m = xs.shape[0], xs.shape[1], U.shape[0]
    zx = (xs.reshape(-1, xs.shape[2]) @ W + b).reshape(steps, batch, 4 * m)
    h, c = np.zeros((batch, m), W.dtype), np.zeros((batch, m), W.dtype)
    kept = []                                   # per step: h_{t-1}, c_{t-1}, s, g, tanh c_t
    for t in range(steps):
        z = zx[t] + h @ U
        s = np.exp(np.minimum(z, 0)) / (1 + np.exp(-np.abs(z)))
        g = np.tanh(z[:, 2 * m:3 * m])
        kept.append((h, c, s, g))
        c = s[:, m:2 * m] * c + s[:, :m] * g
        tanh_c = np.tanh(c)
        h = s[:, 3 * m:] * tanh_c
        kept[-1] += (tanh_c,)
    dz, dU = np.empty_like(zx), np.zeros_like(U)
    dh, dc = np.zeros((batch, m), W.dtype), np.zeros((batch, m), W.dtype)
    for t in reversed(range(steps)):
        h_prev, c_prev, s, g, tanh_c = kept[t]
        dh = dh + u[t]
        dc = dc + dh * s[:, 3 * m:] * (1 - tanh_c * tanh_c)
        ds = np.zeros_like(s)
        ds[:, :m], ds[:, m:2 * m], ds[:, 3 * m:] = dc * g, dc * c_prev, dh * tanh_c
        dz[t] = ds * s * (1 - s)
        dz[t, :, 2 * m:3 * m] = dc * s[:, :m] * (1 - g * g)
        dc = dc * s[:, m:2 * m]
        dU += h_prev.T @ dz[t]
        dh = dz[t] @ U.T
    flat = dz.reshape(-1, 4 * m)
    return {"W": xs.reshape(-1, xs.shape[2]).T @ flat, "U": dU, "b": flat.sum(axis=0)}


def torch_step_function(torch, weights):
    lstm = torch.nn.LSTM(INPUTS, UNITS, dtype=getattr(torch, weights["W"].dtype.name))
    with torch.no_grad():                  # torch holds W^T, and two biases that add up
        lstm.weight_ih_l0.copy_(torch.from_numpy(weights["W"].T))
        lstm.weight_hh_l0.copy_(torch.from_numpy(weights["U"].T))
        lstm.bias_ih_l0.copy_(torch.from_numpy(weights["b"]))
        lstm.bias_hh_l0.zero_()

    def step(xs, u):
        h, _ = lstm(xs)
        w_ih, w_hh, b = torch.autograd.grad((h * u).sum(), [lstm.weight_ih_l0, lstm.weight_hh_l0,
                                                             lstm.bias_ih_l0])
        return {"W": w_ih.T, "U": w_hh.T, "b": b}
    return step


def main(argv=None):
    args = benchmark_arguments(__doc__, argv)
    dtype = np.dtype(args.dtype).type
    rng = np.random.default_rng(0)
    scale = 1 / np.sqrt(UNITS)
    weights = {"W": rng.uniform(-scale, scale, (INPUTS, 4 * UNITS)).astype(dtype),
               "U": rng.uniform(-scale, scale, (UNITS, 4 * UNITS)).astype(dtype),
               "b": rng.uniform(-scale, scale, 4 * UNITS).astype(dtype)}
    xs = rng.standard_normal((STEPS, BATCH, INPUTS)).astype(dtype)
    u = rng.standard_normal((STEPS, BATCH, UNITS)).astype(dtype)
    torch = import_torch(threads=1)
    steps = {"dp": lambda: dp_step(weights, xs, u), "numpy": lambda: numpy_step(weights, xs, u)}
    print(machine())
    reference = steps["dp"]()
    tolerance = 1e-4 if dtype is np.float32 else 1e-9
    agree("numpy", steps["numpy"](), reference, tolerance)
    print(f"gradients of dp and the NumPy step agree (relative error <= {tolerance:g})")
    if torch:
        torch_step = torch_step_function(torch, weights)
        tx, tu = torch.from_numpy(xs), torch.from_numpy(u)
        steps["torch"] = lambda: torch_step(tx, tu)
        theirs = steps["torch"]()
        tolerance = 1e-3 if dtype is np.float32 else 1e-9
        agree("torch", {k: v.detach().numpy() for k, v in theirs.items()}, reference, tolerance)
        print(f"gradients of dp and torch agree (relative error <= {tolerance:g})")
    else:
        print("PyTorch is not installed (make torch): no comparison with it")
    print(f"LSTM {UNITS} units, {STEPS} steps, batch {BATCH}, {INPUTS} inputs, {args.dtype}, 1 thread")
    time_side_by_side(steps, args)


if __name__ == "__main__":
    main()
