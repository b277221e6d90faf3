"""Checks of 03 DP library: the student's grad(), Model and training loop against dp.

All inputs, parameters and toy problems are drawn here from `rng` (other ones when grading
than in the self-check, and other sizes). The expected gradients and network outputs come from
the grader's references (autograder/references/dp_library.py: dp on the same graph or network).
The probes keep the tasks apart (autograder/probes/dp_library.py); they only call the student's
code and collect data. What must be recomputed from the student's own values runs here with dp's
public API: for the training loop, the loss of the parameters the student's loop leaves behind.
The Model's plumbing (the layer factories, get_param, set_param, get_grad) is given in the
notebook: model_layers grades the student's Layer through it.
"""
from __future__ import annotations


import numpy as np
import pytest

import dp
from autograder import references
from autograder.grading.checking import (diagnosed, keys_located, located, misconception,
                                         on_the_whole, probe, shape_located)
from dp import Node, relative_error

ref = references.of(__name__)

TOL = 1e-6
FLOOR = 1e-6

GRAPH_OPS = {   # how each op of a graph program is written, for the messages
    "add": lambda a, b: f"{a} + {b}",
    "sub": lambda a, b: f"{a} - {b}",
    "mul": lambda a, b: f"{a} * {b}",
    "dot": lambda a, b: f"{a}.dot({b})",
    "T": lambda a: f"{a}.T",
    "sum": lambda a: f"{a}.sum()",
    "exp": lambda a: f"{a}.exp()",
    "log": lambda a: f"{a}.log()",
    "square": lambda a: f"{a}.square()",
    "relu": lambda a: f"{a}.relu()",
    "tanh": lambda a: f"{a}.tanh()",
}
ARITY = {"add": 2, "sub": 2, "mul": 2, "dot": 2}


def fmt(x) -> str:
    return f"{x:.8g}"


@pytest.fixture
def expect(metrics):
    """expect(received, expected, what): same shape, elementwise relative error <= TOL; the
    message ends with the known mistakes that `received` equals (`mistakes`, what
    ref.misconceptions gave, of whose values `expected` is the `part`)."""

    def expect(received, expected, what, mistakes=(), part=None):
        expected = np.asarray(expected, dtype=float)
        received = np.asarray(received, dtype=float)

        def named() -> str:
            return misconception(received, expected, mistakes, same, part)
        assert received.shape == expected.shape, (
            f"{what}: expected shape {expected.shape}, received shape {received.shape}"
            f"{named() or shape_located(received.shape, expected.shape)}")
        errors = relative_errors(received, expected)
        error = float(errors.max(initial=0.0))
        metrics["max_rel_error"] = max(metrics.get("max_rel_error", 0.0), min(error, 1.0))
        if error > TOL:
            at = np.unravel_index(int(np.argmax(errors)), errors.shape)
            raise AssertionError(f"{what}: at [{', '.join(map(str, at))}] expected "
                                 f"{fmt(expected[at])}, received {fmt(received[at])}{named()}")

    return expect


def relative_errors(received, expected) -> np.ndarray:
    """The elementwise relative errors (with FLOOR), inf where one is not finite."""
    errors = relative_error(received, expected, FLOOR)
    return np.where(np.isfinite(errors), errors, np.inf)


def same(received, value) -> bool:
    """To name a known mistake: the reply is its value, as `expect` compares them."""
    return np.shape(received) == np.shape(value) and \
        float(relative_errors(received, value).max(initial=0.0)) <= TOL


# -- named_leaves ----------------------------------------------------------------------------------

def describe(inputs, names, program) -> str:
    labels = [name or f"x{i}" for i, name in enumerate(names)]
    texts, binary = list(labels), set()     # binary: registers printed as "x + y" and alike
    for op, *args in program:
        operands = [f"({texts[i]})" if i in binary else texts[i] for i in args]
        texts.append(GRAPH_OPS[op](*operands))
        if op in ("add", "sub", "mul"):
            binary.add(len(texts) - 1)
    leaves = ", ".join(f"{label} {np.shape(x)}" + ("" if name else " unnamed")
                       for label, name, x in zip(labels, names, inputs))
    return f"out = {texts[-1]} with leaves {leaves}"


