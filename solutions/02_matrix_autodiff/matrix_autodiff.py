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
# # 02 — Matrix automatic differentiation
#
# In notebook 01 every node of the graph held one number. A neural network computes with
# matrices: a layer maps a whole batch of inputs $X$ (one example per row) to
# $H = \mathrm{act}(X W + b)$. One node per number would mean millions of nodes. Instead, a
# node holds a whole **matrix**, as in the DP library, whose nodes are tensors of order 2.
#
# The chain rule stays the same. What changes is the local derivative. For an operation
# that maps an $m \times n$ matrix to a $p \times q$ matrix, the Jacobian has
# $pq \times mn$ entries, and almost all of them are zero. We never build it. Each operation
# only needs to answer one question: **given the gradient of the loss with respect to my
# output, $G = \partial L / \partial\,\mathrm{out}$ (a matrix of the output's shape), what is
# the gradient with respect to each of my inputs (a matrix of that input's shape)?** This
# product of $G$ with the Jacobian is the *vector-Jacobian product*. The DP paper shows it for
# the elementwise product $C = A \odot B$:
# $\partial c_k / \partial a_j = \delta_{kj} b_j$, so the sum over $k$ collapses and
# $\partial L / \partial A = G \odot B$.
#
# | task | you write | points |
# |---|---|---|
# | `matrix_dot_transpose` | `dot` and `transpose`: the matrix product and $A^\top$ | 3 |
# | `broadcast_add_mul` | `unbroadcast`, `add`, `mul`: `+` and `*` with NumPy broadcasting | 3 |
# | `matrix_sums` | `reduce_sum`: `x.sum()`, `x.sum(axis=0)`, `x.sum(axis=1)` | 2 |
# | `softmax_log` | `softmax` (numerically stable) and `log` | 2 |
#
# Three questions ask you to explain or derive, in a few sentences each, in the cell under each
# question; they are graded by hand (5 points), not by `check`.
#
# Each part ends with a `check("...")` cell. It runs the grader's checks on your code, on small
# matrices. The grader later uses other shapes, so your code must work for any shape. The
# checks do not start backprop from the loss $L = \sum \mathrm{out}$ (an upstream gradient of
# all ones). They start from a **random** upstream gradient $G$, as if
# $L = \sum_{ij} G_{ij}\,\mathrm{out}_{ij}$, because an all-ones $G$ hides some mistakes.
#
# Grading also runs each part once on matrices of a few hundred rows and columns, and gives each
# call of your code 2 seconds. A backward pass of a few NumPy operations per node takes
# milliseconds there. A gradient computed by numerical differentiation, entry by entry, gives
# the right values on small matrices, but takes about a minute there, and gets no points.
#
# `dp` and other autodiff libraries cannot be imported here: NumPy is all you need.

# %%
import matplotlib.pyplot as plt
import numpy as np

from autograder import check

# %% [markdown]
# ## The node (given)
#
# A `Tensor` holds a 2-D float `value` and its `grad`, like notebook 01's `Scalar`. Each entry
# of `parents` now pairs an input with a **function**: `(input, grad_fn)`, where
# `grad_fn(G)` takes $G = \partial L / \partial\,\mathrm{out}$ and returns this operation's
# share of $\partial L / \partial\,\mathrm{input}$. `backward` is notebook 01's algorithm with
# `local * node.grad` replaced by `grad_fn(node.grad)`. It also checks that every share has
# the shape of its input and names the operation when one does not.
#
# The operations are written as functions `f(self, ...)` and then made methods of `Tensor`,
# one part at a time. `exp` is done for you as an example: $\partial e^{a_{ij}} / \partial
# a_{ij} = e^{a_{ij}}$ elementwise, so the share is $G \odot e^A$.

