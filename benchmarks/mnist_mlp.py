"""MNIST MLP 784-500-200-10 (ReLU, ReLU, linear; softmax cross-entropy), batch 128, Adam:
dp against a hand-written NumPy version, PyTorch on the CPU, and the matrix products alone.

    python benchmarks/mnist_mlp.py [--steps N] [--dtype float64|float32|both] [--threads 1,2]
                                   [--clock wall|cpu]

Every implementation starts from the same weights (He normal W, zero b, drawn once with NumPy)
and trains on the same data with the same sequence of mini-batches. Before anything is timed,
3 steps of each are compared parameter by parameter; the script stops if they disagree.
Timing: warm-up steps, then the median over repeats of N steps (time.perf_counter, or with
--clock cpu the CPU time of the process), the implementations taking turns so that a slow phase
of the machine hits them all alike.
Each thread count (default 1 and 2) runs in a process of its own; a summary at the end puts
every ratio side by side: float64 and float32, each thread count.
Peak memory of one training step is measured in a fresh subprocess per implementation.
The targets are those of the design ("Performance targets") and issue 20: dp/numpy <= 1.05,
dp/torch <= 0.85, dp/floor <= 1.55 (the hand-written NumPy step is itself about 1.5 times the
floor), and dp about twice as fast in float32 as in float64.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Threads: each N of --threads runs in a process of its own, which limits the BLAS "
               "(via threadpoolctl when it is installed) and PyTorch (torch.set_num_threads) to "
               f"N threads; it also sets {', '.join(THREAD_VARIABLES)} before NumPy is loaded, "
               "which is what limits the BLAS when threadpoolctl is missing.")
    parser.add_argument("--steps", type=int, default=50, help="steps per timed repeat (default 50)")
    parser.add_argument("--dtype", choices=("float64", "float32", "both"), default="both",
                        help="precision to benchmark (default both)")
    parser.add_argument("--threads", type=thread_counts, default=[1, 2],
                        help="threads for the BLAS and PyTorch, one run per count (default 1,2)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: elapsed time (default); cpu: this process's CPU time, which "
                             "leaves out the time other processes held the core: for a shared "
                             "machine. Only on 1 thread (the CPU time of several threads adds "
                             "up): runs on more threads are timed by the wall clock")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats (default 7)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="weights and batch order (default 0)")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-RSS subprocesses")
    parser.add_argument("--rss-child", choices=("dp", "numpy", "torch"), help=argparse.SUPPRESS)
    parser.add_argument("--rss-data", help=argparse.SUPPRESS)
    parser.add_argument("--results", help=argparse.SUPPRESS)  # a run's medians, as JSON, here
    args = parser.parse_args(argv)
    if args.steps < 1 or args.repeats < 1 or args.warmup < 0 or min(args.threads) < 1:
        parser.error("--steps, --repeats and --threads must be positive, --warmup not negative")
    return args


def thread_counts(text) -> list:
    """"1,2" -> [1, 2]."""
    try:
        return [int(n) for n in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"thread counts separated by commas, not {text!r}")


def clock_of(args) -> str:
    """The clock of a run on args.threads[0] threads: the CPU clock only on one thread."""
    return "cpu" if args.clock == "cpu" and args.threads == [1] else "wall"


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS and len(ARGS.threads) == 1:  # must happen before NumPy (and its BLAS) is loaded
    os.environ.update({name: str(ARGS.threads[0]) for name in THREAD_VARIABLES})

import numpy as np  # noqa: E402

sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]  # this checkout's dp, and common.py
import dp  # noqa: E402
from common import OtherLoad, machine, memory  # noqa: E402  (benchmarks/common.py)

SIZES = (784, 500, 200, 10)
LAYERS = ("h1", "h2", "h3")
KEYS = [f"{name}_{p}" for name in LAYERS for p in "Wb"]  # dp's parameter names, in layer order
BATCH = 128
LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8
AGREEMENT_STEPS = 3
# Largest |parameter difference| from dp allowed after AGREEMENT_STEPS steps. In float32 a tenth
# of one Adam step (lr): far above rounding, far below what a wrong gradient does.
TOLERANCE = {("numpy", "float64"): 1e-10, ("torch", "float64"): 1e-6,
             ("numpy", "float32"): 1e-4, ("torch", "float32"): 1e-4}
TARGETS = {"dp/numpy": 1.05, "dp/torch": 0.85, "dp/floor": 1.55}
PAUSE = 0.1  # seconds between timed blocks: lets the other library's spinning threads go to sleep


def initial_weights(seed) -> dict:
    """{"h1_W": (784, 500), "h1_b": (1, 500), ...}: He normal W, zero b, float64."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, n_in, n_out in zip(LAYERS, SIZES, SIZES[1:]):
        weights[f"{name}_W"] = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        weights[f"{name}_b"] = np.zeros((1, n_out))
    return weights


