"""References of 13 recurrent loops, the grader's side only (never in the student bundle).

A network is {node: [op, operand, ...]}: an operand that is no node is a parameter (`params`);
["delay", source, steps, initial] is CNTK's delay node, v_t = source_{t - steps}, and
params[initial] (k,) for t < steps; ["input"] is fed (T, B, d), time first.

- `components`: the strongly connected components, as a partition (sorted), by dp's Tarjan;
- `forward_order`: a valid forward order, which the checks give to the student's run and backward;
- `unrolled`: the network unrolled over time in dp, one copy of every node per step, a delay an
  edge from its source's copy `steps` steps before: the values of every node, and dp's gradients
  of L = sum_v sum(upstream_v * v) for every parameter and every node. It orders the nodes of one
  step by a topological sort of the network without the delay edges (Kahn's), not by Tarjan;
- `mistaken`: the same unrolling in NumPy, forward and backward per step, with one known mistake
  (the catalogue below).

The checks (autograder/checks/recurrent_loops.py) reach them through `references.of(...)`: plain
data in and out, never a student's reply, except `lstm_predictions`, the trusted forward pass run
on a student's trained parameters (see there).
"""
from __future__ import annotations

import numpy as np

import dp
from dp import Node

from . import misconception

SIGMOID = (lambda a: 1 / (1 + np.exp(-a)))


def _reads(network, delays=True) -> dict:
    """{node: the nodes it reads}: its operands that are nodes; a delay node reads its source, at
    an earlier step (left out unless `delays`)."""
    return {name: ([spec[1]] if delays else []) if spec[0] == "delay"
            else [a for a in spec[1:] if a in network] for name, spec in network.items()}


def components(network) -> list:
    """The strongly connected components of `network` (edges: node -> operand), each sorted,
    sorted by their first node: a partition, in no particular order."""
    return sorted(sorted(c) for c in ordered_components(network))


def ordered_components(network) -> list:
    """The components of `network` in the order dp's Tarjan emits them: each after the components
    its nodes read from (the order of the nodes inside a component is not one to compute in)."""
    return dp.strongly_connected_components(list(network), _reads(network).__getitem__)


def step_order(network) -> list:
    """The nodes in an order that computes each after its operands of the same step: Kahn's
    topological sort of the network without the delay edges (which point to earlier steps)."""
    reads = _reads(network, delays=False)
    readers = {name: [] for name in network}
    for name, operands in reads.items():
        for a in operands:
            readers[a].append(name)
    waiting = {name: len(operands) for name, operands in reads.items()}
    ready = [name for name, count in waiting.items() if count == 0]
    order = []
    while ready:
        name = ready.pop()
        order.append(name)
        for reader in readers[name]:
            waiting[reader] -= 1
            if waiting[reader] == 0:
                ready.append(reader)
    return order


def forward_order(network) -> list:
    """A forward order, given to the student's run and backward (so that they do not depend on
    the student's forward_order): the components as dp's Tarjan emits them, each loop's nodes as
    `step_order` puts them. (An answer to the task forward_order: never in the bundle.)"""
    step = step_order(network)
    return [[name for name in step if name in set(c)] for c in ordered_components(network)]


_DP_OPS = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "matmul": lambda a, W: a.dot(W),
           "tanh": lambda a: a.tanh(), "sigmoid": lambda a: a.sigmoid()}


def unrolled(network, params, inputs, upstream) -> dict:
    """{"values": {node: (T, B, k)}, "params": {name: dL/dparam}, "nodes": {node: dL/dv (T, B, k)}}
    for L = sum over the nodes in `upstream` of sum(upstream_v * v), by dp's backprop through the
    explicitly unrolled graph (a zero leaf "<node>@<t>" added to every copy gives dL/dv)."""
    T, B = np.shape(next(iter(inputs.values())))[:2]
    leaves = {name: Node(np.asarray(value, dtype=float), name) for name, value in params.items()}
    feeds = {name: Node(np.asarray(value, dtype=float), f"{name}@input")
             for name, value in inputs.items()}
    copies = {name: [] for name in network}
    order = step_order(network)
    for t in range(T):
        for name in order:
            op, *args = network[name]
            if op == "input":
                value = feeds[name][t]
            elif op == "delay":
                source, steps, initial = args
                value = (copies[source][t - steps] if t >= steps
                         else leaves[initial] + Node(np.zeros((B,) + np.shape(params[initial]))))
            else:
                value = _DP_OPS[op](*(copies[a][t] if a in network else leaves[a] for a in args))
            copies[name].append(value + Node(np.zeros(value.shape), f"{name}@{t}"))
    loss = sum((copies[name][t] * np.asarray(g)[t]).sum()
               for name, g in upstream.items() for t in range(T))
    grads = loss.grad(1) if isinstance(loss, Node) else {}      # no upstream: no gradient
    return {"values": {name: np.stack([c.value for c in copies[name]]) for name in network},
            "params": {name: grads.get(name, np.zeros(np.shape(value)))
                       for name, value in params.items()},
            "nodes": {name: np.stack([grads.get(f"{name}@{t}", np.zeros(copies[name][t].shape))
                                      for t in range(T)]) for name in network}}


