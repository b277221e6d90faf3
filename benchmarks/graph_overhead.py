"""The cost of the graph itself: dp on scalars, where NumPy does almost nothing and every
microsecond is dp's own bookkeeping.

    python benchmarks/graph_overhead.py [--repeats N] [--max-nodes N] [--clock wall|cpu]

(1) per-op overhead: 10^4 scalar ops forward and backward, dp against a micrograd-style
    pure-Python scalar `Value` (defined below);
(2) a chain of 10^6 nodes, y = y * 1.0000001: forward and backward time, no RecursionError,
    and the memory the graph takes;
(3) y = y + y forty times: 2^40 paths from output to input, so backward must visit nodes, not
    paths (it must be instant);
(4) linear scaling: backward time of chains of 10^4, 10^5 and 10^6 nodes, per node.
Times are medians of repeats (time.perf_counter; with --clock cpu, the CPU time of the process,
which leaves out the time other processes held the core). Python's cyclic garbage collector is
off in (1), as in timeit: at this size one full collection (several ms) would land at random in
one engine's forward or backward. It is on in (2) and (3), as in user code; (4) shows both (dp
pauses the collector during backprop itself, so there the two should agree).
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]  # this checkout's dp, and common.py
import dp  # noqa: E402
from common import OtherLoad, machine, memory  # noqa: E402

OPS = 10_000
clock = time.perf_counter  # --clock cpu: time.process_time


class Value:
    """A micrograd-style scalar: each op stores a closure that adds the output's gradient into
    its operands'; backward runs those closures in reverse topological order (found with an
    explicit stack, so that long chains work)."""

    __slots__ = ("data", "grad", "_backward", "_operands")

    def __init__(self, data, operands=()):
        self.data, self.grad, self._operands = data, 0.0, operands
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    __radd__, __rmul__ = __add__, __mul__

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                stack.extend((x, False) for x in node._operands if x not in seen)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


# -- graphs: each builder returns (input, output) ------------------------------------------------
def dp_input():
    return dp.Node(np.array(1.0), "x")


def chain(x, ops):
    """x * 1.0001 + 0.001, repeated: `ops` ops in one long chain."""
    y = x
    for _ in range(ops // 2):
        y = y * 1.0001 + 0.001
    return y


def wide_sum(x, ops):
    """x * c_0 + x * c_1 + ...: x reused ops/2 times, its gradients summed."""
    total = x * 1.0
    for i in range(1, ops // 2):
        total = total + x * (1.0 + i * 1e-4)
    return total


def mul_chain(x, nodes):
    y = x
    for _ in range(nodes):
        y = y * 1.0000001
    return y


def gradient_of(engine, x, y):
    """d y / d x with dp or with Value."""
    if engine == "dp":
        return float(y.grad(1)["x"])
    y.backward()
    return x.grad


def run(engine, build, size):
    """(forward seconds, backward seconds, gradient) of one graph, from a clean heap (so that
    a full garbage collection left over from an earlier graph lands in no one's timing)."""
    gc.collect()
    x = dp_input() if engine == "dp" else Value(1.0)
    start = clock()
    y = build(x, size)
    middle = clock()
    gradient = gradient_of(engine, x, y)
    return middle - start, clock() - middle, gradient


def median_runs(engines, build, size, repeats, collect=True):
    """{engine: (median forward seconds, median backward seconds, gradient)} over `repeats`
    graphs each, the engines taking turns so that a slow moment of the machine hits all alike."""
    times = {engine: ([], []) for engine in engines}
    gradients = {}
    (gc.enable if collect else gc.disable)()
    try:
        for _ in range(repeats):
            for engine in engines:
                f, b, gradients[engine] = run(engine, build, size)
                times[engine][0].append(f)
                times[engine][1].append(b)
    finally:
        gc.enable()
    return {engine: (statistics.median(f), statistics.median(b), gradients[engine])
            for engine, (f, b) in times.items()}


# -- the four measurements ----------------------------------------------------------------------------
def per_op_overhead(repeats):
    print(f"(1) per-op overhead, {OPS:,} scalar ops, median of {repeats}, garbage collector off "
          f"(as in timeit): microseconds per op")
    print(f"    {'graph':<30}{'engine':<8}{'forward':>9}{'backward':>10}{'total':>9}")
    for label, build in (("chain  y = y * 1.0001 + 0.001", chain), ("wide sum of x * c_i", wide_sum)):
        results = median_runs(("dp", "Value"), build, OPS, repeats, collect=False)
        for engine, (f, b, _) in results.items():
            print(f"    {label if engine == 'dp' else '':<30}{engine:<8}"
                  f"{f / OPS * 1e6:9.2f}{b / OPS * 1e6:10.2f}{(f + b) / OPS * 1e6:9.2f}")
        (dp_f, dp_b, dp_gradient), (value_f, value_b, value_gradient) = results.values()
        if not np.isclose(dp_gradient, value_gradient, rtol=1e-9):
            sys.exit(f"ABORT: dp and Value disagree on {label}: {dp_gradient} != {value_gradient}")
        print(f"    {'':<30}{'dp/Value':<8}{dp_f / value_f:9.2f}{dp_b / value_b:10.2f}"
              f"{(dp_f + dp_b) / (value_f + value_b):9.2f}")


def long_chain(nodes):
    """Forward and backward of one chain of `nodes` multiplications, with its memory."""
    gc.collect()
    before = memory()
    x = dp_input()
    start = clock()
    y = mul_chain(x, nodes)
    forward = clock() - start
    built = memory()
    start = clock()
    try:
        gradient = float(y.grad(1)["x"])
    except RecursionError:
        sys.exit(f"ABORT: backward through a chain of {nodes:,} nodes hit Python's recursion limit")
    backward = clock() - start
    after = memory()
    expected = 1.0000001 ** nodes
    print(f"(2) chain of {nodes:,} nodes, y = y * 1.0000001 (one run)")
    print(f"    forward {forward:.2f} s ({forward / nodes * 1e6:.2f} us/node), backward "
          f"{backward:.2f} s ({backward / nodes * 1e6:.2f} us/node), no RecursionError")
    print(f"    d y / d x = {gradient:.10g} (exact 1.0000001^{nodes:,} = {expected:.10g}, "
          f"relative error {abs(gradient - expected) / expected:.1e})")
    graph = built["now"] - before["now"]
    print(f"    memory ({after['source']}): the graph holds {graph:.0f} MiB "
          f"({graph * 2**20 / nodes:.0f} bytes/node); peak during backward "
          f"{after['peak'] - before['now']:.0f} MiB above the start")
    return backward


def doubling(repeats, times=40):
    """y = y + y `times` times: 2^times paths, `times` nodes."""
    def build(x, _):
        y = x
        for _ in range(times):
            y = y + y
        return y
    _, backward, gradient = median_runs(["dp"], build, times, repeats)["dp"]
    verdict = "ok" if gradient == 2.0 ** times else f"WRONG, expected {2.0 ** times:.0f}"
    print(f"(3) y = y + y, {times} times ({2 ** times:,} paths), median of {repeats}: backward "
          f"{backward * 1e3:.3f} ms, d y / d x = {gradient:.0f} = 2^{times} {verdict}")


def scaling(sizes, repeats):
    print(f"(4) linear scaling of backward, chains y = y * 1.0000001 (median of "
          f"{repeats} below 10^6 nodes, else 1 run): microseconds per node")
    print(f"    {'nodes':>10}{'gc on: s':>11}{'us/node':>9}{'gc off: s':>12}{'us/node':>9}")
    per_node = {}
    for size in sizes:
        row = []
        for collect in (True, False):
            runs = repeats if size < 10**6 else 1
            _, backward, _ = median_runs(["dp"], mul_chain, size, runs, collect)["dp"]
            row.append(backward)
        per_node[size] = [b / size * 1e6 for b in row]
        print(f"    {size:>10,}{row[0]:11.3f}{per_node[size][0]:9.2f}{row[1]:12.3f}{per_node[size][1]:9.2f}")
    small, large = per_node[sizes[0]], per_node[sizes[-1]]
    print(f"    per-node time at {sizes[-1]:,} / at {sizes[0]:,} nodes: gc on {large[0] / small[0]:.2f}, "
          f"gc off {large[1] / small[1]:.2f} (linear: about 1)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="repeats of the small graphs (default 7)")
    parser.add_argument("--max-nodes", type=int, default=10**6,
                        help="longest chain, for (2) and (4) (default 10^6)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: elapsed time (default); cpu: this process's CPU time, which "
                             "leaves out the time other processes held the core (a shared machine)")
    args = parser.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    started = time.perf_counter()
    print(f"dp graph overhead; {machine()}, dp {dp.__version__}; "
          f"{'process CPU' if args.clock == 'cpu' else 'wall-clock'} time\n")
    sizes = [n for n in (10**4, 10**5, 10**6) if n < args.max_nodes] + [args.max_nodes]
    for measure in (lambda: per_op_overhead(args.repeats), lambda: long_chain(args.max_nodes),
                    lambda: doubling(args.repeats), lambda: scaling(sizes, args.repeats)):
        with OtherLoad() as load:
            measure()
        if load.warning():
            print(f"    ({load.warning()})")
    print(f"\ntotal time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
