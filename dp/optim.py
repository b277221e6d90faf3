"""Optimizers: `SGD`, `SGD_Momentum`, `RMSProp`, `Adam`, sharing one `Optimizer.train` loop.

Each optimizer is its update rule, written as in its docstring, for one parameter theta with
gradient g and its own state. Moment buffers belong to one parameter and to the optimizer, so
they are updated in place; theta and g are not (they may be shared with the caller), and the new
theta is a new array. Hyperparameters are keywords (``lr=...``) or, as in the 2019 library, a
dictionary ``hyperparam={"alpha": ..., "beta": ..., "beta2": ..., "epsilon": ...}``.

The defaults are the 2019 library's, so that the paper's ``SGD(net, x_train, y_train)`` trains:
learning rate 0.001, and mini-batches of 128 examples drawn at random with replacement through
NumPy's global generator (``np.random.seed`` repeats a run; see `Optimizer.next_batch`).

Speed: on large parameters an update is bound by memory, not arithmetic. Each NumPy operation is
a pass over the array, and each temporary array is fresh memory to fault in and fill. So the
rules compute into two scratch arrays that the optimizer keeps from step to step (``out=``),
with the operations of the formula in the formula's order: the result is the same, bit for bit,
as the one-line formula (tests check this; notebook 06 grades students' one-liners against it).
"""
from __future__ import annotations

import math
import sys

import numpy as np

from .init import generator
from .node import Node, _state, no_grad
from .utils import batches


class Optimizer:
    """Trains `model` on (x_train, y_train) with mini-batches of `batch_size` (None: all the
    data at every step), drawn as `next_batch` says. Without data (``SGD(net)``), the model's
    loss is given x = y = None."""

    defaults: dict = {}
    legacy_names = {"alpha": "lr", "learning_rate": "lr"}

    def __init__(self, model, x_train=None, y_train=None, hyperparam=None, batch_size=128,
                 seed=None, **hyperparameters):
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
        self._scratch = {}   # (shape, dtype) -> two arrays the update rules compute in

    @property
    def alpha(self):
        """The learning rate under its 2019 name: the same as `lr`."""
        return self.lr

    @alpha.setter
    def alpha(self, value):
        self.lr = value

    def _scratch_arrays(self, like) -> tuple:
        """Two arrays shaped like `like`, for an update rule to compute in. They are reused by
        every parameter of that shape and at every step, so they hold nothing between calls."""
        like = np.asarray(like)
        key = (like.shape, like.dtype)
        if key not in self._scratch:
            self._scratch[key] = (np.empty_like(like), np.empty_like(like))
        return self._scratch[key]

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
        """The examples of the next step: all of them if batch_size is None. With a seed, the
        next batch_size of a random order drawn each epoch by a generator of that seed (every
        example once per epoch). Without one, as in the 2019 library, batch_size examples drawn
        at random with replacement from dp's generator, which is NumPy's global np.random until
        dp.seed is called: np.random.seed(s) repeats a run."""
        if self.batch_size is None or self.x_train is None:
            return self.x_train, self.y_train
        if self.seed is None:
            x, y = np.asarray(self.x_train), np.asarray(self.y_train)
            index = generator().choice(len(x), self.batch_size)
            return x[index], y[index]
        if self._batches is None:
            self._batches = batches(self.x_train, self.y_train, self.batch_size, seed=self.seed,
                                    repeat=True)
        return next(self._batches)

    def train(self, steps=1000, print_each=100, err_hist=False, progress=False):
        """Run `steps` updates; print the loss every `print_each` steps (0: never).

        Returns the last loss, or ``(loss, loss_hist, para_hist)`` when `err_hist` is true:
        the loss of every step (computed before that step's update) and the parameters after
        every step. The losses are floats; the last one a (1, 1) array in the 2019 mode.
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
            loss = (loss if isinstance(loss, Node) else Node(loss)).item()  # a Node in 2019 mode
            if not math.isfinite(loss):
                raise FloatingPointError(f"{type(self).__name__}.train: the loss became {loss} at "
                                         f"step {i}; try a smaller learning rate, and look for a "
                                         f"softmax or log that overflows (dp.cross_entropy takes the "
                                         f"logits, stably) or inputs not scaled (pixels to [0, 1])")
            self.step(grads)
            loss_hist.append(loss)
            if err_hist:
                para_hist.append(self.model.get_param())
            if print_each and i % print_each == 0:
                say(f"step {i:>{len(str(steps))}}/{steps}  loss {loss:.6g}", file=sys.stdout)
        if _state["compat_2019"]:
            loss = np.full((1, 1), loss)
        return (loss, loss_hist, para_hist) if err_hist else loss


class SGD(Optimizer):
    """theta <- theta - lr * g"""

    defaults = {"lr": 0.001}

    def update(self, theta, g, state):
        step, _ = self._scratch_arrays(g)
        return theta - np.multiply(self.lr, g, out=step)


def _average(state, key, value, beta, scratch):
    """state[key] <- beta * state[key] + (1 - beta) * value, in the optimizer's own buffer
    (zeros at first); `scratch` is overwritten."""
    if key not in state:
        state[key] = np.zeros_like(value)
    buffer = state[key]
    buffer *= beta
    buffer += np.multiply(value, 1 - beta, out=scratch)
    return buffer


def _adaptive_step(theta, lr, numerator, mean_square, epsilon, a, b):
    """theta - lr * numerator / (sqrt(mean_square) + epsilon), a new array, computed in the
    scratch arrays `a` and `b` (which may hold `numerator` and `mean_square`)."""
    step = np.multiply(lr, numerator, out=a)
    denominator = np.add(np.sqrt(mean_square, out=b), epsilon, out=b)
    return theta - np.divide(step, denominator, out=a)


class SGD_Momentum(Optimizer):
    """v <- beta * v + (1 - beta) * g;  theta <- theta - lr * v   (v starts at 0)"""

    defaults = {"lr": 0.001, "beta": 0.9}

    def update(self, theta, g, state):
        a, _ = self._scratch_arrays(g)
        v = _average(state, "v", g, self.beta, a)
        return theta - np.multiply(self.lr, v, out=a)


class RMSProp(Optimizer):
    """s <- beta * s + (1 - beta) * g^2;  theta <- theta - lr * g / (sqrt(s) + epsilon)"""

    defaults = {"lr": 0.001, "beta": 0.9, "epsilon": 1e-8}
    legacy_names = {**Optimizer.legacy_names, "beta2": "beta"}   # the 2019 name of its decay

    def update(self, theta, g, state):
        a, b = self._scratch_arrays(g)
        s = _average(state, "s", np.multiply(g, g, out=b), self.beta, a)
        return _adaptive_step(theta, self.lr, g, s, self.epsilon, a, b)


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
        a, b = self._scratch_arrays(g)
        m = _average(state, "m", g, self.beta1, a)
        v = _average(state, "v", np.multiply(g, g, out=b), self.beta2, a)
        m_hat = np.divide(m, 1 - self.beta1 ** t, out=a)
        v_hat = np.divide(v, 1 - self.beta2 ** t, out=b)
        return _adaptive_step(theta, self.lr, m_hat, v_hat, self.epsilon, a, b)


RMS_Prop = RMSProp  # the 2019 library's spelling
