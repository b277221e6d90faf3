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
# # 08 — Batch normalisation
#
# In notebook 04 a deep sigmoid network did not learn at all: the inputs of its units drifted
# into the flat parts of the sigmoid and the gradient vanished on its way to the first layers.
# **Batch normalisation** (Ioffe & Szegedy, 2015) keeps the input of every unit at a healthy
# scale by force: for each mini-batch, it shifts and scales every feature to mean 0 and
# variance 1, and then lets the network choose the scale and shift it really wants with two
# learned parameters per feature. Networks with batch normalisation tolerate larger learning
# rates and cruder initialisations, and they train in far fewer steps.
#
# You write the layer from its parts, in NumPy:
#
# | task | you write | points |
# |---|---|---|
# | `batchnorm_forward` | `batchnorm_forward(x, gamma, beta, eps)`: normalise with the batch statistics, scale and shift | 3 |
# | `batchnorm_backward` | `batchnorm_backward(dy, x_hat, std, gamma)`: the gradients $\partial L/\partial x$, $\partial L/\partial \gamma$, $\partial L/\partial \beta$, derived by hand | 3 |
# | `running_statistics` | `update_running_statistics(...)`: the running mean and variance | 2 |
# | `batchnorm_eval` | the layer's evaluation mode, with the running statistics | 2 |
#
# Each task has a `check("...")` cell that runs the grader's checks on your code (the grader later
# uses other inputs and shapes). The experiment at the end is not graded.

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Model, Node
from autograder import check

# %% [markdown]
# ## 1. The forward pass
#
# A batch is a matrix $x$ of shape $(n, d)$: $n$ examples (rows), $d$ features (columns). Each
# feature $j$ is normalised with the mean and the variance of its column over the batch,
#
# $$\mu_j = \frac{1}{n} \sum_{i=1}^{n} x_{ij}, \qquad
#   \sigma_j^2 = \frac{1}{n} \sum_{i=1}^{n} (x_{ij} - \mu_j)^2, \qquad
#   \hat{x}_{ij} = \frac{x_{ij} - \mu_j}{\sqrt{\sigma_j^2 + \varepsilon}},$$
#
# and then scaled and shifted by the learned parameters $\gamma, \beta$ of shape $(1, d)$:
#
# $$y_{ij} = \gamma_j\, \hat{x}_{ij} + \beta_j .$$
#
# Notes:
# * $\sigma^2$ is the **biased** variance, dividing by $n$ (not by $n - 1$): it is the variance of
#   the batch itself, not an estimate of the population's (`np.var` computes it by default).
# * The small $\varepsilon$ (`eps`, e.g. $10^{-5}$) goes **inside** the square root: it keeps the
#   division finite when a feature is constant over the batch.
# * With $\gamma = \sqrt{\sigma^2 + \varepsilon}$ and $\beta = \mu$ the layer is the identity, so
#   normalising costs the network nothing it could express before.
#
# `batchnorm_forward` also returns what the backward pass will need: $\hat x$ and the
# standard deviation $s = \sqrt{\sigma^2 + \varepsilon}$ of shape $(1, d)$. Use NumPy with
# `axis=0, keepdims=True`, so that the statistics have shape $(1, d)$ and broadcast over the rows.

# %%
EPS = 1e-5


def batchnorm_forward(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = EPS):
    """Batch normalisation of x (n, d) over its rows, with gamma, beta of shape (1, d):

        mu = mean_i x_i,  var = mean_i (x_i - mu)^2  (biased),  std = sqrt(var + eps),
        x_hat = (x - mu) / std,  y = gamma * x_hat + beta.

    Returns (y, x_hat, std): y and x_hat of shape (n, d), std of shape (1, d).
    """
    ### BEGIN SOLUTION
    mean = x.mean(axis=0, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=0, keepdims=True)
    std = np.sqrt(var + eps)
    x_hat = (x - mean) / std
    return gamma * x_hat + beta, x_hat, std
    ### END SOLUTION


# %%
data_rng = np.random.default_rng(0)
x = data_rng.normal(loc=[5.0, -2.0, 0.0], scale=[3.0, 0.1, 1.0], size=(64, 3))
y, x_hat, std = batchnorm_forward(x, np.ones((1, 3)), np.zeros((1, 3)))
print("x: mean", x.mean(axis=0).round(3), "std", x.std(axis=0).round(3))
print("y: mean", y.mean(axis=0).round(3), "std", y.std(axis=0).round(3))