def batch_indices(n_examples, count, seed) -> list:
    """`count` index arrays of BATCH examples: a new permutation each epoch, tail dropped."""
    rng, out = np.random.default_rng(seed + 1), []
    while len(out) < count:
        order = rng.permutation(n_examples)
        out += [order[i:i + BATCH] for i in range(0, n_examples - BATCH + 1, BATCH)]
    return out[:count]


# -- (a) dp -----------------------------------------------------------------------------------
class MLP(dp.Model):
    def __init__(self, dtype=np.float64):
        super().__init__(dtype)
        self.h1 = self.ReLU_Layer(784, 500, "h1")
        self.h2 = self.ReLU_Layer(500, 200, "h2")
        self.h3 = self.Linear_Layer(200, 10, "h3")

    def forward(self, x):
        return self.h3(self.h2(self.h1(x)))

    def loss(self, x, y):
        return dp.cross_entropy(self.forward(x), y)


class DpTrainer:
    """dp.Optimizer.train, one step at a time, fed the shared batches."""

    def __init__(self, weights, dtype):
        self.net = MLP(dtype)
        if set(self.net.get_param()) != set(weights):
            sys.exit(f"dp: the model's parameters are {sorted(self.net.get_param())}, "
                     f"the benchmark expects {sorted(weights)}")
        self.net.set_param(weights)
        self.opt = dp.Adam(self.net, None, None, lr=LR, beta1=BETA1, beta2=BETA2, epsilon=EPS,
                           batch_size=None)

    @staticmethod
    def batch(x, labels, one_hot):
        return x, one_hot

    def step(self, batch):
        self.opt.x_train, self.opt.y_train = batch      # batch_size=None: train on all of it
        self.loss = self.opt.train(steps=1, print_each=0)

    def parameters(self):
        return self.net.get_param()


