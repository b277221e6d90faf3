"""Replies are untrusted: a forged reply can at most be a correct one.

For every assignment, the solution is graded once with a recording wrapper around its sandbox
(the genuine replies, and which check asked for each). Then the checks are replayed in this
process on a fake submission that returns the recorded replies, with mutations: items dropped,
empty, zero-size and broadcastable arrays, other dtypes, NaN and inf, huge strings, deep nesting,
wrong types (the errors a forger would try; not small changes of value, which checks
of statistics or thresholds rightly tolerate). Every mutated reply must fail each check that asked for it, with a message (never an
unexpected exception), unless the mutation is a no-op (an equal value), or touches only a part of
the reply that explains a verdict (schema.Hint) and still matches its schema, or changes only a
part that the check never reads when it passes (noted on the genuine replies: such a part cannot
change its verdict). One replay mutates
one reply per check at a time, so one pytest session tries many mutations; the mutations are
sampled deterministically, so that each kind is tried on each probe before any is tried twice.
"""
from __future__ import annotations

import copy
import functools
import importlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import autograder.grading.grade
import autograder.grading.judge
from autograder.sandbox import protocol
from autograder.grading.judge import GRADER_FAULT, run_checks
from autograder.probes.schema import Either, Hint, Items, Record, Table
from autograder.grading.replies import MalformedReply, spec_of, validate
from tests.grading import (COURSE, ROOT, explain, full_marks, grade_source, points,
                           solution_source)

CRASHED = GRADER_FAULT.split("{")[0]    # a check that raised: the grader's fault

ASSIGNMENTS = [a.id for a in COURSE.assignments]
SESSIONS = 5            # replays per assignment (each one mutates one reply of every check)
HUGE = "x" * 1_000_000


# -- recording the solution's genuine replies -------------------------------------------------------
def request_key(name, kwargs) -> str:
    """A probe request as canonical text: the checks are deterministic, so a replay asks again
    exactly what the recording saw asked."""
    return json.dumps(protocol.encode({"probe": name, "kwargs": kwargs}), sort_keys=True)


def current_check() -> str:
    """The name of the check (test item) that pytest is running, e.g. test_x[param]."""
    return os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[-1].rsplit(" (", 1)[0]


class Recorder:
    """A submission that passes probes on to `submission` and remembers each call."""

    def __init__(self, submission):
        self.submission, self.calls = submission, []

    def probe(self, name, **kwargs):
        reply = self.submission.probe(name, **kwargs)
        self.calls.append({"check": current_check(), "key": request_key(name, kwargs),
                           "name": name, "kwargs": kwargs, "reply": reply})
        return reply


@functools.cache
def recording(assignment_id) -> dict:
    """{"seed", "calls", "result"} of grading the solution of `assignment_id` in its sandbox."""
    recorded = {}

    def recording_run_checks(submission, assignment, seed, public=False, tasks=None, **budget):
        recorder = Recorder(submission)
        results = run_checks(recorder, assignment, seed, public, tasks, **budget)
        recorded.update(seed=seed, calls=recorder.calls)
        return results

    with tempfile.TemporaryDirectory() as folder, \
            mock.patch.object(autograder.grading.grade, "run_checks", recording_run_checks):
        recorded["result"] = grade_source(solution_source(assignment_id), assignment_id, folder)
    return recorded


class Unrecorded(Exception):
    """A replay asked for something that the recording never saw asked."""


class Replay:
    """A fake submission: the recorded replies, and `mutated` ones in place of some."""

    def __init__(self, replies: dict, mutated: dict | None = None):
        self.replies, self.mutated = replies, mutated or {}

    def probe(self, name, **kwargs):
        key = request_key(name, kwargs)
        if key in self.mutated:
            return copy.deepcopy(self.mutated[key])
        if key not in self.replies:
            raise Unrecorded(f"probe {name!r} with arguments never recorded")
        return copy.deepcopy(self.replies[key])


