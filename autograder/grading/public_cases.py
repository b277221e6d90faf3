"""The public cases of the student bundle, recorded when it is built (`python -m autograder release`).

A check reaches its reference computations through `autograder.references` (`ref.f(...)`). The
bundle ships no reference module; it ships, per notebook, `autograder/public_cases/<notebook>.json`:
the values those calls returned when the checks ran with the course's public seed, as the
self-check runs them (`public=True`), on the instructor's solution. The self-check in the bundle
makes the same calls with the same arguments (the inputs come from the same seed) and finds
their values there (see autograder/references/__init__.py).

The solution is trusted code: it runs in this process, its cells one by one in a fresh
namespace as Jupyter runs them (figures closed after each cell, `check(...)` cells inert), in a
temporary working folder. Its checks must all pass, or the cases would describe something else
than the right answer. Cases are kept, per process and in build/public_cases/, as long as none
of the files they depend on changes: however many bundles are built, each solution runs once.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .. import references
from ..course.config import PACKAGE, ROOT, load_course
from ..sandbox.seal import probe_modules

CACHE = Path("build") / "public_cases"    # under the course repository (git ignores build/)
_cache: dict = {}     # {fingerprint: {key: encoded value}}


class PublicCasesError(RuntimeError):
    """The public cases cannot be recorded; the message says why."""


def has_references(assignment) -> bool:
    """Whether the checks of `assignment` have a reference module (and so need public cases)."""
    return (PACKAGE / "references" / f"{assignment.notebook}.py").is_file()


def needs_recording(assignment) -> bool:
    """Whether a release must run `assignment`'s solution to record its public cases: it has
    references, and their module does not declare `PUBLIC_CASES = False` (references that the
    checks call only when grading, such as 09's forward pass on the held-out digits)."""
    if not has_references(assignment):
        return False
    module = importlib.import_module(f"autograder.references.{assignment.notebook}")
    return getattr(module, "PUBLIC_CASES", True) is not False


def _fingerprint(assignment, seed: int, root: Path) -> str:
    """A digest of everything the cases depend on: the seed, the solution, the checks, probes
    (with the probe modules they import) and references of the notebook, the engine that runs
    them (and derives mistakes), dp, and NumPy's version."""
    import numpy
    digest = hashlib.sha256(f"{seed} {numpy.__version__} {sys.version}".encode())
    engine = ("references/__init__.py", "references/derived.py", "grading/judge.py", "grading/checking.py",
              "grading/selfcheck.py", "sandbox/protocol.py", "grading/replies.py",
              "grading/public_cases.py")
    files = [assignment.solution_path(root), PACKAGE / "checks" / f"{assignment.notebook}.py",
             *(PACKAGE / name for name in probe_modules(assignment.probes_module)),
             PACKAGE / "references" / f"{assignment.notebook}.py",
             *(PACKAGE / name for name in engine), *sorted((Path(root) / "dp").rglob("*.py"))]
    for path in files:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


@contextlib.contextmanager
def _like_a_notebook_kernel():
    """A temporary working folder, the Agg backend, and `check(...)` inert (AUTOGRADER_GRADING)."""
    import matplotlib
    saved_env = {k: os.environ.get(k) for k in ("AUTOGRADER_GRADING", "MPLBACKEND")}
    saved_cwd, saved_backend = os.getcwd(), matplotlib.get_backend()
    os.environ.update(AUTOGRADER_GRADING="1", MPLBACKEND="Agg")
    import matplotlib.pyplot as plt
    plt.switch_backend("Agg")
    try:
        with tempfile.TemporaryDirectory(prefix="public-cases-") as folder:
            os.chdir(folder)
            try:
                yield plt
            finally:
                os.chdir(saved_cwd)
    finally:
        plt.close("all")
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        with contextlib.suppress(Exception):
            plt.switch_backend(saved_backend)


def notebook_namespace(source: str, label: str, stop_at_errors: bool = True) -> dict:
    """The namespace of the notebook whose jupytext percent source is `source`, its code cells
    run one by one as Jupyter runs them. A cell's error stops the run, naming the cell (`label`,
    its number and first line), or with `stop_at_errors=False` the next cell runs, as a student's
    would."""
    import jupytext
    namespace = {"__name__": "__main__"}
    quiet = io.StringIO()       # what the cells print is the notebook's, not the release's
    with _like_a_notebook_kernel() as plt, contextlib.redirect_stdout(quiet), \
            contextlib.redirect_stderr(quiet):
        cells = [c for c in jupytext.reads(source, fmt="py:percent").cells if c.cell_type == "code"]
        for number, cell in enumerate(cells, start=1):
            try:
                exec(compile(cell.source, f"<{label}, code cell {number}>", "exec"), namespace)
            except Exception as error:  # noqa: BLE001 - the instructor's code, reported
                if stop_at_errors:
                    first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
                    raise PublicCasesError(f"{label}: code cell {number} ({first[:60]!r}) raised "
                                           f"{type(error).__name__}: {error}") from error
            finally:
                plt.close("all")
    return namespace


def solution_namespace(assignment, root: Path = ROOT) -> dict:
    """The namespace of `assignment`'s solution (`notebook_namespace`)."""
    return notebook_namespace(assignment.solution_path(root).read_text(encoding="utf-8"),
                              f"the solution of {assignment.id}")


def record_from(namespace: dict, assignment, seed: int) -> tuple:
    """{key: encoded value} of every reference call that the checks of `assignment` make on the
    notebook `namespace` with the public seed `seed`, and their results."""
    from .judge import run_checks
    from .selfcheck import LocalSubmission
    with references.record() as recorded:
        results = run_checks(LocalSubmission(namespace, assignment), assignment, seed=seed,
                             public=True)
    return recorded.get(assignment.notebook, {}), results


def record(assignment, seed: int, root: Path = ROOT) -> dict:
    """{key: encoded value} of every reference call that the checks of `assignment` make on its
    solution with the public seed `seed`. The solution must pass them. Kept per process, and on
    disk in build/public_cases/ (under `root`) as long as nothing they depend on changes
    (`_fingerprint`): a release re-runs only the solutions whose cases may have changed."""
    if not needs_recording(assignment):
        return {}
    fingerprint = _fingerprint(assignment, seed, root)
    stored = Path(root) / CACHE / f"{assignment.notebook}-{fingerprint}.json"
    if fingerprint not in _cache:
        with contextlib.suppress(OSError, ValueError):
            _cache[fingerprint] = json.loads(stored.read_text(encoding="utf-8"))
    if fingerprint not in _cache:
        cases, results = record_from(solution_namespace(assignment, root), assignment, seed)
        failed = [f"{r['id']}: {r['status']}: {r['message']}" for r in results   # unchecked:
                  if r["status"] not in ("passed", "unchecked")]     # an answer (grading/answers.py)
        if failed:
            raise PublicCasesError(
                f"{assignment.id}: the solution fails its own checks with the public seed, so "
                f"its public cases would be wrong:\n  " + "\n  ".join(failed))
        _cache[fingerprint] = cases
        with contextlib.suppress(OSError):
            stored.parent.mkdir(parents=True, exist_ok=True)
            for old in stored.parent.glob(f"{assignment.notebook}-*.json"):
                old.unlink()
            partial = stored.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(cases), encoding="utf-8")
            partial.replace(stored)
    return _cache[fingerprint]


