"""Checks of 13 recurrent loops: the forward order of a network with loops, the loops run step by
step, backpropagation through time, and an LSTM that remembers a bit.

The networks, sizes and values are drawn here from `rng` (other ones when grading than in the
self-check); the expected values come from the references (autograder/references/
recurrent_loops.py, the grader's side only, replayed from public cases in the student bundle):
- forward_order: the components against the partition of dp's Tarjan; the order is checked as a
  property of the reply, so that any valid order passes: each component after those it reads
  from, each node of a loop after its operands in the loop but a delay node's source;
- loop_forward: every node's values against the network unrolled over time in dp, with the
  grader's order; and the calls of the ops: once per node outside the loops, once per step inside;
- loop_backward: every parameter's and every node's gradient against dp's backprop through the
  unrolled network, given the grader's order and forward values;
- lstm_task: the accuracy on new sequences, whose classes never leave the grader, of the
  student's predict, and of the grader's own LSTM with the student's trained parameters.
"""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder import references
from autograder.grading.checking import (LOCATED, NAMES, compare, floored_rel_error,
                                         on_the_whole, probe, shape_located, trained_parameters,
                                         within)
from autograder.probes.recurrent_loops import MAX_UNITS

ref = references.of(__name__)

TOL = 1e-6                  # the same arithmetic as the unrolled network, up to rounding
T_BIT = 50                  # the LSTM task's length, as in the notebook
NOISE = 0.3
LONG_LOOP = 3000            # nodes in one loop: more than Python's recursion limit
ARITY = {"tanh": 1, "sigmoid": 1, "add": 2, "mul": 2, "matmul": 2}


# -- the grader's networks -------------------------------------------------------------------------
def node_operands(network, name) -> list:
    op, *args = network[name]
    return [args[0]] if op == "delay" else [a for a in args if a in network]


def loops_of(network) -> list:
    """The loops of `network` (components of more than one node), as sets, by dp's Tarjan (the
    library's: the bundle has it anyway; `ref.components` gives the expected partition)."""
    found = dp.strongly_connected_components(list(network), lambda n: node_operands(network, n))
    return [set(c) for c in found if len(c) > 1]


def random_network(rng, n: int, k: int) -> tuple:
    """A network of n nodes: an input x, then ops whose operands are earlier nodes (or
    parameters), and delay nodes whose source may be a later node (which closes a loop through
    the delay), of 1 or 2 steps; its parameters, all of width k. It has a loop with a delay of 2
    steps and a delay outside every loop. The nodes come in a shuffled order (any valid forward
    order must pass)."""
    while True:
        network, params = {"x": ["input"]}, {}
        delays = []
        for i in range(1, n):
            op = str(rng.choice(["tanh", "sigmoid", "add", "mul", "matmul", "delay", "delay"]))
            name = f"{op}{i}"
            earlier = list(network)
            if op == "delay":
                delays.append(name)
                network[name] = ["delay", None, int(rng.integers(1, 3)), f"h{i}"]
                params[f"h{i}"] = rng.normal(0, 0.5, k)
            elif op == "matmul":
                network[name] = [op, str(rng.choice(earlier)), f"W{i}"]
                params[f"W{i}"] = rng.normal(0, 1 / np.sqrt(k), (k, k))
            elif ARITY[op] == 2 and rng.random() < 0.3:
                network[name] = [op, str(rng.choice(earlier)), f"b{i}"]
                params[f"b{i}"] = rng.normal(0, 0.5, k)
            else:
                network[name] = [op] + [str(rng.choice(earlier)) for _ in range(ARITY[op])]
        names = list(network)
        for name in delays:
            later = names[names.index(name) + 1:]
            pool = later if later and rng.random() < 0.8 else [m for m in names if m != name]
            network[name][1] = str(rng.choice(pool))
        loops = set().union(*loops_of(network))
        if any(network[d][2] == 2 for d in delays if d in loops) and set(delays) - loops:
            shuffled = [names[i] for i in rng.permutation(len(names))]
            return {name: network[name] for name in shuffled}, params


def sizes(rng, public) -> tuple:
    """(n nodes, T steps, B sequences, k units): fixed in the self-check, drawn when grading."""
    if public:
        return 9, 5, 2, 3
    return (int(rng.integers(8, 15)), int(rng.integers(4, 8)), int(rng.integers(2, 5)),
            int(rng.integers(2, 6)))


