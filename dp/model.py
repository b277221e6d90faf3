"""Layers and the `Model` base class: the high-level part of the paper's library.

A layer holds named parameter Nodes and maps a Node to a Node. A `Model` is any class that
keeps its layers as attributes and defines ``forward(x)`` and ``loss(x, y)``; it then offers
``get_grad``, ``get_param`` and ``set_param``, which the optimizers use.
"""
from __future__ import annotations

import itertools

import numpy as np

from . import init as initialisers
from .node import Node, ShapeError, _state

ACTIVATIONS = {
    None: lambda x: x, "linear": lambda x: x, "relu": Node.relu, "sigmoid": Node.sigmoid,
    "tanh": Node.tanh, "leaky_relu": Node.leaky_relu, "softmax": Node.softmax,
}


def _node(x):
    return x if isinstance(x, Node) else Node(x)


class Parameters(dict):
    """``{parameter name: value}``. The 2019 library named a layer's parameters ``<layer>_weight``
    and ``<layer>_bias``; looking up those names finds ``<layer>_W`` and ``<layer>_b``."""

    ALIASES = {"_weight": "_W", "_bias": "_b"}   # 2019 suffix -> dp's

    def key(self, name):
        """The name under which `name` is stored: itself, or its dp spelling."""
        if isinstance(name, str) and not dict.__contains__(self, name):
            for old, new in self.ALIASES.items():
                if name.endswith(old) and dict.__contains__(self, name[:-len(old)] + new):
                    return name[:-len(old)] + new
        return name

    def __missing__(self, name):
        own = self.key(name)
        if own == name:
            raise KeyError(name)
        return dict.__getitem__(self, own)

    def __contains__(self, name):
        return dict.__contains__(self, self.key(name))

    def get(self, name, default=None):
        return dict.get(self, self.key(name), default)


class Layer:
    """Base class: parameters by name, a training flag, and ``layer(x)`` calling ``forward``."""

    training = True

    def parameters(self) -> dict:
        return {node.name: node for node in vars(self).values() if isinstance(node, Node)}

    def __call__(self, x) -> Node:
        return self.forward(_node(x))


def _layer_name(layer: Layer, place: int) -> str:
    names = [node.name for node in layer.parameters().values()]
    return names[0].rsplit("_", 1)[0] if names else f"{type(layer).__name__.lower()}{place}"


class Dense(Layer):
    """h = act(x @ W + b), with W of shape (n_in, n_out) named ``<name>_W`` and the bias b of
    shape (1, n_out) named ``<name>_b`` (zeros). Default initialisation: He for ReLU, else Xavier.
    Without a name, a layer gets one of its own: dense1, dense2, ... (`NeuralNode` in 2019).
    """

    _unnamed = itertools.count(1)

    def __init__(self, n_in, n_out, name=None, activation=None, init=None, dtype=np.float64):
        name = name or f"dense{next(Dense._unnamed)}"
        if activation not in ACTIVATIONS:
            raise ValueError(f"Dense {name!r}: unknown activation {activation!r}; "
                             f"choose one of {[a for a in ACTIVATIONS if a]}")
        init = initialisers.get(init or ("he_normal" if activation == "relu" else "xavier_uniform"))
        self.activation = activation
        self.W = Node(init(n_in, n_out, dtype), f"{name}_W")
        self.b = Node(np.zeros((1, n_out), dtype), f"{name}_b")

    def forward(self, x):
        if x.shape[-1] != self.W.shape[0]:
            raise ShapeError(f"layer {self.W.name[:-2]!r}: input has {x.shape[-1]} features "
                             f"(shape {x.shape}), the layer expects {self.W.shape[0]}")
        return ACTIVATIONS[self.activation](x.dot(self.W) + self.b)


class Dropout(Layer):
    """Inverted dropout: in training, each unit is kept with probability 1 - p and scaled by
    1 / (1 - p), so E[output] = input; in evaluation it is the identity."""

    def __init__(self, p=0.5):
        if not 0 <= p < 1:
            raise ValueError(f"Dropout: p must be in [0, 1), not {p}")
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = initialisers.generator().random(x.shape) >= self.p
        return x * (keep / (1 - self.p)).astype(x.dtype)


class BatchNorm(Layer):
    """Batch normalisation over the examples (axis 0), with learned scale and shift:

        y = gamma * (x - mu) / sqrt(var + eps) + beta

    Training uses the batch's mean and (biased) variance and updates the running statistics,
    r <- momentum * r + (1 - momentum) * batch statistic; evaluation uses the running ones.
    """

    def __init__(self, n, name, momentum=0.9, eps=1e-5, dtype=np.float64):
        self.gamma = Node(np.ones((1, n), dtype), f"{name}_gamma")
        self.beta = Node(np.zeros((1, n), dtype), f"{name}_beta")
        self.running_mean = np.zeros((1, n), dtype)
        self.running_var = np.ones((1, n), dtype)
        self.momentum, self.eps = momentum, eps

    def forward(self, x):
        if self.training:
            mean = x.mean(axis=0)
            centered = x - mean
            var = centered.square().mean(axis=0)
            m = self.momentum
            self.running_mean = m * self.running_mean + (1 - m) * mean.value
            self.running_var = m * self.running_var + (1 - m) * var.value
            normal = centered / (var + self.eps).sqrt()
        else:
            normal = (x - self.running_mean) / np.sqrt(self.running_var + self.eps)
        return normal * self.gamma + self.beta


