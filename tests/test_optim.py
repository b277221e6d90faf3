"""Each optimizer's first steps equal the closed-form update in its docstring."""
import numpy as np
import pytest

import dp


class Quadratic(dp.Model):
    """loss = sum((w - target)^2) / 2, so the gradient is w - target."""

    def __init__(self, start):
        super().__init__()
        self.w = dp.Node(np.array(start, dtype=float), "w")

    def forward(self, x):
        return self.w

    def loss(self, x, y):
        return ((self.w - np.array([1.0, -2.0])).square() * 0.5).sum()


TARGET = np.array([1.0, -2.0])
START = [3.0, 0.5]


def one_liner(rule, h):
    """The update rule as a student writes it (notebook 06), one new array per operation."""
    def update(theta, g, state, t):
        if rule == "SGD":
            return theta - h["lr"] * g
        if rule == "SGD_Momentum":
            v = state["v"] = h["beta"] * state.get("v", 0.0) + (1 - h["beta"]) * g
            return theta - h["lr"] * v
        if rule == "RMSProp":
            s = state["s"] = h["beta"] * state.get("s", 0.0) + (1 - h["beta"]) * (g * g)
            return theta - h["lr"] * g / (np.sqrt(s) + h["epsilon"])
        m = state["m"] = h["beta1"] * state.get("m", 0.0) + (1 - h["beta1"]) * g
        v = state["v"] = h["beta2"] * state.get("v", 0.0) + (1 - h["beta2"]) * (g * g)
        m_hat, v_hat = m / (1 - h["beta1"] ** t), v / (1 - h["beta2"] ** t)
        return theta - h["lr"] * m_hat / (np.sqrt(v_hat) + h["epsilon"])
    return update


def reference(rule, steps, **h):
    """The update rules written out by hand (`one_liner`), one step at a time."""
    update, w, state, history = one_liner(rule, h), np.array(START), {}, []
    for t in range(1, steps + 1):
        w = update(w, w - TARGET, state, t)
        history.append(w)
    return history


SETTINGS = {
    "SGD": {"lr": 0.1},
    "SGD_Momentum": {"lr": 0.1, "beta": 0.8},
    "RMSProp": {"lr": 0.05, "beta": 0.7, "epsilon": 1e-8},
    "Adam": {"lr": 0.05, "beta1": 0.8, "beta2": 0.9, "epsilon": 1e-8},
}


@pytest.mark.parametrize("name", SETTINGS)
def test_three_steps_follow_the_documented_rule(name):
    net = Quadratic(START)
    loss, loss_hist, para_hist = getattr(dp, name)(net, None, None, **SETTINGS[name]).train(
        steps=3, print_each=0, err_hist=True)
    expected = reference(name, 3, **SETTINGS[name])
    for got, want in zip(para_hist, expected):
        np.testing.assert_allclose(got["w"], want, rtol=1e-12)
    assert loss == loss_hist[-1] == pytest.approx(0.5 * np.sum((expected[1] - TARGET) ** 2))


LEGACY = {"SGD": {"alpha": 0.1}, "SGD_Momentum": {"alpha": 0.1, "beta": 0.8},
          "RMSProp": {"alpha": 0.05, "beta": 0.7, "epsilon": 1e-8},
          "Adam": {"alpha": 0.05, "beta": 0.8, "beta2": 0.9, "epsilon": 1e-8}}


@pytest.mark.parametrize("name", SETTINGS)
def test_2019_hyperparam_dictionary_means_the_same(name):
    modern = getattr(dp, name)(Quadratic(START), None, None, **SETTINGS[name])
    legacy = getattr(dp, name)(Quadratic(START), None, None, hyperparam=LEGACY[name])
    assert modern.hyperparameters == legacy.hyperparameters


def test_unknown_hyperparameter_is_named():
    with pytest.raises(TypeError, match="unknown hyperparameter 'momentum'"):
        dp.SGD(Quadratic(START), None, None, momentum=0.9)


def test_train_returns_the_final_loss_and_prints_each(capsys):
    loss = dp.SGD(Quadratic(START), None, None, lr=0.1).train(steps=20, print_each=10)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[-1].startswith("step 20/20")
    assert isinstance(loss, float) and loss < 0.5


def test_diverging_training_raises_a_clear_error():
    with pytest.raises(FloatingPointError, match="smaller learning rate"):
        with np.errstate(over="ignore", invalid="ignore"):
            dp.SGD(Quadratic(START), None, None, lr=1e200).train(steps=5, print_each=0)


