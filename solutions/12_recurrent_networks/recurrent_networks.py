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
# # 12 — Recurrent networks and backpropagation through time
#
# Every network so far mapped one input of a fixed size to one output. Many data are
# **sequences** instead: words in a sentence, samples of a sound, daily readings of a sensor. They
# come in any length, and what a step means depends on the steps before it. A **recurrent network**
# reads a sequence one step at a time and carries a **state** $h_t$ from each step to the next: a
# summary of everything it has read so far. At every step it applies the *same* cell with the *same*
# parameters, so the number of parameters does not grow with the length of the sequence, and what
# it learns at one position serves at all the others.
#
# The CNTK book describes this in the language of computational networks. A recurrent
# connection is a loop in the graph: the state at step $t$ is computed from the state at step
# $t - 1$. CNTK breaks the loop with a **delay node** (`PastValue`), which outputs its input from
# $\lambda$ steps in the past. Before the sequence starts, when $t - \lambda < 0$, there is no
# past, and it outputs a **default initial state** instead. To compute a sequence, the loop is
# **unrolled**: one copy of the cell per step, each one reading the state of the copy before it
# through the delay node. The result is an ordinary directed acyclic graph, with the parameters as
# leaves shared by all the copies. Forward computation and backprop work on it as on any other
# graph. Backprop on the unrolled graph has its own name: **backpropagation through time** (BPTT).
#
# | task | you write | points |
# |---|---|---|
# | `rnn_forward` | `delay`, `rnn_step`, `rnn_forward`: the cell unrolled over time in `dp` | 3 |
# | `bptt_gradients` | `bptt`: backpropagation through time by hand, in NumPy | 4 |
# | `sequence_task` | `SequenceModel.forward`, `predict`: learning the adding problem | 3 |
#
# The tasks are graded separately. `bptt` gets the forward states from the grader, not from your
# `rnn_forward`. The grader compares your gradients with central differences and with `dp`'s
# backprop through the unrolled graph, on its own sequences and sizes. Each task has a
# `check("...")` cell, which runs the grader's checks on your code with other inputs than grading
# uses. The LSTM at the end is an extension and is not graded.

# %%
import matplotlib.pyplot as plt
import numpy as np

import dp
from dp import Node
from autograder import check

# %% [markdown]
# ## 1. The cell, the delay node, and unrolling
#
# We use the simplest recurrent cell, Elman's. It reads the input $x_t$ of step $t$ and the
# previous state $h_{t-1}$:
#
# $$h_t = \tanh\left(x_t W_x + h_{t-1} W_h + b\right), \qquad t = 0, 1, \dots, T - 1 .$$
#
# Shapes: a batch holds $n$ sequences, so $x_t$ is $(n, d)$, one row per sequence, and $h_t$ is
# $(n, k)$ for $k$ units. Then $W_x$ is $(d, k)$, $W_h$ is $(k, k)$ and $b$ is $(1, k)$, the
# same three parameters at every step. A batch of sequences is an array `x` of shape $(T, n, d)$
# with **time first**, so that `x[t]` is step $t$ of all $n$ sequences. CNTK stores the samples of
# a sequence in the same way, in ascending order of time.
#
# **The delay node.** With delay $\lambda$, CNTK's delay node computes
#
# $$\upsilon_t = y_{t - \lambda}, \qquad \text{and a default value when } t - \lambda < 0 .$$
#
# Here $\lambda = 1$ and $y$ is the sequence of states. At step $t \ge 1$, the delay node gives
# $h_{t-1}$. At step 0 it gives the **initial state** $h_\text{init}$, which is zeros unless the
# caller provides one. Unrolled, the delay node is an edge from the copy of the cell at step
# $t - 1$ to the copy at step $t$, plus a leaf for the initial state:
#
# ```
#          x_0            x_1            x_2
#           |              |              |
# h_init -> [cell] -> h_0 -> [cell] -> h_1 -> [cell] -> h_2      every [cell] uses the same
#                                                               leaves W_x, W_h, b
# ```
#
# Write the three pieces with `dp` operations (`.dot`, `+`, `.tanh()`), so that `dp` records the
# graph:
#
# * `delay(states, initial)`: the delay node at step $t$ = `len(states)`, given the states
#   computed so far. It returns $h_{t-1}$, or `initial` at $t = 0$.
# * `rnn_step(x_t, h_prev, params)`: one copy of the cell.
# * `rnn_forward(x, params, h_init=None)`: the unrolled loop, returning the list of the $T$ states.
#   `params` is a dict of `Node`s, `{"W_x": ..., "W_h": ..., "b": ...}`. Use these very nodes at
#   every step, not copies of them. Then the graph has one leaf per parameter, and `grad` adds up
#   what every step contributes to its gradient. When `h_init` is `None`, start from zeros of
#   shape $(n, k)$.
#
# `init_params` (given) draws the parameters of a cell, as arrays.