def _recorded(assignment, seed: int, root: Path) -> tuple:
    """(cases, seconds) of `record`, in a worker process of `write`."""
    start = time.perf_counter()
    return record(assignment, seed, root), time.perf_counter() - start


def _kept(assignment, seed: int, root: Path) -> bool:
    fingerprint = _fingerprint(assignment, seed, root)
    return fingerprint in _cache or (Path(root) / CACHE / f"{assignment.notebook}-{fingerprint}.json").is_file()


def _record_all(assignments, seed: int, root: Path, jobs=None, log=print, failures=None) -> dict:
    """{id: cases} of the `assignments` whose cases are not kept yet, recorded in `jobs` fresh
    processes at once (default: one per processor), each reported as it finishes. A solution that
    fails its checks raises PublicCasesError, or is added to `failures` ({id: error}) if given."""
    import concurrent.futures
    import multiprocessing
    todo = [a for a in assignments if needs_recording(a) and not _kept(a, seed, root)]
    computed = {}
    if not todo:
        return computed
    jobs = min(len(todo), jobs or os.cpu_count() or 1)
    kept = sum(has_references(a) and _kept(a, seed, root) for a in assignments)
    log(f"  running {len(todo)} solution(s) and their checks, {jobs} at a time"
        + (f" ({kept} kept from an earlier release)" if kept else ""))
    context = multiprocessing.get_context("spawn")    # a fresh interpreter: no state shared
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        running = {pool.submit(_recorded, a, seed, root): a for a in todo}
        for done in concurrent.futures.as_completed(running):
            assignment = running[done]
            try:
                cases, seconds = done.result()
            except PublicCasesError as error:
                if failures is None:
                    raise
                failures[assignment.id] = error
                continue
            _cache[_fingerprint(assignment, seed, root)] = computed[assignment.id] = cases
            log(f"  {assignment.id}: {len(cases)} reference values ({seconds:.1f} s)")
    return computed


def verify(assignments, seed: int, root: Path = ROOT, log=print) -> list:
    """What stops the checks of `assignments` from grading their own solution with the public
    seed, one problem in two lines each (the solution's file, then the first failure): a probe
    without a reply schema, a check that passes an argument its probe does not take, a reference
    that disagrees with the solution. Only where the solution is here (not in a grading
    container) and its checks are recorded (`needs_recording`: not 09, whose solution trains a
    network). Results are kept like the public cases, so a course that did not change costs
    nothing."""
    here = [a for a in assignments if a.solution_path(root).is_file()]
    failures = {}
    _record_all(here, seed, root, log=log, failures=failures)
    problems = []
    for assignment in here:
        error = failures.get(assignment.id)
        if error is not None:
            failed = str(error).split("\n  ")[1:] or [str(error)]
            problems.append(f"{assignment.solution_path(root).relative_to(root)}: the solution fails "
                            f"the checks of {assignment.id} with the public seed ({len(failed)} "
                            f"task(s)), so the checks are wrong, not the students:\n  {failed[0]}")
    return problems


def write(folder: Path, assignments, seed: int | None = None, root: Path = ROOT, log=print,
          jobs: int | None = None) -> list:
    """Record the public cases of `assignments` (those whose checks have references) and write
    them as `folder`/autograder/public_cases/<notebook>.json; returns the paths written. The
    solutions whose cases are not kept yet run in `jobs` processes at once (default: one per
    processor), each reported as it finishes."""
    seed = load_course().public_seed if seed is None else seed
    wanted = [a for a in assignments if has_references(a)]
    computed = _record_all(wanted, seed, root, jobs, log)
    written = []
    for assignment in wanted:
        cases = computed.get(assignment.id) or record(assignment, seed, root)
        path = Path(folder) / "autograder" / "public_cases" / f"{assignment.notebook}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cases, sort_keys=True, separators=(",", ":")), encoding="utf-8")
        written.append(path)
    size = sum(p.stat().st_size for p in written)
    log(f"  public cases of {len(written)} assignment(s) written ({size / 1e3:,.0f} kB)")
    return written
