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
# # 06 — Optimizers: momentum, RMSProp, Adam
#
# Gradient descent, $\theta \leftarrow \theta - \eta\, g$ with $g = \nabla f(\theta)$, takes one
# step size $\eta$ for every direction. In a long, narrow valley that is a bad deal: across the
# valley the function is steep, so $\eta$ must be small or the iterates jump from wall to wall;
# along the valley it is almost flat, so a small $\eta$ crawls. Deep networks' losses are full of
# such valleys. The optimizers that train almost every network today fix this in two ways:
# **momentum** averages the gradients over time, so that the zigzag across the valley cancels
# and the steady push along it adds up; **RMSProp** gives every parameter its own step size,
# scaled by the size of its recent gradients; **Adam** (Kingma & Ba 2015) does both.
#
# You write their update rules, run them on Rosenbrock's banana-shaped valley, and compare them.
#
# | task | you write | points |
# |---|---|---|
# | `momentum_update` | SGD with momentum | 3 |
# | `rmsprop_update` | RMSProp | 3 |
# | `adam_update` | Adam, with bias correction | 3 |
# | `lr_sweep` | a learning-rate sweep per optimizer, its plot, and a working learning rate for each | 3 |
# | `loss_curves` | the plot of the loss of each optimizer along its path | 1 |
#
# Each task ends with a `check("...")` cell that runs the grader's checks on your code (with
# other functions, starting points and hyperparameters than the ones the grader uses later).

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Node
from autograder import check

# %% [markdown]
# ## The test function: Rosenbrock's valley
#
# $$f(x, y) = (1 - x)^2 + 100\,(y - x^2)^2$$
#
# has its minimum $f = 0$ at $(1, 1)$, at the end of a curved valley along the parabola
# $y = x^2$: across the valley $f$ rises with slope factor 100, along it only with the first
# term. Its gradient:
#
# $$\nabla f = \begin{pmatrix} -2(1 - x) - 400\, x\, (y - x^2) \\ 200\, (y - x^2) \end{pmatrix}.$$
#
# Both functions take one point $\theta = (x, y)$, or a whole path: an array of shape $(n, 2)$,
# one point per row.