# %%
def init_params(d: int, k: int, rng: np.random.Generator) -> dict:
    """Parameters of a cell with d inputs and k units, as arrays: W_x (d, k) ~ N(0, 1/d),
    W_h (k, k) ~ N(0, 1/k), b (1, k) zeros."""
    return {"W_x": rng.normal(0, 1 / np.sqrt(d), (d, k)),
            "W_h": rng.normal(0, 1 / np.sqrt(k), (k, k)),
            "b": np.zeros((1, k))}


# %%
def delay(states: list, initial: Node) -> Node:
    """CNTK's delay node (PastValue) with lambda = 1, at step t = len(states): the state one step
    in the past, states[t - 1] = h_{t-1}, or `initial` at t = 0, before the sequence starts."""
    ### BEGIN SOLUTION
    return states[-1] if states else initial
    ### END SOLUTION


def rnn_step(x_t: Node, h_prev: Node, params: dict) -> Node:
    """One copy of the cell: h_t = tanh(x_t W_x + h_{t-1} W_h + b).
    x_t (n, d), h_prev (n, k) -> h_t (n, k)."""
    ### BEGIN SOLUTION
    return (x_t.dot(params["W_x"]) + h_prev.dot(params["W_h"]) + params["b"]).tanh()
    ### END SOLUTION


def rnn_forward(x: np.ndarray, params: dict, h_init: Node | None = None) -> list:
    """The cell unrolled over a batch of sequences x of shape (T, n, d), time first.

    params   {"W_x": Node (d, k), "W_h": Node (k, k), "b": Node (1, k)}, shared by every step
    h_init   the initial state, a Node of shape (n, k); None: zeros (the delay node's default)
    Returns the states [h_0, h_1, ..., h_{T-1}]: a list of T Nodes of shape (n, k).
    """
    ### BEGIN SOLUTION
    n, k = x.shape[1], params["W_h"].shape[0]
    initial = Node(np.zeros((n, k))) if h_init is None else h_init
    states = []
    for t in range(len(x)):
        states.append(rnn_step(Node(x[t]), delay(states, initial), params))
    return states
    ### END SOLUTION


# %% [markdown]
# A batch of 2 sequences of length 5 with 3 features each, and 4 units. The parameters are named
# leaves. `grad` returns **one** gradient for each of them, the sum of what the five copies of the
# cell contribute. We also pass a named initial state, and `grad` differentiates with respect to it
# as well.

# %%
demo_rng = np.random.default_rng(0)
demo_params = {name: Node(value, name) for name, value in init_params(3, 4, demo_rng).items()}
x_demo = demo_rng.normal(size=(5, 2, 3))
states = rnn_forward(x_demo, demo_params, h_init=Node(np.zeros((2, 4)), "h_init"))
print(f"{len(states)} states of shape {states[0].shape}; h_4 =\n{states[-1].value.round(3)}")
demo_grads = states[-1].sum().grad(1)
print({name: g.shape for name, g in demo_grads.items()})

# %%
check("rnn_forward")

