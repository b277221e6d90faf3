"""09's calibration sweep: the test accuracy of ordinary textbook MLPs, trained as the notebook
trains its own (dp.Adam, lr 1e-3, batch 128, He-initialised ReLU layers, a linear last layer,
the mean cross-entropy of the logits), on whichever MNIST `dp.data.mnist()` finds.

The bar of 09 (course.toml, `[assignment.thresholds]` of 09_mnist) is set from this table, one
bar per data source: the offline 5,000-digit subset (4,000 to train, 1,000 held out) and the
full MNIST (60,000 / 10,000). The table is published in the notebook.

    python benchmarks/mnist_sweep.py                      # every setup, seeds 0 1 2
    python benchmarks/mnist_sweep.py --seeds 0 --markdown

Accuracy is measured on `x_test`, which is what the grader holds out: a submission's sandbox has
the training digits only. Standard error shows each run's accuracies, seed by seed, and the two
baselines that the floor is set from: the nearest class mean and a linear model (784-10).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dp  # noqa: E402

# (hidden layer widths, Adam steps): the setups of issue 16, and the notebook's own
SETUPS = [((128,), 300), ((128,), 600), ((100,), 300), ((100,), 600), ((256,), 300), ((256,), 600),
          ((128, 64), 300), ((128, 64), 600), ((256, 128), 300), ((256, 128), 600)]


class MLP(dp.Model):
    """784 -> relu(widths...) -> 10 logits."""

    def __init__(self, widths):
        super().__init__()
        sizes = [784, *widths]
        self.hidden = [self.ReLU_Layer(a, b, f"h{i}") for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]
        self.out = self.Linear_Layer(sizes[-1], 10, "out")

    def forward(self, x):
        h = x if isinstance(x, dp.Node) else dp.Node(x)
        for layer in self.hidden:
            h = layer(h)
        return self.out(h)

    def loss(self, x, y):
        return dp.cross_entropy(self.forward(x), y)


def accuracy(widths, steps, seed, data, lr=1e-3, batch_size=128) -> float:
    """Test accuracy of one training run."""
    dp.seed(seed)
    net = MLP(widths)
    dp.Adam(net, data.x_train, dp.one_hot(data.y_train, 10), lr=lr, batch_size=batch_size,
            seed=seed).train(steps=steps, print_each=0)
    with dp.no_grad():
        predicted = net.eval().forward(data.x_test).value.argmax(axis=1)
    return float(np.mean(predicted == data.y_test))


def nearest_class_mean(data) -> float:
    """Test accuracy of predicting the class whose mean training image is nearest."""
    means = np.stack([data.x_train[data.y_train == k].mean(axis=0) for k in range(10)])
    distances = (data.x_test ** 2).sum(1)[:, None] - 2 * data.x_test @ means.T + (means ** 2).sum(1)
    return float(np.mean(distances.argmin(axis=1) == data.y_test))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--markdown", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    data = dp.data.mnist(download=False, verbose=False)
    print(f"data: {data.source}; Adam lr 1e-3, batch 128; seeds {args.seeds}", file=sys.stderr)
    print("| network | steps | accuracy (min / mean / max over seeds) |")
    print("|---|---|---|")
    everything = []
    for widths, steps in SETUPS:
        start = time.perf_counter()
        runs = [accuracy(widths, steps, seed, data) for seed in args.seeds]
        everything += runs
        name = "-".join(map(str, (784, *widths, 10)))
        print(f"| {name} | {steps} | {min(runs):.3f} / {np.mean(runs):.3f} / {max(runs):.3f} |",
              flush=True)
        print(f"  {name} x {steps}: " + " ".join(f"{a:.4f}" for a in runs)
              + f" ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    linear = {steps: [accuracy((), steps, seed, data) for seed in args.seeds] for steps in (300, 600)}
    print(f"baselines: nearest class mean {nearest_class_mean(data):.4f}; linear 784-10: "
          + "; ".join(f"{steps} steps " + " ".join(f"{a:.4f}" for a in runs) for steps, runs in linear.items()),
          file=sys.stderr)
    print(f"all runs: min {min(everything):.3f}, 10th percentile "
          f"{np.percentile(everything, 10):.3f}, median {np.median(everything):.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
