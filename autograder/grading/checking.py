"""What several assignments' checks (autograder/checks/*.py) share: relative errors between what
a submission returned and the reference, an array compared with the reference (`compare`), a probe
whose error says what was being done, and the naming of a known mistake that a wrong reply
equals (`misconception`); an op probe's reply and its gradients (`node_reply`, `leaf_gradient`),
and a trained network's accuracy graded on its parameters (`on_parameters`, `assert_accuracy`).

The errors never broadcast: an array of another shape than the reference (an empty one, or one
of shape (1, 1) that NumPy would stretch) is infinitely wrong, whatever its values."""
from __future__ import annotations

import sys

import numpy as np

from .. import references
from ..references import DERIVED, OPAQUE, RANK, SITE
from ..sandbox.errors import ProbeError, ProbeTimeout
from . import training


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
    """submission.probe, with `what` was being done added to an error of the student's code, or
    to a call stopped by its own time budget."""
    try:
        return submission.probe(name, **kwargs)
    except ProbeTimeout as error:
        raise ProbeTimeout(f"{error} (the probe was {what})") from None
    except ProbeError as error:
        if type(error) is not ProbeError:      # a timeout or a crash: reported as it is
            raise
        raise ProbeError(f"{error}, {what}") from None


def within(tolerance: float, error=rel_error):
    """close(got, value): the same shape and error(got, value) < tolerance, for `misconception`."""
    def close(got, value) -> bool:
        return np.shape(got) == np.shape(value) and error(got, value) < tolerance
    return close


def compare(received, expected, what, metrics, *, tol, errors=floored_rel_errors, mistakes=(),
            part=None) -> float:
    """Assert that the array `received` (a part of a reply) is `expected`: `errors(received,
    expected)` <= tol in every entry (a non-finite error is infinite); record the largest error,
    at most 1, in metrics["max_rel_error"], and return it. The message gives the worst entry
    and names the known mistake that `received` equals (`mistakes`: what ref.misconceptions gave
    for these inputs; `part`: the part of their values that `expected` is), or else locates the
    first difference; a reply of another shape, the known mistake of that shape it equals, or
    else how its shape departs."""
    assert isinstance(received, np.ndarray), (
        f"{what} must be an array, not a {received.get('not_array', type(received).__name__)}")

    def same(a, b) -> bool:
        return errors(a, b).max() <= tol
    assert received.shape == expected.shape, (
        f"{what} has shape {received.shape}, expected {expected.shape}"
        f"{wrong_shape(received, expected, mistakes, same, part)}")
    found = errors(received, expected)
    found = np.where(np.isfinite(found), found, np.inf)
    error = float(found.max(initial=0.0))
    metrics["max_rel_error"] = max(metrics.get("max_rel_error", 0.0), min(error, 1.0))
    if error > tol:
        at = tuple(int(i) for i in np.unravel_index(int(np.argmax(found)), found.shape))
        hint = misconception(received, expected, mistakes,
                             lambda a, b: np.shape(a) == np.shape(b) and same(a, b), part)
        index = f"[{', '.join(map(str, at))}]" if at else ""
        raise AssertionError(f"{what}{index} is {received[at]:.8g}, expected "
                             f"{expected[at]:.8g} (relative error {error:.1e}){hint}")
    return error


def wrong_shape(received, expected, mistakes, close, part=None) -> str:
    """What follows "<what> has shape S, expected E": the known mistake of shape S that
    `received` equals (by `close`, the check's comparison of two arrays of one shape; a mistake
    may sum over an axis, or keep one), else how its shape departs (`shape_located`)."""
    named = misconception(received, expected, mistakes,
                          lambda a, b: np.shape(a) == np.shape(b) and close(a, b), part)
    return named if named.startswith(NAMES) else shape_located(np.shape(received),
                                                               np.shape(expected))


EXPECT_TOL = 1e-6     # `expect`'s default: values that the student and the reference compute in float64


def expect(received, expected, what, metrics, *, tol=EXPECT_TOL, mistakes=(), part=None) -> float:
    """`compare` for a number or an array of numbers that a probe returned (a check's `expect`
    fixture, with its `metrics`): the reply is made an array of floats first, and one that is
    neither (a string, a list of lists of different lengths) fails with a message that says so."""
    try:
        if isinstance(received, (str, bytes)) or np.asarray(received).dtype.kind not in "biuf":
            raise TypeError(received)
        received = np.asarray(received, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{what} must be a number or an array of numbers, not a "
                             f"{type(received).__name__}") from None
    return compare(received, np.asarray(expected, dtype=float), what, metrics, tol=tol,
                   mistakes=mistakes, part=part)


