"""Replies are untrusted, and so is what they cost the grader to read (issue 31).

Beside the reply fuzzer (tests/test_reply_fuzzer.py, which asks that a forged reply earn
nothing), this one asks that no reply costs the checks more than their budget. Every check of
every assignment runs in this process on a fake submission that answers each probe with a reply
that matches the probe's schema (autograder/probes/schema.py, `REPLIES`) and is shaped to make
work: every list at its cap, every array at its largest legal size, numbers large or one, and
for 01's graphs (binary, unary) a 10,000-node chain with the most duplicate edges allowed,
wide fan-in, and a ladder of 2^10,000 paths. The replies go through the protocol (encoded, as
JSON, decoded), as the grader receives them, within its limits (MAX_ITEMS items, max_reply bytes).

Each session (one way of shaping) replays the checks of an assignment: their CPU time in all,
the grader's work on one submission that replied so to every probe, stays within the
assignment's grader_cpu_limit; and each check within its share of it (the limit over the number
of checks). Making a reply is the submission's work and is not counted; receiving it (JSON,
decoding, the schema) is the grader's and is. The worst case of each check is printed (-s) and
recorded as the test's property `worst`. Worst cases (2 cores, shared): 01's binary and unary
checks 0.2-0.5 s each (a 10,000-node graph: decoding 0.13 s, schema 0.05 s, chain rule 0.04 s);
every other check below 0.6 s, most below 0.1 s.

A check reads a reply only until it fails on it: shapes that the schema accepts but whose
values are wrong stop most checks early. Work that a check would do only on right values is
measured by the honest replies of the other tests, not here.
"""
from __future__ import annotations

import functools
import importlib
import json
import os
import time

import numpy as np
import pytest

from autograder.grading.judge import GRADER_FAULT, run_checks
from autograder.grading.replies import spec_of
from autograder.probes import scalar_autodiff as probes01
from autograder.probes.schema import Array, Either, Flag, Hint, Items, Number, Record, Table, Text
from autograder.sandbox import protocol
from tests.grading import COURSE

CRASHED = GRADER_FAULT.split("{")[0]    # a check that raised: the grader's fault

ASSIGNMENTS = [a.id for a in COURSE.assignments]
ROOM = protocol.MAX_ITEMS - 1000        # the items a reply may have (a margin for the envelope)
SHAPES = ("large", "ones")              # how numbers are chosen, in every reply
GRAPHS = ("chain", "fan-in", "ladder")  # 01's graphs, at MAX_NODES nodes of MAX_PARENTS edges


def array_room(assignment) -> int:
    """Elements of float64 that a reply may carry: base64 takes 4 bytes for 3, in max_reply."""
    return assignment.limits.max_reply * 3 // 4 // 8 - 1000


def number(spec: Number, shape: str):
    if spec.integer:
        return 2 ** 62 if shape == "large" else 1
    return 1e300 if shape == "large" else 1.0


