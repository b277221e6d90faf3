"""Checks of 06 optimizers: the update rules of SGD with momentum, RMSProp and Adam, and the
loss curves.

Each rule runs, in the submission, on a quadratic f(theta) = 1/2 (theta - c)^T A (theta - c)
chosen here (an ill-conditioned A, a starting point, hyperparameters and a number of steps from
the grading seed; vectors in the self-check, vectors or matrices when grading); its whole path is
compared with the path of the textbook formula on the same problem (the grader's references,
autograder/references/optimizers.py, which also give the paths of known mistakes). Each step is
compared within RTOL, or within DRIFT_FACTOR times the drift of other correct ways of writing
the rule from the textbook's path at that step, whichever is larger: RMSProp's paths are chaotic
near the minimum, where correct forms drift apart by up to 1e-4 (measured in
tests/test_nb06_optimizers.py), while the known mistakes stay more than a thousand tolerances
away.

The learning-rate sweep: one line per optimizer of final losses against learning rates (log x),
each recomputed here from the student's own rule replayed by the probe at the plotted learning
rates (so that a wrong rule costs its own task and not the sweep), and the chosen learning rates
(`LEARNING_RATE`) within the range where the textbook rule works (the grader's references run
it over a fine grid).

The loss curves must show the losses along the notebook's own paths, recomputed here, so that a
wrong update rule costs its own task and not the plot; and `paths` must be the notebook's race
(RACE: its start, steps and hyperparameters, with the student's chosen learning rates): the
probe replays the student's own rules with them, and every point is compared.
"""
import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import (assert_log_scale_and_labels, diagnosed, located,
                                         located_within, misconception, pairs, rel_error,
                                         shape_located)

ref = references.of(__name__)

RTOL = 1e-8            # where no rounding is amplified, equivalent forms agree to 1e-11
DRIFT_FACTOR = 1000    # equivalent forms measured within 0.1 tolerance, mistakes 7,000+ beyond
LOSS_NAMES = ("sgd", "momentum", "rmsprop", "adam")
RULES = ("momentum_update", "rmsprop_update", "adam_update")     # each rule is the task of its name
# The notebook's race: every optimizer from RACE_START for RACE_STEPS steps, {name: (rule, its
# hyperparameters besides the learning rate, which the student chooses)}. The probe replays the
# student's own rules, so the race must agree to rounding (RACE_RTOL on every coordinate).
RACE_START, RACE_STEPS, RACE_RTOL = (-1.2, 1.0), 1000, 1e-9
RACE = {"sgd": ("sgd_update", {}),
        "momentum": ("momentum_update", {"beta": 0.9}),
        "rmsprop": ("rmsprop_update", {"beta": 0.9, "eps": 1e-8}),
        "adam": ("adam_update", {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8})}
# The sweep: per line, SWEEP_POINTS learning rates spanning SWEEP_DECADES orders of magnitude at
# least; the final losses as the student's own rule gives them, within SWEEP_RTOL.
SWEEP_POINTS, SWEEP_DECADES, SWEEP_RTOL = (5, 30), 2.0, 1e-6


def _rules():
    return [pytest.param(rule, marks=pytest.mark.task(rule)) for rule in RULES]


# -- the problems ----------------------------------------------------------------------------
def quadratic(rng, public) -> dict:
    """A (d, d) symmetric positive definite with condition number `cond`, and the minimiser c
    (d,) or, when grading, sometimes (d, k): the gradient A (theta - c) works for both."""
    d = 2 if public else int(rng.integers(2, 6))
    shape = (d,) if public or rng.random() < 0.5 else (d, int(rng.integers(2, 4)))
    cond = 10.0 if public else float(rng.uniform(5, 50))
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    A = (Q * np.geomspace(1, cond, d)) @ Q.T
    return {"A": (A + A.T) / 2, "c": rng.normal(size=shape), "cond": cond}


def start(rng, problem) -> np.ndarray:
    return problem["c"] + rng.normal(0, 2, size=problem["c"].shape)


