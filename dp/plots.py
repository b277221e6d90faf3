"""Pictures of training for the notebooks (matplotlib, imported only when one is drawn: the rest
of dp needs NumPy alone)."""
from __future__ import annotations

import numpy as np


def plot_loss(loss_hist, title="Training loss", ax=None):
    """The loss of every training step against the step, on a log axis (a loss falls by orders
    of magnitude); drawn on `ax`, else on a new figure (6 x 3 inches). Returns the figure."""
    losses = np.asarray(loss_hist, dtype=np.float64)
    if losses.ndim != 1:          # (an empty list draws empty axes: training not run yet)
        raise ValueError(f"plot_loss: expected a list of losses, one number per step, got "
                         f"shape {losses.shape}")
    import matplotlib.pyplot as plt
    figure, ax = plt.subplots(figsize=(6, 3)) if ax is None else (ax.figure, ax)
    ax.plot(losses)
    ax.set(xlabel="step", ylabel="training loss", yscale="log", title=title)
    return figure
