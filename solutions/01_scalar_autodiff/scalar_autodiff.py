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
# # 01 — Scalar automatic differentiation
#
# Training a model means following the gradient of a loss with respect to every parameter,
# and a network has millions of them. Deriving each partial derivative by hand is slow and
# error-prone. Finite differences cost one or two more evaluations of the loss per parameter.
# **Reverse-mode automatic differentiation** gets all of them in one pass backwards through the
# computation; what that costs, compared with the alternatives, is the first question after
# part 3.
#
# The idea: every computation is made of elementary operations whose derivatives we know.
# Record them as they run, in a **computational graph** with a node per value and an edge from
# each input to the value computed from it. Then apply the chain rule backwards from the
# output, so that every node receives the derivative of the output with respect to itself.
#
# You build that machinery here for single numbers. It is the core of the `dp` library that
# you use in the rest of the course, minus the arrays:
#
# 1. `Scalar`, a number that remembers how it was computed: `+ - * /` (part 1) and
#    `exp log tanh sigmoid` (part 2), each with its **local derivatives**;
# 2. `backward()`, which combines the local derivatives over the whole graph (part 3);
# 3. `numerical_gradient`, the finite-difference estimate used to test derivatives (part 4).
#
# Three questions ask you to explain what you built, in a few sentences each, in the cell
# under each question. They are graded by hand, not by `check`.
#
# `dp` and other autodiff libraries cannot be imported here; `math` is all you need.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

from autograder import check

# %% [markdown]
# ## The node
#
# A `Scalar` holds its `value`, its `grad` (filled in by `backward`, part 3) and its
# `parents`. For each input $u$ of the operation that made the node, `parents` has the pair
# $(u, \partial\,\mathrm{node} / \partial u)$. That number is the **local derivative**, and it
# is computed together with the value. Leaves (the inputs) have no parents. For $c = a b$ at
# $a = 2$, $b = -3$:
#
# ```python
# c = Scalar(-6.0, parents=((a, -3.0), (b, 2.0)))      # dc/da = b, dc/db = a
# ```
#
# ## Part 1: arithmetic
#
# Each operation is one line: the value and the local derivatives side by side.
#
# | expression | value | $\partial/\partial a$ | $\partial/\partial b$ |
# |---|---|---|---|
# | `a + b` | $a + b$ | $1$ | $1$ |
# | `a - b` | $a - b$ | $1$ | $-1$ |
# | `a * b` | $a \, b$ | $b$ | $a$ |
# | `a / b` | $a / b$ | $1 / b$ | $-a / b^2$ |
# | `-a` | $-a$ | $-1$ | |
#
# A Python number on either side (`2 * a`, `1 - a`) first becomes a leaf (`as_scalar`). When
# the number is on the left, Python calls the *reflected* method of the right operand:
# `1 - a` runs `a.__rsub__(1)`, so `__rsub__(self, other)` computes `other - self`.

# %%
class Scalar:
    """A number in a computational graph.

    value    the number
    grad     d(output)/d(this node), set by `output.backward()`; 0 until then
    parents  ((input node, local derivative d(this node)/d(input)), ...); () for a leaf
    """

    def __init__(self, value: float, parents: tuple = ()):
        self.value = float(value)
        self.parents = tuple(parents)
        self.grad = 0.0

    def __repr__(self) -> str:
        return f"Scalar(value={self.value:.6g}, grad={self.grad:.6g})"

    def __add__(self, other: "Scalar | float") -> "Scalar":
        """a + b.   d/da = 1,  d/db = 1"""
        other = as_scalar(other)
        ### BEGIN SOLUTION
        return Scalar(self.value + other.value, ((self, 1.0), (other, 1.0)))
        ### END SOLUTION

    def __sub__(self, other: "Scalar | float") -> "Scalar":
        """a - b.   d/da = 1,  d/db = -1"""
        other = as_scalar(other)
        ### BEGIN SOLUTION
        return Scalar(self.value - other.value, ((self, 1.0), (other, -1.0)))
        ### END SOLUTION

    def __mul__(self, other: "Scalar | float") -> "Scalar":
        """a * b.   d/da = b,  d/db = a"""
        other = as_scalar(other)
        ### BEGIN SOLUTION
        return Scalar(self.value * other.value, ((self, other.value), (other, self.value)))
        ### END SOLUTION

    def __truediv__(self, other: "Scalar | float") -> "Scalar":
        """a / b.   d/da = 1/b,  d/db = -a/b^2"""
        other = as_scalar(other)
        ### BEGIN SOLUTION
        return Scalar(self.value / other.value,
                      ((self, 1 / other.value), (other, -self.value / other.value ** 2)))
        ### END SOLUTION

    def __neg__(self) -> "Scalar":
        """-a.   d/da = -1"""
        ### BEGIN SOLUTION
        return Scalar(-self.value, ((self, -1.0),))
        ### END SOLUTION

    # A number on the left: `other + self`, `other * self` are the same as `self + other`, ...
    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other: float) -> "Scalar":
        """other - self, for a number `other`."""
        ### BEGIN SOLUTION
        return as_scalar(other) - self
        ### END SOLUTION

    def __rtruediv__(self, other: float) -> "Scalar":
        """other / self, for a number `other`."""
        ### BEGIN SOLUTION
        return as_scalar(other) / self
        ### END SOLUTION