def random_case(rng, public) -> tuple:
    n, T, B, k = sizes(rng, public)
    network, params = random_network(rng, n, k)
    return network, params, {"x": rng.normal(size=(T, B, k))}


def long_loop(n: int) -> dict:
    """One loop of n + 2 nodes: a0 = x + d, t1 = tanh(a0), ..., tn = tanh(t(n-1)), d = tn one
    step back."""
    network = {"x": ["input"], "a0": ["add", "x", "d"]}
    network.update({f"t{i}": ["tanh", f"t{i - 1}" if i > 1 else "a0"] for i in range(1, n + 1)})
    network["d"] = ["delay", f"t{n}", 1, "d0"]
    return network


def describe(network, inputs=None) -> str:
    loops = loops_of(network)
    where = (f"a network of {len(network)} nodes with {len(loops)} loop"
             f"{'s' if len(loops) != 1 else ''} ({', '.join(str(len(l)) for l in loops)} nodes)")
    if inputs is not None:
        T, B, k = next(iter(inputs.values())).shape
        where += f", {B} sequences of {T} steps, width {k}"
    return where


# -- forward_order ---------------------------------------------------------------------------------
def components_of(submission, network, where) -> list:
    out = probe(submission, "order", f"in forward_order on {where}", network=network)
    assert out["type"] == "list", (
        f"forward_order on {where} returned a {out['type']}; it must return a list of "
        f"components, each a list of node names")
    return out["components"]


def assert_partition(found, network, where) -> None:
    expected = ref.components(network)
    got = sorted(sorted(c) for c in found)
    listed = [name for c in found for name in c]
    unknown = sorted(set(listed) - set(network))
    assert not unknown, f"forward_order on {where} lists nodes that are not in it: {unknown[:5]}"
    twice = sorted({name for name in listed if listed.count(name) > 1}) if len(listed) != len(set(listed)) else []
    if twice:
        first = next(name for name in listed if name in twice)
        places = [i for i, c in enumerate(found) for name in c if name == first]
        raise AssertionError(
            f"forward_order on {where} lists nodes more than once: {twice[:5]}. The first "
            f"difference is at {first!r}: it is listed {len(places)} times, in the components "
            f"{places[:5]} of yours")
    missing = set(network) - set(listed)
    if missing:
        first = next(name for name in network if name in missing)     # as the network lists them
        [component] = [c for c in expected if first in c]
        raise AssertionError(
            f"forward_order on {where} leaves out the nodes {sorted(missing)[:5]}. The first "
            f"difference is at {first!r}: it is left out, and it is in a component of "
            f"{len(component)} node(s), {_few(component)}"
            + (f", of which yours leaves out {len(missing & set(component))}"
               if len(component) > 1 else ""))
    if got != expected:
        wrong = next(c for c in expected if c not in got)
        mine = next(c for c in got if wrong[0] in c)
        raise AssertionError(
            f"forward_order on {where}: the strongly connected components are wrong. The first "
            f"difference is at {wrong[0]!r}: it is in a component of {len(wrong)} node(s), "
            f"{_few(wrong)}, but yours of {len(mine)} node(s) is {_few(mine)}. A component is a "
            f"set of nodes in which each reaches every other one along the edges node -> operand")


def _few(names, most=6) -> str:
    return "[" + ", ".join(map(repr, names[:most])) + (", ...]" if len(names) > most else "]")


def assert_order(found, network, where) -> None:
    position = {name: i for i, c in enumerate(found) for name in c}
    for i, component in enumerate(found):
        for name in component:
            for a in node_operands(network, name):
                assert position[a] <= i, (
                    f"forward_order on {where}: the components are out of order. The first "
                    f"difference is at {name!r} (component {i}): it reads {a!r}, which comes "
                    f"later (component {position[a]}); each component must come after the "
                    f"components it reads from")