# %%
class Tensor:
    """A matrix in a computational graph.

    value    a 2-D float64 NumPy array (numbers become 1x1 and vectors rows)
    name     an optional label, for printing
    parents  ((input Tensor, grad_fn), ...): grad_fn(G) maps G = dL/d(this node) to this
             operation's share of dL/d(input), an array of the input's shape; () for a leaf
    op       the operation that made the node ("leaf" for inputs)
    grad     dL/d(this node), an array of value's shape, set by `backward`
    """

    def __init__(self, value, name: str | None = None, parents: tuple = (), op: str = "leaf"):
        value = np.array(value, dtype=float)
        if value.ndim > 2:
            raise ValueError(f"Tensor: values are matrices, not arrays of shape {value.shape}")
        self.value = value.reshape((1,) * (2 - value.ndim) + value.shape)
        self.name, self.parents, self.op = name, tuple(parents), op
        self.grad = None

    shape = property(lambda self: self.value.shape)

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        return f"Tensor({label}op={self.op!r}, shape={self.shape})\n{self.value}"

    def backward(self, upstream=None) -> None:
        """Set node.grad = dL/d(node) for every node of the graph that computed `self`.

        upstream is dL/d(self), an array of self's shape. Leave it out when `self` is the loss
        L itself (a 1x1 Tensor): then dL/d(self) = 1.
        """
        if upstream is None:
            if self.shape != (1, 1):
                raise ValueError(f"backward() without an upstream gradient needs a 1x1 loss, not "
                                 f"a {self.shape} matrix: sum it first, or pass upstream")
            upstream = np.ones((1, 1))
        upstream = np.array(upstream, dtype=float)
        if upstream.shape != self.shape:
            raise ValueError(f"backward: the upstream gradient has shape {upstream.shape}, "
                             f"the output {self.shape}")
        # notebook 01: depth-first search on an explicit stack; a node enters `order` after
        # all the nodes it was computed from
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
            node.grad = np.zeros_like(node.value)
        self.grad = upstream
        for node in reversed(order):
            for parent, grad_fn in node.parents:
                share = np.asarray(grad_fn(node.grad), dtype=float)
                if share.shape != parent.shape:
                    raise ValueError(_shape_mistake(node.op, parent.shape, share.shape))
                parent.grad = parent.grad + share


def _shape_mistake(op: str, wanted: tuple, received: tuple) -> str:
    """What backward says when an operation's gradient has the wrong shape."""
    hint = ""
    if received == wanted[::-1]:
        hint = " (transposed?)"
    elif len(received) == 2 and all(w in (1, r) for w, r in zip(wanted, received)):
        hint = " (the operand was broadcast: sum the gradient back to its shape)"
    return (f"backward: {op} passed a gradient of shape {received} to its operand of shape "
            f"{wanted}{hint}")


def as_tensor(x) -> Tensor:
    """`x` itself if it is a Tensor, else a new leaf holding the number or array `x`."""
    return x if isinstance(x, Tensor) else Tensor(x)


def exp(self: Tensor) -> Tensor:
    """e^a elementwise.   dL/da = G * e^a"""
    value = np.exp(self.value)
    return Tensor(value, parents=((self, lambda g: g * value),), op="exp")


Tensor.exp = exp

# %% [markdown]
# ## Part 1: the matrix product and the transpose
#
# For $C = A B$ with $A$ of shape $(m, n)$ and $B$ of shape $(n, p)$,
# $c_{ik} = \sum_j a_{ij} b_{jk}$. The entry $a_{ij}$ appears in every $c_{ik}$ of row $i$,
# with coefficient $b_{jk}$, so
#
# $$\frac{\partial L}{\partial a_{ij}} = \sum_k g_{ik}\, b_{jk} = (G B^\top)_{ij},
# \qquad
# \frac{\partial L}{\partial b_{jk}} = \sum_i a_{ij}\, g_{ik} = (A^\top G)_{jk}.$$
#
# The shapes give you a memory aid. $G$ is $(m, p)$, $\partial L / \partial A$ must be
# $(m, n)$, and the only product of $G$ with $B$ (or $B^\top$) of that shape is $G B^\top$.
#
# The transpose $C = A^\top$ moves $a_{ij}$ to $c_{ji}$, so the gradient moves back:
# $\partial L / \partial A = G^\top$.