def as_scalar(x: "Scalar | float") -> Scalar:
    """`x` itself if it is a Scalar, else a new leaf holding the number `x`."""
    return x if isinstance(x, Scalar) else Scalar(x)


# %%
a, b = Scalar(2.0), Scalar(-3.0)
c = 1 - a * b / 4
print(c, "parents:", c.parents)

# %%
check("scalar_arithmetic")

# %% [markdown]
# ## Part 2: functions
#
# | function | value | derivative |
# |---|---|---|
# | `x.exp()` | $e^x$ | $e^x$ |
# | `x.log()` | $\ln x$ | $1/x$ |
# | `x.tanh()` | $\tanh x$ | $1 - \tanh^2 x$ |
# | `x.sigmoid()` | $\sigma(x) = \dfrac{1}{1 + e^{-x}}$ | $\sigma(x)\,\bigl(1 - \sigma(x)\bigr)$ |
#
# Three of the derivatives are cheapest written with the value you have just computed.
# Write each function below; the last line of the cell makes them methods of `Scalar`.

# %%
def exp(self: Scalar) -> Scalar:
    """e^x.   d/dx = e^x"""
    ### BEGIN SOLUTION
    value = math.exp(self.value)
    return Scalar(value, ((self, value),))
    ### END SOLUTION


def log(self: Scalar) -> Scalar:
    """ln x, for x > 0.   d/dx = 1/x"""
    ### BEGIN SOLUTION
    return Scalar(math.log(self.value), ((self, 1 / self.value),))
    ### END SOLUTION


def tanh(self: Scalar) -> Scalar:
    """tanh x.   d/dx = 1 - tanh^2 x"""
    ### BEGIN SOLUTION
    value = math.tanh(self.value)
    return Scalar(value, ((self, 1 - value ** 2),))
    ### END SOLUTION


def sigmoid(self: Scalar) -> Scalar:
    """sigma(x) = 1 / (1 + e^-x).   d/dx = sigma(x) (1 - sigma(x))"""
    ### BEGIN SOLUTION
    value = 1 / (1 + math.exp(-self.value))
    return Scalar(value, ((self, value * (1 - value)),))
    ### END SOLUTION


Scalar.exp, Scalar.log, Scalar.tanh, Scalar.sigmoid = exp, log, tanh, sigmoid

# %%
check("scalar_functions")

# %% [markdown]
# ## Part 3: backpropagation
#
# Let $y$ be the node we call `backward()` on (the output, typically a loss). The
# derivative of $y$ with respect to itself is $1$. Any other node $u$ influences $y$ only
# through the nodes $p$ computed from it, so by the chain rule
#
# $$\frac{\partial y}{\partial u} \;=\; \sum_{p \,:\, u \in \mathrm{parents}(p)}
#   \frac{\partial y}{\partial p}\,\frac{\partial p}{\partial u}.$$
#
# The first factor is $p$'s own `grad`; the second is the local derivative stored in
# `p.parents`. Each node $p$ can therefore pass its shares down, `parent.grad += local *
# p.grad`, as long as its own `grad` is complete: every node computed from $p$ must already
# have passed its share to $p$. So visit the nodes in **reverse topological order**: the
# output first, and every node after all the nodes computed from it. Here the share of `a`
# reaches `h` before `h` passes its gradient on to `x`:
#
# ```
#            a = tanh(h)
#          /            \
#  x --- h                y = a * b          dy/dh = dy/da * da/dh + dy/db * db/dh
#          \            /
#            b = exp(h)
# ```
#
# A node used twice (`h` here, or `x` in `x * x`) receives two shares: they add up.
# Find the order with a depth-first search on an **explicit stack**. A recursive search
# stops at Python's recursion limit (about 1,000 nested calls), and real graphs are deeper.
# Visit each node once, however many paths lead to it.
#
# **Accumulate, then start afresh.** Within one call the shares *add up* (`+=`), so every
# `grad` must start at 0. `backward()` sets that start itself: it first sets the `grad` of every
# node of the graph to 0, then seeds `self.grad = 1` and accumulates. A second call on the same
# graph (for a second loss computed from the same nodes, say) therefore gives the same
# gradients, not their double. (PyTorch chose the other convention: its `backward()` adds to
# whatever is there, and you clear it with `zero_grad()`.) The grader calls `backward()` twice.
#
# <details>
# <summary><b>Hint</b> (open it when you are stuck): a depth-first order without recursion</summary>
#
# A recursive depth-first search puts a node into the order when it *returns* from the node:
# after all of its parents are in. On an explicit stack, a node must therefore be met twice:
# once to push its parents, and once more, after they have all been handled, to be put into the
# order. One way: push pairs (node, a flag saying which of the two visits this is).
#
# ```text
# stack <- [(output, first visit)]
# while the stack is not empty:
#     take (node, which visit) from the top
#     second visit:  append node to the order      (its parents are all in it by now)
#     first visit of a node not seen before:
#         remember it as seen
#         push (node, second visit)                 (below its parents: popped after them)
#         push (parent, first visit) for each parent
# ```
#
# The order then has every node after its parents; walk it backwards for the gradients. Remember
# "seen" nodes by `id(node)` in a set, so that a node reached by two paths is visited once.
# </details>