def assert_loop_order(found, network, where) -> None:
    for component in (c for c in found if len(c) > 1):
        seen = set()
        for name in component:
            if network[name][0] != "delay":
                late = [a for a in node_operands(network, name) if a in component and a not in seen]
                assert not late, (
                    f"forward_order on {where}: the loop {_few(component)} is out of order. The "
                    f"first difference is at {name!r}: it comes before its operand "
                    f"{late[0]!r}; inside a loop each node comes after its operands, only a "
                    f"delay node's source may come later")
            seen.add(name)


def orders_of(submission, rng, public, count=3):
    """(the reply's components, network, its description) for `count` of the grader's networks,
    the reply checked to be the network's partition into strongly connected components."""
    for _ in range(count):
        network, _, _ = random_case(rng, public)
        where = describe(network)
        found = components_of(submission, network, where)
        assert_partition(found, network, where)
        yield found, network, where


@pytest.mark.task("forward_order")
def test_the_components_of_networks_with_loops(submission, rng, public):
    for _ in orders_of(submission, rng, public):
        pass


@pytest.mark.task("forward_order")
def test_each_component_comes_after_what_it_reads(submission, rng, public):
    for found, network, where in orders_of(submission, rng, public):
        assert_order(found, network, where)


@pytest.mark.task("forward_order")
def test_inside_a_loop_the_delay_nodes_are_leaves(submission, rng, public):
    for found, network, where in orders_of(submission, rng, public):
        assert_loop_order(found, network, where)


@pytest.mark.task("forward_order")
def test_a_loop_longer_than_the_recursion_limit(submission):
    network = long_loop(LONG_LOOP)
    where = f"one loop of {len(network) - 1:,} nodes (a recursive walk stops at a depth of 1,000)"
    found = components_of(submission, network, where)
    assert_partition(found, network, where)
    assert_order(found, network, where)
    assert_loop_order(found, network, where)


# -- loop_forward ------------------------------------------------------------------------------------
def values_of(submission, network, params, inputs, where):
    out = probe(submission, "run", f"in run on {where}", network=network, params=params,
                inputs=inputs, order=ref.forward_order(network))
    assert out["type"] == "dict", f"run on {where} returned a {out['type']}, not a dict"
    return out


def upstream_on(rng, network, inputs, nodes) -> dict:
    T, B, k = next(iter(inputs.values())).shape
    return {name: rng.normal(size=(T, B, k)) for name in nodes}


@pytest.mark.task("loop_forward")
@pytest.mark.parametrize("case", range(2))
def test_the_values_of_every_node(case, submission, rng, public, metrics):
    network, params, inputs = random_case(rng, public)
    where = describe(network, inputs)
    out = values_of(submission, network, params, inputs, where)
    upstream = upstream_on(rng, network, inputs, [])
    expected = ref.unrolled(network, params, inputs, upstream)["values"]
    missing = sorted(set(network) - set(out["values"]))
    assert not missing, f"run on {where} returned no values for the nodes {missing[:5]}"
    mistakes = on_the_whole(ref.misconceptions.unrolled(network, params, inputs, upstream),
                            out["values"], within(TOL, floored_rel_error),
                            lambda value, name: value["values"][name])
    with located_at_a_node(out["values"], expected, network):
        for name in network:
            compare(out["values"][name], expected[name],
                    f"the values of {name!r} ({network[name][0]}) on {where}", metrics, tol=TOL,
                    mistakes=mistakes, part=lambda v, name=name: v["values"][name])


def first_difference(got, expected, network, order, backward=False) -> str:
    """'. The first difference ...': the first node and step, in the order the unrolled network
    computes them (step after step, each node after its operands: `order`, ref.hint.step_order),
    where the sequences `got` ({node: (T, B, k)}, a reply) differ from `expected` by more than
    TOL; in the reverse order for gradients (`backward`), where an error enters going back. ''
    when none differs or the order is not known (None)."""
    if not order:
        return ""
    T = len(next(iter(expected.values())))
    for t in (reversed(range(T)) if backward else range(T)):
        for name in (reversed(order) if backward else order):
            mine, right = got.get(name), expected[name]
            if np.shape(mine) != np.shape(right) or floored_rel_error(mine[t], right[t]) > TOL:
                op, *args = network[name]
                return (f"{LOCATED}, {'going back ' if backward else ''}in the order the "
                        f"unrolled network computes them, is node {name!r} = "
                        f"{op}({', '.join(map(repr, args))}) at step {t} (the "
                        f"{'later' if backward else 'earlier'} nodes and steps are right)")
    return ""