# %% [markdown]
# ## 2. Backpropagation through time
#
# Let a loss $L = \sum_t \ell_t(h_t)$ depend on the states. It may depend on every state (a
# prediction at every step), or on the last state only (one prediction per sequence, as in part 3).
# Write $g_t = \partial \ell_t / \partial h_t$ for the **direct** gradient of step $t$'s own loss.
# $h_t$ also influences the loss through all the later steps, and backprop on the unrolled graph
# collects both. The unrolled graph, with $a_t = x_t W_x + \bar h_t W_h + b$ the input of the tanh
# and $\bar h_t$ the delay node's output at step $t$ ($h_{t-1}$, or $h_\text{init}$ at $t = 0$):
#
# ```
#            x_0          x_1                     x_{T-1}
#             │            │                         │
#  h_init ─► [a_0 ─► h_0] ─► delay ─► [a_1 ─► h_1] ─► ... ─► [a_{T-1} ─► h_{T-1}]
#                    │                        │                          │
#                    ℓ_0                      ℓ_1                        ℓ_{T-1}
#  (W_x, W_h, b shared by every [ ])
# ```
#
# The local derivatives of one step (row vectors, one row per sequence of the batch):
#
# | step | local derivatives |
# |---|---|
# | $h_t = \tanh(a_t)$ | $\partial h_t / \partial a_t = \mathrm{diag}(1 - h_t^2)$: elementwise |
# | $a_t = x_t W_x + \bar h_t W_h + b$ | $\partial a_t / \partial \bar h_t = W_h$ (so $\delta \bar h_t = \delta a_t W_h^\top$), and for the weights $\delta W_x \mathrel{+}= x_t^\top \delta a_t$, $\delta W_h \mathrel{+}= \bar h_t^\top \delta a_t$, $\delta b \mathrel{+}= \mathbf{1}^\top \delta a_t$ |
# | delay: $\bar h_{t+1} = h_t$ | the identity: $\delta h_t \mathrel{+}= \delta \bar h_{t+1}$ (in CNTK's notation, $\nabla_{y_t} \mathrel{+}= \nabla_{\upsilon_{t+\lambda}}$) |
#
# The parameters are **shared**: each copy of the cell contributes to their gradients, exactly as
# for a node that is reused in a graph.
#
# **Question 1 (3 points).** From the graph and the local derivatives, derive backpropagation
# through time: the recursion for $\delta h_t = \partial L / \partial h_t$ (two paths reach $h_t$),
# $\delta a_t$, the gradients of $W_x$, $W_h$, $b$, and of $h_\text{init}$. In which order must
# the steps be visited, and why?

# %% [markdown] answer="bptt_derivation"
# **Model answer.** Going backwards in time, $h_t$ reaches the loss directly ($\ell_t$) and through
# the delay into step $t + 1$:
#
# $$\delta h_t = \frac{\partial L}{\partial h_t} = g_t + \delta a_{t+1} W_h^\top
#   \quad(\text{no second term at } t = T - 1), \qquad
#   \delta a_t = \delta h_t \odot \left(1 - h_t^2\right),$$
#
# $$\frac{\partial L}{\partial W_x} = \sum_t x_t^\top \delta a_t, \qquad
#   \frac{\partial L}{\partial W_h} = \sum_t \bar h_t^\top \delta a_t, \qquad
#   \frac{\partial L}{\partial b} = \sum_t \mathbf{1}^\top \delta a_t, \qquad
#   \frac{\partial L}{\partial h_\text{init}} = \delta a_0 W_h^\top .$$
#
# The steps are visited from $t = T - 1$ down to 0: $\delta h_t$ needs $\delta a_{t+1}$, all the
# gradient of the later steps, before it is complete (the topological order of the unrolled
# graph, reversed). The shared parameters' gradients are sums over the steps.
#
# **Rubric (3 points).**
# - 1 point: $\delta h_t$ with both terms (the direct $g_t$ and $\delta a_{t+1} W_h^\top$ through the
#   delay), $\delta a_t$ with the tanh derivative $1 - h_t^2$.
# - 1 point: the parameter gradients as sums over the steps (shared parameters), with
#   $\bar h_t$ (the previous state, $h_\text{init}$ at $t = 0$) for $W_h$; the initial state's.
# - 1 point: backwards in time, because each step's gradient needs the later steps'.

# %% [markdown]
# Write `bptt` in **NumPy**, one loop from $t = T - 1$ down to $0$. It receives the states `H` of
# the forward pass as one array of shape $(T, n, k)$, and the direct gradients $g_t$ as `dH`, of
# the same shape (zeros at the steps without a loss of their own). It returns the gradients of the
# parameters and of the initial state. It also returns the total $\delta h_t$ of every step: the
# plot at the end of this part is made from it.