# -- (b) NumPy by hand --------------------------------------------------------------------------
class NumpyTrainer:
    """Forward, backward and Adam written out with NumPy: three matmuls forward, five back (the
    input needs no gradient), activations and Adam moments updated in place."""

    def __init__(self, weights, dtype):
        self.params = [weights[key].astype(dtype) for key in KEYS]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.scratch = [np.empty_like(p) for p in self.params]
        self.t = 0

    @staticmethod
    def batch(x, labels, one_hot):
        return x, labels

    def step(self, batch):
        x, labels = batch
        W1, b1, W2, b2, W3, b3 = self.params
        rows = np.arange(len(x))
        # forward
        h1 = x @ W1
        h1 += b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ W2
        h2 += b2
        np.maximum(h2, 0, out=h2)
        z = h2 @ W3
        z += b3
        # softmax cross-entropy, mean over the batch: loss = mean(logsumexp(z) - z[label])
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        total = p.sum(axis=1, keepdims=True)
        self.loss = float(np.mean(np.log(total[:, 0]) - z[rows, labels]))
        # backward: d loss / d z = (softmax(z) - one_hot) / n
        p /= total
        p[rows, labels] -= 1
        p /= len(x)
        g3 = p
        g2 = g3 @ W3.T
        g2 *= h2 > 0
        g1 = g2 @ W2.T
        g1 *= h1 > 0
        grads = [x.T @ g1, g1.sum(axis=0, keepdims=True), h1.T @ g2, g2.sum(axis=0, keepdims=True),
                 h2.T @ g3, g3.sum(axis=0, keepdims=True)]
        self.adam(grads)

    def adam(self, grads):
        """m <- b1 m + (1-b1) g; v <- b2 v + (1-b2) g^2; theta -= lr m_hat / (sqrt(v_hat) + eps),
        in place: each gradient array and a preallocated one are the scratch space."""
        self.t += 1
        step_size = LR / (1 - BETA1 ** self.t)
        correction2 = 1 - BETA2 ** self.t
        for theta, g, m, v, scratch in zip(self.params, grads, self.m, self.v, self.scratch):
            m *= BETA1
            m += np.multiply(g, 1 - BETA1, out=scratch)
            v *= BETA2
            v += np.multiply(np.square(g, out=g), 1 - BETA2, out=scratch)
            np.divide(v, correction2, out=g)
            np.sqrt(g, out=g)
            g += EPS
            np.divide(m, g, out=g)
            g *= step_size
            theta -= g

    def parameters(self):
        return {key: value.copy() for key, value in zip(KEYS, self.params)}


# -- (c) PyTorch --------------------------------------------------------------------------------
def import_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


class TorchTrainer:
    """torch.nn.Linear layers, F.cross_entropy, torch.optim.Adam; W copied transposed."""

    def __init__(self, weights, dtype):
        import torch
        self.torch = torch
        dtype = getattr(torch, dtype.__name__)
        self.layers = [torch.nn.Linear(n_in, n_out, dtype=dtype) for n_in, n_out in zip(SIZES, SIZES[1:])]
        relu = torch.nn.ReLU()
        self.model = torch.nn.Sequential(self.layers[0], relu, self.layers[1], relu, self.layers[2])
        with torch.no_grad():
            for layer, name in zip(self.layers, LAYERS):
                layer.weight.copy_(torch.from_numpy(weights[f"{name}_W"].T))
                layer.bias.copy_(torch.from_numpy(weights[f"{name}_b"][0]))
        self.opt = torch.optim.Adam(self.model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS)

    def batch(self, x, labels, one_hot):
        return self.torch.from_numpy(x), self.torch.from_numpy(labels)

    def step(self, batch):
        x, labels = batch
        self.opt.zero_grad(set_to_none=True)
        loss = self.torch.nn.functional.cross_entropy(self.model(x), labels)
        loss.backward()
        self.opt.step()
        self.loss = loss.detach()

    def parameters(self):
        out = {}
        for layer, name in zip(self.layers, LAYERS):
            out[f"{name}_W"] = layer.weight.detach().numpy().T.copy()
            out[f"{name}_b"] = layer.bias.detach().numpy()[None, :].copy()
        return out


