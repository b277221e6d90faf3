"""Validate a probe's reply against its schema, in the grader, before any check looks at it.

A reply is whatever the submission chose to send: its process can replace a probe's code or
write to the reply channel itself. Each probe module declares what its probes return
(`REPLIES`, in the words of autograder/probes/schema.py); `Validated` wraps a submission so that
every reply is checked, and a malformed one raises `MalformedReply`, which fails its check
(autograder/grading/judge.py) with a message that says what was malformed.
"""
from __future__ import annotations

import math

import numpy as np

from ..probes.schema import Array, Either, Flag, Hint, Items, Number, Record, Spec, Table, Text
from .checking import shape_located

MAX_KEY = 100          # characters of a dict key


class MalformedReply(Exception):
    """A reply that does not match its probe's schema."""


class _Mismatch(Exception):
    def __init__(self, where, what, depth):
        super().__init__(what)
        self.where, self.what, self.depth = where, what, depth


def _kind(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"a string of {len(value):,} characters" if len(value) > 40 else f"the string {value!r}"
    if isinstance(value, (list, dict)):
        return f"a {type(value).__name__} of {len(value):,} items"
    if isinstance(value, (bool, int, float)):
        return f"{type(value).__name__} {value!r}"
    return f"a {type(value).__name__}"


def describe(spec) -> str:
    """`spec` in words, for messages."""
    if spec is None or isinstance(spec, str):
        return repr(spec)
    if isinstance(spec, dict):
        return "a dict with keys " + ", ".join(map(repr, spec))
    if isinstance(spec, list):
        return f"a list of {len(spec)} items"
    if isinstance(spec, Hint):
        return describe(spec.spec)
    if isinstance(spec, Number):
        return ("an integer" if spec.integer else "a number") + (" (finite)" if spec.finite else "")
    if isinstance(spec, Flag):
        return "True or False"
    if isinstance(spec, Text):
        return f"a string of at most {spec.max_len:,} characters" + \
            (f" other than {', '.join(map(repr, spec.other_than))}" if spec.other_than else "")
    if isinstance(spec, Array):
        if spec.shape is None:
            return f"an array of {spec.dtype}s"
        shape = "(" + ", ".join("any" if n is None else str(n) for n in spec.shape) + \
                ("," if len(spec.shape) == 1 else "") + ")"
        return f"an array of {spec.dtype}s of shape {shape}"
    if isinstance(spec, Items):
        return f"a list of {spec.length if spec.length is not None else f'at most {spec.max_len}'} items"
    if isinstance(spec, Record):
        return describe(spec.fields)
    if isinstance(spec, Table):
        return "a dict" + ("" if spec.keys is None else " with keys " + ", ".join(map(repr, spec.keys)))
    if isinstance(spec, Either):
        return " or ".join(dict.fromkeys(describe(o) for o in spec.options))
    raise TypeError(f"not a reply spec: {spec!r}")


def _fail(where, what, depth=0):
    raise _Mismatch(where, what, depth)


def _number(value, spec, where, depth):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            (spec.integer and not isinstance(value, int)):
        _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
    if spec.finite and isinstance(value, float) and not math.isfinite(value):
        _fail(where, f"is {value!r}, expected a finite number", depth)


def _array(value, spec, where, depth):
    if not isinstance(value, np.ndarray):
        _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
    kinds = {"float": value.dtype == np.float64, "int": value.dtype.kind in "iu",
             "bool": value.dtype == np.bool_}
    if not kinds[spec.dtype]:
        _fail(where, f"has dtype {value.dtype}, expected {describe(spec)}", depth)
    if spec.shape is not None and (value.ndim != len(spec.shape) or any(
            n is not None and n != m for n, m in zip(spec.shape, value.shape))):
        _fail(where, f"has shape {value.shape}, expected {describe(spec)}"
              f"{_shape_departs(value.shape, spec.shape)}", depth)
    if value.size > spec.max_size:
        _fail(where, f"has {value.size:,} elements, more than the {spec.max_size:,} allowed", depth)
    if spec.finite and spec.dtype == "float" and not np.all(np.isfinite(value)):
        _fail(where, "has values that are not finite (nan or inf), expected finite numbers", depth)


def _shape_departs(shape, wanted) -> str:
    """How `shape` departs from the `wanted` one (checking.shape_located), where the spec fixes
    every axis: transposed, off by one along an axis, an axis missing or extra."""
    return "" if any(n is None for n in wanted) else shape_located(shape, wanted)


def _check(value, spec, where, depth):
    """Raise _Mismatch at the first part of `value` that does not match `spec`."""
    if spec is None or isinstance(spec, str):
        if not (value is None if spec is None else isinstance(value, str) and value == spec):
            _fail(where, f"is {_kind(value)}, expected {spec!r}", depth)
    elif isinstance(spec, dict):
        _check(value, Record(spec), where, depth)
    elif isinstance(spec, list):
        if not isinstance(value, list) or len(value) != len(spec):
            _fail(where, (f"has {len(value):,} items, expected {len(spec)}" if isinstance(value, list)
                          else f"is {_kind(value)}, expected {describe(spec)}"), depth)
        for i, (item, item_spec) in enumerate(zip(value, spec)):
            _check(item, item_spec, f"{where}[{i}]", depth + 1)
    elif isinstance(spec, Hint):
        _check(value, spec.spec, where, depth)
    elif isinstance(spec, Number):
        _number(value, spec, where, depth)
    elif isinstance(spec, Flag):
        if not isinstance(value, bool):
            _fail(where, f"is {_kind(value)}, expected True or False", depth)
    elif isinstance(spec, Text):
        if not isinstance(value, str) or len(value) > spec.max_len or value in spec.other_than:
            _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
    elif isinstance(spec, Array):
        _array(value, spec, where, depth)
    elif isinstance(spec, Items):
        if not isinstance(value, list):
            _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
        if spec.length is not None and len(value) != spec.length or len(value) > spec.max_len:
            _fail(where, f"has {len(value):,} items, expected "
                         f"{spec.length if spec.length is not None else f'at most {spec.max_len}'}", depth)
        for i, item in enumerate(value):
            _check(item, spec.item, f"{where}[{i}]", depth + 1)
    elif isinstance(spec, Record):
        if not isinstance(value, dict):
            _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
        missing, extra = [k for k in spec.fields if k not in value], [k for k in value if k not in spec.fields]
        if missing or extra:
            _fail(where, "has " + "; ".join(
                part for part in (missing and "no key " + ", ".join(map(repr, missing)),
                                  extra and f"unexpected keys {', '.join(repr(k[:MAX_KEY]) for k in extra[:5])}")
                if part), depth)
        for key, item in spec.fields.items():
            _check(value[key], item, f"{where}[{key!r}]" if where else key, depth + 1)
    elif isinstance(spec, Table):
        if not isinstance(value, dict):
            _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
        if spec.keys is not None and sorted(value) != sorted(spec.keys):
            _fail(where, f"has keys {sorted(k[:MAX_KEY] for k in value)[:10]}, expected "
                         f"{sorted(spec.keys)}", depth)
        if len(value) > spec.max_len or any(len(k) > MAX_KEY for k in value):
            _fail(where, f"has {len(value):,} keys, expected at most {spec.max_len} keys of at most "
                         f"{MAX_KEY} characters", depth)
        for key, item in value.items():
            _check(item, spec.value, f"{where}[{key!r}]", depth + 1)
    elif isinstance(spec, Either):
        mismatches = []
        for option in spec.options:
            try:
                return _check(value, option, where, depth)
            except _Mismatch as mismatch:
                mismatches.append(mismatch)
        deepest = max(mismatches, key=lambda m: m.depth)
        if deepest.depth > depth:          # it matched an option's outline: say where it did not
            raise deepest
        _fail(where, f"is {_kind(value)}, expected {describe(spec)}", depth)
    else:
        raise TypeError(f"not a reply spec: {spec!r}")


def validate(value, spec, what="the reply") -> None:
    """Raise MalformedReply, saying which part of `value` is wrong, unless it matches `spec`."""
    try:
        _check(value, spec, "", 0)
    except _Mismatch as mismatch:
        raise MalformedReply(f"{what}: {mismatch.where or 'it'} {mismatch.what}") from None


def spec_of(probes, name, kwargs):
    """The spec of probe `name` of the probe module `probes`, for its keyword arguments."""
    spec = getattr(probes, "REPLIES", {}).get(name)
    if spec is None:
        raise MalformedReply(f"probe {name!r} of {probes.__name__} has no reply schema")
    return spec if isinstance(spec, (Spec, dict, str)) else spec(**kwargs)


class Validated:
    """A submission whose every probe reply is checked against the probe module's REPLIES."""

    def __init__(self, submission, probes):
        self.submission, self.probes = submission, probes

    def probe(self, name, **kwargs):
        spec = spec_of(self.probes, name, kwargs)
        reply = self.submission.probe(name, **kwargs)
        validate(reply, spec, f"reply to probe {name!r}")
        return reply
