"""What several assignments' checks (autograder/checks/*.py) share: relative errors between what
a submission returned and the reference, a probe whose error says what was being done, and the
naming of a known mistake that a wrong reply equals (`misconception`).

The errors never broadcast: an array of another shape than the reference (an empty one, or one
of shape (1, 1) that NumPy would stretch) is infinitely wrong, whatever its values."""
from __future__ import annotations

import numpy as np

from ..references import DERIVED
from ..sandbox.errors import ProbeError


def _arrays(got, expected) -> tuple:
    """(got, expected) as float arrays, and whether they have the same shape."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return got, expected, got.shape == expected.shape


def rel_error(got, expected) -> float:
    """max |got - expected| / (|got| + |expected|), elementwise (0 where both are equal); inf
    when got is not finite or its shape is not expected's."""
    got, expected, same = _arrays(got, expected)
    if not same:
        return float("inf")
    with np.errstate(invalid="ignore", divide="ignore"):
        error = np.abs(got - expected) / (np.abs(got) + np.abs(expected))
    error = np.where(got == expected, 0.0, error)
    return float(np.max(error, initial=0.0)) if np.all(np.isfinite(got)) else float("inf")


def floored_rel_errors(got, expected) -> np.ndarray:
    """|got - expected| / (|got| + |expected|) elementwise, with a floor of 1e-6 * max |expected|
    in the denominator for entries near zero; inf where got is not finite, and everywhere (in
    expected's shape) when got has another shape."""
    got, expected, same = _arrays(got, expected)
    if not same:
        return np.full(expected.shape, np.inf)
    floor = 1e-6 * np.max(np.abs(expected), initial=1e-300)
    with np.errstate(invalid="ignore"):
        error = np.abs(got - expected) / np.maximum(np.abs(got) + np.abs(expected), floor)
    return np.where(np.isfinite(got), error, np.inf)


def floored_rel_error(got, expected) -> float:
    """The largest of `floored_rel_errors` (inf when the shapes differ)."""
    if np.shape(got) != np.shape(expected):
        return float("inf")
    return float(np.max(floored_rel_errors(got, expected), initial=0.0))


def pairs(got, expected, what) -> list:
    """zip(got, expected), after asserting that the two lists have the same length: a reply
    with fewer items than the reference is not compared on fewer items."""
    assert len(got) == len(expected), f"{what}: {len(got)} received, {len(expected)} expected"
    return list(zip(got, expected))


def probe(submission, name, what, **kwargs):
    """submission.probe, with `what` was being done added to an error of the student's code."""
    try:
        return submission.probe(name, **kwargs)
    except ProbeError as error:
        if type(error) is not ProbeError:      # a timeout or a crash: reported as it is
            raise
        raise ProbeError(f"{error}, {what}") from None


def within(tolerance: float, error=rel_error):
    """close(got, value): the same shape and error(got, value) < tolerance, for `misconception`."""
    def close(got, value) -> bool:
        return np.shape(got) == np.shape(value) and error(got, value) < tolerance
    return close


# how a message names the known mistake that a reply equals, and each further one that gives
# the same value on these inputs
NAMES, OR_NAMES = "; it matches a known mistake: ", "; or: "
DERIVED_NAMED = 3       # derived mistakes named at most in one message


def misconception(got, expected, variants, close, part=None) -> str:
    """'; it matches a known mistake: <why>' for the known mistakes (`variants`: what
    `ref.misconceptions.f(...)` or `references.variants(...)` gave, [[id, why, value]], for the
    inputs that `expected` was computed on) whose value (its `part`: a key, an index, or a
    function of it) `got` equals by `close(got, value)`, the check's own comparison at its own
    tolerance (NAMES, and OR_NAMES '<why>' for each further one, when several mistakes give
    that value on these inputs); '' when there is none. A mistake that gives the right answer on these inputs
    (`close(expected, value)`) is never named: a reply that is right there is not one. The
    catalogue's mistakes come first: one derived from the reference's code (its id starts with
    `references.DERIVED`) is named only when none of the catalogue's is, and at most DERIVED_NAMED
    of them."""
    found, derived = [], []
    for id_, why, value in variants or ():
        try:
            if part is not None:
                value = part(value) if callable(part) else value[part]
            with np.errstate(all="ignore"):
                matches = close(got, value) and not close(expected, value)
        except (LookupError, TypeError, ValueError):    # a derived mistake of another structure
            continue
        named = derived if str(id_).startswith(DERIVED) else found
        if matches and why not in named:
            named.append(why)
    found = found or derived[:DERIVED_NAMED]
    return "".join((OR_NAMES if i else NAMES) + why for i, why in enumerate(found))