class located_at_a_node:
    """A block of `compare`s of the nodes' sequences: a failure that names no known mistake ends
    with `first_difference` (the node and step where the difference starts) instead of where the
    failing node's array differs."""

    def __init__(self, got, expected, network, backward=False):
        # asked for on every run, so that the public cases hold it for the self-check too
        self.args = got, expected, network, ref.hint.step_order(network), backward

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is not AssertionError or NAMES in str(error):
            return False
        sentence = first_difference(*self.args)
        if sentence:
            raise AssertionError(str(error).split(LOCATED)[0] + sentence) from None
        return False


@pytest.mark.task("loop_forward")
def test_only_the_loops_run_step_by_step(submission, rng, public):
    network, params, inputs = random_case(rng, public)
    where = describe(network, inputs)
    calls = values_of(submission, network, params, inputs, where)["calls"]
    T = len(inputs["x"])
    in_loops = set().union(*loops_of(network))
    ops = [name for name in network if network[name][0] in ARITY]
    whole = sum(1 for name in ops if name not in in_loops)
    steps = T * sum(1 for name in ops if name in in_loops)
    assert (calls.count(3), calls.count(2)) == (whole, steps), (
        f"run on {where} called the ops {calls.count(3)} times on whole sequences (T, B, k) and "
        f"{calls.count(2)} times on single steps (B, k); expected {whole} and {steps}: once for "
        f"each of the {whole} op nodes outside the loops, on its whole sequence, and once per "
        f"step ({T} steps) for each of the {steps // T} op nodes inside the loops")


# -- loop_backward -----------------------------------------------------------------------------------
def check_gradients(submission, rng, public, metrics, last_only):
    network, params, inputs = random_case(rng, public)
    last = [name for name in network if network[name][0] in ARITY][-1:]
    upstream = upstream_on(rng, network, inputs, last if last_only else list(network))
    where = describe(network, inputs) + (f", a loss on {last[0]!r} only" if last_only
                                         else ", a loss on every node")
    expected = ref.unrolled(network, params, inputs, upstream)
    out = probe(submission, "backward", f"in backward on {where}", network=network,
                params=params, inputs=inputs, order=ref.forward_order(network),
                values=expected["values"], upstream=upstream)
    assert out["type"] == "dict", (
        f"backward on {where} returned a {out['type']}; it must return {{'params': {{...}}, "
        f"'nodes': {{...}}}}")
    mistakes = on_the_whole(ref.misconceptions.unrolled(network, params, inputs, upstream),
                            {(part, name): out[part][name] for part in ("params", "nodes")
                             for name in out[part]}, within(TOL, floored_rel_error),
                            lambda value, key: value[key[0]][key[1]])
    for part, names in (("params", params), ("nodes", network)):
        missing = sorted(set(names) - set(out[part]))
        assert not missing, f"backward on {where} returned no gradient for the {part} {missing[:5]}"
        with located_at_a_node(out["nodes"], expected["nodes"], network, backward=True):
            for name in names:
                compare(out[part][name], expected[part][name],
                        f"the gradient of {'the parameter' if part == 'params' else 'the node'} "
                        f"{name!r} on {where}", metrics, tol=TOL, mistakes=mistakes,
                        part=lambda v, part=part, name=name: v[part][name])


@pytest.mark.task("loop_backward")
@pytest.mark.parametrize("case", range(2))
def test_gradients_of_a_loss_on_every_node(case, submission, rng, public, metrics):
    check_gradients(submission, rng, public, metrics, last_only=False)


@pytest.mark.task("loop_backward")
def test_gradients_of_a_loss_on_one_node(submission, rng, public, metrics):
    check_gradients(submission, rng, public, metrics, last_only=True)


# -- lstm_task -----------------------------------------------------------------------------------------
def first_bit(n: int, T: int, rng) -> tuple:
    """The notebook's task: (n, T, 3) sequences, step 0 the one-hot class and the flag 1, the
    later steps noise N(0, NOISE^2) in the first two numbers; and the classes (n,)."""
    classes = rng.integers(0, 2, n)
    x = np.zeros((n, T, 3))
    x[:, 1:, :2] = rng.normal(0, NOISE, (n, T - 1, 2))
    x[np.arange(n), 0, classes] = 1
    x[:, 0, 2] = 1
    return x, classes


