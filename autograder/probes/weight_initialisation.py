"""Probes of 05 weight initialisation: samples of the student's initialisers, their activation
statistics on weights sent by the grader, and the plot with the networks it was drawn from."""
import sys

import numpy as np

from .common import figure_data
from .schema import AXES, AnyShape, Array, Either, Hint, Items, Optional, Table, TypeName


def _plain(value):
    """A returned array as float64, or a description of what came back instead."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu":
        return {"array": value.astype(float), "type": "ndarray"}
    return {"array": None, "type": type(value).__name__}


def sample(ns, initialiser, fan_in, fan_out, seed):
    """The student's `initialiser` called as initialiser(fan_in, fan_out, default_rng(seed))."""
    return _plain(ns[initialiser](fan_in, fan_out, np.random.default_rng(seed)))


def statistics(ns, weights, activation, x):
    """The student's activation_statistics on the grader's weights and inputs."""
    result = ns["activation_statistics"](list(weights), activation, x)
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        return {"means": None, "stds": None, "type": type(result).__name__}
    means, stds = (np.asarray(r, dtype=float) for r in result)
    return {"means": means, "stds": stds, "type": type(result).__name__}


def all_figure_data(ns) -> list:
    """figure_data() of the figures pyplot holds, and of those the notebook keeps in variables
    after pyplot let go of them (Jupyter's inline backend closes every figure after its cell, so
    a self-check in a later cell finds them only there)."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    held = {id(plt.figure(n)) for n in plt.get_fignums()}
    kept = {}
    for value in list(ns.values()):
        items = list(value.ravel()) if isinstance(value, np.ndarray) and value.dtype == object else [value]
        for item in items:
            figure = item if isinstance(item, Figure) else item.figure if isinstance(item, Axes) else None
            if figure is not None and id(figure) not in held:
                kept[id(figure)] = figure
    return figure_data() + [
        {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
         "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
         "lines": [{"label": str(line.get_label()),
                    "x": np.asarray(line.get_xdata(), dtype=float),
                    "y": np.asarray(line.get_ydata(), dtype=float)} for line in ax.get_lines()]}
        for figure in kept.values() for ax in figure.axes]


def plot(ns):
    """What the figures show, with `networks` and `x_stats`, from which the grader recomputes
    the standard deviations that the lines should show."""
    networks = ns.get("networks")
    weights = None
    if isinstance(networks, dict):
        weights = {str(name): [np.asarray(W, dtype=float) for W in layers]
                   for name, layers in networks.items()}
    x = ns.get("x_stats")
    return {"axes": all_figure_data(ns), "networks": weights,
            "x_stats": None if x is None else np.asarray(x, dtype=float)}


REPLIES = {
    "sample": lambda initialiser, fan_in, fan_out, seed: Either(
        {"array": AnyShape(range(fan_in * fan_out), finite=True), "type": "ndarray"},
        {"array": None, "type": TypeName("ndarray")}),
    "statistics": lambda weights, activation, x: Either(
        {"means": AnyShape(weights), "stds": AnyShape(weights), "type": Hint(TypeName())},
        {"means": None, "stds": None, "type": TypeName()}),
    "plot": {"axes": AXES, "networks": Optional(Table(Items(Array((None, None), finite=False,
                                                                  max_size=10_000_000)))),
             "x_stats": Optional(Array(None, max_size=10_000_000))},
}
