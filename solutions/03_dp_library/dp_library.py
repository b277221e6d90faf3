# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 — A DP library
#
# Notebooks 01 and 02 built the low-level part of an autodiff library: nodes that remember how
# they were computed, and backprop through them. Here you add what makes it a **library** in
# the sense of the DP paper (Herta et al., 2019), whose API you will use for the rest of the
# course:
#
# ```python
# a = Node(np.array([[1, 1, 1], [2, 2, 2]]), "A")      # named leaves: the parameters
# b = Node(np.array([[1, 2, 3]]), "B")
# e = (a * b).exp().sum()
# grads = e.grad(1)                                     # {'A': ..., 'B': ...}
#
# class Network(Model):                                 # a model: layers, forward, loss
#     def __init__(self):
#         super().__init__()
#         self.h1 = self.ReLU_Layer(784, 500, "h1")
#         ...
# grad, loss = net.get_grad(x, y)                       # a training loop on top
# param = net.get_param(); net.set_param(new_param)
# ```
#
# | task | you write | points |
# |---|---|---|
# | `named_leaves` | `Node.grad(g)`: the gradient of every named leaf, as a dict | 4 |
# | `model_layers` | `Layer`: named parameters drawn at random, and its forward pass | 2 |
# | `training_loop` | `train(net, x, y)`: gradient descent that fits a toy regression problem | 4 |
#
# Two questions ask you to explain or derive, in a few sentences each, in the cell under each
# question; they are graded by hand (4 points), not by `check`.
#
# The three parts are graded apart. The grader checks your `Layer` without calling `grad`, and
# your `train` with a model of its own, so that a mistake in one part costs only that part's
# points. `dp` and other autodiff libraries cannot be imported here.

# %%
import matplotlib.pyplot as plt
import numpy as np

from autograder import check

# %% [markdown]
# ## The node (given)
#
# `Node` is notebook 02's `Tensor` with all of its operations, plus a few more that networks
# need (`-`, `mean`, `square`, `relu`, `tanh`). Each operation still pairs its value with the
# backward functions of its inputs: `parents = ((input, grad_fn), ...)`, where `grad_fn(G)`
# maps $G = \partial L / \partial\,\mathrm{out}$ to this operation's share of
# $\partial L / \partial\,\mathrm{input}$, already summed back to the input's shape. What is
# new is the `name`. A leaf with a name is a **parameter**, whose gradient we want. A leaf
# without one is a constant, such as data or labels.
#
# `topological_order(output)` is notebook 01's depth-first search on an explicit stack. It
# lists the nodes so that each one comes before all the nodes it was computed from: the
# order in which backprop visits them.