# -- the known mistakes: the unrolling in NumPy, with one mistake -----------------------------------
_NP_OPS = {   # op: (forward, backward)
    "add": (lambda a, b: a + b, lambda g, a, b: (g, g)),
    "mul": (lambda a, b: a * b, lambda g, a, b: (g * b, g * a)),
    "matmul": (lambda a, W: a @ W, lambda g, a, W: (g @ W.T, a.T @ g)),
    "tanh": (np.tanh, lambda g, a: (g * (1 - np.tanh(a) ** 2),)),
    "sigmoid": (SIGMOID, lambda g, a: (g * SIGMOID(a) * (1 - SIGMOID(a)),)),
}
MISTAKES = {
    "delay_from_zeros": "the delay node starts from zeros, not from its initial value",
    "delay_one_step": "the delay node looks back one step, whatever its number of steps",
    "delay_no_gradient": "no gradient goes back through the delay node to its source",
    "delay_gradient_same_step": "the delay node sends its gradient to its source at the same step "
                                "t, not at t - steps",
    "forward_in_time": "the loop's backward pass runs forward in time, t = 0, 1, ..., so the "
                       "gradients from later steps have not arrived yet",
    "no_initial_gradient": "no gradient reaches the delay node's initial value",
    "shared_gradient_overwritten": "a parameter's gradient is overwritten by each step's share "
                                   "instead of summed",
}


def mistaken(network, params, inputs, upstream, mistake=None) -> dict:
    """What `unrolled` gives, computed in NumPy step by step, with one of MISTAKES (None: none);
    a mistake of the delay node is made by the delay nodes of the loops (a delay outside every
    loop is a shift of a whole sequence, written apart)."""
    T, B = np.shape(next(iter(inputs.values())))[:2]
    order = step_order(network)
    values = {name: [None] * T for name in network}
    looped = {n for c in ordered_components(network) if len(c) > 1 for n in c}
    wrong = mistake if mistake in ("shared_gradient_overwritten", "forward_in_time") else None

    def delay_source(name, args, t):
        """The delay's source and step; its mistake, for the delay nodes of loops only."""
        nonlocal wrong
        wrong = mistake if name in looped or mistake in ("shared_gradient_overwritten",
                                                         "forward_in_time") else None
        source, steps, _ = args
        return source, t - (1 if wrong == "delay_one_step" else steps)

    for t in range(T):
        for name in order:
            op, *args = network[name]
            if op == "input":
                values[name][t] = np.asarray(inputs[name][t], dtype=float)
            elif op == "delay":
                source, back = delay_source(name, args, t)
                start = 0 * params[args[2]] if wrong == "delay_from_zeros" else params[args[2]]
                values[name][t] = values[source][back] if back >= 0 else start + np.zeros((B,) + np.shape(start))
            else:
                values[name][t] = _NP_OPS[op][0](*(values[a][t] if a in network else params[a] for a in args))
    grads = {name: [np.zeros_like(v) for v in values[name]] for name in network}
    for name, g in upstream.items():
        for t in range(T):
            grads[name][t] = grads[name][t] + g[t]
    dparams = {name: np.zeros(np.shape(value)) for name, value in params.items()}

    def to_param(a, g):
        share = g.sum(axis=0) if np.ndim(g) > np.ndim(params[a]) else g
        dparams[a] = share if mistake == "shared_gradient_overwritten" else dparams[a] + share

    times = range(T) if mistake == "forward_in_time" else reversed(range(T))
    for t in times:
        for name in reversed(order):
            op, *args = network[name]
            g = grads[name][t]
            if op == "input":
                continue
            if op == "delay":
                source, back = delay_source(name, args, t)
                if wrong == "delay_gradient_same_step" and back >= 0:
                    back = t
                if back >= 0:
                    if wrong != "delay_no_gradient":
                        grads[source][back] = grads[source][back] + g
                elif wrong != "no_initial_gradient":
                    to_param(args[2], g)
                continue
            operands = [values[a][t] if a in network else params[a] for a in args]
            for a, g_a in zip(args, _NP_OPS[op][1](g, *operands)):
                if a in network:
                    grads[a][t] = grads[a][t] + g_a
                else:
                    to_param(a, g_a)
    return {"values": {name: np.stack(v) for name, v in values.items()}, "params": dparams,
            "nodes": {name: np.stack(g) for name, g in grads.items()}}


for _mistake, _why in MISTAKES.items():
    misconception("unrolled", _why, name=_mistake)(
        lambda network, params, inputs, upstream, mistake=_mistake: mistaken(
            network, params, inputs, upstream, mistake))


# -- the LSTM task -------------------------------------------------------------------------------
def lstm_predictions(params, sequences) -> np.ndarray:
    """The notebook's LSTMClassifier with the trained `params` on sequences (n, T, 3), batch
    first: z_t = x_t W + h_{t-1} U + b, gates i, f, g, o of k columns each, c_t = f c_{t-1} + i g,
    h_t = o tanh(c_t) from h = c = 0; the classes argmax(h_{T-1} V + c_out), n integers.

    The one reference that takes a student's reply as argument: the trusted forward pass on the
    student's trained parameters (W (3, 4k), U (k, 4k), b (4k,), V (k, 2), c_out (2,), their
    shapes checked before the call). No public case can hold it for every student, so the check
    calls it when grading only; the self-check measures model.forward's own predictions."""
    x = np.asarray(sequences, dtype=float).transpose(1, 0, 2)
    k = params["U"].shape[0]
    h = c = np.zeros((x.shape[1], k))
    inputs = x @ params["W"] + params["b"]                   # outside the loop: all steps at once
    for z_x in inputs:
        z = z_x + h @ params["U"]
        i, f, o = SIGMOID(z[:, :k]), SIGMOID(z[:, k:2 * k]), SIGMOID(z[:, 3 * k:])
        c = f * c + i * np.tanh(z[:, 2 * k:3 * k])
        h = o * np.tanh(c)
    return (h @ params["V"] + params["c_out"]).argmax(axis=1)
