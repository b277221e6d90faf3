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
# # 11 — Convolution, pooling and a histogram classifier
#
# A dense layer connects every input to every output. For a signal — a sound, a row of pixels,
# a histogram — that ignores what we know: a pattern means the same thing wherever it occurs.
# A **convolutional** layer slides one small kernel along the signal and computes the same
# weighted sum at every position, so it finds a pattern anywhere with a handful of weights.
# **Max-pooling** then keeps the strongest response in each short window, which makes the
# result insensitive to small shifts and halves the length.
#
# You will write both ops with their backward passes, the way `dp` defines its own ops, and then
# train the small convolutional network of the ArrayFlow paper (Nicolae) that tells
# whether a histogram of 500 numbers comes from the standard normal distribution. Finally you
# fool that network: gradient *ascent on its input* turns a histogram it rejects into one it
# accepts — and the changed histogram need not look normal at all.
#
# | task | you write | points |
# |---|---|---|
# | `conv1d_grad` | `correlate` and `conv1d`: cross-correlation, input and kernel gradients | 3 |
# | `maxpool_grad` | `maxpool1d`: max-pooling and its backward pass | 2 |
# | `histogram_classifier` | the network's `forward` and `loss`, its training, and `predict` | 3 |
# | `adversarial_input` | `adversarial`: gradient ascent on the input | 2 |
#
# Two questions ask you to explain or derive, in a few sentences each, in the cell under each
# question; they are graded by hand (4 points), not by `check`.
#
# Each task has a `check("...")` cell that runs the grader's checks on your code (the grader later
# uses other inputs and shapes, and its own test histograms).

# %%
import math

import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Model, Node
from autograder import check

# %% [markdown]
# ## 1. Cross-correlation
#
# For a signal $x$ of length $L$ and a kernel $k$ of length $K \le L$, the **cross-correlation**
# in 'valid' mode (the kernel always lies entirely inside the signal) is
#
# $$y_i = \sum_{j=0}^{K-1} x_{i+j}\, k_j, \qquad i = 0, \dots, n - 1, \quad n = L - K + 1 .$$
#
# The **convolution** of signal processing flips the kernel, $(x * k)_i = \sum_j x_{i-j} k_j$:
# `np.convolve(x, k, "valid")` equals the cross-correlation with `k[::-1]`. Deep-learning
# libraries call the cross-correlation a "convolution": the kernel is learned, so whether it is
# stored flipped makes no difference to the model. It makes a difference to the gradients, as
# you will see.
#
# We work along the last axis, on a batch: $x$ has shape $(B, L)$, each row one signal, and one
# kernel of shape $(K,)$ serves every row, so $y$ has shape $(B, n)$. The backward pass below
# also needs one kernel *per row*, of shape $(B, K)$; `correlate` handles both.
#
# A loop over the $K$ kernel entries is fast (kernels are short): entry $j$ contributes
# $k_j$ times the slice $x_{j}, \dots, x_{j+n-1}$ of every row.