# %%
class Node:
    """A matrix in a computational graph.

    value    a 2-D float64 array (numbers become 1x1 and vectors rows)
    name     a leaf's name: the leaves with a name are the ones `grad` differentiates for
    parents  ((input Node, grad_fn), ...), grad_fn(G) = this op's share of dL/d(input); ()
             for a leaf
    op       the operation that made the node ("leaf" for inputs)
    """

    def __init__(self, value, name: str | None = None, parents: tuple = (), op: str = "leaf"):
        value = np.array(value, dtype=float)
        if value.ndim > 2:
            raise ValueError(f"Node: values are matrices, not arrays of shape {value.shape}")
        self.value = value.reshape((1,) * (2 - value.ndim) + value.shape)
        self.name, self.parents, self.op = name, tuple(parents), op

    shape = property(lambda self: self.value.shape)

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        return f"Node({label}op={self.op!r}, shape={self.shape})\n{self.value}"

    # elementwise, broadcasting: d/da and d/db as for full shapes, then summed back
    def _broadcasting(self, other, op, value, d_self, d_other) -> "Node":
        return Node(value, op=op, parents=((self, lambda g: unbroadcast(d_self(g), self.shape)),
                                           (other, lambda g: unbroadcast(d_other(g), other.shape))))

    def __add__(self, other):
        other = as_node(other)
        return self._broadcasting(other, "add", self.value + other.value, lambda g: g, lambda g: g)

    def __sub__(self, other):
        other = as_node(other)
        return self._broadcasting(other, "sub", self.value - other.value, lambda g: g, lambda g: -g)

    def __mul__(self, other):
        other = as_node(other)
        return self._broadcasting(other, "mul", self.value * other.value,
                                  lambda g: g * other.value, lambda g: g * self.value)

    __radd__, __rmul__ = __add__, __mul__

    def __rsub__(self, other):
        return as_node(other) - self

    def __neg__(self):
        return self * -1.0

    def dot(self, other):
        """(m, n) @ (n, p).   dL/da = G b^T,  dL/db = a^T G"""
        other = as_node(other)
        a, b = self.value, other.value
        return Node(a @ b, op="dot",
                    parents=((self, lambda g: g @ b.T), (other, lambda g: a.T @ g)))

    __matmul__ = dot
    T = property(lambda self: Node(self.value.T, op="transpose", parents=((self, lambda g: g.T),)))

    def sum(self, axis=None):
        """All entries (1x1), or along `axis`, kept.   dL/da = G broadcast back"""
        return Node(self.value.sum(axis=axis, keepdims=True), op="sum",
                    parents=((self, lambda g: np.broadcast_to(g, self.shape)),))

    def mean(self, axis=None):
        summed = self.sum(axis)
        return summed * (summed.value.size / self.value.size)

    # elementwise functions: dL/da = G * f'(a)
    def _elementwise(self, op, value, derivative) -> "Node":
        return Node(value, op=op, parents=((self, lambda g: g * derivative),))

    def exp(self):
        value = np.exp(self.value)
        return self._elementwise("exp", value, value)

    def log(self):
        return self._elementwise("log", np.log(self.value), 1 / self.value)

    def square(self):
        return self._elementwise("square", self.value ** 2, 2 * self.value)

    def relu(self):
        return self._elementwise("relu", np.maximum(self.value, 0), self.value > 0)

    def tanh(self):
        value = np.tanh(self.value)
        return self._elementwise("tanh", value, 1 - value ** 2)

    def softmax(self):
        """Along each row, stable.   dL/da = s * (G - sum_k G_k s_k)"""
        exps = np.exp(self.value - self.value.max(axis=1, keepdims=True))
        s = exps / exps.sum(axis=1, keepdims=True)
        return Node(s, op="softmax",
                    parents=((self, lambda g: s * (g - (g * s).sum(axis=1, keepdims=True))),))


