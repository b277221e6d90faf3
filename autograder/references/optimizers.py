"""References of 06 optimizers (the grader's side only): the textbook update rules, their paths on
the checks' quadratics, and the paths of the known mistakes that the messages name.

Each rule updates one parameter theta with its gradient g and its own state, at steps t = 1, 2, ...
(all averages start at 0; squares, roots and divisions are elementwise):

    SGD with momentum   v <- beta v + (1 - beta) g;    theta <- theta - lr v
    RMSProp             s <- beta s + (1 - beta) g^2;  theta <- theta - lr g / (sqrt(s) + eps)
    Adam (Kingma & Ba)  m <- beta1 m + (1 - beta1) g;  v <- beta2 v + (1 - beta2) g^2;
                        m_hat = m / (1 - beta1^t),  v_hat = v / (1 - beta2^t);
                        theta <- theta - lr m_hat / (sqrt(v_hat) + eps)

The formulas are written here as in the textbook, not taken from dp (whose optimizers may compute
the same rule another way, in place): a student's rule is compared with the formula itself.
"""
from __future__ import annotations

import functools

import numpy as np

from . import misconception


def _average(state: dict, key: str, x, keep: float, new: float):
    """state[key] <- keep * state[key] + new * x (state[key] = 0 at first); returns it."""
    state[key] = keep * state.get(key, 0.0) + new * x
    return state[key]


def momentum(theta, g, state, t, lr, beta):
    v = _average(state, "v", g, beta, 1 - beta)
    return theta - lr * v


def rmsprop(theta, g, state, t, lr, beta, eps):
    s = _average(state, "s", g * g, beta, 1 - beta)
    return theta - lr * g / (np.sqrt(s) + eps)


def adam(theta, g, state, t, lr, beta1, beta2, eps):
    m = _average(state, "m", g, beta1, 1 - beta1)
    v = _average(state, "v", g * g, beta2, 1 - beta2)
    m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    return theta - lr * m_hat / (np.sqrt(v_hat) + eps)


RULES = {"momentum_update": momentum, "rmsprop_update": rmsprop, "adam_update": adam}


def sgd(theta, g, state, t, lr):
    return theta - lr * g


def rosenbrock_gradient(theta):
    """The gradient of f(x, y) = (1 - x)^2 + 100 (y - x^2)^2 at theta = (x, y)."""
    x, y = theta[..., 0], theta[..., 1]
    return np.stack([-2 * (1 - x) - 400 * x * (y - x ** 2), 200 * (y - x ** 2)], axis=-1)


def race(rule: str, hyper: dict, start, n_steps: int) -> np.ndarray:
    """The path (n_steps + 1, 2) of the textbook `rule` ("sgd" or a key of RULES) with `hyper` on
    Rosenbrock's function from `start`, with a fresh state: the notebook's race."""
    update = sgd if rule == "sgd" else RULES[rule]
    theta, state = np.array(start, dtype=float), {}
    path = [theta]
    for t in range(1, n_steps + 1):
        theta = update(theta, rosenbrock_gradient(theta), state, t, **hyper)
        path.append(theta)
    return np.array(path)


def _paths(update, A, c, starts, n_steps) -> list:
    """The paths of update(theta, g, state, t) on f(theta) = 1/2 (theta - c)^T A (theta - c),
    whose gradient is A (theta - c): from each start, each parameter with its own state, all
    updated in turn at steps t = 1 .. n_steps, as the probe runs the student's rule."""
    thetas = [np.array(s, dtype=float) for s in starts]
    states = [{} for _ in starts]
    found = [[theta] for theta in thetas]
    for t in range(1, n_steps + 1):
        for i, theta in enumerate(thetas):
            thetas[i] = update(theta, A @ (theta - c), states[i], t)
            found[i].append(thetas[i])
    return [np.array(path) for path in found]


def _rule_paths(update, hyper: dict, A, c, starts, n_steps: int) -> list:
    """_paths of update(theta, g, state, t, **hyper), a rule written with its hyperparameters."""
    return _paths(lambda th, g, s, t: update(th, g, s, t, **hyper), A, c, starts, n_steps)


def paths(rule: str, hyper: dict, A, c, starts, n_steps: int) -> list:
    """[path (n_steps + 1, *theta's shape)] of the textbook `rule` with hyperparameters `hyper`."""
    return _rule_paths(RULES[rule], hyper, A, c, starts, n_steps)


# -- known mistakes (autograder/references/__init__.py: `misconception`) ------------------------
MISTAKES: dict = {rule: {} for rule in RULES}     # {rule: {id: (why, mistaken update)}}


def _mistake(rule: str, why: str):
    """Register the decorated update, with `rule`'s arguments, as a known mistake of `rule`: its
    paths are what `paths(rule, ...)` gives when the student's rule has that mistake."""
    def register(update):
        MISTAKES[rule][update.__name__] = why, update

        def mistaken_paths(rule, hyper, A, c, starts, n_steps):
            return _rule_paths(update, hyper, A, c, starts, n_steps)
        misconception("paths", why, name=update.__name__, rule=rule)(mistaken_paths)
        return update
    return register


