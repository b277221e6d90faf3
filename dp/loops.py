"""Networks over sequences with recurrent loops: the delay node, and the forward order of the
computational-network chapter (seeds/001, "Recurrent Connections" to "Building Arbitrary
Recurrent Neural Networks").

A network over sequences is described once, then run on data::

    x = Input("x")                            # fed at run time: (T, B, n), time first
    h_prev = PastValue(np.zeros(m))           # h one step ago; np.zeros(m) before the first step
    h = (x @ W + h_prev @ U + b).tanh()       # W, U, b: ordinary named Nodes (the parameters)
    h_prev.connect(h)                         # closes the directed loop h -> h_prev -> h
    y = h @ V
    out = run(y, {"x": xs}, lengths=[5, 3])   # a dp Node (T, B, k): differentiate it as usual

Every Node op applies to a `SequenceNode` (`h @ V`, `h.tanh()`, `1 - z`, `z[..., :m]`): it is
recorded, not computed. `run` then orders the graph:

1. the strongly connected components (Tarjan's algorithm, iterative), which come out with every
   component after the components it reads from: the DAG of components in topological order;
2. a component of one node without a loop is computed for the whole sequence at once (an op sees
   values (T, B, ...), time first: `x @ W` is one matrix product for all steps);
3. a loop is computed step by step, its nodes in the order of its edges without the delays
   (an op sees values (B, ...)); a delay node gives its input's value `steps` steps earlier, or
   its initial value before that. The loop as a whole is one node of dp's graph, and its
   backward pass is backpropagation through time over the steps that its forward pass recorded.

Ops with an axis argument should count from the end (``softmax(-1)``, ``z[..., :m]``): outside
a loop the values have the time axis in front, inside they do not.

Several sequences of different lengths run together, padded at the end to the longest (T) and
given by ``lengths``: every sequence starts at step 0, so padding never reaches a valid step
(delays look back only), and `run` sets the outputs at padded steps to 0.
"""
from __future__ import annotations

import itertools

import numpy as np

from .node import Node, ShapeError, concatenate

OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
             "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
             "__getitem__")


class SequenceNode(Node):
    """A node of a network over sequences: an op recorded with its operands (`args`, where
    SequenceNodes stand for values computed at run time), computed by `run`.

    A subclass of Node, so that ``W @ h`` and ``1 - z`` with a Node or a number on the left
    reach the recording operator (Python lets a subclass's reflected operator go first).
    """

    def __init__(self, fn=None, args=(), kwargs=None, op="op"):
        self.fn, self.args, self.kwargs = fn, tuple(args), dict(kwargs or {})
        self.name, self.op, self._inputs, self.needs_grad = None, op, (), False

    def operands(self) -> list:
        """The SequenceNodes this node reads (for a delay: its input)."""
        return [a for a in itertools.chain(self.args, self.kwargs.values())
                if isinstance(a, SequenceNode)]

    def past_value(self, initial=0.0, steps=1) -> PastValue:
        """This node's value `steps` steps ago (`initial` before the first `steps` steps)."""
        return PastValue(initial, steps).connect(self)

    @property
    def value(self):
        raise TypeError(f"{self!r} has no value of its own: dp.run(outputs, inputs) computes the "
                        f"network on sequences (dp.conv2d and other functions take Nodes only)")

    def __repr__(self):
        return f"{type(self).__name__}(op={self.op!r})"


def _recorder(name):
    method = getattr(Node, name)

    def record(self, *args, **kwargs):
        return SequenceNode(method, (self,) + args, kwargs, name.strip("_"))
    record.__name__ = name
    record.__doc__ = f"Record ``Node.{name}`` on this node's value, computed by `run`."
    return record


# Every op of Node, recorded on a SequenceNode instead of computed (and its value, shape, dtype:
# none until `run`).
for _name, _value in list(vars(Node).items()):
    if callable(_value) and (_name in OPERATORS or not _name.startswith("_")) and _name != "item" \
            and not isinstance(_value, staticmethod):     # Node.get_param: no op on a value
        setattr(SequenceNode, _name, _recorder(_name))


class Input(SequenceNode):
    """A sequence fed to `run` under `name`: an array (T, B, ...), time first."""

    def __init__(self, name: str):
        super().__init__(op="input")
        self.label = name

    def __repr__(self):
        return f"Input({self.label!r})"


class PastValue(SequenceNode):
    """The delay node: the value of its input `steps` steps earlier in the same sequence, and
    `initial` (a number, an array or a Node, which may be a parameter) for the first `steps`
    steps. Make it first, use it, then `connect` it to the node it delays: this closes a loop.

    d/d input[t - steps] = g[t];  d/d initial = the sum of g over the first `steps` steps.
    """

    def __init__(self, initial=0.0, steps=1):
        super().__init__(op="past_value")
        if int(steps) != steps or steps < 1:
            raise ValueError(f"PastValue: steps must be an integer >= 1, not {steps!r}")
        if isinstance(initial, SequenceNode):
            raise TypeError("PastValue: the initial value must be a number, an array or a Node, "
                            "not a node of the network")
        self.initial = initial if isinstance(initial, Node) else Node(initial)
        self.steps, self.source = int(steps), None

    def connect(self, source: SequenceNode) -> PastValue:
        if not isinstance(source, SequenceNode) or source is self:
            raise TypeError(f"PastValue.connect: the input must be another node of the network "
                            f"(a SequenceNode), not {source!r:.80}")
        if self.source is not None:
            raise ValueError("PastValue.connect: this delay node is already connected")
        self.source = source
        return self

    def operands(self) -> list:
        if self.source is None:
            raise ValueError("PastValue: a delay node was used but never connected "
                             "(call delay.connect(node))")
        return [self.source]


# -- order ----------------------------------------------------------------------------------------
def strongly_connected_components(roots, successors) -> list:
    """Tarjan's algorithm, with an explicit stack: the strongly connected components of the
    graph reachable from `roots` along ``successors(node)``, each a list of nodes, every
    component listed after all the components its nodes lead to (for edges that point from a
    node to its operands: an order in which to compute them). Linear in nodes + edges.

    index[v]: when v was reached; low[v]: the smallest index reachable from v's subtree through
    one edge to a node still on the stack. v is the root of a component when low[v] == index[v].
    """
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    for root in roots:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors(root)))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:             # descend; come back to `node` afterwards
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:                                  # every child done
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while not component or component[-1] is not node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    components.append(component[::-1])
    return components


def evaluation_order(outputs) -> list:
    """The components of the network that computes `outputs`, in the order to compute them;
    within a loop, its nodes in an order that computes each after its operands but a delay
    node's input (the edge the delay breaks)."""
    components = strongly_connected_components(outputs, lambda node: node.operands())
    ordered = []
    for component in components:
        if len(component) > 1:
            members = set(component)

            def within(node, members=members):
                return [] if isinstance(node, PastValue) else [
                    a for a in node.operands() if a in members]
            component = [c[0] for c in strongly_connected_components(component, within)]
        ordered.append(component)
    return ordered


# -- run ------------------------------------------------------------------------------------------
def run(outputs, inputs: dict, lengths=None):
    """Compute `outputs` (a SequenceNode or a list of them) on `inputs` ({Input name: array
    (T, B, ...)}); returns dp Nodes (T, B, ...), each differentiable with respect to the Nodes
    (parameters) the network uses. `lengths` (B,): the valid steps of each sequence; the outputs
    at the steps after them are set to 0."""
    single = isinstance(outputs, SequenceNode)
    outputs = [outputs] if single else list(outputs)
    order = evaluation_order(outputs)
    length, batch = _sequence_shape(inputs)
    needed = set(outputs)       # nodes whose whole sequence is read outside their component
    component_of = {node: i for i, component in enumerate(order) for node in component}
    for node in component_of:
        needed.update(a for a in node.operands() if component_of[a] != component_of[node])
    full = {}
    for component in order:
        if len(component) > 1:
            full.update(_run_loop(component, full, length, needed))
        else:
            full[component[0]] = _whole_sequence(component[0], full, inputs, length)
    results = [full[node] for node in outputs]
    if lengths is not None:
        mask = _mask(lengths, length, batch)
        results = [r * mask.reshape(mask.shape + (1,) * (r.ndim - 2)).astype(r.dtype)
                   for r in results]
    return results[0] if single else results


def _sequence_shape(inputs):
    shapes = {name: np.shape(value) for name, value in inputs.items()}
    if not shapes or min(map(len, shapes.values())) < 2 or len({s[:2] for s in shapes.values()}) > 1:
        raise ShapeError(f"run: every input must be an array (T, B, ...) with the same T and B; "
                         f"got {shapes}")
    return next(iter(shapes.values()))[:2]


def _mask(lengths, length, batch):
    lengths = np.asarray(lengths)
    if lengths.shape != (batch,) or lengths.min(initial=1) < 1 or lengths.max(initial=1) > length:
        raise ValueError(f"run: lengths must be {batch} integers in 1..{length}, not {lengths}")
    return np.arange(length)[:, None] < lengths[None, :]


def _resolve(node, value_of, constant=lambda a: a):
    """The arguments of `node`'s op: SequenceNodes replaced by their values, the others by
    `constant` of them."""
    def resolve(a):
        return value_of(a) if isinstance(a, SequenceNode) else constant(a)
    return [resolve(a) for a in node.args], {k: resolve(v) for k, v in node.kwargs.items()}


def _plan(node, steps, members, sequence, constant):
    """How to call `node`'s op at every step of a loop: (node, args, kwargs, varying), where
    `varying` lists (args or kwargs, position, values by step) for the operands that change
    from step to step: a member of the loop (its list in `steps`, filled as the steps go) or a
    whole sequence from outside (`sequence(a)`, a list); `constant(a)` for the others."""
    if isinstance(node, PastValue):
        return node, None, None, ()
    args, kwargs = list(node.args), dict(node.kwargs)
    varying = []
    for operands, key in itertools.chain(((args, i) for i in range(len(args))),
                                         ((kwargs, k) for k in kwargs)):
        a = operands[key]
        if isinstance(a, SequenceNode):
            varying.append((operands, key, steps[a] if a in members else sequence(a)))
        else:
            operands[key] = constant(a)
    return node, args, kwargs, varying


def _whole_sequence(node, full, inputs, length) -> Node:
    """A node outside any loop, for all steps at once."""
    if isinstance(node, Input):
        if node.label not in inputs:
            raise KeyError(f"run: no value for the input {node.label!r} "
                           f"(inputs given: {sorted(inputs)})")
        return Node(inputs[node.label])
    if isinstance(node, PastValue):          # a delay outside a loop: shift the whole sequence
        source, k = full[node.source], min(node.steps, length)
        head = node.initial + Node(np.zeros((k,) + source.shape[1:], source.dtype))
        return concatenate([head, source[:length - k]], axis=0) if k < length else head
    args, kwargs = _resolve(node, full.__getitem__)
    return node.fn(*args, **kwargs)


def _run_loop(order, full, length, needed) -> dict:
    """A loop, step by step, as one node of dp's graph per member read outside the loop.

    Forward: a graph of its own, in which every value the loop reads from outside (a slice of a
    whole-sequence value at step t, a parameter, an initial value) is a named leaf. Backward:
    that graph's gradients (backpropagation through time), handed to the operands outside: the
    slices stacked back into sequences.
    """
    members = set(order)
    outside, leaves = [], {}            # outer operands; id(outer) -> its inner leaf (or leaves)

    def leaf(outer, t=None):
        """The inner stand-in of an outer Node (of its step t, for a whole sequence)."""
        if not outer.needs_grad:
            return outer if t is None else Node(outer.value[t])
        if id(outer) not in leaves:
            outside.append(outer)
            leaves[id(outer)] = ([Node(outer.value[s], f"\0loop{len(outside)}.{s}")
                                  for s in range(length)] if t is not None
                                 else Node(outer.value, f"\0loop{len(outside)}"))
        return leaves[id(outer)] if t is None else leaves[id(outer)][t]

    steps = {node: [] for node in order}
    plans = [_plan(node, steps, members, lambda a: [leaf(full[a], t) for t in range(length)],
                   lambda a: leaf(a) if isinstance(a, Node) else a) for node in order]
    for t in range(length):
        for node, args, kwargs, varying in plans:
            if isinstance(node, PastValue):
                back = t - node.steps
                steps[node].append(steps[node.source][back] if back >= 0 else leaf(node.initial))
                continue
            for operands, key, values in varying:   # this step's values where they change
                operands[key] = values[t]
            steps[node].append(node.fn(*args, **kwargs))

    def gradients_of(inner):
        """The loop's local gradient functions for one exported sequence `inner`."""
        memo = {}

        def to_operand(outer):
            def local(g):
                if memo.get("g") is not g:          # one backward pass serves every operand
                    memo.update(g=g, grads=inner.grad(g), left=len(outside))
                grads, stand_in = memo["grads"], leaves[id(outer)]
                memo["left"] -= 1
                if not memo["left"]:                # the last operand: let the arrays go
                    memo.clear()
                if isinstance(stand_in, list):   # (zeros only where a step has no gradient)
                    return np.stack([grads[s.name] if s.name in grads else np.zeros_like(s.value)
                                     for s in stand_in])
                return grads[stand_in.name] if stand_in.name in grads else np.zeros_like(outer.value)
            return local
        return [(outer, to_operand(outer)) for outer in outside]

    exported = {}
    for node in order:
        if node in needed:
            inner = _stack(steps[node])
            exported[node] = Node._result(inner.value, "loop", *gradients_of(inner))
    return exported


def _stack(values) -> Node:
    """Step values (B, ...) -> one sequence (T, B, ...), a delay's initial value broadcast.
    d/d values[t] = g[t] (summed back over the axes a broadcast added)."""
    value = np.stack(np.broadcast_arrays(*(v.value for v in values)))
    return Node._result(value, "stack", *((v, lambda g, t=t: g[t]) for t, v in enumerate(values)))


# -- a network built from nodes and delays -------------------------------------------------------
def lstm(x, W, U, b, h0=None, c0=None):
    """A long short-term memory layer from ordinary nodes and two delay nodes; returns (h, c).

    x: a SequenceNode (T, B, n); W (n, 4m), U (m, 4m), b (4m,): the gates in the order i, f, g,
    o, as torch.nn.LSTM (whose weight_ih is W^T). With z = x_t W + h_{t-1} U + b:

        i = sigma(z_i), f = sigma(z_f), g = tanh(z_g), o = sigma(z_o)
        c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t)

    h0, c0: the states before the first step (numbers, arrays (m,) or (B, m), or Nodes), zeros by
    default.
    """
    m = U.shape[0]
    zeros = np.zeros(m, U.dtype)
    h_prev = PastValue(zeros if h0 is None else h0)
    c_prev = PastValue(zeros if c0 is None else c0)
    z = (x @ W + b) + h_prev @ U     # x W + b outside the loop: one product for all steps
    s = z.sigmoid()                  # one op for the three sigmoid gates (and g's unused part)
    i, f, o = (s[..., k * m:(k + 1) * m] for k in (0, 1, 3))
    c = f * c_prev + i * z[..., 2 * m:3 * m].tanh()
    h = o * c.tanh()
    h_prev.connect(h)
    c_prev.connect(c)
    return h, c
