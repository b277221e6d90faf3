"""What several assignments' checks (autograder/checks/*.py) share: relative errors between what
a submission returned and the reference, and a probe whose error says what was being done."""
from __future__ import annotations

import numpy as np

from .errors import ProbeError


def rel_error(got, expected) -> float:
    """max |got - expected| / (|got| + |expected|), elementwise (0 where both are equal); inf
    when got is not finite."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.abs(got - expected) / (np.abs(got) + np.abs(expected))
    error = np.where(got == expected, 0.0, error)
    return float(np.max(error, initial=0.0)) if np.all(np.isfinite(got)) else float("inf")


def floored_rel_errors(got, expected) -> np.ndarray:
    """|got - expected| / (|got| + |expected|) elementwise, with a floor of 1e-6 * max |expected|
    in the denominator for entries near zero; inf where got is not finite."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    floor = 1e-6 * np.max(np.abs(expected), initial=1e-300)
    with np.errstate(invalid="ignore"):
        error = np.abs(got - expected) / np.maximum(np.abs(got) + np.abs(expected), floor)
    return np.where(np.isfinite(got), error, np.inf)


def floored_rel_error(got, expected) -> float:
    """The largest of `floored_rel_errors`."""
    return float(np.max(floored_rel_errors(got, expected), initial=0.0))


def probe(submission, name, what, **kwargs):
    """submission.probe, with `what` was being done added to an error of the student's code."""
    try:
        return submission.probe(name, **kwargs)
    except ProbeError as error:
        if type(error) is not ProbeError:      # a timeout or a crash: reported as it is
            raise
        raise ProbeError(f"{error}, {what}") from None