def check_graph(submission, expect, inputs, names, program, upstream=None):
    """The student's grad on `program` against dp's, named leaves and all."""
    inputs = [np.asarray(x, dtype=float) for x in inputs]
    call = "grad(1)" if upstream is None else "grad(G) with a random G"
    expected = ref.graph_gradients(inputs, names, program, upstream)
    mistakes = ref.misconceptions.graph_gradients(inputs, names, program, upstream)
    what = describe(inputs, names, program)
    received = probe(submission, "graph", f"in {call} on {what}", inputs=inputs, names=names,
                     program=program, upstream=upstream)
    assert received.get("type") == "dict", (
        f"{call} on {what} returned a {received.get('type')}, not a dict {{name: gradient}}")
    got = received["grads"]
    unnamed = "None" in got
    assert sorted(got) == sorted(expected), (
        f"{call} on {what} returned gradients for {sorted(got)}; expected one for every named "
        f"leaf: {sorted(expected)}"
        + (" (leaves without a name are constants and get no entry)" if unnamed else "")
        + keys_located(got, expected))
    mistakes = on_the_whole(mistakes, got, same)
    for name in expected:
        expect(got[name], expected[name], f"the gradient of {name!r} from {call} on {what}",
               mistakes, name)


def normal(rng, *shape):
    return rng.normal(size=shape)


def sizes(rng, public, k=3) -> list:
    """k dimensions: 2, 3, 4, ... in the self-check; drawn from 3..7 when grading."""
    return list(range(2, 2 + k)) if public else [int(d) for d in rng.integers(3, 8, k)]


@pytest.mark.task("named_leaves")
def test_paper_example(submission, rng, public, expect):
    if public:   # the paper's own numbers
        a, b = np.array([[1.0, 1, 1], [2, 2, 2]]), np.array([[1.0, 2, 3]])
    else:
        m, n = sizes(rng, public, 2)
        a, b = rng.uniform(-1, 1.5, (m, n)), rng.uniform(-1, 1.5, (1, n))
    check_graph(submission, expect, [a, b], ["A", "B"], [["mul", 0, 1], ["exp", 2], ["sum", 3]])


@pytest.mark.task("named_leaves")
def test_every_named_leaf_and_no_constant(submission, rng, public, expect):
    # out = (relu(x.dot(W1) + b1).dot(W2) + b2).sum(), the data x unnamed
    n, d, h = sizes(rng, public)
    inputs = [normal(rng, n, d), normal(rng, d, h), normal(rng, 1, h), normal(rng, h, 2),
              normal(rng, 1, 2)]
    program = [["dot", 0, 1], ["add", 5, 2], ["relu", 6], ["dot", 7, 3], ["add", 8, 4],
               ["sum", 9]]
    check_graph(submission, expect, inputs, [None, "W1", "b1", "W2", "b2"], program)


REUSED = {   # name: (program over the leaves a and b, how many leaves)
    "a*a": ([["mul", 0, 0], ["sum", 1]], 1),
    "a+a": ([["add", 0, 0], ["sum", 1]], 1),
    "a.T.dot(a)": ([["T", 0], ["dot", 1, 0], ["sum", 2]], 1),
    "a*b+a": ([["mul", 0, 1], ["add", 2, 0], ["sum", 3]], 2),
}


@pytest.mark.task("named_leaves")
@pytest.mark.parametrize("case", REUSED)
def test_reused_leaf_accumulates(case, submission, rng, public, expect):
    program, leaves = REUSED[case]
    m, n = sizes(rng, public, 2)
    inputs = [normal(rng, m, n) for _ in range(leaves)]
    check_graph(submission, expect, inputs, ["a", "b"][:leaves], program)


