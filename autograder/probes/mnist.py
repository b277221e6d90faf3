"""Probes of 09 MNIST: the student's predictions on images chosen by the grader."""
import numpy as np

from .schema import AnyShape, Plain


def predict(ns, images):
    """The student's `predict` on `images` as floats; the labels never leave the grader."""
    try:
        return np.asarray(ns["predict"](images), dtype=float)
    except (TypeError, ValueError):
        return {"not_array": type(ns["predict"](images)).__name__}


REPLIES = {"predict": lambda images: Plain(AnyShape(range(len(images))))}
