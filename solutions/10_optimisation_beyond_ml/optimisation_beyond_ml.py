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
# # 10 — Optimisation beyond machine learning: a hanging rope and a boundary-value problem
#
# *This notebook is optional.* It leaves the thread of neural networks for a week and is harder
# than 09 (fourth-order stencils, Gauss–Newton). It is graded and fed back like the others; not
# handing it in is not a missing assignment (your course says whether it counts as a bonus).
#
# Nothing in `dp` knows about neural networks. It differentiates any scalar built from its
# operations, and gradient descent then minimises that scalar, whatever it means. Physics is full
# of such scalars. A system at rest sits at a minimum of its potential energy, so a shape can be
# found by descending the energy. An equation that a function must satisfy can be turned into a
# residual, and a solution is then a point where the sum of the squared residuals is zero.
#
# This notebook solves two problems from the ArrayFlow paper (Nicolae, "Deep learning framework
# from scratch using NumPy") in this way:
#
# 1. **A hanging rope.** Which shape does a rope take when it is fixed at two points? The answer
#    comes from descending its energy, and the curve it finds is the hyperbolic cosine
#    (the *catenary*).
# 2. **A boundary-value problem.** We solve $2y'' + y' + 2y = 0$ with $y(0) = 1$ and
#    $y(6.1) = 0.1$ by least squares on finite differences. Plain gradient descent gets stuck on
#    this problem. We measure why, and then fix it with a better optimiser.
#
# | task | you write | points |
# |---|---|---|
# | `catenary_loss` | `catenary_loss(z, length)`: the rope's length penalty plus its potential energy, as a `dp` graph | 3 |
# | `catenary_shape` | `descend(loss, z0, lr, steps)`: gradient descent, which finds the catenary | 2 |
# | `ode_residual` | `derivative_matrices(n, dt)` and `ode_residual(y, t1)`: 4th-order finite differences | 3 |
# | `ode_solution` | `jacobian(f, z)` and `gauss_newton(residual, z0, steps)` | 2 |
#
# Two questions ask you to explain or derive, in a few sentences each, in the cell under each
# question; they are graded by hand (4 points), not by `check`.
#
# Each task has a `check("...")` cell that runs the grader's checks on your code. The grader later
# uses other inputs. The grader runs your optimisers on its own losses, so a mistake in a loss
# costs only that loss's task.

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Node
from autograder import check

# %% [markdown]
# ## Part 1 — The catenary
#
# A rope of uniform density hangs between the points $(0, 0)$ and $(1, 0)$. We describe it by
# $n$ points at $x_i = i / (n - 1)$, $i = 0, \dots, n - 1$, with heights $y_i$. The ends are
# fixed, $y_0 = y_{n-1} = 0$, and the **free heights** $z = (y_1, \dots, y_{n-2})$ are the
# unknowns. Segment $i$ joins point $i$ to point $i + 1$:
#
# $$\Delta x = \frac{1}{n - 1}, \qquad \Delta y_i = y_{i+1} - y_i, \qquad
#   s_i = \sqrt{\Delta x^2 + \Delta y_i^2}, \qquad L = \sum_{i=0}^{n-2} s_i .$$
#
# The mass of a segment is proportional to its length $s_i$, and its centre lies at the mean
# height $\bar y_i = (y_i + y_{i+1}) / 2$ of its two ends. The potential energy, in units where
# density times gravity is 1, is therefore
#
# $$E = \sum_{i=0}^{n-2} s_i\, \bar y_i .$$
#
# A rope at rest minimises $E$ while keeping its length $L_0$. ArrayFlow does not enforce the
# length exactly. It adds a **penalty** on the length instead and minimises
#
# $$\ell(z) = (L - L_0)^2 + E, \qquad L_0 = 1.1 .$$
#
# Two notes:
# * $\Delta y = (y_1 - y_0, \dots, y_{n-1} - y_{n-2})$ is a cross-correlation of $y$ with the
#   kernel $(-1, 1)$, and $\bar y$ is one with $(\tfrac12, \tfrac12)$. In `dp` they are
#   `y.conv1d(...)` or, more simply, the slices `y[1:] - y[:-1]` and `(y[1:] + y[:-1]) / 2`.
# * The fixed ends are not variables. Build the full rope $y = (0, z, 0)$ inside the loss with
#   `dp.concatenate([np.zeros(1), z, np.zeros(1)])`. The gradient then has one entry per free
#   height, and gradient descent cannot move the ends. ArrayFlow keeps all $n$ heights as
#   variables and sets the gradient of the two ends to zero before each step instead. Both ways
#   give the same iterates.

