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
# # 05 — Weight initialisation
#
# Notebook 04 ended with tanh and ReLU networks that kept their gradients through ten layers.
# That was no accident: `dp` initialises their weights with **Xavier/Glorot** initialisation.
# Draw the same weights a little larger or a little smaller and a deep network is hopeless before
# training starts: its activations die out, saturate, or grow into the millions, layer after
# layer, and so do its gradients. In this notebook you derive how large initial weights should
# be, implement the two standard answers (Glorot & Bengio 2010 for tanh, He et al. 2015 for
# ReLU), and *measure* what they do to the activations of a 10-layer network.
#
# | task | you write | points |
# |---|---|---|
# | `xavier_init` | `xavier_uniform` and `xavier_normal` | 3 |
# | `he_init` | `he_uniform` and `he_normal` | 3 |
# | `activation_statistics` | `activation_statistics(weights, activation, x)`, and the plot of the per-layer standard deviations | 4 |
#
# Two questions ask you to explain or derive, in a few sentences each, in the cell under each
# question; they are graded by hand (4 points), not by `check`.
#
# Each task ends with a `check("...")` cell that runs the grader's checks on your code (with
# other sizes and seeds than the ones the grader uses later).

# %%
import numpy as np
import matplotlib.pyplot as plt

from dp import Node
from autograder import check

# %% [markdown]
# ## 1. How large should the weights be?
#
# A layer maps a row $x \in \mathbb{R}^{n_\text{in}}$ to $z = x W$ with $W$ of shape
# $(n_\text{in}, n_\text{out})$ (one example per row, as in `dp`), so each output is a sum of
# $n_\text{in}$ terms,
#
# $$z_j = \sum_{i=1}^{n_\text{in}} x_i\, W_{ij}.$$
#
# $n_\text{in}$ is the layer's **fan-in** and $n_\text{out}$ its **fan-out**. Draw the weights
# independently with mean 0 and variance $\operatorname{Var}(W)$, independent of the inputs.
# The variance of a sum of independent terms is the sum of their variances, and
# $\operatorname{Var}(x_i W_{ij}) = \mathbb{E}[x_i^2]\operatorname{Var}(W)$ when $W_{ij}$ has
# mean 0, so
#
# $$\operatorname{Var}(z_j) = n_\text{in}\, \operatorname{Var}(W)\, \mathbb{E}[x_i^2].$$
#
# Each layer multiplies the signal's second moment by $n_\text{in} \operatorname{Var}(W)$. Ten
# layers multiply it by the tenth power of that: with $n_\text{in} = 100$ and weights from
# $N(0, 1)$, by $100^{10}$. The factor must be 1.
#
# **Xavier/Glorot** (Glorot & Bengio 2010). For activations that behave like the identity near 0
# (tanh, or no activation at all), $\mathbb{E}[x^2] = \operatorname{Var}(x)$ carries over from
# layer to layer, so the forward pass wants $\operatorname{Var}(W) = 1 / n_\text{in}$. The
# backward pass, $\partial L / \partial x_i = \sum_j W_{ij}\, \partial L / \partial z_j$, sums
# over the $n_\text{out}$ outputs instead and wants $1 / n_\text{out}$. The compromise is the
# harmonic mean:
#
# $$\operatorname{Var}(W) = \frac{2}{n_\text{in} + n_\text{out}}.$$
#
# **He** (He et al. 2015). A ReLU sets half of its inputs to zero: for $z$ symmetric around 0,
# $\mathbb{E}[\operatorname{relu}(z)^2] = \tfrac12 \operatorname{Var}(z)$, so every ReLU layer
# halves the second moment. Doubling the weights' variance makes up for it:
#
# $$\operatorname{Var}(W) = \frac{2}{n_\text{in}}.$$
#
# Each comes in two distributions with that variance:
#
# * **normal**: $W \sim N(0, \sigma^2)$ with $\sigma = \sqrt{\operatorname{Var}(W)}$;
# * **uniform**: $W \sim U(-a, a)$, whose variance is $a^2 / 3$, so
#   $a = \sqrt{3 \operatorname{Var}(W)}$: $a = \sqrt{6 / (n_\text{in} + n_\text{out})}$ for Xavier
#   and $a = \sqrt{6 / n_\text{in}}$ for He.
#
# ## 2. The initialisers
#
# Every initialiser has the signature `init(fan_in, fan_out, rng)` and returns a new array of
# shape **(fan_in, fan_out)**. Draw all random numbers from the generator `rng` you are given
# (a `np.random.Generator`), so that the same seed gives the same weights: `rng.uniform(low,
# high, size)` and `rng.normal(loc, scale, size)`. Mind that `rng.normal` takes the **standard
# deviation** as `scale`, not the variance.
#
# Here is an initialiser that ignores the fans, the naive choice: $W \sim N(0, \text{std}^2)$.

