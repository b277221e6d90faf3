"""The grader's own work on one submission, bounded: a CPU budget and a deadline for its checks.

A submission's replies are hostile data of the right shape, and the checks that read them run
in the grader's process, outside the sandbox's limits. So the judge of one submission runs
under a budget of its own, enforced by the process that grades it (a pool worker, a Dask
worker, or the main process with one worker):

    with limited(cpu_seconds, deadline, takeover) as spent:
        ...                        # the checks
    spent.over                     # None, or why the checks were stopped

A watchdog thread reads this process's CPU time (time.process_time: the grader's threads, not
the submission's process) and the monotonic clock every TICK seconds. Past either bound, it
raises `OverBudget` in the judged thread (between two bytecodes: a check in pure Python or in
NumPy calls on capped arrays stops within a tick), and again every RAISE_AGAIN seconds while
the thread is still inside. If the thread has not left the block TAKEOVER seconds after the
first raise (stuck in one long C call), the watchdog takes over: it calls `takeover(reason)`,
which in a pool worker ends the worker (executors.takeover); the executor answers for the call.
`OverBudget` is a BaseException, so that a check's `except Exception` does not swallow it; it
never leaves the block, and none is pending once the block is left.
"""
from __future__ import annotations

import contextlib
import ctypes
import threading
import time

TICK = 0.05            # seconds between two looks of the watchdog
RAISE_AGAIN = 1.0      # seconds between two raises while the judged thread is still inside
TAKEOVER = 10.0        # seconds after the first raise before the watchdog takes over


class OverBudget(BaseException):
    """Raised in the judged thread when its checks went over their CPU budget or deadline."""


class Spent:
    """What a `limited` block used: `over` is None, or the reason it was stopped."""

    def __init__(self):
        self.over = None
        self.cpu = 0.0


def _raise_in(thread_id: int, exception) -> None:
    """Make `exception` (a class) raised in the thread `thread_id` at its next bytecode.

    Never called to cancel one (exception NULL): CPython sets the interpreter's flag for a
    pending asynchronous exception even then, and only a delivered exception clears it. Left
    set, every later call and loop of the process stops at the flag, and a frame run under a
    trace function (sys.settrace) spins forever in CPython 3.11: so a pending one is taken
    instead (`_take_pending`)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exception))


def _take_pending() -> None:
    """Raise OverBudget in this thread and take it here: whatever was pending is delivered, and
    the interpreter's flag cleared."""
    try:
        _raise_in(threading.get_ident(), OverBudget)
        for _ in range(1_000_000):      # each turn of the loop checks for it
            pass
    except OverBudget:
        return


@contextlib.contextmanager
def limited(cpu_seconds: float, deadline: float, takeover=None):
    """Run the block under a budget of `cpu_seconds` of this process's CPU time and until
    `deadline` (time.monotonic()); yields a `Spent`. Past either, the block is stopped (see the
    module's docstring) and `spent.over` says why; the block's own exceptions pass through."""
    spent, lock, done = Spent(), threading.Lock(), threading.Event()
    judged, cpu_start = threading.get_ident(), time.process_time()
    armed, raised = [True], [False]

    def watch():
        first = last = None
        while not done.wait(TICK):
            now, cpu = time.monotonic(), time.process_time() - cpu_start
            if spent.over is None and (cpu > cpu_seconds or now > deadline):
                spent.over = (f"{cpu:.1f} s of CPU, more than the {cpu_seconds:g} s allowed"
                              if cpu > cpu_seconds else
                              f"the submission's time limit passed ({cpu:.1f} s of CPU)")
            if spent.over is None:
                continue
            if first is not None and now - first > TAKEOVER:
                if takeover is not None:
                    takeover(spent.over)
                return
            if last is None or now - last >= RAISE_AGAIN:
                with lock:
                    if not armed[0]:
                        return
                    _raise_in(judged, OverBudget)
                    raised[0] = True
                first, last = first or now, now

    watchdog = threading.Thread(target=watch, name="grader budget", daemon=True)
    watchdog.start()
    try:
        yield spent
    except OverBudget:
        pass
    finally:
        while True:     # an OverBudget raised just now may land here: disarm, then take any pending
            try:
                with lock:
                    armed[0] = False
                if raised[0]:
                    _take_pending()
                break
            except OverBudget:
                continue
        done.set()
        watchdog.join()
        spent.cpu = time.process_time() - cpu_start
