"""Probes of 06 optimizers: the student's update rules run on a quadratic chosen by the grader
and on Rosenbrock's function with learning rates the grader names, the learning-rate sweep's plot
with the chosen learning rates, and the loss plot with the paths it was drawn from."""
import numpy as np

from .schema import AXES, Array, Either, Number, Optional, Table, Text
from .weight_initialisation import all_figure_data

RULES = ("momentum_update", "rmsprop_update", "adam_update")


def run(ns, rule, hyperparameters, A, c, starts, steps):
    """`steps` steps of the student's `rule` on f(theta) = 1/2 (theta - c)^T A (theta - c), whose
    gradient is A (theta - c), from each point of `starts`, each parameter with its own state,
    all updated in turn at every step. Returns the paths, what went wrong if the rule returned
    no usable array, and how many of the arrays theta and g given to the rule it changed."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}")
    update = ns[rule]
    thetas = [np.array(start, dtype=float) for start in starts]
    states = [{} for _ in starts]
    paths = [[theta.copy()] for theta in thetas]
    given = {"theta": [], "g": []}          # (array given to the rule, a copy of its value)
    problem = None
    for step in range(1, steps + 1):
        for i, theta in enumerate(thetas):
            g = A @ (theta - c)
            arguments = {"theta": theta.copy(), "g": g.copy()}
            for name, array in arguments.items():
                given[name].append((array, array.copy()))
            new = update(arguments["theta"], arguments["g"], states[i], **hyperparameters)
            if not isinstance(new, np.ndarray) or new.shape != theta.shape:
                what = (f"an array of shape {new.shape}" if isinstance(new, np.ndarray)
                        else f"{type(new).__name__} {str(new)[:60]}")
                problem = (f"at step {step}, {rule}(theta, g, state, ...) for theta of shape "
                           f"{theta.shape} returned {what}")
                break
            thetas[i] = np.array(new, dtype=float)      # a copy: later calls cannot change it
            paths[i].append(thetas[i].copy())
        if problem:
            break
    changed = {f"changed_{name}": sum(not np.array_equal(array, value, equal_nan=True)
                                      for array, value in pairs) for name, pairs in given.items()}
    return {"paths": [np.array(path) for path in paths], "problem": problem, **changed}


def rosenbrock_paths(ns, rule, hyperparameters, learning_rates, start, steps):
    """The paths (one per learning rate, (steps + 1, 2) each) of the student's `rule` (or the
    notebook's `sgd_update`) on Rosenbrock's function from `start`, with the notebook's gradient
    `rosenbrock_grad` (given code), each with a fresh state and lr=learning_rate besides
    `hyperparameters`: the notebook's `optimise`, step for step (a rule that changes theta in
    place changes the path as it does there). A rule that returns no (2,) array ends its path
    with nan."""
    if rule not in RULES + ("sgd_update",):
        raise ValueError(f"unknown rule {rule!r}")
    update, gradient = ns[rule], ns["rosenbrock_grad"]
    found = np.full((len(learning_rates), steps + 1, 2), np.nan)
    for i, lr in enumerate(np.asarray(learning_rates, dtype=float)):
        theta, state = np.array(start, dtype=float), {}
        path = [theta]
        with np.errstate(all="ignore"):     # a diverging run gives inf and nan, as in the notebook
            for _ in range(steps):
                theta = update(theta, gradient(theta), state, lr=lr, **hyperparameters)
                if not isinstance(theta, np.ndarray) or theta.shape != (2,):
                    break
                path.append(theta)
        found[i, :len(path)] = np.array(path, dtype=float)
    return found


def sweep_plot(ns):
    """What the figures show, with the chosen learning rates `LEARNING_RATE`."""
    chosen = ns.get("LEARNING_RATE")
    if isinstance(chosen, dict) and all(isinstance(v, (int, float, np.floating, np.integer))
                                        and not isinstance(v, bool) for v in chosen.values()):
        chosen = {str(name): float(lr) for name, lr in chosen.items()}
    else:
        chosen = None
    return {"axes": all_figure_data(ns), "learning_rates": chosen}


def loss_plot(ns):
    """What the figures show, with `paths`, from which the grader recomputes the losses."""
    paths = ns.get("paths")
    if isinstance(paths, dict):
        paths = {str(name): np.asarray(path, dtype=float) for name, path in paths.items()}
    else:
        paths = None
    return {"axes": all_figure_data(ns), "paths": paths}


def _run_reply(rule, hyperparameters, A, c, starts, steps):
    counts = {"changed_theta": Number(integer=True), "changed_g": Number(integer=True)}
    return Either(   # the paths may diverge to inf: the checks say where they leave dp's
        {"paths": [Array((steps + 1, *np.shape(s)), finite=False) for s in starts], "problem": None,
         **counts},
        {"paths": [Array((None, *np.shape(s)), finite=False) for s in starts], "problem": Text(500),
         **counts})


REPLIES = {
    "run": _run_reply,
    "rosenbrock_paths": lambda rule, hyperparameters, learning_rates, start, steps: Array(
        (len(learning_rates), steps + 1, 2), finite=False),
    "sweep_plot": {"axes": AXES, "learning_rates": Optional(Table(Number(finite=False)))},
    "loss_plot": {"axes": AXES, "paths": Optional(Table(Array((None, 2), finite=False, max_size=200_000)))},
}
