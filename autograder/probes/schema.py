"""The words of a reply schema: what a probe may return, declared next to the probe.

Each probe module has a `REPLIES` dict: probe name -> a spec, or a function of the probe's
keyword arguments that returns one (so that a shape can be the one the grader asked for). The
grader checks every reply against it before any comparison (autograder/grading/replies.py); this module
only names the shapes of data, it judges nothing, and runs in the sandbox too (probe modules
import it).

A spec is one of these, or None (the reply must be None), a string (exactly that string), a
plain dict {key: spec} (short for Record), or a plain list [spec, ...] (a list of exactly those
items, in that order).
"""
from __future__ import annotations


class Spec:
    __slots__ = ()

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self.__slots__)})"


class Number(Spec):
    """A real number (int or float, not bool); an int when `integer`; finite when `finite`."""
    __slots__ = ("finite", "integer")

    def __init__(self, finite=True, integer=False):
        self.finite, self.integer = finite, integer


class Flag(Spec):
    """True or False."""
    __slots__ = ()


class Text(Spec):
    """A string of at most `max_len` characters, none of `other_than`."""
    __slots__ = ("max_len", "other_than")

    def __init__(self, max_len=200, other_than=()):
        self.max_len, self.other_than = max_len, tuple(other_than)


class Array(Spec):
    """A NumPy array of exactly `shape` (a tuple, None where any length goes; or None for any
    shape), of `dtype`
    ("float": float64, "int": any integer type, "bool"), all finite when `finite` (floats), of
    at most `max_size` elements."""
    __slots__ = ("shape", "dtype", "finite", "max_size")

    def __init__(self, shape, dtype="float", finite=True, max_size=10_000_000):
        self.shape = None if shape is None else tuple(None if n is None else int(n) for n in shape)
        self.dtype = dtype
        self.finite, self.max_size = finite, max_size


class Items(Spec):
    """A list of `length` items (any number up to `max_len` when length is None), each `item`."""
    __slots__ = ("item", "length", "max_len")

    def __init__(self, item, length=None, max_len=1000):
        self.item, self.length, self.max_len = item, length, max_len


class Record(Spec):
    """A dict with exactly the keys of `fields`, each value its spec."""
    __slots__ = ("fields",)

    def __init__(self, fields):
        self.fields = dict(fields)


class Table(Spec):
    """A dict of string keys, exactly `keys` when given (else at most `max_len` keys of at most
    100 characters), each value `value`."""
    __slots__ = ("value", "keys", "max_len")

    def __init__(self, value, keys=None, max_len=100):
        self.value, self.keys, self.max_len = value, None if keys is None else tuple(keys), max_len


class Either(Spec):
    """Any one of `options`."""
    __slots__ = ("options",)

    def __init__(self, *options):
        self.options = options


class Hint(Spec):
    """`spec`, for a part of the reply that the checks use only to explain a verdict (which
    mistake it looks like), never to reach one: a forged value can change a message, not a score."""
    __slots__ = ("spec",)

    def __init__(self, spec):
        self.spec = spec


def Optional(spec) -> Either:       # noqa: N802 - reads as a spec
    """None or `spec`."""
    return Either(None, spec)


def TypeName(*other_than) -> Text:             # noqa: N802
    """The name of a type that a student's code returned instead of one of `other_than` (what a
    probe reports when it cannot go on)."""
    return Text(100, other_than)


def AnyShape(*like, finite=False) -> Array:     # noqa: N802
    """An array of floats of any shape, at most 10 times as large as the largest of `like` (the
    grader's inputs): what a student's function returned, whose shape the checks compare."""
    return Array(None, finite=finite, max_size=10 * max([1] + [_size(a) for a in like]) + 100)


def _size(value) -> int:
    shape = getattr(value, "shape", None)
    if shape is None:
        return len(value) if hasattr(value, "__len__") else 1
    count = 1
    for n in shape:
        count *= int(n)
    return count


def Plain(spec) -> Either:          # noqa: N802
    """`spec`, or {"not_array": type name}: what a probe sends for a result that is no array."""
    return Either(spec, {"not_array": TypeName()})


# what figure_data() (probes/common.py) returns: the axes of the open figures
LINE = {"label": Text(500), "x": Array((None,), finite=False, max_size=100_000),
        "y": Array((None,), finite=False, max_size=100_000)}
AXES = Items({"title": Text(500), "xlabel": Text(500), "ylabel": Text(500), "xscale": Text(50),
              "yscale": Text(50), "lines": Items(LINE, max_len=100)}, max_len=100)

# what answer() (probes/common.py) returns: an answer to a question graded automatically
ANSWER = {"value": Either(None, Text(200), Number(finite=False)), "type": Hint(TypeName())}