@pytest.mark.task("named_leaves")
def test_diamond(submission, rng, public, expect):
    # h = a * b reaches the output along two paths: exp(h) and tanh(exp(h)) * h
    m, n = sizes(rng, public, 2)
    inputs = [rng.uniform(-1, 1, (m, n)), rng.uniform(-1, 1, (1, n))]
    program = [["mul", 0, 1], ["exp", 2], ["tanh", 3], ["mul", 4, 2], ["add", 5, 3], ["sum", 6]]
    check_graph(submission, expect, inputs, ["a", "b"], program)


@pytest.mark.task("named_leaves")
def test_upstream_gradient_of_a_matrix_output(submission, rng, public, expect):
    m, n, p = sizes(rng, public)
    inputs = [normal(rng, m, n), normal(rng, n, p)]
    check_graph(submission, expect, inputs, ["a", "b"], [["dot", 0, 1], ["tanh", 2]],
                upstream=normal(rng, m, p))


@pytest.mark.task("named_leaves")
def test_deep_chain(submission, rng, public, expect):
    # h <- tanh(h * w + c), 1,000 times: w and c are used in every step
    n = sizes(rng, public, 1)[0]
    inputs = [rng.uniform(-1, 1, (1, n)), rng.uniform(0.5, 1.2, (1, n)),
              rng.uniform(-0.3, 0.3, (1, n))]
    program, last = [], 0
    for _ in range(1000):
        k = 3 + len(program)
        program += [["mul", last, 1], ["add", k, 2], ["tanh", k + 1]]
        last = k + 2
    program.append(["sum", last])
    inputs_names = ["h", "w", "c"]
    check_graph(submission, expect, inputs, inputs_names, program)


# -- model_layers ----------------------------------------------------------------------------------

def architecture(rng, public) -> list:
    """[[factory, n_in, n_out], ...]: ReLU layers, then a linear one."""
    d, h1, h2, k = (3, 5, 4, 2) if public else [int(v) for v in rng.integers(3, 9, 4)]
    return [["ReLU_Layer", d, h1], ["ReLU_Layer", h1, h2], ["Linear_Layer", h2, k]]


def describe_net(layers) -> str:
    return ", ".join(f'h{i} = {factory}({n_in}, {n_out}, "h{i}")'
                     for i, (factory, n_in, n_out) in enumerate(layers))


def random_params(rng, layers) -> dict:
    params = {}
    for i, (_, n_in, n_out) in enumerate(layers):
        params[f"h{i}_W"] = rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out))
        params[f"h{i}_b"] = rng.normal(0, 0.5, (1, n_out))
    return params


def network_case(rng, public):
    layers = architecture(rng, public)
    params = random_params(rng, layers)
    n = 4 if public else int(rng.integers(5, 12))
    x = rng.normal(size=(n, layers[0][1]))
    y = rng.normal(size=(n, layers[-1][2]))
    return layers, params, x, y


def check_names(received: dict, params: dict, what: str):
    assert "__type__" not in received, f"{what} returned a {received['__type__']}, not a dict"
    assert sorted(received) == sorted(params), (
        f"{what} returned parameters {sorted(received)}; expected {sorted(params)} (a layer "
        f'named "h0" has the parameters "h0_W" and "h0_b")')
    for name, value in params.items():
        assert received[name].shape == value.shape, (
            f"{what}: {name!r} has shape {received[name].shape}; expected {value.shape} "
            f"(W is (n_in, n_out), b is (1, n_out)){shape_located(received[name].shape, value.shape)}")


@pytest.mark.task("model_layers")
def test_layers_have_named_parameters(submission, rng, public):
    layers, params, _, _ = network_case(rng, public)
    what = f"get_param() of a new network with {describe_net(layers)}"
    received = probe(submission, "initial_params", f"in a network with {describe_net(layers)}",
                     layers=layers)
    check_names(received, params, what)
    for i in range(len(layers)):
        weights = received[f"h{i}_W"]
        assert np.all(np.isfinite(weights)) and np.ptp(weights) > 0, (
            f"{what}: the weights h{i}_W all start with the same value; draw them at random, "
            f"or every unit of the layer computes the same thing")