# %%
def bptt(x: np.ndarray, params: dict, h_init: np.ndarray, H: np.ndarray,
         dH: np.ndarray) -> dict:
    """Backpropagation through time for h_t = tanh(x_t W_x + h_{t-1} W_h + b), in NumPy.

    x (T, n, d) the inputs; params {"W_x", "W_h", "b"} arrays; h_init (n, k) the initial state;
    H (T, n, k) the states h_t of the forward pass; dH (T, n, k) the direct gradients
    g_t = d l_t / d h_t of a loss L = sum_t l_t(h_t).
    Returns {"W_x": dL/dW_x (d, k), "W_h": dL/dW_h (k, k), "b": dL/db (1, k),
             "h_init": dL/dh_init (n, k), "H": dL/dh_t for every t (T, n, k)}.
    """
    ### BEGIN SOLUTION
    W_h = params["W_h"]
    grads = {name: np.zeros_like(value) for name, value in params.items()}
    dH_total = np.zeros_like(H)
    dh_later = np.zeros_like(h_init)       # what step t + 1 sent back through the delay node
    for t in reversed(range(len(x))):
        dh = dH[t] + dh_later
        dH_total[t] = dh
        da = dh * (1 - H[t] ** 2)                        # through the tanh
        h_prev = H[t - 1] if t > 0 else h_init           # the delay node's output at step t
        grads["W_x"] += x[t].T @ da                      # shared: every step adds its share
        grads["W_h"] += h_prev.T @ da
        grads["b"] += da.sum(axis=0, keepdims=True)
        dh_later = da @ W_h.T                            # back through the delay node
    return {**grads, "h_init": dh_later, "H": dH_total}
    ### END SOLUTION


# %% [markdown]
# ### Two independent checks
#
# The grader checks `bptt` in two ways, and so can you:
#
# 1. **Central differences.** Here $L = \sum_t \sum g_t \odot h_t$ for a random $g$. For every
#    element $\theta_i$ of every parameter, $\partial L / \partial \theta_i \approx \left(L(\theta_i
#    + \varepsilon) - L(\theta_i - \varepsilon)\right) / 2\varepsilon$. This is slow, but it
#    depends on nothing but the forward pass.
# 2. **The explicitly unrolled graph.** `rnn_forward` with named leaves builds the unrolled graph,
#    and `dp`'s `grad(1)` backpropagates through it. This is BPTT done by the engine.
#
# In float64, central differences agree with BPTT to $10^{-7}$ or better; the unrolled graph
# agrees up to rounding, because it does the same arithmetic. Below, the relative error is
# $|a - b| / \max(|a| + |b|, 10^{-6})$. The grader accepts $10^{-6}$ against the unrolled graph,
# and $10^{-4}$ against central differences (with $10^{-4}$ in place of $10^{-6}$ in the
# denominator). A mistake typically gives errors near 1.

# %%
bptt_rng = np.random.default_rng(1)
T_check, n_check, d_check, k_check = 6, 3, 2, 4
x_check = bptt_rng.normal(size=(T_check, n_check, d_check))
params_check = init_params(d_check, k_check, bptt_rng)
params_check["b"] = bptt_rng.normal(0, 0.3, (1, k_check))
h_init_check = bptt_rng.normal(0, 0.5, (n_check, k_check))
dH_check = bptt_rng.normal(size=(T_check, n_check, k_check))       # a random g, not all ones


def loss_of(arrays: dict, named: bool = False):
    """L = sum_t sum(g_t * h_t) for the parameters and initial state in `arrays`, and the states;
    with named leaves when `named`, so that dp can differentiate L."""
    leaves = {name: Node(value, name if named else None) for name, value in arrays.items()}
    h_init = leaves.pop("h_init")
    states = rnn_forward(x_check, leaves, h_init)
    loss = sum((h * g).sum() for h, g in zip(states, dH_check))
    return loss, states


arrays_check = {**params_check, "h_init": h_init_check}
loss_check, states_check = loss_of(arrays_check, named=True)
H_check = np.stack([h.value for h in states_check])
ours = bptt(x_check, params_check, h_init_check, H_check, dH_check)
by_dp = loss_check.grad(1)
for name, value in arrays_check.items():
    def loss_at(v, name=name):
        return loss_of({**arrays_check, name: v})[0].item()
    numerical = dp.numerical_gradient(loss_at, value.copy())
    vs_numerical = dp.relative_error(ours[name], numerical, 1e-6).max()
    vs_unrolled = dp.relative_error(ours[name], by_dp[name], 1e-6).max()
    print(f"{name:>6}: vs central differences {vs_numerical:.1e}, "
          f"vs the unrolled graph {vs_unrolled:.1e}")

# %%
check("bptt_gradients")

