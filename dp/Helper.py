"""The 2019 library's helper module, kept under its name: ``Helper.one_hot_encoding``."""
from __future__ import annotations

import numpy as np

from .utils import one_hot


def one_hot_encoding(labels, num_classes=None, dtype=np.float64) -> np.ndarray:
    """`dp.one_hot` under its 2019 name; the labels may also be a column (n, 1) or a row (1, n)."""
    labels = np.asarray(labels)
    if labels.ndim == 2 and 1 in labels.shape:
        labels = labels.ravel()
    return one_hot(labels, num_classes, dtype)