def expect_params(expect, received, params, what, mistakes=()):
    check_names(received, params, what)
    mistakes = on_the_whole(mistakes, received, same)
    for name, value in params.items():
        expect(received[name], value, f"{name!r} of {what}", mistakes, name)


@pytest.mark.task("model_layers")
def test_set_param_changes_the_forward_pass(submission, rng, public, expect):
    """get_param() after set_param (the names and shapes of the student's Layer), and the
    forward pass through the student's layers with the grader's parameters."""
    layers, params, x, _ = network_case(rng, public)
    where = f"a network with {describe_net(layers)}"
    received = probe(submission, "model_params", f"in {where}", layers=layers, params=params, x=x)
    expect_params(expect, received["after"], params, f"get_param() after set_param on {where}")
    expect(received["output"], ref.network_output(layers, params, x),
           f"forward(x) with x of shape {x.shape} after set_param on {where} (does your Layer "
           f"compute act(x W + b), with the ReLU in a ReLU layer?)",
           ref.misconceptions.network_output(layers, params, x))
    unreached = sorted(name for name, reached in received["reached"].items() if not reached)
    assert not unreached, (
        f"forward(x) on {where} is not computed from the parameters {unreached}: no gradient "
        f"can reach them{NOT_IN_THE_GRAPH}")


NOT_IN_THE_GRAPH = diagnosed(
    "parameter_used_by_its_value", "a layer computes with a parameter's value (an array), not "
    "with its Node: the output does not depend on that leaf in the graph, so get_grad gives it "
    "no gradient (use self.W and self.b themselves)")

WIDE = [["ReLU_Layer", 400, 100], ["Linear_Layer", 100, 400]]    # n_in != n_out: fans told apart
SPREAD = 0.05     # the standard deviation of 40,000 draws is within 0.4% (one standard error)


def _draws_located(mean, std, gain, n_in, n_out) -> str:
    """'. The first difference is ...': which normal the weights of a layer (n_in, n_out) that
    should follow N(0, gain / n_in) follow instead, as far as their mean and standard deviation
    (within SPREAD) tell: one of the variances 1 or 2 over n_in, n_out or n_in + n_out, or the
    variance gain / n_in taken for the standard deviation; or the standard deviation given as
    the mean. '' where none fits."""
    right = np.sqrt(gain / n_in)
    if abs(mean / right - 1) <= SPREAD:
        return (f". The first difference is in the mean: {mean:.3g} is the standard deviation "
                f"{right:.4g} of N(0, {gain:g} / n_in): the standard deviation given where the "
                f"mean belongs (normal(mean, std, size))")
    forms = {f"N(0, {g:g} / {fan})": np.sqrt(g / n) for g in (1, 2)
             for fan, n in (("n_in", n_in), ("n_out", n_out), ("(n_in + n_out)", n_in + n_out))}
    forms[f"the variance {gain:g} / n_in = {gain / n_in:.4g} taken for it"] = gain / n_in
    found = [form for form, s in forms.items()
             if abs(std / s - 1) <= SPREAD and not np.isclose(s, right)]
    if abs(mean) > SPREAD * right or len(found) != 1:
        return ""
    return f". The first difference is in the standard deviation: {std:.4g} is that of {found[0]}"


