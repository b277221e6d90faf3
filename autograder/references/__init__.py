"""The reference computations of the checks, and the catalogue of known mistakes: the grader's side only, never in the student bundle (but this proxy).
May import: `sandbox.protocol` (arguments and results are plain data), NumPy and dp.
Must never import: grading, reports, authoring, platforms, the checks (which call it), nor any student's code.

Whatever a check computes that would answer a task (a backward pass, a loss, an optimizer's
step, a recurrent state) lives in `autograder/references/<notebook>.py`, not in the check. A
check reaches it through a proxy:

    from autograder import references
    ref = references.of(__name__)            # at the top of autograder/checks/<notebook>.py
    ...
    expected = ref.gradients(activation, params, x, y)
    hint = ref.hint.sigmoid_of_minus(z)      # only used to word a message (see below)

When grading, and in the repository, `ref.f(...)` calls `f` of the reference module. In the
student bundle the reference modules are absent: `ref` replays the **public cases**, the values
these calls returned for the public seed, recorded when the bundle was built (`record`) and
shipped as `autograder/public_cases/<notebook>.json`. A call is looked up by its function's name
and its arguments, so the self-check gives the verdicts that grading with the public seed gives,
without the code that computed them.

Rules for a reference function:
- it is pure: its result depends on its arguments only;
- its arguments and its result are plain data (`protocol`: numbers, strings, lists, string-keyed
  dicts, numeric arrays); tuples come back as lists, in every mode alike;
- its arguments come from the check's own inputs (the rng, the public cases), never from a
  student's reply: a call on a reply's values could not be recorded for every student. Where a
  check must recompute from the student's own values, it does so with dp's public API, which
  the bundle has anyway, or checks a property of the reply instead of recomputing it.

`ref.hint.f(...)` is for calls whose only use is to word a message (a diagnosis: "your gradient
is sigmoid(-x)'s"). In the bundle, a hint that was not recorded returns None instead of
failing; a check must then word its message without it. A plain `ref.f(...)` that was not
recorded raises `NotPublic`, which the self-check reports as "checked when graded".

Arguments are matched as float32 (and exact integers), so a last-bit difference between the
student's NumPy and the instructor's, in a value the check computed before the call, still finds
its case.

**Known mistakes** (misconceptions) are registered beside the reference they are a wrong version
of, with `@misconception(of, why)`: a function with the reference's arguments that returns what
the mistaken code would return (None where the mistake does not apply). `ref.misconceptions.f(...)`
gives [[id, why, value], ...] of every known mistake of `f` on these arguments: computed when it
is read while grading (on the hidden inputs), recorded like a hint for the public cases, and
replayed in the bundle (the self-check names mistakes on the public inputs); a check hands it to
`autograder.grading.checking.misconception`, which names the mistake whose value the reply equals. A check
that recomputes a value from the student's own data (a plot's line, with dp) registers the
mistakes of that computation beside it in the checks module and gets their values from
`variants(that_function, ...)`. `catalogue(notebook)` lists them all.

**Derived mistakes** follow the catalogue's in `ref.misconceptions.f(...)`: wrong versions of `f`
made, when the list is read, by rewrite rules on the code of `f` and of the library it runs
(`references/derived.py`, grader side only), with ids that start with DERIVED; recorded and
replayed like the catalogue's. `checking.misconception` names one only when no catalogue entry
matches.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import json
import sys
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from ..sandbox import protocol

CASES = Path(__file__).resolve().parent.parent / "public_cases"
_recording: dict | None = None      # {notebook: {key: encoded result}} while `record` runs
_recording_keys_only = False        # `record(keys_only=True)`: known mistakes by key alone
_replaying: dict = {}               # {notebook: {key: encoded result}} forced by `replay`
_read: dict = {}                    # {notebook: ((mtime, size) of its file, its cases)}


# the id of a mistake derived from a reference's code (references/derived.py) starts with this
DERIVED = "derived:"
# and ends with @<module>:<line of the change>#<rank>.<kind> (derived.py, wording.py), which
# `checking.misconception` reads to tell one line's mutations from unrelated ones
SITE, RANK = "@", "#"
# the rank of a derived mistake that is never named, only counted (references/wording.py: OPAQUE)
OPAQUE = 3

hint_keys: set = set()      # the keys recorded from `ref.hint` calls (a missing one is no failure)


def per_task(started: bool = True) -> None:
    """A task's checks start (or, `started` False, the checks end): so does the time for
    deriving its mistakes (references/derived.py, grader side only: the student bundle has
    none, and nothing is derived there)."""
    try:
        from . import derived
    except ImportError:
        return
    derived.per_task() if started else derived.per_task(None)


class NotPublic(Exception):
    """A reference value the public cases do not hold: grading checks it, the self-check cannot."""


def _canonical(value, out: list) -> None:
    """Append a canonical byte form of plain data `value` to `out` (floats as float32)."""
    if value is None or isinstance(value, (bool, str)):
        out.append(repr(value).encode())
    elif isinstance(value, (int, np.integer)):
        out.append(b"i%d" % int(value))
    elif isinstance(value, (float, np.floating)):
        out.append(b"f" + np.float32(value).tobytes())
    elif isinstance(value, np.ndarray):
        array = value
        if array.dtype.kind == "f":
            array = array.astype(np.float32)
        elif array.dtype.kind not in "biu":
            raise TypeError(f"an array of dtype {value.dtype} is not a reference argument")
        out.append(b"a%s%r" % (array.dtype.str.encode(), array.shape))
        out.append(np.ascontiguousarray(array).tobytes())
    elif isinstance(value, (list, tuple)):
        out.append(b"[%d" % len(value))
        for item in value:
            _canonical(item, out)
    elif isinstance(value, dict):
        out.append(b"{%d" % len(value))
        for key in sorted(value):
            if not isinstance(key, str):
                raise TypeError("a reference argument's dict keys must be strings")
            _canonical(key, out)
            _canonical(value[key], out)
    else:
        raise TypeError(f"a {type(value).__name__} is not a reference argument (plain data only)")


def key(function: str, args: tuple, kwargs: dict) -> str:
    """The public-case key of the call `function(*args, **kwargs)`."""
    parts = [function.encode()]
    _canonical(list(args), parts)
    _canonical(dict(kwargs), parts)
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:32]


def _notebook(module_name: str) -> str:
    return module_name.rsplit(".", 1)[-1]


def _cases(notebook: str) -> dict:
    """The public cases of `notebook`: those forced by `replay`, else its file in the bundle,
    read once per version of the file (a check makes many calls; 01's file is 300 kB)."""
    if notebook in _replaying:
        return _replaying[notebook]
    path = CASES / f"{notebook}.json"
    try:
        stat = path.stat()
    except FileNotFoundError:
        return {}
    version = (stat.st_mtime_ns, stat.st_size)
    if _read.get(notebook, (None,))[0] != version:
        _read[notebook] = version, json.loads(path.read_text(encoding="utf-8"))
    return _read[notebook][1]


def _module(notebook: str):
    """The reference module, or None where it is absent (the student bundle) or replay is forced."""
    if notebook in _replaying:
        return None
    try:
        return importlib.import_module(f"{__name__}.{notebook}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{notebook}":
            raise
        return None


class _Calls:
    def __init__(self, notebook: str, hint: bool):
        self._notebook, self._hint = notebook, hint

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        notebook, hint = self._notebook, self._hint

        def call(*args, **kwargs):
            # the key only where it is needed: for 01's chain of 5,000 nodes, it takes 30 ms
            module = _module(notebook)
            if module is None:
                case = key(name, args, kwargs)
                cases = _cases(notebook)
                if case not in cases:
                    if hint:
                        return None
                    raise NotPublic(f"{notebook}.{name}: no public case for these inputs")
                return protocol.decode(cases[case])
            encoded = protocol.encode(getattr(module, name)(*args, **kwargs))
            if _recording is not None:
                case = key(name, args, kwargs)
                _recording.setdefault(notebook, {})[case] = encoded
                if hint:
                    hint_keys.add(case)
            return protocol.decode(encoded)     # what a replay would return, in every mode

        call.__name__ = name
        return call


class _Proxy(_Calls):
    def __init__(self, notebook: str):
        super().__init__(notebook, hint=False)
        self.hint = _Calls(notebook, hint=True)
        self.misconceptions = _Misconceptions(notebook)


# -- known mistakes ------------------------------------------------------------------------------
class Misconception(NamedTuple):
    """A known mistake: `compute` takes the arguments of the function `of` (a reference, or a
    computation of a checks module) and returns what the mistaken code gives, or None where the
    mistake does not apply; `where` ({argument: value or tuple of values}) says where it does;
    `kind`: "references" (a reference's mistake, grader only) or "checks" (shipped)."""
    id: str
    of: str
    why: str
    where: dict
    compute: Callable
    kind: str


_catalogue: dict = {}       # {notebook: {id: Misconception}}, filled as the modules are imported


def misconception(of: str, why: str, *, name: str | None = None, **where):
    """Register the decorated function (or any callable, then with `name`) as the known mistake
    `name` (default: the function's name) of `of`, explained by `why` (one line, shown to the
    student), in the notebook of the calling module; it applies where the arguments of `of` have
    the values `where` gives (a tuple: any of them)."""
    module = sys._getframe(1).f_globals["__name__"]
    notebook, kind = _notebook(module), _kind(module)

    def register(compute):
        entry = Misconception(name or compute.__name__, of, why, dict(where), compute, kind)
        _catalogue.setdefault(notebook, {})[entry.id] = entry
        return compute
    return register


def behaviour(name: str, why: str, module: str) -> Misconception:
    """Register the known mistake `name` that a check of `module` recognises by what the code
    does (a mask drawn once and reused, an array changed in place, a loss that went down where
    it must go up), not by a value a reference computes: in the catalogue of `module`'s notebook,
    as `misconception` registers one, so that a message names it in the same words and the class
    report ranks it with the others. It has no value: no reply is compared with it."""
    entry = Misconception(name, BEHAVIOUR, why, {}, _no_value, _kind(module))
    _catalogue.setdefault(_notebook(module), {})[entry.id] = entry
    return entry


BEHAVIOUR = "behaviour"     # what a behaviour's entry is `of`: no function, so no value


def _no_value(*args, **kwargs):
    return None


def _kind(module_name: str) -> str:
    return "references" if module_name.startswith(__name__ + ".") else "checks"


def catalogue(notebook: str) -> list:
    """The known mistakes of `notebook` (its reference module's and its checks module's)."""
    import warnings
    for kind in ("references", "checks"):
        with contextlib.suppress(ModuleNotFoundError), warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the checks' `task` mark, registered by the judge
            importlib.import_module(f"autograder.{kind}.{notebook}")
    return list(_catalogue.get(notebook, {}).values())


def _applies(entry: Misconception, function, args, kwargs) -> bool:
    if entry.where:
        bound = inspect.signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        for argument, wanted in entry.where.items():
            value = bound.arguments[argument]
            if not (value in wanted if isinstance(wanted, tuple) else value == wanted):
                return False
    return True


def _variants(notebook: str, kind: str, function, args, kwargs) -> list:
    """[[id, why, value]] of the known mistakes of `function` (of the modules of `kind`) on these
    arguments, as plain data."""
    import numpy as np
    found = []
    with np.errstate(all="ignore"):     # a mistake may overflow where the right formula does not
        for entry in list(_catalogue.get(notebook, {}).values()):
            if entry.kind == kind and entry.of == function.__name__ and \
                    _applies(entry, function, args, kwargs):
                value = entry.compute(*args, **kwargs)
                if value is not None:
                    found.append([entry.id, entry.why, value])
    return protocol.decode(protocol.encode(found))


def variants(function, *args, **kwargs) -> list:
    """[[id, why, value]] of the known mistakes registered for `function` on these arguments, at
    once: in a checks module, for values that a check recomputes from the student's own data,
    which no reference may take."""
    module = function.__module__
    return _variants(_notebook(module), _kind(module), function, args, kwargs)


class _Lazy:
    """A list whose parts (`computes`, each a function that returns a list) are each computed
    when the reading first reaches it: grading computes known mistakes for failures only, and
    the derived ones only when a reader reads past the catalogue's."""

    def __init__(self, *computes):
        self._computes, self._parts = computes, [None] * len(computes)

    def parts(self):
        """Each part, computed when it is reached."""
        for i, compute in enumerate(self._computes):
            if self._parts[i] is None:
                self._parts[i] = compute()
            yield self._parts[i]

    def __iter__(self):
        for part in self.parts():
            yield from part


class _Misconceptions:
    """`ref.misconceptions.f(...)`: [[id, why, value]] of the known mistakes of reference `f`."""

    def __init__(self, notebook: str):
        self._notebook = notebook

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        notebook = self._notebook

        def call(*args, **kwargs):
            module = _module(notebook)     # the key only where it is needed, as in _Calls
            if module is None:
                case = key(f"misconceptions.{name}", args, kwargs)
                cases = _cases(notebook)
                return protocol.decode(cases[case]) if case in cases else []

            def known():
                return _variants(notebook, "references", getattr(module, name), args, kwargs)

            def mutants():
                from . import derived       # the grader's side only, as the reference modules
                return protocol.decode(protocol.encode(
                    [[DERIVED + id_, why, value]
                     for id_, why, value in derived.derived(module, name, args, kwargs)]))
            if _recording is None:
                return _Lazy(known, mutants)
            case = key(f"misconceptions.{name}", args, kwargs)
            hint_keys.add(case)
            if _recording_keys_only:
                _recording.setdefault(notebook, {})[case] = None
                return _Lazy(known, mutants)
            found = known() + mutants()
            _recording.setdefault(notebook, {})[case] = protocol.encode(found)
            return found

        call.__name__ = name
        return call


def of(module_name: str) -> _Proxy:
    """The references of the checks module `module_name` (pass `__name__`)."""
    return _Proxy(_notebook(module_name))


@contextlib.contextmanager
def record(keys_only: bool = False):
    """Collect {notebook: {key: encoded result}} of every reference call made inside. With
    `keys_only`, the known mistakes are recorded by key alone (None) and computed only where a
    check reads them, as when grading: for a test of which calls are made, not of their values."""
    global _recording, _recording_keys_only
    saved, _recording = (_recording, _recording_keys_only), {}
    _recording_keys_only = keys_only
    try:
        yield _recording
    finally:
        _recording, _recording_keys_only = saved


@contextlib.contextmanager
def replay(cases: dict):
    """Answer the calls of each notebook in `cases` from those cases alone, as the bundle would."""
    saved = dict(_replaying)
    _replaying.update(cases)
    try:
        yield
    finally:
        _replaying.clear()
        _replaying.update(saved)
