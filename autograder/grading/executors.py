"""Where the grading of a class runs: in this process, in a pool of local processes, or on a
Dask cluster. The work is the same everywhere (`grade._grade_job`, one submission per call) and
so is its answer, (result, figures); only the main process writes results.

    with completed(function, calls, executor="local", workers=4) as answers:
        for answer in answers:          # in the order the calls finish
            ...

  local, 1 worker    the calls run one after the other in this process
  local, N workers   a pool of N processes, each taking the next call as soon as it is free, so
                     one slow submission holds up one worker and no other call
  dask               a Dask LocalCluster of N single-threaded worker processes, or the cluster
                     whose scheduler is at `scheduler`; a worker gets a call only when it is
                     free, and before the first call every worker is checked to grade as this
                     machine does (`fingerprint`: same Python, NumPy, autograder and dp, MNIST
                     files, and the same course.toml and submissions at the same paths)

Leaving the `with` block early (an error, Ctrl-C, SIGTERM) cancels the calls not yet started
and stops the submissions being graded at once (their processes are killed, so a hostile one
cannot hold the run up until its time limit). A rerun resumes.
"""
from __future__ import annotations

import collections
import contextlib
import hashlib
import itertools
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

EXECUTORS = ("local", "dask")
PACKAGES = ("autograder", "dp")       # the code that grades: it must be the same on every worker


class ExecutorError(RuntimeError):
    """The executor cannot run the grading as asked (no Dask, no scheduler, workers that differ)."""


@contextlib.contextmanager
def completed(function, calls, executor="local", workers=None, scheduler=None, same_files=(),
              lost=None):
    """Run `function(*args)` for each `args` in `calls`; yields an iterator over the return
    values in the order they finish. `workers`: processes (default: all cores); `scheduler`: a
    Dask scheduler address; `same_files`: paths that Dask workers must see as this process does;
    `lost(args, reason)`: the answer for a call whose worker died twice while running it
    (default: ExecutorError)."""
    lost = lost or _no_answer
    calls = list(calls)
    workers = workers or os.cpu_count() or 1
    if executor not in EXECUTORS:
        raise ExecutorError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}")
    if executor == "local" and scheduler is not None:
        raise ExecutorError("--scheduler needs --executor dask")
    if not calls:
        yield iter(())
    elif executor == "dask":
        with _dask(function, calls, workers, scheduler, [str(p) for p in same_files], lost) as answers:
            yield answers
    elif workers == 1 or len(calls) <= 1:
        yield (function(*args) for args in calls)
    else:
        with _pool(function, calls, min(workers, len(calls)), lost) as answers:
            yield answers


# The exit status of a pool worker ended by `takeover`: its call is answered, not run again.
OVER_BUDGET = 75
_IN_POOL = []      # [True] in a pool worker


def takeover(reason: str) -> None:
    """The last resort of a grading that went over its budget and does not stop (budget.limited):
    a pool worker ends, and its call is answered by `lost` (not run again); elsewhere (the main
    process, a Dask worker: the rest of the run shares it) nothing is ended, and it is said on
    stderr."""
    if _IN_POOL:
        os._exit(OVER_BUDGET)
    print(f"warning: a grading went over its budget ({reason}) and does not stop", file=sys.stderr)


def _no_answer(args, reason):
    raise ExecutorError(f"a call was lost: {reason}")