def array(spec: Array, shape: str, elements: int) -> np.ndarray:
    """The largest array of `spec` within `elements` (the dimensions left open shared alike)."""
    size = min(spec.max_size, elements)
    dims = list(spec.shape) if spec.shape is not None else [None]
    fixed = int(np.prod([n for n in dims if n is not None])) if any(n is not None for n in dims) else 1
    open_dims = sum(n is None for n in dims)
    each = int((size // max(fixed, 1)) ** (1 / open_dims)) if open_dims else 0
    full = tuple(n if n is not None else max(each, 1) for n in dims)
    dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_}[spec.dtype]
    value = {"float": 1e300, "int": 2 ** 62, "bool": True}[spec.dtype] if shape == "large" else 1
    return np.full(full, value, dtype=dtype)


def costly(spec, shape: str, room: int, elements: int):
    """(a value of `spec` shaped to make work, its items) within `room` items and `elements`
    array elements."""
    if spec is None or isinstance(spec, str):
        return spec, 0
    if isinstance(spec, dict):
        spec = Record(spec)
    if isinstance(spec, Hint):
        return costly(spec.spec, shape, room, elements)
    if isinstance(spec, Number):
        return number(spec, shape), 0
    if isinstance(spec, Flag):
        return True, 0
    if isinstance(spec, Text):
        text = "x" * spec.max_len
        return (text if text not in spec.other_than else "y" * spec.max_len), 0
    if isinstance(spec, Array):
        return array(spec, shape, elements), 0
    if isinstance(spec, list):
        parts = [costly(s, shape, room // max(len(spec), 1), elements // max(len(spec), 1))
                 for s in spec]
        return [v for v, _ in parts], len(spec) + sum(c for _, c in parts)
    if isinstance(spec, Record):
        n = max(len(spec.fields), 1)
        parts = {k: costly(s, shape, room // n, elements // n) for k, s in spec.fields.items()}
        return {k: v for k, (v, _) in parts.items()}, n + sum(c for _, c in parts.values())
    if isinstance(spec, Items):
        most = spec.length if spec.length is not None else spec.max_len
        one, cost = costly(spec.item, shape, max(room // max(most, 1) - 1, 1),
                           elements // max(most, 1))
        count = most if spec.length is not None else max(0, min(most, room // (cost + 1)))
        return [one] * count, count * (cost + 1)
    if isinstance(spec, Table):
        keys = list(spec.keys) if spec.keys is not None else [f"k{i}" for i in range(spec.max_len)]
        n = max(len(keys), 1)
        one, cost = costly(spec.value, shape, room // n - 1, elements // n)
        return dict.fromkeys(keys, one), n * (cost + 1)
    if isinstance(spec, Either):       # the option that makes the most
        options = [costly(o, shape, room, elements) for o in spec.options]
        return max(options, key=lambda o: (o[1], _elements(o[0])))
    raise TypeError(f"not a reply spec: {spec!r}")


def _elements(value) -> int:
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, dict):
        return sum(map(_elements, value.values()))
    if isinstance(value, list):
        return sum(map(_elements, value[:1])) * len(value)
    return 0


def graph(how: str, operands: list) -> dict:
    """A reply of 01's binary/unary: MAX_NODES nodes of MAX_PARENTS edges each. chain: each node
    to the next, every edge duplicated; fan-in: each node to the next and to the last; ladder:
    each node to the next two (2^n paths from the output to the last node)."""
    n, p = probes01.MAX_NODES, probes01.MAX_PARENTS
    nexts = {"chain": lambda k: [k + 1] * p,
             "fan-in": lambda k: [k + 1] * (p - 1) + [n - 1],
             "ladder": lambda k: [k + 1, min(k + 2, n - 1)] * (p // 2)}[how]
    parents = [[[i, 1.0] for i in nexts(k)] for k in range(n - 1)] + [[]]
    spots = iter([n - 1, n - 2])
    return {"type": "Scalar", "value": 1.0, "parents": parents,
            "operands": [None if side is None else next(spots) for side in operands]}


def encoded(value):
    """protocol.encode(value), each part encoded once however often a list repeats it (a costly
    reply is mostly one item many times): the same JSON, made faster."""
    if isinstance(value, list):
        if value and all(v is value[0] for v in value):
            return [encoded(value[0])] * len(value)
        return [encoded(v) for v in value]
    if isinstance(value, dict):
        return {k: encoded(v) for k, v in value.items()}
    return protocol.encode(value)


def current_check() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].rsplit(" (", 1)[0]


class Costly:
    """A submission whose every reply is `costly` for its probe's schema (or, for 01's graphs
    with a `graph` shape, that graph), received as the grader receives it. `spent`: the CPU
    seconds of each check, but for making the replies (which the submission does)."""

    def __init__(self, assignment, shape):
        self.probes = importlib.import_module(assignment.probes_module)
        self.assignment, self.shape = assignment, shape
        self.spent, self.last, self.sent = {}, None, {}

    def probe(self, name, **kwargs):
        now = time.process_time()
        self._charge(now)
        spec = spec_of(self.probes, name, kwargs)
        if self.shape in GRAPHS and name in ("binary", "unary"):
            key = [None if kwargs.get("number") == s else s for s in ("left", "right")] \
                if name == "binary" else ["x"]
            make = functools.partial(graph, self.shape, key)
        else:
            key = repr(spec)
            make = functools.partial(costly, spec, self.shape if self.shape in SHAPES else "ones",
                                     ROOM, array_room(self.assignment))
        key = repr((name if self.shape in GRAPHS else "", key))
        if key not in self.sent:        # the same reply to the same schema: made once
            reply = make()
            reply = reply[0] if isinstance(reply, tuple) else reply
            self.sent[key] = json.dumps({"ok": True, "result": encoded(reply)}).encode()
        sent = self.sent[key]
        assert len(sent) <= self.assignment.limits.max_reply
        self.last = (current_check(), time.process_time())     # receiving is the grader's
        assert protocol.count_items(sent) <= protocol.MAX_ITEMS
        return protocol.decode(json.loads(sent))["result"]

    def _charge(self, now):
        if self.last is not None:
            check, since = self.last
            self.spent[check] = self.spent.get(check, 0.0) + now - since
        self.last = None


def sessions(assignment_id) -> list:
    """(shape, the tasks whose checks run, None: all). 01's graphs cost every binary/unary
    check alike (0.2-0.5 s): the chain is tried on all of them, the others on the functions'."""
    if assignment_id != "01_scalar_autodiff":
        return [(shape, None) for shape in SHAPES]
    return [(shape, None) for shape in (*SHAPES, "chain")] + \
        [(shape, ["scalar_functions"]) for shape in GRAPHS if shape != "chain"]


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_no_reply_costs_the_checks_more_than_their_budget(assignment_id, record_property):
    assignment = COURSE.assignment(assignment_id)
    budget = assignment.limits.grader_cpu_limit
    worst, totals, crashed = {}, {}, []
    for shape, tasks in sessions(assignment_id):
        submission = Costly(assignment, shape)
        start = time.process_time()
        results = run_checks(submission, assignment, COURSE.grading_seed, tasks=tasks)
        totals[shape] = time.process_time() - start
        submission._charge(time.process_time())
        for check, seconds in submission.spent.items():
            if seconds > worst.get(check, (0.0, ""))[0]:
                worst[check] = (seconds, shape)
        crashed += [f"{shape}: {c['name']}: {c['message'][:200]}" for r in results
                    for c in r["checks"] if CRASHED in c["message"]]
    checks = max(len(worst), 1)
    table = sorted(worst.items(), key=lambda item: -item[1][0])
    print(f"\n{assignment_id}: CPU per session " + ", ".join(f"{s} {t:.2f} s" for s, t in totals.items())
          + f" (budget {budget:g} s); worst checks: "
          + "; ".join(f"{c} {s:.2f} s ({how})" for c, (s, how) in table[:5]))
    record_property("worst", json.dumps({c: [round(s, 3), how] for c, (s, how) in table}))
    assert max(totals.values()) <= budget, totals
    assert all(s <= budget / checks for s, _ in worst.values()), table[:5]
    assert not crashed, "\n".join(crashed[:20])
