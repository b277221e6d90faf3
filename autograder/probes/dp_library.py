"""Probes of 03 DP library: the student's grad(), Model and train() on the grader's inputs.

No dp here: this module runs next to the student's code, where dp is a forbidden import.

The three tasks are probed apart, so that one mistake costs the points of one task:
- `graph` builds graphs with the notebook's given Node operations and calls the student's
  `grad` (task named_leaves);
- `model_params` and `model_grad` build networks from the student's `Model` and layer factories,
  and run them with a correct `grad` of this module's (`_correct_grad`) in place of the
  student's, so that a bug in `grad` does not cost model_layers;
- `train` runs the student's `train` on `_Regressor`, a NumPy model of this module's with the
  Model API (get_grad, get_param, set_param), so that the loop is graded on its own.
"""
import contextlib

import numpy as np

from .schema import Array, Either, Items, Number, Optional, Table, TypeName

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
def _correct_grad(ns):
    """Node.grad replaced, for the time of the block, by a correct one: {name: gradient} of the
    named leaves, backpropagated in the order of the notebook's given topological_order."""
    node_class, order = ns["Node"], ns["topological_order"]

    def grad(self, g=1.0):
        arrived, named = {id(self): np.ones(self.value.shape) * g}, {}
        for node in order(self):
            total = arrived.pop(id(node))
            if node.name is not None and not node.parents:
                named[node.name] = total
            for parent, grad_fn in node.parents:
                arrived[id(parent)] = arrived.get(id(parent), 0) + grad_fn(total)
        return named

    saved = node_class.__dict__.get("grad")
    node_class.grad = grad
    try:
        yield
    finally:
        if saved is None:
            del node_class.grad
        else:
            node_class.grad = saved


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
    return _snapshot(_network(ns, layers).get_param())


def model_params(ns, layers, params, x):
    """get_param() and the forward pass on x after set_param(params); and get_param() again
    after the caller changed (in place, by + 1) the arrays that one more get_param() handed
    out."""
    net = _network(ns, layers)
    net.set_param({name: _array(value) for name, value in params.items()})
    after = _snapshot(net.get_param())
    output = _array(net.forward(_array(x)).value)
    handed = net.get_param()
    for value in handed.values():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            value += 1.0            # e.g. an optimizer that updates what it was given in place
    return {"after": after, "output": output,
            "again": _snapshot(net.get_param())}


def model_grad(ns, layers, params, x, y):
    """get_grad(x, y) of a network after set_param(params), run with a correct Node.grad:
    {name: gradient} and the loss."""
    net = _network(ns, layers)
    with _correct_grad(ns):
        net.set_param({name: _array(value) for name, value in params.items()})
        grads, loss = net.get_grad(_array(x), _array(y))
    return {**_gradients(grads), "loss": float(np.asarray(loss, dtype=float).reshape(-1)[0])}


# -- training ------------------------------------------------------------------------------------

class _Regressor:
    """A network like the notebook's ToyNetwork, in NumPy: layers `names`, h <- relu(h W + b)
    for all but the last, out = h W + b, and the mean squared error; with the Model API."""

    def __init__(self, node_class, names, params):
        self._node, self._names = node_class, list(names)
        self._params = {name: _array(value) for name, value in params.items()}

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

    def _layers(self, x):
        """The input of every layer and the output."""
        hs = [_array(x)]
        for i, name in enumerate(self._names):
            h = hs[-1] @ self._params[f"{name}_W"] + self._params[f"{name}_b"]
            hs.append(np.maximum(h, 0) if i < len(self._names) - 1 else h)
        return hs

    def forward(self, x):
        return self._node(self._layers(x)[-1])

    def loss(self, x, y):
        return self._node(np.mean((self._layers(x)[-1] - _array(y)) ** 2))

    def get_grad(self, x, y):
        hs = self._layers(x)
        error = hs[-1] - _array(y)
        delta = 2 * error / error.size             # dL/d(output of the current layer)
        grads = {}
        for i in reversed(range(len(self._names))):
            name = self._names[i]
            grads[f"{name}_W"] = hs[i].T @ delta
            grads[f"{name}_b"] = delta.sum(axis=0, keepdims=True)
            delta = (delta @ self._params[f"{name}_W"].T) * (hs[i] > 0)
        return {name: grads[name] for name in self._params}, float(np.mean(error ** 2))


def train(ns, names, params, x, y):
    """The student's train(net, x, y), with its default steps and learning rate, on a
    _Regressor holding `params`; returns the parameters it leaves and the losses it returned."""
    model = _Regressor(ns["Node"], names, params)
    losses = ns["train"](model, _array(x), _array(y))
    try:
        losses = [float(loss) for loss in losses]
    except (TypeError, ValueError):
        losses = None
    return {"params": model.get_param(), "losses": losses}


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
        "again": _params(layers)},
    "model_grad": lambda layers, params, x, y: Either(
        {**_grads(*params.values()), "loss": Number(finite=False)},
        {"type": TypeName("dict"), "loss": Number(finite=False)}),
    "train": lambda names, params, x, y: {   # the probe's own model: its parameters as they were given
        "params": {name: Array(np.shape(value), finite=False) for name, value in params.items()},
        "losses": Optional(Items(Number(finite=False), max_len=1_000_000))},
}