# -- (d) the floor --------------------------------------------------------------------------------
class MatmulFloor:
    """Only the 8 matrix products of one step, shapes as in training, into preallocated arrays:
    forward x@W1, h1@W2, h2@W3; backward g3@W3.T, g2@W2.T (to the activations) and h2.T@g3,
    h1.T@g2, x.T@g1 (to the weights). The input x needs no gradient, so there is no g1@W1.T."""

    def __init__(self, weights, dtype):
        rng = np.random.default_rng(1)
        self.W = [weights[f"{name}_W"].astype(dtype) for name in LAYERS]
        self.h = [np.empty((BATCH, n), dtype) for n in SIZES[1:]]                       # h1 h2 z
        self.g = [rng.standard_normal((BATCH, n)).astype(dtype) for n in SIZES[1:]]     # g1 g2 g3
        self.dW = [np.empty_like(W) for W in self.W]

    @staticmethod
    def batch(x, labels, one_hot):
        return x

    def step(self, x):
        (W1, W2, W3), (h1, h2, z), (g1, g2, g3), (dW1, dW2, dW3) = self.W, self.h, self.g, self.dW
        np.matmul(x, W1, out=h1)
        np.matmul(h1, W2, out=h2)
        np.matmul(h2, W3, out=z)
        np.matmul(h2.T, g3, out=dW3)
        np.matmul(g3, W3.T, out=g2)
        np.matmul(h1.T, g2, out=dW2)
        np.matmul(g2, W2.T, out=g1)
        np.matmul(x.T, g1, out=dW1)


TRAINERS = {"dp": DpTrainer, "numpy": NumpyTrainer, "torch": TorchTrainer, "floor": MatmulFloor}


# -- agreement ----------------------------------------------------------------------------------
def check_agreement(names, weights, data, dtype):
    """Train each implementation AGREEMENT_STEPS steps from the same start; compare with dp."""
    trainers = {name: TRAINERS[name](weights, dtype) for name in names if name != "floor"}
    for x, labels, one_hot in data[:AGREEMENT_STEPS]:
        for trainer in trainers.values():
            trainer.step(trainer.batch(x, labels, one_hot))
    reference = trainers["dp"].parameters()
    wrong = {k: v.dtype for k, v in reference.items() if v.dtype != dtype}
    if wrong:
        sys.exit(f"ABORT: dp computed in the wrong precision, parameters {wrong} (expected {dtype.__name__})")
    moved = max(float(np.max(np.abs(reference[k] - weights[k].astype(dtype)))) for k in reference)
    report, failures, loss_gap = [], [], 0.0
    for name, trainer in trainers.items():
        if name == "dp":
            continue
        theirs = trainer.parameters()
        diff = max(float(np.max(np.abs(reference[k].astype(np.float64) - theirs[k]))) for k in reference)
        loss_gap = max(loss_gap, abs(trainers["dp"].loss - float(trainer.loss)))
        tolerance = TOLERANCE[name, dtype.__name__]
        report.append(f"max |dp - {name}| = {diff:.2e} (tolerance {tolerance:.0e})")
        if not diff <= tolerance:
            worst = max(reference, key=lambda k: np.max(np.abs(reference[k] - theirs[k])))
            failures.append(f"dp and {name} disagree in {dtype.__name__} after {AGREEMENT_STEPS} "
                            f"steps from the same weights on the same batches: max |difference| "
                            f"{diff:.3e} > {tolerance:.0e}, worst in parameter {worst!r}")
    print(f"agreement: {', '.join(report)} after {AGREEMENT_STEPS} steps in {dtype.__name__} "
          f"(the parameters moved up to {moved:.1e}; last losses differ by {loss_gap:.1e})")
    if failures:
        sys.exit("ABORT: " + "\n       ".join(failures) + "\nThe timings would compare different "
                 "computations, so none are reported.")


# -- timing ---------------------------------------------------------------------------------------
def time_all(names, weights, data, dtype, args) -> dict:
    """Seconds per step of each implementation: {name: [one value per repeat]}."""
    trainers = {name: TRAINERS[name](weights, dtype) for name in names}
    batches = {name: [t.batch(*d) for d in data] for name, t in trainers.items()}
    for name, trainer in trainers.items():
        for i in range(args.warmup):
            trainer.step(batches[name][i % len(data)])
    per_step = {name: [] for name in names}
    clock = time.process_time if clock_of(args) == "cpu" else time.perf_counter
    order = list(names)
    for repeat in range(args.repeats):
        for name in order[repeat % len(order):] + order[:repeat % len(order)]:  # rotate the turns
            trainer, todo = trainers[name], batches[name]
            time.sleep(PAUSE)
            start = clock()
            for i in range(args.steps):
                trainer.step(todo[i % len(todo)])
            per_step[name].append((clock() - start) / args.steps)
    return per_step