# %%
def catenary_loss(z: Node, length: float = 1.1) -> Node:
    """The rope's loss (L - L0)^2 + E for the free heights z, with L0 = `length`.

    z: a Node of shape (n - 2,), the heights of the points x_1 .. x_(n-2), where x_i = i / (n - 1).
    The rope is y = (0, z, 0): n points on [0, 1], fixed at height 0 at both ends.
        s_i = sqrt(dx^2 + (y_(i+1) - y_i)^2),  dx = 1 / (n - 1),   L = sum_i s_i,
        E = sum_i s_i (y_i + y_(i+1)) / 2.
    Returns a scalar Node, built from dp operations on z so that its gradient reaches z.
    """
    ### BEGIN SOLUTION
    dx = 1.0 / (len(z) + 1)
    y = dp.concatenate([np.zeros(1), z, np.zeros(1)])
    dy = y[1:] - y[:-1]
    s = (dy * dy + dx * dx).sqrt()
    mean_height = (y[1:] + y[:-1]) / 2
    return (s.sum() - length) ** 2 + (s * mean_height).sum()
    ### END SOLUTION


# %% [markdown]
# A sagging rope with four free heights (six points): check its loss by hand, and its gradient
# against central differences with `dp.gradcheck`. `gradcheck` returns the largest relative error
# and raises an error if that error is too large.

# %%
z_test = np.array([-0.2, -0.4, -0.4, -0.2])
print("loss:", catenary_loss(Node(z_test, "z")).item())

y_test = np.concatenate([[0], z_test, [0]])
s_test = np.hypot(0.2, np.diff(y_test))
print("by hand:", (s_test.sum() - 1.1) ** 2 + np.sum(s_test * (y_test[1:] + y_test[:-1]) / 2))
print("gradient check, largest relative error:", dp.gradcheck(catenary_loss, z_test))

# %%
check("catenary_loss")

# %% [markdown]
# ### Gradient descent with fixed ends
#
# `descend` works for any loss. It takes a function from a `Node` of free values to a scalar
# `Node`, and a starting point `z0`, and it repeats
#
# $$z_{k+1} = z_k - \eta\, \nabla \ell(z_k), \qquad k = 0, 1, \dots, \text{steps} - 1 .$$
#
# At each step, wrap $z_k$ in a **named** leaf, `Node(z, "z")`, evaluate the loss, and read the
# gradient with `.grad(1)["z"]`. `descend` returns the last iterate $z_{\text{steps}}$ and the
# list of the losses $\ell(z_0), \dots, \ell(z_{\text{steps}-1})$, one per step, each computed
# before that step's update. The grader runs your `descend` on losses of its own: quadratics, among
# them the rope's loss near its minimum (its second-order Taylor expansion there, which has the
# same minimiser). So this task does not depend on your `catenary_loss`.

# %%
def descend(loss, z0: np.ndarray, lr: float = 0.005, steps: int = 1000) -> tuple:
    """Gradient descent on loss from z0: z <- z - lr * d loss / dz, `steps` times.

    loss: a function from a Node of shape z0.shape to a scalar Node.
    Returns (z, losses): the final z (a new array: z0 is left unchanged) and the list of
    the `steps` losses loss(z_0), ..., loss(z_(steps-1)), each computed before its step.
    """
    ### BEGIN SOLUTION
    z, losses = np.array(z0, dtype=float), []
    for _ in range(steps):
        value = loss(Node(z, "z"))
        losses.append(value.item())
        z = z - lr * value.grad(1)["z"]
    return z, losses
    ### END SOLUTION


# %%
check("catenary_shape")

# %% [markdown]
# ### The rope
#
# We take $n = 50$ points, start from random heights as ArrayFlow does, and take steps of
# $\eta = 0.005$. The run takes a few seconds.

# %%
N_ROPE, LR_ROPE, STEPS_ROPE = 50, 0.005, 14_000
x_rope = np.linspace(0, 1, N_ROPE)


def rope_length(y: np.ndarray) -> float:
    return float(np.sum(np.hypot(np.diff(x_rope), np.diff(y))))