def trained_parameters(params: dict, shapes, units: str, model: str, most: int) -> dict:
    """`params`, a trained model's parameters (a reply), asserted to be those of the notebook's
    `model` of k units, 1 <= k <= `most`: the names and shapes `shapes(k)`, k the first axis of
    the parameter `units`. The grader runs its own forward pass of `model` on them."""
    found = {name: getattr(value, "shape", None) for name, value in params.items()}
    shape = found.get(units) or ()
    k = shape[0] if len(shape) == 2 and 1 <= shape[0] <= most else None
    assert k is not None and found == shapes(k), (
        f"the grader runs its own {model} with model's trained parameters, which must be those "
        f"of a {model} of k <= {most} units, {shapes('k')}; model has {found}")
    return params


# how a message names the known mistake that a reply equals, and each further one that gives
# the same value on these inputs
NAMES, OR_NAMES = "; it matches a known mistake: ", "; or: "
DERIVED_NAMED = 2       # lines whose derived mistakes a message names "one of": more, none


def misconception(got, expected, variants, close, part=None) -> str:
    """'; it matches a known mistake: <why>' for the known mistakes (`variants`: what
    `ref.misconceptions.f(...)` or `references.variants(...)` gave, [[id, why, value]], for the
    inputs that `expected` was computed on) whose value (its `part`: a key, an index, or a
    function of it) `got` equals by `close(got, value)`, the check's own comparison at its own
    tolerance (NAMES, and OR_NAMES '<why>' for each further one, when several mistakes give
    that value on these inputs); '' when there is none. A mistake that gives the right answer on these inputs
    (`close(expected, value)`) is never named: a reply that is right there is not one. The
    catalogue's mistakes come first: one derived from the reference's code (its id starts with
    `references.DERIVED`) is named only when none of the catalogue's is (`_derived_named`)."""
    found, derived = [], []
    # a lazy list (references' _Lazy) computes its derived part only when it is reached
    groups = variants.parts() if hasattr(variants, "parts") else [variants or ()]
    for group in groups:
        for id_, why, value in group:
            if found and str(id_).startswith(DERIVED):     # the catalogue named it: none derived
                break
            try:
                if part is not None:
                    value = part(value) if callable(part) else value[part]
                with np.errstate(all="ignore"):
                    matches = close(got, value) and not close(expected, value)
            except (LookupError, TypeError, ValueError, AttributeError):  # another structure
                continue
            if not matches:
                continue
            if str(id_).startswith(DERIVED):
                derived.append((str(id_), why))
            elif why not in found:
                found.append(why)
        if found:
            break
    found = found or _derived_named(derived)
    if not found:
        return located(got, expected, close)
    return "".join((OR_NAMES if i else NAMES) + why for i, why in enumerate(found))


class on_the_whole:
    """`mistakes` (as `misconception` reads them) for a reply of several parts that a check
    compares one by one: a mistake derived from the reference's code may be named only when its
    value agrees with every part of the `reply` ({key: part}), each by `close` (the check's
    comparison of one part; a mistake's part is `value_of(value, key)`). A derived mistake is a
    whole program: the student's is that program only if each part of what theirs returned is
    that program's. One that gives the failing part by a coincidence of these inputs (a factor
    that is 1 here) but leaves another part of the reply unexplained keeps its id and value with
    no explanation (None): it still counts among the lines that give the failing part, so that
    a value many unrelated changes give stays unnamed (`_derived_named`), but it is never named
    itself. The catalogue's mistakes are kept as they are (a hand-written mistake may be one of
    several in a reply); nothing is computed before a message reads it."""

    def __init__(self, mistakes, reply: dict, close, value_of=lambda value, key: value[key]):
        self._mistakes, self._reply, self._close, self._value_of = \
            mistakes, reply, close, value_of
        self._kept = []       # the groups filtered so far: each part's compared once

    def _agrees(self, value) -> bool:
        try:
            with np.errstate(all="ignore"):
                return all(self._close(np.asarray(got), np.asarray(self._value_of(value, key)))
                           for key, got in self._reply.items())
        except (LookupError, TypeError, ValueError, AttributeError):  # another structure
            return False

    def parts(self):
        mistakes = self._mistakes
        groups = mistakes.parts() if hasattr(mistakes, "parts") else [mistakes or ()]
        for i, group in enumerate(groups):
            if i == len(self._kept):
                self._kept.append([m if not str(m[0]).startswith(DERIVED) or self._agrees(m[2])
                                   else [m[0], None, m[2]] for m in group])
            yield self._kept[i]

    def __iter__(self):
        for group in self.parts():
            yield from group