def print_table(dtype, per_step, threads=1):
    """The medians side by side, then dp's ratios. The targets are for one thread; on more, the
    BLAS and PyTorch use them all while NumPy's elementwise work uses one, so dp's ratio is
    printed beside the hand-written NumPy step's own, without a target."""
    median = {name: statistics.median(times) * 1e3 for name, times in per_step.items()}
    print(f"\n{dtype.__name__}: ms per step (median of {len(per_step['dp'])} repeats; min..max)")
    labels = {"floor": "floor (8 matmuls)"}
    for name, times in per_step.items():
        print(f"  {labels.get(name, name):<18} {median[name]:8.3f}   "
              f"({min(times) * 1e3:.3f}..{max(times) * 1e3:.3f})")
    if threads != 1:
        print(f"  {'ratio':<18} {'dp':>8}   {'numpy (hand-written)':>20}   (no target on {threads} threads)")
        for ratio in TARGETS:
            other = ratio.split("/")[1]
            if other == "numpy":
                continue
            own = (f"{median['numpy'] / median[other]:20.3f}" if other in median else f"{'-':>20}")
            value = f"{median['dp'] / median[other]:8.3f}" if other in median else f"{'-':>8}"
            print(f"  {ratio:<18} {value}   {own}" + ("" if other in median else "   (PyTorch not installed)"))
        return median
    print(f"  {'ratio':<18} {'measured':>8}   target")
    for ratio, target in TARGETS.items():
        other = ratio.split("/")[1]
        if other in median:
            value = median["dp"] / median[other]
            verdict = "ok" if value <= target else "MISSED"
            print(f"  {ratio:<18} {value:8.3f}   <= {target:<5} {verdict}")
        else:
            print(f"  {ratio:<18} {'-':>8}   <= {target:<5} (PyTorch not installed)")
    return median


# -- peak memory of one step, in fresh processes ------------------------------------------------------
def rss_child(args):
    """Runs in a subprocess: peak RSS before and after building one trainer and taking one step."""
    dtype = np.dtype(args.dtype).type
    saved = np.load(args.rss_data)
    weights = {key: saved[key] for key in KEYS}
    x, labels = saved["x"].astype(dtype), saved["labels"]
    one_hot = dp.one_hot(labels, SIZES[-1], dtype)
    if args.rss_child == "torch":
        import_torch()
    before = memory()["peak"]
    trainer = TRAINERS[args.rss_child](weights, dtype)
    trainer.step(trainer.batch(x, labels, one_hot))
    after = memory()
    print(json.dumps({"before": before, "after": after["peak"], "source": after["source"]}))


def measure_memory(names, weights, data, dtypes, args):
    x, labels, _ = data[0]
    results, sources = {}, set()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "step.npz"
        np.savez(path, x=x, labels=labels, **weights)
        for dtype in dtypes:
            for name in names:
                command = [sys.executable, str(Path(__file__).resolve()), "--rss-child", name,
                           "--rss-data", str(path), "--dtype", dtype.__name__]
                command += ["--threads", str(args.threads[0])]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode:
                    results[name, dtype] = "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
                    continue
                rss = json.loads(done.stdout.strip().splitlines()[-1])
                results[name, dtype] = (rss["after"], rss["after"] - rss["before"])
                sources.add(rss["source"])
    print(f"\npeak RSS of one training step, each in a fresh process ({'/'.join(sources)}, MiB): "
          "whole process, and the growth over the process after imports and data (the model, "
          "the optimizer state and one step)")
    print(f"  {'':<8}" + "".join(f"{d.__name__ + ' peak':>16}{'step':>8}" for d in dtypes))
    for name in names:
        cells = []
        for dtype in dtypes:
            r = results[name, dtype]
            cells.append(f"{r[0]:16.1f}{r[1]:8.1f}" if isinstance(r, tuple) else f"  {r}")
        print(f"  {name:<8}" + "".join(cells))