# %%
def dot(self: Tensor, other: Tensor) -> Tensor:
    """The matrix product self @ other, (m, n) @ (n, p) -> (m, p).

    dL/d(self) = G @ other^T,   dL/d(other) = self^T @ G
    """
    other = as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.value, other.value
    return Tensor(a @ b, parents=((self, lambda g: g @ b.T), (other, lambda g: a.T @ g)), op="dot")
    ### END SOLUTION


def transpose(self: Tensor) -> Tensor:
    """self^T, (m, n) -> (n, m).   dL/d(self) = G^T"""
    ### BEGIN SOLUTION
    return Tensor(self.value.T, parents=((self, lambda g: g.T),), op="transpose")
    ### END SOLUTION


Tensor.dot = Tensor.__matmul__ = dot
Tensor.transpose = transpose
Tensor.T = property(transpose)

# %%
a = Tensor(np.arange(6).reshape(2, 3), "a")
b = Tensor(np.ones((3, 2)), "b")
c = a.dot(b)
c.backward(upstream=np.array([[1.0, 0.0], [0.0, 2.0]]))
print(c, "\ndL/da =\n", a.grad, "\ndL/db =\n", b.grad)

# %%
check("matrix_dot_transpose")

# %% [markdown]
# ## Part 2: broadcasting
#
# NumPy lets you add a row to every row of a matrix: `X + b` with `X` of shape $(m, n)$ and
# `b` of shape $(1, n)$ adds `b` to each of the $m$ rows. That is how a layer adds its bias to
# every example of a batch. In two dimensions, an operand with a length-1 axis is stretched
# along it to the other operand's length: a row $(1, n)$ is repeated down the rows, a column
# $(m, 1)$ across the columns, a $(1, 1)$ matrix or a number everywhere, and an $(m, 1)$
# column with a $(1, n)$ row gives an $(m, n)$ result.
#
# **Why the gradient is summed.** Broadcasting uses each entry $b_j$ of the row $m$ times,
# once in each row of the result. Notebook 01 showed what happens to a node that is used
# several times: it receives the sum of the gradients of all its uses. So
#
# $$C = X + \mathbf{1}_m b \;\Rightarrow\; \frac{\partial L}{\partial b_j} = \sum_i g_{ij},$$
#
# the sum of $G$ over the axis along which $b$ was stretched, keeping that axis: the result
# has $b$'s shape $(1, n)$. Copying (broadcast) and summing are each other's adjoints:
# the backward pass of one is the other.
#
# Compute the share of each operand as if it had the full shape, then sum it back with
# `unbroadcast(share, operand_shape)`:
#
# | expression | value | $\partial L / \partial a$ | $\partial L / \partial b$ |
# |---|---|---|---|
# | `a + b` | $a + b$ | $G$, summed back to $a$'s shape | $G$, summed back to $b$'s shape |
# | `a * b` | $a \odot b$ | $G \odot b$, summed back | $G \odot a$, summed back |
#
# A number or a NumPy array on either side (`2 * a`, `x + 1`) first becomes a leaf
# (`as_tensor`). Addition and multiplication commute, so the same function serves
# `__add__` and its reflected form `__radd__` (`2 + a` runs `a.__radd__(2)`).