# %%
def rosenbrock(theta: np.ndarray) -> np.ndarray:
    """f(x, y) = (1 - x)^2 + 100 (y - x^2)^2 at theta = (x, y), or at every row of an (n, 2) array."""
    x, y = theta[..., 0], theta[..., 1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def rosenbrock_grad(theta: np.ndarray) -> np.ndarray:
    """The gradient of rosenbrock at theta = (x, y): an array of the shape of theta."""
    x, y = theta[..., 0], theta[..., 1]
    return np.stack([-2 * (1 - x) - 400 * x * (y - x ** 2), 200 * (y - x ** 2)], axis=-1)


# %% [markdown]
# Is the gradient right? `dp` differentiates the same formula for us:

# %%
START = np.array([-1.2, 1.0])
theta = Node(START, "theta")
x, y = theta[0:1], theta[1:2]
print("dp:  ", ((1 - x) ** 2 + 100 * (y - x ** 2) ** 2).sum().grad(1)["theta"])
print("hand:", rosenbrock_grad(START))

# %% [markdown]
# ## Update rules
#
# An optimizer is an **update rule**: the new value of one parameter from its current value
# `theta`, its gradient `g`, and a dict `state` that belongs to that parameter alone and carries
# whatever the rule remembers from one step to the next (empty at the first step). Each rule is a
# function
#
# ```python
# new_theta = update(theta, g, state, **hyperparameters)
# ```
#
# that returns a **new** array and leaves `theta` and `g` unchanged (the caller may still need
# them); it may store new arrays in `state`. `dp`'s optimizers work the same way: each
# `dp.Optimizer` calls `update(theta, g, state)` once per parameter and step. Plain gradient
# descent needs no state:

# %%
def sgd_update(theta: np.ndarray, g: np.ndarray, state: dict, lr: float = 0.001) -> np.ndarray:
    """Gradient descent: theta <- theta - lr * g."""
    return theta - lr * g


def optimise(update, theta0: np.ndarray, steps: int, **hyperparameters) -> np.ndarray:
    """`steps` steps of `update` on rosenbrock from theta0, with a fresh state.
    Returns the path: an array of shape (steps + 1, 2), theta0 first."""
    theta, state = np.array(theta0, dtype=float), {}
    path = [theta]
    for _ in range(steps):
        theta = update(theta, rosenbrock_grad(theta), state, **hyperparameters)
        path.append(theta)
    return np.array(path)


# %%
path = optimise(sgd_update, START, 1000, lr=1e-3)
print(f"gradient descent: f = {rosenbrock(path[0]):.3g} at the start, {rosenbrock(path[-1]):.3g} "
      f"after 1000 steps, at {path[-1].round(3)}")

# %% [markdown]
# ## 1. SGD with momentum
#
# Keep an exponential moving average $v$ of the gradients, and step along it:
#
# $$v_t = \beta\, v_{t-1} + (1 - \beta)\, g_t, \qquad v_0 = 0, \qquad
#   \theta_t = \theta_{t-1} - \eta\, v_t.$$
#
# $v_t$ is a weighted mean of all past gradients, $(1 - \beta) \sum_{k \le t} \beta^{t-k} g_k$,
# with weights that fade by $\beta$ (typically 0.9) per step, so it remembers roughly the last
# $1 / (1 - \beta)$ gradients. Components that flip their sign from step to step (the zigzag across
# a valley) average out; components that keep their sign (the way along it) stay. What that does
# to the step sizes that work is for your sweep to show (Question 1).
#
# (Many libraries, PyTorch among them, write $v_t = \beta v_{t-1} + g_t$ without the
# $(1 - \beta)$: that is the same method with $\eta$ scaled by $1 / (1 - \beta)$. Here, as in
# `dp.SGD_Momentum`, $v$ is an average.)

# %%
def momentum_update(theta: np.ndarray, g: np.ndarray, state: dict, lr: float = 0.01,
                    beta: float = 0.9) -> np.ndarray:
    """SGD with momentum, one step for one parameter:

        v <- beta * v + (1 - beta) * g      (v = 0 before the first step)
        theta <- theta - lr * v

    `state` is this parameter's own dict (empty at the first step): keep v in it.
    Returns the new theta; theta and g are left unchanged.
    """
    ### BEGIN SOLUTION
    v = state["v"] = beta * state.get("v", 0.0) + (1 - beta) * g
    return theta - lr * v
    ### END SOLUTION


# %%
state = {}
print(momentum_update(np.array([1.0, 2.0]), np.array([10.0, -10.0]), state, lr=0.1, beta=0.9))  # [0.9, 2.1]

# %%
check("momentum_update")

# %% [markdown]
# ## 2. RMSProp
#
# Keep an exponential moving average $s$ of the **squared** gradients, elementwise, and divide
# each parameter's step by the root of it:
#
# $$s_t = \beta\, s_{t-1} + (1 - \beta)\, g_t^2, \qquad s_0 = 0, \qquad
#   \theta_t = \theta_{t-1} - \eta\, \frac{g_t}{\sqrt{s_t} + \varepsilon}.$$
#
# $\sqrt{s_t}$ is the root mean square of the recent gradients of each parameter, so
# $g_t / \sqrt{s_t}$ is about $\pm 1$ whatever the gradient's scale: every parameter moves by about
# $\eta$ per step, in a steep direction as in a flat one. $\varepsilon$ (typically $10^{-8}$) keeps
# the division safe when $s_t$ is 0; it is added to the root, outside of it.

# %%
def rmsprop_update(theta: np.ndarray, g: np.ndarray, state: dict, lr: float = 0.001,
                   beta: float = 0.9, eps: float = 1e-8) -> np.ndarray:
    """RMSProp, one step for one parameter (squares, roots and divisions are elementwise):

        s <- beta * s + (1 - beta) * g^2      (s = 0 before the first step)
        theta <- theta - lr * g / (sqrt(s) + eps)

    `state` is this parameter's own dict (empty at the first step): keep s in it.
    Returns the new theta; theta and g are left unchanged.
    """
    ### BEGIN SOLUTION
    s = state["s"] = beta * state.get("s", 0.0) + (1 - beta) * g ** 2
    return theta - lr * g / (np.sqrt(s) + eps)
    ### END SOLUTION


# %%
state = {}
print(rmsprop_update(np.array([1.0, 2.0]), np.array([10.0, -0.01]), state, lr=0.1))  # about [0.684, 2.316]

# %%
check("rmsprop_update")

# %% [markdown]
# ## 3. Adam
#
# Adam keeps both averages, the first moment $m$ (momentum) and the second moment $v$ (RMSProp),
# and counts its steps $t = 1, 2, \dots$:
#
# $$m_t = \beta_1 m_{t-1} + (1 - \beta_1)\, g_t, \qquad v_t = \beta_2 v_{t-1} + (1 - \beta_2)\, g_t^2,
#   \qquad m_0 = v_0 = 0,$$
# $$\hat m_t = \frac{m_t}{1 - \beta_1^t}, \qquad \hat v_t = \frac{v_t}{1 - \beta_2^t}, \qquad
#   \theta_t = \theta_{t-1} - \eta\, \frac{\hat m_t}{\sqrt{\hat v_t} + \varepsilon}.$$
#
# **Bias correction.** Both averages start at 0, so early on they are too small: after one step,
# $m_1 = (1 - \beta_1)\, g_1$, a tenth of the gradient for $\beta_1 = 0.9$, and
# $v_1 = (1 - \beta_2)\, g_1^2$, a thousandth of its square for $\beta_2 = 0.999$. In general
# the weights of $m_t$ sum to $(1 - \beta_1) \sum_{k=1}^{t} \beta_1^{t-k} = 1 - \beta_1^t$, and
# dividing by that sum makes $\hat m_t$ a proper weighted mean (for a constant gradient,
# $\hat m_t = g$ exactly); the same for $\hat v_t$. The correction fades as $\beta^t \to 0$.
# Note that $t$ is the number of this step, so it changes from call to call: keep it in `state`.
# Defaults as in the paper: $\eta = 0.001$, $\beta_1 = 0.9$, $\beta_2 = 0.999$,
# $\varepsilon = 10^{-8}$.

# %%
def adam_update(theta: np.ndarray, g: np.ndarray, state: dict, lr: float = 0.001,
                beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> np.ndarray:
    """Adam (Kingma & Ba 2015), step t = 1, 2, ... for one parameter (elementwise):

        m <- beta1 * m + (1 - beta1) * g;   v <- beta2 * v + (1 - beta2) * g^2   (m = v = 0 at first)
        m_hat = m / (1 - beta1^t);          v_hat = v / (1 - beta2^t)
        theta <- theta - lr * m_hat / (sqrt(v_hat) + eps)

    `state` is this parameter's own dict (empty at the first step): keep m, v and t in it.
    Returns the new theta; theta and g are left unchanged.
    """
    ### BEGIN SOLUTION
    t = state["t"] = state.get("t", 0) + 1
    m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
    v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g ** 2
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    return theta - lr * m_hat / (np.sqrt(v_hat) + eps)
    ### END SOLUTION


# %%
state = {}
theta = np.array([1.0, 2.0])
for _ in range(3):   # a constant gradient: every step moves each parameter by lr
    theta = adam_update(theta, np.array([10.0, -0.01]), state, lr=0.1)
print(theta)         # about [0.7, 2.3]

# %%
check("adam_update")

# %% [markdown]
# ## 4. A learning rate for each optimizer
#
# Each optimizer needs a step size $\eta$ that works for it, and none comes with one: too small
# and it crawls, too large and it zigzags or diverges. Find one by a **sweep**: run each
# optimizer from the classic start $(-1.2, 1)$ for `STEPS` = 1,000 steps with each of a range of
# learning rates, and plot the **final loss** $f(\theta_{1000})$ against the learning rate.
# `SETTINGS` gives each optimizer's rule and its other hyperparameters; `lr` is yours to choose.
#
# * Sweep at least 5 learning rates per optimizer, spread over at least two orders of magnitude
#   and evenly on a log scale, some in every decade they span (`np.logspace` is the tool; 30 at
#   most, each sweep costs a second or so), the same or different ones for each optimizer.
# * On the axes `ax_sweep` created for you, draw one line per optimizer, labelled with its name
#   (`"sgd"`, `"momentum"`, `"rmsprop"`, `"adam"`): the learning rates on the x axis, **logarithmic**,
#   and the final loss of each run on the y axis (logarithmic too: the final losses range from
#   $10^{-14}$ to $10^{2}$). A run that diverges ends in `inf` or `nan`: plot it as it is (it
#   leaves a gap in the line). Label the axes and add a legend.
# * Then choose, in `LEARNING_RATE`, a learning rate for each optimizer that works: one whose final
#   loss is at the bottom of its sweep, within a factor of 10 of the lowest final loss any learning
#   rate reaches (or below $10^{-3}$). The grader runs the textbook rules over a grid of learning
#   rates (five per decade, from $10^{-5}$ to 1) and accepts a learning rate between two
#   neighbours of that grid that both work; it recomputes your lines with your own rules.

# %%
STEPS = 1000
SETTINGS = {
    "sgd": (sgd_update, {}),
    "momentum": (momentum_update, {"beta": 0.9}),
    "rmsprop": (rmsprop_update, {"beta": 0.9, "eps": 1e-8}),
    "adam": (adam_update, {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8}),
}

# %%
fig_sweep, ax_sweep = plt.subplots(figsize=(7, 4))
### BEGIN SOLUTION
learning_rates = np.logspace(-5, 0, 16)
for name, (update, hyperparameters) in SETTINGS.items():
    final = []
    for lr in learning_rates:
        with np.errstate(over="ignore", invalid="ignore"):     # a diverging run gives inf and nan
            final.append(rosenbrock(optimise(update, START, STEPS, lr=lr, **hyperparameters)[-1]))
    ax_sweep.plot(learning_rates, final, marker=".", label=name)
ax_sweep.set_xscale("log")
ax_sweep.set_yscale("log")
ax_sweep.set_xlabel(r"learning rate $\eta$")
ax_sweep.set_ylabel(r"final loss $f(\theta_{1000})$")
ax_sweep.set_title("Rosenbrock: the final loss after 1000 steps")
ax_sweep.legend()
### END SOLUTION
plt.show()

# %%
### BEGIN SOLUTION
LEARNING_RATE = {"sgd": 2e-3, "momentum": 2e-2, "rmsprop": 1e-2, "adam": 0.2}
### END SOLUTION

# %%
check("lr_sweep")

# %% [markdown]
# ## 5. The race
#
# All four optimizers start at $(-1.2, 1)$ and take 1,000 steps, each with the learning rate you
# chose. `paths` maps each optimizer's name to its path.

# %%
paths = {}
for name, (update, hyperparameters) in SETTINGS.items():
    with np.errstate(over="ignore", invalid="ignore"):     # a diverging rule gives inf and nan
        paths[name] = optimise(update, START, STEPS, lr=LEARNING_RATE[name], **hyperparameters)
    print(f"{name:>8}: f = {rosenbrock(paths[name][-1]):.3g} at {paths[name][-1].round(4)}")

# %% [markdown]
# ### The loss curves
#
# On the axes `ax` created for you, draw one line per optimizer, labelled with its name in
# `paths` (`"sgd"`, `"momentum"`, `"rmsprop"`, `"adam"`): the step numbers $t = 0, 1, \dots,$
# 1000 on the x axis, and the loss $f(\theta_t)$ along its path, `rosenbrock(paths[name])`, on the
# y axis. The losses range over many orders of magnitude: use a **logarithmic y axis**. Label the
# axes and add a legend. The grader recomputes the losses from `paths`, so leave it unchanged.

# %%
fig, ax = plt.subplots(figsize=(7, 4))
### BEGIN SOLUTION
for name, path in paths.items():
    ax.plot(np.arange(len(path)), rosenbrock(path), label=name)
ax.set_yscale("log")
ax.set_xlabel("step t")
ax.set_ylabel(r"$f(\theta_t)$")
ax.set_title("Rosenbrock: loss along the path")
ax.legend()
### END SOLUTION
plt.show()

# %%
check("loss_curves")

# %% [markdown]
# And the paths themselves, over the contour lines of $\log f$ (the minimum is the star):

# %%
grid_x, grid_y = np.meshgrid(np.linspace(-1.6, 1.4, 300), np.linspace(-0.4, 1.6, 300))
fig_paths, ax_paths = plt.subplots(figsize=(7, 4.5))
ax_paths.contour(grid_x, grid_y, np.log10(rosenbrock(np.stack([grid_x, grid_y], axis=-1)) + 1e-3),
                 levels=20, cmap="Greys", linewidths=0.6)
for name, path in paths.items():
    ax_paths.plot(path[:, 0], path[:, 1], linewidth=1, label=name)
ax_paths.plot(1, 1, "k*", markersize=12)
ax_paths.set_xlim(-1.6, 1.4)
ax_paths.set_ylim(-0.4, 1.6)
ax_paths.set_xlabel("x")
ax_paths.set_ylabel("y")
ax_paths.legend()
plt.show()

# %% [markdown]
# ## 6. Your Adam inside `dp` (not graded)
#
# A `dp.Optimizer` subclass is nothing but an update rule: `train` computes the gradients of a
# model's loss and calls `update(theta, g, state)` for each parameter. Plug yours in and train
# a small network side by side with `dp.Adam`: from the same initial weights, on the same data,
# the two loss histories should agree to eight digits or so. (Not to the last one: `dp.Adam`
# folds the bias corrections into the step size, $\eta\sqrt{1-\beta_2^t}/(1-\beta_1^t)$, which is the
# same number rounded differently. A mistake in your rule shows in the first few digits.)

# %%
class MyAdam(dp.Optimizer):
    defaults = {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8}

    def update(self, theta, g, state):
        return adam_update(theta, g, state, **self.hyperparameters)


class Regressor(dp.Model):
    def __init__(self):
        super().__init__()
        self.h1 = self.Tanh_Layer(1, 16, "h1")
        self.h2 = self.Linear_Layer(16, 1, "h2")

    def forward(self, x):
        return self.h2(self.h1(x))

    def loss(self, x, y):
        return dp.mse(self.forward(x), y)


x_fit = np.linspace(-3, 3, 64).reshape(-1, 1)
y_fit = np.sin(x_fit)
histories = {}
for name, optimizer_class, settings in [("your Adam", MyAdam, {"eps": 1e-8}),
                                        ("dp.Adam", dp.Adam, {"epsilon": 1e-8})]:
    dp.seed(0)
    net = Regressor()
    optimizer = optimizer_class(net, x_fit, y_fit, lr=0.02, batch_size=None, **settings)
    _, histories[name], _ = optimizer.train(steps=300, print_each=0, err_hist=True)
print("largest relative difference between the loss histories:",
      np.max(np.abs(np.subtract(*histories.values())) / np.abs(histories["dp.Adam"])))

# %% [markdown]
# ## Questions
#
# **Question 1 (2 points).** Read your sweep: above which learning rate does plain gradient
# descent diverge, and what sets that limit on this function? Why does momentum still converge
# with learning rates ten times larger, and why does that help it along the valley?

# %% [markdown] answer="momentum_step_size"
# **Model answer.** Gradient descent diverges from about $\eta \approx 0.0015$ on (the sweep
# shows `nan` from $10^{-2}$ on, and erratic final losses just above $10^{-3}$). The limit is set by
# the steepest direction: on a quadratic with curvature $\lambda$, a step multiplies the distance by
# $1 - \eta\lambda$, which grows in size when $\eta > 2/\lambda$; across Rosenbrock's valley at the
# start $\lambda \approx 1330$, so $\eta < 2/1330 \approx 0.0015$. The flat direction along the
# valley floor gets the same tiny steps and crawls. Momentum averages the gradients: the
# components that flip sign from step to step (the zigzag across the valley that a large step
# causes) largely cancel in $v$, while the push along the floor keeps its sign and adds up. So
# it tolerates steps ten times larger (up to about $3 \cdot 10^{-2}$ in the sweep), and those
# large steps are what move it along the flat valley.
#
# **Rubric (2 points).**
# - 1 point: the limit read from the sweep (about $10^{-3}$ to $10^{-2}$) and set by the steepest
#   direction's curvature ($\eta < 2/\lambda$), the flat direction crawling with it.
# - 1 point: momentum's average cancels the sign-flipping zigzag across the valley and keeps
#   the steady component along it, so larger steps stay stable and make progress.

# %% [markdown]
# **Question 2 (2 points).** At its best learning rate, RMSProp ends orders of magnitude above
# momentum and Adam. Looking at its update rule, why does it stall near the valley floor, and
# what does Adam add that lets it converge?

# %% [markdown] answer="rmsprop_stalls"
# **Model answer.** RMSProp divides each gradient by the root of its recent mean square, so every
# coordinate moves by about $\eta$ per step whatever the size of the gradient. That gets it down
# the valley without tuning $\eta$ to the curvature, but its steps do not shrink when the
# gradients do: near the floor it keeps hopping from one wall to the other by about $\eta$, and
# its progress along the valley slows to a crawl; a smaller $\eta$ hops less but crawls
# everywhere. Adam takes the same normalised step along the *averaged* gradient $\hat m$ of
# momentum: the hops across the valley flip sign and cancel in $\hat m$, so the step across the
# valley shrinks while the step along it remains, and it converges.
#
# **Rubric (2 points).**
# - 1 point: RMSProp's step has a size of about $\eta$ per coordinate regardless of the gradient's
#   size, so it does not shrink near the minimum: it oscillates across the valley.
# - 1 point: Adam steps along the momentum average, in which the sign flips across the valley
#   cancel, so its steps across the valley shrink and it converges.

# %% [markdown]
# ## Discussion
#
# * **Adam's bias correction**: without it, Adam's first step would be
#   $(1 - \beta_1) / \sqrt{1 - \beta_2} \approx 3.2$ times $\eta$ per coordinate, and the size of
#   the early steps would depend on $\beta_1$ and $\beta_2$ instead of on $\eta$.
# * Things to try: other starting points (does your learning rate still work?); $\beta = 0.99$ for
#   momentum; a sweep with 10,000 steps instead of 1,000.

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the exercises on versions of stochastic gradient descent (momentum, RMSProp, Adam).
# - Nicolae, A. "Deep learning framework from scratch using NumPy" (ArrayFlow). Microsoft Corp., Bellevue, Washington; code and demos: https://github.com/a-nico/ArrayFlow.
#   This notebook draws on gradient methods developed from elementary calculus, and its optimizer.
