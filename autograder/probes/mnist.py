"""Probes of 09 MNIST: the student's predictions on images chosen by the grader."""
import numpy as np


def predict(ns, images):
    """The student's `predict` on `images`; the labels never leave the grader."""
    return np.asarray(ns["predict"](images))