def another_part(got, parts: dict, what: str, close) -> str | None:
    """The name of the part of a reply's expected `parts` ({name: value}), other than `what`,
    whose value `got` (the reply's `what`) is, by `close`; None where there is none: a result
    returned in another's place (dgamma and dbeta in each other's), which no change to the
    computation of `what` explains."""
    for name, value in parts.items():
        if name != what and np.shape(got) == np.shape(value) and _close(close, got, value) and \
                not _close(close, got, parts[what]):
            return name
    return None


def diagnosed(name: str, why: str) -> str:
    """The end of a message that names the mistake `name` which the calling check recognises by
    what the code does (`references.behaviour`, registered in its notebook's catalogue): NAMES +
    `why`, the form and the words of every known mistake, which the class report ranks. Call it
    at import time, in the checks module, so that the catalogue has it before any message."""
    module = sys._getframe(1).f_globals["__name__"]
    return NAMES + references.behaviour(name, why, module).why


def _derived_named(matches: list) -> list:
    """The explanations to name of the derived mistakes [(id, why)] that a reply equals: of each
    line changed (the id's site, derived.SITE), those of its best rank (a mutation that gives
    what a simpler, more common one of the same line gives defers to it: wording.rank), at most
    DERIVED_NAMED; none when more lines give the reply by changes of different kinds
    (wording.kind: unrelated changes that all give this value say nothing about which the
    student made, and the message locates the difference instead). A line whose best change
    has rank OPAQUE (its explanation says only the kinds of what was dropped or swapped) counts
    among the lines, and is not named: the message locates the difference instead; so does a
    mistake without an explanation (None: `on_the_whole`, one that explains only this part)."""
    best = {}
    for id_, why in matches:
        site, _, rank = id_.rpartition(SITE)[2].rpartition(RANK)
        rank, _, kind = rank.partition(".")
        rank = int(rank) if rank.isdigit() else 0
        if site not in best or rank < best[site][0]:
            best[site] = (rank, [])
        if rank == best[site][0] and (kind, why) not in best[site][1]:
            best[site][1].append((kind, why))
    named = [pair for _, pairs in best.values() for pair in pairs]
    if len(best) > DERIVED_NAMED and len({kind for kind, _ in named}) > 1:
        return []
    # each line's first, the simplest lines first, before a line's further ones; a line whose
    # best change only says the kinds of what it dropped or swapped (OPAQUE) is not named
    lines = sorted((line for line in best.values() if line[0] < OPAQUE), key=lambda line: line[0])
    ordered = [pairs[0] for _, pairs in lines] + [p for _, pairs in lines for p in pairs[1:]]
    return [why for _, why in ordered if why is not None][:DERIVED_NAMED]


# how a message starts the sentence that says where a reply that no mistake names goes wrong
LOCATED = ". The first difference"


def located(got, expected, close=None) -> str:
    """'. The first difference ...': one sentence on where `got` departs from `expected`, for a
    reply that no known mistake names; '' where nothing can be said (another shape, no numbers).

    A list or dict: its first item that differs (by `close`, else 1e-6 relative), then that
    item. Numbers: the square root or the square of each positive value; a constant factor
    (got = c expected, c = <got, expected> / <expected, expected>, also said as n or 1/n when it
    is one); a constant offset; a transpose; the order reversed along an axis; a shift by one
    along an axis; else the first entry that differs (in C order) and how many entries differ,
    and the one index along an axis that holds them all."""
    close = close or within(1e-6)
    if _close(close, got, expected):
        return ""
    try:
        if isinstance(got, dict) and isinstance(expected, dict):
            for name in expected:
                if name in got and not _close(close, got[name], expected[name]):
                    inner = located(got[name], expected[name], close)
                    return f"{LOCATED} is in {name!r}" + (inner and located_within(inner) or ".")
            return ""
        if isinstance(got, (list, tuple)) and isinstance(expected, (list, tuple)) and \
                len(got) == len(expected) and _nested(expected):
            for i, (a, b) in enumerate(zip(got, expected)):
                if not _close(close, a, b):
                    inner = located(a, b, close)
                    return f"{LOCATED} is in item {i}" + (inner and located_within(inner) or ".")
            return ""
        got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return ""
    return _array_located(got, expected)


