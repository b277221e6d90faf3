"""Optimizers: `SGD`, `SGD_Momentum`, `RMSProp`, `Adam`, sharing one `Optimizer.train` loop.

Each optimizer is its update rule, stated in its docstring as the textbook writes it, for one
parameter theta with gradient g and its own state. Hyperparameters are keywords (``lr=...``) or,
as in the 2019 library, a dictionary ``hyperparam={"alpha": ..., "beta": ..., "beta2": ...,
"epsilon": ...}``.

The defaults are the 2019 library's, so that the paper's ``SGD(net, x_train, y_train)`` trains:
learning rate 0.001, and mini-batches of 128 examples drawn at random with replacement through
NumPy's global generator (``np.random.seed`` repeats a run; see `Optimizer.next_batch`).

One rule, two ways in. ``update(theta, g, state)`` returns the new theta as a new array and
leaves theta and g as they were; a rule of your own overrides it, and `step` then calls it.
dp's rules are written once, as ``_update_in_place``: `update` runs it on a copy of theta, and
`step` on the parameter itself, within two limits:

* only arrays the optimizer owns are updated in place: the first time it updates a parameter it
  copies it, so the array a caller gave to ``Node(array, "w")`` never changes under them (what
  ``node.value`` holds after that is the optimizer's, and changes at every step);
* a gradient is used as scratch space only when `train` made it (by `Model.get_grad`), never
  when a caller hands it to `step`.

Speed: on large parameters an update is bound by memory, not arithmetic. Each NumPy operation is
a pass over the array, and each temporary array is fresh memory to fault in and fill. So the
rules compute with ``out=`` into scratch arrays that the optimizer keeps from step to step.
Each rule keeps the operations of its formula in the formula's order, so its result is the
formula's bit for bit, except Adam's, whose bias corrections are folded into the step size (two
passes fewer, rounded differently). tests/test_optim.py checks the bit-for-bit rules, and holds
every rule to one step within 1e-12 of its formula and 100 steps within the drift of equivalent
forms that notebook 06 allows.
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
        self._owned = {}     # parameter name -> the copy of its value that step() updates in place

    @property
    def alpha(self):
        """The learning rate under its 2019 name: the same as `lr`."""
        return self.lr

    @alpha.setter
    def alpha(self, value):
        self.lr = value

    def _scratch_arrays(self, theta, g, spare_gradient: bool) -> tuple:
        """Two arrays shaped like `theta` for an update rule to compute in, reused by every
        parameter of that shape and at every step (they hold nothing between calls). The second
        is the gradient `g` itself if it is `spare_gradient`: a rule writes into it only once it
        no longer needs g."""
        key = (theta.shape, theta.dtype)
        if key not in self._scratch:
            self._scratch[key] = (np.empty_like(theta), np.empty_like(theta))
        a, b = self._scratch[key]
        return a, (g if spare_gradient else b)

    def update(self, theta, g, state):
        """The new value of one parameter, a new array (theta and g are left as they were);
        `state` is that parameter's own dict of buffers. A rule of your own overrides this;
        dp's rules run their ``_update_in_place`` on a copy of theta."""
        dtype = np.result_type(theta, g)
        theta = np.array(theta, dtype=dtype if dtype.kind == "f" else np.float64)
        self._update_in_place(theta, g, state, spare_gradient=False)
        return theta

    def _update_in_place(self, theta, g, state, spare_gradient: bool) -> None:
        """Update `theta`, an array this optimizer owns, in place (g too, if it is spare)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define update(self, theta, g, state)")

    def step(self, grads: dict) -> None:
        """Apply the update rule to every parameter once; `grads` are left as they were."""
        self._step(grads, spare_gradients=False)

    def _step(self, grads: dict, spare_gradients: bool) -> None:
        self.steps_done += 1
        in_place = type(self).update is Optimizer.update    # dp's rule, not a subclass's own
        with no_grad():
            for name, node in self.model.parameters().items():
                state = self.state.setdefault(name, {})
                if not in_place:
                    node.value = self.update(node.value, grads[name], state)
                    continue
                if self._owned.get(name) is not node.value:     # first update, or set anew
                    node.value = self._owned[name] = np.array(node.value)
                g = grads[name]
                spare = spare_gradients and _writable_like(g, node.value)
                self._update_in_place(node.value, g, state, spare)

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

    random_batch = next_batch   # the 2019 library's name: x_batch, y_batch = opt.random_batch()

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
            if type(self).step is Optimizer.step:
                self._step(grads, spare_gradients=True)  # get_grad made them: scratch space
            else:
                self.step(grads)                          # a subclass's own step
            loss_hist.append(loss)
            if err_hist:
                para_hist.append(self.model.get_param())
            if print_each and i % print_each == 0:
                say(f"step {i:>{len(str(steps))}}/{steps}  loss {loss:.6g}", file=sys.stdout)
        if _state["compat_2019"]:
            loss = np.full((1, 1), loss)
        return (loss, loss_hist, para_hist) if err_hist else loss


def _writable_like(g, theta) -> bool:
    """Whether the gradient g can be written as a scratch array for theta: an array of its own
    (not a view of another), of theta's shape and dtype."""
    return (isinstance(g, np.ndarray) and g.base is None and g.flags.writeable
            and g.flags.c_contiguous and g.shape == theta.shape and g.dtype == theta.dtype
            and g is not theta)