@pytest.mark.task("model_layers")
def test_weights_start_with_the_variance_of_their_layer(submission):
    """W ~ N(0, 2 / n_in) in a ReLU layer (He) and N(0, 1 / n_in) in a linear one, b zeros, on
    layers wide enough that the standard deviation of the draws is known to within SPREAD: a
    variance over n_out, a standard deviation taken for the variance, one variance for both
    kinds of layer all miss it by far more."""
    where = f"a new network with {describe_net(WIDE)}"
    received = probe(submission, "initial_params", f"in {where}", layers=WIDE)
    check_names(received, {f"h{i}_{p}": np.zeros(shape) for i, (_, n_in, n_out) in enumerate(WIDE)
                           for p, shape in (("W", (n_in, n_out)), ("b", (1, n_out)))},
                f"get_param() of {where}")
    for i, (factory, n_in, _) in enumerate(WIDE):
        weights, gain = received[f"h{i}_W"], 2.0 if factory == "ReLU_Layer" else 1.0
        right = np.sqrt(gain / n_in)
        std, mean = float(weights.std()), float(weights.mean())
        assert abs(std / right - 1) <= SPREAD and abs(mean) <= SPREAD * right, (
            f"get_param() of {where}: the weights h{i}_W have mean {mean:.3g} and standard "
            f"deviation {std:.4g}, {std / right:.3g} times the {right:.4g} of N(0, {gain:g} / "
            f"n_in) with n_in = {n_in}, which a {factory} draws from"
            + _draws_located(mean, std, gain, n_in, WIDE[i][2]))
        bias = received[f"h{i}_b"]
        assert not np.any(bias), (f"get_param() of {where}: the bias h{i}_b must start at zero"
                                  + located(bias, np.zeros_like(bias)))


# -- training_loop ---------------------------------------------------------------------------------
#
# The student's train() runs on the probe's scripted model (get_grad hands out the gradients drawn
# here, and records the parameters it was called at), so that the loop is graded on its own. The
# model is here: from the record, each step the loop took is found (param - lr * grad, a number lr
# per step and parameter), and the same steps are taken on the toy problem with the toy network's
# true gradients, by dp's public API. The final loss of those steps is the loop's.

TOY_HIDDEN = 32
SCRIPTED = 8           # gradients that get_grad hands out in turn
STEP_RTOL = 1e-10      # param - lr * grad, up to rounding


def _toy_loss_node(params, x, y) -> Node:
    """The mean squared error of the network relu(x W1 + b1) W2 + b2, a dp graph over `params`
    (arrays, or named Nodes to differentiate for)."""
    hidden = (Node(x).dot(params["h1_W"]) + params["h1_b"]).relu()
    return dp.losses.mean_squared_error(hidden.dot(params["h2_W"]) + params["h2_b"], y)


def toy_loss(params, x, y) -> float:
    """The mean squared error of the toy network with `params` on (x, y)."""
    with dp.no_grad():
        return _toy_loss_node(params, x, y).value.item()


def toy_gradients(params, x, y) -> dict:
    """{name: d loss / d param} of the toy network, by dp's grad."""
    return _toy_loss_node({name: Node(value, name) for name, value in params.items()}, x, y).grad(1)


def toy_problem(rng):
    """64 points x in [-1, 1], y a sine wave with an offset, and He-initialised parameters of a
    1 -> 32 -> 1 network: redrawn until the initial loss is at least 1, so that training has
    to do the work."""
    while True:
        x = rng.uniform(-1, 1, (64, 1))
        amplitude, frequency = rng.uniform(0.5, 1.5), rng.uniform(1, 3)
        phase = rng.uniform(0, 2 * np.pi)
        y = amplitude * np.sin(frequency * x + phase) + rng.uniform(1, 2) * rng.choice([-1, 1])
        params = {"h1_W": rng.normal(0, np.sqrt(2), (1, TOY_HIDDEN)),
                  "h1_b": np.zeros((1, TOY_HIDDEN)),
                  "h2_W": rng.normal(0, np.sqrt(1 / TOY_HIDDEN), (TOY_HIDDEN, 1)),
                  "h2_b": np.zeros((1, 1))}
        if toy_loss(params, x, y) >= 1:
            return x, y, params


def run_train(submission, rng, steps=None, lr=None):
    """(x, y, params, gradients, the probe's reply, losses): the student's train on the scripted
    model (with its default steps and learning rate, or `steps` and `lr`), for a toy problem and gradients drawn from rng.
    get_grad hands out `losses` in turn: the first is the initial loss; the others are drawn."""
    x, y, params = toy_problem(rng)
    gradients = [{name: rng.normal(size=value.shape) for name, value in params.items()}
                 for _ in range(SCRIPTED)]
    losses = [toy_loss(params, x, y)] + list(rng.uniform(0.1, 1, SCRIPTED - 1))
    given = {} if steps is None else {"steps": steps}
    given.update({} if lr is None else {"lr": lr})
    received = probe(submission, "train", "in train(net, x, y) on the toy problem", params=params,
                     gradients=gradients, losses=losses, x=x, y=y, **given)
    return x, y, params, gradients, received, losses


