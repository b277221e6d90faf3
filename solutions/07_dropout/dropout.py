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
# # 07 — Dropout
#
# A network with many more parameters than training examples can learn its training set by
# heart, noise included, and then predicts new data badly: it **overfits**. Dropout (Hinton et
# al. 2012; Srivastava et al. 2014) is a simple cure. During training, every unit of a layer is
# switched off at random, independently, with probability $p$, and a new random choice is made
# for every example and every step. No unit can rely on one particular other unit being there,
# so each must learn something useful on its own; and training effectively averages over a huge
# number of "thinned" networks that share their weights. At test time all units are on.
#
# In this notebook you write dropout as a `dp` layer, with its forward pass, its backward pass
# and its evaluation mode, and then watch it keep a small network from overfitting.
#
# | task | you write | points |
# |---|---|---|
# | `dropout_forward` | `MyDropout.scale_mask` and the training forward pass: inverted dropout | 3 |
# | `dropout_backward` | the backward pass: the gradient masked and scaled like the output | 3 |
# | `dropout_eval` | evaluation mode: the identity | 2 |
# | `forgot_eval` | question 2: a choice, in `answer_forgot_eval` | 1 |
#
# Question 1, in part 5, asks you to predict and then explain an experiment, in a few sentences;
# it is graded by hand (2 points), not by `check`.
#
# Each task has a `check("...")` cell that runs the grader's checks on your code (the grader later
# uses other inputs). The experiment at the end is not graded.

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Model, Node
from autograder import check

# %% [markdown]
# ## 1. Inverted dropout
#
# **Training.** For an input $x$ (any shape), draw a mask $m$ of the same shape with independent
# entries $m_i \sim \text{Bernoulli}(1 - p)$: $m_i = 1$ (keep the unit) with probability $1 - p$,
# $m_i = 0$ (drop it) with probability $p$. The output is
#
# $$y = \frac{m \odot x}{1 - p}, \qquad\text{so}\qquad
#   \mathbb{E}[y_i] = \frac{(1 - p) \cdot x_i + p \cdot 0}{1 - p} = x_i .$$
#
# Dividing by the *keep* probability $1 - p$ is what makes the dropout **inverted**: the kept
# units are scaled up during training so that every unit's expected output is its input, and
# the next layer sees inputs of the same size in training and at test time.
#
# **Backward.** For a fixed mask, $y$ is $x$ times the constant $s = m / (1 - p)$, so the local
# Jacobian is diagonal, $\partial y_i / \partial x_i = s_i$, and for an upstream gradient
# $g = \partial L / \partial y$
#
# $$\frac{\partial L}{\partial x} = g \odot \frac{m}{1 - p}.$$
#
# The mask must be **the same one** that the forward pass used: a dropped unit contributed nothing
# to the loss, so it gets no gradient. The forward pass has to keep its mask for the backward pass.
#
# **Evaluation.** Thanks to the scaling in training, evaluation mode is simply the identity,
# $y = x$: no randomness, and the gradient passes through unchanged. (The original formulation
# did not scale in training and multiplied by $1 - p$ at test time instead; the inverted form
# leaves the test-time network untouched.)
#
# ### An op with a hand-written backward pass
#
# Every op of `dp` is a forward value and a local gradient side by side: `Node.__mul__` in
# `dp/node.py` computes `a.value * b.value` and says that the gradient with respect to `a` is
# `g * b.value` for an upstream gradient `g`. `dp.custom_op` gives you the same mechanism: it
# makes a new `Node` from its value and, for each operand, a function `backward(g)` that returns
# the gradient with respect to that operand.

# %%
from dp import custom_op   # custom_op(name, value, (operand, backward), ...) -> Node


# %% [markdown]
# ### Your layer
#
# `MyDropout(p, rng)` is a `dp.Layer`: it has the attribute `training` (True by default;
# `Model.eval()` sets it to False on every layer of a model), and calling `layer(x)` calls
# `layer.forward(x)` with `x` a `Node`. Its random numbers come from `rng`, a NumPy
# [`Generator`](https://numpy.org/doc/stable/reference/random/generator.html), so that whoever
# creates the layer can make it reproducible (`MyDropout(0.5, np.random.default_rng(0))`).
# Draw every random number from `self.rng` (e.g. `self.rng.random(shape)`, uniform on $[0, 1)$).
#
# * `scale_mask(shape)` draws a fresh mask and returns the scale $s = m / (1 - p)$: an array of
#   that shape whose entries are 0 with probability $p$ and $1 / (1 - p)$ otherwise.
# * `forward(x)`: in training mode, draw one scale mask and return a new node with value
#   $x \odot s$ and the backward pass $g \mapsto g \odot s$, using `custom_op`. In evaluation mode
#   (and for $p = 0$), return `x` itself. A layer may be called again before the first call's
#   backward pass runs (a layer used twice in a network): each call's backward pass uses the
#   mask of its own call. Evaluation mode changes nothing but `training`: back in training
#   mode, the layer drops units as before.
#
# Write the backward pass yourself with `custom_op`, even though `x * Node(s)` would let `dp`
# derive it: here it is the exercise.