def test_minibatches_cover_the_data_each_epoch():
    x, y = np.arange(10)[:, None], np.arange(10)
    seen = np.concatenate([yb for _, yb in dp.batches(x, y, batch_size=3, seed=1)])
    assert sorted(seen) == list(range(10))
    again = np.concatenate([yb for _, yb in dp.batches(x, y, batch_size=3, seed=1)])
    np.testing.assert_array_equal(seen, again)


# -- update() returns a new theta, computed as the formula says ------------------------------------
# the rules that keep the operations of their formula in their order (Adam folds its bias
# corrections into the step size: test_one_update_is_the_textbook_formula_to_1e_12)
EXACT = tuple(name for name in SETTINGS if name != "Adam")


def random_steps(name, dtype, steps):
    """Two parameters of one shape (so they share the optimizer's scratch arrays) and one of
    another, `steps` steps of update() with random gradients, beside the one-line formula:
    yields (t, i, ours, theirs), after checking that theta and g were left as they were."""
    rng = np.random.default_rng(7)
    hyper = {k: (np.float64(v) if k != "lr" else v) for k, v in SETTINGS[name].items()}
    optimizer = getattr(dp, name)(None, None, None, **hyper)
    formula = one_liner(name, SETTINGS[name])
    shapes = [(5, 3), (5, 3), (4,)]
    ours = [rng.normal(size=s).astype(dtype) for s in shapes]
    theirs = [theta.copy() for theta in ours]
    our_states, their_states = [{} for _ in shapes], [{} for _ in shapes]
    for t in range(1, steps + 1):
        optimizer.steps_done = t
        for i, shape in enumerate(shapes):
            g = rng.normal(size=shape).astype(dtype)
            theta, g_before, theta_before = ours[i], g.copy(), ours[i].copy()
            ours[i] = optimizer.update(theta, g, our_states[i])
            theirs[i] = formula(theirs[i], g, their_states[i], t)
            np.testing.assert_array_equal(g, g_before)
            np.testing.assert_array_equal(theta, theta_before)
            assert ours[i] is not theta and ours[i].dtype == dtype
            yield t, i, ours[i], theirs[i]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", EXACT)
def test_updates_equal_the_one_line_formula_exactly(name, dtype):
    """30 steps: every new theta is the formula's, bit for bit."""
    for t, i, ours, theirs in random_steps(name, dtype, 30):
        np.testing.assert_array_equal(ours, theirs, err_msg=f"{name}, step {t}, parameter {i}")


@pytest.mark.parametrize("name", SETTINGS)
def test_one_update_is_the_textbook_formula_to_1e_12(name):
    """One step from fresh states, float64 (a rule written in another order, e.g. Adam with its
    bias corrections folded into the step size, rounds differently within the last bits)."""
    for t, i, ours, theirs in random_steps(name, np.float64, 1):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", SETTINGS)
def test_float32_updates_stay_float32_and_near_the_formula(name):
    for t, i, ours, theirs in random_steps(name, np.float32, 10):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


# -- 100 steps on notebook 06's quadratics, within 06's tolerance ----------------------------------
from autograder.references import optimizers as references   # noqa: E402
from tests.grading import load_checks                          # noqa: E402

checks = load_checks("06_optimizers")      # 06's problems and tolerance (RTOL, DRIFT_FACTOR)

RULE = {"SGD_Momentum": "momentum_update", "RMSProp": "rmsprop_update", "Adam": "adam_update"}


class OnQuadratic(dp.Model):
    """One parameter per start on f(theta) = 1/2 (theta - c)^T A (theta - c), whose gradient
    A (theta - c) is computed as the references compute it (one custom op, so `train` backprops
    exactly that array)."""

    def __init__(self, A, c, starts):
        super().__init__()
        self.A, self.c = A, c
        self.thetas = [dp.Node(start, f"p{i}") for i, start in enumerate(starts)]
        for theta in self.thetas:
            setattr(self, theta.name, theta)     # a model's parameters are its Node attributes

    def gradients(self) -> dict:
        return {p.name: self.A @ (p.value - self.c) for p in self.thetas}

    def loss(self, x, y):
        grads = self.gradients()
        value = sum(0.5 * np.sum((p.value - self.c) * grads[p.name]) for p in self.thetas)
        return dp.custom_op("quadratic", value,
                            *((p, lambda up, g=grads[p.name]: up * g) for p in self.thetas))


def dp_paths(name, hyper, problem, starts, n_steps, through_train) -> list:
    net = OnQuadratic(problem["A"], problem["c"], [np.array(s) for s in starts])
    settings = {("epsilon" if k == "eps" else k): v for k, v in hyper.items()}
    optimizer = getattr(dp, name)(net, None, None, batch_size=None, **settings)
    if through_train:       # gradients made by get_grad: the optimizer may compute in them
        _, _, history = optimizer.train(steps=n_steps, print_each=0, err_hist=True)
    else:                   # gradients handed to step(): left as they were
        history = []
        for _ in range(n_steps):
            optimizer.step(net.gradients())
            history.append(net.get_param())
    return [np.array([start] + [h[f"p{i}"] for h in history]) for i, start in enumerate(starts)]