# -- report ----------------------------------------------------------------------------------------
def limit_threads(args, torch):
    """Apply --threads to the BLAS (threadpoolctl) and to PyTorch; return the threadpoolctl handle."""
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    handle = None
    if threadpoolctl:
        handle = threadpoolctl.threadpool_limits(limits=args.threads[0])
    if torch:
        torch.set_num_threads(args.threads[0])
    return threadpoolctl, handle


def describe_threads(threadpoolctl, torch):
    lines = []
    if threadpoolctl:
        for pool in threadpoolctl.threadpool_info():
            library = " ".join(filter(None, (pool["internal_api"], pool.get("version"))))
            lines.append(f"{pool['user_api']} threads: {pool['num_threads']} "
                         f"({library}, {Path(pool['filepath']).name})")
    else:
        env = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREAD_VARIABLES)
        lines.append(f"BLAS threads: threadpoolctl not installed, cannot report ({env})")
    if torch:
        lines.append(f"torch.get_num_threads() = {torch.get_num_threads()} "
                     f"(inter-op {torch.get_num_interop_threads()}, "
                     f"MKL {'yes' if torch.backends.mkl.is_available() else 'no'})")
    return lines


def main(args):
    """One run per thread count, each in a process of its own; then every ratio side by side."""
    if len(args.threads) == 1:
        print_summary([run(args)])
        return
    started, results = time.perf_counter(), []
    with tempfile.TemporaryDirectory() as tmp:
        for i, threads in enumerate(args.threads):
            path = Path(tmp) / f"{threads}.json"
            command = [sys.executable, str(Path(__file__).resolve()), "--threads", str(threads),
                       "--results", str(path), "--steps", str(args.steps), "--dtype", args.dtype,
                       "--clock", args.clock, "--repeats", str(args.repeats),
                       "--warmup", str(args.warmup), "--seed", str(args.seed)]
            if args.no_memory or i > 0:     # memory hardly depends on the threads: measured once
                command.append("--no-memory")
            print(f"\n=== {threads} thread{'s' if threads > 1 else ''} ===", flush=True)
            if subprocess.run(command).returncode:
                sys.exit(f"the run on {threads} threads failed")
            results.append(json.loads(path.read_text()))
    print_summary(results)
    print(f"\ntotal time: {time.perf_counter() - started:.1f} s")


def print_summary(results):
    """dp's ratios to the others for each precision and thread count, next to their targets."""
    columns = [(dtype, r) for dtype in ("float64", "float32") for r in results if dtype in r["ms"]]
    head = [f"{d} {r['threads']}t" for d, r in columns]
    print(f"\nsummary: dp's time per step over the others' (median; CPU clock on 1 thread if "
          f"--clock cpu, else wall; load = cores other processes used meanwhile)")
    print(f"  {'':<12}{'target':>8}" + "".join(f"{h:>15}" for h in head))
    for ratio, target in TARGETS.items():
        other, cells = ratio.split("/")[1], []
        for dtype, r in columns:
            ms = r["ms"][dtype]
            value = ms["dp"] / ms[other] if other in ms else None
            verdict = ("ok" if value <= target else "MISSED") if r["threads"] == 1 else "(1t only)"
            cells.append("-" if value is None else f"{value:.3f} {verdict}")
        print(f"  {ratio:<12}{'<= ' + str(target):>8}" + "".join(f"{c:>15}" for c in cells))
    # The floor target assumes the hand-written step is itself about 1.5 times the floor: its own
    # ratio, on the same threads, says how much of dp's is NumPy's (elementwise work on one thread)
    rows = {"numpy/floor": lambda d, r: (f"{r['ms'][d]['numpy'] / r['ms'][d]['floor']:.3f}"
                                         if {"numpy", "floor"} <= set(r["ms"][d]) else "-"),
            "dp ms": lambda d, r: f"{r['ms'][d]['dp']:.3f}", "clock": lambda d, r: r["clock"],
            "load": lambda d, r: "?" if r["load"][d] is None else f"{r['load'][d]:.2f}"}
    for label, cell in rows.items():
        print(f"  {label:<12}{'':>8}" + "".join(f"{cell(d, r):>15}" for d, r in columns))
    for r in results:
        if {"float64", "float32"} <= set(r["ms"]):
            print(f"  dp float64 / float32 on {r['threads']} thread(s): "
                  f"{r['ms']['float64']['dp'] / r['ms']['float32']['dp']:.2f} (target about 2)")


