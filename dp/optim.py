"""Optimizers: `SGD`, `SGD_Momentum`, `RMSProp`, `Adam`, sharing one `Optimizer.train` loop.

Each optimizer is its update rule, written as in its docstring, for one parameter theta with
gradient g and its own state. Moment buffers belong to one parameter and to the optimizer, so
they are updated in place; theta and g are not (they may be shared with the caller), and the new
theta is a new array. Hyperparameters are keywords (``lr=...``) or, as in the 2019 library, a
dictionary ``hyperparam={"alpha": ..., "beta": ..., "beta2": ..., "epsilon": ...}``.

Speed: on large parameters these updates are bound by memory, not arithmetic: each NumPy
operation is a pass over the array, and each temporary array is memory that must come through
the caches. So RMSProp and Adam compute in one new array (``work``), in place, which in the end
holds the new theta: the same passes as a hand-written NumPy Adam, and no other temporaries.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from .node import no_grad
from .utils import batches


class Optimizer:
    """Trains `model` on (x_train, y_train) with mini-batches of `batch_size` (None: all)."""

    defaults: dict = {}
    legacy_names = {"alpha": "lr", "learning_rate": "lr"}

    def __init__(self, model, x_train, y_train, hyperparam=None, batch_size=None, seed=None,
                 **hyperparameters):
        settings = dict(self.defaults)
        for key, value in {**(hyperparam or {}), **hyperparameters}.items():
            key = self.legacy_names.get(key, key)
            if key not in settings:
                raise TypeError(f"{type(self).__name__}: unknown hyperparameter {key!r}; "
                                f"it takes {sorted(settings)}")
            # a NumPy float would promote float32 parameters to float64; a Python float does not
            settings[key] = float(value) if isinstance(value, np.floating) else value
        self.hyperparameters = settings
        vars(self).update(settings)
        self.model, self.x_train, self.y_train = model, x_train, y_train
        self.batch_size, self.seed = batch_size, seed
        self.state = {}      # parameter name -> that parameter's own buffers
        self.steps_done = 0
        self._batches = None

    def update(self, theta, g, state):
        """The new value of one parameter; `state` is that parameter's own dict of buffers."""
        raise NotImplementedError

    def step(self, grads: dict) -> None:
        """Apply the update rule to every parameter once."""
        self.steps_done += 1
        with no_grad():
            for name, node in self.model.parameters().items():
                node.value = self.update(node.value, grads[name], self.state.setdefault(name, {}))

    def next_batch(self):
        if self.batch_size is None or self.x_train is None:
            return self.x_train, self.y_train
        if self._batches is None:
            self._batches = batches(self.x_train, self.y_train, self.batch_size, seed=self.seed,
                                    repeat=True)
        return next(self._batches)

    def train(self, steps=1000, print_each=100, err_hist=False, progress=False):
        """Run `steps` updates; print the loss every `print_each` steps (0: never).

        Returns the last loss, or ``(loss, loss_hist, para_hist)`` when `err_hist` is true:
        the loss of every step (computed before that step's update) and the parameters after
        every step.
        """
        loss_hist, para_hist = [], []
        counter = range(1, steps + 1)
        if progress:
            from tqdm.auto import tqdm
            counter = tqdm(counter, desc=type(self).__name__, unit="step")
        say = counter.write if progress else print
        loss = math.nan
        for i in counter:
            grads, loss = self.model.get_grad(*self.next_batch())
            if not math.isfinite(loss):
                raise FloatingPointError(f"{type(self).__name__}.train: the loss became {loss} at "
                                         f"step {i}; try a smaller learning rate")
            self.step(grads)
            loss_hist.append(loss)
            if err_hist:
                para_hist.append(self.model.get_param())
            if print_each and i % print_each == 0:
                say(f"step {i:>{len(str(steps))}}/{steps}  loss {loss:.6g}", file=sys.stdout)
        return (loss, loss_hist, para_hist) if err_hist else loss


class SGD(Optimizer):
    """theta <- theta - lr * g"""

    defaults = {"lr": 0.01}

    def update(self, theta, g, state):
        return theta - self.lr * g


def _average(state, key, value, beta, work=None):
    """state[key] <- beta * state[key] + (1 - beta) * value, in the optimizer's own buffer.
    `work`, if given, is an array that may be overwritten (it may be `value` itself)."""
    if key not in state:
        state[key] = np.zeros_like(value)
    buffer = state[key]
    buffer *= beta
    buffer += np.multiply(value, 1 - beta, out=work)
    return buffer


def _adaptive_step(theta, lr, numerator, mean_square, epsilon, work):
    """theta - lr * numerator / (sqrt(mean_square) + epsilon), computed in `work`, returned."""
    np.sqrt(mean_square, out=work)
    work += epsilon
    np.divide(numerator, work, out=work)
    work *= lr
    return np.subtract(theta, work, out=work)


def _work_array(theta, g):
    """A new array for an update to compute in, and then to hold the new theta."""
    return np.empty_like(theta, dtype=np.result_type(theta, g))


class SGD_Momentum(Optimizer):
    """v <- beta * v + (1 - beta) * g;  theta <- theta - lr * v   (v starts at 0)"""

    defaults = {"lr": 0.01, "beta": 0.9}

    def update(self, theta, g, state):
        return theta - self.lr * _average(state, "v", g, self.beta)


class RMSProp(Optimizer):
    """s <- beta * s + (1 - beta) * g^2;  theta <- theta - lr * g / (sqrt(s) + epsilon)"""

    defaults = {"lr": 0.001, "beta": 0.9, "epsilon": 1e-8}

    def update(self, theta, g, state):
        work = _work_array(theta, g)
        s = _average(state, "s", np.square(g, out=work), self.beta, work)
        return _adaptive_step(theta, self.lr, g, s, self.epsilon, work)


class Adam(Optimizer):
    """Kingma & Ba (2015), at step t = 1, 2, ...:

        m <- beta1 * m + (1 - beta1) * g;   v <- beta2 * v + (1 - beta2) * g^2
        m_hat = m / (1 - beta1^t);          v_hat = v / (1 - beta2^t)
        theta <- theta - lr * m_hat / (sqrt(v_hat) + epsilon)
    """

    defaults = {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
    legacy_names = {**Optimizer.legacy_names, "beta": "beta1"}

    def update(self, theta, g, state):
        t = self.steps_done
        work = _work_array(theta, g)
        m = _average(state, "m", g, self.beta1, work)
        v = _average(state, "v", np.square(g, out=work), self.beta2, work)
        v_hat = np.divide(v, 1 - self.beta2 ** t, out=work)
        # lr * m_hat = (lr / (1 - beta1^t)) * m: a scalar factor, rather than a pass over m
        return _adaptive_step(theta, self.lr / (1 - self.beta1 ** t), m, v_hat, self.epsilon, work)


RMS_Prop = RMSProp  # the 2019 library's spelling