@pytest.mark.parametrize("through_train", [True, False], ids=["train", "step"])
@pytest.mark.parametrize("name", RULE)
def test_100_steps_stay_within_the_drift_of_equivalent_forms(name, through_train):
    """On 20 of 06's hidden quadratics, 100 steps from two starts: dp's path is the textbook's
    within the tolerance 06 grades with (RTOL, or DRIFT_FACTOR times the drift from the
    textbook's path of the equivalent forms in autograder/references/optimizers.py, per step).."""
    rule, worst = RULE[name], 0.0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        problem = checks.quadratic(rng, public=False)
        hyper = checks.hyperparameters(rule, rng, problem["cond"])
        starts = [checks.start(rng, problem), checks.start(rng, problem)]
        A, c = problem["A"], problem["c"]
        expected = references.paths(rule, hyper, A, c, starts, 100)
        drifts = references.drift(rule, hyper, A, c, starts, 100)
        ours = dp_paths(name, hyper, problem, starts, 100, through_train)
        for path, right, drift in zip(ours, expected, drifts):
            tolerance = np.maximum(checks.RTOL, checks.DRIFT_FACTOR * drift)
            for t, (got, want, allowed) in enumerate(zip(path, right, tolerance)):
                error = checks.rel_error(got, want)
                assert error <= allowed, f"{name}, problem {seed}, step {t}: {error} > {allowed}"
                worst = max(worst, error / allowed)
    assert worst <= 1


# -- what step() may and may not write -------------------------------------------------------------
@pytest.mark.parametrize("name", SETTINGS)
def test_step_never_changes_the_callers_arrays(name):
    """The array given to Node(array, "w") and the gradients given to step() stay as they were;
    train() too leaves the caller's array alone, while it updates the model."""
    start = np.array([3.0, 0.5])
    net = Quadratic(start)
    net.w = dp.Node(start, "w")                 # the caller's own array, not a copy of it
    optimizer = getattr(dp, name)(net, None, None, **SETTINGS[name])
    for _ in range(3):
        grads = {"w": net.w.value - TARGET}
        given = grads["w"].copy()
        optimizer.step(grads)
        np.testing.assert_array_equal(grads["w"], given)
    optimizer.train(steps=3, print_each=0)
    np.testing.assert_array_equal(start, [3.0, 0.5])
    assert net.w.value is not start
    np.testing.assert_allclose(net.w.value, reference(name, 6, **SETTINGS[name])[-1], rtol=1e-12)


@pytest.mark.parametrize("name", SETTINGS)
def test_set_param_after_a_step_is_followed(name):
    """A value set anew (set_param copies it) is the one the next steps update."""
    net = Quadratic(START)
    optimizer = getattr(dp, name)(net, None, None, **SETTINGS[name])
    optimizer.train(steps=2, print_each=0)
    net.set_param({"w": START})
    optimizer.state.clear()
    optimizer.steps_done = 0
    optimizer.train(steps=3, print_each=0)
    np.testing.assert_allclose(net.w.value, reference(name, 3, **SETTINGS[name])[-1], rtol=1e-12)


def test_a_subclass_overriding_update_is_used_by_step_and_train():
    """A rule of one's own (notebook 06's `MyAdam`) gets theta and g, returns a new theta; step()
    and train() use it, and the caller's array is left alone."""
    calls = []

    class HalfStep(dp.SGD):
        def update(self, theta, g, state):
            calls.append((theta.copy(), g.copy()))
            return theta - 0.5 * self.lr * g

    start = np.array([3.0, 0.5])
    net = Quadratic(start)
    net.w = dp.Node(start, "w")
    optimizer = HalfStep(net, None, None, lr=0.2)
    optimizer.step({"w": np.array([1.0, 1.0])})
    optimizer.train(steps=1, print_each=0)
    np.testing.assert_allclose(calls[0][0], [3.0, 0.5])
    np.testing.assert_allclose(net.w.value, [2.9, 0.4] - 0.1 * (np.array([2.9, 0.4]) - TARGET))
    np.testing.assert_array_equal(start, [3.0, 0.5])
    assert len(calls) == 2


def test_a_subclass_of_optimizer_without_a_rule_says_what_to_define():
    class NoRule(dp.Optimizer):
        pass
    with pytest.raises(NotImplementedError, match="must define update"):
        NoRule(Quadratic(START), None, None).step({"w": np.ones(2)})
