"""14's calibration sweep: the held-out accuracy of ordinary textbook CNNs, trained as the notebook
trains its own (dp.Adam, batch 64, He-initialised layers, the mean cross-entropy of the logits), and
of networks that skip the convolution, on whichever MNIST `dp.data.mnist()` finds.

The bar of 14 (course.toml, `[assignment.thresholds]` of 14_convolutional_networks) is the lowest
accuracy of the CNNs below over three seeds, rounded down to 0.01. The networks that skip the
convolution (a dense net on the pixels, pooled pixels into a dense net, a 1x1 "convolution") are
refused by the grader whatever their accuracy (autograder/probes/convolutional_networks.py,
`stack_problem`): they are here to show what accuracy alone would let through.

    python benchmarks/cnn_sweep.py                      # every setup, seeds 0 1 2
    python benchmarks/cnn_sweep.py --seeds 0 --only conv8

Accuracy is measured on `x_test`, which is what the grader holds out. One BLAS thread, as in the
grading sandbox; the seconds are the training's, on this machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dp  # noqa: E402

# A setup: (name, layers, skips the convolution), a layer ("conv", filters, kernel, stride,
# padding) followed by a ReLU, ("maxpool" | "avgpool", size), ("dense", width) followed by a ReLU,
# and always a last linear layer to 10 scores after flattening.
SETUPS = [
    ("conv8 3x3 - maxpool 2 - 10", [("conv", 8, 3, 1, 1), ("maxpool", 2)], False),
    ("conv8 3x3 - maxpool 2 - 64 - 10", [("conv", 8, 3, 1, 1), ("maxpool", 2), ("dense", 64)], False),
    ("conv8 5x5 - maxpool 2 - 64 - 10", [("conv", 8, 5, 1, 2), ("maxpool", 2), ("dense", 64)], False),
    ("conv8 3x3 - avgpool 2 - 64 - 10", [("conv", 8, 3, 1, 1), ("avgpool", 2), ("dense", 64)], False),
    ("conv16 5x5 - maxpool 2 - 64 - 10", [("conv", 16, 5, 1, 0), ("maxpool", 2), ("dense", 64)], False),
    ("conv8 3x3 stride 2 - 64 - 10", [("conv", 8, 3, 2, 1), ("dense", 64)], False),
    ("conv8 - maxpool - conv16 - maxpool - 10",
     [("conv", 8, 3, 1, 1), ("maxpool", 2), ("conv", 16, 3, 1, 1), ("maxpool", 2)], False),
    ("dense 784-256-128-10", [("dense", 256), ("dense", 128)], True),
    ("dense 784-64-10", [("dense", 64)], True),
    ("avgpool 2 on the pixels - 64 - 10", [("avgpool", 2), ("dense", 64)], True),
    ("conv8 1x1 - maxpool 2 - 64 - 10", [("conv", 8, 1, 1, 0), ("maxpool", 2), ("dense", 64)], True),
]


class Stack(dp.Model):
    """The layers of a setup on images (n, 784) seen as (n, 1, 28, 28)."""

    def __init__(self, layers, seed):
        super().__init__()
        rng, shape, self.layers_ = np.random.default_rng(seed), (1, 28, 28), []
        for i, layer in enumerate(layers + [("dense", 10)]):
            kind = layer[0]
            if kind == "conv":
                _, f, k, stride, padding = layer
                c, h, w = shape
                W = dp.Node(rng.normal(0, np.sqrt(2 / (c * k * k)), (f, c, k, k)), f"c{i}_W")
                self.layers_.append((kind, W, dp.Node(np.zeros(f), f"c{i}_b"), stride, padding))
                shape = (f, (h + 2 * padding - k) // stride + 1, (w + 2 * padding - k) // stride + 1)
            elif kind in ("maxpool", "avgpool"):
                self.layers_.append(layer)
                shape = (shape[0], shape[1] // layer[1], shape[2] // layer[1])
            else:
                last = i == len(layers)
                self.layers_.append((kind, dp.Dense(int(np.prod(shape)), layer[1], f"d{i}",
                                                    None if last else "relu")))
                shape = (layer[1],)

    def forward(self, x):
        h = dp.Node(np.asarray(x.value if isinstance(x, dp.Node) else x).reshape(-1, 1, 28, 28))
        for layer in self.layers_:
            if layer[0] == "conv":
                h = dp.conv2d(h, layer[1], layer[2], layer[3], layer[4]).relu()
            elif layer[0] in ("maxpool", "avgpool"):
                h = getattr(dp, layer[0] + "2d")(h, layer[1])
            else:
                h = layer[1](h.reshape(h.shape[0], -1) if h.ndim > 2 else h)
        return h

    def loss(self, x, y):
        return dp.cross_entropy(self.forward(x), y)


def runs_of(layers, steps, seed, data, lr, batch_size=64) -> list:
    """[(held-out accuracy, training seconds so far) after each number of `steps`] of one run."""
    dp.seed(seed)
    net = Stack(layers, seed)
    optimizer = dp.Adam(net, data.x_train, dp.one_hot(data.y_train, 10), lr=lr,
                        batch_size=batch_size, seed=seed)
    done, seconds, out = 0, 0.0, []
    for total in steps:
        start = time.perf_counter()
        optimizer.train(steps=total - done, print_each=0)
        seconds, done = seconds + time.perf_counter() - start, total
        with dp.no_grad():
            predicted = net.eval().forward(data.x_test).value.argmax(axis=1)
        net.train()
        out.append((float(np.mean(predicted == data.y_test)), seconds))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, nargs="+", default=[300, 600])
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--only", default="", help="setups whose name contains this")
    args = parser.parse_args(argv)
    try:
        from threadpoolctl import threadpool_limits
        threads = threadpool_limits(1)
    except ImportError:                                   # pragma: no cover
        threads = None
    data = dp.data.mnist(download=False, verbose=False)
    print(f"data: {data.source}; Adam lr {args.lr}, batch 64; seeds {args.seeds}", file=sys.stderr)
    print("| network | skips the convolution | " + " | ".join(f"{s} steps" for s in args.steps) + " |")
    print("|---|---|" + "---|" * len(args.steps))
    cnn = []
    for name, layers, skips in SETUPS:
        if args.only not in name:
            continue
        cells = []
        by_seed = [runs_of(layers, sorted(args.steps), seed, data, args.lr) for seed in args.seeds]
        for i in range(len(args.steps)):
            runs = [seed_runs[i] for seed_runs in by_seed]
            accuracies = [a for a, _ in runs]
            if not skips:
                cnn += accuracies
            cells.append(f"{min(accuracies):.3f} / {np.mean(accuracies):.3f} / {max(accuracies):.3f}"
                         f" ({np.mean([s for _, s in runs]):.0f} s)")
        print(f"| {name} | {'yes' if skips else 'no'} | " + " | ".join(cells) + " |", flush=True)
    if cnn:
        print(f"CNNs: lowest {min(cnn):.3f}, median {np.median(cnn):.3f}", file=sys.stderr)
    del threads


if __name__ == "__main__":
    main()