def _close(close, a, b) -> bool:
    try:
        with np.errstate(all="ignore"):
            return bool(close(a, b))
    except (TypeError, ValueError, LookupError):
        return False


def _nested(items) -> bool:
    """Whether a list holds arrays, lists or dicts (compared item by item), not only numbers."""
    return any(isinstance(item, (list, tuple, dict, np.ndarray)) for item in items)


def located_within(sentence: str) -> str:
    """The rest of a locating `sentence`, to follow a more precise place: '. The first difference
    is X' -> ', X'; '. The first difference: X' -> ': X'."""
    rest = sentence[len(LOCATED):]
    return ", " + rest[len(" is "):] if rest.startswith(" is ") else rest


def shape_located(got, expected) -> str:
    """'. The first difference is in the shape ...': one sentence on how the shape `got` of a
    reply departs from the `expected` one, '' where they are equal or nothing simple says it:

        (5, 1) for (1, 5)      the expected shape transposed (its axes in reverse order)
        (2, 11) for (2, 9)     along axis 1 only: 11 entries, expected 9 (2 too many); a difference
                               of one is "off by one"
        (1, 2, 2, 2) for       along axes 2 and 3: 2 and 2 entries, expected 3 and 3 (one too
        (1, 2, 3, 3)           few on each, off by one); an axis of none is "empty"
        (1, 6, 5, 3) for       the expected lengths of the axes, in another order
        (1, 3, 6, 5)
        () for (3,)            axis 0 (of length 3) missing: summed over, or dropped; so for
                               several axes, and () for (1, 3) is one number where every axis
                               belongs
        (1000, 10) for (1000,) an extra axis 1, of length 10; so for several"""
    got, expected = tuple(got), tuple(expected)
    start = f"{LOCATED} is in the shape"
    if got == expected:
        return ""
    if len(got) == len(expected):
        if len(got) > 1 and got == expected[::-1]:
            return f"{start}: the received shape is the expected one transposed."
        if sorted(got) == sorted(expected):
            return f"{start}: it has the expected lengths of the axes, in another order."
        axes = [k for k in range(len(got)) if got[k] != expected[k]]
        if len(axes) == 1:
            k = axes[0]
            return f"{start}, along axis {k} only: {got[k]} entries, expected {expected[k]} " \
                f"({_how_many(got[k] - expected[k])})."
        more = {got[k] - expected[k] for k in axes}
        how = [_how_many(more.pop(), " on each")] if len(more) == 1 else []
        how += ["empty"] * (0 in (got[k] for k in axes))
        return f"{start}, along axes {_and(axes)}: {_and([got[k] for k in axes])} entries, " \
            f"expected {_and([expected[k] for k in axes])}" + (f" ({', '.join(how)})" if how else "") + "."
    missing, extra = _left_out(got, expected), _left_out(expected, got)
    if missing is not None and len(missing) == 1:
        k = missing[0]
        return f"{start}: axis {k} (of length {expected[k]}) is missing: summed over, or dropped."
    if missing is not None:
        lengths = _and([expected[k] for k in missing])
        if not got:
            return f"{start}: one number, where every axis (of lengths {lengths}) belongs: " \
                "summed over, or dropped."
        return f"{start}: axes {_and(missing)} (of lengths {lengths}) are missing: summed over, " \
            "or dropped."
    if extra is not None and len(extra) == 1:
        return f"{start}: an extra axis {extra[0]}, of length {got[extra[0]]}."
    if extra is not None:
        return f"{start}: extra axes {_and(extra)}, of lengths {_and([got[k] for k in extra])}."
    return ""