def hyperparameters(rule, rng, cond) -> dict:
    """Hyperparameters from rng; eps large enough that where it is added matters, beta far from 1/2."""
    if rule == "momentum_update":
        return {"lr": float(rng.uniform(0.3, 1.5) / cond), "beta": float(rng.uniform(0.6, 0.95))}
    eps = float(10 ** rng.uniform(-3, -1))
    if rule == "rmsprop_update":
        return {"lr": float(rng.uniform(0.01, 0.2)), "beta": float(rng.uniform(0.6, 0.99)), "eps": eps}
    return {"lr": float(rng.uniform(0.01, 0.2)), "beta1": float(rng.uniform(0.6, 0.9)),
            "beta2": float(rng.uniform(0.95, 0.999)), "eps": eps}


def steps(rng, public) -> int:
    return 25 if public else int(rng.integers(20, 41))


def _run(submission, rule, hyper, problem, starts, n_steps) -> dict:
    reply = submission.probe("run", rule=rule, hyperparameters=hyper, A=problem["A"],
                             c=problem["c"], starts=starts, steps=n_steps)
    assert reply["problem"] is None, (
        f"{reply['problem']}: it must return the new theta, an array of theta's shape")
    return reply


def _tolerances(rule, hyper, problem, starts, n_steps) -> list:
    """Per start, the relative error allowed at each step: RTOL, or more where the path amplifies
    rounding (DRIFT_FACTOR times the drift of equivalent forms of the rule)."""
    drifts = ref.drift(rule, hyper, problem["A"], problem["c"], starts, n_steps)
    return [np.maximum(RTOL, DRIFT_FACTOR * drift) for drift in drifts]


def _within(got, expected, tolerance) -> bool:
    return got.shape == expected.shape and all(
        rel_error(g, e) < t for g, e, t in zip(got, expected, tolerance))


def _setting(rule, hyper, theta0, n_steps) -> str:
    settings = ", ".join(f"{k}={v:.4g}" for k, v in hyper.items())
    return (f"{rule}({settings}) for {n_steps} steps on a quadratic from theta0 of shape "
            f"{theta0.shape} = {np.round(theta0, 4).tolist()}")


def _compare(got, expected, tolerance, what, mistakes=(), start=0) -> None:
    """Assert that the path `got` is `expected` within `tolerance` at every step; `mistakes`:
    the known mistakes' paths from every start (ref.misconceptions.paths), `start` this path's."""
    assert got.shape == expected.shape, (f"{what}: the path has shape {got.shape}, expected "
                                         f"{expected.shape}{shape_located(got.shape, expected.shape)}")
    for step, (g, e, t) in enumerate(zip(got, expected, tolerance)):
        if rel_error(g, e) >= t:
            raise AssertionError(
                f"{what}: theta after step {step} is {np.round(g, 6).ravel().tolist()}, "
                f"expected {np.round(e, 6).ravel().tolist()}"
                + misconception(got, expected, mistakes, lambda a, b: _within(a, b, tolerance),
                                part=start))


# -- momentum_update, rmsprop_update, adam_update -----------------------------------------------
@pytest.mark.parametrize("rule", _rules())
def test_path_is_the_path_of_the_reference_optimizer(submission, rng, public, metrics, rule):
    problem = quadratic(rng, public)
    hyper = hyperparameters(rule, rng, problem["cond"])
    theta0, n_steps = start(rng, problem), steps(rng, public)
    reply = _run(submission, rule, hyper, problem, [theta0], n_steps)
    [got] = reply["paths"]
    [expected] = ref.paths(rule, hyper, problem["A"], problem["c"], [theta0], n_steps)
    [tolerance] = _tolerances(rule, hyper, problem, [theta0], n_steps)
    mistakes = ref.misconceptions.paths(rule, hyper, problem["A"], problem["c"], [theta0], n_steps)
    metrics[f"{rule}_max_rel_error"] = rel_error(got, expected)
    _compare(got, expected, tolerance, _setting(rule, hyper, theta0, n_steps), mistakes)
    _assert_left_unchanged(reply, rule)


@pytest.mark.parametrize("rule", _rules())
def test_each_parameter_keeps_its_own_state(submission, rng, public, rule):
    problem = quadratic(rng, public)
    hyper = hyperparameters(rule, rng, problem["cond"])
    starts, n_steps = [start(rng, problem), start(rng, problem)], steps(rng, public)
    reply = _run(submission, rule, hyper, problem, starts, n_steps)
    expected = ref.paths(rule, hyper, problem["A"], problem["c"], starts, n_steps)
    tolerances = _tolerances(rule, hyper, problem, starts, n_steps)
    mistakes = ref.misconceptions.paths(rule, hyper, problem["A"], problem["c"], starts, n_steps)
    for i, ((mine, right), tolerance) in enumerate(zip(pairs(reply["paths"], expected, "paths"),
                                                       tolerances)):
        _compare(mine, right, tolerance, f"two parameters updated in turn with {rule}, each with its "
                                         f"own state dict: parameter {i + 1}", mistakes, i)
    _assert_left_unchanged(reply, rule)


@pytest.mark.parametrize("rule", _rules())
def test_theta_and_g_are_left_unchanged(submission, rng, public, rule):
    problem = quadratic(rng, public)
    hyper = hyperparameters(rule, rng, problem["cond"])
    _assert_left_unchanged(_run(submission, rule, hyper, problem, [start(rng, problem)],
                                steps(rng, public)), rule)


def _assert_left_unchanged(reply, rule) -> None:
    """theta and g were left unchanged by the calls of a `run` reply (every check that runs a rule
    asserts it, so that no part of a reply goes unchecked)."""
    n = sum(len(path) - 1 for path in reply["paths"])
    assert reply["changed_g"] == 0, (
        f"{rule} changed the gradient array g it was given ({reply['changed_g']} of {n} calls, "
        f"counting changes made in later calls to an array kept in state): compute new arrays "
        f"instead of changing g in place, and do not keep g itself in state")
    assert reply["changed_theta"] == 0, (
        f"{rule} changed the array theta it was given ({reply['changed_theta']} of {n} calls)"
        f"{THETA_IN_PLACE}")


THETA_IN_PLACE = diagnosed("theta_updated_in_place",
                           "theta is updated in place (theta -= ..., theta[...] = ...): return "
                           "theta - ..., a new array")


# -- loss_curves --------------------------------------------------------------------------------
def rosenbrock(path) -> np.ndarray:
    x, y = path[..., 0], path[..., 1]
    with np.errstate(over="ignore", invalid="ignore"):
        return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


@references.misconception("rosenbrock", "the size of the gradient, |grad f(theta_t)|, instead of "
                                        "the loss f(theta_t)")
def rosenbrock_gradient_norms(path) -> np.ndarray:
    x, y = path[..., 0], path[..., 1]
    return np.hypot(-2 * (1 - x) - 400 * x * (y - x ** 2), 200 * (y - x ** 2))


def _same_losses(got, truth) -> np.ndarray:
    """Where the losses `got` are `truth` (within RTOL; nan where nan)."""
    return np.isclose(got, truth, rtol=RTOL, atol=0, equal_nan=True)


def _optimizer_axes(data):
    """(axes, {name: line}, whether the lines run over the steps 0, 1, 2, ...) for every axes
    with a line labelled with each optimizer's name."""
    for ax in data["axes"]:
        lines = {}
        for line in ax["lines"]:
            lines.setdefault(line["label"].strip().lower(), line)
        if all(name in lines for name in LOSS_NAMES):
            lines = {name: lines[name] for name in LOSS_NAMES}
            yield ax, lines, all(np.array_equal(line["x"], np.arange(len(line["y"])))
                                 for line in lines.values())


def _loss_axes(data) -> tuple:
    """(axes, {name: line}): the axes with a line per optimizer over the steps 0, 1, ..."""
    curves = None       # labelled lines of a loss per point of each path, drawn over other x
    for ax, lines, over_steps in _optimizer_axes(data):
        if over_steps:
            return ax, lines
        if curves is None and all(len(line["y"]) == RACE_STEPS + 1 for line in lines.values()):
            curves = lines
    labels = sorted({line["label"] for ax in data["axes"] for line in ax["lines"]
                     if not line["label"].startswith("_")})
    raise AssertionError(
        f"no plot with four lines labelled {', '.join(map(repr, LOSS_NAMES))} over the steps "
        f"0, 1, 2, ... was found "
        + ("(the axes with those labels have other x values: plot against np.arange(len(path)))"
           if curves else f"(the labelled lines are: {', '.join(labels) or 'none'})")
        + "; draw with ax.plot(steps, losses, label=name) on the axes `ax` of `fig`"
        + (_steps_located(curves) if curves else ""))


def _steps_located(lines) -> str:
    """'. The first difference is in the x values of the line ...': how the x values of the first
    of the optimizers' loss curves `lines` ({name: line}) not drawn over the steps 0, 1, ...
    depart from them."""
    for name, line in lines.items():
        x, y = (np.asarray(line[axis], dtype=float) for axis in ("x", "y"))
        steps = np.arange(len(y), dtype=float)
        if np.array_equal(x, steps):
            continue
        start = f". The first difference is in the x values of the line {name!r}"
        if x.shape == y.shape and np.array_equal(y, steps):
            return f"{start}: its y values are the steps 0 to {len(y) - 1}: x and y swapped."
        inner = located(x, steps) if x.shape == steps.shape else shape_located(x.shape, steps.shape)
        return start + (located_within(inner) if inner else
                        f": they are not the steps 0 to {len(y) - 1}.")
    return ""


def _assert_log_scale_and_labels(ax, axis, plot, not_log, what) -> None:
    assert_log_scale_and_labels(ax, axis, plot, not_log, what,
                                "ax_sweep" if plot == "sweep" else "ax")


LOSSES_NOT_LOG = diagnosed("loss_plot_not_logarithmic",
                           "the y axis of the loss plot is not logarithmic, where the losses range "
                           "over several orders of magnitude (ax.set_yscale('log'))")
RATES_NOT_LOG = diagnosed("sweep_plot_not_logarithmic",
                          "the x axis of the sweep is not logarithmic, where the learning rates "
                          "span orders of magnitude (ax_sweep.set_xscale('log'))")


@pytest.mark.task("loss_curves")
def test_loss_plot_has_a_logarithmic_y_axis_and_axis_labels(submission):
    ax, _ = _loss_axes(submission.probe("loss_plot"))
    _assert_log_scale_and_labels(ax, "y", "loss plot", LOSSES_NOT_LOG, "the step, and the loss")


def _rule_is_right(submission, rule, rng, public) -> bool:
    """Whether the student's `rule` gives the textbook's paths from two starts on a quadratic
    (as its own task checks it), leaving theta and g unchanged."""
    problem = quadratic(rng, public)
    hyper = hyperparameters(rule, rng, problem["cond"])
    starts, n_steps = [start(rng, problem), start(rng, problem)], steps(rng, public)
    reply = submission.probe("run", rule=rule, hyperparameters=hyper, A=problem["A"],
                             c=problem["c"], starts=starts, steps=n_steps)
    if reply["problem"] is not None or reply["changed_theta"] or reply["changed_g"]:
        return False
    expected = ref.paths(rule, hyper, problem["A"], problem["c"], starts, n_steps)
    tolerances = _tolerances(rule, hyper, problem, starts, n_steps)
    return all(_within(got, right, tolerance)
               for got, right, tolerance in zip(reply["paths"], expected, tolerances))


def _replayable(submission, rule, rng, public) -> bool:
    """Whether the probe's replay of `rule` can stand for the notebook's runs: the given
    sgd_update, or a rule that is right (a wrong one costs its own task, and may keep state
    outside its state dict that a replay does not reproduce)."""
    return rule == "sgd_update" or _rule_is_right(submission, rule, rng, public)


def _replay(submission, name, learning_rates) -> np.ndarray:
    """The paths of optimizer `name` of the race with each of `learning_rates`, the student's own
    rule replayed by the probe (the notebook's sgd_update for "sgd")."""
    rule, hyper = RACE[name]
    return submission.probe("rosenbrock_paths", rule=rule, hyperparameters=hyper,
                            learning_rates=[float(lr) for lr in learning_rates],
                            start=list(RACE_START), steps=RACE_STEPS)


def _chosen(submission) -> dict:
    """LEARNING_RATE, with a learning rate for every optimizer of the race."""
    chosen = submission.probe("sweep_plot")["learning_rates"]
    assert chosen is not None, (
        "LEARNING_RATE must be a dict from the optimizers' names to a learning rate (a number) each")
    missing = [name for name in RACE if name not in chosen]
    assert not missing, f"LEARNING_RATE has no learning rate for {', '.join(missing)}; it has {sorted(chosen)}"
    return chosen