# %%
def backward(self: Scalar) -> None:
    """Set node.grad = d(self)/d(node) for every node of the graph that computed `self`.

    Order the nodes topologically with an explicit stack (no recursion), each node once.
    Set every node's grad to 0 (a previous backward() may have left values there). Then start
    from self.grad = 1 and, in reverse topological order, let every node add
    local derivative * node.grad to the grad of each of its parents.
    """
    ### BEGIN SOLUTION
    # Depth-first search: a node enters `order` once all of its parents are in it.
    order, visited, stack = [], set(), [(self, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
        elif id(node) not in visited:
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent, _ in node.parents)
    for node in order:
        node.grad = 0.0
    self.grad = 1.0
    for node in reversed(order):
        for parent, local in node.parents:
            parent.grad += local * node.grad
    ### END SOLUTION


Scalar.backward = backward

# %% [markdown]
# The first example of the DP paper computes $e = \sum_{ij} \exp(A_{ij} B_{j})$. One of its
# terms is $\exp(a b)$ with $a = 1$, $b = 2$, and the paper prints
# $\partial e / \partial A_{01} = 14.78$:

# %%
a, b = Scalar(1.0), Scalar(2.0)
e = (a * b).exp()
e.backward()
print(f"de/da = {a.grad:.2f}, de/db = {b.grad:.2f}")

# %%
check("scalar_backprop")

# %% [markdown]
# **Question 1 (2 points).** In the diagram of part 3, suppose `backward()` visited `h` right
# after `a`, before `b`: `h` passes its `grad` on to `x` while only `a`'s share has reached it.
# Which gradients come out wrong, and what do they miss? Why does a reverse topological order
# rule this out for every graph, however many paths lead from a node to the output?

# %% [markdown] answer="backprop_order"
# **Model answer.** When `h` is visited, `h.grad` holds only `dy/da * da/dh`; the share
# `dy/db * db/dh` arrives later, after `h` has already passed its gradient on. So `x.grad` (and
# every node before `h`) misses the term that flows through `b`: it gets the derivative along
# one path instead of the sum over both. `h.grad` itself ends up right, which makes the bug easy
# to miss. In a reverse topological order a node comes after every node computed from it, so
# all its consumers have added their shares before it passes its own gradient on: its `grad` is
# complete when it is used, on every graph.
#
# **Rubric (2 points).**
# - 1 point: `x`'s gradient (everything upstream of `h`) misses the share through `b`; the
#   path-sum of the chain rule is cut short.
# - 1 point: reverse topological order means every consumer of a node is visited before it, so
#   a node's gradient is complete before it is passed on.

# %% [markdown]
# **Question 2 (2 points).** A loss $L$ depends on $n$ parameters through a graph of $N$
# operations. *Forward-mode* differentiation carries, alongside each value, its derivative with
# respect to **one** chosen input. How many passes over the graph does forward mode need to
# get all $n$ partial derivatives of $L$, and how many does your `backward()`? For which shape
# of function would forward mode be the cheaper one?

# %% [markdown] answer="reverse_mode_cost"
# **Model answer.** Forward mode needs one pass per input: $n$ passes, cost about $n N$.
# Reverse mode needs one forward pass (values and local derivatives) and one backward pass,
# each visiting every node once: about $2N$ to $3N$ whatever $n$ is, so all $n$ derivatives
# cost a small constant times one evaluation of the loss. For one output and many inputs (a
# loss of millions of parameters) reverse mode wins by a factor of about $n$. Forward mode is
# the cheaper one when there are few inputs and many outputs (one pass per input, against one
# backward pass per output), e.g. a curve $f: \mathbb{R} \to \mathbb{R}^m$; reverse mode's
# other cost is memory: it keeps the whole graph until the backward pass.
#
# **Rubric (2 points).**
# - 1 point: forward mode $n$ passes, reverse mode one backward pass (after the forward pass),
#   independent of $n$.
# - 1 point: forward mode wins for few inputs and many outputs (a Jacobian with more rows than
#   columns), or reverse mode's memory for the graph is named as its price.

# %% [markdown]
# ## Part 4: numerical gradient
#
# You can test any derivative against finite differences. By Taylor's theorem,
#
# $$f(x \pm \varepsilon) = f(x) \pm \varepsilon f'(x) + \tfrac{\varepsilon^2}{2} f''(x)
#   \pm \tfrac{\varepsilon^3}{6} f'''(x) + \dots$$
#
# The forward difference $\bigl(f(x + \varepsilon) - f(x)\bigr) / \varepsilon$ is off by about
# $\tfrac{\varepsilon}{2} f''(x)$. In the **central difference**
#
# $$f'(x) \approx \frac{f(x + \varepsilon) - f(x - \varepsilon)}{2 \varepsilon}$$
#
# the $f''$ terms cancel and the error is about $\tfrac{\varepsilon^2}{6} f'''(x)$. A
# smaller $\varepsilon$ is not always better: $f(x \pm \varepsilon)$ are rounded to about 16
# digits, and the difference divides that rounding error by $\varepsilon$. In float64,
# $\varepsilon = 10^{-6}$ is a good compromise for the central difference.

# %%
def numerical_gradient(f, x: float, eps: float = 1e-6) -> float:
    """f'(x) by central differences, (f(x + eps) - f(x - eps)) / (2 eps), for f: float -> float."""
    ### BEGIN SOLUTION
    return (f(x + eps) - f(x - eps)) / (2 * eps)
    ### END SOLUTION


# %%
check("numerical_gradient")

# %% [markdown]
# On the left, the derivative of $\tanh$ from `backward()` and from `numerical_gradient`. On
# the right, the error of the two finite differences as $\varepsilon$ shrinks.

# %%
xs = np.linspace(-4, 4, 81)
by_backward = []
for x in xs:
    leaf = Scalar(x)
    leaf.tanh().backward()
    by_backward.append(leaf.grad)

x0, exact = 0.5, 1 - math.tanh(0.5) ** 2
epsilons = np.logspace(-13, -1, 49)
forward_error = [abs((math.tanh(x0 + h) - math.tanh(x0)) / h - exact) for h in epsilons]
central_error = [abs(numerical_gradient(math.tanh, x0, h) - exact) for h in epsilons]

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
left.plot(xs, np.tanh(xs), label="tanh x")
left.plot(xs, by_backward, label="d tanh / dx by backward()")
left.plot(xs[::4], [numerical_gradient(math.tanh, x) for x in xs[::4]], "o", markersize=4,
          label="numerical_gradient")
left.set_xlabel("x")
left.legend(loc="lower right")
right.loglog(epsilons, forward_error, label="forward difference")
right.loglog(epsilons, central_error, label="central difference")
right.set_xlabel("eps")
right.set_ylabel(f"error of d tanh / dx at x = {x0}")
right.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# **Question 3 (1 point).** Read the right plot. Where is each finite difference most accurate
# (which $\varepsilon$, and about how large is the error there)? Why do both errors grow again
# below that $\varepsilon$, and why with slope $-1$?

# %% [markdown] answer="finite_difference_eps"
# **Model answer.** The forward difference is best near $\varepsilon \approx 10^{-8}$ (error
# a few times $10^{-9}$), the central difference near $\varepsilon \approx 10^{-5}$ to
# $10^{-6}$ (error about $10^{-11}$). Above that, the truncation error falls as
# $\varepsilon$ (slope 1, forward) or $\varepsilon^2$ (slope 2, central). Below it, rounding
# takes over: $f(x \pm \varepsilon)$ are each rounded by about $10^{-16} |f|$, and dividing that
# by $\varepsilon$ gives an error of about $10^{-16} / \varepsilon$, which grows as
# $\varepsilon$ shrinks (slope $-1$, and jagged, since rounding errors are not smooth).
#
# **Rubric (1 point).** Both optima roughly right (forward near $10^{-8}$, central near
# $10^{-5}$; a decade either way is fine), and the rise explained by rounding error divided by
# $\varepsilon$: ½ point each.

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on its first example, $e = \exp(ab)$ and its gradients (part 3's demo), and reverse-mode differentiation on a computational graph.
# - Yu, D. et al. "An Introduction to Computational Networks and the Computational Network Toolkit", chapter "Computational Network". Microsoft Research; LyX source `CNTKBook_CN_Chapter.lyx` in https://github.com/Microsoft/CNTK (revision d67eba8, 2018).
#   This notebook draws on the order of forward and gradient computation: a topological order of the graph and its reverse (part 3).