# %%
def correlate(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """'valid' cross-correlation along the last axis: y[..., i] = sum_j x[..., i + j] k[..., j].

    x: (..., L). k: (K,), one kernel for every row, or (..., K), one kernel per row, with K <= L.
    Returns y of shape (..., L - K + 1).
    """
    ### BEGIN SOLUTION
    K = k.shape[-1]
    n = x.shape[-1] - K + 1
    return sum(x[..., j:j + n] * k[..., j, None] for j in range(K))
    ### END SOLUTION


# %%
signal, kernel = np.array([1.0, 2.0, 0.0, -1.0, 3.0, 1.0]), np.array([1.0, 0.0, -2.0])
print("correlate:                ", correlate(signal, kernel))
print("np.correlate(valid):      ", np.correlate(signal, kernel, "valid"))
print("np.convolve, kernel flipped:", np.convolve(signal, kernel[::-1], "valid"))

# %% [markdown]
# ### The backward pass
#
# Let $L$ be the loss and $g_i = \partial L / \partial y_i$ the upstream gradient. Write out a
# small case, $K = 3$ and a signal of length 5 ($n = 3$):
#
# $$\begin{aligned}
# y_0 &= x_0 k_0 + x_1 k_1 + x_2 k_2 \\
# y_1 &= x_1 k_0 + x_2 k_1 + x_3 k_2 \\
# y_2 &= x_2 k_0 + x_3 k_1 + x_4 k_2
# \end{aligned}$$
#
# **The kernel gradient.** $k_j$ multiplies $x_{i+j}$ in $y_i$, so
#
# $$\frac{\partial L}{\partial k_j} = \sum_i g_i\, x_{i+j}
#   \qquad\text{e.g.}\quad \frac{\partial L}{\partial k_1} = g_0 x_1 + g_1 x_2 + g_2 x_3 .$$
#
# This is again a cross-correlation — of $x$ with $g$ as the kernel (length $n$; the output has
# length $L - n + 1 = K$). Entry $j$ pairs $g_i$ with $x_{i+j}$, exactly as the forward pass paired
# $k_j$ with $x_{i+j}$: **nothing is reversed**. The kernel is shared by all rows of the batch,
# so its gradient is the sum of the rows' contributions.
#
# **The input gradient.** $x_m$ appears in every output whose window covers it, with $k_{m-i}$:
#
# $$\frac{\partial L}{\partial x_m} = \sum_{i + j = m} g_i\, k_j, \qquad
# \begin{aligned}
# \partial L / \partial x_0 &= g_0 k_0 \\
# \partial L / \partial x_1 &= g_0 k_1 + g_1 k_0 \\
# \partial L / \partial x_2 &= g_0 k_2 + g_1 k_1 + g_2 k_0 \\
# \partial L / \partial x_3 &= g_1 k_2 + g_2 k_1 \\
# \partial L / \partial x_4 &= g_2 k_2 .
# \end{aligned}$$
#
# Read along a row: $g$ runs forwards while $k$ runs backwards. This is a *convolution* of $g$
# with $k$, in **'full'** mode: the output has length $n + K - 1 = L$, and at the ends the
# kernel overhangs $g$, which counts as zeros (only one window covers $x_0$). As a
# cross-correlation: pad $g$ with $K - 1$ zeros on each side and correlate it with the
# **flipped** kernel,
#
# $$\frac{\partial L}{\partial x} = \mathrm{correlate}\big([\underbrace{0, \dots, 0}_{K-1}, g,
#   \underbrace{0, \dots, 0}_{K-1}],\; k_{K-1}, \dots, k_0\big) .$$
#
# Without the padding ('valid' mode) the result would be $2(K - 1)$ entries too short; without
# the flip it would pair $g_0$ with $k_0$ at $x_1$ where the forward pass paired it with $k_1$.
# With a symmetric kernel, such as $[1, 2, 1]$, neither the flip here nor a reversed kernel
# gradient would show: test with a kernel that is not symmetric.
#
# ### An op with a hand-written backward pass
#
# As in notebook 07, `custom_op` makes a `Node` from its value and, for each operand, a function
# `backward(g)` that returns the gradient of the loss with respect to that operand.

# %%
from dp import custom_op   # custom_op(name, value, (operand, backward), ...) -> Node


# %% [markdown]
# Write `conv1d(x, k)` with `correlate` for the value and for both gradients.

# %%
def conv1d(x: Node, k: Node) -> Node:
    """1-d cross-correlation, 'valid', of the rows of x (B, L) with the kernel k (K,): (B, L - K + 1).

    d/dk = correlate(x, g) summed over the rows   (shape (K,): same orientation as k)
    d/dx = correlate(g padded with K - 1 zeros on each side, k flipped)   (shape (B, L))
    """
    ### BEGIN SOLUTION
    K = k.shape[0]

    def to_x(g):                        # a 'full' convolution of g with k
        padded = np.pad(g, [(0, 0)] * (g.ndim - 1) + [(K - 1, K - 1)])
        return correlate(padded, k.value[::-1])

    def to_k(g):                        # x correlated with g, row by row, summed over the rows
        return correlate(x.value, g).sum(axis=0)

    return custom_op("conv1d", correlate(x.value, k.value), (x, to_x), (k, to_k))
    ### END SOLUTION


# %% [markdown]
# `dp` has the same op, `Node.conv1d`, and can check your gradients against central differences:
# `dp.gradcheck(fn, x, k)` contracts the output with a random upstream gradient and compares
# every element.

# %%
rng = np.random.default_rng(0)
x_demo, k_demo = rng.normal(size=(2, 9)), np.array([1.0, -0.5, 2.0, 0.3])   # not symmetric
y_demo = conv1d(Node(x_demo), Node(k_demo))
print("same values as dp.Node.conv1d:", np.allclose(y_demo.value, Node(x_demo).conv1d(k_demo).value))
print("largest relative error against central differences:",
      dp.gradcheck(conv1d, x_demo, k_demo))

# %%
check("conv1d_grad")

# %% [markdown]
# ## 2. Max-pooling
#
# `maxpool1d(x, n)` cuts the last axis into consecutive, non-overlapping windows of $n$ entries
# (here $L$ is a multiple of $n$) and keeps the largest entry of each: $y_c = \max_{r < n}
# x_{cn + r}$, of length $L / n$.
#
# **The backward pass routes the gradient.** Near a given input, $y_c$ *is* the winning entry
# $x_{cn + r^*}$ with $r^* = \arg\max_r x_{cn + r}$: nudge the winner and $y_c$ moves with it;
# nudge any other entry of the window (by less than its gap to the maximum) and nothing changes.
# So the whole upstream gradient $g_c$ goes to the winner and the others get zero:
#
# $$\frac{\partial L}{\partial x_{cn + r}} =
#   \begin{cases} g_c & r = r^* \\ 0 & \text{otherwise.} \end{cases}$$
#
# The paper's example, with $n = 2$: $x = [3, 1, -5, 0, 2, 2, 9, 5]$ gives $y = [3, 0, 2, 9]$, and
# the gradient $[g_0, 0, 0, g_1, g_2, 0, g_3, 0]$. On a tie, as in the window $[2, 2]$, the
# maximum is not differentiable; like `np.argmax` (and `dp`), give the gradient to the first
# maximum. (The checks use inputs without ties.)
#
# *Hint:* `x.reshape(B, L // n, n)` makes the windows the last axis; `np.eye(n)[i]` is a row
# with a 1 at position `i`, and works for arrays of indices too.

# %%
def maxpool1d(x: Node, n: int) -> Node:
    """Max over non-overlapping windows of n along the last axis of x (B, L), L a multiple of n:
    shape (B, L // n).  d/dx = g at the first maximum of each window, 0 elsewhere."""
    ### BEGIN SOLUTION
    windows = x.value.reshape(x.shape[:-1] + (x.shape[-1] // n, n))   # (B, L / n, n)
    first = np.eye(n)[windows.argmax(axis=-1)]                          # one-hot of each winner

    def to_x(g):
        return (first * g[..., None]).reshape(x.shape)

    return custom_op("maxpool1d", windows.max(axis=-1), (x, to_x))
    ### END SOLUTION


# %%
x_paper = Node(np.array([[3.0, 1, -5, 0, 2, 2, 9, 5]]), "x")
y_paper = maxpool1d(x_paper, 2)
print("y =", y_paper.value)
print("gradient for g = [1, 2, 3, 4]:", (y_paper * np.array([1.0, 2, 3, 4])).sum().grad(1)["x"])
print("largest relative error against central differences:",
      dp.gradcheck(lambda x: maxpool1d(x, 3), rng.normal(size=(3, 12))))

# %%
check("maxpool_grad")

# %% [markdown]
# ## 3. Is it the standard normal?
#
# A glance at a histogram tells a person whether the data look Gaussian. The ArrayFlow paper
# poses this as a small vision problem: draw 500 numbers, either from the standard normal
# $\mathcal{N}(0, 1)$ (**class 1**) or from some other distribution (**class 0**), count them in
# 16 bins $h_1, \dots, h_{16}$, and give the classifier the fractions
#
# $$x_i = \frac{h_i}{\sum_j h_j} .$$
#
# Our bins cover $[-4, 4]$, each $0.5$ wide (numbers outside are not counted). Class 0 draws
# from one of seven families, each with random parameters, all clearly different from
# $\mathcal{N}(0, 1)$ with 500 numbers (some have mean 0 and variance 1, like the standard normal:
# the shape has to tell). The grader draws its test histograms with this same code.

# %%
BINS, LOW, HIGH, SAMPLES = 16, -4.0, 4.0, 500

CLASS_0 = {      # family -> (rng, n) -> n samples (n may be a shape)
    "uniform":        lambda rng, n: rng.uniform(-1, 1, n) * rng.uniform(1, 3),
    "Laplace":        lambda rng, n: rng.laplace(0, rng.uniform(0.5, 1), n),
    "shifted normal": lambda rng, n: rng.normal(rng.choice([-1, 1]) * rng.uniform(0.5, 1.5), 1, n),
    "narrow normal":  lambda rng, n: rng.normal(0, rng.uniform(0.4, 0.7), n),
    "wide normal":    lambda rng, n: rng.normal(0, rng.uniform(1.5, 2.5), n),
    "exponential":    lambda rng, n: rng.choice([-1, 1]) * (rng.exponential(1, n) - 1),
    "two bumps":      lambda rng, n: rng.normal(0, 0.5, n) + rng.choice([-1, 1], n) * rng.uniform(1, 2),
}


def histogram(samples: np.ndarray) -> np.ndarray:
    """The normalised 16-bin histogram on [-4, 4] of each row of samples: (n, 500) -> (n, 16)."""
    counts = np.stack([np.histogram(row, BINS, (LOW, HIGH))[0] for row in samples])
    return counts / counts.sum(axis=1, keepdims=True)


def histograms(n: int, rng: np.random.Generator) -> tuple:
    """n labelled examples: x (n, 16) histograms, y (n,) labels, 1 for the standard normal."""
    y = rng.integers(2, size=n)
    families = list(CLASS_0.values())
    samples = [rng.normal(size=SAMPLES) if label == 1 else
               families[rng.integers(len(families))](rng, SAMPLES) for label in y]
    return histogram(np.stack(samples)), y.astype(float)


edges = np.linspace(LOW, HIGH, BINS + 1)
normal_cdf = np.array([0.5 * (1 + math.erf(e / math.sqrt(2))) for e in edges])
NORMAL_HISTOGRAM = np.diff(normal_cdf) / (normal_cdf[-1] - normal_cdf[0])   # what class 1 averages to

x_train, y_train = histograms(10_000, np.random.default_rng(1))
x_test, y_test = histograms(2_000, np.random.default_rng(2))
print(x_train.shape, y_train.shape, "fraction of class 1:", y_train.mean())

# %%
centres = (edges[:-1] + edges[1:]) / 2
examples = {"standard normal (class 1)": lambda rng, n: rng.normal(size=n), **CLASS_0}
fig, axes = plt.subplots(2, 4, figsize=(11, 4.5), sharex=True, sharey=True)
for ax, (family, draw) in zip(axes.flat, examples.items()):
    x_example = histogram(draw(np.random.default_rng(3), (1, SAMPLES)))[0]
    ax.bar(centres, x_example, width=0.5, color="tab:blue" if "class 1" in family else "tab:orange")
    ax.plot(centres, NORMAL_HISTOGRAM, "k--", linewidth=1)
    ax.set_title(family, fontsize=10)
fig.suptitle("one histogram of each kind; dashed: the standard normal's expected histogram")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 4. The classifier
#
# The paper's network, a function $f : \mathbb{R}^{16} \to \mathbb{R}$ with $f(x) > 0$ meaning
# class 1:
#
# $$\begin{aligned}
# c_i &= \mathrm{correlate}(x, k_i), \quad i = 1, 2, 3 && \text{three kernels of width 5: } 16 \to 12 \\
# p_i &= \mathrm{maxpool}(c_i, 2) && 12 \to 6 \\
# v &= \mathrm{concat}(p_1, p_2, p_3) && 18 \\
# h &= \tanh(v W_1 + b_1) && 18 \to 7 \\
# f &= h W_2 + b_2 && 7 \to 1
# \end{aligned}$$
#
# (The paper's hidden layer is linear; with a $\tanh$ our network reached a somewhat higher
# accuracy.)
#
# **The loss.** $\sigma(f) = 1 / (1 + e^{-f})$ is the probability of class 1, and the
# cross-entropy $-y \log \sigma(f) - (1 - y) \log(1 - \sigma(f))$ simplifies to
# $\log(1 + e^{f}) - y f$: computed from $f$ directly, it never takes the log of 0.
# `dp.binary_cross_entropy(f, y)` is exactly this, averaged over the batch.
#
# `HistogramNet` is given its parameters; keep their names and the architecture: the grader
# grades the trained classifier, and evaluates your adversarial inputs (section 5), by computing
# $f$ with its own forward pass of this network from your trained parameters.
# Write `forward` and `loss`:
#
# * use `dp`'s own ops, `x.conv1d(k)` and `.maxpool1d(2)` — the same as yours — so that a slip in
#   sections 1–2 costs only those points (with your `conv1d` and `maxpool1d` you should get the
#   same network);
# * `dp.concatenate([p1, p2, p3], axis=1)` joins the pooled features into $v$, of shape (n, 18);
# * the output layer gives shape (n, 1); return its column, `[:, 0]`, of shape (n,).

# %%
class HistogramNet(Model):
    """f(x) for histograms x (n, 16): 3 kernels of width 5, max-pool 2, 18 -> 7 (tanh) -> 1."""

    def __init__(self, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.k1 = Node(rng.normal(size=5), "k1")
        self.k2 = Node(rng.normal(size=5), "k2")
        self.k3 = Node(rng.normal(size=5), "k3")
        self.hidden = self.Tanh_Layer(18, 7, "hidden")
        self.out = self.Linear_Layer(7, 1, "out")

    def forward(self, x) -> Node:
        """f of shape (n,) for histograms x of shape (n, 16) (an array or a Node)."""
        ### BEGIN SOLUTION
        x = x if isinstance(x, Node) else Node(x)
        pooled = [x.conv1d(k).maxpool1d(2) for k in (self.k1, self.k2, self.k3)]   # 3 x (n, 6)
        return self.out(self.hidden(dp.concatenate(pooled, axis=1)))[:, 0]
        ### END SOLUTION

    def loss(self, x, y) -> Node:
        """The mean logistic loss log(1 + e^f) - y f for labels y (n,) in {0, 1}."""
        ### BEGIN SOLUTION
        return dp.binary_cross_entropy(self.forward(x), y)
        ### END SOLUTION


# %% [markdown]
# ### Training
#
# Train `net` with `dp.Adam` on mini-batches of 100 histograms, and keep the loss of every step
# in `loss_hist` (`optimizer.train(..., err_hist=True)` returns it). A few thousand steps take a
# few seconds; aim for a test accuracy of at least 0.99 — the grader requires **0.99** on its own
# test histograms, both from `predict` and from its own forward pass with `net`'s trained
# parameters (so `predict` must use the trained `net`).

# %%
dp.seed(0)
net = HistogramNet()
loss_hist = []
### BEGIN SOLUTION
optimizer = dp.Adam(net, x_train, y_train, lr=0.01, batch_size=100, seed=0)
_, loss_hist, _ = optimizer.train(steps=4000, print_each=1000, err_hist=True)
### END SOLUTION

# %%
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(loss_hist, color="tab:blue", alpha=0.3, linewidth=0.5, label="one batch")
window = 100
if len(loss_hist) > window:
    ax.plot(np.arange(window - 1, len(loss_hist)),
            np.convolve(loss_hist, np.ones(window) / window, "valid"), color="tab:blue",
            label=f"mean of {window} steps")
ax.set_yscale("log")
ax.set_xlabel("Adam step")
ax.set_ylabel("logistic loss")
ax.set_title("training the histogram classifier")
ax.legend()
plt.show()

# %% [markdown]
# ### Prediction
#
# `predict(histograms)` returns the label, 0 or 1, of each histogram: class 1 where $f > 0$.
# Build no graph (`with dp.no_grad():`).

# %%
def predict(histograms: np.ndarray) -> np.ndarray:
    """Labels (n,), 1 where f(x) > 0 else 0, for histograms of shape (n, 16)."""
    ### BEGIN SOLUTION
    with dp.no_grad():
        return (net.forward(histograms).value > 0).astype(int)
    ### END SOLUTION


# %%
print("test accuracy:", np.mean(predict(x_test) == y_test))

# %%
check("histogram_classifier")

# %% [markdown]
# ## 5. Fooling the classifier
#
# The gradient of $f$ with respect to the **input** says how to change a histogram to make the
# network more confident that it is normal. Make $x$ a named leaf, `Node(x, "x")`, and `grad`
# returns $\nabla_x f$ along with the parameters' gradients. Starting from a class-0 histogram
# $x_0$ with $f(x_0) < 0$, the paper repeats
#
# $$x_{t+1} = x_t + \epsilon\, \nabla_x f(x_t)$$
#
# until $f(x_T) > 0$: the network now calls the histogram class 1. With small steps $f$ rises
# (almost) every step — the idea behind **adversarial examples**.
#
# We also want $x$ to stay a histogram — entries $\ge 0$ that sum to 1 — or the network is being
# fooled by an input it could never see. So each step
#
# 1. removes the gradient's mean, $d = \nabla_x f - \overline{\nabla_x f}$ (a step along $d$ keeps
#    $\sum_i x_i = 1$), and scales it so that its largest entry is $\epsilon$:
#    $x \leftarrow x + \epsilon\, d / \max_i |d_i|$;
# 2. clips negative entries to 0 and divides by the sum.
#
# `adversarial` returns the whole path $x_0, x_1, \dots, x_T$ as an array of shape $(T + 1, 16)$.
# The grader calls `adversarial(net, x0)` (with your defaults) on histograms that your trained
# `net` rejects, recomputes $f$ along your path from your parameters, and requires that
#
# * the path starts at $x_0$ and every $x_t$ is a histogram (16 entries $\ge 0$ summing to 1);
# * every step is small: no bin changes by more than 0.05 from $x_t$ to $x_{t+1}$;
# * it stops at the first histogram that the network accepts: $f(x_t) < 0$ for $t < T$ and
#   $f(x_T) > 0$.

# %%
def adversarial(net: HistogramNet, x0: np.ndarray, step: float = 0.002,
                max_steps: int = 1000) -> np.ndarray:
    """Gradient ascent on the input, from a histogram x0 (16,) with f(x0) < 0: steps along grad f
    with its mean removed, scaled to at most `step` per bin, clipped at 0 and renormalised, until
    f > 0. Returns the path x0, x1, ..., xT as an array (T + 1, 16); xT is the first with f > 0."""
    ### BEGIN SOLUTION
    path = [np.array(x0, dtype=float)]
    for _ in range(max_steps):
        x = path[-1]
        f = net.forward(Node(x[None, :], "x"))
        if f.value[0] > 0:
            break
        gradient = f.sum().grad(1)["x"][0]
        direction = gradient - gradient.mean()
        x = np.maximum(x + step * direction / np.abs(direction).max(), 0)
        path.append(x / x.sum())
    return np.array(path)
    ### END SOLUTION


# %%
def f_of(x: np.ndarray) -> np.ndarray:
    """f of one histogram (16,) or of several (n, 16), without building a graph."""
    with dp.no_grad():
        return net.forward(np.atleast_2d(x)).value


x0 = histogram(CLASS_0["uniform"](np.random.default_rng(4), (1, SAMPLES)))[0]
path = adversarial(net, x0)
f_path = f_of(path)
print(f"{len(path) - 1} steps: f from {f_path[0]:.2f} to {f_path[-1]:.2f}; "
      f"|x_T - x_0|_1 = {np.abs(path[-1] - x0).sum():.3f}")

fig, axes = plt.subplots(1, 3, figsize=(13, 3.5), gridspec_kw={"width_ratios": [2, 2, 1.4]})
for ax, x, f, when in ((axes[0], x0, f_path[0], "before"), (axes[1], path[-1], f_path[-1], "after")):
    ax.bar(centres, x, width=0.5, color="tab:orange" if when == "before" else "tab:purple")
    ax.plot(centres, NORMAL_HISTOGRAM, "k--", linewidth=1, label="standard normal")
    ax.set_ylim(0, 1.15 * max(x0.max(), path[-1].max(), NORMAL_HISTOGRAM.max()))
    ax.set_title(f"{when}: f = {f:+.2f} (class {int(f > 0)})")
    ax.set_xlabel("bin centre")
axes[0].set_ylabel("fraction of the samples")
axes[0].legend()
axes[2].plot(f_path, marker=".")
axes[2].axhline(0, color="gray", linewidth=1)
axes[2].set_xlabel("step t")
axes[2].set_ylabel("f(x_t)")
axes[2].set_title("gradient ascent on the input")
fig.tight_layout()
plt.show()

# %%
check("adversarial_input")

# %% [markdown]
# ## Questions
#
# **Question 1 (2 points).** Your max-pool backward passes each window's gradient to one input.
# Why is 0 the right derivative for the other inputs of the window? What does it say about how
# a pooled feature reacts to small changes of those inputs, and what happens when two inputs of a
# window tie for the maximum?

# %% [markdown] answer="maxpool_winners"
# **Model answer.** The output of a window is its largest input; a small enough change of any
# other input leaves the maximum, and so the output, unchanged: its derivative is 0, and the
# whole gradient goes to the winner, whose derivative is 1. That is why pooled features are
# robust to small changes in the losers: only the winner matters, until a loser overtakes it. At
# a tie the maximum has a kink and no derivative: any split of the gradient between the tied
# inputs summing to 1 is a subgradient, and an implementation chooses one (`argmax` picks the
# first).
#
# **Rubric (2 points).**
# - 1 point: a loser's small change does not change the output (derivative 0), so the pooled
#   feature ignores small changes of the losers.
# - 1 point: a tie is a kink, where a convention (the first maximum, or a split) chooses a
#   subgradient.

# %% [markdown]
# **Question 2 (2 points).** Your network of 156 parameters tells normal from non-normal
# histograms of 500 numbers almost perfectly, yet a change to a uniform histogram that still
# looks flat to a person makes it "normal" to the network. How can both be true? Look at which
# bins the attack changed most, and at what the network computes from a histogram.

# %% [markdown] answer="adversarial_features"
# **Model answer.** The network does not see "normal" the way a person does: it computes a few
# features, the responses of its three kernels pooled over the bins, and a linear decision on
# them. On real samples those features separate the classes well, but they are not the only
# thing that distinguishes a normal histogram. The gradient points exactly along the directions
# that move those features, so the attack changes the few bins (the patterns of the kernels)
# that matter to them, by small amounts each, and leaves the rest: the features cross the
# decision boundary while the histogram as a whole stays flat. High accuracy on the data says
# nothing about inputs that the data never contains.
#
# **Rubric (2 points).**
# - 1 point: the network decides on a few features (kernel responses), not on the whole shape.
# - 1 point: the gradient ascent moves exactly those features with small changes to a few bins;
#   accuracy on real data says nothing about such inputs.

# %% [markdown]
# Things to try: how does the change $\lVert x_T - x_0 \rVert_1$ depend on the step and on the
# family of $x_0$? Does an attack made against one trained network fool a second one, trained
# from another seed?

# %% [markdown]
# ## References
#
# - Nicolae, A. "Deep learning framework from scratch using NumPy" (ArrayFlow). Microsoft Corp., Bellevue, Washington; code and demos: https://github.com/a-nico/ArrayFlow.
#   This notebook draws on the convolution and max-pooling ops with their derivatives, the histogram classifier and its adversarial input.
# - Yu, D. et al. "An Introduction to Computational Networks and the Computational Network Toolkit", chapter "Computational Network". Microsoft Research; LyX source `CNTKBook_CN_Chapter.lyx` in https://github.com/Microsoft/CNTK (revision d67eba8, 2018).
#   This notebook draws on convolution and pooling as nodes of a computational network.