def run(args) -> dict:
    """Agreement, timing and memory on args.threads[0] threads, printed; returns the medians
    {"ms": {dtype: {implementation: ms}}, "load": {dtype: cores}, "threads", "clock"} (and
    writes them to args.results, for the parent process)."""
    started = time.perf_counter()
    torch = import_torch()
    threadpoolctl, _handle = limit_threads(args, torch)
    dtypes = [np.float64, np.float32] if args.dtype == "both" else [getattr(np, args.dtype)]
    names = ["dp", "numpy"] + (["torch"] if torch else []) + ["floor"]

    mnist = dp.data.mnist(download=False, verbose=False)
    print("MNIST MLP 784-500-200-10 (ReLU, ReLU, linear; softmax cross-entropy), batch 128, "
          "Adam(lr=1e-3, betas=(0.9, 0.999), eps=1e-8)")
    print(f"data: {mnist.source}")
    print(f"{machine()}, dp {dp.__version__}" + (f", torch {torch.__version__}" if torch else ""))
    if not torch:
        print("PyTorch: not installed (pip install -e '.[torch]')")
    for line in describe_threads(threadpoolctl, torch):
        print(line)
    clock = "process CPU time" if clock_of(args) == "cpu" else "wall-clock time"
    print(f"timing ({clock}): {args.warmup} warm-up steps, then the median of {args.repeats} "
          f"repeats of {args.steps} steps each, implementations taking turns")

    weights = initial_weights(args.seed)
    indices = batch_indices(len(mnist.x_train), max(min(args.steps, 100), AGREEMENT_STEPS), args.seed)
    medians, load_cores = {}, {}
    for dtype in dtypes:
        x_all = mnist.x_train.astype(dtype)
        data = [(x_all[i], mnist.y_train[i], dp.one_hot(mnist.y_train[i], SIZES[-1], dtype))
                for i in indices]
        print()
        check_agreement(names, weights, data, dtype)
        with OtherLoad() as load:
            per_step = time_all(names, weights, data, dtype, args)
        medians[dtype] = print_table(dtype, per_step, args.threads[0])
        load_cores[dtype.__name__] = load.cores
        if load.warning():
            print(f"  ({load.warning()})")
    if len(dtypes) == 2:
        speedup = {n: medians[np.float64][n] / medians[np.float32][n] for n in names}
        print("\nfloat32 speed-up (ms float64 / ms float32; dp target about 2): "
              + ", ".join(f"{n} {s:.2f}x" for n, s in speedup.items()))
    if not args.no_memory:
        measure_memory([n for n in names if n != "floor"], weights, data, dtypes, args)
    print(f"\ntime of this run: {time.perf_counter() - started:.1f} s")
    result = {"threads": args.threads[0], "clock": clock_of(args), "load": load_cores,
              "ms": {d.__name__: m for d, m in medians.items()}}
    if args.results:
        Path(args.results).write_text(json.dumps(result))
    return result


if __name__ == "__main__":
    if ARGS.rss_child:
        rss_child(ARGS)
    elif ARGS.results:
        run(ARGS)
    else:
        main(ARGS)