def replay(assignment_id, mutated=None, forge=None) -> list:
    """run_checks on the recorded replies (those of `mutated` instead, by request key; each
    passed through forge(name, reply) if given)."""
    recorded = recording(assignment_id)
    replies = {c["key"]: c["reply"] for c in recorded["calls"]}
    if forge is not None:
        replies = {c["key"]: forge(c["name"], c["reply"]) for c in recorded["calls"]}
    return run_checks(Replay(replies, mutated), COURSE.assignment(assignment_id), recorded["seed"])


# -- which parts of its replies a check reads -------------------------------------------------------
class ReadDict(dict):
    """A reply's dict that notes which of its parts are read (after validation, by a check)."""

    def __getitem__(self, key):
        self.reads.add(self.path + (key,))
        return super().__getitem__(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]


class ReadList(list):
    def __getitem__(self, index):
        for i in range(len(self))[index] if isinstance(index, slice) else [index % max(len(self), 1)]:
            self.reads.add(self.path + (i,))
        return super().__getitem__(index)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def tracked(value, reads, path=()):
    """`value` with its dicts and lists noting into `reads` the paths of the parts read."""
    if isinstance(value, (dict, list)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        children = {k: tracked(v, reads, path + (k,)) for k, v in items}
        value = ReadDict(children) if isinstance(value, dict) else ReadList(children.values())
        value.reads, value.path = reads, path
    return value


@functools.cache
def baseline(assignment_id) -> tuple:
    """(results, reads) of replaying the genuine replies; reads: {(check, request key): the paths
    of the parts of the reply that the check read}."""
    found = {}
    validated = autograder.grading.judge.Validated

    class Reading(validated):
        def probe(self, name, **kwargs):
            reply = super().probe(name, **kwargs)
            return tracked(reply, found.setdefault((current_check(), request_key(name, kwargs)), set()))

    with mock.patch.object(autograder.grading.judge, "Validated", Reading):
        results = replay(assignment_id)
    return results, found


def read(reads, check, m) -> bool:
    """Whether `check` read the part that mutation `m` changed, or a part within it, when it
    passed on the genuine replies (a part it never reads cannot change its verdict)."""
    path = tuple(m["path"])
    return not path or any(r[:len(path)] == path for r in reads.get((check, m["key"]), ()))


# -- mutations --------------------------------------------------------------------------------------
def nested(value, depth=30):
    for _ in range(depth):
        value = [value]
    return value


def node_mutations(value):
    """(kind, mutated value) for one part of a reply."""
    if isinstance(value, np.ndarray):
        first = value.flat[0] if value.size else 0
        yield "empty array", np.zeros(0, dtype=value.dtype)
        yield "zero-size (0,1,1,1)", np.zeros((0, 1, 1, 1), dtype=value.dtype)
        yield "broadcastable (1,1)", np.full((1, 1), first, dtype=value.dtype)
        yield "0-d array", np.array(first, dtype=value.dtype)
        if value.ndim != 1:
            yield "flattened", value.ravel()
        yield "extra axis", value[None]
        if value.ndim and value.shape[0]:
            yield "last row dropped", value[:-1]
        yield "float -> int" if value.dtype.kind == "f" else "-> float", \
            value.astype(np.int64 if value.dtype.kind == "f" else np.float64)
        yield "-> bool" if value.dtype != bool else "bool -> int8", \
            value.astype(bool if value.dtype != bool else np.int8)
        yield "-> float32", value.astype(np.float32)
        yield "-> str", str(value)[:1000]
        yield "-> list", value.tolist()
        if value.size and value.dtype.kind == "f":
            for kind, bad in (("NaN inserted", np.nan), ("inf inserted", np.inf)):
                changed = value.copy()
                changed.flat[value.size // 2] = bad
                yield kind, changed
    elif isinstance(value, list):
        if value:
            yield "last item dropped", value[:-1]
            yield "first item dropped", value[1:]
            yield "item repeated", value + value[-1:]
        yield "empty list", []
        yield "list -> dict", {str(i): v for i, v in enumerate(value)}
    elif isinstance(value, dict):
        keys = list(value)
        for key in dict.fromkeys(keys[:1] + keys[-1:]):
            yield f"key {key!r} dropped", {k: v for k, v in value.items() if k != key}
        yield "extra key", {**value, "extra": 1.0}
        yield "empty dict", {}
        yield "dict -> list", list(value.values())
    elif isinstance(value, bool):
        yield "flipped", not value
        yield "bool -> int", int(value)
    elif isinstance(value, int):
        yield "int + 1", value + 1
        yield "int -> float", value + 0.5
        yield "int -> bool", bool(value)
        yield "huge int", 10 ** 30
    elif isinstance(value, float):
        yield "NaN", np.nan
        yield "inf", np.inf
        yield "float -> int", int(value) if np.isfinite(value) else 0
        yield "float -> bool", bool(value)
    elif isinstance(value, str):
        yield "huge string", HUGE
        yield "empty string", ""
        yield "other string", value + "x"
    elif value is None:
        yield "None -> number", 0.0
        yield "None -> empty array", np.zeros(0)
        yield "None -> empty list", []
    if value is not None:
        yield "-> None", None
    if not isinstance(value, str):
        yield "-> str", "forged"
    yield "deep nesting", nested(value)


def parts(value, path=()):
    """(path, part) of every part of a reply: all of a dict's values, a list's first and last
    items."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from parts(item, path + (key,))
    elif isinstance(value, list) and value:
        for i in sorted({0, len(value) - 1}):
            yield from parts(value[i], path + (i,))


def replaced(value, path, new):
    if not path:
        return new
    value = copy.copy(value)
    value[path[0]] = replaced(value[path[0]], path[1:], new)
    return value


def equal(a, b) -> bool:
    """The same plain data: arrays of one dtype and shape and equal values; numbers equal (an
    int equal to a float is the same number)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype \
            and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
        return all(equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def under_hint(spec, value, path) -> bool:
    """Whether the part of `value` (which matches `spec`) at `path` lies within a Hint."""
    if isinstance(spec, Hint):
        return True
    if isinstance(spec, Either):
        for option in spec.options:
            try:
                validate(value, option)
            except MalformedReply:
                continue
            return under_hint(option, value, path)
        return False
    if not path:
        return False
    head, rest = path[0], path[1:]
    if isinstance(spec, dict):
        spec = Record(spec)
    item = {Record: lambda: spec.fields[head], Table: lambda: spec.value,
            Items: lambda: spec.item, list: lambda: spec[head]}.get(type(spec))
    return item is not None and under_hint(item(), value[head], rest)


def all_mutations(assignment_id) -> list:
    """Every mutation of every recorded reply but the no-ops, in a deterministic order that
    tries each (probe, part, kind) once before any twice:
    {"key", "checks", "name", "path", "kind", "reply", "hint"}."""
    calls = recording(assignment_id)["calls"]
    probes = importlib.import_module(COURSE.assignment(assignment_id).probes_module)
    checks = {}
    for call in calls:
        checks.setdefault(call["key"], set()).add(call["check"])
    found, seen = [], set()
    for call in calls:
        if call["key"] in seen:
            continue
        seen.add(call["key"])
        spec = spec_of(probes, call["name"], call["kwargs"])
        for path, part in parts(call["reply"]):
            for kind, new in node_mutations(part):
                if equal(new, part):
                    continue
                found.append({"key": call["key"], "checks": checks[call["key"]],
                              "name": call["name"], "path": path, "kind": kind,
                              "reply": replaced(call["reply"], path, new),
                              "hint": under_hint(spec, call["reply"], path)})
    rank, group = Counter(), []
    for m in found:     # the n-th mutation of its (probe, part, kind): tried in round n
        shape = (m["name"], tuple(p if isinstance(p, str) else "#" for p in m["path"]), m["kind"])
        group.append(rank[shape])
        rank[shape] += 1
    order = sorted(range(len(found)),
                   key=lambda i: (group[i], zlib.crc32(repr((found[i]["key"], found[i]["path"],
                                                              found[i]["kind"])).encode())))
    return [found[i] for i in order]


def sessions(mutations, count) -> list:
    """Up to `count` lists of mutations, each mutating at most one reply of any check."""
    pending, chosen = list(mutations), []
    for _ in range(count):
        busy, session, rest = set(), [], []
        for m in pending:
            if busy.isdisjoint(m["checks"]) and all(m["key"] != s["key"] for s in session):
                session.append(m)
                busy |= m["checks"]
            else:
                rest.append(m)
        if not session:
            break
        chosen.append(session)
        pending = rest
    return chosen


def statuses(results) -> dict:
    return {c["name"]: (c["status"], c["message"]) for r in results for c in r["checks"]}


# -- tests -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_genuine_replies_replayed_earn_full_marks(assignment_id):
    recorded = recording(assignment_id)
    assert points(recorded["result"]) == full_marks(assignment_id), explain(recorded["result"])
    results, _ = baseline(assignment_id)
    assert {r["id"]: r["points"] for r in results} == full_marks(assignment_id), results


def describe_mutation(m) -> str:
    return f"probe {m['name']!r}, part {list(m['path'])}, {m['kind']}"


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_every_mutated_reply_fails_its_checks(assignment_id, record_property):
    mutations = all_mutations(assignment_id)
    _, reads = baseline(assignment_id)
    tried, escaped, crashed = 0, [], []
    for session in sessions(mutations, SESSIONS):
        got = statuses(replay(assignment_id, {m["key"]: m["reply"] for m in session}))
        mutated_checks = set().union(*(m["checks"] for m in session))
        for name, (status, message) in got.items():
            if name not in mutated_checks and status != "passed":
                crashed.append(f"{name}, not mutated: {status}: {message}")
        for m in session:
            tried += 1
            for check in m["checks"]:
                status, message = got[check]
                if status not in ("passed", "failed") or CRASHED in message:
                    crashed.append(f"{describe_mutation(m)} -> {check}: {status}: {message[:300]}")
                elif status == "passed" and read(reads, check, m) and not m["hint"]:
                    escaped.append(f"{describe_mutation(m)} -> {check} passed")
    record_property("mutations", tried)
    print(f"\n{assignment_id}: {tried} mutated replies tried (of {len(mutations)} mutations)")
    assert not crashed, "\n".join(crashed[:30])
    assert not escaped, "\n".join(escaped[:30])


# -- the forgeries of issue 14 -------------------------------------------------------------------------
def test_06_replies_of_shape_0_1_1_1_earn_nothing():
    results = replay("06_optimizers", forge=lambda name, reply: np.zeros((0, 1, 1, 1)))
    assert {r["id"]: r["points"] for r in results} == dict.fromkeys(full_marks("06_optimizers"), 0.0)
    assert all(r["status"] == "failed" and "reply to probe" in r["message"] for r in results), results


# the lists of gradients in a reply (01's binary and unary send the graph instead: its edges)
GRADIENT_LISTS = ("grads", "input_grads", "parents")


def emptied_gradients(name, reply):
    """`reply` with its lists of gradients (or of graph edges) empty: the forgery of issue 14."""
    if not isinstance(reply, dict):
        return reply
    return {**reply, **{key: [] for key in GRADIENT_LISTS if isinstance(reply.get(key), list)}}


@pytest.mark.parametrize("assignment_id", ["01_scalar_autodiff", "02_matrix_autodiff"])
def test_empty_gradient_lists_earn_nothing_on_the_tasks_that_grade_gradients(assignment_id):
    recorded = recording(assignment_id)
    forged = {c["check"] for c in recorded["calls"] if emptied_gradients(c["name"], c["reply"]) != c["reply"]}
    assert forged
    results = replay(assignment_id, forge=emptied_gradients)
    for result in results:
        for check in result["checks"]:
            if check["name"] in forged:
                assert check["status"] == "failed", check
        if any(c["name"] in forged for c in result["checks"]):
            assert result["points"] == 0, result
    if assignment_id == "02_matrix_autodiff":
        assert all("grads has 0 items" in r["message"] for r in results), results


FORGED_06 = '''# %%
import sys
import numpy as np
probes = sys.modules["autograder.probes.optimizers"]
for name in ("run", "rosenbrock_paths", "sweep_plot", "loss_plot"):
    setattr(probes, name, lambda ns, **kwargs: np.zeros((0, 1, 1, 1)))
'''


def test_06_a_notebook_that_forges_every_reply_earns_nothing(tmp_path):
    """The forgery of issue 14 as a student would send it: the notebook replaces the probes."""
    result = grade_source(FORGED_06, "06_optimizers", tmp_path)
    assert points(result) == dict.fromkeys(full_marks("06_optimizers"), 0.0), explain(result)
    assert all(t["message"].startswith("reply to probe") for t in result["tasks"]), explain(result)


# -- replies that expand in memory -------------------------------------------------------------------
def items(reply) -> int:
    """The items of the message that carries `reply` (protocol.count_items, exactly)."""
    return protocol.count_items(protocol.dumps({"ok": True, "result": reply})[8:], limit=-1)


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_genuine_replies_have_a_hundredth_of_the_items_allowed(assignment_id):
    """protocol.MAX_ITEMS keeps a margin of 100 over every reply of the solutions (the largest,
    03's train, has 1,057 items)."""
    calls = recording(assignment_id)["calls"]
    largest = max(calls, key=lambda c: items(c["reply"]))
    assert items(largest["reply"]) <= protocol.MAX_ITEMS // 100, largest["name"]


def test_items_are_counted_outside_strings_exactly():
    """count_items is exact (no limit: the count that ignores strings' contents) on random
    messages whose strings hold what would count outside them: , { [ quotes and backslashes."""
    rng = np.random.default_rng(7)

    def text():
        return "".join(rng.choice(list('ab,{[]}"\\é\n'), size=rng.integers(8)))

    def value(depth=0):
        kind = rng.integers(5 if depth < 4 else 3)
        return [lambda: float(rng.normal()), text, lambda: np.arange(rng.integers(3), dtype=float),
                lambda: [value(depth + 1) for _ in range(rng.integers(4))],
                lambda: {text(): value(depth + 1) for _ in range(rng.integers(4))}][kind]()

    def expected(v):        # a container, and a comma between each two of its values
        if isinstance(v, (list, dict)):
            values = list(v.values() if isinstance(v, dict) else v)
            return 1 + max(len(values) - 1, 0) + sum(map(expected, values))
        return 0

    for _ in range(3000):
        message = protocol.encode(value())
        body = json.dumps(message, ensure_ascii=bool(rng.integers(2))).encode()
        assert protocol.count_items(body, limit=-1) == expected(message), body
    commas = json.dumps({"text": "," * 10_000_000}).encode()       # one long string: one item
    assert protocol.count_items(commas) == protocol.count_items(commas, limit=-1) == 1


RECEIVER = """
import json, re
from autograder.sandbox import protocol
try:
    protocol.receive(0, max_bytes=MAX_REPLY, timeout=120)
    refused = None
except protocol.ProtocolError as error:
    refused = str(error)
after = protocol.receive(0, max_bytes=MAX_REPLY, timeout=120)
with open("/proc/self/status") as status:   # its own peak (ru_maxrss would count the parent's)
    peak = int(re.search(r"VmHWM:\\s*(\\d+) kB", status.read())[1]) * 1024
print(json.dumps({"refused": refused, "after": after, "peak": peak}))
"""


def test_a_reply_of_millions_of_tiny_items_is_refused_before_it_is_parsed():
    """Red-team finding A5: 64 MiB of [{},{},...] (within max_reply) is 22 million dicts, which
    json.loads and decode made 4.8 GB of in the grader. It is refused, with a message that says
    why, before it is parsed: the receiving process stays well under 1 GB, and the channel in
    step (the next message is read)."""
    max_reply = COURSE.assignments[0].limits.max_reply
    count = (max_reply - 2) // 3
    body = b"[" + b"{}," * (count - 1) + b"{}]"
    assert len(body) <= max_reply
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER.replace("MAX_REPLY", str(max_reply))],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    output, _ = receiver.communicate(struct.pack(">Q", len(body)) + body +
                                     protocol.dumps({"ok": True, "result": 1}), timeout=300)
    report = json.loads(output)
    assert report["refused"] == (f"the reply has {2 * count:,} items (lists, dicts and the "
                                 f"values in them), more than the {protocol.MAX_ITEMS:,} allowed")
    assert report["after"] == {"ok": True, "result": 1}
    assert report["peak"] < 1 << 30, f"{report['peak'] / 2**20:.0f} MiB"
