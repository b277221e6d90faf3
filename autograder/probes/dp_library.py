"""Probes of 03 DP library: the student's grad(), Model and train() on the grader's inputs.

No dp here: this module runs next to the student's code, where dp is a forbidden import. It
calls the student's code and collects what it made; no chain rule runs here (the grader's checks,
autograder/checks/dp_library.py, run it on the data collected).

The three tasks are probed apart, so that one mistake costs the points of one task:
- `graph` builds graphs with the notebook's given Node operations and calls the student's
  `grad` (task named_leaves);
- `initial_params` and `model_params` build networks of the student's `Layer`s through the
  notebook's given `Model` (its layer factories, get_param, set_param); they call no `grad`, so
  that a bug in `grad` does not cost model_layers;
- `train` runs the student's `train` on `_ScriptedModel`, which has the Model API (get_grad,
  get_param, set_param) and no model behind it: get_grad hands out the grader's gradients in turn
  and records the parameters it was called at. The model (the toy network) is the grader's: from
  the record, it finds the step the loop took with each gradient and takes the same steps on the
  toy problem, so that the loop is graded on its own.
"""
import contextlib

import numpy as np

from .schema import Array, Either, Flag, Items, Number, Optional, Table, Text, TypeName

# op -> (function, number of Node operands)
_OPS = {
    "add": (lambda a, b: a + b, 2),
    "sub": (lambda a, b: a - b, 2),
    "mul": (lambda a, b: a * b, 2),
    "dot": (lambda a, b: a.dot(b), 2),
    "T": (lambda a: a.T, 1),
    "sum": (lambda a: a.sum(), 1),
    "exp": (lambda a: a.exp(), 1),
    "log": (lambda a: a.log(), 1),
    "square": (lambda a: a.square(), 1),
    "relu": (lambda a: a.relu(), 1),
    "tanh": (lambda a: a.tanh(), 1),
}


def _array(x):
    return np.array(x, dtype=float)


def _gradients(grads) -> dict:
    if not isinstance(grads, dict):
        return {"type": type(grads).__name__}
    return {"type": "dict", "grads": {str(name): _array(value) for name, value in grads.items()}}


def graph(ns, inputs, names, program, upstream=None):
    """Leaves Node(x, name) (name None: a constant) start a list of registers; each
    instruction [op, i] or [op, i, j] appends op(register i, register j). Then the student's
    grad(1), or grad(upstream), on the last register: its type and {name: gradient}."""
    node = ns["Node"]
    registers = [node(_array(x), name) for x, name in zip(inputs, names)]
    for op, *args in program:
        function, arity = _OPS[op]
        registers.append(function(*(registers[i] for i in args[:arity])))
    out = registers[-1]
    return _gradients(out.grad(1) if upstream is None else out.grad(_array(upstream)))


# -- models ----------------------------------------------------------------------------------------

@contextlib.contextmanager
def _random_state_kept(ns):
    """The notebook's random generators (its init_rng) left as they were before the block: a
    probe that makes networks draws their initial weights from them, and probing must not change
    what the notebook draws next (nor what a second self-check sees)."""
    kept = [(value, value.bit_generator.state) for value in list(ns.values())
            if isinstance(value, np.random.Generator)]
    try:
        yield
    finally:
        for generator, state in kept:
            generator.bit_generator.state = state


def _network(ns, layers):
    """An instance of a subclass of the student's Model: layers h0, h1, ... made by the
    student's factories, [[factory, n_in, n_out], ...]; the mean squared error as its loss."""
    model, node = ns["Model"], ns["Node"]

    class ProbeNetwork(model):
        def __init__(self):
            super().__init__()
            for i, (factory, n_in, n_out) in enumerate(layers):
                setattr(self, f"h{i}", getattr(self, factory)(n_in, n_out, f"h{i}"))

        def forward(self, x):
            h = x if isinstance(x, node) else node(x)
            for i in range(len(layers)):
                h = getattr(self, f"h{i}")(h)
            return h

        def loss(self, x, y):
            return (self.forward(x) - node(y)).square().mean()

    return ProbeNetwork()


def _snapshot(params) -> dict:
    """What get_param returned, as it is now (copied, so later changes do not show)."""
    if not isinstance(params, dict):
        return {"__type__": type(params).__name__}
    return {str(name): _array(value) for name, value in params.items()}


def initial_params(ns, layers):
    """get_param() of a new network."""
    with _random_state_kept(ns):
        return _snapshot(_network(ns, layers).get_param())


def model_params(ns, layers, params, x):
    """get_param() and the forward pass on x after set_param(params), and which parameters the
    output is computed from ({name: bool}: whether a path of `parents` leads back to the node
    that holds it, the given Node's structure; the student's grad is not called)."""
    with _random_state_kept(ns):
        net = _network(ns, layers)
    net.set_param({name: _array(value) for name, value in params.items()})
    out = net.forward(_array(x))
    found = _ancestors(out)
    return {"after": _snapshot(net.get_param()), "output": _array(out.value),
            "reached": {name: any(getattr(n, "name", None) == name for n in found)
                        for name in params}}