# %%
check("batchnorm_forward")

# %% [markdown]
# ## 2. The backward pass, by hand
#
# Given the upstream gradient $\delta = \partial L / \partial y$ of shape $(n, d)$, we need
# $\partial L / \partial \beta$, $\partial L / \partial \gamma$ and $\partial L / \partial x$.
# Every feature (column) is normalised on its own, so we can look at one column and drop the
# index $j$: $x_i$, $\hat{x}_i$, $\delta_i$ for $i = 1, \dots, n$, and $s = \sqrt{\sigma^2 + \varepsilon}$.
#
# **$\beta$ and $\gamma$.** Each $\beta$ and $\gamma$ is used by all $n$ examples of the batch,
# so their gradients are sums over the batch:
#
# $$\frac{\partial L}{\partial \beta} = \sum_{i=1}^{n} \delta_i, \qquad
#   \frac{\partial L}{\partial \gamma} = \sum_{i=1}^{n} \delta_i\, \hat{x}_i .$$
#
# **$x$.** Here is the interesting part, and yours to derive: $x_i$ reaches the loss not only
# through $\hat{x}_i$, but also through $\mu$ and $s$, which depend on *every* example of the
# batch. The forward pass of one column, as a computational graph of small steps:
#
# ```
#  x ──► μ = mean(x) ──► c = x - μ ──► v = mean(c²) ──► s = sqrt(v + ε) ──► x̂ = c / s ──► y = γ x̂ + β
#  └──────────────────────►┘  └───────────────────────────────────────────────►┘
# ```
#
# ($c$ is used twice: by $v$ and by $\hat x$; $x$ twice: by $\mu$ and by $c$.) The local derivatives
# of each step, for $i, k = 1, \dots, n$ ($\delta_{ki}$ is 1 for $k = i$, 0 otherwise):
#
# | step | local derivatives |
# |---|---|
# | $\mu = \frac{1}{n}\sum_i x_i$ | $\partial \mu / \partial x_i = 1/n$ |
# | $c_k = x_k - \mu$ | $\partial c_k / \partial x_i = \delta_{ki}$, $\quad \partial c_k / \partial \mu = -1$ |
# | $v = \frac{1}{n}\sum_k c_k^2$ | $\partial v / \partial c_k = 2 c_k / n$ |
# | $s = \sqrt{v + \varepsilon}$ | $\partial s / \partial v = 1 / (2 s)$ |
# | $\hat x_k = c_k / s$ | $\partial \hat x_k / \partial c_k = 1 / s$, $\quad \partial \hat x_k / \partial s = -c_k / s^2$ |
# | $y_k = \gamma \hat x_k + \beta$ | $\partial y_k / \partial \hat x_k = \gamma$ |
#
# Backpropagate through the graph from $y$ to $x$, one node at a time in reverse order, as your
# `backward()` of notebook 01 does: start from $g_k = \partial L / \partial \hat{x}_k = \gamma\,\delta_k$,
# then find $\partial L / \partial s$, $\partial L / \partial v$, $\partial L / \partial c_k$ (two
# paths: add them), $\partial L / \partial \mu$ and finally $\partial L / \partial x_i$ (two paths
# again). Each is a sum over the nodes that use it. You may implement these steps as they are
# (vectorised over the whole $(n, d)$ matrix, with `axis=0, keepdims=True`; $c = \hat x\, s$), or
# simplify them first: the check tests the numbers, not the form.
#
# **Question 1 (3 points).** Write out your derivation: $\partial L / \partial s$,
# $\partial L / \partial v$, $\partial L / \partial c_k$, $\partial L / \partial \mu$, and
# simplify $\partial L / \partial x_i$ to an expression in $g$, $\hat x$ and $s$ alone. What does
# each of its terms say?

