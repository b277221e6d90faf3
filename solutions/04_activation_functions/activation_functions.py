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
# # 04 — Activation functions and vanishing gradients
#
# Why did deep networks with sigmoid units refuse to learn for so long, and why does almost every
# modern network use ReLU or tanh in its hidden layers? In this notebook you build a network with
# **10 weight layers**, train it with the **binary cross-entropy**, and *measure* how large the
# gradient of the loss is at each layer, for three activation functions: the logistic sigmoid,
# tanh and ReLU. The picture you will draw is the classic one of the **vanishing gradient
# problem** (Hochreiter 1991; Glorot & Bengio 2010): with sigmoids, the layers near the input
# receive gradients that are many orders of magnitude smaller than those near the output, so
# gradient descent barely moves them.
#
# | task | you write | points |
# |---|---|---|
# | `deep_network` | `DeepNetwork(activation)`: the 10-layer network and its forward pass | 2 |
# | `bce_loss` | `bce_loss(p, y)`: binary cross-entropy with `dp` operations | 2 |
# | `gradient_sums` | `gradient_sums(net, x, y)`: $\sum \lvert\partial L / \partial W^{(l)}\rvert$ for each layer | 2 |
# | `vanishing_plot` | the plot of those sums per layer for sigmoid, tanh and ReLU | 4 |
# | `sigmoid_slope` | question 1: a number, in `answer_sigmoid_slope` | 1 |
#
# Questions 2 and 3, at the end, ask you to explain what your plot shows, in a few sentences each,
# in the cell under each question; they are graded by hand (3 points), not by `check`.
#
# Each task ends with a `check("...")` cell that runs the grader's checks on your code (with
# other inputs than the ones the grader uses later). Training a network at the end is not graded.

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Model, Node
from autograder import check

# %% [markdown]
# ## The data: two half-moons
#
# A binary classification task in two dimensions: points on two interleaved half-circles, with
# some noise. Class 1 is the lower moon. The labels are a column `y` of shape (n, 1) with values
# 0 and 1, the shape the network's output will have.

# %%
def make_moons(n: int, noise: float = 0.15, seed: int = 0):
    """n points on two interleaved half-circles (centred at the origin) and their labels (n, 1)."""
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0, np.pi, n)
    label = rng.integers(0, 2, n)
    upper = np.c_[np.cos(angle), np.sin(angle)]
    lower = np.c_[1 - np.cos(angle), 0.5 - np.sin(angle)]
    x = np.where(label[:, None] == 0, upper, lower) + noise * rng.standard_normal((n, 2))
    return x - [0.5, 0.25], label.reshape(-1, 1).astype(float)


x_all, y_all = make_moons(1200)
x_train, y_train = x_all[:1000], y_all[:1000]
x_test, y_test = x_all[1000:], y_all[1000:]

plt.figure(figsize=(5, 3))
plt.scatter(*x_train.T, c=y_train[:, 0], cmap="coolwarm", s=8)
plt.title("training data: 1,000 points, two classes")
plt.show()