def _ancestors(out) -> list:
    """The nodes that `out` is computed from, along `parents` ((input, grad_fn), ...)."""
    seen, stack, found = set(), [out], []
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            found.append(node)
            stack.extend(parent for parent, _ in getattr(node, "parents", ()) or ())
    return found


# -- training ------------------------------------------------------------------------------------

MAX_CALLS = 20_000     # get_grad calls of one train(): the notebook's default is 1,000 steps


class _ScriptedModel:
    """The Model API that train() uses, with no model behind it. get_param returns copies of the
    parameters, set_param keeps copies of the ones it is given (names and shapes as they were);
    the k-th call of get_grad returns the grader's gradients[k % len] and losses[k % len], and
    records the parameters it was called at, and the first call (`other_data`: [k, what its x
    was, what its y was]) not given the data (x, y) that train was."""

    def __init__(self, params, gradients, losses, x, y):
        self._params = {name: _array(value) for name, value in params.items()}
        self._gradients = [{name: _array(value) for name, value in g.items()} for g in gradients]
        self._losses = [float(loss) for loss in losses]
        self._data = {"x": x, "y": y}
        self.history = {name: [] for name in self._params}
        self.other_data = None

    def _which(self, array) -> str:
        """'x' or 'y' for an array equal to train's x or y, else 'another array'."""
        try:
            array = np.asarray(array, dtype=float)
        except (TypeError, ValueError):
            return "another array"
        return next((name for name, given in self._data.items() if array.shape == given.shape
                     and np.array_equal(array, given)), "another array")

    def get_param(self) -> dict:
        return {name: value.copy() for name, value in self._params.items()}

    def set_param(self, params) -> None:
        for name, value in params.items():
            if name not in self._params:
                raise KeyError(f"set_param: the network has no parameter {name!r}; "
                               f"it has {list(self._params)}")
            value = _array(value)
            if value.shape != self._params[name].shape:
                raise ValueError(f"set_param: {name!r} has shape {self._params[name].shape}, "
                                 f"not {value.shape}")
            self._params[name] = value

    def get_grad(self, x, y):
        k = len(next(iter(self.history.values())))
        if k >= MAX_CALLS:
            raise RuntimeError(f"train called get_grad more than {MAX_CALLS:,} times")
        for name, value in self._params.items():
            self.history[name].append(value.copy())
        given = [self._which(x), self._which(y)]
        if self.other_data is None and given != ["x", "y"]:
            self.other_data = [k, *given]
        return ({name: g.copy() for name, g in self._gradients[k % len(self._gradients)].items()},
                self._losses[k % len(self._losses)])


def train(ns, params, gradients, losses, x, y, steps=None, lr=None):
    """The student's train(net, x, y), with its default steps and learning rate (or `steps`, `lr`), on
    a _ScriptedModel holding `params`: the parameters it leaves, the losses it returned, and the
    parameters at each call of get_grad ({name: array (calls, *shape)})."""
    x, y = _array(x), _array(y)
    model = _ScriptedModel(params, gradients, losses, x.copy(), y.copy())
    given = {} if steps is None else {"steps": int(steps)}
    given.update({} if lr is None else {"lr": float(lr)})
    returned = ns["train"](model, x, y, **given)
    try:
        returned = [float(loss) for loss in returned]
    except (TypeError, ValueError):
        returned = None
    history = {name: np.array(values).reshape(len(values), *np.shape(params[name]))
               for name, values in model.history.items()}
    return {"params": model.get_param(), "losses": returned, "history": history,
            "other_data": model.other_data}


def _arrays(*arrays):
    """A student's {name: array}, each at most 10 times as large as the largest of `arrays`."""
    return Table(Array(None, finite=False, max_size=10 * max(np.size(a) for a in arrays) + 100))


def _params(layers, finite=False):
    """What `_snapshot` returns of a network of `layers`: the parameters the notebook specifies
    (layer h<i> has h<i>_W (n_in, n_out) and h<i>_b (1, n_out)), or the type returned instead."""
    shapes = {}
    for i, (_, n_in, n_out) in enumerate(layers):
        shapes.update({f"h{i}_W": (n_in, n_out), f"h{i}_b": (1, n_out)})
    return Either({"__type__": TypeName()},
                  {name: Array(shape, finite=finite) for name, shape in shapes.items()})


def _grads(*arrays):
    return {"type": "dict", "grads": _arrays(*arrays)}


REPLIES = {   # the gradients may hold nan or inf: the checks say where
    "graph": lambda inputs, names, program, upstream=None: Either(
        _grads(*inputs), {"type": TypeName("dict")}),
    "initial_params": lambda layers: _params(layers, finite=True),
    "model_params": lambda layers, params, x: {
        "after": _params(layers), "output": Array((len(x), layers[-1][2]), finite=False),
        "reached": {name: Flag() for name in params}},
    "train": lambda params, gradients, losses, x, y, steps=None, lr=None: {   # the scripted model
        "params": {name: Array(np.shape(value), finite=False) for name, value in params.items()},
        "losses": Optional(Items(Number(finite=False), max_len=1_000_000)),
        "history": {name: Array((None, *np.shape(value)), finite=False,
                                max_size=MAX_CALLS * np.size(value))
                    for name, value in params.items()},
        "other_data": Optional(Items(Either(Number(integer=True), Text(max_len=20)), length=3))},
}