# %%
class MyDropout(dp.Layer):
    """Inverted dropout with drop probability p: in training y = x * m / (1 - p), with a fresh
    mask m ~ Bernoulli(1 - p) per call drawn from `rng`, and dL/dx = g * m / (1 - p) with the
    same mask; in evaluation (training = False) y = x."""

    def __init__(self, p: float = 0.5, rng: np.random.Generator | None = None):
        if not 0 <= p < 1:
            raise ValueError(f"MyDropout: p must be in [0, 1), not {p}")
        self.p = p
        self.rng = rng if rng is not None else np.random.default_rng()
        self.training = True

    def scale_mask(self, shape: tuple) -> np.ndarray:
        """A fresh random scale s = m / (1 - p) of `shape`: each entry independently 0 with
        probability p, else 1 / (1 - p)."""
        ### BEGIN SOLUTION
        keep = self.rng.random(shape) >= self.p
        return keep / (1 - self.p)
        ### END SOLUTION

    def forward(self, x: Node) -> Node:
        """Training: y = x * s with s = scale_mask(x.shape), and backward g -> g * s (the same s).
        Evaluation (self.training False) or p = 0: y = x."""
        ### BEGIN SOLUTION
        if not self.training or self.p == 0:
            return x                                       # evaluation: the identity
        scale = self.scale_mask(x.shape)

        def backward(g):
            return g * scale                                # the mask of the forward pass

        return custom_op("dropout", x.value * scale, (x, backward))
        ### END SOLUTION


# %% [markdown]
# ## 2. The expectation is preserved
#
# Apply one layer with $p = 0.3$ many times to the same input. Each output has about 30 % zeros
# and the kept values are scaled by $1 / 0.7$; averaged over many draws, the output is the input.

# %%
drop = MyDropout(0.3, np.random.default_rng(0))
x = Node(np.linspace(1, 2, 6).reshape(2, 3), "x")
print("one draw:\n", drop(x).value)
samples = np.stack([drop(x).value for _ in range(20_000)])
print("fraction dropped:", np.mean(samples == 0))
print("mean over 20,000 draws:\n", samples.mean(axis=0).round(3))
print("the input:\n", x.value)

# %%
check("dropout_forward")

# %% [markdown]
# ## 3. The gradient goes where the output came from
#
# The gradient of $L = \sum_i u_i y_i$ with respect to $x$ is $u \odot s$: zero where the unit
# was dropped, $u_i / (1 - p)$ where it was kept. Since $y = x \odot s$, the scale can be read off
# the output, $s = y / x$. And `dp` derives the same gradient by itself if we write the forward
# pass with its operations, `x * Node(s)`: your backward pass agrees with automatic
# differentiation.

# %%
u = np.random.default_rng(1).normal(size=x.shape)
y = drop(x)
gradient = (y * u).sum().grad(1)["x"]
scale = y.value / x.value
print("dL/dx:\n", gradient.round(3))
print("u * y / x:\n", (u * scale).round(3))
print("autodiff of x * s:\n", (x * Node(scale) * u).sum().grad(1)["x"].round(3))

# %%
check("dropout_backward")

# %% [markdown]
# ## 4. Evaluation mode
#
# With `training = False` the layer is the identity: the same output on every call, no random
# numbers drawn, and the gradient is the upstream gradient. In a `Model`, `net.eval()` switches
# every layer to evaluation mode and `net.train()` back to training mode.

# %%
drop.training = False
print("eval output equals the input:", np.array_equal(drop(x).value, x.value))
print("gradient:\n", (drop(x) * u).sum().grad(1)["x"].round(3))
drop.training = True

# %%
check("dropout_eval")

# %% [markdown]
# ## 5. Dropout against overfitting (the run is not graded; its questions are)
#
# A regression task with far more parameters than data: 50 training examples with 10 features,
# targets $y = \tanh(2\, x \cdot w) + \text{noise}$ with noise of standard deviation 0.3, and a
# network 10 → 128 → 128 → 1 with 18,000 weights, trained without dropout and with dropout
# ($p = 0.5$ after each hidden layer). Both losses are measured in evaluation mode, every 25 Adam
# steps; the dotted line is the noise level $0.3^2$. It takes a few seconds.
#
# **Question 1 (2 points).** *Before you run the cell*, write down your prediction: for each
# network, does its training loss end above or below the dotted line, and which network ends
# with the lower test loss? Then run it, and explain what you see: how can a training loss fall
# below the noise level, and why is that bad news for the test loss? Answer below the plot.

