"""Operating-system isolation of a submission process, applied between fork and exec.

As root (CI, grading servers), the submission gets:
  * a user id of its own (not root, not shared with another running submission), so it can
    signal neither the grader nor its siblings, cannot write where that uid may not, and
    RLIMIT_NPROC counts its processes alone;
  * a new mount namespace in which every file system is read-only but its own temporary
    directory (and a fresh /dev/shm), and the solutions, tests, git history, course file and
    grader output are hidden;
  * a new, empty network namespace: no interface but a loopback that is down.
Without root these layers are skipped (`describe` says which applied); resource limits, the
session and process group, and the Python-level guards (autograder.guard) apply in any case.
"""
from __future__ import annotations

import ctypes
import os
import resource
import signal
from pathlib import Path

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
KEPT_OPTIONS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC}
FIRST_UID = 61000          # sandbox uids: FIRST_UID .. FIRST_UID + UID_COUNT - 1


def can_isolate() -> bool:
    return os.geteuid() == 0 and os.path.exists("/proc/self/ns/mnt")


UID_COUNT = 4000
LOCKS = Path("/run/autograder-uids") if os.path.isdir("/run") else Path("/tmp/autograder-uids")


def claim_uid():
    """(uid, lock) for a new sandbox: a uid no other running sandbox on this machine holds,
    whatever process or thread it runs in. The uid stays ours while `lock` (an open file with
    an exclusive flock) is open; close it when the sandbox is gone."""
    import fcntl
    import random
    LOCKS.mkdir(mode=0o700, exist_ok=True)
    start = random.randrange(UID_COUNT)
    for i in range(UID_COUNT):
        uid = FIRST_UID + (start + i) % UID_COUNT
        lock = open(LOCKS / str(uid), "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return uid, lock
        except BlockingIOError:
            lock.close()
    raise RuntimeError(f"all {UID_COUNT} sandbox uids are in use")


_libc = None
PR_SET_DUMPABLE = 4


def load_libc():
    """The C library, loaded once (a zygote loads it before forking, not each child)."""
    global _libc
    _libc = _libc or ctypes.CDLL(None, use_errno=True)
    return _libc


def _call(name, *args):
    if getattr(load_libc(), name)(*args) != 0:
        raise OSError(ctypes.get_errno(), f"{name} failed: {os.strerror(ctypes.get_errno())}")


def _mount(source, target, fstype, flags, data=None):
    _call("mount", source and source.encode(), str(target).encode(), fstype and fstype.encode(),
          ctypes.c_ulong(flags), data and data.encode())


def _hide(path: Path):
    if path.is_dir():
        _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=000")
    elif path.exists():
        _mount("/dev/null", path, None, MS_BIND)


def _read_only_everywhere():
    """Remount every mount point read-only (in this mount namespace only)."""
    for line in reversed(Path("/proc/self/mountinfo").read_text().splitlines()):
        fields = line.split()
        target = fields[4].encode().decode("unicode_escape")
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY
        flags |= sum(bit for name, bit in KEPT_OPTIONS.items() if name in fields[5].split(","))
        try:
            _mount(None, target, None, flags)
        except OSError:
            pass


def _blocked_ancestor(path: Path):
    """The outermost folder above `path` that other users cannot enter (e.g. /root), if any."""
    for ancestor in reversed(path.parents):
        if not os.stat(ancestor).st_mode & 0o001:
            return ancestor
    return None


def _make_reachable(paths):
    """Let the submission reach what it must read (the interpreter, the virtual environment,
    the project) even below a folder closed to others, such as /root/.pyenv: a fresh tmpfs
    covers that folder (hiding the rest of it) and the needed paths are bound into it."""
    by_blocker = {}
    for path in {Path(os.path.realpath(p)) for p in paths if os.path.exists(p)}:
        blocker = _blocked_ancestor(path)
        if blocker is not None:
            by_blocker.setdefault(blocker, []).append((path, os.open(path, os.O_PATH)))
    for blocker, entries in by_blocker.items():
        _mount("tmpfs", blocker, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=711")
        for path, fd in entries:
            os.makedirs(path, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            os.close(fd)
        _mount(None, blocker, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _set_limits(limits):
    for kind, value in ((resource.RLIMIT_AS, limits.memory_limit),
                        (resource.RLIMIT_CPU, int(limits.cpu_limit)),
                        (resource.RLIMIT_NPROC, limits.max_processes),
                        (resource.RLIMIT_FSIZE, limits.max_file_size),
                        (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # over-long writes fail instead of killing


def child_setup(limits, workdir: Path, hidden, uid, needed=()):
    """The function to run in the child between fork and exec (subprocess's preexec_fn).
    `needed`: paths the submission must be able to read (see _make_reachable)."""
    def setup():
        if uid is not None:
            _call("unshare", CLONE_NEWNS | CLONE_NEWNET)
            _mount(None, "/", None, MS_REC | MS_PRIVATE)
            _read_only_everywhere()
            _make_reachable(needed)        # (the workdir is among the needed paths)
            _mount(str(workdir), str(workdir), None, MS_BIND)          # its own mount ...
            _mount(None, str(workdir), None, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV)  # ... writable
            if os.path.isdir("/dev/shm"):
                _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=1777")
            for path in hidden:
                _hide(Path(path))
        _set_limits(limits)
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.chdir(workdir)             # through the new, writable mount
    return setup


def set_dumpable():
    """After setuid without exec (a child forked by the zygote), the kernel makes a process
    undumpable: its /proc files belong to root and it cannot read them. Exec would have reset
    that; this does the same, so the process is what a freshly started one would be."""
    _call("prctl", PR_SET_DUMPABLE, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
          ctypes.c_ulong(0))


def describe(uid) -> list:
    """The isolation layers that `child_setup` applies with this uid."""
    layers = ["own session and process group", "resource limits (memory, CPU, processes, file size)"]
    if uid is not None:
        layers += ["unprivileged uid of its own",
                   "mount namespace (read-only but the temp dir; grader files hidden)",
                   "network namespace (no network)"]
    return layers


def kill_uid(uid) -> int:
    """SIGKILL every process of `uid` (what a submission left behind, even outside its group)."""
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        line = next((l for l in status.splitlines() if l.startswith("Uid:")), "")
        if line.split()[1:2] == [str(uid)]:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed
