"""The computational graph: `Node`, its operations, and reverse-mode differentiation.

Every operation is one method (or function) that computes the forward value and states, right
beside it, how the upstream gradient ``g`` flows to each operand: ``(operand, lambda g: ...)``.
The engine (`Node.grad`) does the rest once, for every op:

* it sorts the graph topologically with an explicit stack (no recursion: deep graphs work),
* visits each node once, in reverse order, summing the gradients that reach a reused node
  (in place, once the sum is an array it made; a gradient function with an ``add_to(g, into)``,
  as getitem's, adds its part into that array itself instead of returning a whole new one),
* calls an operand's gradient function only if that operand leads to a named leaf,
* sums a broadcast gradient back to the operand's shape (``_unbroadcast``).

Shapes follow NumPy. Reductions over an axis keep that axis (an (m, n) matrix summed over
axis 1 is (m, 1)), as in the 2019 library; a reduction over everything gives a 0-d scalar
(a (1, 1) matrix in the 2019 mode, `compat_2019`).

Ops written as in the 2019 library work too: ``ret = Node(value)``, then ``ret.grad = grad``,
where ``grad(g)`` returns ``Node._set_grad(operand, g_operand, ...)`` (see `Node._set_grad`).
"""
from __future__ import annotations

import contextlib
import functools
import gc
import numbers
import types
import uuid

import numpy as np

_state = {"grad_enabled": True, "anomaly": False, "compat_2019": False}


class ShapeError(ValueError):
    """An op received operands whose shapes (or dtypes) it cannot combine."""


@contextlib.contextmanager
def no_grad():
    """Build no graph inside the block: for inference and optimizer updates."""
    previous = _state["grad_enabled"]
    _state["grad_enabled"] = False
    try:
        yield
    finally:
        _state["grad_enabled"] = previous


@contextlib.contextmanager
def detect_anomaly():
    """Raise `FloatingPointError` naming the op when backprop produces NaN or inf."""
    previous = _state["anomaly"]
    _state["anomaly"] = True
    try:
        yield
    finally:
        _state["anomaly"] = previous


class compat_2019:
    """The 2019 library's shapes and types where they differ from dp's (docs/COMPAT.md):

    * a sum, mean or max over everything keeps every axis: (1, 1) for a matrix;
    * a 1-d operand of ``dot`` is a column, and the product stays a matrix: (m, k) . (k,) is
      (m, 1), and (k,) . (1, n) is (k, n);
    * every named Node made is kept by name in the class-level ``Node.NodeStore``, which
      ``Node.get_param()`` and ``Node.set_param(params)`` read and write;
    * ``Model.get_grad`` returns the loss as a Node, ``Optimizer.train`` as a (1, 1) array.

    ``dp.compat_2019()`` turns the mode on, ``dp.compat_2019(False)`` off again, and
    ``with dp.compat_2019():`` turns it on for a block.
    """

    def __init__(self, enabled=True):
        self.previous = _state["compat_2019"]
        _state["compat_2019"] = bool(enabled)

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        _state["compat_2019"] = self.previous


def as_array(value, dtype=None) -> np.ndarray:
    """The dtype policy: floats keep their dtype, everything else becomes float64."""
    array = np.asarray(value, dtype=dtype)
    if array.dtype.kind != "f":
        if array.dtype.kind not in "biu":
            raise TypeError(f"Node: cannot hold values of dtype {array.dtype} (numbers only)")
        array = array.astype(np.float64)
    return array


def _shapes(args) -> str:
    """The shapes of an op's array operands, for error messages."""
    flat = [a for arg in args for a in (arg if isinstance(arg, (list, tuple)) else [arg])]
    return ", ".join(str(a.shape) for a in flat if isinstance(a, (Node, np.ndarray)))


def op(name):
    """Name an op, so that NumPy's complaints about its operands name the op and the shapes."""
    def decorate(method):
        @functools.wraps(method)
        def wrapper(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except ShapeError:
                raise
            except (ValueError, IndexError) as error:
                raise ShapeError(f"{name}: operands of shapes {_shapes(args)}: {error}") from None
        return wrapper
    return decorate


def _unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum `grad` over the axes that broadcasting added or stretched, giving `shape`."""
    if grad.ndim > len(shape):
        grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def _check_finite(gradient, node, operand) -> None:
    """Raise if backprop made a NaN or an infinity (under `detect_anomaly`)."""
    if not np.all(np.isfinite(gradient)):
        raise FloatingPointError(f"backprop: the gradient of {node.op!r} with respect to an "
                                 f"operand of shape {operand.shape} is not finite")


def _accumulate(into: dict, grads: dict) -> dict:
    """Add the gradients `grads` ({leaf name: array}) into `into`, name by name."""
    for name, g in grads.items():
        into[name] = into[name] + g if name in into else g
    return into


class _OwnGrad:
    """`Node.grad`, which a node may replace by a function of its own, as the 2019 library wrote
    its ops: ``ret.grad = grad``. Reading ``node.grad`` then gives that function, and backprop
    calls it where it reaches the node, to get the gradients of the leaves below it."""

    def __init__(self, method):
        functools.update_wrapper(self, method)

    def __get__(self, node, owner=None):
        if node is None:
            return self.__wrapped__
        return getattr(node, "_grad_fn", None) or types.MethodType(self.__wrapped__, node)

    def __set__(self, node, function):
        node._grad_fn = function    # from now on, how the gradient passes on from `node`
        node._inputs = ()
        node.needs_grad = True


class Node:
    """A value in the computational graph.

    ``Node(value, name)`` makes a leaf. Leaves with a name are the ones ``grad`` differentiates
    for; unnamed leaves are constants (data, labels). Ops on nodes make new, unnamed nodes.
    """

    __slots__ = ("value", "name", "op", "_inputs", "needs_grad", "_grad_fn", "_uuid")
    __array_ufunc__ = None  # `ndarray + Node` must call Node.__radd__, not broadcast over it
    NodeStore = {}  # {name: Node} of the named Nodes made in the 2019 mode (`compat_2019`)

    def __init__(self, value, name: str | None = None):
        self.value = value.value if isinstance(value, Node) else as_array(value)
        self.name = name
        self.op = "leaf"
        self._inputs = ()          # ((operand, gradient function), ...)
        self.needs_grad = name is not None
        if self.needs_grad and _state["compat_2019"]:
            Node.NodeStore[name] = self
        # _grad_fn, a 2019-style op's own backprop function, is set only by such ops (_OwnGrad)

    # -- construction ------------------------------------------------------------------
    @staticmethod
    def _result(value, op_name, *inputs) -> "Node":
        """A new node from `inputs` = (operand, local gradient function) pairs."""
        out = Node.__new__(Node)
        out.value, out.name, out.op = value, None, op_name
        live = ()  # only the operands that lead to a named leaf (a plain loop: this runs per op)
        if _state["grad_enabled"]:
            for operand, local in inputs:
                if operand.needs_grad:
                    live += ((operand, local),)
        out._inputs = live
        out.needs_grad = bool(live)
        return out

    def _lift(self, other) -> "Node":
        """Operand of a binary op as a Node; a number becomes a constant of our dtype, held as a
        NumPy scalar (for NumPy as good as a 0-d array, and many times faster on scalars)."""
        if isinstance(other, Node):
            return other
        if isinstance(other, numbers.Number):
            return Node._result(self.value.dtype.type(other), "leaf")
        return Node(other)

    # -- inspection --------------------------------------------------------------------
    shape = property(lambda self: self.value.shape)
    dtype = property(lambda self: self.value.dtype)
    ndim = property(lambda self: self.value.ndim)

    def __repr__(self):
        label = f"name={self.name!r}, " if self.name else ""
        return f"Node({label}op={self.op!r}, value={self.value!r})"

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def item(self) -> float:
        return self.value.item()

    __float__ = item

    def __call__(self):
        """The node itself, so that the 2019 library's method call ``x.T()`` means ``x.T``."""
        return self

    @property
    def uuid(self) -> uuid.UUID:
        """The 2019 library's unique id of a node (random, made when first read)."""
        if not hasattr(self, "_uuid"):
            self._uuid = uuid.uuid4()
        return self._uuid

    # -- the 2019 library's store of named nodes (filled in the 2019 mode) ------------------
    @staticmethod
    def get_param() -> dict:
        """``{name: array}``, copies of the values of the named Nodes in ``Node.NodeStore``."""
        return {name: node.value.copy() for name, node in Node._store("get_param").items()}

    @staticmethod
    def set_param(params: dict) -> None:
        """Replace the values of named Nodes in ``Node.NodeStore`` by name (a subset is fine)."""
        store = Node._store("set_param")
        for name, value in params.items():
            if name not in store:
                raise KeyError(f"Node.set_param: no Node named {name!r} was made in the 2019 "
                               f"mode; Node.NodeStore holds {sorted(store)}")
            store[name]._assign(value, f"Node.set_param: {name!r}")

    @staticmethod
    def _store(method) -> dict:
        if not _state["compat_2019"]:
            raise RuntimeError(f"Node.{method}() is the 2019 library's: it reads Node.NodeStore, "
                               f"which only the 2019 mode fills; call dp.compat_2019() before "
                               f"making the nodes (models have get_param and set_param of their own)")
        return Node.NodeStore

    def _assign(self, value, what) -> None:
        """Set this leaf's value to a copy of `value`, which must have its shape (in its dtype)."""
        value = as_array(value, dtype=self.dtype)
        if value.shape != self.shape:
            raise ShapeError(f"{what} has shape {self.shape}, got {value.shape}")
        self.value = value.copy()

    # -- reverse-mode differentiation ----------------------------------------------------
    def _topological_order(self) -> list:
        """Nodes that lead to named leaves, each before everything it was computed from.

        Depth first with an explicit stack of (node, its inputs still to visit); a node is
        appended to `order` once all its inputs are, so reversing `order` gives the answer.
        """
        order, seen, stack = [], {id(self)}, [(self, iter(self._inputs))]
        while stack:
            node, inputs = stack[-1]
            for operand, _ in inputs:
                if id(operand) not in seen:     # visit it first, then come back to `node`
                    seen.add(id(operand))
                    stack.append((operand, iter(operand._inputs)))
                    break
            else:                               # every input is in `order`
                stack.pop()
                order.append(node)
        return order[::-1]

    @_OwnGrad
    def grad(self, g=1) -> dict:
        """Backpropagate the upstream gradient `g` (1 for a scalar loss).

        Returns ``{name: d self / d leaf}`` for every named leaf this node depends on, each with
        its leaf's shape. Can be called any number of times; the graph is left unchanged.
        """
        g = np.asarray(g, dtype=self.value.dtype)
        if g.shape != self.value.shape:
            if g.size != 1 or self.value.size != 1:
                raise ShapeError(
                    f"grad: the output has shape {self.value.shape}; call grad(1) on a scalar "
                    f"(e.g. .sum()), or pass an upstream gradient of that shape, not {g.shape}")
            g = g.reshape(self.value.shape)
        grads, leaves, handed, found = {id(self): g}, {}, set(), {}
        summed = set()   # nodes whose gradient so far is a sum made here: no one else holds it
        anomaly = _state["anomaly"]
        # Backprop creates no reference cycles, so Python's cyclic garbage collector would find
        # nothing; but it scans the whole graph: on 10^6 nodes backprop took 1.6 times as long.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for node in self._topological_order():
                g = grads.pop(id(node))
                if not node._inputs:                # a leaf, or an op written the 2019 way
                    own = getattr(node, "_grad_fn", None)
                    if own is not None:             # its function returns the gradients of
                        _accumulate(found, own(g))  # the leaves that it reaches
                    elif node.name is not None:
                        other = leaves.setdefault(node.name, node)
                        if other is not node:
                            raise ValueError(f"grad: two different leaves are named {node.name!r}")
                        owned = isinstance(g, np.ndarray) and g.base is None and g.flags.writeable
                        if not owned or id(g) in handed:
                            g = np.array(g)  # every returned gradient is the caller's own array
                        grads[node.name] = g
                        handed.add(id(g))
                    continue
                for operand, local in node._inputs:
                    key = id(operand)
                    if key in grads and hasattr(local, "add_to") \
                            and g.dtype == grads[key].dtype == operand.value.dtype:
                        if key not in summed:           # a copy of our own to add into
                            grads[key] = np.array(grads[key])
                            summed.add(key)
                        if anomaly:
                            _check_finite(g, node, operand)
                        local.add_to(g, grads[key])     # (a getitem: g into its part alone)
                        continue
                    contribution = local(g)
                    if contribution.shape != operand.value.shape:   # broadcast: sum it back
                        contribution = _unbroadcast(contribution, operand.value.shape)
                    if anomaly:
                        _check_finite(contribution, node, operand)
                    if key not in grads:
                        grads[key] = contribution
                    elif key in summed and contribution.dtype == grads[key].dtype:
                        grads[key] += contribution      # in place, into our own sum
                    else:
                        grads[key] = grads[key] + contribution
                        summed.add(key)
        finally:
            if collecting:
                gc.enable()
        return _accumulate({name: grads[name] for name in leaves}, found)

    def _set_grad(self, g_self, other=None, g_other=None) -> dict:
        """How an op written the 2019 way passes the gradient on to its operands:
        ``Node._set_grad(a, g_a, b, g_b)`` backpropagates g_a from `a` and g_b from `b` and
        returns the gradients of the named leaves that they reach, summed by name. Each g is
        first summed over the axes that broadcasting added to its operand."""
        found = {}
        for node, g in ((self, g_self), (other, g_other)):
            if isinstance(node, Node):
                g = np.asarray(g, dtype=node.dtype)
                g = _unbroadcast(g, node.shape) if g.ndim >= node.ndim else g
                _accumulate(found, node.grad(np.broadcast_to(g, node.shape)))
        return found

    # -- arithmetic ------------------------------------------------------------------------
    @op("add")
    def __add__(self, other):
        """a + b.  d/da = 1, d/db = 1 (summed over broadcast axes)."""
        other = self._lift(other)
        return Node._result(self.value + other.value, "add", (self, lambda g: g), (other, lambda g: g))

    @op("sub")
    def __sub__(self, other):
        """a - b.  d/da = 1, d/db = -1."""
        other = self._lift(other)
        return Node._result(self.value - other.value, "sub", (self, lambda g: g), (other, lambda g: -g))

    @op("mul")
    def __mul__(self, other):
        """a * b (elementwise).  d/da = b, d/db = a."""
        other = self._lift(other)
        return Node._result(self.value * other.value, "mul",
                            (self, lambda g: g * other.value), (other, lambda g: g * self.value))

    @op("div")
    def __truediv__(self, other):
        """a / b.  d/da = 1/b, d/db = -a/b^2."""
        other = self._lift(other)
        out = self.value / other.value
        return Node._result(out, "div", (self, lambda g: g / other.value),
                            (other, lambda g: -g * out / other.value))

    @op("pow")
    def __pow__(self, other):
        """a ** b.  d/da = b a^(b-1), d/db = a^b log a (defined for a > 0)."""
        other = self._lift(other)
        out = self.value ** other.value
        return Node._result(out, "pow",
                            (self, lambda g: g * other.value * self.value ** (other.value - 1)),
                            (other, lambda g: g * out * np.log(self.value)))

    def __radd__(self, other): return self._lift(other) + self
    def __rsub__(self, other): return self._lift(other) - self
    def __rmul__(self, other): return self._lift(other) * self
    def __rtruediv__(self, other): return self._lift(other) / self
    def __rpow__(self, other): return self._lift(other) ** self

    def __neg__(self):
        """-a.  d/da = -1."""
        return Node._result(-self.value, "neg", (self, lambda g: -g))

    @op("dot")
    def dot(self, other):
        """Matrix product a @ b, shapes (..., m, k) @ (..., k, n) -> (..., m, n).

        d/da = g @ b^T, d/db = a^T @ g. A 1-d operand is a row (left) or a column (right); the
        product drops that axis. In the 2019 mode (`compat_2019`) a 1-d operand is a column,
        either side, and the product keeps its axes.
        """
        other = self._lift(other)
        if _state["compat_2019"] and 1 in (self.ndim, other.ndim):
            return _column(self).dot(_column(other))
        a, b = self.value, other.value
        b_vector = b.ndim == 1
        if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
            raise ShapeError(f"dot: {a.shape} @ {b.shape}: the inner dimensions differ")
        stacked = a.ndim > 2 and b.ndim <= 2  # a stack of matrices times one matrix: one product
        a2 = a.reshape(-1, a.shape[-1]) if stacked else a if a.ndim > 1 else a[None, :]
        b2 = b if b.ndim > 1 else b[:, None]
        out2 = a2 @ b2                    # (and d/db = a2^T g sums over the stack in it)

        def to_a(g):
            ga = g.reshape(out2.shape) @ b2.swapaxes(-1, -2)
            return ga[..., 0, :] if a.ndim == 1 else ga.reshape(a.shape) if stacked else ga

        def to_b(g):
            gb = a2.swapaxes(-1, -2) @ g.reshape(out2.shape)
            return gb[..., 0] if b.ndim == 1 else gb
        value = out2.reshape(a.shape[:-1] + out2.shape[-1:]) if stacked else out2
        if b_vector:                      # without the axes added for 1-d operands:
            value = value[..., 0]         # (..., m, 1) -> (..., m)
        if a.ndim == 1:
            value = value[..., 0] if b_vector else value[..., 0, :]
        return Node._result(value, "dot", (self, to_a), (other, to_b))

    __matmul__ = dot

    def __rmatmul__(self, other):
        return self._lift(other).dot(self)

    @op("transpose")
    def transpose(self, *axes):
        """Permute axes (reverse them by default).  The gradient is permuted back."""
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = tuple(a % self.value.ndim for a in axes) or tuple(reversed(range(self.value.ndim)))
        return Node._result(self.value.transpose(axes), "transpose",
                            (self, lambda g: g.transpose(np.argsort(axes))))

    T = property(lambda self: self.transpose())  # x.T() works too (Node.__call__), as in 2019

    # -- elementwise functions: f(a), d/da = f'(a) -------------------------------------------
    def _elementwise(self, name, value, derivative):
        return Node._result(value, name, (self, lambda g: g * derivative()))

    def exp(self):
        """e^a.  d/da = e^a."""
        out = np.exp(self.value)
        return self._elementwise("exp", out, lambda: out)

    def log(self):
        """ln a.  d/da = 1/a."""
        return self._elementwise("log", np.log(self.value), lambda: 1 / self.value)

    def sqrt(self):
        """sqrt(a).  d/da = 1 / (2 sqrt(a))."""
        out = np.sqrt(self.value)
        return self._elementwise("sqrt", out, lambda: 0.5 / out)

    def square(self):
        """a^2.  d/da = 2a."""
        return self._elementwise("square", np.square(self.value), lambda: 2 * self.value)

    def abs(self):
        """|a|.  d/da = sign(a) (0 at 0)."""
        return self._elementwise("abs", np.abs(self.value), lambda: np.sign(self.value))

    def sin(self):
        """sin a.  d/da = cos a."""
        return self._elementwise("sin", np.sin(self.value), lambda: np.cos(self.value))

    def cos(self):
        """cos a.  d/da = -sin a."""
        return self._elementwise("cos", np.cos(self.value), lambda: -np.sin(self.value))

    def tanh(self):
        """tanh a.  d/da = 1 - tanh^2 a."""
        out = np.tanh(self.value)
        return self._elementwise("tanh", out, lambda: 1 - out * out)

    def sigmoid(self):
        """sigma(a) = 1 / (1 + e^-a), computed as e^min(a, 0) / (1 + e^-|a|) (for a < 0 that is
        e^a / (1 + e^a)): it neither overflows nor loses digits in the tail, where
        (1 + tanh(a/2)) / 2 kept 4 of them at a = -27, and is 40 times faster than
        e^-log(1 + e^-a) by np.logaddexp.  d/da = sigma(a) (1 - sigma(a))."""
        out = np.exp(np.minimum(self.value, 0)) / (1 + np.exp(-np.abs(self.value)))
        return self._elementwise("sigmoid", out, lambda: out * (1 - out))

    def relu(self):
        """max(a, 0).  d/da = 1 where a > 0, else 0."""
        return self._elementwise("relu", np.maximum(self.value, 0), lambda: self.value > 0)

    def leaky_relu(self, slope=0.01):
        """a where a > 0, else slope * a.  d/da = 1 or slope."""
        positive = self.value > 0
        return self._elementwise("leaky_relu", np.where(positive, self.value, slope * self.value),
                                 lambda: np.where(positive, 1.0, slope).astype(self.value.dtype))

    # -- along the last axis ----------------------------------------------------------------
    def softmax(self, axis=-1):
        """s_i = e^(a_i - max a) / sum_j e^(a_j - max a).  d/da = s * (g - sum(g * s))."""
        shifted = np.exp(self.value - self.value.max(axis=axis, keepdims=True))
        s = shifted / shifted.sum(axis=axis, keepdims=True)
        return Node._result(s, "softmax",
                            (self, lambda g: s * (g - (g * s).sum(axis=axis, keepdims=True))))

    def log_softmax(self, axis=-1):
        """a_i - logsumexp(a).  d/da = g - softmax(a) * sum(g)."""
        shifted = self.value - self.value.max(axis=axis, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        return Node._result(out, "log_softmax",
                            (self, lambda g: g - np.exp(out) * g.sum(axis=axis, keepdims=True)))

    # -- reductions (an axis given is kept, with length 1) ---------------------------------------
    @op("sum")
    def sum(self, axis=None):
        """Sum of all elements, or along `axis` (kept).  d/da = g broadcast back to a's shape
        (a read-only view: no copy). The sum of all is 0-d ((1, 1) in the 2019 mode)."""
        out = self.value.sum(axis=axis, keepdims=axis is not None or _state["compat_2019"])
        return Node._result(out, "sum", (self, lambda g: np.broadcast_to(g, self.value.shape)))

    def mean(self, axis=None):
        """Mean of all elements, or along `axis` (kept).  d/da = g / n."""
        total = self.sum(axis)
        count = self.value.size // max(total.value.size, 1)
        return total * (1.0 / count)

    @op("max")
    def max(self, axis=None):
        """Maximum, or along `axis` (kept).  d/da = g where a is the maximum, shared among ties."""
        kept = self.value.max(axis=axis, keepdims=True)
        out = kept if axis is not None or _state["compat_2019"] else kept.reshape(())
        is_max = self.value == kept
        share = (is_max / is_max.sum(axis=axis, keepdims=True)).astype(self.value.dtype)
        return Node._result(out, "max", (self, lambda g: g.reshape(kept.shape) * share))

    # -- shape ------------------------------------------------------------------------------------
    @op("reshape")
    def reshape(self, *shape):
        """The same elements in a new shape.  The gradient is reshaped back."""
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return Node._result(self.value.reshape(shape), "reshape",
                            (self, lambda g: g.reshape(self.value.shape)))

    def concatenate(self, other, axis=0):
        """This node and `other` joined along `axis`: the 2019 method for `dp.concatenate`."""
        return concatenate([self, other], axis)

    @op("getitem")
    def __getitem__(self, index):
        """x[index] (slices, integers, arrays).  The gradient is scattered back (repeats add up;
        an index of slices and integers alone has none, and is written in place, many times faster)."""
        index = index.value.astype(np.intp) if isinstance(index, Node) else index
        basic = all(isinstance(i, (slice, int, type(...), type(None)))
                    for i in (index if isinstance(index, tuple) else (index,)))

        def add_to(g, full):
            """g added into `full` (a gradient of x's shape that backprop holds) in place."""
            if basic:
                full[index] += g
            else:
                np.add.at(full, index, g)
            return full

        def scatter(g):
            full = np.zeros_like(self.value)
            if basic:
                full[index] = g
                return full
            return add_to(g, full)
        scatter.add_to = add_to
        return Node._result(self.value[index], "getitem", (self, scatter))

    # -- convolution and pooling along the last axis ------------------------------------------------
    @op("conv1d")
    def conv1d(self, kernel):
        """1-d cross-correlation, 'valid': y[..., i] = sum_j x[..., i + j] k[j], k of length K.

        d/dk[j] = sum_i g[..., i] x[..., i + j]   (same orientation as k: not reversed)
        d/dx[..., i + j] += g[..., i] k[j]          (a 'full' convolution of g with k)
        """
        kernel = self._lift(kernel)
        x, k = self.value, kernel.value
        if k.ndim == 2 and k.shape[0] == 1:   # a (1, K) row, as a library of matrices writes it
            k = k[0]
        if k.ndim != 1 or x.ndim == 0 or k.shape[0] > x.shape[-1]:
            raise ShapeError(f"conv1d: input {x.shape} with kernel {kernel.shape}: the kernel must "
                             f"be 1-d (or a (1, K) row) and no longer than the last axis")
        windows = np.lib.stride_tricks.sliding_window_view(x, k.shape[0], axis=-1)

        def to_input(g):
            gx = np.zeros(np.broadcast_shapes(x.shape, g.shape[:-1] + x.shape[-1:]), g.dtype)
            for j, kj in enumerate(k):
                gx[..., j:j + g.shape[-1]] += g * kj
            return gx
        return Node._result(windows @ k, "conv1d", (self, to_input),
                            (kernel, lambda g: np.tensordot(g, windows, axes=g.ndim)
                                     .reshape(kernel.shape)))

    @op("maxpool1d")
    def maxpool1d(self, size):
        """Max over non-overlapping windows of `size` along the last axis (a tail that does not
        fill a window is dropped).  d/dx = g at the first maximum of each window, else 0."""
        x = self.value
        count = x.shape[-1] // size if size >= 1 else 0
        if count == 0:
            raise ShapeError(f"maxpool1d: window {size} is longer than the last axis of {x.shape}")
        windows = x[..., :count * size].reshape(x.shape[:-1] + (count, size))
        winner = windows.argmax(axis=-1)[..., None]

        def to_input(g):
            gw = np.zeros_like(windows)
            np.put_along_axis(gw, winner, g[..., None], axis=-1)
            gx = np.zeros_like(x)
            gx[..., :count * size] = gw.reshape(x.shape[:-1] + (count * size,))
            return gx
        return Node._result(np.take_along_axis(windows, winner, -1)[..., 0], "maxpool1d",
                            (self, to_input))


# -- functions of several nodes ----------------------------------------------------------------
def custom_op(name: str, value, *inputs) -> Node:
    """An op of your own: a new Node holding `value`, computed by the op `name` from `inputs`,
    pairs ``(operand Node, backward)`` where ``backward(g)`` returns d loss / d operand for the
    upstream gradient g = d loss / d (the new node), an array of value's shape. Every op of dp
    is made this way; for example a * b is
    ``custom_op("mul", a.value * b.value, (a, lambda g: g * b.value), (b, lambda g: g * a.value))``.
    """
    for pair in inputs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], Node)
                and callable(pair[1])):
            raise TypeError(f"custom_op {name!r}: each input must be a pair (operand Node, "
                            f"backward function), not {pair!r:.80}")
    return Node._result(as_array(value), name, *inputs)