def loop_steps(received, gradients, params) -> list:
    """[{name: lr}]: for each call of get_grad, the number lr by which the loop moved each
    parameter against the gradient it was given (param - lr * grad), from the parameters recorded
    at the calls and those the loop left. A move of another kind fails."""
    history = received["history"]
    calls = len(next(iter(history.values())))
    assert all(len(values) == calls for values in history.values()), (
        "train(net, x, y): the probe's record of the calls of get_grad is malformed")
    at = [{name: history[name][k] for name in params} for k in range(calls)] + [received["params"]]
    moved = [name for name in params if not np.array_equal(at[0][name], params[name])]
    assert not moved, (
        f"train(net, x, y) changed {moved[0]!r} before it called get_grad: each step starts from "
        f"the gradients of the current parameters")
    steps = []
    for k in range(calls):
        lrs = {}
        for name, g in gradients[k % len(gradients)].items():
            before, after = at[k][name], at[k + 1][name]
            lr = -float(np.sum((after - before) * g) / np.sum(g * g))
            scale = np.max(np.abs(before), initial=0.0) + np.max(np.abs(after), initial=0.0)
            with np.errstate(invalid="ignore"):
                residual = np.max(np.abs(after - (before - lr * g)), initial=0.0)
            assert np.isfinite(lr) and residual <= STEP_RTOL * scale, (
                f"train(net, x, y) is not plain gradient descent, param - lr * grad for a number "
                f"lr (grad: what get_grad returned at that step). The first difference is at step "
                f"{k + 1}, in {name!r}: "
                + ("it did not move" if np.array_equal(after, before) else
                   "it moved, but not along that step's gradient"))
            lrs[name] = lr
        steps.append(lrs)
    return steps


def trained(params, x, y, steps) -> dict:
    """The parameters after the loop's steps on the toy problem: param - lr * d loss / d param."""
    for lrs in steps:
        grads = toy_gradients(params, x, y)
        params = {name: value - lrs[name] * grads[name] for name, value in params.items()}
    return params


@pytest.mark.task("training_loop")
def test_training_reaches_the_target_loss(submission, rng, assignment, metrics):
    x, y, params, gradients, received, _ = run_train(submission, rng)
    steps = loop_steps(received, gradients, params)
    with np.errstate(all="ignore"):
        final = toy_loss(trained(params, x, y, steps), x, y)
    metrics["final_loss"] = final
    initial, target = toy_loss(params, x, y), assignment.thresholds["toy_loss"]
    if not np.isfinite(final) or final > initial:
        hint = (" -- the loss grew: step against the gradient (param - lr * grad), and if it "
                "still grows, take a smaller learning rate")
    elif final > 0.5 * initial:
        hint = (" -- the loss hardly moved: is set_param called with the new parameters, and "
                "is the learning rate large enough?")
    else:
        hint = " -- a larger learning rate or more steps"
    assert final <= target, (
        f"train(net, x, y) on the toy problem (64 points, a 1-32-1 ReLU network): the mean "
        f"squared error went from {initial:.4g} to {final:.4g}, above the target {target}{hint}"
        f"{_departure(steps)}")


DEFAULTS = {"steps": 1000, "lr": 0.05}     # train's signature in the exercise


def _departure(steps) -> str:
    """Where the loop's steps ([{name: lr}], loop_steps) first depart from gradient descent with
    train's defaults, as a sentence ("" where they do not)."""
    for k, lrs in enumerate(steps[:DEFAULTS["steps"]]):
        for name, lr in lrs.items():
            if not np.isclose(lr, DEFAULTS["lr"], rtol=1e-6):
                return (f". The first difference from gradient descent with train's defaults "
                        f"({DEFAULTS['steps']:,} steps, lr {DEFAULTS['lr']:g}) is at step {k + 1}, in "
                        f"{name!r}: it moved by {-lr:+.4g} x grad, not -{DEFAULTS['lr']:g} x grad")
    if len(steps) != DEFAULTS["steps"]:
        return (f". The first difference from gradient descent with train's defaults: the loop "
                f"took {len(steps):,} step{'s' * (len(steps) != 1)}, not {DEFAULTS['steps']:,}")
    return ""