def show_rope(y: np.ndarray, losses: list) -> None:
    """The rope, and its loss along the descent above the final loss, on a log scale (over the
    first 90% of the steps: near the end, the final loss is no longer a good stand-in for the
    minimum)."""
    fig, (ax_shape, ax_loss) = plt.subplots(1, 2, figsize=(11, 4))
    ax_shape.plot(x_rope, y, "o-", markersize=3, label="the rope after gradient descent")
    ax_shape.set_xlabel("x")
    ax_shape.set_ylabel("y")
    ax_shape.set_title(f"L = {rope_length(y):.5f}, lowest point {y.min():.4f}")
    ax_shape.legend()
    ax_loss.plot(np.array(losses[:len(losses) * 9 // 10]) - losses[-1])
    ax_loss.set_yscale("log")
    ax_loss.set_xlabel("step")
    ax_loss.set_ylabel(r"$\ell(z_k) - \ell(z_{\mathrm{last}})$")
    plt.show()


# %%
z_rope, rope_losses = descend(catenary_loss, np.random.default_rng(0).uniform(-1, 0, N_ROPE - 2),
                              lr=LR_ROPE, steps=STEPS_ROPE)
y_rope = np.concatenate([[0.0], z_rope, [0.0]])
print(f"loss {rope_losses[-1]:.8f}, length L = {rope_length(y_rope):.5f}, "
      f"sag (depth of the lowest point) {-y_rope.min():.4f}")
show_rope(y_rope, rope_losses)

# %% [markdown]
# ### The rope does not have length 1.1
#
# The rope's length is about $1.507$, not $L_0 = 1.1$.
#
# **Question 1 (2 points).** Why is this not a bug? Say what the minimum of $\ell$ balances, and
# what the rope's shape and length then are. How would you make the rope really 1.1 long, and
# at what price for gradient descent?

# %% [markdown] answer="rope_length"
# **Model answer.** The penalty $(L - L_0)^2$ is **soft**. If the rope stretches, more of it
# hangs low and $E$ falls. The minimum of $\ell$ is where a little more stretching costs as much
# penalty as it saves energy: $\nabla E + 2 (L - L_0)\, \nabla L = 0$. This is the condition for
# a rope of length $L$ at rest under a tension $\lambda = 2(L - L_0)$, the Lagrange multiplier of
# its length. Its solution is a catenary, $y = a \cosh\frac{x - b}{a} + c$, with $b = \tfrac12$
# by symmetry and $c = -\lambda$. Such a curve exists for any length, so the penalty picks one:
# here $L \approx 1.507$, where $a \cosh(1 / 2a) = 2(L - L_0)$.
#
# To make it really 1.1 long: weight the penalty, $\mu (L - L_0)^2$, so that $L \to L_0$ as
# $\mu \to \infty$, at the price of a stiffer problem: the largest stable step shrinks like
# $1 / \mu$ ($\mu = 10$: 1.140 long; $\mu = 100$: 1.104). Or use the method of multipliers,
# which updates $\lambda$ between descents. The catenary of length exactly 1.1 has $a = 0.6550$
# and sags by 0.2003.
#
# **Rubric (2 points).**
# - 1 point: a soft penalty; stretching lowers the potential energy until the marginal penalty
#   equals the energy saved (a tension, a catenary of another length).
# - 1 point: a heavier penalty (or multipliers) makes it 1.1 long, and the step must shrink
#   like $1 / \mu$ (a stiffer problem).

# %% [markdown]
# ## Part 2 — A boundary-value problem
#
# The damped oscillator
#
# $$2 y'' + y' + 2 y = 0, \qquad y(0) = 1, \quad y(t_1) = 0.1, \quad t_1 = 6.1,$$
#
# has the characteristic roots $m = -\tfrac14 \pm i \tfrac{\sqrt{15}}{4}$ (from
# $2m^2 + m + 2 = 0$), so its solutions are
#
# $$y(t) = e^{-t/4} \left(\cos \omega t + B \sin \omega t\right), \qquad \omega = \frac{\sqrt{15}}{4}.$$
#
# The condition $y(0) = 1$ fixes the factor of the cosine. The condition at the right end fixes
# $B = (0.1\, e^{t_1/4} - \cos \omega t_1) / \sin \omega t_1 = 1.27790$. An initial-value problem
# would be easy to solve by stepping forward in time. With one condition at each end, it is
# easier to treat the whole curve as the unknown:
#
# 1. Take $N = 20$ points $t_i = i\,\Delta t$, $\Delta t = t_1 / (N - 1)$. The values
#    $y_0 = 1$ and $y_{N-1} = 0.1$ are fixed, and the $N - 2$ inner values $z$ are unknown.
# 2. Approximate $y'$ and $y''$ at every point by finite differences: $y' \approx D_1 y$ and
#    $y'' \approx D_2 y$ with $(N, N)$ matrices.
# 3. Minimise the squared **residual** of the equation, summed over all $N$ points:
#
# $$r = 2 D_2 y + D_1 y + 2 y, \qquad \ell(z) = \sum_{i=0}^{N-1} r_i^2 .$$
#
# That is $N$ equations for $N - 2$ unknowns. Finite differences are not exact, so no $y$ makes all
# of them zero, and we solve them in the least-squares sense.
#
# ### The stencils
#
# Row $i$ of $D_1$ and of $D_2$ holds a **stencil**: the weights of the neighbours of $y_i$, from a
# Taylor expansion of $y$ around $t_i$. Multiply the $D_1$ weights by $1 / \Delta t$ and the $D_2$
# weights by $1 / \Delta t^2$.
#
# | rows | points used | weights for $y'$ | weights for $y''$ |
# |---|---|---|---|
# | $2 \le i \le N-3$ (central) | $y_{i-2}, \dots, y_{i+2}$ | $\tfrac1{12}, -\tfrac23, 0, \tfrac23, -\tfrac1{12}$ | $-\tfrac1{12}, \tfrac43, -\tfrac52, \tfrac43, -\tfrac1{12}$ |
# | $i = 0, 1$ (forward) | $y_i, \dots, y_{i+4}$ | $-\tfrac{25}{12}, 4, -3, \tfrac43, -\tfrac14$ | $\tfrac{35}{12}, -\tfrac{26}{3}, \tfrac{19}{2}, -\tfrac{14}{3}, \tfrac{11}{12}$ |
# | $i = N-2, N-1$ (backward) | $y_{i-4}, \dots, y_i$ | the forward weights reversed, **with their signs changed** | the forward weights reversed |
#
# The backward formulas are the forward ones seen in a mirror. Turning $t$ into $-t$ reverses the
# order of the points and changes the sign of a first derivative, but not of a second one. For
# example, $y'_{N-1} \approx (\tfrac14 y_{N-5} - \tfrac43 y_{N-4} + 3 y_{N-3} - 4 y_{N-2} +
# \tfrac{25}{12} y_{N-1}) / \Delta t$. The error of the central and one-sided $y'$ formulas, and
# of the central $y''$ formula, shrinks like $\Delta t^4$. The one-sided $y''$ formula, with five
# points, is one order less accurate.

# %%
def derivative_matrices(n: int, dt: float) -> tuple:
    """(D1, D2), two (n, n) arrays with D1 @ y ~ y' and D2 @ y ~ y'' at n points spaced dt apart
    (n >= 6): central stencils in rows 2 .. n-3, forward ones in rows 0 and 1, and their mirror
    images in rows n-2 and n-1. D1 carries the factor 1 / dt, D2 the factor 1 / dt^2.
    """
    ### BEGIN SOLUTION
    central_1 = np.array([1 / 12, -2 / 3, 0, 2 / 3, -1 / 12])
    central_2 = np.array([-1 / 12, 4 / 3, -5 / 2, 4 / 3, -1 / 12])
    forward_1 = np.array([-25 / 12, 4, -3, 4 / 3, -1 / 4])
    forward_2 = np.array([35 / 12, -26 / 3, 19 / 2, -14 / 3, 11 / 12])
    D1, D2 = np.zeros((n, n)), np.zeros((n, n))
    for i in range(2, n - 2):
        D1[i, i - 2:i + 3] = central_1
        D2[i, i - 2:i + 3] = central_2
    for i in (0, 1):
        D1[i, i:i + 5] = forward_1
        D2[i, i:i + 5] = forward_2
    for i in (n - 2, n - 1):
        D1[i, i - 4:i + 1] = -forward_1[::-1]
        D2[i, i - 4:i + 1] = forward_2[::-1]
    return D1 / dt, D2 / dt ** 2
    ### END SOLUTION


def ode_residual(y: Node, t1: float) -> Node:
    """The residual r = 2 y'' + y' + 2 y of the ODE at the n = len(y) points t_i = i t1 / (n - 1),
    with the derivatives from derivative_matrices. y: a Node of shape (n,); returns a Node of
    shape (n,) whose gradient reaches y.
    """
    ### BEGIN SOLUTION
    D1, D2 = derivative_matrices(len(y), t1 / (len(y) - 1))
    return 2 * (D2 @ y) + D1 @ y + 2 * y
    ### END SOLUTION


# %% [markdown]
# Are the stencils right? Try them on $y = \sin t$, whose derivatives we know. Each time the
# number of points doubles, the errors should shrink by about $2^4 = 16$ ($2^3 = 8$ for $y''$,
# whose error is largest at the ends).

# %%
for n in (20, 40, 80):
    t = np.linspace(0, 6.1, n)
    D1, D2 = derivative_matrices(n, t[1] - t[0])
    print(f"n = {n:3d}:  max |D1 sin - cos| = {np.max(np.abs(D1 @ np.sin(t) - np.cos(t))):.2e},  "
          f"max |D2 sin + sin| = {np.max(np.abs(D2 @ np.sin(t) + np.sin(t))):.2e}")

# %%
check("ode_residual")

# %% [markdown]
# ### The least-squares problem
#
# The unknowns are the inner values $z$. As with the rope, `dp.concatenate` adds the two fixed
# values. `bvp_loss` is the loss $\ell(z) = \sum_i r_i^2$.

# %%
T1, N_ODE, Y_START, Y_END = 6.1, 20, 1.0, 0.1
t_ode = np.linspace(0, T1, N_ODE)


def exact_solution(t):
    w = np.sqrt(15) / 4
    B = (Y_END * np.exp(T1 / 4) - np.cos(w * T1)) / np.sin(w * T1)
    return np.exp(-t / 4) * (np.cos(w * t) + B * np.sin(w * t))


def bvp_residual(z: Node) -> Node:
    """The residual at all N_ODE points of the curve (Y_START, z, Y_END)."""
    return ode_residual(dp.concatenate([np.full(1, Y_START), z, np.full(1, Y_END)]), T1)


def bvp_loss(z: Node) -> Node:
    r = bvp_residual(z)
    return (r * r).sum()


def error(z) -> float:
    """The largest distance of the curve (Y_START, z, Y_END) from the exact solution."""
    return float(np.max(np.abs(np.concatenate([[Y_START], z, [Y_END]]) - exact_solution(t_ode))))


z_line = np.linspace(Y_START, Y_END, N_ODE)[1:-1]     # the straight line between the ends

# %% [markdown]
# ### Gradient descent gets stuck
#
# Your `descend` works on this loss without any change. The step size is about as large as it can
# be: with `lr=1e-5` the iterates blow up. Adam (notebook 06) adapts the step for each coordinate,
# and here its step size also decays from $10^{-2}$ to $10^{-5}$. Each optimiser gets 3,000 steps.

# %%
def adam(loss, z0, steps, lr_start, lr_end, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam (as in notebook 06) with a step size decaying geometrically from lr_start to lr_end.
    Returns (z, losses), as descend does."""
    z, m, v, losses = np.array(z0, dtype=float), 0.0, 0.0, []
    for t in range(1, steps + 1):
        value = loss(Node(z, "z"))
        g = value.grad(1)["z"]
        losses.append(value.item())
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        lr = lr_start * (lr_end / lr_start) ** (t / steps)
        z = z - lr * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
    return z, losses


histories = {}
z_gd, histories["gradient descent"] = descend(bvp_loss, z_line, lr=5e-6, steps=3000)
z_adam, histories["Adam, decaying step"] = adam(bvp_loss, z_line, 3000, lr_start=1e-2, lr_end=1e-5)
for name, z in [("start (straight line)", z_line), ("gradient descent", z_gd), ("Adam", z_adam)]:
    print(f"{name:>22}: loss {bvp_loss(Node(z)).item():9.4f}, max |y - y_exact| = {error(z):.3f}")

# %% [markdown]
# Neither gets close to the solution: the curves are still 0.5 to 1 away from it. To see why,
# we need the **Jacobian** of the residual,
# $J_{ij} = \partial r_i / \partial z_j$, an $(N, N-2)$ matrix.
#
# Reverse mode computes one row of $J$ per backward pass. `r.grad(u)` backpropagates an upstream
# gradient $u$ of the shape of $r$ and returns $\partial (u \cdot r) / \partial z = u^\top J$.
# With $u = e_i$, the $i$-th unit vector, this is row $i$. (Forward mode would give one
# column per pass instead.)

# %%
def jacobian(f, z: np.ndarray) -> tuple:
    """r = f(z) and its Jacobian J[i, j] = d r_i / d z_j, one row per backward pass.

    f: a function from a Node of shape (n,) to a Node of shape (m,). Returns (r, J): r an array of
    shape (m,), J an array of shape (m, n).
    """
    ### BEGIN SOLUTION
    r = f(Node(np.array(z, dtype=float), "z"))
    rows = [r.grad(unit)["z"] for unit in np.eye(len(r))]
    return r.value, np.array(rows)
    ### END SOLUTION


# %% [markdown]
# The residual is **linear** in $z$, so $r(z) = J z + r(0)$ with a constant $J$. The loss is
# then the quadratic $\ell = |r|^2$, with gradient $2 J^\top r$ and constant Hessian
# $H = 2 J^\top J$.
#
# Gradient descent with step $\eta$ multiplies the error along the eigenvector of eigenvalue
# $\lambda$ of $H$ by $1 - \eta \lambda$ at each step. The step must satisfy
# $\eta < 2 / \lambda_{\max}$, or the steepest direction blows up. The flattest direction then
# shrinks by at most a factor $1 - 2 \lambda_{\min} / \lambda_{\max}$ per step. The **condition
# number** $\kappa = \lambda_{\max} / \lambda_{\min}$ therefore counts how many steps gradient
# descent needs.

# %%
r_line, J = jacobian(bvp_residual, z_line)
print("the gradient is 2 J^T r:", np.allclose(2 * J.T @ r_line, bvp_loss(Node(z_line, "z")).grad(1)["z"]))
H = 2 * J.T @ J
eigenvalues = np.linalg.eigvalsh(H)
print(f"eigenvalues of H from {eigenvalues[0]:.3g} to {eigenvalues[-1]:.3g}: "
      f"condition number {eigenvalues[-1] / eigenvalues[0]:.2e}")
print(f"largest stable step 2 / lambda_max = {2 / eigenvalues[-1]:.2e}")
scale = 1 / np.sqrt(np.diag(H))
jacobi = np.linalg.cond(scale[:, None] * H * scale)
print(f"with a diagonal (Jacobi) preconditioner: condition number {jacobi:.2e}")

# %% [markdown]
# The condition number is about $5 \times 10^6$: gradient descent would need millions of steps.
# Adam's per-coordinate scaling is a kind of diagonal preconditioner, and the best diagonal
# scaling, Jacobi's above, still leaves a condition number of about $2 \times 10^6$.
#
# **Question 2 (2 points).** Why can no scaling of the coordinates one by one (Adam's, Jacobi's)
# fix this conditioning? Describe what the stiffest and the flattest eigenvectors of $H$ look
# like as curves (plot `np.linalg.eigh(H)[1][:, -1]` and `[:, 0]` if you like), and say why the
# condition number grows as the grid gets finer.

# %% [markdown] answer="diagonal_scaling"
# **Model answer.** The eigenvectors of $H$ are not the coordinates. The stiffest one (of
# $\lambda_{\max}$) is a zigzag of a few neighbouring values, which second differences amplify by
# $1 / \Delta t^4$ (the residual divides by $\Delta t^2$, the loss squares it). The flattest one
# is a smooth bend of the whole curve, which the differences hardly see. Both move several
# values at once, so scaling the coordinates one by one cannot separate them. As the grid gets
# finer, the zigzag's eigenvalue grows like $1 / \Delta t^4 \propto N^4$ while the smooth
# bend's stays about the same: $\kappa$ grows like $N^4$.
#
# **Rubric (2 points).**
# - 1 point: the stiff and flat directions are combinations of many coordinates (a zigzag, a
#   smooth bend), so a diagonal scaling cannot separate them.
# - 1 point: the stiff direction scales like $1/\Delta t^4$, hence $\kappa \propto N^4$.

# %% [markdown]
# ### Gauss–Newton
#
# Here is a better idea. Replace $r$ by its linearisation around the current $z$,
# $r(z + \delta) \approx r + J \delta$, and take the step $\delta$ that minimises the
# linearised loss $|r + J\delta|^2$. That is a linear least-squares problem. Its normal equations
# are
#
# $$J^\top J\, \delta = -J^\top r, \qquad z \leftarrow z + \delta .$$
#
# Because $\nabla \ell = 2 J^\top r$ and $H = 2 J^\top J$, this is Newton's step
# $-H^{-1} \nabla \ell$. It is also gradient descent **preconditioned** by $H^{-1}$, which makes
# the condition number 1. For our linear residual the linearisation is exact, so a single step
# lands on the least-squares optimum. For a nonlinear residual, Gauss–Newton repeats the step.
#
# Solve for $\delta$ with `np.linalg.lstsq(J, r, rcond=None)[0]`, which returns the $\delta$
# minimising $|J\delta - r|$; then step $z \leftarrow z - \delta$. `lstsq` works on $J$ itself.
# Forming $J^\top J$ would square $J$'s condition number, to $5 \times 10^6$ here. That is still
# harmless in float64, but it is the habit that fails on harder problems.
#
# Like `descend`, `gauss_newton` returns the final $z$ and the loss $\sum_i r_i^2$ before each
# step. The grader runs it on its own residual.

# %%
def gauss_newton(residual, z0: np.ndarray, steps: int = 3) -> tuple:
    """Gauss-Newton on the loss sum_i r_i^2, r = residual(z): `steps` times, with (r, J) from
    `jacobian`, take the step delta minimising |J delta - r| and set z <- z - delta.

    residual: a function from a Node of shape z0.shape to a Node of shape (m,).
    Returns (z, losses): the final z (a new array) and the `steps` losses sum(r^2), each at
    the z before its step.
    """
    ### BEGIN SOLUTION
    z, losses = np.array(z0, dtype=float), []
    for _ in range(steps):
        r, J = jacobian(residual, z)
        losses.append(float(r @ r))
        z = z - np.linalg.lstsq(J, r, rcond=None)[0]
    return z, losses
    ### END SOLUTION


# %%
check("ode_solution")

# %% [markdown]
# ### A gradient-only alternative: conjugate gradients
#
# Gauss–Newton needs the whole Jacobian, which takes one backward pass per residual. The method
# of **conjugate gradients** uses only gradients. Each new search direction is made conjugate to
# the previous ones ($p_k^\top H p_j = 0$), and the method steps exactly to the minimum along it.
# On a quadratic with $n$ unknowns it reaches the minimum in $n$ steps in exact arithmetic. In
# floating point, on a problem this stiff, it takes about twice as many. It needs the product $H p$, and
# for a quadratic that is the difference of two gradients, $H p = \nabla \ell(z + p) - \nabla \ell(z)$.

# %%
def conjugate_gradients(loss, z0, steps):
    """Linear conjugate gradients on a quadratic loss, with H p from two gradients.
    Returns (z, losses), as descend does."""
    def value_and_gradient(z):
        value = loss(Node(z, "z"))
        return value.item(), value.grad(1)["z"]

    z = np.array(z0, dtype=float)
    value, g = value_and_gradient(z)
    p, losses = -g, []
    for _ in range(steps):
        losses.append(value)
        Hp = value_and_gradient(z + p)[1] - g
        z = z + (g @ g) / (p @ Hp) * p            # the minimum along p
        value, g_new = value_and_gradient(z)
        p = -g_new + (g_new @ g_new) / (g @ g) * p  # Fletcher-Reeves: conjugate to the last p
        g = g_new
    return z, losses


# %% [markdown]
# The race: the loss above the optimum's loss $\ell^*$ (plotted no lower than $10^{-14}$), for
# each optimiser, and the solution found by Gauss–Newton against the exact one.

# %%
z_gn, histories["Gauss-Newton"] = gauss_newton(bvp_residual, z_line, steps=2)
z_cg, histories["conjugate gradients"] = conjugate_gradients(bvp_loss, z_line, steps=60)
best = bvp_loss(Node(z_gn)).item()
print(f"Gauss-Newton: max |y - y_exact| = {error(z_gn):.2e} after one step, loss {best:.6f}")
near = np.flatnonzero(np.array(histories["conjugate gradients"]) - best < 1e-9 * best)
print(f"conjugate gradients: within 1e-9 of the optimum's loss after {near[0] if near.size else None} steps, "
      f"max |y - y_exact| = {error(z_cg):.2e}")

fig_ode, (ax_race, ax_solution) = plt.subplots(1, 2, figsize=(12, 4.2))
for name, losses in histories.items():
    steps = np.arange(1, len(losses) + 1)
    ax_race.plot(steps, np.maximum(np.array(losses) - best, 1e-14), ".-" if len(losses) < 100 else "-",
                 label=name)
ax_race.set_xscale("log")
ax_race.set_yscale("log")
ax_race.set_xlabel("step")
ax_race.set_ylabel(r"$\ell(z_k) - \ell^*$")
ax_race.set_title("convergence")
ax_race.legend()
t_fine = np.linspace(0, T1, 400)
ax_solution.plot(t_fine, exact_solution(t_fine), "k-", linewidth=1, label="exact solution")
ax_solution.plot(t_ode, np.concatenate([[Y_START], z_gn, [Y_END]]), "o", label="Gauss-Newton")
ax_solution.plot(t_ode, np.concatenate([[Y_START], z_adam, [Y_END]]), "x--", label="Adam, 3000 steps")
ax_solution.set_xlabel("t")
ax_solution.set_ylabel("y")
ax_solution.set_title(r"$2y'' + y' + 2y = 0$, $y(0) = 1$, $y(6.1) = 0.1$")
ax_solution.legend()
plt.show()

# %% [markdown]
# The least-squares solution lies within about $2 \times 10^{-3}$ of the exact one. That error
# comes from the finite differences, not from the optimiser. More points shrink it: with
# `N_ODE = 40` it is about $4 \times 10^{-5}$.
#
# ### Back to the rope
#
# Gauss–Newton is not limited to linear residuals. Fitting $a \cosh((x - b)/a) + c$ to the rope
# is a nonlinear least-squares problem in the three numbers $p = (a, b, c)$. `dp` has no
# `cosh`, but $\cosh u = (e^u + e^{-u}) / 2$.

# %%
def cosh_residual(p: Node) -> Node:
    """a cosh((x - b) / a) + c - y at the rope's points, for p = (a, b, c)."""
    a, b, c = p[0], p[1], p[2]
    u = (x_rope - b) / a
    return a * (u.exp() + (-u).exp()) * 0.5 + c - y_rope


p_fit, fit_losses = gauss_newton(cosh_residual, np.array([0.5, 0.5, -1.0]), steps=10)
a_fit, b_fit, c_fit = p_fit
print(f"a = {a_fit:.5f}, b = {b_fit:.5f}, c = {c_fit:.5f}; sum of squared residuals {fit_losses[-1]:.1e}")
print(f"sag of the fitted catenary -(a + c) = {-(a_fit + c_fit):.4f}; "
      f"c = {c_fit:.4f} against -2 (L - L0) = {-2 * (rope_length(y_rope) - 1.1):.4f}")

fig_fit, ax_fit = plt.subplots(figsize=(6, 4))
x_fine = np.linspace(0, 1, 400)
ax_fit.plot(x_rope, y_rope, "o", markersize=4, label="rope (gradient descent)")
ax_fit.plot(x_fine, a_fit * np.cosh((x_fine - b_fit) / a_fit) + c_fit, "k-", linewidth=1,
            label=f"catenary, a = {a_fit:.4f}")
ax_fit.plot(x_fine, 4 * y_rope.min() * x_fine * (1 - x_fine), ":", label="parabola, same depth")
ax_fit.set_xlabel("x")
ax_fit.set_ylabel("y")
ax_fit.legend()
plt.show()

# %% [markdown]
# ## Discussion
#
# <details><summary>Open after answering the questions: what the two problems show.</summary>
#
# * **Energy minimisation.** Descending the rope's energy finds the catenary. The fit gives
#   $a \approx 0.3064$ and $b \approx \tfrac12$, with residuals below $10^{-4}$, and the fitted $c$ is
#   $-2(L - L_0)$, the tension. It agrees with the theory above. The penalty is soft, so the
#   rope is $L \approx 1.507$ long, not 1.1.
# * **Stiffness.** Least squares on finite differences is badly conditioned, with
#   $\kappa(H) \approx 5 \times 10^6$, and its condition number grows like $N^4$ as the grid
#   gets finer. Gradient descent is then hopeless. Adam's diagonal scaling does not fix it, and
#   neither does Jacobi's, because the stiff directions are not the coordinates.
# * **Curvature.** Gauss–Newton uses the curvature $J^\top J$ and solves the linear problem in
#   one step. Conjugate gradients needs only gradients and gets there in a few dozen. Autodiff
#   supplies both the gradient and the Jacobian (one backward pass per row). Which optimiser
#   fits depends on the problem's condition number, not on whether the problem comes from
#   machine learning.
# * Things to try:
#   * a heavier penalty $\mu (L - L_0)^2$ on the rope, with a step size shrunk by $1/\mu$;
#   * `N_ODE = 40`: a smaller error, and a larger condition number;
#   * the ArrayFlow condition $y'(0) = 1$ in place of $y(6.1) = 0.1$, added to the residual as
#     one more row;
#   * Gauss–Newton for the cosh fit from $p_0 = (1, 0.5, -1.5)$. It fails, and a damped step
#     (Levenberg–Marquardt, $(J^\top J + \mu I)\delta = -J^\top r$, with $\mu$ raised after a
#     step that increases the loss and lowered after one that decreases it) repairs it.
#
# </details>

# %% [markdown]
# ## References
#
# - Nicolae, A. "Deep learning framework from scratch using NumPy" (ArrayFlow). Microsoft Corp., Bellevue, Washington; code and demos: https://github.com/a-nico/ArrayFlow.
#   This notebook draws on the catenary and the boundary-value ODE demos, solved as losses by gradient descent.
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the library that differentiates both losses.