@contextlib.contextmanager
def _pool(function, calls, workers, lost):
    """N forked worker processes, each given its next call only when it is free. A worker
    that dies (killed from outside, out of memory) loses nothing: its call goes to a fresh
    worker once, and if that one dies too, `lost(args, reason)` is its answer. Each worker
    dies with this process (`die_with_parent`), however this process ends."""
    import multiprocessing
    import multiprocessing.connection
    context = multiprocessing.get_context("fork")
    waiting = collections.deque(enumerate(calls))
    idle, busy, deaths = [], {}, collections.Counter()     # busy: worker -> (index, args)

    def start():
        ours, theirs = context.Pipe()
        inherited = [ours] + [w.connection for w in [*idle, *busy]]     # the child closes them
        worker = context.Process(target=_serve, args=(function, theirs, os.getpid(), inherited),
                                 daemon=True)
        worker.start()
        theirs.close()
        worker.connection = ours
        return worker

    def feed():
        while waiting and len(busy) < workers:
            worker = idle.pop() if idle else start()
            try:
                worker.connection.send(waiting[0][1])
            except OSError:                 # it died while idle: no call lost, take another
                worker.kill()
                worker.join()
                continue
            busy[worker] = waiting.popleft()

    def answers():
        feed()
        while busy:
            ready = set(multiprocessing.connection.wait(
                [w.connection for w in busy] + [w.sentinel for w in busy]))
            for worker in [w for w in busy if w.connection in ready or w.sentinel in ready]:
                index, args = busy.pop(worker)
                try:
                    kind, value = worker.connection.recv()
                except (EOFError, OSError):       # it died with the call
                    worker.join()
                    worker.connection.close()
                    deaths[index] += 1
                    reason = f"the grading process ended ({_ended(worker.exitcode)}), twice"
                    if worker.exitcode == OVER_BUDGET:      # not run again: it would do the same
                        deaths[index] = 2
                        reason = ("the grader's checks went over their budget and did not stop, "
                                  "so their process was ended")
                    if deaths[index] < 2:
                        waiting.appendleft((index, args))
                        continue
                    kind, value = "ok", lost(args, reason)
                idle.append(worker)
                if kind == "raise":
                    raise value
                feed()
                yield value
            feed()

    try:
        yield answers()
    finally:                # interrupted: start nothing new, stop what runs; a rerun resumes
        waiting.clear()
        while busy:
            _stop_submissions()
            ready = multiprocessing.connection.wait(
                [w.connection for w in busy] + [w.sentinel for w in busy], timeout=0.2)
            for worker in [w for w in busy if w.connection in ready or w.sentinel in ready]:
                busy.pop(worker)
                with contextlib.suppress(EOFError, OSError):
                    worker.connection.recv()
                idle.append(worker)
        for worker in idle:
            worker.connection.close()          # end of file: the worker stops its zygotes, exits
        for worker in idle:
            worker.join(timeout=10)
            if worker.exitcode is None:
                worker.kill()
                worker.join()


def _ended(code) -> str:
    if code is not None and code < 0:
        return f"signal {signal.Signals(-code).name}"
    return f"exit status {code}"


def _serve(function, connection, parent, inherited):
    """A pool worker: calls `function(*args)` for each args received, until end of file (the
    main process's end of the pipe, and those of the other workers, are closed here, so that
    closing it in the main process is an end of file)."""
    die_with_parent(parent)
    _IN_POOL.append(True)
    for other in inherited:
        other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the main process's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            args = connection.recv()
        except (EOFError, OSError):
            break
        try:
            answer = ("ok", function(*args))
        except Exception as error:    # noqa: BLE001 - raised again in the main process
            answer = ("raise", error)
        connection.send(answer)
    from ..sandbox import forkserver
    forkserver.stop_all()
    os._exit(0)