@_mistake("momentum_update", "v <- beta * v + g: the factor (1 - beta) on g is missing")
def momentum_without_one_minus_beta(theta, g, state, t, lr, beta):
    return theta - lr * _average(state, "v", g, beta, 1)


@_mistake("momentum_update", "beta and (1 - beta) are swapped: v <- (1 - beta) * v + beta * g")
def momentum_beta_swapped(theta, g, state, t, lr, beta):
    return theta - lr * _average(state, "v", g, 1 - beta, beta)


@_mistake("momentum_update", "plain gradient descent, theta <- theta - lr * g: the velocity v "
                             "is not used in the step")
def momentum_without_velocity(theta, g, state, t, lr, beta):
    return theta - lr * g


@_mistake("momentum_update", "a step with the v of the previous step: update v first, then step "
                             "with the new v")
def momentum_with_the_old_velocity(theta, g, state, t, lr, beta):
    v = state.get("v", 0.0)
    _average(state, "v", g, beta, 1 - beta)
    return theta - lr * v


def _rmsprop_with(denominator, theta, g, state, lr, beta, keep=None):
    keep = beta if keep is None else keep
    return theta - lr * g / denominator(_average(state, "s", g * g, keep, 1 - keep))


@_mistake("rmsprop_update", "eps inside the square root: sqrt(s + eps) instead of sqrt(s) + eps")
def rmsprop_eps_inside_sqrt(theta, g, state, t, lr, beta, eps):
    return _rmsprop_with(lambda s: np.sqrt(s + eps), theta, g, state, lr, beta)


@_mistake("rmsprop_update", "the square root is missing: g / (s + eps)")
def rmsprop_without_sqrt(theta, g, state, t, lr, beta, eps):
    return _rmsprop_with(lambda s: s + eps, theta, g, state, lr, beta)


@_mistake("rmsprop_update", "eps is missing: g / sqrt(s)")
def rmsprop_without_eps(theta, g, state, t, lr, beta, eps):
    return _rmsprop_with(np.sqrt, theta, g, state, lr, beta)


@_mistake("rmsprop_update", "beta and (1 - beta) are swapped: s <- (1 - beta) * s + beta * g^2")
def rmsprop_beta_swapped(theta, g, state, t, lr, beta, eps):
    return _rmsprop_with(lambda s: np.sqrt(s) + eps, theta, g, state, lr, beta, keep=1 - beta)


@_mistake("rmsprop_update", "the state holds sqrt(s) after a step, not s: was the root taken in "
                            "place?")
def rmsprop_root_kept_in_state(theta, g, state, t, lr, beta, eps):
    state["s"] = np.sqrt(_average(state, "s", g * g, beta, 1 - beta))
    return theta - lr * g / (state["s"] + eps)


@_mistake("rmsprop_update", "g squared in place (g **= 2, or g2 = g; g2 **= 2): the step then "
                            "divides g^2, not g, and the caller's gradient is changed")
def rmsprop_squares_g_in_place(theta, g, state, t, lr, beta, eps):
    s = _average(state, "s", g * g, beta, 1 - beta)
    return theta - lr * g * g / (np.sqrt(s) + eps)


def _adam_with(theta, g, state, t, lr, beta1, beta2, eps, step=None, denominator=None,
               correct=True):
    m, v = _average(state, "m", g, beta1, 1 - beta1), _average(state, "v", g * g, beta2, 1 - beta2)
    if correct:
        t = t if step is None else step
        m, v = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    return theta - lr * m / (np.sqrt(v) + eps if denominator is None else denominator(v))


@_mistake("adam_update", "no bias correction, m and v instead of m_hat and v_hat (or a step count "
                         "t that does not start at 1 with a fresh state)")
def adam_without_bias_correction(theta, g, state, t, lr, beta1, beta2, eps):
    return _adam_with(theta, g, state, t, lr, beta1, beta2, eps, correct=False)


@_mistake("adam_update", "the bias correction uses t = 1 at every step; t must count the steps")
def adam_bias_correction_at_t_1(theta, g, state, t, lr, beta1, beta2, eps):
    return _adam_with(theta, g, state, t, lr, beta1, beta2, eps, step=1)


@_mistake("adam_update", "eps inside the square root: sqrt(v_hat + eps) instead of sqrt(v_hat) + eps")
def adam_eps_inside_sqrt(theta, g, state, t, lr, beta1, beta2, eps):
    return _adam_with(theta, g, state, t, lr, beta1, beta2, eps,
                      denominator=lambda v: np.sqrt(v + eps))


@_mistake("adam_update", "beta2 for the first moment too: m <- beta2 * m + (1 - beta2) * g")
def adam_beta2_for_m(theta, g, state, t, lr, beta1, beta2, eps):
    m = _average(state, "m", g, beta2, 1 - beta2)
    v = _average(state, "v", g * g, beta2, 1 - beta2)
    m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    return theta - lr * m_hat / (np.sqrt(v_hat) + eps)


@_mistake("adam_update", "beta1 and beta2 are swapped")
def adam_betas_swapped(theta, g, state, t, lr, beta1, beta2, eps):
    return _adam_with(theta, g, state, t, lr, beta2, beta1, eps)


