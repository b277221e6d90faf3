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

import numpy as np


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


def paths(rule: str, hyper: dict, A, c, starts, n_steps: int) -> list:
    """[path (n_steps + 1, *theta's shape)] of the textbook `rule` with hyperparameters `hyper`."""
    update = RULES[rule]
    return _paths(lambda th, g, s, t: update(th, g, s, t, **hyper), A, c, starts, n_steps)


def _mistakes(rule: str, hyper: dict) -> dict:
    """{what is wrong: update(theta, g, state, t)} for mistakes worth naming in a message."""
    lr = hyper["lr"]
    if rule == "momentum_update":
        b = hyper["beta"]

        def old_velocity(th, g, s, t):
            v = s.get("v", 0.0)
            _average(s, "v", g, b, 1 - b)
            return th - lr * v
        return {
            "v <- beta * v + g: the factor (1 - beta) on g is missing":
                lambda th, g, s, t: th - lr * _average(s, "v", g, b, 1),
            "beta and (1 - beta) are swapped: v <- (1 - beta) * v + beta * g":
                lambda th, g, s, t: th - lr * _average(s, "v", g, 1 - b, b),
            "plain gradient descent, theta <- theta - lr * g: v is not used":
                lambda th, g, s, t: th - lr * g,
            "a step with the v of the previous step: update v first, then step with the new v":
                old_velocity,
        }
    eps = hyper["eps"]
    if rule == "rmsprop_update":
        b = hyper["beta"]

        def with_denominator(denominator, keep=b):
            return lambda th, g, s, t: th - lr * g / denominator(_average(s, "s", g * g, keep, 1 - keep))

        def root_kept_in_state(th, g, s, t):
            s["s"] = np.sqrt(_average(s, "s", g * g, b, 1 - b))
            return th - lr * g / (s["s"] + eps)
        return {
            "eps inside the square root: sqrt(s + eps) instead of sqrt(s) + eps":
                with_denominator(lambda q: np.sqrt(q + eps)),
            "the square root is missing: g / (s + eps)": with_denominator(lambda q: q + eps),
            "eps is missing: g / sqrt(s)": with_denominator(np.sqrt),
            "beta and (1 - beta) are swapped: s <- (1 - beta) * s + beta * g^2":
                with_denominator(lambda q: np.sqrt(q) + eps, keep=1 - b),
            "the state holds sqrt(s) after a step, not s: was the root taken in place?":
                root_kept_in_state,
        }
    b1, b2 = hyper["beta1"], hyper["beta2"]

    def variant(step=lambda t: t, denominator=lambda v: np.sqrt(v) + eps, b1=b1, b2=b2, correct=True):
        def update(th, g, s, t):
            m, v = _average(s, "m", g, b1, 1 - b1), _average(s, "v", g * g, b2, 1 - b2)
            if correct:
                m, v = m / (1 - b1 ** step(t)), v / (1 - b2 ** step(t))
            return th - lr * m / denominator(v)
        return update
    return {
        "no bias correction, m and v instead of m_hat and v_hat (or a step count t that does not "
        "start at 1 with a fresh state)": variant(correct=False),
        "the bias correction uses t = 1 at every step; t must count the steps": variant(step=lambda t: 1),
        "eps inside the square root: sqrt(v_hat + eps) instead of sqrt(v_hat) + eps":
            variant(denominator=lambda v: np.sqrt(v + eps)),
        "beta1 and beta2 are swapped": variant(b1=b2, b2=b1),
    }


def mistake_paths(rule: str, hyper: dict, A, c, starts, n_steps: int) -> dict:
    """{what is wrong: [path from each start]} of the known mistakes of `rule` (a hint)."""
    with np.errstate(all="ignore"):
        return {text: _paths(update, A, c, starts, n_steps)
                for text, update in _mistakes(rule, hyper).items()}


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
            other = _paths(lambda th, g, s, t: form(th, g, s, t, **hyper), A, c, starts, n_steps)
        for worst, path, again in zip(found, exact, other):
            scale = np.abs(path) + np.abs(again)
            with np.errstate(all="ignore"):
                change = np.where(path == again, 0.0, np.abs(path - again) / scale)
            per_step = change.reshape(len(path), -1).max(axis=1)
            np.maximum(worst, np.where(np.isnan(per_step), np.inf, per_step), out=worst)
    return found
