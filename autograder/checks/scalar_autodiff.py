"""Checks of 01 scalar autodiff: the student's Scalar and numerical_gradient against dp.

Every input is drawn here from `rng` (other values when grading than in the self-check); every
expected value comes from the references (autograder/references/scalar_autodiff.py: dp on the
same expression), which the student bundle replaces by the values they gave for the public seed.
The probes only call the student's code and collect what it made (see
autograder/probes/scalar_autodiff.py); they keep the tasks apart: the operators are graded by
the local derivatives they store (`operand_gradients`: the path sums of the chain rule over the
graph the probe collected), and backward() on graphs whose nodes the probe makes with the
values and true local derivatives that the references give (`graph_nodes`). The probe bounds
the work of backward() (WORK in the probe): one that follows every path to a node, instead of
visiting each node once, is stopped on x doubled 60 times (2^60 paths) and told so.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import LOCATED, NAMES, diagnosed, misconception, pairs
from autograder.probes.scalar_autodiff import _FUNCTIONS as NUMGRAD_FUNCTIONS
from autograder.sandbox.errors import ProbeError
from dp import relative_error

ref = references.of(__name__)
TOL = 1e-6     # float64 formulas agree with dp to ~1e-15; a wrong derivative misses by far more
FLOOR = 1e-6   # |received - expected| / max(|received| + |expected|, FLOOR)

OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
GRAPH_OPS = {"add": "{} + {}", "mul": "{} * {}", "exp": "exp({})", "log": "log({})",
             "tanh": "tanh({})"}


def fmt(x) -> str:
    return f"{x:.8g}" if isinstance(x, float) else repr(x)


def signed(rng, low, high, n) -> list:
    """n floats with magnitudes in [low, high] and random signs."""
    return [float(x) for x in rng.uniform(low, high, n) * rng.choice([-1.0, 1.0], n)]


@pytest.fixture
def expect(metrics):
    """expect(received, expected, what): the relative error (with FLOOR) is at most TOL;
    `hint()` ends the message when it is not."""

    def expect(received, expected, what, tol=TOL, hint=str):
        number = isinstance(received, (int, float)) and not isinstance(received, bool)
        error = float(relative_error(received, expected, FLOOR)) if number else math.nan
        metrics["max_rel_error"] = max(metrics.get("max_rel_error", 0.0),
                                       error if error <= 1 else 1.0)
        assert error <= tol, f"{what}: expected {fmt(expected)}, received {fmt(received)}{hint()}"

    return expect


# -- operators and functions: one operation, its value and its local derivatives ---------------

def operand_gradients(parents, operands, what) -> list:
    """d out / d operand (None for a Python number) in the graph that a `binary`/`unary` probe
    collected: `parents[k]` = [[index of a parent, local derivative], ...] of node k, node 0 the
    output. The chain rule in closed form: d out / d v is the sum, over every path from out
    down to v, of the product of the local derivatives on its edges. Summed as backward() sums
    it, in reverse topological order: g[out] = 1, and once every edge into node c has been
    followed (every path to c is summed in g[c]), each edge c -> p adds local(c, p) * g[c] to
    g[p] (Kahn's algorithm: a node is ready when the count of its unfollowed incoming edges is
    zero). Each node and edge is visited once: the cost is linear in the graph's size, whatever
    its shape (a reply is hostile data: a chain of 10,000 nodes with duplicate edges cost the
    path-length sums this replaced 26 s).

    Only the local derivatives on a path to an operand are read (the others, such as those
    towards the constant that a Python number becomes, cannot change a result). A graph that
    the probe cannot have collected (an index out of range, a node that is neither an operand
    nor anyone's parent, a cycle) fails with `what`."""
    n = len(parents)
    edges = [[edge[0] for edge in node] for node in parents]     # the parents' indices
    wanted = {i for i in operands if i is not None}
    assert n > 0 and all(0 <= i < n for i in [i for node in edges for i in node] + list(wanted)), (
        f"{what}: the probe's graph of {n} nodes refers to a node that it does not list")
    assert len({0} | wanted | {i for node in edges for i in node}) == n, (
        f"{what}: the probe's graph lists nodes that nothing refers to")
    children = [[] for _ in range(n)]
    for k, node in enumerate(edges):
        for p in node:
            children[p].append(k)
    leads = _reached(wanted, children)          # the nodes with a path to an operand
    used = [[(p, position) for position, p in enumerate(node) if p in leads] for node in edges]
    reached = _reached({0}, [[p for p, _ in node] for node in used])
    waiting = [0] * n                   # per node: the edges into it not yet followed
    for k in reached:
        for p, _ in used[k]:
            waiting[p] += 1
    grads, ready, done = [0.0] * n, [0] if waiting[0] == 0 else [], 0
    grads[0] = 1.0
    while ready:
        k = ready.pop()
        done += 1
        for p, position in used[k]:
            grads[p] += float(parents[k][position][1]) * grads[k]
            waiting[p] -= 1
            if waiting[p] == 0:
                ready.append(p)
    assert done == len(reached), f"{what}: the probe's graph has a cycle"
    return [None if i is None else float(grads[i]) for i in operands]


def _reached(start, neighbours) -> set:
    """The nodes reached from the nodes `start` along `neighbours` (node -> [nodes]), them too."""
    found, stack = set(start), list(start)
    while stack:
        for other in neighbours[stack.pop()]:
            if other not in found:
                found.add(other)
                stack.append(other)
    return found


def _numbers(values) -> np.ndarray:
    """The numbers of (nested lists of) numbers and Nones, flat; None as nan."""
    if isinstance(values, (list, tuple)):
        return np.concatenate([_numbers(v) for v in values] or [np.zeros(0)])
    return np.array([np.nan if values is None else float(values)])


def _error(got, value) -> float:
    """The largest relative error (with FLOOR) between two nested lists of numbers, where both
    have one (a None, an operand given as a Python number, on both sides is no error)."""
    got, value = _numbers(got), _numbers(value)
    if got.shape != value.shape or np.any(np.isnan(got) != np.isnan(value)):
        return math.inf
    known = ~np.isnan(value)
    return float(np.max(relative_error(got[known], value[known], FLOOR), initial=0.0))


def CLOSE(got, value) -> bool:
    """To name a known mistake: the reply is its value, within the checks' TOL."""
    return _error(got, value) <= TOL


def check_operation(received, expected, expr, at, operands, expect, mistakes):
    """Compare a `binary`/`unary` probe result with dp's (value, [gradient or None, ...]);
    `mistakes`: the known mistakes' (value, gradients) on the same operands."""
    value, grads = expected
    assert received.get("type") == "Scalar", (
        f"{expr} {at} returned a {received.get('type')}, not a Scalar")
    got_grads = operand_gradients(received["parents"], received["operands"], f"{expr} {at}")
    got = [received["value"], [g if want is not None else None for g, want in zip(got_grads, grads)]]

    def named():
        return misconception(got, expected, mistakes, CLOSE)
    expect(received["value"], value, f"value of {expr} {at}", hint=named)
    for name, mine, want in zip(operands, got_grads, grads, strict=True):
        if want is not None:
            expect(mine, want, f"d({expr})/d{name} {at}", hint=named)


def check_binary(submission, expect, op, a, b, number=None):
    expr = " ".join([fmt(a) if number == "left" else "a", OPERATORS[op],
                     fmt(b) if number == "right" else "b"])
    at = "at " + ", ".join(f"{n}={fmt(v)}" for n, v, side in (("a", a, "left"), ("b", b, "right"))
                           if number != side)
    received = submission.probe("binary", op=op, a=a, b=b, number=number)
    check_operation(received, ref.binary(op, a, b, number), expr, at, "ab", expect,
                    ref.misconceptions.binary(op, a, b, number))


def check_unary(submission, expect, fn, x):
    expected = ref.unary(fn, x)
    received = submission.probe("unary", fn=fn, a=x)
    expr = "-x" if fn == "neg" else f"{fn}(x)"
    check_operation(received, expected, expr, f"at x={fmt(x)}", "x", expect,
                    ref.misconceptions.unary(fn, x))


@pytest.mark.task("scalar_arithmetic")
@pytest.mark.parametrize("op", OPERATORS)
def test_operator_value_and_both_gradients(op, submission, rng, expect):
    for a, b in zip(signed(rng, 0.5, 2, 3), signed(rng, 0.5, 2, 3)):
        check_binary(submission, expect, op, a, b)


@pytest.mark.task("scalar_arithmetic")
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("op", OPERATORS)
def test_operator_with_a_python_number(op, side, submission, rng, expect):
    a, b = signed(rng, 0.5, 2, 2)
    check_binary(submission, expect, op, a, b, number=side)


@pytest.mark.task("scalar_arithmetic")
def test_unary_minus(submission, rng, expect):
    for x in signed(rng, 0.5, 2, 3):
        check_unary(submission, expect, "neg", x)


FUNCTION_INPUTS = {   # away from the points where a typical mistake gives the right answer
    "exp": lambda rng: signed(rng, 0.3, 3, 4),
    "log": lambda rng: [math.exp(u) for u in signed(rng, 0.3, 1.5, 4)],
    "tanh": lambda rng: signed(rng, 0.3, 2.5, 4),
    "sigmoid": lambda rng: signed(rng, 0.5, 4, 4),
}


@pytest.mark.task("scalar_functions")
@pytest.mark.parametrize("fn", FUNCTION_INPUTS)
def test_function_value_and_derivative(fn, submission, rng, expect):
    for x in FUNCTION_INPUTS[fn](rng):
        check_unary(submission, expect, fn, x)


# -- backward: graphs made of nodes with the true local derivatives ----------------------------

def register_names(program, inputs) -> list:
    """The name of each register of `program` in its description: x0, x1, ..., v3, ..., out."""
    names = [f"x{i}" if i < len(inputs) else f"v{i}" for i in range(len(inputs) + len(program))]
    if program:
        names[-1] = "out"
    return names


def definitions(program, inputs) -> list:
    """'x0 = 0.5', ..., 'v3 = x0 * x1', ...: each register's value or operation on its inputs."""
    names = register_names(program, inputs)
    return [f"{names[i]} = {fmt(x)}" for i, x in enumerate(inputs)] + \
        [f"{names[len(inputs) + k]} = {GRAPH_OPS[op].format(*(names[i] for i in args))}"
         for k, (op, *args) in enumerate(program)]


LOCATED_NODES = 200     # graphs of at most this many nodes are located node by node (the public
                        # cases hold their true grads: not 01's chain of 5,000 nodes)


def graph_located(received, expected, program, inputs) -> str:
    """'. The first difference ...': of the grads of the registers of `program` that backward()
    left (`received`: the probe's node_grads, None where the reply had none usable), the first
    that differs from d out/d register (`expected`: ref.hint.node_gradients, None where not
    asked for), in backward order, from the output back, with the nodes
    it gets its grad from (their grads are right: the error enters on their edges to it, and
    the registers before it inherit it). '' when none differs."""
    if received is None or expected is None or len(received) != len(expected):
        return ""
    lines = definitions(program, inputs)
    for k in reversed(range(len(expected))):
        if not relative_error(received[k], expected[k], FLOOR) <= TOL:
            children = [lines[len(inputs) + c] for c, (_, *args) in enumerate(program)
                        if k in args]
            return (f"{LOCATED}, going back from the output, is the grad of {lines[k]}: expected "
                    f"{fmt(expected[k])}, received {fmt(received[k])}" +
                    (f"; it comes from {' and '.join(children)}, whose grad"
                     f"{'s are' if len(children) > 1 else ' is'} right" if children
                     else ""))
    return ""


def describe(program, inputs, limit=12) -> str:
    lines = definitions(program, inputs)
    if len(lines) > limit:
        lines = lines[:limit - 2] + [f"... ({len(lines) - limit + 1} more)", lines[-1]]
    return "; ".join(lines)


# what the `graph` probe says when it stopped a backward() that did too much work
TOO_MUCH_WORK = re.compile(r"TooMuchWork: backward\(\) did more than ([\d,]+) "
                           r"(gradient updates|reads of node\.parents) on a graph of ")


def paths(program, inputs) -> str:
    """The largest number of paths from the output to a node, as text: 2^k when a large power
    of two."""
    counts = [0] * (len(inputs) + len(program))
    counts[-1] = 1
    for k in reversed(range(len(program))):        # the registers are in topological order
        for i in program[k][1:]:
            counts[i] += counts[len(inputs) + k]
    most = max(counts)
    return f"2^{most.bit_length() - 1}" if most >= 2 ** 20 and most & (most - 1) == 0 else \
        f"{most:,}"


def check_graph(submission, expect, program, inputs, what, bounded=False, twice=False):
    """backward() on `program`; `bounded`: the probe stops a backward that does far more work
    than the graph's nodes and edges need (only on the graph of many paths); `twice`: backward()
    is called twice in a row and must give the same grads (it sets them, it does not add to
    what a previous call left)."""
    try:
        received = submission.probe("graph", inputs=inputs, nodes=ref.graph_nodes(program, inputs),
                                    **({"bounded": True} if bounded else {}),
                                    **({"twice": True} if twice else {}))
    except ProbeError as error:
        if type(error) is ProbeError and "RecursionError" in str(error):
            raise AssertionError(f"backward() on {what}: {error} -- find the topological order "
                                 f"with an explicit stack, not with recursion") from None
        work = TOO_MUCH_WORK.match(str(error)) if type(error) is ProbeError else None
        if work:
            bound, kind = work.groups()
            did = "updated gradients" if kind == "gradient updates" else "read node.parents"
            raise AssertionError(
                f"backward() {did} more than {bound} times on a graph of "
                f"{len(inputs) + len(program):,} nodes: it follows every path to a node "
                f"({paths(program, inputs)} here) instead of visiting each node once, in "
                f"topological order ({what}: {describe(program, inputs)})") from None
        raise
    where = f"backward() {'called twice ' if twice else ''}on {what} ({describe(program, inputs)})"
    expect(received["grad"], 1.0, f"{where}: the grad of the output itself",
           hint=lambda: SEED_NOT_ONE)
    expected = ref.program_gradients(program, inputs)
    mistakes = ref.misconceptions.program_gradients(program, inputs)
    node_grads = ref.hint.node_gradients(program, inputs) \
        if len(inputs) + len(program) <= LOCATED_NODES else None      # asked for on every run
    hint = (lambda: NOT_RESET) if twice else (
        lambda: _named_or_located(received, expected, mistakes, node_grads, program, inputs))
    for i, (got, want) in enumerate(pairs(received["input_grads"], expected,
                                          f"{where}: input gradients")):
        expect(got, want, f"{where}: d out/dx{i}", hint=hint)


SEED_NOT_ONE = diagnosed("output_grad_not_one", "the output's own grad is not 1: backward "
                         "starts from d out/d out = 1, the seed, before it visits any node")
NOT_RESET = diagnosed("gradients_not_reset", "the grads are not reset between two calls: the "
                      "second call added to the grads that the first one left (set the grad of "
                      "every node of the graph to 0 before accumulating)")


def _named_or_located(received, expected, mistakes, node_grads, program, inputs) -> str:
    """The known mistake that the input grads of the reply equal; else the first register whose
    grad differs from `node_grads` (graph_located); else where the input grads differ."""
    named = misconception(received["input_grads"], expected, mistakes, CLOSE)
    if NAMES in named:
        return named
    return graph_located(received.get("node_grads"), node_grads, program, inputs) or named


@pytest.mark.task("scalar_backprop")
def test_backward_from_a_leaf_sets_its_grad_to_one(submission, rng, expect):
    check_graph(submission, expect, [], signed(rng, 0.5, 2, 1), "a leaf")


TOPS = {"add": ["add", 4, 2], "exp": ["exp", 4], "log": ["log", 4]}


@pytest.mark.task("scalar_backprop")
@pytest.mark.parametrize("top", TOPS)
def test_backward_from_an_output_made_by(top, submission, rng, expect):
    program = [["mul", 0, 1], ["exp", 3], TOPS[top]]
    check_graph(submission, expect, program, signed(rng, 0.5, 1.5, 3), f"a chain ending in {top}")


REUSED = {"x*x": ([["mul", 0, 0]], 1), "x+x": ([["add", 0, 0]], 1),
          "x*y+x": ([["mul", 0, 1], ["add", 2, 0]], 2)}


@pytest.mark.task("scalar_backprop")
@pytest.mark.parametrize("case", REUSED)
def test_reused_node_accumulates(case, submission, rng, expect):
    program, n_inputs = REUSED[case]
    check_graph(submission, expect, program, signed(rng, 0.5, 2, n_inputs),
                f"{case}, where x is used twice")


DIAMONDS = {   # v2 = x0 * x1 reaches the output along two paths
    "equal": [["mul", 0, 1], ["tanh", 2], ["exp", 2], ["mul", 3, 4]],
    "unequal": [["mul", 0, 1], ["tanh", 2], ["exp", 3], ["tanh", 4], ["mul", 5, 2]],
}


@pytest.mark.task("scalar_backprop")
@pytest.mark.parametrize("branches", DIAMONDS)
def test_diamond_gradient_arrives_from_both_branches(branches, submission, rng, expect):
    check_graph(submission, expect, DIAMONDS[branches], signed(rng, 0.3, 1.2, 2),
                f"a diamond: v2 reaches the output along two paths of {branches} length")


DOUBLINGS = [["add", i, i] for i in range(60)]   # v_{i+1} = v_i + v_i: 61 nodes, 120 edges


@pytest.mark.task("scalar_backprop")
def test_each_node_once_however_many_paths_lead_to_it(submission, rng, expect):
    # x doubled 60 times: 2^60 paths from the output to x, so d out/dx = 2^60 (exactly, in
    # floats). Visiting each node once takes 120 updates; following every path never ends, and
    # the probe stops it (WORK in autograder/probes/scalar_autodiff.py).
    check_graph(submission, expect, DOUBLINGS, signed(rng, 0.5, 2, 1),
                "x doubled 60 times", bounded=True)


@pytest.mark.task("scalar_backprop")
def test_deep_chain_of_5000_nodes(submission, rng, expect):
    # x0 -> tanh(x0 * x1 + x2) -> tanh(. * x1 + x2) -> ...: 3 nodes per step
    program, last = [], 0
    while len(program) < 5000:
        new = 3 + len(program)                  # the register of the next node
        program += [["mul", last, 1], ["add", new, 2], ["tanh", new + 1]]
        last = new + 2
    inputs = [float(rng.uniform(low, high)) for low, high in ((-2, 2), (0.5, 1.5), (-0.5, 0.5))]
    check_graph(submission, expect, program, inputs, f"a chain of {len(program):,} nodes")


@pytest.mark.task("scalar_backprop")
def test_a_second_backward_gives_the_same_gradients(submission, rng, expect):
    # the convention of the notebook: backward() sets every grad of the graph (to 0, then
    # accumulates); a second call, e.g. for a second loss on the same nodes, starts afresh
    check_graph(submission, expect, DIAMONDS["unequal"], signed(rng, 0.3, 1.2, 2),
                "a diamond", twice=True)


def random_program(rng, n_inputs=3, size=40, max_paths=10_000):
    """A random graph: each node applies an op to the newest node and, for + and *, to any
    older one, so that nodes are reused. Values stay in a safe range for exp and log, and the
    graph unfolded into a tree has fewer than `max_paths` nodes: a backward() that visits a
    node once per path to it is not slow here (DOUBLINGS catches it)."""
    values, program = signed(rng, 0.5, 1.5, n_inputs), []
    paths = [1] * n_inputs      # per node: the size of the tree it unfolds into
    while len(program) < size:
        op = str(rng.choice(list(GRAPH_OPS)))
        last, other = len(values) - 1, int(rng.integers(len(values)))
        if paths[last] + paths[other] >= max_paths:
            other = int(rng.integers(n_inputs))
        x, y = values[last], values[other]
        value = {"add": lambda: x + y, "mul": lambda: x * y, "tanh": lambda: math.tanh(x),
                 "exp": lambda: math.exp(x) if x < 2 else math.inf,
                 "log": lambda: math.log(x) if x > 0.2 else math.inf}[op]()
        if abs(value) > 10:
            op, value = "tanh", math.tanh(x)
        binary = op in ("add", "mul")
        program.append([op, last, other] if binary else [op, last])
        paths.append(1 + paths[last] + (paths[other] if binary else 0))
        values.append(value)
    return program, values[:n_inputs]


@pytest.mark.task("scalar_backprop")
def test_random_graph(submission, rng, expect):
    program, inputs = random_program(rng)
    check_graph(submission, expect, program, inputs, "a random graph")


# -- numerical_gradient -------------------------------------------------------------------------

FUNCTIONS = ("exp", "sin", "log", "tanh", "cube")     # by name, as the numgrad probe has them


OTHER_DISTANCE = diagnosed("difference_over_another_distance", "the difference of f at two "
                           "points divided by another length than the distance between them")


def over_another_distance(function, x, eps, offsets, estimate) -> str:
    """The naming of an estimate that is exactly a difference quotient of f at the two points
    where the student's code evaluated it (`offsets`, in units of eps) divided by k eps, where k
    is not the points' distance (a step of 2 eps divided by 2 eps): derived from what the code
    did, so it outranks a known mistake that presumes the points x - eps and x + eps. "" when
    the estimate is no such quotient (k not a multiple of 1/2, within 1e-6)."""
    points = sorted({float(o) for o in offsets if math.isfinite(o) and abs(o) < 1e6})
    unit = 1e-6 if eps is None else eps
    if len(points) != 2 or not math.isfinite(estimate) or estimate == 0:
        return ""
    (b, a), f = points, NUMGRAD_FUNCTIONS[function]   # as the probe gives them: math
    try:
        k = (f(x + a * unit) - f(x + b * unit)) / (estimate * unit)
    except (ValueError, OverflowError):
        return ""
    nice = round(2 * k) / 2
    if nice == 0 or abs(k - nice) > 1e-6 * abs(nice) or abs(nice - (a - b)) < 1e-9:
        return ""
    return OTHER_DISTANCE + (f": ({_at(a)} - {_at(b)}) / ({nice:g} * eps), where the points "
                             f"are {a - b:g} * eps apart")


def _at(offset: float) -> str:
    """f at x + offset * eps, as code: 'f(x + 2 * eps)', 'f(x)'."""
    step = "" if offset == 0 else f" {'+-'[offset < 0]} {abs(offset):g} * eps"
    return f"f(x{step})"


def check_numgrad(submission, expect, function, x, eps=None):
    received = submission.probe("numgrad", function=function, x=x, eps=eps)
    expected = ref.derivative(function, x)
    mistakes = ref.misconceptions.derivative(function, x, eps)
    offsets = received["offsets"]
    central = sorted(round(o, 6) for o in offsets) == [-1, 1]
    where = "" if central else (
        f" (it evaluated f at x + ({', '.join(f'{o:+.3g}' for o in offsets)}) * eps; the "
        f"central difference uses x + eps and x - eps and is accurate to about eps^2)")
    shown = "" if eps is None else f", eps={eps:g}"

    def hint():
        # the known mistakes presume the points x - eps and x + eps (or x and x + eps)
        quotient = "" if central else over_another_distance(function, x, eps, offsets,
                                                            received["estimate"])
        return quotient + where if quotient else \
            misconception(received["estimate"], expected, mistakes, CLOSE) + where
    expect(received["estimate"], expected, f"numerical_gradient({function}, x={fmt(x)}{shown})",
           hint=hint)


@pytest.mark.task("numerical_gradient")
@pytest.mark.parametrize("function", FUNCTIONS)
def test_matches_the_derivative(function, submission, rng, expect):
    xs = signed(rng, 0.3, 1.2, 3)
    for x in [math.exp(x) for x in xs] if function == "log" else xs:
        check_numgrad(submission, expect, function, x)


@pytest.mark.task("numerical_gradient")
@pytest.mark.parametrize("function", ["exp", "cube"])
def test_is_a_central_difference(function, submission, rng, expect):
    # with eps = 1e-4, a forward difference is off by eps/2 * |f''/f'| >= 5e-5 (relative) here,
    # a central one by eps^2/6 * |f'''/f'| < 1e-7
    for x in signed(rng, 0.5, 1.5, 3):
        check_numgrad(submission, expect, function, x, eps=1e-4)