def assert_accurate(predicted, classes, what, assignment, metrics, metric) -> None:
    """Assert the accuracy of `predicted` reaches the bar; metrics[metric] and the partial credit
    between the floor and the bar."""
    assert isinstance(predicted, np.ndarray) and predicted.shape == classes.shape, (
        f"{what} must give {classes.size} classes, one per sequence; it gave "
        f"{predicted.get('not_array') if isinstance(predicted, dict) else predicted.shape}"
        f"{'' if isinstance(predicted, dict) else shape_located(predicted.shape, classes.shape)}")
    other = predicted[~np.isin(predicted, (0, 1))]
    assert not other.size, (
        f"{what} must give classes 0 or 1; it gave {other.size} other value(s), such as "
        f"{other[0]:g}")
    accuracy = float(np.mean(predicted == classes))
    bar, floor = assignment.thresholds["accuracy"], assignment.thresholds["accuracy_floor"]
    share = float(np.clip((accuracy - floor) / (bar - floor), 0.0, 1.0))
    metrics[metric] = accuracy
    metrics["credit"] = min(metrics.get("credit", 1.0), float(np.floor(100 * share + 1e-9) / 100))
    assert accuracy >= bar, (
        f"{what}: accuracy {accuracy:.3f}, below the {bar} required: {metrics['credit']:.0%} of "
        f"the points (none at {floor} or below; guessing scores 0.5)")


@pytest.mark.task("lstm_task")
def test_the_first_bit_is_remembered(submission, rng, assignment, metrics):
    sequences, classes = first_bit(1000, T_BIT, rng)
    what = f"predict(sequences) on {len(classes):,} new sequences of {T_BIT} steps"
    predicted = probe(submission, "predict", f"in {what}", sequences=sequences)
    assert_accurate(predicted, classes, what, assignment, metrics, "accuracy")


def dp_lstm_classes(params, sequences) -> np.ndarray:
    """The classes argmax(h_{T-1} V + c_out) of the LSTM dp.lstm builds with `params` (the
    notebook's gate order i, f, g, o) on sequences (n, T, 3): the self-check's stand-in for the
    grader's forward pass, by dp's public API."""
    h, _ = dp.lstm(dp.Input("x"), *(dp.Node(np.asarray(params[k], float)) for k in "WUb"))
    with dp.no_grad(), np.errstate(all="ignore"):
        last = dp.run(h, {"x": np.asarray(sequences, float).transpose(1, 0, 2)}).value[-1]
    return (last @ params["V"] + params["c_out"]).argmax(axis=1)


def lstm_shapes(k) -> dict:
    """The shapes of LSTMClassifier's parameters for k units reading 3 numbers a step."""
    return {"W": (3, 4 * k), "U": (k, 4 * k), "b": (4 * k,), "V": (k, 2), "c_out": (2,)}


@pytest.mark.task("lstm_task")
def test_the_trained_lstm_remembers_the_first_bit(submission, rng, public, assignment, metrics):
    """The trained `model` graded on its parameters, through the grader's own LSTM. A predict
    that answers without a trained network (reading step 0) earns nothing here. The self-check
    has no public case of that forward pass on the student's own parameters: it runs the same
    LSTM with dp's (`dp_lstm_classes`), which the bundle has anyway (the names and shapes are
    checked in both)."""
    sequences, classes = first_bit(1000, T_BIT, rng)
    out = probe(submission, "model", "in model.get_param() or model.forward(sequences)",
                sequences=sequences)
    params = trained_parameters(out["params"], lstm_shapes, "U", "LSTMClassifier", MAX_UNITS)
    new = f"{len(classes):,} new sequences of {T_BIT} steps"
    if public:
        what = f"dp.lstm with model's trained parameters, read out from the last state, on {new}"
        predicted = dp_lstm_classes(params, sequences)
    else:
        what = f"the grader's LSTM with model's trained parameters, on {new}"
        with np.errstate(all="ignore"):
            predicted = ref.lstm_predictions(params, sequences)
    assert_accurate(predicted, classes, what, assignment, metrics, "accuracy_of_the_parameters")
