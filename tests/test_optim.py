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


# -- the in-place updates equal the one-line formulas, bit for bit ---------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", SETTINGS)
def test_updates_equal_the_one_line_formula_exactly(name, dtype):
    """Two parameters of one shape (so they share the optimizer's scratch arrays) and one of
    another, 30 steps with random gradients: every new theta is identical to the formula's, and
    theta and g are left as they were."""
    rng = np.random.default_rng(7)
    hyper = {k: (np.float64(v) if k != "lr" else v) for k, v in SETTINGS[name].items()}
    optimizer = getattr(dp, name)(None, None, None, **hyper)
    formula = one_liner(name, SETTINGS[name])
    shapes = [(5, 3), (5, 3), (4,)]
    ours = [rng.normal(size=s).astype(dtype) for s in shapes]
    theirs = [theta.copy() for theta in ours]
    our_states, their_states = [{} for _ in shapes], [{} for _ in shapes]
    for t in range(1, 31):
        optimizer.steps_done = t
        for i, shape in enumerate(shapes):
            g = rng.normal(size=shape).astype(dtype)
            theta, g_before, theta_before = ours[i], g.copy(), ours[i].copy()
            ours[i] = optimizer.update(theta, g, our_states[i])
            theirs[i] = formula(theirs[i], g, their_states[i], t)
            np.testing.assert_array_equal(g, g_before)
            np.testing.assert_array_equal(theta, theta_before)
            assert ours[i] is not theta and ours[i].dtype == dtype
            np.testing.assert_array_equal(ours[i], theirs[i], err_msg=f"{name}, step {t}, parameter {i}")