@pytest.mark.task("loss_curves")
def test_paths_are_the_notebooks_race(submission, rng, public, metrics):
    found = submission.probe("loss_plot")["paths"]
    assert found is not None, "`paths` must be a dict from the optimizers' names to their paths"
    chosen = _chosen(submission)
    keep = "leave `paths` as the notebook's race makes it"
    for name, (rule, hyper) in RACE.items():
        assert name in found, f"paths has no entry {name!r}; it has {sorted(found)}"
        path = found[name]
        assert path.shape == (RACE_STEPS + 1, 2), (
            f"paths[{name!r}] has shape {path.shape}, expected ({RACE_STEPS + 1}, 2): the start "
            f"{RACE_START} and the {RACE_STEPS} steps after it; {keep}")
        if not _replayable(submission, rule, rng, public):
            continue        # its own task fails; the plot shows the notebook's path of that rule
        [expected] = _replay(submission, name, [chosen[name]])
        close = np.isclose(path, expected, rtol=RACE_RTOL, atol=RACE_RTOL, equal_nan=True).all(axis=1)
        metrics[f"{name}_race_max_abs_error"] = float(np.nanmax(np.abs(path - expected)))
        t = int(np.argmin(close))
        settings = ", ".join(f"{k}={v:g}" for k, v in {"lr": chosen[name], **hyper}.items())
        assert close.all(), (
            f"paths[{name!r}][{t}] is {np.round(path[t], 6).tolist()}, but your {rule}({settings}) "
            f"from {RACE_START} on rosenbrock is at {np.round(expected[t], 6).tolist()} at step "
            f"{t}; {keep}")


@pytest.mark.task("loss_curves")
def test_loss_curves_are_the_losses_along_the_paths(submission, metrics):
    data = submission.probe("loss_plot")
    _, lines = _loss_axes(data)
    found = data["paths"]
    assert found is not None, "`paths` must be a dict from the optimizers' names to their paths"
    worst = 0.0
    for name, line in lines.items():
        assert name in found, f"paths has no entry {name!r}; it has {sorted(found)}"
        truth = rosenbrock(found[name])
        got = line["y"]
        assert got.shape == truth.shape, (
            f"the {name!r} line has {got.size} values, but paths[{name!r}] has {truth.size} points: "
            f"plot one loss per point, from the start theta_0 to the end")
        close = _same_losses(got, truth)
        finite = np.isfinite(truth) & np.isfinite(got)
        worst = metrics["max_rel_error"] = max(worst, rel_error(got[finite], truth[finite]))
        if not close.all():
            t = int(np.argmin(close))
            others = [other for other in LOSS_NAMES if other in found and other != name
                      and np.array_equal(got, rosenbrock(found[other]), equal_nan=True)]
            hint = (f"; your line shows the losses of paths[{others[0]!r}]: are the labels swapped?"
                    if others else misconception(
                        got, truth, references.variants(rosenbrock, found[name]),
                        lambda a, b: a.shape == b.shape and _same_losses(a, b).all())
                    or "; plot rosenbrock(paths[name])")
            raise AssertionError(
                f"the {name!r} line shows {got[t]:.6g} at step {t}, but the loss at paths[{name!r}][{t}] "
                f"is {truth[t]:.6g}{hint}")


# -- lr_sweep -----------------------------------------------------------------------------------
def final_losses(paths) -> np.ndarray:
    """The loss at the end of each path (k, steps + 1, 2); nan where a run diverged."""
    losses = rosenbrock(paths[:, -1])
    return np.where(np.isfinite(losses), losses, np.nan)


@references.misconception("final_losses", "the lowest loss along each path instead of the "
                                          "loss at its end")
def lowest_losses(paths) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        losses = np.nanmin(np.where(np.isfinite(rosenbrock(paths)), rosenbrock(paths), np.nan), axis=1)
    return np.where(np.isfinite(losses), losses, np.nan)


def _sweep_axes(data) -> tuple:
    """(axes, {name: line}): the axes with a line per optimizer over x values that are not the
    steps 0, 1, 2, ... (those are the loss curves)."""
    for ax, lines, over_steps in _optimizer_axes(data):
        if not over_steps:
            return ax, lines
    raise AssertionError(
        f"no plot with four lines labelled {', '.join(map(repr, LOSS_NAMES))} over learning rates "
        f"was found: draw with ax_sweep.plot(learning_rates, final_losses, label=name) on the "
        f"axes `ax_sweep` of `fig_sweep`")


