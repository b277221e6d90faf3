"""Probes shared by all notebooks: the student's matplotlib figures, as data and as PNG."""
from __future__ import annotations

import base64
import io
import sys

import numpy as np


def _figures(ns=None, held_only=False):
    """Open figures (unless `held_only`), and figures the notebook keeps in variables (Jupyter
    closes every figure after its cell, so a later self-check finds them only there: with
    `held_only`, grading and self-check see the same figures)."""
    if "matplotlib.pyplot" not in sys.modules:
        return []
    plt = sys.modules["matplotlib.pyplot"]
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    found = {} if held_only else {id(f): f for f in (plt.figure(n) for n in plt.get_fignums())}
    for value in (ns or {}).values():
        items = value.flat if isinstance(value, np.ndarray) and value.dtype == object else \
            value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            figure = item if isinstance(item, Figure) else item.figure if isinstance(item, Axes) else None
            if figure is not None:
                found.setdefault(id(figure), figure)
    return list(found.values())


def figure_pngs(ns=None, dpi=80):
    """Every open figure as a base64 PNG string (for the feedback page), cropped to what it
    draws as Jupyter's inline backend does (bbox_inches="tight"): the figure's own size would
    clip an axis label that reaches past it."""
    images = []
    for figure in _figures(ns)[:10]:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
        images.append(base64.b64encode(buffer.getvalue()).decode("ascii"))
    return images


def figure_data(ns=None, held_only=False):
    """What the plots show: per axes, its scales, labels and each line's label and data; of the
    figures `_figures` finds."""
    axes = []
    for figure in _figures(ns, held_only):
        for ax in figure.axes:
            axes.append({
                "title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
                "lines": [{"label": str(line.get_label()),
                           "x": np.asarray(line.get_xdata(), dtype=float),
                           "y": np.asarray(line.get_ydata(), dtype=float)}
                          for line in ax.get_lines()],
            })
    return axes
