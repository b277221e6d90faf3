"""Probes shared by all notebooks: the student's matplotlib figures, as data and as PNG."""
from __future__ import annotations

import base64
import io
import sys

import numpy as np


def _figures():
    if "matplotlib.pyplot" not in sys.modules:
        return []
    plt = sys.modules["matplotlib.pyplot"]
    return [plt.figure(n) for n in plt.get_fignums()]


def figure_pngs(ns=None, dpi=80):
    """Every open figure as a base64 PNG string (for the feedback page)."""
    images = []
    for figure in _figures()[:10]:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi)
        images.append(base64.b64encode(buffer.getvalue()).decode("ascii"))
    return images


def figure_data(ns=None):
    """What the plots show: per axes, its scales, labels and each line's label and data."""
    axes = []
    for figure in _figures():
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