# %% [markdown]
# ## 1. A deep network
#
# The network has 10 weight layers: 2 inputs, 9 hidden layers of 20 units each, 1 output.
# With one example per **row** of $X$ (the convention of `dp`, where a layer computes
# `x.dot(W) + b`), and $h^{(0)} = X$:
#
# $$h^{(l)} = \operatorname{act}\big(h^{(l-1)} W^{(l)} + b^{(l)}\big), \qquad l = 1, \dots, 9,$$
# $$p = \sigma\big(h^{(9)} W^{(10)} + b^{(10)}\big), \qquad \sigma(z) = \frac{1}{1 + e^{-z}}.$$
#
# The hidden activation $\operatorname{act}$ is the same in layers 1–9 and is one of
# `"sigmoid"`, `"tanh"` or `"relu"`; the output layer always uses the sigmoid, so that
# $p = p_\theta(y = 1 \mid x) \in (0, 1)$ is the predicted probability of class 1.
#
# **Names and shapes** (the grader sets the weights by these names with `set_param`):
#
# | parameter | shape |
# |---|---|
# | `layer1_W`, `layer1_b` | (2, 20), (1, 20) |
# | `layer2_W` … `layer9_W`, `layer2_b` … `layer9_b` | (20, 20), (1, 20) |
# | `layer10_W`, `layer10_b` | (20, 1), (1, 1) |
#
# `self.Linear_Layer(n_in, n_out, "layer1")` creates exactly `layer1_W` and `layer1_b`, with the
# library's default initialisation: Xavier/Glorot uniform weights, $W \sim U(-a, a)$ with
# $a = \sqrt{6 / (n_\text{in} + n_\text{out})}$, and zero biases. Use it for all ten layers, so
# that the three networks differ *only* in their activation function. (Notebook 05 is about
# choosing the initialisation.) Apply the activation yourself in `forward`: a `Node` has the
# methods `.sigmoid()`, `.tanh()` and `.relu()`.
#
# Keep the layers in a list attribute (any name but `layers`, which is a method of `Model`);
# `Model` finds the parameters of layers in lists. `loss` is given: it uses the `bce_loss` you
# write in the next section.

# %%
ACTIVATIONS = ("sigmoid", "tanh", "relu")


class DeepNetwork(Model):
    """A fully connected network 2 -> 20 -> ... -> 20 -> 1 with 10 weight layers.

    Layers 1-9: h <- act(h W + b) with the hidden activation `activation`;
    layer 10:  p = sigmoid(h W + b), the probability of class 1.
    Parameters layer1_W, layer1_b, ..., layer10_W, layer10_b (see the table above).
    """

    def __init__(self, activation: str = "sigmoid"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, not {activation!r}")
        self.activation = activation
        ### BEGIN SOLUTION
        sizes = [2] + [20] * 9 + [1]
        self.linear = [self.Linear_Layer(sizes[l - 1], sizes[l], f"layer{l}") for l in range(1, 11)]
        ### END SOLUTION

    def forward(self, x) -> Node:
        """The probability of class 1 for every row of x (shape (n, 2)): a Node of shape (n, 1)."""
        ### BEGIN SOLUTION
        h = x if isinstance(x, Node) else Node(x)
        for layer in self.linear[:9]:
            h = getattr(layer(h), self.activation)()      # h.sigmoid(), h.tanh() or h.relu()
        return self.linear[9](h).sigmoid()
        ### END SOLUTION

    def loss(self, x, y) -> Node:
        """The mean binary cross-entropy of the predictions for labels y (shape (n, 1))."""
        return bce_loss(self.forward(x), y)


# %%
dp.seed(0)
p = DeepNetwork("tanh").forward(x_train[:5])
print(p.shape, p.value.ravel())

# %%
check("deep_network")

# %% [markdown]
# ## 2. Binary cross-entropy
#
# For labels $y_i \in \{0, 1\}$ and predicted probabilities $p_i = p_\theta(y_i = 1 \mid x_i)$,
# the binary cross-entropy is the mean negative log-likelihood of the labels:
#
# $$L = -\frac{1}{n} \sum_{i=1}^{n} \Big( y_i \log p_i + (1 - y_i) \log (1 - p_i) \Big).$$
#
# Only one of the two terms is active for each example: $-\log p_i$ for class 1,
# $-\log(1 - p_i)$ for class 0. A confident wrong prediction costs a lot, a confident right one
# almost nothing.
#
# Write it with `dp` operations on the Node `p` (`.log()`, `*`, `-`, `.mean()`), so that
# gradients flow back through it: **not** with `dp.binary_cross_entropy`, which computes the same
# loss from the *logits* $z$ instead of $p = \sigma(z)$. A probability can round to exactly 0 or 1
# in floating point, and $\log 0 = -\infty$; so first clip $p$ into $[\varepsilon, 1 - \varepsilon]$
# with $\varepsilon = 10^{-7}$, using `dp.maximum(p, EPS)` and `dp.minimum(..., 1 - EPS)`, which
# leave every value in between (and its gradient) unchanged.

# %%
EPS = 1e-7


def bce_loss(p: Node, y: np.ndarray) -> Node:
    """Mean binary cross-entropy  L = -(1/n) sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)].

    p: predicted probabilities of class 1, a Node of shape (n, 1);
    y: labels 0 or 1, an array of shape (n, 1).
    p is clipped into [EPS, 1 - EPS] first. Returns a scalar Node.
    """
    ### BEGIN SOLUTION
    p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)
    return -(y * p.log() + (1 - y) * (1 - p).log()).mean()
    ### END SOLUTION