def as_node(x) -> Node:
    """`x` itself if it is a Node, else a new (unnamed, constant) leaf holding it."""
    return x if isinstance(x, Node) else Node(x)


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum grad over the axes along which an operand of `shape` was broadcast (notebook 02)."""
    return grad.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1),
                    keepdims=True)


def topological_order(output: Node) -> list:
    """Every node that `output` was computed from, `output` first, and each node before all
    the nodes it was computed from (notebook 01, without recursion)."""
    order, visited, stack = [], set(), [(output, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
        elif id(node) not in visited:
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent, _ in node.parents)
    return order[::-1]


# %% [markdown]
# ## Part 1: named leaves and `grad(1)`
#
# In notebooks 01 and 02, `backward()` left a `grad` on every node, and you had to know which
# nodes to read. The paper's library returns what a training loop needs instead: a dictionary
# with the gradient of the output with respect to **every named leaf**.
#
# `out.grad(g)` starts from $g = \partial L / \partial\,\mathrm{out}$. For a loss, `out` *is*
# $L$ and $g = 1$, hence `grad(1)`. In general $g$ may be a matrix of the output's shape.
# Then, in `topological_order(out)`, every node passes `grad_fn(its gradient)` to each of its
# parents. A node must receive **all** its shares before it passes its own gradient on, and
# a node that is used several times adds up its shares. Notebook 01 showed why both matter.
# Keep the gradients that arrive in a dictionary keyed by `id(node)`, not in an attribute
# of the nodes. Then `grad` does not change the graph and can be called twice.
#
# Finally, collect the gradient of each leaf (a node without parents) that has a name, under
# that name. Unnamed leaves are constants: they get no entry.

# %%
def grad(self: Node, g=1.0) -> dict:
    """{name: dL/d(leaf)} for every named leaf that `self` was computed from.

    g is dL/d(self): a number (1 when self is the loss L) or an array of self's shape.
    Each gradient has the shape of its leaf.
    """
    ### BEGIN SOLUTION
    grads = {id(self): np.ones(self.shape) * g}    # what has arrived at each node so far
    named = {}
    for node in topological_order(self):
        g_node = grads.pop(id(node))
        if node.name is not None and not node.parents:
            named[node.name] = g_node
        for parent, grad_fn in node.parents:
            grads[id(parent)] = grads.get(id(parent), 0) + grad_fn(g_node)
    return named
    ### END SOLUTION


Node.grad = grad

# %% [markdown]
# The paper's example. It prints $\partial e / \partial A$ =
# `[[2.7, 14.78, 60.26], [7.39, 109.20, 1210.29]]` and $\partial e / \partial B$ =
# `[[17.50, 116.59, 826.94]]`. B is used in every row of A: its gradient is summed over them.

# %%
a = Node(np.array([[1, 1, 1], [2, 2, 2]]), "A")
b = Node(np.array([[1, 2, 3]]), "B")
e = (a * b).exp().sum()
grads = e.grad(1)
print({name: value.round(2) for name, value in grads.items()})

# %%
check("named_leaves")

# %% [markdown]
# ## Part 2: layers and the `Model` class
#
# A fully connected layer maps a batch $X$ of shape $(n, n_\text{in})$, one example per row,
# to $H = \mathrm{act}(X W + b)$. The weights $W$ have shape $(n_\text{in}, n_\text{out})$,
# and the bias $b$ is a row $(1, n_\text{out})$, broadcast over the $n$ examples. Both are
# named leaves. Following the library, a layer called `"h1"` names them **`"h1_W"`** and
# **`"h1_b"`**. The grader sets and reads the parameters by these names.
#
# **Initialisation.** Draw $W$ at random (question 1 at the end asks why not all equal):
# $W_{ij} \sim \mathcal{N}(0, 2 / n_\text{in})$ for a ReLU layer (He initialisation) and
# $\mathcal{N}(0, 1 / n_\text{in})$ for a linear one. Notebook 05 explains these variances.
# The bias starts at zero. Use the generator `init_rng` below.
#
# Write `Layer`: its `__init__` creates the two named leaves, its `__call__` is the forward
# pass. `Model` (the paper's base class) is **given**, under your `Layer`. It is plumbing that
# a training loop needs, and it teaches nothing new: the subclass creates its layers with the
# **layer factories** `self.Linear_Layer(n_in, n_out, name)` and
# `self.ReLU_Layer(n_in, n_out, name)` and defines `forward(x)` and `loss(x, y)`; the base class
# finds the W and b of every layer attribute (`parameters()`), hands out **copies** of their
# values (`get_param()`, so that a caller's `param[name] -= ...` does not change the model
# behind its back), writes new values into the nodes the layers hold (`set_param`, so that the
# next forward pass uses them), and returns `(grads, loss)` for the loss's `grad(1)`
# (`get_grad(x, y)`: your Part 1 at work). Read it before Part 3, which uses three of them.

# %%
init_rng = np.random.default_rng(0)


class Layer:
    """A fully connected layer h = act(x W + b), act = relu or the identity."""

    def __init__(self, n_in: int, n_out: int, name: str, activation: str | None = None):
        """W (n_in, n_out) named f"{name}_W", drawn from N(0, 2/n_in) for activation "relu",
        else from N(0, 1/n_in); b (1, n_out) named f"{name}_b", zeros."""
        ### BEGIN SOLUTION
        variance = (2.0 if activation == "relu" else 1.0) / n_in
        self.W = Node(init_rng.normal(0.0, np.sqrt(variance), (n_in, n_out)), f"{name}_W")
        self.b = Node(np.zeros((1, n_out)), f"{name}_b")
        self.activation = activation
        ### END SOLUTION

    def __call__(self, x: Node) -> Node:
        """act(x W + b) for x of shape (n, n_in): a Node of shape (n, n_out)."""
        ### BEGIN SOLUTION
        h = x.dot(self.W) + self.b
        return h.relu() if self.activation == "relu" else h
        ### END SOLUTION


class Model:
    """Base class of a network (given): subclass it, create the layers in __init__ with the
    layer factories, and define forward(x) and loss(x, y)."""

    def __init__(self):
        pass   # subclasses call super().__init__(), as in the paper

    def forward(self, x) -> Node:
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, x)")

    def loss(self, x, y) -> Node:
        raise NotImplementedError(f"{type(self).__name__} must define loss(self, x, y)")

    def Linear_Layer(self, n_in: int, n_out: int, name: str) -> Layer:
        """A layer h = x W + b."""
        return Layer(n_in, n_out, name)

    def ReLU_Layer(self, n_in: int, n_out: int, name: str) -> Layer:
        """A layer h = relu(x W + b)."""
        return Layer(n_in, n_out, name, "relu")

    def parameters(self) -> dict:
        """{name: Node}: the W and b of every Layer attribute, in the order of the attributes."""
        return {node.name: node for layer in vars(self).values() if isinstance(layer, Layer)
                for node in (layer.W, layer.b)}

    def get_param(self) -> dict:
        """{name: array}: copies of the current parameter values."""
        return {name: node.value.copy() for name, node in self.parameters().items()}

    def set_param(self, params: dict) -> None:
        """Set the parameters named in `params` to the given arrays (copied): the next
        forward pass uses them."""
        own = self.parameters()
        for name, value in params.items():
            own[name].value = np.array(value, dtype=float)

    def get_grad(self, x, y) -> tuple:
        """(grads, loss): {name: d loss/d parameter} for every parameter, and the value of
        self.loss(x, y) as a float."""
        loss = self.loss(x, y)
        grads = loss.grad(1)
        return ({name: grads.get(name, np.zeros(node.shape))
                 for name, node in self.parameters().items()}, float(loss.value[0, 0]))


# %% [markdown]
# With these, a network is written exactly as in the paper. This one is for a regression
# problem in Part 3: one input, 32 ReLU units, one output, and the mean squared error
# $L = \frac{1}{n} \sum_i (\hat y_i - y_i)^2$ as its loss.

# %%
class ToyNetwork(Model):
    """x (n, 1) -> 32 ReLU units -> y_hat (n, 1), with the mean squared error as its loss."""

    def __init__(self):
        super().__init__()
        self.h1 = self.ReLU_Layer(1, 32, "h1")
        self.h2 = self.Linear_Layer(32, 1, "h2")

    def forward(self, x) -> Node:
        if not isinstance(x, Node):
            x = Node(x)
        return self.h2(self.h1(x))

    def loss(self, x, y) -> Node:
        return (self.forward(x) - y).square().mean()


# %%
net = ToyNetwork()
print({name: value.shape for name, value in net.get_param().items()})

# %%
check("model_layers")

# %% [markdown]
# ## Part 3: a training loop
#
# Gradient descent moves every parameter a small step against its gradient:
#
# $$\theta \leftarrow \theta - \alpha\, \frac{\partial L}{\partial \theta},$$
#
# with the learning rate $\alpha$. The paper's manual training loop does exactly this with
# `get_grad`, `get_param` and `set_param`:
#
# ```python
# for epoch in range(100):
#     grad, loss = net.get_grad(x, y)                 # the loss and its gradients
#     param_current = net.get_param()                  # the current parameters
#     param_new = {name: param_current[name] - 0.001 * grad[name]
#                  for name in param_current.keys()}   # one step of gradient descent
#     net.set_param(param_new)                         # make them the model's
# ```
#
# Write `train(net, x, y, steps, lr)` like this, using only these three methods of `net`,
# and return the list of the losses, one per step. The grader calls `train(net, x, y)` with
# your default `steps` and `lr`, on a network like `ToyNetwork` (1 input, 32 ReLU units, one
# output; the same parameter names) and a toy problem like the one below: 64 points
# $x \in [-1, 1]$, and $y$ a sine wave with an offset. It generates new data and its own
# initial parameters. After training, it computes the mean squared error of the parameters
# your loop leaves in the model, and you pass with **at most 0.05**. The learning rate is
# yours to choose; the plot below compares a few (question 2 asks what it shows).

# %%
def train(net: Model, x: np.ndarray, y: np.ndarray, steps: int = 1000, lr: float = 0.05) -> list:
    """Plain gradient descent on net.loss(x, y): `steps` times, get the gradients and the loss
    (get_grad), and set every parameter to param - lr * grad (get_param, set_param).
    Returns the losses that get_grad gave, one per step (the first: the initial loss)."""
    ### BEGIN SOLUTION
    losses = []
    for _ in range(steps):
        grads, loss = net.get_grad(x, y)
        param = net.get_param()
        net.set_param({name: param[name] - lr * grads[name] for name in param})
        losses.append(loss)
    return losses
    ### END SOLUTION


# %%
toy_rng = np.random.default_rng(1)
x_toy = toy_rng.uniform(-1, 1, (64, 1))
y_toy = 1.2 * np.sin(2.5 * x_toy + 0.5) + 1.5

curves, fits = {}, {}          # learning rate -> losses, predictions on x_plot
x_plot = np.linspace(-1, 1, 200).reshape(-1, 1)
for lr in (0.001, 0.01, 0.05):
    init_rng = np.random.default_rng(0)            # the same initial network for every lr
    net = ToyNetwork()
    curves[lr] = train(net, x_toy, y_toy, lr=lr)
    fits[lr] = net.forward(x_plot).value
    print(f"lr = {lr}: loss {curves[lr][0]:.3f} -> {curves[lr][-1]:.4f}")

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
left.scatter(x_toy, y_toy, s=10, color="black", label="data")
for lr, losses in curves.items():
    right.plot(losses, label=f"lr = {lr}")
    left.plot(x_plot, fits[lr], label=f"fit, lr = {lr}")
right.axhline(0.05, color="gray", linestyle=":", label="target 0.05")
right.set_yscale("log")
right.set_xlabel("step")
right.set_ylabel("mean squared error")
left.set_xlabel("x")
left.legend()
right.legend(loc="upper right")
fig.tight_layout()
plt.show()

# %%
check("training_loop")

# %% [markdown]
# ## Questions
#
# **Question 1 (2 points).** Suppose every weight of the network started at the same value $c$, and
# every bias at 0. Show that after any number of steps of gradient descent all units of that
# layer still compute the same function of the input. What in your `Layer` rules this out?

# %% [markdown] answer="symmetric_start"
# **Model answer.** With equal weights, every unit $j$ of the layer computes the same
# $h_j = \mathrm{act}(\sum_i x_i c + 0)$, and since the next layer's weights are equal too, each
# unit's output meets the same weight downstream: $\partial L / \partial h_j$ is the same for
# every $j$, and so is the gradient of every unit's column of $W$ and its bias. One step changes
# all columns by the same amount, so they stay equal: by induction, after any number of steps
# the units are copies of each other, and the layer is as good as one unit. Drawing $W$ at
# random (`init_rng.normal`) makes the units differ from the start; the gradient then differs
# per unit too.
#
# **Rubric (2 points).**
# - 1 point: equal weights give equal outputs and equal gradients per unit, so equal updates
#   (the symmetry is kept by every step).
# - 1 point: the random initial weights break the symmetry.

# %% [markdown]
# **Question 2 (2 points).** Print the loss of `lr = 0.001` after 1,000 steps and that of
# `lr = 0.01` after 100 steps (`curves[lr][step]`). Why are they so close? Then try `lr = 0.5`
# and `lr = 1`: what happens, and why does a large enough learning rate make gradient descent
# fail?

# %% [markdown] answer="learning_rate_time"
# **Model answer.** Both are about 0.39 (0.386 and 0.389). With small steps, gradient descent
# follows the continuous gradient flow $d\theta / dt = -\nabla L(\theta)$, and where it gets to
# depends on the product $\text{lr} \times \text{steps}$, the "time" travelled: $0.001 \times
# 1000 = 0.01 \times 100 = 1$. A step is only a good approximation while the gradient changes
# little over it: once lr is larger than about $2 / \lambda_\text{max}$ ($\lambda_\text{max}$
# the largest curvature of the loss), each step overshoots the valley and lands higher than it
# started. `lr = 1` blows up (a loss near $3.5 \times 10^4$); `lr = 0.5` stops at 0.75 after a
# few steps (the overshoot kills ReLU units, whose gradient is then 0).
#
# **Rubric (2 points).**
# - 1 point: the losses match because the distance travelled depends on lr × steps (a small
#   step follows the gradient flow).
# - 1 point: a too large step overshoots the curvature of the loss, so the loss grows or gets
#   stuck (the values observed).

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the API built here: named leaves, `grad(1)` returning a dictionary, `Model` with its layers, `get_grad`, and the manual training loop.