def _left_out(shorter: tuple, longer: tuple) -> list | None:
    """The axes of `longer` that `shorter` leaves out when it is `longer` without them, else
    None: its lengths matched from the end, so that of equal lengths the first ones are left out
    ((3,) of (3, 3) leaves out axis 0)."""
    if len(shorter) >= len(longer):
        return None
    left, i = [], len(shorter)
    for k in reversed(range(len(longer))):
        if i > 0 and shorter[i - 1] == longer[k]:
            i -= 1
        else:
            left.append(k)
    return sorted(left) if i == 0 else None


def _how_many(more: int, each: str = "") -> str:
    """'2 too many', 'one too few, off by one' (`each` after the count: ' on each')."""
    return f"one too {'many' if more > 0 else 'few'}{each}, off by one" if abs(more) == 1 else \
        f"{abs(more)} too {'many' if more > 0 else 'few'}{each}"


def _and(items) -> str:
    """'1', '1 and 2', '1, 2 and 3'."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def keys_located(got, expected) -> str:
    """'. The first difference is in the keys: ...': which keys of a dict `got` are not among the
    `expected` ones, and which of those are missing ("" when the two sets are equal)."""
    extra, missing = sorted(set(got) - set(expected)), sorted(set(expected) - set(got))
    parts = [f"{_few_keys(extra)} {'is' if len(extra) == 1 else 'are'} not expected"] * bool(extra) \
        + [f"{_few_keys(missing)} {'is' if len(missing) == 1 else 'are'} missing"] * bool(missing)
    return f"{LOCATED} is in the keys: {', and '.join(parts)}." if parts else ""


def _few_keys(keys, most=3) -> str:
    return ", ".join(map(repr, keys[:most])) + (f" and {len(keys) - most} more"
                                                if len(keys) > most else "")


def _array_located(got, expected) -> str:
    if got.shape != expected.shape or got.size == 0:
        if got.ndim == 2 and got.T.shape == expected.shape and np.allclose(got.T, expected):
            return f"{LOCATED}: the received array is the expected one transposed."
        return shape_located(got.shape, expected.shape)
    if not np.all(np.isfinite(got)):
        first = np.unravel_index(np.argmin(np.isfinite(got)), got.shape)
        return f"{LOCATED} is a non-finite value ({got[first]}) at index {_index(first)}."
    scale = float(np.vdot(got, expected) / np.vdot(expected, expected)) \
        if np.any(expected) else 0.0
    if np.all(expected > 0) and np.all(got > 0):
        for power, words in ((0.5, "the square root of"), (2, "the square of")):
            if not np.allclose(expected, 1) and np.allclose(got, expected ** power, rtol=1e-6,
                                                            atol=0):
                return f"{LOCATED}: every received value is {words} the expected one."
    if scale and not np.isclose(scale, 1) and np.allclose(got, scale * expected, rtol=1e-6, atol=0):
        return f"{LOCATED}: every received value is {_factor(scale)} times the expected one."
    offset = got - expected
    if got.size > 1 and np.allclose(offset, offset.flat[0], rtol=1e-6, atol=0):
        shift = offset.flat[0]
        return (f"{LOCATED}: every received value is the expected one "
                f"{'plus' if shift > 0 else 'minus'} {abs(shift):.6g}.")
    if got.ndim == 2 and got.shape[0] == got.shape[1] and np.allclose(got, expected.T):
        return f"{LOCATED}: the received array is the expected one transposed."
    for axis in range(got.ndim):
        if got.shape[axis] > 1 and np.allclose(got, np.flip(expected, axis)):
            return (f"{LOCATED}: the received values are the expected ones in reverse order"
                    + (f" along axis {axis}." if got.ndim > 1 else "."))
    for axis in range(got.ndim):
        n = got.shape[axis]
        if n > 2:
            for k, words in ((1, "one place later"), (-1, "one place earlier")):
                early = np.take(got, range(max(k, 0), n + min(k, 0)), axis=axis)
                late = np.take(expected, range(max(-k, 0), n + min(-k, 0)), axis=axis)
                if np.allclose(early, late):
                    return (f"{LOCATED}: the received values are the expected ones shifted by one "
                            f"along axis {axis} (each received entry is the expected entry "
                            f"{words}).")
    wrong = ~np.isclose(got, expected, rtol=1e-6, atol=1e-9 * np.max(np.abs(expected)))
    if not wrong.any():
        return ""
    first = np.unravel_index(np.argmax(wrong), got.shape)
    sentence = (f"{LOCATED} is at index {_index(first)}: expected {expected[first]:.6g}, "
                f"received {got[first]:.6g}; {int(wrong.sum())} of {wrong.size} entries differ")
    for axis in range(got.ndim if got.ndim > 1 else 0):
        rows = np.flatnonzero(wrong.any(axis=tuple(a for a in range(got.ndim) if a != axis)))
        if len(rows) == 1:
            sentence += f", all at index {rows[0]} along axis {axis}"
            break
    return sentence + "."


def _factor(scale: float) -> str:
    """`scale` as a number, and as n or 1/n when it is one (to 1e-6): '0.0833333 (1/12)'."""
    for n in range(2, 1001):
        for value, words in ((n, str(n)), (-n, f"-{n}"), (1 / n, f"1/{n}"), (-1 / n, f"-1/{n}")):
            if abs(scale - value) <= 1e-6 * abs(value):
                return f"{scale:.6g}" + ("" if words == f"{scale:.6g}" else f" ({words})")
    return f"{scale:.6g}"


def _index(index) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


# -- accuracy on held-out digits (09, 14) --------------------------------------------------------------
def bar_and_floor(assignment, source: str) -> tuple:
    """(bar, floor) of the data source: full MNIST (`accuracy_full`, `accuracy_full_floor`), or the
    5,000-digit subset (`accuracy`, `accuracy_floor`), from the assignment's thresholds."""
    key = "accuracy_full" if source.startswith("full") else "accuracy"
    return assignment.thresholds[key], assignment.thresholds[key + "_floor"]