# %%
print(bce_loss(Node([[0.9], [0.2]]), np.array([[1.0], [0.0]])).item())   # -(log 0.9 + log 0.8) / 2 = 0.164

# %%
check("bce_loss")

# %% [markdown]
# ## 3. How the gradient travels through ten layers
#
# Write $a^{(l)} = h^{(l-1)} W^{(l)} + b^{(l)}$ for the input of layer $l$'s activation and
# $\delta^{(l)} = \partial L / \partial a^{(l)}$. Backpropagation is the chain rule applied layer
# by layer, from the output back to the input:
#
# $$\delta^{(10)} = \frac{1}{n}(p - y), \qquad
#   \delta^{(l)} = \big(\delta^{(l+1)}\, W^{(l+1)\top}\big) \odot \operatorname{act}'\big(a^{(l)}\big),
#   \qquad \frac{\partial L}{\partial W^{(l)}} = h^{(l-1)\top}\, \delta^{(l)}.$$
#
# (The first one is why the sigmoid output and the cross-entropy go so well together.) Unrolled,
# the gradient that reaches the first layer has passed through **nine** activation derivatives
# and nine weight matrices:
#
# $$\delta^{(1)} = \Big(\Big(\delta^{(10)} W^{(10)\top} \odot \operatorname{act}'(a^{(9)})\Big)
#    W^{(9)\top} \odot \operatorname{act}'(a^{(8)}) \cdots \Big) W^{(2)\top} \odot \operatorname{act}'(a^{(1)}).$$
#
# With Xavier initialisation the weight matrices roughly preserve the size of what passes
# through them, so the activation derivatives decide:
#
# * **sigmoid**: $\sigma'(z) = \sigma(z)\,(1 - \sigma(z)) \le \tfrac14$, with equality only at
#   $z = 0$ (since $s(1 - s) \le \tfrac14$ for every $s$). Together, the nine factors are at most
#   $(1/4)^9 \approx 4 \cdot 10^{-6}$: unless the weights make up for it, that is how much smaller
#   the gradient at layer 1 is than at the output.
# * **tanh**: $\tanh'(z) = 1 - \tanh^2(z) \in (0, 1]$, close to 1 near $z = 0$, where Xavier
#   initialisation keeps the units.
# * **ReLU**: $\operatorname{relu}'(z) \in \{0, 1\}$: a unit either passes the gradient on
#   unchanged or not at all.
#
# `dp` can draw the derivatives for us: the gradient of $\sum_i \operatorname{act}(z_i)$ with
# respect to $z$ is $\operatorname{act}'(z)$ at every point.

# %%
z = Node(np.linspace(-5, 5, 401), "z")
fig_act, axes_act = plt.subplots(1, 2, figsize=(9, 3))
for name in ACTIVATIONS:
    out = getattr(z, name)()
    axes_act[0].plot(z.value, out.value, label=f"{name}(z)")
    axes_act[1].plot(z.value, out.sum().grad(1)["z"], label=f"{name}'(z)")