# %% [markdown]
# ### Vanishing and exploding gradients
#
# One step back in time multiplies the gradient by one factor: read it off your `bptt` (what
# does $\delta h_{t-1}$ get from $\delta h_t$, leaving out the loss's own $g_{t-1}$?). Question 2
# builds on it.
#
# <details><summary>Check your factor (open it after writing it down)</summary>
#
# $$\delta h_{t-1} = \left(\delta h_t \odot (1 - h_t^2)\right) W_h^\top
#   \quad(\text{plus } g_{t-1}) .$$
#
# </details>
#
# The plot shows $\lVert\delta h_t\rVert$ for a loss on the last state of a sequence of 60 steps,
# with $W_h = \rho\, Q$ for a random orthogonal $Q$, whose singular values all equal $\rho$. The
# inputs are small. The gradients come from your `bptt`.

# %%
plot_rng = np.random.default_rng(2)
T_long, k_long = 60, 32
Q, _ = np.linalg.qr(plot_rng.normal(size=(k_long, k_long)))     # a random orthogonal matrix
x_long = 0.01 * plot_rng.normal(size=(T_long, 1, 1))
dH_long = np.zeros((T_long, 1, k_long))
dH_long[-1] = plot_rng.normal(size=(1, k_long))                  # a loss on the last state only
gradient_norms = {}
fig_gradients, ax = plt.subplots(figsize=(7, 3.5))
for rho in (0.5, 0.9, 1.0, 1.2):
    cell = {"W_x": plot_rng.normal(size=(1, k_long)), "W_h": rho * Q, "b": np.zeros((1, k_long))}
    with dp.no_grad():
        H_long = np.stack([h.value for h in
                           rnn_forward(x_long, {name: Node(v) for name, v in cell.items()})])
    dh = bptt(x_long, cell, np.zeros((1, k_long)), H_long, dH_long)["H"]
    gradient_norms[rho] = np.linalg.norm(dh, axis=(1, 2))
    ax.plot(np.arange(T_long), gradient_norms[rho], label=f"rho = {rho}")
ax.set_yscale("log")
ax.set_xlabel("time step t")
ax.set_ylabel("||dL / dh_t||")
ax.set_title("gradient of a loss on the last state, through time")
ax.legend()
plt.show()

# %% [markdown]
# **Question 2 (2 points).** Read the plot. How fast does the gradient shrink or grow per step into
# the past for each $\rho$, and why, from the product of one-step factors above? What does that
# mean for a loss at step $T - 1$ that depends on an input at step 0? And why does the line for
# $\rho = 1.2$ grow only over the early steps?

# %% [markdown] answer="vanishing_through_time"
# **Model answer.** Going back $s$ steps multiplies by $s$ factors $\mathrm{diag}(1 - h^2) W_h^\top$.
# Each tanh factor is at most 1 (about 1 here: the inputs are small), so the size is governed by the
# powers of $W_h$, whose singular values all equal $\rho$: the gradient falls by a factor of 2 per
# step for $\rho = 0.5$, by 0.9 for $\rho = 0.9$, keeps its size at $\rho = 1$. Below 1 it vanishes
# geometrically: a loss at step $T - 1$ hardly reaches the early steps, so the network cannot learn
# what they should have remembered (the **vanishing gradient**). Above 1 it can grow geometrically
# (the **exploding gradient**): at $\rho = 1.2$ the states grow until they saturate the tanh, from
# about step 20 on; there the factors $1 - h^2$ are small and the growth stops, while over the early
# steps, where the states are still small, the gradient grows by 1.2 per step into the past.
#
# **Rubric (2 points).**
# - 1 point: the rates read off ($\rho$ per step) and explained by the powers of $W_h$ (its
#   singular values), the tanh factor at most 1.
# - 1 point: the consequence (early inputs cannot be learned from a late loss when it vanishes)
#   and the saturation of the tanh that stops the growth at $\rho = 1.2$.