# %% [markdown] answer="batchnorm_derivation"
# **Model answer.** In reverse order of the graph:
#
# $$\frac{\partial L}{\partial s} = \sum_k g_k \Big(-\frac{c_k}{s^2}\Big), \qquad
#   \frac{\partial L}{\partial v} = \frac{\partial L}{\partial s}\,\frac{1}{2s}, \qquad
#   \frac{\partial L}{\partial c_k} = \frac{g_k}{s} + \frac{\partial L}{\partial v}\,\frac{2 c_k}{n},$$
# $$\frac{\partial L}{\partial \mu} = -\sum_k \frac{\partial L}{\partial c_k}, \qquad
#   \frac{\partial L}{\partial x_i} = \frac{\partial L}{\partial c_i} + \frac{1}{n}\frac{\partial L}{\partial \mu}.$$
#
# Since $\sum_k c_k = 0$, the $v$ path drops out of the sum:
# $\frac{\partial L}{\partial \mu} = -\sum_k \frac{\partial L}{\partial c_k} = -\frac{1}{s}\sum_k g_k$.
# With $c_k = s\,\hat x_k$, $\frac{\partial L}{\partial v}\,\frac{2 c_i}{n}
# = -\frac{1}{2 s^3}\Big(s \sum_k g_k \hat x_k\Big)\frac{2 s\,\hat x_i}{n}
# = -\frac{\hat x_i}{s}\,\frac{1}{n}\sum_k g_k \hat x_k$. Hence
#
# $$\boxed{\;\frac{\partial L}{\partial x_i} = \frac{1}{s}\Big(g_i
#   - \frac{1}{n}\sum_{k} g_k - \hat{x}_i\, \frac{1}{n}\sum_{k} g_k \hat{x}_k\Big)\;}$$
#
# Three terms: the direct path through $\hat{x}_i$; minus the mean of the gradient (through $\mu$:
# moving all examples together changes nothing after normalisation); minus $\hat{x}_i$ times the
# mean of $g \odot \hat{x}$ (through $s$: stretching the batch changes nothing either).
#
# **Rubric (3 points).**
# - 1 point: $\partial L/\partial s$, $\partial L/\partial v$ right, each a sum over the batch.
# - 1 point: the two paths into $c$ and into $x$ added ($\partial L/\partial c_k$ and
#   $\partial L/\partial x_i$ each with two terms), $\partial L/\partial \mu = -\sum_k \partial L/\partial c_k$.
# - 1 point: the simplified form (the box, or an equivalent one in $g$, $\hat x$, $s$), with the
#   meaning of the mean-gradient and the $\hat x$ terms (invariance to shifting and scaling the batch).

