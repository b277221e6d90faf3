"""Submissions' working folders, and removing those that a killed grader left behind.

Each submission runs in a fresh folder under the system's temporary directory, which the
sandbox removes when it closes. A grader killed with SIGKILL (or a machine that lost power)
never gets there, so its folders stay, and a CI machine or a grading server would collect them.
So the grader holds a lock (flock) on each folder while it is in use, and the first sandbox of a
grader process removes the folders that no process holds and that are older than a minute: those
of dead graders. A lock, unlike a process id, works across containers and pid namespaces that
share /tmp, and the age keeps a folder that another grader has just made and not yet locked.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

PREFIX = "autograder-sandbox-"
MIN_AGE = 60.0          # seconds: younger folders may be about to be locked by their grader
_swept = False


class WorkDir:
    """A new folder, locked until `remove`."""

    def __init__(self):
        global _swept
        if not _swept:
            _swept = True
            sweep()
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX))
        self._lock = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)   # not inherited
        fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def _unused(path: Path) -> bool:
    """True if no process holds the folder's lock (its grader is gone)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def sweep(folder=None, min_age=MIN_AGE) -> list:
    """Remove the unlocked working folders older than `min_age` seconds; returns their paths."""
    removed, now = [], time.time()
    for path in Path(folder or tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            old = now - path.lstat().st_mtime > min_age
        except OSError:
            continue
        if old and path.is_dir() and not path.is_symlink() and _unused(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