# %%
def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum `grad` over every axis along which an operand of `shape` was broadcast (the axes
    where `shape` has length 1 and `grad` does not), keeping the axis: the result has `shape`.
    E.g. a gradient of shape (4, 3) for an operand of shape (1, 3) is summed over axis 0."""
    ### BEGIN SOLUTION
    stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and grad.shape[axis] != 1)
    return grad.sum(axis=stretched, keepdims=True)
    ### END SOLUTION


def add(self: Tensor, other) -> Tensor:
    """self + other, broadcasting.   dL/d(self) = G,  dL/d(other) = G  (each summed back)"""
    other = as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.value, other.value
    return Tensor(a + b, parents=((self, lambda g: unbroadcast(g, a.shape)),
                                  (other, lambda g: unbroadcast(g, b.shape))), op="add")
    ### END SOLUTION


def mul(self: Tensor, other) -> Tensor:
    """self * other elementwise, broadcasting.   dL/d(self) = G * other,  dL/d(other) = G * self
    (each summed back)"""
    other = as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.value, other.value
    return Tensor(a * b, parents=((self, lambda g: unbroadcast(g * b, a.shape)),
                                  (other, lambda g: unbroadcast(g * a, b.shape))), op="mul")
    ### END SOLUTION


Tensor.__add__ = Tensor.__radd__ = add
Tensor.__mul__ = Tensor.__rmul__ = mul

# %%
x = Tensor(np.arange(6).reshape(3, 2), "x")
bias = Tensor([[10.0, 20.0]], "bias")          # a row, added to each of the 3 rows
h = x * 2 + bias
h.backward(upstream=np.ones((3, 2)))
print(h, "\ndL/dbias =", bias.grad, " (one 1 from each of the 3 rows)")

# %%
check("broadcast_add_mul")

# %% [markdown]
# ## Part 3: sums
#
# `x.sum()` adds all entries; the result is a $1 \times 1$ matrix (a loss is one). `x.sum(axis=0)`
# sums each column, giving a row $(1, n)$, and `x.sum(axis=1)` sums each row, giving a column
# $(m, 1)$. The summed axis is **kept** with length 1, as in the DP library, so that the result
# broadcasts back against $x$ (in NumPy, `x - x.sum(axis=1, keepdims=True) / n` subtracts each
# row's mean).
#
# Each $x_{ij}$ contributes with coefficient 1 to exactly one entry of the sum, so its gradient
# is the upstream gradient of that entry:
#
# $$s_i = \sum_j x_{ij} \ (\text{axis } 1) \;\Rightarrow\;
# \frac{\partial L}{\partial x_{ij}} = g_{i},$$
#
# which is $G$ broadcast back to $x$'s shape (`np.broadcast_to`). It is not a matrix of ones:
# that is only right when $L$ is the sum itself ($G = 1$). The backward pass of a sum is a
# broadcast, just as the backward pass of a broadcast was a sum.
#
# (The function is called `reduce_sum`, TensorFlow's name, so that it does not hide
# Python's `sum`; it becomes the method `Tensor.sum`.)

# %%
def reduce_sum(self: Tensor, axis: int | None = None) -> Tensor:
    """The sum of all entries (1x1), or along `axis` keeping it: an (m, n) matrix summed over
    axis 0 is (1, n), over axis 1 (m, 1).   dL/d(self) = G broadcast to self's shape"""
    ### BEGIN SOLUTION
    value = self.value.sum(axis=axis, keepdims=True)
    return Tensor(value, parents=((self, lambda g: np.broadcast_to(g, self.shape)),), op="sum")
    ### END SOLUTION


Tensor.sum = reduce_sum

# %% [markdown]
# The first example of the DP paper, $e = \sum_{ij} \exp(A_{ij} B_{1j})$, now runs with
# matrices. The paper prints $\partial e / \partial A$ =
# `[[2.7, 14.78, 60.26], [7.39, 109.20, 1210.29]]` and $\partial e / \partial B$ =
# `[[17.50, 116.59, 826.94]]`:

# %%
A = Tensor([[1, 1, 1], [2, 2, 2]], "A")
B = Tensor([[1, 2, 3]], "B")
e = (A * B).exp().sum()
e.backward()
print("de/dA =\n", A.grad.round(2), "\nde/dB =\n", B.grad.round(2))

# %%
check("matrix_sums")