def credit(accuracy: float, bar: float, floor: float) -> float:
    """The share of the points: (accuracy - floor) / (bar - floor), clipped to [0, 1]."""
    return float(np.clip((accuracy - floor) / (bar - floor), 0.0, 1.0))


def node_reply(out: dict, function: str, expected_shape) -> dict:
    """An op probe's reply (`probes.dp_common.value_and_gradients`), asserted to be a Node of
    the expected shape, with gradients; `function` names the call in the messages."""
    assert out.get("type") == "Node", (
        f"{function} must return a Node (made with custom_op), not a {out.get('type')}")
    if out["grads"] is None:   # the probe sends gradients only for a value of g's shape
        shape = getattr(out["value"], "shape", None)
        raise AssertionError(f"{function} returned a value of shape {shape}, expected "
                             f"{expected_shape}"
                             + (shape_located(shape, expected_shape) if shape is not None else ""))
    return out


def leaf_gradient(out: dict, leaf: str, function: str):
    """The gradient of `leaf` in an op probe's reply, asserted to be there."""
    grad = out["grads"].get(leaf)
    assert grad is not None, (
        f"no gradient reaches {leaf} through {function}: pass ({leaf}, backward) to custom_op")
    return grad


def on_parameters(network, predicted, labels, public, agreement, derived) -> tuple:
    """``(accuracy, how)`` of a trained network graded on its parameters: the share of `labels`
    that `network` (its digits: the grader's forward pass on the trained parameters, the
    network's own in the self-check) gets right. Where predict(x)'s digits `predicted` differ
    from the network's on more than 1 - `agreement` of the images, the lower accuracy counts and
    `how` says so, naming the mistake when grading (``derived()``: the digits of the derived
    mistakes, computed only then)."""
    accuracy = float(np.mean(network == labels))
    how = ("graded on your network's trained parameters" +
           (" (run by the grader when graded)" if public else ", run by the grader"))
    disagree = float(np.mean(predicted != network))
    if disagree > 1 - agreement:      # predict must be the network's: else the lower counts
        accuracy = min(accuracy, float(np.mean(predicted == labels)))
        how += (f". The first difference is in predict(x): it is not your network's most "
                f"probable digit on {disagree:.0%} of the images" + ("" if public else misconception(
                    predicted, network, derived(), lambda a, b: np.mean(a == b) >= agreement)))
    return accuracy, how


def assert_accuracy(accuracy: float, how: str, digits: int, assignment, source: str,
                    metrics) -> None:
    """Record `accuracy` and its credit (steps of 1%, `credit` between the floor and the bar of
    `bar_and_floor`) in `metrics`, and assert that it reaches the bar, saying `how` it was graded."""
    bar, floor = bar_and_floor(assignment, source)
    metrics["accuracy"] = accuracy
    metrics["credit"] = float(np.floor(100 * credit(accuracy, bar, floor) + 1e-9) / 100)
    assert accuracy >= bar, (
        f"test accuracy {accuracy:.4f} on {digits:,} digits is below the required {bar}: "
        f"{metrics['credit']:.0%} of the points (none at {floor} or below, all at {bar}); {how}")