# %%
def normal_init(std: float):
    """An initialiser W ~ N(0, std^2) of shape (fan_in, fan_out), whatever the fans."""
    def init(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(0.0, std, size=(fan_in, fan_out))
    return init


# %% [markdown]
# Now write Xavier's two initialisers.

# %%
def xavier_uniform(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """Xavier/Glorot uniform: W ~ U(-a, a) with a = sqrt(6 / (fan_in + fan_out)),
    so that Var(W) = 2 / (fan_in + fan_out). Returns an array of shape (fan_in, fan_out)."""
    ### BEGIN SOLUTION
    a = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-a, a, size=(fan_in, fan_out))
    ### END SOLUTION


def xavier_normal(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """Xavier/Glorot normal: W ~ N(0, 2 / (fan_in + fan_out)).
    Returns an array of shape (fan_in, fan_out)."""
    ### BEGIN SOLUTION
    return rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), size=(fan_in, fan_out))
    ### END SOLUTION


# %%
W = xavier_uniform(300, 500, np.random.default_rng(0))
print(W.shape, f"variance {W.var():.3e}, expected 2 / (300 + 500) = {2 / 800:.3e}")

# %%
check("xavier_init")

# %% [markdown]
# And He's two initialisers.

# %%
def he_uniform(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """He uniform: W ~ U(-a, a) with a = sqrt(6 / fan_in), so that Var(W) = 2 / fan_in.
    Returns an array of shape (fan_in, fan_out)."""
    ### BEGIN SOLUTION
    a = np.sqrt(6.0 / fan_in)
    return rng.uniform(-a, a, size=(fan_in, fan_out))
    ### END SOLUTION


def he_normal(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """He normal: W ~ N(0, 2 / fan_in). Returns an array of shape (fan_in, fan_out)."""
    ### BEGIN SOLUTION
    return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
    ### END SOLUTION


# %%
W = he_normal(300, 500, np.random.default_rng(0))
print(W.shape, f"variance {W.var():.3e}, expected 2 / 300 = {2 / 300:.3e}")

# %%
check("he_init")

# %% [markdown]
# ## 3. Activation statistics
#
# The argument above assumed independence and infinitely wide layers. Check it by experiment:
# push a batch through a deep network and look at the activations of every layer. The network
# has no biases (they start at zero anyway), and $L$ weight matrices $W^{(1)}, \dots, W^{(L)}$:
#
# $$h^{(0)} = X, \qquad h^{(l)} = \operatorname{act}\big(h^{(l-1)} W^{(l)}\big), \quad l = 1, \dots, L.$$
#
# `activation_statistics(weights, activation, x)` returns two arrays of shape $(L,)$: the mean
# and the standard deviation of **all entries** of $h^{(l)}$ (over the examples and the units
# together; `np.std`, which divides by the number of entries), for $l = 1, \dots, L$: the input
# $h^{(0)}$ is not included. `activation` is a key of `ACTIVATIONS`.

# %%
ACTIVATIONS = {
    "linear": lambda z: z,
    "tanh": np.tanh,
    "relu": lambda z: np.maximum(z, 0.0),
}


def activation_statistics(weights: list, activation: str, x: np.ndarray) -> tuple:
    """Means and standard deviations of the activations of each layer.

    weights: the weight matrices [W_1, ..., W_L], W_l of shape (n_{l-1}, n_l);
    activation: "linear", "tanh" or "relu"; x: the input batch h_0, shape (n, n_0).
    h_l = act(h_{l-1} @ W_l). Returns (means, stds), arrays of shape (L,): the mean and the
    standard deviation of all entries of h_l, for l = 1..L.
    """
    ### BEGIN SOLUTION
    act = ACTIVATIONS[activation]
    means, stds = [], []
    h = x
    for W in weights:
        h = act(h @ W)
        means.append(h.mean())
        stds.append(h.std())
    return np.array(means), np.array(stds)
    ### END SOLUTION


# %% [markdown]
# The experiment: a network of 10 layers, 100 units wide, a batch of 1,000 standard normal
# inputs, and four ways to draw its weights: the naive $N(0, 0.01^2)$ and $N(0, 1)$, Xavier
# uniform and He normal. `networks` maps each initialisation's name to its 10 weight matrices.

# %%
WIDTH, N_LAYERS = 100, 10
PLOT_INITS = {"std 0.01": normal_init(0.01), "std 1": normal_init(1.0),
              "xavier": xavier_uniform, "he": he_normal}

rng = np.random.default_rng(0)
x_stats = rng.standard_normal((1000, WIDTH))
networks = {}
for name, init in PLOT_INITS.items():
    networks[name] = [init(WIDTH, WIDTH, rng) for _ in range(N_LAYERS)]

# %%
means, stds = activation_statistics(networks["std 1"], "tanh", x_stats)
print("std 1, tanh:  means", np.round(means, 3), "\n              stds ", np.round(stds, 3))

# %% [markdown]
# ### The plot
#
# Draw two panels: the left axes `axes[0]` titled `"tanh"`, the right axes `axes[1]` titled
# `"relu"`. On each, draw one line per initialisation in `networks`, labelled with its name
# (`"std 0.01"`, `"std 1"`, `"xavier"`, `"he"`): the layer numbers $1, \dots, 10$ on the x axis
# and the standard deviations that `activation_statistics(networks[name], activation, x_stats)`
# returns on the y axis. They range from $10^{-11}$ to $10^{9}$: use a **logarithmic y axis**
# on both. Label the axes and add a legend. The grader recomputes every line from `networks`
# and `x_stats`, so leave those unchanged.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
### BEGIN SOLUTION
layers = np.arange(1, N_LAYERS + 1)
for ax, activation in zip(axes, ("tanh", "relu")):
    for name, weights in networks.items():
        _, stds = activation_statistics(weights, activation, x_stats)
        ax.plot(layers, stds, marker="o", label=name)
    ax.set_yscale("log")
    ax.set_xticks(layers)
    ax.set_title(activation)
    ax.set_xlabel("layer l")
    ax.set_ylabel("standard deviation of the activations $h^{(l)}$")
    ax.legend()
### END SOLUTION
fig.tight_layout()
plt.show()

# %%
check("activation_statistics")

# %% [markdown]
# ## 4. The gradients (not graded)
#
# Glorot's argument was as much about the backward pass as about the forward pass. `dp` computes
# the gradients for the same ReLU networks: for a loss $L = \sum_{i,j} R_{ij}\, h^{(10)}_{ij}$
# with a fixed random $R$, here is the standard deviation of $\partial L / \partial W^{(l)}$ in
# each layer. Look at the levels of the lines as much as at their slopes.

# %%
def gradient_stds(weights: list, activation: str, x: np.ndarray) -> np.ndarray:
    """Standard deviation of dL/dW_l, l = 1..L, for L = sum(R * h_L) with a fixed random R."""
    params = [Node(W, f"W{l}") for l, W in enumerate(weights, start=1)]
    h = Node(x)
    for W in params:
        h = getattr(h.dot(W), activation)()          # h.tanh() or h.relu()
    upstream = np.random.default_rng(1).standard_normal(h.shape)
    grads = (h * upstream).sum().grad(1)
    return np.array([grads[W.name].std() for W in params])


fig_grad, ax_grad = plt.subplots(figsize=(5.5, 4))
for name, weights in networks.items():
    ax_grad.plot(np.arange(1, N_LAYERS + 1), gradient_stds(weights, "relu", x_stats),
                 marker="o", label=name)
ax_grad.set_yscale("log")
ax_grad.set_xlabel("layer l")
ax_grad.set_ylabel(r"std of $\partial L / \partial W^{(l)}$")
ax_grad.set_title("relu: gradients at initialisation")
ax_grad.legend()
plt.show()

# %% [markdown]
# ## Questions
#
# **Question 1 (2 points).** *Predict* from section 1, then read your plot of part 3: by what
# factor does the standard deviation of the **ReLU** activations change per layer with
# $N(0, 0.01^2)$, with Xavier and with He (layers of 100 units)? And why do the **tanh**
# activations of $N(0, 1)$ keep a standard deviation close to 1 in every layer, yet make a
# network that cannot learn?

# %% [markdown] answer="std_per_layer"
# **Model answer.** A ReLU layer multiplies the second moment by $n_\text{in} \operatorname{Var}(W)
# / 2$, so the standard deviation by $\sqrt{n_\text{in} \operatorname{Var}(W) / 2}$:
# * **std 0.01**: $\sqrt{100} \cdot 0.01 / \sqrt 2 = 0.1 / \sqrt 2 \approx 0.07$ per layer
#   (0.1 with tanh): after ten layers nothing is left of the input, and the gradients of the
#   first layers vanish with it;
# * **xavier** ($\operatorname{Var}(W) \approx 1/100$ here): half of the second moment is lost in
#   every layer, the standard deviation shrinks by $1/\sqrt 2 \approx 0.71$ per layer;
# * **he** makes up for exactly that factor: 1, the activations keep their scale through all ten
#   layers. That is why `dp` initialises a `ReLU_Layer` with `he_normal`.
#
# With std 1 each layer multiplies the second moment by $n_\text{in} = 100$: the tanh units
# saturate at $\pm 1$, so their standard deviation is close to 1, but their derivatives
# $1 - \tanh^2$ are close to 0, and no gradient gets through (the ReLU activations grow by
# $\sqrt{50} \approx 7$ per layer, to about $10^8$).
#
# **Rubric (2 points).**
# - 1 point: the three factors (about 0.07, 0.71, 1), from $\sqrt{n \operatorname{Var}(W)/2}$
#   or read off the plot.
# - 1 point: tanh saturates at $\pm 1$, where its derivative is about 0.

# %% [markdown]
# **Question 2 (2 points).** In part 4's plot the lines are almost flat, but at very different
# levels. Why are they flat, although the forward signal shrinks or grows from layer to layer?
# (Hint: $\partial L / \partial W^{(l)} = h^{(l-1)\top} \delta^{(l)}$.) What do the different
# levels mean for the learning rate?

# %% [markdown] answer="gradient_levels"
# **Model answer.** $\partial L / \partial W^{(l)} = h^{(l-1)\top} \delta^{(l)}$: with square
# layers, what the forward signal $h^{(l-1)}$ loses (or gains) on its way up, the backward signal
# $\delta^{(l)}$ loses (or gains) on its way down, by the same factor per layer, so their product
# is about the same in every layer. But the levels differ by 18 orders of magnitude: about
# $10^{9}$ for std 1, $10^{-9}$ for std 0.01, and Xavier's are $2^{-9/2} \approx 1/22$ of He's,
# the factor that the forward pass lost over nine layers. A learning rate that suits one of these
# networks is useless for the others: it explodes one, and does not move another.
#
# **Rubric (2 points).**
# - 1 point: forward and backward signals change by the same factor per layer and the product
#   cancels it.
# - 1 point: the levels differ by orders of magnitude, so no one learning rate suits every
#   initialisation.

# %% [markdown]
# Things to try: 50 layers instead of 10; `he_normal` with tanh; a width of 10 instead of 100
# (how well does the "sum of many independent terms" argument hold?).

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the exercises on layer initialisation, written with its `Model` and layers.