@pytest.mark.task("lr_sweep")
def test_sweep_plot_has_a_logarithmic_x_axis_and_axis_labels(submission):
    ax, _ = _sweep_axes(submission.probe("sweep_plot"))
    _assert_log_scale_and_labels(ax, "x", "sweep", RATES_NOT_LOG,
                                 "the learning rate, and the final loss")


@pytest.mark.task("lr_sweep")
def test_sweep_lines_are_the_final_losses_of_your_optimizers(submission, rng, public, metrics):
    _, lines = _sweep_axes(submission.probe("sweep_plot"))
    low, high = SWEEP_POINTS
    for name, line in lines.items():
        rates, got = line["x"], line["y"]
        assert low <= rates.size <= high and np.all(np.isfinite(rates)) and np.all(rates > 0), (
            f"the {name!r} line of the sweep has {rates.size} learning rates "
            f"({np.round(rates[:8], 8).tolist()}...): sweep {low} to {high} positive learning rates")
        decades = float(np.log10(rates.max() / rates.min()))
        assert decades >= SWEEP_DECADES, (
            f"the {name!r} sweep spans {decades:.2g} orders of magnitude, from {rates.min():.3g} to "
            f"{rates.max():.3g}: spread its learning rates over {SWEEP_DECADES:g} at least "
            f"(np.logspace), to see where the optimizer crawls and where it diverges")
        decade = np.floor(np.log10(rates) + 1e-9)      # 10^k <= rate < 10^(k+1), up to rounding
        empty = sorted(set(range(int(decade.min()), int(decade.max()))) - set(decade.astype(int)))
        assert not empty, (
            f"the {name!r} sweep has no learning rate between {10.0 ** empty[0]:g} and "
            f"{10.0 ** (empty[0] + 1):g} ({np.sum(decade > empty[0])} of its {rates.size} are above "
            f"them): spread the rates evenly on the log axis, some in every decade they span "
            f"(np.logspace), to see where the optimizer crawls and where it diverges")
        if not _replayable(submission, RACE[name][0], rng, public):
            continue        # its own task fails (a rule with hidden state may not replay)
        replayed = _replay(submission, name, rates)
        truth = final_losses(replayed)
        got = np.where(np.isfinite(got), got, np.nan)
        close = np.isclose(got, truth, rtol=SWEEP_RTOL, atol=0, equal_nan=True)
        finite = np.isfinite(got) & np.isfinite(truth)
        metrics[f"{name}_sweep_max_rel_error"] = rel_error(got[finite], truth[finite]) if finite.any() else 0.0
        if not close.all():
            i = int(np.argmin(close))
            rule, hyper = RACE[name]
            raise AssertionError(
                f"the {name!r} line shows {got[i]:.6g} at learning rate {rates[i]:.4g}, but {rule} "
                f"with lr={rates[i]:.4g} ends at f = {truth[i]:.6g} after {RACE_STEPS} steps from "
                f"{RACE_START}"
                + (misconception(got, truth, references.variants(final_losses, replayed),
                                 lambda a, b: np.isclose(a, b, rtol=SWEEP_RTOL, atol=0, equal_nan=True).all())
                   or "; plot rosenbrock(path[-1]) of each run"))


@pytest.mark.task("lr_sweep")
def test_chosen_learning_rates_work(submission):
    chosen = _chosen(submission)
    for name, (rule, hyper) in RACE.items():
        lr = chosen[name]
        textbook = "sgd" if rule == "sgd_update" else rule
        working = ref.working_range(textbook, hyper, list(RACE_START), RACE_STEPS)
        if any(low <= lr <= high for low, high in working):
            continue
        where = ("too small: the optimizer crawls" if lr < working[0][0] else
                 "too large: the optimizer zigzags or diverges" if lr > working[-1][1] else
                 "between learning rates that work, but not itself one")
        raise AssertionError(
            f"LEARNING_RATE[{name!r}] = {lr:.4g} does not work well for {name} ({where}): a "
            f"working learning rate ends within a factor of 10 of the lowest final loss any "
            f"learning rate reaches (or below 1e-3), as the grader's sweep of the textbook rule "
            f"finds; read your sweep again")