# %% [markdown]
# ## 3. A sequence task: the adding problem
#
# The **adding problem** (Hochreiter & Schmidhuber, 1997) tests whether a network can remember.
# Every step of a sequence carries two numbers: a value $v_t \sim U(0, 1)$ and a marker
# $m_t \in \{0, 1\}$. Exactly two steps of each sequence are marked, at random positions. The
# target is the sum of the two marked values, $y = \sum_t m_t v_t$, and it is to be predicted
# after the last step. To do that, the network must notice a marked value when it passes, keep it
# in its state, add the second one, and carry the sum to the end, across steps that are noise.
#
# How good is good? Without a memory of the past, a model can do little better than guess the
# average target, 1. Its mean squared error is then the variance of the target,
# $2 \cdot \frac{1}{12} \approx 0.167$. If it remembers one of the two marked values but not the
# other, its error is still $\frac{1}{12} \approx 0.083$. **You pass with a mean squared error of
# at most 0.02** on 2,000 new sequences of length $T = 10$, which the grader draws from the
# distribution of `adding_problem`.
#
# The model: a cell with 16 units reads the sequence, and a linear readout of its last state
# predicts the target, $\hat y = h_{T-1} W_y + b_y$. It is a `dp.Model`, whose parameters are its
# named nodes. It trains on the mean squared error with `dp.Adam`, which draws mini-batches of
# sequences from the training set along the first axis, so `forward` receives the sequences
# **batch first**, with shape $(n, T, 2)$. Write `SequenceModel.forward` with your `rnn_forward`,
# starting from a zero state that `forward` passes as `h_init` itself, and `predict(sequences)`,
# which returns the trained `model`'s predictions as $n$ numbers. Gradients come from `dp`'s
# backprop through the unrolled graph, as in part 2.
#
# The grader grades the trained model on its **parameters**: it runs its own forward pass of this
# architecture (the cell from $h_\text{init} = 0$, the readout of the last state) with `model`'s
# parameters on new sequences, and it also checks what `predict` returns. So keep the architecture
# and the parameters' names; the number of units is yours to choose.

# %%
T_ADD = 10                     # the length of the sequences, in training and in grading


def adding_problem(n: int, T: int, rng: np.random.Generator) -> tuple:
    """n sequences of the adding problem: an array (n, T, 2) of [value, marker] per step, the
    values ~ U(0, 1) and the markers 1 at two distinct random steps (else 0); and the targets
    (n, 1), the sum of the two marked values."""
    values = rng.uniform(0, 1, (n, T))
    first = rng.integers(0, T, n)
    second = (first + rng.integers(1, T, n)) % T          # another step than the first
    markers = np.zeros((n, T))
    markers[np.arange(n), first] = 1
    markers[np.arange(n), second] = 1
    return np.stack([values, markers], axis=-1), (values * markers).sum(axis=1, keepdims=True)