def mistake_paths(rule: str, hyper: dict, A, c, starts, n_steps: int) -> dict:
    """{why: [path from each start]} of the known mistakes of `rule`."""
    with np.errstate(all="ignore"):
        return {why: _rule_paths(update, hyper, A, c, starts, n_steps)
                for why, update in MISTAKES[rule].values()}


# The same rules in other, equivalent forms (factors moved, a reciprocal, the average as a step
# towards its target): they round differently, and how far their paths drift from the textbook's
# measures how much the path amplifies last-bit differences at each step.
def _momentum_moved(theta, g, state, t, lr, beta):
    v = state.get("v", np.zeros_like(g))
    v = state["v"] = v + (1 - beta) * (g - v)
    return theta - v * lr


def _rmsprop_moved(theta, g, state, t, lr, beta, eps):
    s = state["s"] = state.get("s", 0.0) * beta + (1 - beta) * (g * g)
    return theta - g / (eps + np.sqrt(s)) * lr


def _rmsprop_reciprocal(theta, g, state, t, lr, beta, eps):
    s = state.get("s", np.zeros_like(g))
    s = state["s"] = s + (1 - beta) * (g * g - s)
    return theta - lr * g * (1.0 / (s ** 0.5 + eps))


def _rmsprop_reordered(theta, g, state, t, lr, beta, eps):
    s = state["s"] = (1 - beta) * g * g + beta * state.get("s", 0.0)
    return theta - lr / (np.sqrt(s) + eps) * g


def _adam_folded(theta, g, state, t, lr, beta1, beta2, eps):
    m = _average(state, "m", g, beta1, 1 - beta1)
    v = _average(state, "v", g * g, beta2, 1 - beta2)
    root = np.sqrt(1 - beta2 ** t)
    return theta - lr * root / (1 - beta1 ** t) * m / (np.sqrt(v) + eps * root)


EQUIVALENT = {"momentum_update": [_momentum_moved],
              "rmsprop_update": [_rmsprop_moved, _rmsprop_reciprocal, _rmsprop_reordered],
              "adam_update": [_adam_folded]}


def drift(rule: str, hyper: dict, A, c, starts, n_steps: int) -> list:
    """[array (n_steps + 1,)] per start: at each step, the largest relative difference between
    the textbook path and the paths of EQUIVALENT forms of the rule. Where a path is chaotic
    (RMSProp near the minimum, where |g| is about eps and every step has about the same length
    whatever g is), last-bit differences grow by orders of magnitude within a few steps, and so
    do the differences between correct ways of writing the rule."""
    exact = paths(rule, hyper, A, c, starts, n_steps)
    found = [np.zeros(n_steps + 1) for _ in starts]
    for form in EQUIVALENT[rule]:
        with np.errstate(all="ignore"):
            other = _rule_paths(form, hyper, A, c, starts, n_steps)
        for worst, path, again in zip(found, exact, other):
            scale = np.abs(path) + np.abs(again)
            with np.errstate(all="ignore"):
                change = np.where(path == again, 0.0, np.abs(path - again) / scale)
            per_step = change.reshape(len(path), -1).max(axis=1)
            np.maximum(worst, np.where(np.isnan(per_step), np.inf, per_step), out=worst)
    return found


# -- the learning-rate sweep -------------------------------------------------------------------
SWEEP_GRID = np.logspace(-5, 0, 26)     # 5 learning rates per decade, 1e-5 .. 1
WORKING_FACTOR, WORKING_FLOOR = 10.0, 1e-3


def working_range(rule: str, hyper: dict, start, n_steps: int) -> list:
    """[[low, high], ...]: the intervals between neighbouring learning rates of SWEEP_GRID that
    both work for the textbook `rule` ("sgd" or a key of RULES) with `hyper` besides lr, on
    Rosenbrock's function from `start` for n_steps: their final loss is at most WORKING_FACTOR
    times the lowest final loss of the grid, or below WORKING_FLOOR.

    The check asks it of the notebook's fixed race, whatever the seed: 26 races of each
    optimizer, computed once per process (_working_range) rather than once per submission."""
    return [list(pair) for pair in _working_range(rule, tuple(sorted(hyper.items())),
                                                   tuple(np.asarray(start, dtype=float).tolist()),
                                                   int(n_steps))]


@functools.lru_cache(maxsize=16)
def _working_range(rule: str, hyper: tuple, start: tuple, n_steps: int) -> tuple:
    with np.errstate(all="ignore"):
        final = np.array([_final_loss(race(rule, {**dict(hyper), "lr": float(lr)}, start, n_steps))
                          for lr in SWEEP_GRID])
    final[~np.isfinite(final)] = np.inf
    works = final <= max(WORKING_FACTOR * final.min(), WORKING_FLOOR)
    return tuple((float(low), float(high)) for low, high, both
                 in zip(SWEEP_GRID, SWEEP_GRID[1:], works[:-1] & works[1:]) if both)


def _final_loss(path) -> float:
    x, y = path[-1]
    return float((1 - x) ** 2 + 100 * (y - x ** 2) ** 2)