# %%
data_rng = np.random.default_rng(0)
w_true = data_rng.normal(size=(10, 1)) / np.sqrt(10)


def make_data(n: int):
    x = data_rng.normal(size=(n, 10))
    return x, np.tanh(2 * x @ w_true) + 0.3 * data_rng.normal(size=(n, 1))


x_train, y_train = make_data(50)
x_test, y_test = make_data(1000)


class Regressor(Model):
    """10 -> 128 -> 128 -> 1 with ReLU, and dropout with probability p after each hidden layer."""

    def __init__(self, p: float, seed: int = 0):
        super().__init__()
        self.h1 = self.ReLU_Layer(10, 128, "h1")
        self.drop1 = MyDropout(p, np.random.default_rng(seed))
        self.h2 = self.ReLU_Layer(128, 128, "h2")
        self.drop2 = MyDropout(p, np.random.default_rng(seed + 1))
        self.out = self.Linear_Layer(128, 1, "out")

    def forward(self, x) -> Node:
        return self.out(self.drop2(self.h2(self.drop1(self.h1(Node(x))))))

    def loss(self, x, y) -> Node:
        return dp.mse(self.forward(x), y)


def eval_loss(net: Model, x, y) -> float:
    with dp.no_grad():
        loss = net.eval().loss(x, y).item()
    net.train()
    return loss


curves = {}
for p in (0.0, 0.5):
    dp.seed(0)
    net = Regressor(p)
    optimizer = dp.Adam(net, x_train, y_train, lr=3e-3, batch_size=None)  # all 50 at each step
    curves[p] = {"train": [], "test": []}
    for _ in range(40):
        optimizer.train(steps=25, print_each=0)
        curves[p]["train"].append(eval_loss(net, x_train, y_train))
        curves[p]["test"].append(eval_loss(net, x_test, y_test))
    print(f"p = {p}: training loss {curves[p]['train'][-1]:.3f}, test loss {curves[p]['test'][-1]:.3f}")

# %%
fig, ax = plt.subplots(figsize=(6, 3.5))
for p, color in zip(curves, ["tab:red", "tab:blue"]):
    steps = 25 * np.arange(1, len(curves[p]["test"]) + 1)
    ax.plot(steps, curves[p]["train"], color=color, linestyle="--", label=f"train, p = {p}")
    ax.plot(steps, curves[p]["test"], color=color, label=f"test, p = {p}")
ax.axhline(0.3 ** 2, color="gray", linestyle=":", linewidth=1)
ax.set_ylim(0, 0.6)
ax.set_xlabel("Adam step")
ax.set_ylabel("mean squared error (eval mode)")
ax.set_title("without and with dropout")
ax.legend()
plt.show()

# %% [markdown]
# **Your answer to question 1**: your prediction, what the plot shows, and why.

# %% [markdown] answer="dropout_overfitting"
# **Model answer.** Without dropout, the training loss falls far below the noise level
# $0.3^2 = 0.09$: no function of $x$ can predict the noise, so a loss below 0.09 means the
# network has memorised the noise of its 50 examples, which does not help on new data: its test
# loss stays high. With dropout, training is noisier and slower, the training loss stays near the
# noise level, but the test loss is lower: the gap between training and test loss, the
# signature of overfitting, is much smaller. (A prediction that turned out wrong, compared
# honestly with the plot, earns the same points.)
#
# **Rubric (2 points).**
# - 1 point: the training loss without dropout below the noise level is memorised noise
#   (overfitting), and the test loss is higher for it.
# - 1 point: with dropout, the training loss stays near the noise level and the gap to the test
#   loss is much smaller.

# %% [markdown]
# **Question 2 (1 point, graded automatically).** You measure the test loss of the dropout
# network but forget `net.eval()`, so the layers still drop units. Compared with the test loss in
# evaluation mode, the loss you measure is
#
# - (a) the same on average: inverted dropout preserves the expectation of every unit;
# - (b) higher: each prediction is that of a random thinned network, and the noise adds to the
#   squared error;
# - (c) lower: dropout regularises the network.
#
# Set `answer_forgot_eval` to `"a"`, `"b"` or `"c"`. (Try it afterwards.)

# %%
# answer_forgot_eval = ...   ("a", "b" or "c")
### BEGIN SOLUTION
answer_forgot_eval = "b"
### END SOLUTION

# %%
check("forgot_eval")

# %% [markdown]
# Things to try: other values of $p$ (0.1, 0.8); 500 training examples instead of 50; dropout
# on the inputs as well.

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the dropout exercise, written as a layer of its high-level API.