axes_act[0].set_ylim(-1.2, 2.2)
axes_act[1].axhline(0.25, color="gray", linestyle=":", linewidth=1)
for ax, title in zip(axes_act, ["activation", "derivative (dotted: 1/4)"]):
    ax.set_xlabel("z")
    ax.set_title(title)
    ax.legend()
fig_act.tight_layout()
plt.show()

# %% [markdown]
# Now measure it. For every layer $l = 1, \dots, 10$, compute the sum of the absolute values of
# all entries of $\partial L / \partial W^{(l)}$,
#
# $$S_l = \sum_{j,k} \left\lvert \frac{\partial L}{\partial W^{(l)}_{jk}} \right\rvert,$$
#
# with `net.get_grad(x, y)`, which returns `(grads, loss)`, `grads` being a dict from parameter
# names to gradient arrays. Only the weights count, not the biases. `gradient_sums` must work for
# any `Model` whose weights are named `layer1_W` … `layer10_W`.

# %%
def gradient_sums(net: Model, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """S_l = sum of |dL/dW| over all entries of layer l's weights W (layer<l>_W), l = 1..10.

    L is net's loss on the batch (x, y). Returns an array of shape (10,), input layer first.
    """
    ### BEGIN SOLUTION
    grads, _ = net.get_grad(x, y)
    return np.array([np.abs(grads[f"layer{l}_W"]).sum() for l in range(1, 11)])
    ### END SOLUTION


# %%
dp.seed(0)
print(gradient_sums(DeepNetwork("relu"), x_train[:100], y_train[:100]))

# %%
check("gradient_sums")

# %% [markdown]
# ## 4. The vanishing-gradient plot
#
# Three networks, one per activation, fresh from their initialisation, and one batch (here the
# whole training set). They are kept in the dict `nets`: the grader reads their weights and
# recomputes the gradient sums itself, so **do not train these three objects later on** (the
# next section trains new ones).
#
# Draw one line per activation, labelled `"sigmoid"`, `"tanh"` and `"relu"` (the `label=` of
# `ax.plot`), with the layer numbers 1 to 10 on the x axis and `gradient_sums(net, x_plot, y_plot)`
# on the y axis. The values span many orders of magnitude: use a **logarithmic y axis**
# (`ax.set_yscale("log")`). Label both axes and add a legend. Draw on the `ax` created for you:
# the grader finds the figure through `fig`.

# %%
dp.seed(0)
nets = {name: DeepNetwork(name) for name in ACTIVATIONS}
x_plot, y_plot = x_train, y_train

# %%
fig, ax = plt.subplots(figsize=(6, 4))
### BEGIN SOLUTION
for name, net in nets.items():
    ax.plot(np.arange(1, 11), gradient_sums(net, x_plot, y_plot), marker="o", label=name)
ax.set_yscale("log")
ax.set_xticks(np.arange(1, 11))
ax.set_xlabel("layer l (1 = input layer, 10 = output layer)")
ax.set_ylabel(r"$\sum\ |\partial L / \partial W^{(l)}|$")
ax.set_title("gradient per layer at initialisation")
ax.legend()
### END SOLUTION
plt.show()

# %%
check("vanishing_plot")

# %% [markdown]
# ## 5. Does it matter for training? (not graded)
#
# Train a *fresh* network for each activation (the ones in `nets` stay as they are) with plain
# gradient descent on mini-batches: `dp.SGD(net, x_train, y_train, lr=0.05, batch_size=64, seed=0)`
# and `optimizer.train(steps=500, print_each=0, err_hist=True)`, which returns
# `(last loss, loss per step, parameters per step)`. Keep the loss histories in `histories`, a
# dict from the activation name to the list of losses. Start each network from `dp.seed(1)`.
# It takes a few seconds.

# %%
histories = {}
### BEGIN SOLUTION
for name in ACTIVATIONS:
    dp.seed(1)
    trained = DeepNetwork(name)          # a new network: nets[name] stays as it was plotted
    optimizer = dp.SGD(trained, x_train, y_train, lr=0.05, batch_size=64, seed=0)
    _, histories[name], _ = optimizer.train(steps=500, print_each=0, err_hist=True)
    with dp.no_grad():
        accuracy = np.mean((trained.forward(x_test).value > 0.5) == y_test)
    print(f"{name:>7}: final training loss {np.mean(histories[name][-50:]):.3f}, "
          f"test accuracy {accuracy:.3f}")
### END SOLUTION

# %%
plt.figure(figsize=(6, 3.5))
for name, history in histories.items():
    plt.plot(history, label=name, linewidth=1)
plt.axhline(np.log(2), color="gray", linestyle=":", linewidth=1, label="log 2 (guessing)")
plt.xlabel("SGD step")
plt.ylabel("training loss (BCE)")
plt.legend()
plt.show()

# %% [markdown]
# ## Questions
#
# **Question 1 (1 point, graded automatically).** Backpropagation through one sigmoid layer
# multiplies the gradient by $\sigma'(z) = \sigma(z)\,(1 - \sigma(z))$ (and by the weights).
# What is the **largest** value $\sigma'(z)$ can take, over all $z$? Give it as a number in
# `answer_sigmoid_slope`; `check` tells you whether it is a number, grading whether it is right.

# %%
# answer_sigmoid_slope = ...   (a number)
### BEGIN SOLUTION
answer_sigmoid_slope = 0.25
### END SOLUTION

# %%
check("sigmoid_slope")

# %% [markdown]
# **Question 2 (2 points).** Read the sigmoid line of your plot of part 4: by how many orders of
# magnitude does $\sum |\partial L / \partial W^{(l)}|$ fall from the last layer to the first,
# and how does that compare with what question 1's bound predicts over nine sigmoid layers?
# What does it mean for the first layers when all layers are trained with one learning rate, and
# how does it show in the loss curves of part 5?

# %% [markdown] answer="sigmoid_vanishing"
# **Model answer.** The sigmoid network's gradient shrinks by a factor of about 4 per layer on
# its way to the input: its first layer receives about $10^{-5}$ to $10^{-6}$ of what its last
# layer receives, as the bound $(1/4)^9 \approx 4 \times 10^{-6}$ predicts (the weights of a
# sensible initialisation do not make up for it). With one learning rate for all layers, the
# first layers of the sigmoid network practically do not learn; as long as they do not, the
# layers after them see almost the same input for every example, and the loss stays at
# $\log 2$, the loss of a coin toss. With tanh and ReLU, the sums of all ten layers stay within
# a factor of about 20 of each other, and both networks learn to separate the moons.
#
# **Rubric (2 points).**
# - 1 point: five to six orders of magnitude, consistent with $(1/4)^9$ (a factor of about 4
#   per layer).
# - 1 point: the first layers barely change, so the sigmoid loss stays near $\log 2$ (guessing)
#   while tanh and ReLU learn.

# %% [markdown]
# **Question 3 (1 point).** For **every** activation, the output layer's sum is smaller than
# layer 9's, and layer 1's smaller than layer 2's, though the gradient does not vanish there.
# Why?

# %% [markdown] answer="layer_sizes"
# **Model answer.** The sums add up entries, and the layers have different numbers of them:
# $W^{(1)}$ has $2 \times 20 = 40$, $W^{(2)}, \dots, W^{(9)}$ have $20 \times 20 = 400$ each,
# $W^{(10)}$ has $20$. A sum over 20 or 40 entries is smaller than one over 400 entries of the
# same size.
#
# **Rubric (1 point).** The number of entries per layer (40, 400, 20) named as the cause.

# %% [markdown]
# Things to try: train the sigmoid network with `dp.Adam`, which scales each parameter's step
# by the size of its own recent gradients: does it learn now, and why? Use 5 or 20 layers
# instead of 10. Notebook 05 continues with the other half of the story: initialisation.

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the vanishing-gradient exercise: a 10-layer network, sigmoid against tanh and ReLU, the gradient sums per layer.