# %% [markdown]
# ## Part 4: a stable softmax, and log
#
# The softmax turns each row of scores (logits) $z$ into probabilities:
#
# $$s_i = \frac{e^{z_i}}{\sum_j e^{z_j}} \quad \text{(along each row)}.$$
#
# **Overflow.** In float64, $e^{z}$ is `inf` for $z > 709.78$. With logits near 1000 (or
# $-1000$, where every $e^{z}$ rounds to 0) the formula gives `inf / inf` (or `0 / 0`), that
# is NaN. The way out: for any constant $c$,
#
# $$\frac{e^{z_i - c}}{\sum_j e^{z_j - c}} = \frac{e^{-c}\, e^{z_i}}{e^{-c} \sum_j e^{z_j}}
# = s_i.$$
#
# With $c = \max_j z_j$ (per row) the largest exponent is $e^0 = 1$: nothing overflows, and
# the denominator is at least 1.
#
# **The gradient.** $\partial s_i / \partial z_k = s_i (\delta_{ik} - s_k)$. Contract it with
# the upstream gradient $g$ of the row:
#
# $$\frac{\partial L}{\partial z_k} = \sum_i g_i\, s_i (\delta_{ik} - s_k)
# = s_k \Bigl(g_k - \sum_i g_i s_i\Bigr),$$
#
# so the share is `s * (G - (G * s).sum(axis=1, keepdims=True))`. The diagonal term
# $s_k (1 - s_k)$ alone is not enough: every $z_k$ changes every $s_i$ of its row.
#
# And $\log$, elementwise: $\partial L / \partial a = G / a$.

# %%
def softmax(self: Tensor) -> Tensor:
    """Softmax of each row, stable for large logits (subtract each row's maximum first).
    dL/d(self) = s * (G - sum_k G_k s_k), with the sum along each row"""
    ### BEGIN SOLUTION
    exps = np.exp(self.value - self.value.max(axis=1, keepdims=True))
    s = exps / exps.sum(axis=1, keepdims=True)
    return Tensor(s, parents=((self, lambda g: s * (g - (g * s).sum(axis=1, keepdims=True))),),
                  op="softmax")
    ### END SOLUTION


def log(self: Tensor) -> Tensor:
    """The natural logarithm elementwise, for positive entries.   dL/d(self) = G / self"""
    ### BEGIN SOLUTION
    return Tensor(np.log(self.value), parents=((self, lambda g: g / self.value),), op="log")
    ### END SOLUTION


Tensor.softmax = softmax
Tensor.log = log

# %%
z = Tensor([[1.0, 2.0, 3.0], [1000.0, 1001.0, 1002.0]], "z")
print(z.softmax())   # both rows: the same probabilities

# %%
check("softmax_log")

# %% [markdown]
# ## Everything together: a softmax classifier
#
# With these operations you can train a classifier. The points below come from three
# clusters in the plane. The model computes class probabilities $P = \mathrm{softmax}(X W + b)$:
# $X$ is $(n, 2)$, $W$ is $(2, 3)$, and the bias row $b$ $(1, 3)$ is broadcast over the $n$
# examples. Its loss is the mean cross-entropy $L = -\frac{1}{n} \sum Y \odot \log P$, with the
# one-hot labels $Y$. Each step of gradient descent moves $W$ and $b$ against their gradients.
# Once your operations pass their checks, the decision regions should separate the clusters.

# %%
rng = np.random.default_rng(0)
centres = np.array([[0.0, 2.0], [-2.0, -1.0], [2.0, -1.0]])
labels = rng.integers(0, 3, 300)
X = centres[labels] + rng.normal(0, 0.9, (300, 2))
Y = np.eye(3)[labels]                                   # one-hot, (300, 3)

W = Tensor(rng.normal(0, 0.1, (2, 3)), "W")
b = Tensor(np.zeros((1, 3)), "b")
losses = []
for step in range(200):
    P = (Tensor(X).dot(W) + b).softmax()
    loss = (Tensor(Y) * P.log()).sum() * (-1 / len(X))
    loss.backward()
    W.value -= 0.5 * W.grad
    b.value -= 0.5 * b.grad
    losses.append(loss.value.item())
print(f"loss after {len(losses)} steps: {losses[-1]:.3f}" if losses else "")

# %%
grid = np.stack(np.meshgrid(np.linspace(-5, 5, 200), np.linspace(-4.5, 5, 200)), axis=-1)
region = (grid.reshape(-1, 2) @ W.value + b.value).argmax(axis=1).reshape(grid.shape[:2])
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.contourf(grid[..., 0], grid[..., 1], region, levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.25,
              cmap="brg")