def die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when its parent ends, however it ends (Linux:
    PR_SET_PDEATHSIG); if the parent `parent` is already gone, end now."""
    if sys.platform == "linux":
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


# -- Dask -------------------------------------------------------------------------------------
# A LocalCluster's processes wake up less often: every 20 ms (the event loop's tick) and 500 ms
# (resource and memory sampling, for a dashboard we do not start) by default, on the cores the
# submissions need. 60 submissions of 04 on 2 workers: 55 -> 47 s.
QUIET_DASK = {"distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "5s",
              "distributed.worker.memory.monitor-interval": "5s"}


@contextlib.contextmanager
def _dask(function, calls, workers, scheduler, same_files, lost):
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ExecutorError("--executor dask needs Dask: pip install -e '.[dask]'") from None
    cluster = None
    try:
        if scheduler is None:     # a call whose worker dies is run again once (see _fed)
            dask.config.set({"distributed.scheduler.allowed-failures": 0, **QUIET_DASK})
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None, preload=[__name__],
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
        else:
            client = Client(scheduler)     # waits up to distributed.comm.timeouts.connect
    except (OSError, TimeoutError, ValueError) as error:
        if cluster is not None:
            cluster.close()
        where = f"reach the Dask scheduler at {scheduler}" if scheduler else "start a Dask LocalCluster"
        raise ExecutorError(f"cannot {where}: {error}") from None
    futures = []
    try:
        _check_workers(client, same_files)
        yield _fed(client, function, calls, futures, lost)
    finally:
        if any(not future.done() for future in futures):
            client.cancel(futures)      # interrupted: start nothing new, stop what runs
            with contextlib.suppress(Exception):
                for _ in range(50):
                    if not any(client.run(_stop_submissions).values()):
                        break
                    time.sleep(0.2)
        client.close()
        if cluster is not None:
            cluster.close()


def _fed(client, function, calls, futures, lost):
    """The answers as they finish, each call given to a worker that is free (so no call ever
    waits behind a slow one; Dask would otherwise queue calls on busy workers). Workers that
    join later (e.g. Slurm jobs that start) get work at the next answer. A call whose worker
    dies is given to another once; if that one dies too, `lost` answers for it. (On a
    LocalCluster, allowed-failures is 0, so Dask retries nothing itself: each call is on a
    worker of its own, and the count of its deaths is its own, never a neighbour's.)"""
    from dask.distributed import KilledWorker, as_completed
    waiting, running = collections.deque(enumerate(calls)), as_completed()
    placed, deaths = {}, collections.Counter()       # future key -> (worker, index, args)

    def feed():
        busy = {worker for worker, _, _ in placed.values()}
        for worker in [w for w in client.nthreads() if w not in busy]:
            if not waiting:
                break
            index, args = waiting.popleft()
            futures.append(client.submit(_one_at_a_time, function, *args, pure=False,
                                         workers=[worker], allow_other_workers=True))
            running.add(futures[-1])
            placed[futures[-1].key] = (worker, index, args)

    feed()
    while running.count() or waiting:
        if not running.count():             # every worker is gone for now: wait for one
            try:
                client.wait_for_workers(1, timeout=120)
            except TimeoutError:
                raise ExecutorError("the Dask cluster has lost all its workers (none for 120 s)") from None
            time.sleep(0.1)
            feed()
            continue
        future = next(running)
        _, index, args = placed.pop(future.key)
        futures.remove(future)
        try:
            answer = future.result()
        except KilledWorker as error:
            deaths[index] += 1
            if deaths[index] < 2:
                waiting.appendleft((index, args))
                feed()
                continue
            answer = lost(args, f"the grading process ended, twice ({error})")
        feed()
        yield answer


def dask_setup(worker):
    """Dask's preload hook, run in each LocalCluster worker: Ctrl-C reaches the whole process
    group, but stopping is the main process's job (it stops the submissions, then the cluster);
    and the worker dies with the main process, however that ends (its parent: the nannies of a
    LocalCluster run in the main process)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(os.getppid())


_LOCK = threading.Lock()


def _one_at_a_time(function, *args):
    """Run on a Dask worker. A worker with several threads still grades one submission at a
    time: the judge (pytest) is not thread-safe."""
    with _LOCK:
        return function(*args)


def fingerprint(files=()) -> dict:
    """What makes grading here give the same results as elsewhere: the Python and NumPy
    versions, the grading code (autograder with its checks and probes, dp), the MNIST files
    that dp.data finds, the isolation layers, and `files` as seen from here (a digest of each)."""
    import numpy
    from ..sandbox import seal
    from ..course.config import ROOT
    code = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            code.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    from dp.data import FILES, names
    data = Path(os.environ.get("DP_DATA_DIR") or Path.home() / ".cache" / "dp" / "mnist").expanduser()
    mnist = sorted(f"{p.name}:{p.stat().st_size}" for role in FILES  # gzipped or not
                   for p in map(data.joinpath, names(role)) if p.is_file())
    found = {"python": sys.version.split()[0], "numpy": numpy.__version__,
             "grading code": code.hexdigest()[:16], "MNIST files": " ".join(mnist) or "none",
             "isolation": seal.unavailable() or "sealed (bubblewrap)"}
    for name in files:
        try:
            found[name] = hashlib.sha256(Path(name).read_bytes()).hexdigest()[:16]
        except OSError as error:
            found[name] = f"unreadable ({error.strerror})"
    return found


def _check_workers(client, files):
    try:
        client.wait_for_workers(1, timeout=120)
        theirs = client.run(fingerprint, files)
    except TimeoutError:
        raise ExecutorError("the Dask cluster has no workers (none joined within 120 s)") from None
    except Exception as error:      # e.g. ModuleNotFoundError: 'autograder' on the workers
        raise ExecutorError(f"the Dask workers cannot run the grader ({type(error).__name__}: "
                            f"{error}); install this repository on every worker") from None
    mine = fingerprint(files)
    differences = [f"{worker}: {key} {value} there, {mine[key]} here"
                   for worker, info in sorted(theirs.items())
                   for key, value in info.items() if value != mine[key] and key != "isolation"]
    isolation = {info["isolation"] for info in theirs.values()} - {mine["isolation"]}
    if isolation:   # graded all the same; each result's `isolation` field says which layers applied
        print(f"note: isolation on the Dask workers: {', '.join(sorted(isolation))}; "
              f"here: {mine['isolation']}", file=sys.stderr)
    if differences:
        raise ExecutorError("the Dask workers would not grade as this machine does:\n  "
                            + "\n  ".join(differences[:20])
                            + "\nthey need the same repository and environment, and the files "
                              "at the same paths")
    threads = client.nthreads()
    if any(n > 1 for n in threads.values()):
        print(f"note: a Dask worker grades one submission at a time, whatever its threads: "
              f"start workers with --nthreads 1 and as many per machine as it has cores "
              f"({len(threads)} workers, {sum(threads.values())} threads)", file=sys.stderr)


def process_table() -> tuple:
    """(parent, command line) of every process, by pid (Linux: /proc)."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                commands[int(entry.name)] = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
    return parents, commands


def submission_processes(parents, commands) -> set:
    """The processes of submissions: forked by a zygote, they inherit its command line
    (`autograder.sandbox.zygote`), and so does their parent (a zygote, or, sealed, the process that
    waits for the submission). bubblewrap's own processes name it too, but are bwrap."""
    forked = {pid for pid, command in commands.items() if b"autograder.sandbox.zygote" in command
              and os.path.basename(command.split(b"\0")[0]) != b"bwrap"}
    return {pid for pid in forked if parents.get(pid) in forked}


def _stop_submissions() -> bool:
    """Kill the submission processes that this process started, itself or through its workers
    (each leads its own process group), so that the gradings running now end at once: their
    sandboxes see the submission gone and clean up as usual. Returns whether a grading is
    still under way in this process (on a Dask worker)."""
    parents, commands = process_table()
    runners = submission_processes(parents, commands)
    for pid in runners:
        ancestor = parents.get(pid)
        for _ in range(8):                  # below this process, its workers, bwrap, the zygote
            if ancestor in (None, os.getpid()):
                break
            ancestor = parents.get(ancestor)
        if ancestor == os.getpid():
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
    return _LOCK.locked()