OTHER_DATA = diagnosed("gradients_of_other_data", "get_grad is not given the data train receives: "
                       "call net.get_grad(x, y) with train's own x and y")


@pytest.mark.task("training_loop")
def test_training_asks_for_the_gradients_on_its_own_data(submission, rng):
    """Every call of get_grad is given train's x and y, as they are (a loop that steps on the
    gradients of other data trains another problem)."""
    received = run_train(submission, rng, steps=int(rng.integers(3, 8)))[4]
    other = received["other_data"]
    if other is not None:
        step, x, y = other
        assert isinstance(step, int) and step >= 0 and (x, y) != ("x", "y") and \
            {x, y} <= {"x", "y", "another array"}, (
                "train(net, x, y): the probe's record of the data given to get_grad is malformed")
        raise AssertionError(f"train(net, x, y) called get_grad({x}, {y}) at step {step + 1}, not "
                             f"get_grad(x, y)" + OTHER_DATA)



@pytest.mark.task("training_loop")
def test_training_returns_the_losses(submission, rng):
    x, y, params, _, received, scripted = run_train(submission, rng)
    losses = received["losses"]
    assert losses is not None and len(losses) > 0, (
        "train(net, x, y) must return the list of the losses, one number per step")
    initial = toy_loss(params, x, y)
    assert abs(losses[0] - initial) <= 1e-6 * initial, (
        f"train(net, x, y): the first loss it returned is {losses[0]:.6g}, but the loss of the "
        f"initial parameters is {initial:.6g}; return the loss that get_grad gives at each step"
        + located(np.asarray(losses[:len(scripted)]), np.asarray(scripted[:len(losses)])))


@pytest.mark.task("training_loop")
def test_training_takes_as_many_steps_as_it_is_told(submission, rng):
    steps = int(rng.integers(3, 8))
    _, _, params, gradients, received, _ = run_train(submission, rng, steps)
    calls = len(loop_steps(received, gradients, params))
    losses = received["losses"]
    assert calls == steps, (
        f"train(net, x, y, steps={steps}) called get_grad {calls} times: take `steps` steps, one "
        f"get_grad and one update each (range(steps))")
    assert losses is not None and len(losses) == steps, (
        f"train(net, x, y, steps={steps}) returned {'no list' if losses is None else len(losses)} "
        f"losses: one per step, {steps}")


LR_NOT_USED = diagnosed("learning_rate_not_used", "the steps do not use the learning rate that "
                        "train is given: param - lr * grad with train's own lr")


@pytest.mark.task("training_loop")
def test_training_steps_with_the_learning_rate_it_is_given(submission, rng):
    steps, lr = int(rng.integers(3, 8)), float(rng.uniform(0.005, 0.03))
    _, _, params, gradients, received, _ = run_train(submission, rng, steps, lr)
    taken = loop_steps(received, gradients, params)
    wrong = [(k, name, moved) for k, lrs in enumerate(taken) for name, moved in lrs.items()
             if not np.isclose(moved, lr, rtol=1e-6)]
    if wrong:
        k, name, moved = wrong[0]
        default = all(np.isclose(moved, DEFAULTS["lr"], rtol=1e-6)
                      for lrs in taken for moved in lrs.values())
        raise AssertionError(
            f"train(net, x, y, steps={steps}, lr={lr:.4g}) did not step with that lr. The first "
            f"difference is at step {k + 1}, in {name!r}: it moved by {-moved:+.4g} x grad, not "
            f"-{lr:.4g} x grad" + (LR_NOT_USED + f" (every step used {DEFAULTS['lr']:g}, train's "
                                   f"default)" if default else ""))