left.scatter(X[:, 0], X[:, 1], c=labels, s=8, cmap="brg")
left.set_title("decision regions of softmax(XW + b)")
right.plot(losses)
right.set_xlabel("step")
right.set_ylabel("mean cross-entropy")
right.set_title("training loss")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Questions
#
# **Question 1 (2 points).** The bias row $b$, of shape $(1, 3)$, is broadcast over the $n = 300$
# examples. Why is its gradient the **sum** over the examples of the rows of the upstream
# gradient, and not their mean, nor one of them? Relate it to a node used several times in
# notebook 01.

# %% [markdown] answer="broadcast_gradient_sum"
# **Model answer.** Broadcasting uses the same entry $b_j$ in every row: $Z_{ij} = (XW)_{ij} +
# b_j$ for $i = 1, \dots, n$. It is a node with $n$ consumers, and as in notebook 01 the chain
# rule adds the shares of all its uses: $\partial L / \partial b_j = \sum_i \partial L /
# \partial Z_{ij}$. The mean would be the gradient divided by $n$ (a step $n$ times too small,
# not the derivative of $L$); a single row would keep only one example's share. The sum also
# brings the gradient back to $b$'s shape $(1, 3)$, which the update `b.value -= ...` needs.
#
# **Rubric (2 points).**
# - 1 point: $b_j$ is used once per example, and the shares of all uses add up (the chain rule
#   over several paths, as for a reused node).
# - 1 point: the mean or one row is not $\partial L / \partial b$ (a factor $n$, or missing
#   shares); the sum gives $b$'s shape.

# %% [markdown]
# **Question 2 (2 points).** Derive from $\partial L / \partial z_k = s_k \bigl(g_k - \sum_i g_i
# s_i\bigr)$ that the gradient of the softmax sums to zero along each row, whatever the upstream
# gradient $g$. What property of the softmax, used in part 4 for stability, does this reflect?

# %% [markdown] answer="softmax_gradient_zero_sum"
# **Model answer.** $\sum_k s_k \bigl(g_k - \sum_i g_i s_i\bigr) = \sum_k s_k g_k - \bigl(\sum_k
# s_k\bigr) \sum_i g_i s_i = 0$, since the probabilities of a row sum to 1. It reflects the
# invariance $\mathrm{softmax}(z + c) = \mathrm{softmax}(z)$ used to subtract the maximum:
# moving every logit of a row by the same $c$ changes nothing, so the derivative of $L$ in the
# direction $(1, \dots, 1)$ is 0, and that derivative is the sum of the gradient's entries.
#
# **Rubric (2 points).** 1 point for the derivation ($\sum_k s_k = 1$ makes the two terms
# cancel); 1 point for the link to the invariance under adding a constant to a row.

# %% [markdown]
# **Question 3 (1 point).** The classifier computes $\log P$ as `softmax()` then `log()`. What
# does that give for the first entry of the logits $z = (0, 1000)$, what should it be, and why?

# %% [markdown] answer="log_of_softmax"
# **Model answer.** The softmax of $(0, 1000)$ is $(e^{-1000}, 1)$ in exact arithmetic, but
# $e^{-1000}$ underflows to 0 in float64, so `log` gives $-\infty$ (and its gradient $G / 0$ is
# infinite), where $\log s_1 = z_1 - \max z - \log \sum_j e^{z_j - \max z} = -1000$. A
# `log_softmax` computed in that form stays finite; that is why `dp` has one, and why its
# cross-entropy takes logits.
#
# **Rubric (1 point).** $-\infty$ (or a warning of log of 0) from the underflow of $e^{-1000}$,
# against $-1000$; ½ point each.

# %% [markdown]
# ## References
#
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the vector-Jacobian product of the elementwise product, and its first example $e = \sum_{ij} \exp(A_{ij} B_{1j})$ with matrices.
# - Yu, D. et al. "An Introduction to Computational Networks and the Computational Network Toolkit", chapter "Computational Network". Microsoft Research; LyX source `CNTKBook_CN_Chapter.lyx` in https://github.com/Microsoft/CNTK (revision d67eba8, 2018).
#   This notebook draws on node types with their gradients: products, transposes, sums and elementwise functions.