def _average(state, key, value, beta, scratch):
    """state[key] <- beta * state[key] + (1 - beta) * value, in the optimizer's own buffer
    (zeros at first); `scratch` (which may be `value`) is overwritten."""
    if key not in state:
        state[key] = np.zeros_like(value)
    buffer = state[key]
    buffer *= beta
    buffer += np.multiply(value, 1 - beta, out=scratch)
    return buffer


class SGD(Optimizer):
    """theta <- theta - lr * g"""

    defaults = {"lr": 0.001}

    def _update_in_place(self, theta, g, state, spare_gradient):
        _, b = self._scratch_arrays(theta, g, spare_gradient)
        theta -= np.multiply(self.lr, g, out=b)


class SGD_Momentum(Optimizer):
    """v <- beta * v + (1 - beta) * g;  theta <- theta - lr * v   (v starts at 0)"""

    defaults = {"lr": 0.001, "beta": 0.9}

    def _update_in_place(self, theta, g, state, spare_gradient):
        _, b = self._scratch_arrays(theta, g, spare_gradient)
        v = _average(state, "v", g, self.beta, b)
        theta -= np.multiply(self.lr, v, out=b)


class RMSProp(Optimizer):
    """s <- beta * s + (1 - beta) * g^2;  theta <- theta - lr * g / (sqrt(s) + epsilon)"""

    defaults = {"lr": 0.001, "beta": 0.9, "epsilon": 1e-8}
    legacy_names = {**Optimizer.legacy_names, "beta2": "beta"}   # the 2019 name of its decay

    def _update_in_place(self, theta, g, state, spare_gradient):
        a, b = self._scratch_arrays(theta, g, spare_gradient)
        square = np.multiply(g, g, out=a)
        s = _average(state, "s", square, self.beta, a)
        denominator = np.add(np.sqrt(s, out=a), self.epsilon, out=a)
        step = np.multiply(self.lr, g, out=b)
        theta -= np.divide(step, denominator, out=b)


class Adam(Optimizer):
    """Kingma & Ba (2015), at step t = 1, 2, ...:

        m <- beta1 * m + (1 - beta1) * g;   v <- beta2 * v + (1 - beta2) * g^2
        m_hat = m / (1 - beta1^t);          v_hat = v / (1 - beta2^t)
        theta <- theta - lr * m_hat / (sqrt(v_hat) + epsilon)

    computed with the bias corrections c1 = 1 - beta1^t, c2 = 1 - beta2^t folded into the step
    size (as the paper's Algorithm 1 suggests), which is the same number, rounded differently:

        theta <- theta - (lr sqrt(c2) / c1) * m / (sqrt(v) + epsilon sqrt(c2))
    """

    defaults = {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}
    legacy_names = {**Optimizer.legacy_names, "beta": "beta1"}

    def _update_in_place(self, theta, g, state, spare_gradient):
        t = self.steps_done
        a, b = self._scratch_arrays(theta, g, spare_gradient)
        m = _average(state, "m", g, self.beta1, a)
        v = _average(state, "v", np.multiply(g, g, out=b), self.beta2, b)   # g is read: b is free
        root_c2 = math.sqrt(1 - self.beta2 ** t)
        step_size = self.lr * root_c2 / (1 - self.beta1 ** t)
        denominator = np.add(np.sqrt(v, out=b), self.epsilon * root_c2, out=b)
        step = np.multiply(step_size, m, out=a)
        theta -= np.divide(step, denominator, out=a)


RMS_Prop = RMSProp  # the 2019 library's spelling