# %%
def batchnorm_backward(dy: np.ndarray, x_hat: np.ndarray, std: np.ndarray, gamma: np.ndarray):
    """Gradients of batch normalisation for the upstream gradient dy = dL/dy (n, d), given the
    forward pass's x_hat (n, d), std (1, d) and gamma (1, d):

        dbeta = sum_i dy_i,   dgamma = sum_i dy_i * x_hat_i,   g = dL/dx_hat = gamma * dy,
        dx: backpropagated through the graph above (mu, c = x - mu = x_hat * std, v, s = std,
        x_hat), from your derivation; every sum over the batch is over axis 0.

    Returns (dx, dgamma, dbeta) with the shapes of x (n, d), gamma (1, d) and beta (1, d).
    """
    ### BEGIN SOLUTION
    dbeta = dy.sum(axis=0, keepdims=True)
    dgamma = (dy * x_hat).sum(axis=0, keepdims=True)
    g = gamma * dy
    dx = (g - g.mean(axis=0, keepdims=True)
          - x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std
    return dx, dgamma, dbeta
    ### END SOLUTION


# %% [markdown]
# A derivation by hand deserves a check. `dp.BatchNorm` computes the same forward pass with `dp`
# operations, and `dp` differentiates it automatically: call the layer on a named `Node`, and
# `y.grad(dy)` backpropagates an upstream gradient `dy` of y's shape. The gradients must agree to
# rounding error (a relative error around $10^{-12}$). A random upstream gradient, not all ones,
# so that no term can hide.

# %%
gamma, beta = data_rng.normal(size=(1, 3)), data_rng.normal(size=(1, 3))
dy = data_rng.normal(size=x.shape)

reference = dp.BatchNorm(3, "bn", eps=EPS)
reference.gamma.value, reference.beta.value = gamma, beta
autodiff = reference(Node(x, "x")).grad(dy)

y, x_hat, std = batchnorm_forward(x, gamma, beta)
dx, dgamma, dbeta = batchnorm_backward(dy, x_hat, std, gamma)
for name, mine, theirs in [("dx", dx, autodiff["x"]), ("dgamma", dgamma, autodiff["bn_gamma"]),
                           ("dbeta", dbeta, autodiff["bn_beta"])]:
    error = np.max(np.abs(mine - theirs) / np.maximum(np.abs(mine) + np.abs(theirs), 1e-12))
    print(f"{name:>6}: relative error {error:.1e}")

# %%
check("batchnorm_backward")

# %% [markdown]
# ## 3. Running statistics
#
# At test time there may be no batch at all: one image to classify, and its prediction must not
# depend on which other images happen to be processed with it. So during training the layer
# keeps **running** estimates of every feature's mean and variance, exponential moving averages
# of the batch statistics, updated on every training batch:
#
# $$r_\mu \leftarrow m\, r_\mu + (1 - m)\, \mu_\text{batch}, \qquad
#   r_{\sigma^2} \leftarrow m\, r_{\sigma^2} + (1 - m)\, \sigma^2_\text{batch},$$
#
# with the momentum $m$ (e.g. 0.9) weighing the **old** value, and the batch variance the
# biased one of the forward pass. This is the convention of `dp.BatchNorm` and of Keras; PyTorch
# calls $1 - m$ its "momentum" (default 0.1) and keeps the unbiased variance. The running values
# start at mean 0 and variance 1.
#
# `update_running_statistics` returns the new values and leaves its arguments unchanged.

# %%
def update_running_statistics(running_mean: np.ndarray, running_var: np.ndarray, x: np.ndarray,
                              momentum: float):
    """The running statistics after the batch x (n, d):

        running_mean <- momentum * running_mean + (1 - momentum) * mean_i x_i
        running_var  <- momentum * running_var  + (1 - momentum) * var_i x_i   (biased)

    running_mean, running_var have shape (1, d). Returns (new running_mean, new running_var).
    """
    ### BEGIN SOLUTION
    batch_mean = x.mean(axis=0, keepdims=True)
    batch_var = x.var(axis=0, keepdims=True)
    return (momentum * running_mean + (1 - momentum) * batch_mean,
            momentum * running_var + (1 - momentum) * batch_var)
    ### END SOLUTION


# %% [markdown]
# Batches of 32 examples from a distribution with means $(5, -2, 0)$ and variances $(9, 0.01, 1)$.
# With momentum 0.9, the running statistics forget their start within a few dozen batches and
# then fluctuate around the true values; with momentum 0.99 they fluctuate less, but take
# hundreds of batches to get there.

# %%
fig_running, axes_running = plt.subplots(1, 2, figsize=(9, 3))
true_mean, true_var = np.array([5.0, -2.0, 0.0]), np.array([9.0, 0.01, 1.0])
for momentum, style in [(0.9, "-"), (0.99, ":")]:
    stream = np.random.default_rng(1)
    running_mean, running_var, history = np.zeros((1, 3)), np.ones((1, 3)), []
    for step in range(300):
        batch = stream.normal(true_mean, np.sqrt(true_var), size=(32, 3))
        running_mean, running_var = update_running_statistics(running_mean, running_var, batch, momentum)
        history.append((running_mean[0, 0], running_var[0, 0]))
    history = np.array(history)
    for ax, column, label in zip(axes_running, history.T, ["mean", "variance"]):
        ax.plot(column, linestyle=style, label=f"momentum {momentum}")
for ax, value, label in zip(axes_running, [true_mean[0], true_var[0]], ["mean", "variance"]):
    ax.axhline(value, color="gray", linewidth=1)
    ax.set_xlabel("training batch")
    ax.set_title(f"running {label} of feature 1 (gray: true)")
    ax.legend()
plt.show()

# %%
check("running_statistics")

# %% [markdown]
# ## 4. The layer, in training and in evaluation mode
#
# `MyBatchNorm` puts the pieces together as a `dp` layer. Its parameters $\gamma$ (ones) and
# $\beta$ (zeros) are named Nodes, so that `Model` finds and trains them; its running statistics
# are plain arrays, state but not parameters. In training mode (given), `forward` updates the
# running statistics and returns the normalised batch as a new `Node` whose backward pass is
# **your** `batchnorm_backward`, connected with `custom_op`, the mechanism by which every `dp` op
# declares its forward value and its gradients.
#
# Write the evaluation mode: the same normalisation, scale and shift, but with the **running**
# mean and variance in place of the batch's,
#
# $$y = \gamma\, \frac{x - r_\mu}{\sqrt{r_{\sigma^2} + \varepsilon}} + \beta ,$$
#
# with `dp` operations on the Nodes `x`, `self.gamma` and `self.beta` (arrays mix with Nodes:
# `x - array` is a Node), so that the output is a Node through which the gradient reaches `x`.
# Evaluation does not change the running statistics.

# %%
from dp import custom_op   # custom_op(name, value, (operand, backward), ...) -> Node


# %%
class MyBatchNorm(dp.Layer):
    """Batch normalisation of n features: training normalises with the batch statistics and
    updates the running ones, evaluation (training = False) uses the running statistics."""

    def __init__(self, n: int, name: str, momentum: float = 0.9, eps: float = EPS):
        self.gamma = Node(np.ones((1, n)), f"{name}_gamma")
        self.beta = Node(np.zeros((1, n)), f"{name}_beta")
        self.running_mean, self.running_var = np.zeros((1, n)), np.ones((1, n))
        self.momentum, self.eps = momentum, eps
        self.training = True

    def forward(self, x: Node) -> Node:
        """y = gamma * x_hat + beta: x_hat from the batch statistics in training (which also
        updates the running statistics), from the running statistics in evaluation."""
        if self.training:
            self.running_mean, self.running_var = update_running_statistics(
                self.running_mean, self.running_var, x.value, self.momentum)
            y, x_hat, std = batchnorm_forward(x.value, self.gamma.value, self.beta.value, self.eps)

            def gradient(which):                     # 0: dx, 1: dgamma, 2: dbeta
                return lambda dy: batchnorm_backward(dy, x_hat, std, self.gamma.value)[which]

            return custom_op("batchnorm", y, (x, gradient(0)), (self.gamma, gradient(1)),
                             (self.beta, gradient(2)))
        ### BEGIN SOLUTION
        std = np.sqrt(self.running_var + self.eps)
        return (x - self.running_mean) / std * self.gamma + self.beta
        ### END SOLUTION


# %% [markdown]
# Train the layer's running statistics on 200 batches, then compare the two modes on a batch of
# **one** example. In training mode a single example is its own batch mean: it normalises to
# $\hat x = 0$, whatever it is, and the output is $\beta$. In evaluation mode it is normalised with
# what the layer learned about the data.

# %%
bn = MyBatchNorm(3, "demo")
stream = np.random.default_rng(2)
for step in range(200):
    bn(Node(stream.normal(true_mean, np.sqrt(true_var), size=(32, 3))))
one = Node(np.array([[8.0, -2.1, 0.5]]))
print("running mean", bn.running_mean.round(2), "running var", bn.running_var.round(3))
print("training mode:  ", bn(one).value.round(3))
bn.training = False
print("evaluation mode:", bn(one).value.round(3))

# %%
check("batchnorm_eval")

# %% [markdown]
# ## 5. A deep sigmoid network that learns (not graded)
#
# Notebook 04's problem once more: the two half-moons, and a network with 8 weight layers, 7
# sigmoid layers of 32 units and a linear output layer, trained by plain SGD with mini-batches of 64 and
# learning rate 0.5. Without batch normalisation the loss does not leave $\log 2$, the loss of
# guessing. With a `MyBatchNorm` between each linear layer and its sigmoid, so that every sigmoid
# receives inputs of mean $\beta$ and standard deviation $\gamma$, the same network learns in a
# few hundred steps, trained through your backward pass. Both are evaluated on test points in
# evaluation mode, with the running statistics. It takes a few seconds.

# %%
def make_moons(n: int, noise: float = 0.15, seed: int = 0):
    """n points on two interleaved half-circles (centred at the origin) and their labels (n, 1)."""
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0, np.pi, n)
    label = rng.integers(0, 2, n)
    upper = np.c_[np.cos(angle), np.sin(angle)]
    lower = np.c_[1 - np.cos(angle), 0.5 - np.sin(angle)]
    points = np.where(label[:, None] == 0, upper, lower) + noise * rng.standard_normal((n, 2))
    return points - [0.5, 0.25], label.reshape(-1, 1).astype(float)


