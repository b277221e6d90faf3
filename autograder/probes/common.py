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
    return [base64.b64encode(_png(figure, dpi)).decode("ascii") for figure in _figures(ns)[:10]]


def _png(figure, dpi) -> bytes:
    """`figure` as a PNG of what it draws plus savefig's padding. Drawn once and cropped when
    what it draws lies within the figure, the usual case; savefig(bbox_inches="tight") draws
    twice, with two renderers, and each parses a log axis' tick labels ($10^{-3}$) again: that
    was most of the time. A figure that draws past its edge is saved as savefig does."""
    import matplotlib
    import matplotlib.image
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    buffer, canvas, saved_dpi = io.BytesIO(), figure.canvas, figure.dpi
    if isinstance(canvas, FigureCanvasAgg):
        try:
            figure.dpi = dpi
            canvas.draw()
            box = figure.get_tightbbox(canvas.get_renderer())     # inches, from the bottom left
            width, height = canvas.get_width_height(physical=True)
            pixels = np.asarray(canvas.buffer_rgba())
        finally:
            figure.dpi = saved_dpi
        if box is not None and box.x0 >= 0 and box.y0 >= 0 and box.x1 * dpi <= width \
                and box.y1 * dpi <= height and box.width > 0 and box.height > 0:
            x0, y0, x1, y1 = np.clip(box.padded(matplotlib.rcParams["savefig.pad_inches"]).extents * dpi,
                                     0, [width, height, width, height])
            crop = pixels[int(height - y1):int(np.ceil(height - y0)), int(x0):int(np.ceil(x1))]
            matplotlib.image.imsave(buffer, crop, format="png", dpi=dpi)
            return buffer.getvalue()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


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


def answer(ns, variable):
    """The student's answer to a question graded automatically: the notebook's `variable`,
    a string (a choice, at most 200 characters kept) or a number; None for anything else, with
    its type's name."""
    if variable not in ns:      # the stub's cell raised NotImplementedError before setting it
        raise NotImplementedError(f"not implemented yet: the notebook has no `{variable}`; "
                                  "answer the question in the cell under it")
    value = ns[variable]
    kind = type(value).__name__
    if isinstance(value, str):
        return {"value": value[:200], "type": kind}
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return {"value": float(value), "type": kind}
    return {"value": None, "type": kind}