def _nodes(values):
    return [v if isinstance(v, Node) else Node(v) for v in values]


def _column(node: Node) -> Node:
    """A 1-d node as a (k, 1) column (the 2019 library's 1-d operand of dot); others as they are."""
    return node.reshape(-1, 1) if node.ndim == 1 else node


@op("concatenate")
def concatenate(nodes, axis=0) -> Node:
    """Join nodes along `axis`.  Each operand gets its slice of the gradient."""
    nodes = _nodes(nodes)
    value = np.concatenate([n.value for n in nodes], axis=axis)
    ends = np.cumsum([n.value.shape[axis] for n in nodes])
    before = (slice(None),) * (axis % value.ndim)
    return Node._result(value, "concatenate", *(
        (n, lambda g, part=slice(end - n.value.shape[axis], end): g[before + (part,)])
        for n, end in zip(nodes, ends)))


def _select(name, pick, a, b) -> Node:
    a, b = (a, b) if isinstance(a, Node) else (b._lift(a) if isinstance(b, Node) else Node(a), b)
    b = a._lift(b)
    out = pick(a.value, b.value)
    take_a = np.where(a.value == b.value, 0.5, a.value == out).astype(out.dtype)
    return Node._result(out, name, (a, lambda g: g * take_a), (b, lambda g: g * (1 - take_a)))


@op("maximum")
def maximum(a, b) -> Node:
    """Elementwise max(a, b).  The gradient goes to the larger operand (half each on ties)."""
    return _select("maximum", np.maximum, a, b)


@op("minimum")
def minimum(a, b) -> Node:
    """Elementwise min(a, b).  The gradient goes to the smaller operand (half each on ties)."""
    return _select("minimum", np.minimum, a, b)