x_train, y_train = make_moons(1000)
x_test, y_test = make_moons(500, seed=1)


class DeepSigmoidNetwork(Model):
    """2 -> 32 -> ... -> 32 -> 1: 7 sigmoid layers (optionally batch-normalised) and a linear
    output layer giving the logit of class 1."""

    def __init__(self, batch_norm: bool):
        super().__init__()
        sizes = [2] + [32] * 7
        self.linear = [self.Linear_Layer(sizes[l], sizes[l + 1], f"layer{l + 1}") for l in range(7)]
        self.norms = [MyBatchNorm(32, f"bn{l + 1}") for l in range(7)] if batch_norm else []
        self.out = self.Linear_Layer(32, 1, "out")

    def forward(self, x) -> Node:
        h = Node(x)
        for l, layer in enumerate(self.linear):
            h = layer(h)
            if self.norms:
                h = self.norms[l](h)
            h = h.sigmoid()
        return self.out(h)

    def loss(self, x, y) -> Node:
        return dp.binary_cross_entropy(self.forward(x), y)


histories = {}
for batch_norm in (False, True):
    dp.seed(0)
    net = DeepSigmoidNetwork(batch_norm)
    optimizer = dp.SGD(net, x_train, y_train, lr=0.5, batch_size=64, seed=0)
    _, histories[batch_norm], _ = optimizer.train(steps=600, print_each=0, err_hist=True)
    with dp.no_grad():
        accuracy = np.mean((net.eval().forward(x_test).value > 0) == y_test)
    print(f"batch norm {batch_norm!s:>5}: test accuracy {accuracy:.3f}")