class Model:
    """Base class of a network: subclass it, create layers in ``__init__``, and define
    ``forward(x)`` and ``loss(x, y)``. Parameters are found in the attributes (layers, lists of
    layers, sub-models and named Nodes), in the order they were assigned."""

    def __init__(self, dtype=np.float64):
        self.dtype = np.dtype(dtype)
        self.training = True

    # -- layers, as methods (the paper's spelling) --------------------------------------------
    def Linear_Layer(self, n_in, n_out, name=None, init=None, dtype=None):
        """h = x @ W + b."""
        return self._dense(n_in, n_out, name, None, init, dtype)

    def ReLU_Layer(self, n_in, n_out, name=None, init=None, dtype=None):
        """h = relu(x @ W + b)."""
        return self._dense(n_in, n_out, name, "relu", init, dtype)

    def Sigmoid_Layer(self, n_in, n_out, name=None, init=None, dtype=None):
        """h = sigmoid(x @ W + b)."""
        return self._dense(n_in, n_out, name, "sigmoid", init, dtype)

    def Tanh_Layer(self, n_in, n_out, name=None, init=None, dtype=None):
        """h = tanh(x @ W + b)."""
        return self._dense(n_in, n_out, name, "tanh", init, dtype)

    def _dense(self, n_in, n_out, name, activation, init, dtype):
        """A Dense layer of this model. Without a name, the model's unnamed layers are called
        layer1, layer2, ... in the order they are made, so two instances name them alike."""
        if name is None:
            self._unnamed_layers = getattr(self, "_unnamed_layers", 0) + 1
            name = f"layer{self._unnamed_layers}"
        return Dense(n_in, n_out, name, activation, init, dtype or self._dtype())

    def Dropout_Layer(self, p=0.5):
        return Dropout(p)

    def BatchNorm_Layer(self, n, name, momentum=0.9, eps=1e-5, dtype=None):
        return BatchNorm(n, name, momentum, eps, dtype or self._dtype())

    ReLu_Layer = ReLU_Layer  # the 2019 library's spelling

    def _dtype(self):
        return getattr(self, "dtype", np.dtype(np.float64))

    # -- to be defined by the subclass -------------------------------------------------------
    def forward(self, x) -> Node:
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, x)")

    def loss(self, x, y) -> Node:
        raise NotImplementedError(f"{type(self).__name__} must define loss(self, x, y)")

    def __call__(self, x) -> Node:
        return self.forward(x)

    # -- parameters ----------------------------------------------------------------------------
    def layers(self) -> list:
        """Every layer reachable from the attributes, in order (sub-models included)."""
        return Model._find_layers(self)

    def _find_layers(self) -> list:
        # Not self.layers(): a subclass may well name an attribute `layers`.
        found, todo = [], list(vars(self).values())[::-1]
        while todo:
            item = todo.pop()
            if isinstance(item, Layer):
                found.append(item)
            elif isinstance(item, Model):
                todo.extend(list(vars(item).values())[::-1])
            elif isinstance(item, (list, tuple)):
                todo.extend(reversed(item))
            elif isinstance(item, dict):
                todo.extend(reversed(item.values()))
        return found

    @property
    def neural_nodes(self) -> dict:
        """The 2019 library's ``{layer name: layer}`` of the layers (see layers): iterating or
        ``sorted()`` give the names. A layer's name is its parameters' prefix (``h1`` of
        ``h1_W``); a layer without parameters is named by its class and place (``dropout3``)."""
        return {_layer_name(layer, place): layer
                for place, layer in enumerate(Model._find_layers(self), 1)}

    def parameters(self) -> dict:
        """``{name: Node}`` of every trainable parameter: layers' and named Node attributes."""
        params = Parameters()
        sources = [layer.parameters() for layer in Model._find_layers(self)]
        sources.append({n.name: n for n in vars(self).values() if isinstance(n, Node) and n.name})
        for source in sources:
            for name, node in source.items():
                if params.setdefault(name, node) is not node:
                    raise ValueError(f"two parameters are named {name!r}; give each layer its own name")
        return params

    def get_param(self) -> dict:
        """``{name: array}``, copies of the current parameter values."""
        return Parameters({name: node.value.copy() for name, node in self.parameters().items()})

    def set_param(self, params: dict) -> None:
        """Replace parameter values by name (a subset is fine); the next forward pass uses them.
        The 2019 names (``<layer>_weight``, ``<layer>_bias``) are understood."""
        own = self.parameters()
        for name, value in params.items():
            if name not in own:
                raise KeyError(f"set_param: the model has no parameter {name!r}; it has {sorted(own)}")
            own[name]._assign(value, f"set_param: {name!r}")

    def get_grad(self, x, y):
        """``(grads, loss)``: d loss / d parameter for every parameter, and the loss as a float
        (as the Node itself in the 2019 mode, `dp.compat_2019`)."""
        loss = self.loss(x, y)
        if not isinstance(loss, Node) or loss.value.size != 1:
            raise ValueError(f"get_grad: loss(x, y) must return a scalar Node, got {loss!r:.80}")
        grads = loss.grad(1)
        return (Parameters({name: grads[name] if name in grads else np.zeros_like(node.value)
                            for name, node in self.parameters().items()}),
                loss if _state["compat_2019"] else loss.item())

    # -- modes ---------------------------------------------------------------------------------
    def train(self, mode=True):
        """Training mode (dropout active, batch statistics); ``train(False)`` is ``eval()``."""
        self.training = mode
        for layer in Model._find_layers(self):
            layer.training = mode
        return self

    def eval(self):
        """Evaluation mode: dropout off, running statistics in batch norm."""
        return self.train(False)


NeuralNode = Dense  # the 2019 library's name of a layer