CHANCE = 0.2      # a network at or below this on its own training digits has learned nothing


def notebook_split(digits) -> tuple:
    """(validation, training) indices of 09's and 14's split of dp.data.mnist's training digits
    (their given cell): the first tenth in the order of default_rng(0).permutation, the rest."""
    order = np.random.default_rng(0).permutation(len(digits.x_train))
    return order[:len(order) // 10], order[len(order) // 10:]


def below_the_bar(submission, digits, assignment, network, labels, public, graders_digits,
                  layers, named) -> str:
    """on_training_digits' sentence for a network whose own digits `network` (for the test
    `labels`) are below the bar, then the first stage of its training that departs (the
    probe `training`, judged by grading/training.py with `layers`, the network as plain data,
    and `named`, its checks module's diagnoses of training.WHY); else "" (a predict that is not the
    network's is told so apart). Its digits of other images: the notebook's forward (the probe
    `network`) in the self-check, `graders_digits(images)`, the grader's forward pass on its
    parameters, when grading."""
    bar = bar_and_floor(assignment, digits.source)[0]
    if np.mean(network == labels) >= bar:
        return ""
    rows = notebook_split(digits)[1][:training.SAMPLE]
    reply = submission.probe("training", images=digits.x_train[rows],
                             onehot=np.eye(10)[digits.y_train[rows]])
    return on_training_digits(digits, bar, lambda images: submission.probe(
        "network", images=images).get("digits") if public else graders_digits(images)) + \
        training.first_difference(reply, digits, rows, layers, named)


def on_training_digits(digits, bar, network_digits, sample=1000) -> str:
    """Where a network below the bar on the test digits went wrong, as a sentence: its accuracy on
    `sample` of the notebook's own training digits (`notebook_split`), whose digits
    `network_digits(images)` gives (None when it gives none: then ""). At chance there, the
    training did not learn; below the bar there too, it learned too little; above it, it fits
    its training digits only."""
    order = notebook_split(digits)[1][:sample]
    labels = digits.y_train[order]
    found = network_digits(digits.x_train[order])
    if found is None:           # the notebook's forward refused these digits: nothing to say
        return ""
    fit = float(np.mean(np.asarray(found) == labels))
    said = f". On {len(labels):,} of its own training digits the network scores {fit:.3f}: "
    if fit <= CHANCE:
        return said + ("no better than chance, so the training itself did not learn (look at "
                       "the learning rate, the loss and the order of its arguments, and the "
                       "one-hot labels, in the order of the images)")
    if fit < bar:
        return said + ("it learned, but too little even on the digits it trained on (more steps, "
                       "a larger learning rate, or a larger network)")
    return said + "it fits the digits it trained on, but not new ones (it overfits)"


def digit_labels(predicted, labels) -> np.ndarray:
    """`predicted` (a reply of predict(x)), asserted to be one number per label in `labels`."""
    assert isinstance(predicted, np.ndarray) and predicted.shape == labels.shape, (
        f"predict(x) must return an array of {len(labels)} labels, one per image; "
        f"it returned {type(predicted).__name__} of shape {getattr(predicted, 'shape', None)}"
        f"{shape_located(predicted.shape, labels.shape) if isinstance(predicted, np.ndarray) else ''}")
    assert np.issubdtype(predicted.dtype, np.number), (
        f"predict(x) must return digits 0-9, not {predicted.dtype} values")
    return predicted


def assert_log_scale_and_labels(ax, axis, plot, not_log, what, name="ax") -> None:
    """The `axis` ("x" or "y") of the `plot`'s axes (the figure data `ax`, drawn on the notebook's
    axes `name`) is logarithmic, else the message ends with `not_log` (the calling check's
    `diagnosed` mistake); and both axes are labelled."""
    assert ax[f"{axis}scale"] == "log", f"the {axis} axis of the {plot} is {ax[f'{axis}scale']}{not_log}"
    assert ax["xlabel"].strip() and ax["ylabel"].strip(), (
        f"label both axes of the {plot} ({name}.set_xlabel, {name}.set_ylabel): {what}")