# %%
class SequenceModel(dp.Model):
    """An Elman cell with k units reading sequences of [value, marker] steps, and a linear
    readout of the last state: y_hat = h_{T-1} W_y + b_y."""

    def __init__(self, k: int = 16, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        cell = init_params(2, k, rng)
        self.W_x, self.W_h, self.b = (Node(cell[name], name) for name in ("W_x", "W_h", "b"))
        self.W_y = Node(rng.normal(0, 1 / np.sqrt(k), (k, 1)), "W_y")
        self.b_y = Node(np.zeros((1, 1)), "b_y")

    def forward(self, sequences: np.ndarray) -> Node:
        """sequences (n, T, 2), batch first -> the predictions y_hat, a Node of shape (n, 1):
        the cell unrolled from h_init = zeros (n, k), passed explicitly, and the readout of h_{T-1}."""
        ### BEGIN SOLUTION
        x = np.asarray(sequences, dtype=float).transpose(1, 0, 2)      # time first: (T, n, 2)
        start = Node(np.zeros((x.shape[1], self.W_h.shape[0])))         # h_init = 0
        states = rnn_forward(x, {"W_x": self.W_x, "W_h": self.W_h, "b": self.b}, start)
        return states[-1].dot(self.W_y) + self.b_y
        ### END SOLUTION

    def loss(self, sequences: np.ndarray, y: np.ndarray) -> Node:
        return dp.mse(self.forward(sequences), y)


def predict(sequences: np.ndarray) -> np.ndarray:
    """The trained `model`'s predictions for sequences (n, T, 2): an array of n numbers."""
    ### BEGIN SOLUTION
    with dp.no_grad():
        return model.forward(sequences).value.reshape(-1)
    ### END SOLUTION


# %% [markdown]
# Training is yours to set up: the number of units `k`, the learning rate of `dp.Adam`, the
# mini-batch size, the number of steps (and whether the learning rate should change along the
# way). Keep `model` (a `SequenceModel`) and a list `loss_history` of the mini-batch losses, which
# the next cell plots. Keep it to a few seconds: a few thousand steps at most. The loss should
# soon fall below 0.17, the error of guessing the average, and keep falling as the network learns
# to pick out the marked values and hold them in its state. Question 3 asks why your settings.

# %%
x_train, y_train = adding_problem(4000, T_ADD, np.random.default_rng(0))
### BEGIN SOLUTION
model = SequenceModel(k=16, seed=0)
optimizer = dp.Adam(model, x_train, y_train, lr=0.01, batch_size=64, seed=0)
_, loss_history, _ = optimizer.train(steps=1500, print_each=500, err_hist=True)
optimizer.lr = 0.001                        # smaller steps, to settle into the minimum
_, settling, _ = optimizer.train(steps=500, print_each=500, err_hist=True)
loss_history += settling
### END SOLUTION

fig_training, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(loss_history, linewidth=0.5, label="mini-batch loss")
ax.axhline(1 / 6, color="gray", linestyle=":", label="guessing the average (1/6)")
ax.axhline(0.02, color="black", linestyle="--", label="to pass (0.02)")
ax.set_yscale("log")
ax.set_xlabel("Adam step")
ax.set_ylabel("mean squared error")
ax.set_title("the adding problem, T = 10")
ax.legend()
plt.show()

# %%
x_test, y_test = adding_problem(2000, T_ADD, np.random.default_rng(1))
test_mse = np.mean((predict(x_test) - y_test[:, 0]) ** 2)
print(f"test mean squared error {test_mse:.4f} (guessing the average: {y_test.var():.4f})")
for sequence, target in zip(x_test[:3], y_test[:3, 0]):
    print(f"marked values at steps {np.flatnonzero(sequence[:, 1])}: target {target:.3f}, "
          f"predicted {predict(sequence[None])[0]:.3f}")

# %%
check("sequence_task")

# %% [markdown]
# **Question 3 (2 points).** Which training settings did you choose (units, learning rate, batch
# size, steps, any change of the learning rate), and why? Which one mattered most, and how did
# you find out?

# %% [markdown] answer="training_settings"
# **Model answer** (one of many). 16 units, Adam with learning rate 0.01 and mini-batches of 64
# for 1,500 steps, then 500 steps at 0.001; test MSE about 0.002. The learning rate matters most:
# at $10^{-4}$ the loss stays near the 0.17 of guessing for thousands of steps (the gradient from
# the last step to the marked inputs is small, and small steps do not find the memory), at 0.01
# it falls below 0.083 (one value remembered) within a few hundred steps and then below 0.02; the
# last 500 steps at a ten times smaller rate settle into the minimum, where the mini-batch noise
# of the larger rate kept the loss hopping. 16 units are plenty for two numbers to remember;
# batches of 64 keep the gradient's noise low at a few milliseconds a step.
#
# **Rubric (2 points).**
# - 1 point: the settings stated, with a reason for each that is about this task (memory over
#   10 steps, the noise of mini-batches, time).
# - 1 point: which setting mattered, supported by a comparison the student ran (e.g. the loss
#   curves of two learning rates), not only asserted.

# %% [markdown]
# ## 4. Extension (not graded): an LSTM cell
#
# The plot in part 2 explains why a plain cell struggles with long sequences: what the loss says
# about an early step has to pass through every later $W_h$ and tanh. The **LSTM** (Hochreiter &
# Schmidhuber, 1997; the forget gate is from Gers et al., 2000) adds a second state, the cell
# $c_t$, which changes by elementwise gates rather than by a matrix product. As in CNTK's LSTM,
# both states come from delay nodes, $\bar h_t = \text{Delay}(h)_t$ and
# $\bar c_t = \text{Delay}(c)_t$. (CNTK's gates also read the cell state through "peephole"
# weights; we leave those out.)
#
# $$\begin{aligned}
# i_t &= \sigma(x_t W_{xi} + \bar h_t W_{hi} + b_i), &
# f_t &= \sigma(x_t W_{xf} + \bar h_t W_{hf} + b_f), &
# o_t &= \sigma(x_t W_{xo} + \bar h_t W_{ho} + b_o), \\
# c_t &= f_t \odot \bar c_t + i_t \odot \tanh(x_t W_{xc} + \bar h_t W_{hc} + b_c), &
# h_t &= o_t \odot \tanh(c_t) .
# \end{aligned}$$
#
# On the path along $c$, one step back multiplies the gradient by the forget gate $f_t$ alone,
# elementwise. Where the network keeps $f_t$ near 1, the gradient passes through many steps
# without vanishing.
#
# Below, `unroll` is the loop of `rnn_forward` for any cell, and your `delay` hands the LSTM's pair
# of states $(h, c)$ from step to step. The four gates are computed together, with one matrix of
# $4k$ columns. The forget gate's bias starts at 1, as usual, so that the cell remembers at first.
# The plot compares how much the last state of an untrained LSTM and of an untrained Elman cell
# depends on each input, $\lVert \partial (u \cdot h_{T-1}) / \partial x_t \rVert$, by `dp`'s
# backprop. To go further, train an LSTM on the adding problem with $T = 50$ and compare it with the
# Elman cell.

# %%
def unroll(step, inputs: list, initial) -> list:
    """Any cell unrolled over a list of input Nodes: state_t = step(x_t, delay(states, initial)).
    (rnn_forward is this loop for the Elman cell.)"""
    states = []
    for x_t in inputs:
        states.append(step(x_t, delay(states, initial)))
    return states


def lstm_step(x_t: Node, state: tuple, params: dict) -> tuple:
    """One LSTM step; state = (h, c). params: W (d + k, 4k) and b (1, 4k) hold the gates i, f, o
    and the candidate, in that order."""
    h_prev, c_prev = state
    k = h_prev.shape[1]
    z = dp.concatenate([x_t, h_prev], axis=1).dot(params["W"]) + params["b"]
    i, f, o = (z[:, j * k:(j + 1) * k].sigmoid() for j in range(3))
    c = f * c_prev + i * z[:, 3 * k:].tanh()
    return o * c.tanh(), c


def input_sensitivity(step, initial, x: np.ndarray, u: np.ndarray) -> np.ndarray:
    """||d (u . h_{T-1}) / d x_t|| for every step t: each input step is a named leaf."""
    inputs = [Node(x[t], f"x{t}") for t in range(len(x))]
    last = unroll(step, inputs, initial)[-1]
    h_last = last[0] if isinstance(last, tuple) else last
    grads = (h_last * u).sum().grad(1)
    return np.array([np.linalg.norm(grads[f"x{t}"]) for t in range(len(x))])


lstm_rng = np.random.default_rng(3)
T_lstm, d_lstm, k_lstm = 50, 1, 16
x_lstm = lstm_rng.normal(size=(T_lstm, 1, d_lstm))
u_lstm = lstm_rng.normal(size=(1, k_lstm))
zeros = Node(np.zeros((1, k_lstm)))
lstm_params = {"W": Node(lstm_rng.normal(0, 1 / np.sqrt(d_lstm + k_lstm),
                                         (d_lstm + k_lstm, 4 * k_lstm))),
               "b": Node(np.repeat([0.0, 1.0, 0.0, 0.0], k_lstm)[None])}   # forget bias 1
elman_params = {name: Node(v) for name, v in init_params(d_lstm, k_lstm, lstm_rng).items()}
sensitivity = {
    "LSTM": input_sensitivity(lambda x_t, s: lstm_step(x_t, s, lstm_params), (zeros, zeros),
                              x_lstm, u_lstm),
    "Elman": input_sensitivity(lambda x_t, h: rnn_step(x_t, h, elman_params), zeros,
                               x_lstm, u_lstm),
}
fig_lstm, ax = plt.subplots(figsize=(7, 3.5))
for label, values in sensitivity.items():
    ax.plot(np.arange(T_lstm), values, label=label)
ax.set_yscale("log")
ax.set_xlabel("input step t")
ax.set_ylabel("||d (u . h_{T-1}) / d x_t||")
ax.set_title("how far back the last state reaches (untrained cells)")
ax.legend()
plt.show()

# %% [markdown]
# ## References
#
# - Yu, D. et al. "An Introduction to Computational Networks and the Computational Network Toolkit", chapter "Computational Network". Microsoft Research; LyX source `CNTKBook_CN_Chapter.lyx` in https://github.com/Microsoft/CNTK (revision d67eba8, 2018).
#   This notebook draws on recurrent networks through delay nodes (`PastValue`), unrolling, and backpropagation through time; its LSTM.
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the library whose graph the unrolled network is.