# %%
fig, ax = plt.subplots(figsize=(6, 3.5))
for batch_norm, history in histories.items():
    ax.plot(history, linewidth=1, label="with batch norm" if batch_norm else "without")
ax.axhline(np.log(2), color="gray", linestyle=":", linewidth=1, label="log 2 (guessing)")
ax.set_xlabel("SGD step")
ax.set_ylabel("training loss (BCE)")
ax.set_title("7 sigmoid layers, with and without batch normalisation")
ax.legend()
plt.show()

# %% [markdown]
# ## Questions
#
# **Question 2 (2 points).** Batch normalisation does not change the sigmoid: still
# $\sigma'(z) \le 1/4$. So why does the deep sigmoid network learn with it and not without it?
# Look back at notebook 04's vanishing gradients.

# %% [markdown] answer="why_batchnorm_helps"
# **Model answer.** Without it, the inputs of the sigmoids drift, layer after layer, into the flat
# tails, where $\sigma'(z)$ is far below $1/4$; the gradient is multiplied by such a factor at
# each of the 7 sigmoid layers and vanishes before it reaches the first layers, so the loss stays
# at $\log 2$. Batch normalisation puts every sigmoid's input back at mean $\beta$ and standard
# deviation $\gamma$ (0 and 1 at the start), where the sigmoid is steep, whatever the weights do;
# with $\gamma$ and $\beta$ learned per unit, each layer keeps its sigmoids where they pass
# gradient on, and the learning rate can be large without the inputs blowing up.
#
# **Rubric (2 points).**
# - 1 point: without it, the pre-activations saturate the sigmoids, and the product of small
#   derivatives over the layers makes the gradient vanish.
# - 1 point: with it, the inputs of every sigmoid are renormalised to a steep region (mean
#   $\beta$, scale $\gamma$, learned), whatever the weights; larger learning rates are tolerated.

# %% [markdown]
# **Question 3 (1 point).** Each linear layer here has a bias $b$ and is followed by batch
# normalisation. What gradient does $b$ get, and what would you change in the network?

# %% [markdown] answer="bias_before_batchnorm"
# **Model answer.** Zero: the normalisation subtracts the batch mean, and adding $b$ to every
# example of a feature shifts the mean by $b$ too, so $\hat x$ (and the loss) does not depend on
# $b$; the gradient through the mean path cancels the direct one (the "minus the mean of the
# gradient" term). The bias is useless there: drop it, $\beta$ takes its role.
#
# **Rubric (1 point).** Zero gradient, because the normalisation removes any constant shift;
# drop the bias ($\beta$ does its job).

# %% [markdown]
# ## Things to try
#
# Set `momentum=0.99` in the layers, or evaluate in training mode (`net.train()` before computing
# the test accuracy) on a test batch of 1 example: what happens, and why? What changes with
# learning rate 0.05?

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the batch-normalisation exercise, written as a layer of its high-level API.
