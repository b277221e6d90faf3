"""Operating-system isolation of a submission process: the kernel's side of the sandbox.

The file system a submission sees is an allow-list that bubblewrap builds (autograder.sandbox.seal),
and a zygote runs inside it. Here is what runs around it and inside it:
  * `run_as`: as root, bubblewrap and the whole sandbox run as a uid of its own (`claim_uid`),
    with what it must read made reachable below folders closed to others (/root/.pyenv);
  * `enclose`: each submission forked by the zygote gets new user, PID, mount, IPC, network
    and UTS namespaces, its own size-limited tmpfs, no /proc, no capabilities, the
    resource limits, and last a system-call filter (autograder.sandbox.seccomp), before any of its
    code runs;
  * `unsealed_setup`: --no-isolation, for trusted work: resource limits only.
The Python-level guards (autograder.sandbox.guard) apply in every case.
"""
from __future__ import annotations

import ctypes
import os
import platform
import resource
import signal
from pathlib import Path

from . import seccomp

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWUSER = 0x00020000, 0x40000000, 0x10000000
CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS = 0x20000000, 0x08000000, 0x04000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 24, 28, 38
SECURE_NO_ROOT = 0xff        # every SECBIT_* and its lock: uid 0 never regains a capability
FIRST_UID = 61000          # sandbox uids: FIRST_UID .. FIRST_UID + UID_COUNT - 1
UID_COUNT = 4000
OPEN_FILES = 1024           # descriptors a submission process may hold (the usual soft limit)
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
    found = {Path(os.path.realpath(p)) for p in paths if os.path.exists(p)}
    for path in found - {p for p in found for q in found if q in p.parents}:  # outermost only
        blocker = _blocked_ancestor(path)
        if blocker is not None:
            by_blocker.setdefault(blocker, []).append((path, os.open(path, os.O_PATH)))
    for blocker, entries in by_blocker.items():
        _mount("tmpfs", blocker, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=711")
        for path, fd in entries:
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(path, exist_ok=True)
            else:                              # a file is bound onto a file
                os.makedirs(path.parent, exist_ok=True)
                open(path, "a").close()
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            os.close(fd)
        _mount(None, blocker, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _set_limits(limits):
    # The CPU limit's hard value is a second above: reaching it is SIGXCPU, and a SIGKILL comes
    # only from outside (or to a process that ignores SIGXCPU), which the grader tells apart.
    cpu = int(limits.cpu_limit)
    for kind, value in ((resource.RLIMIT_AS, (limits.memory_limit,) * 2),
                        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
                        (resource.RLIMIT_NPROC, (limits.max_processes,) * 2),
                        (resource.RLIMIT_FSIZE, (limits.max_file_size,) * 2),
                        (resource.RLIMIT_NOFILE, (OPEN_FILES,) * 2),
                        (resource.RLIMIT_CORE, (0, 0))):
        try:
            resource.setrlimit(kind, value)
        except (ValueError, OSError):
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # over-long writes fail instead of killing


def run_as(uid, needed):
    """The function to run between fork and exec of bubblewrap, as root: a private mount
    namespace in which `needed` is reachable (see _make_reachable), then a uid of its own, so
    that bubblewrap and every process of the sandbox run unprivileged."""
    def setup():
        _call("unshare", CLONE_NEWNS)
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        _make_reachable(needed)
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return setup


def _prctl(option, value):
    _call("prctl", option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def enclose(limits, work="/work", tmp_size="16m", report=None):
    """In a child of a sealed zygote (autograder.sandbox.seal), before any student code: new user,
    PID, mount, IPC, network and UTS namespaces of its own, so that it sees neither the zygote
    nor other submissions; a fresh tmpfs of `limits.max_file_size` at `work` and small ones at
    /tmp and /dev/shm; no /proc at all; no capabilities; the resource limits.

    The calling process stays in the zygote's PID namespace, waits for the submission, and ends
    as it ends (status and signal): it is what the zygote reports on and kills. This returns in
    the submission process, the first of its PID namespace: when it ends, the kernel kills every
    process it started, and it dies with the waiting process (PR_SET_PDEATHSIG, which the
    submission can clear: the zygote kills it by its pid, which the waiting process writes to
    `report` as the zygote's namespace numbers it, before any code of the submission runs; the
    caller closes `report` in the submission before its code runs)."""
    uid, gid = os.getuid(), os.getgid()
    _call("unshare", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS)
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    pid = os.fork()
    if pid:
        _wait_and_end_as(pid, report)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setsid()          # a group of its own: kill(0, ...) cannot reach the waiting process
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    read_only_everywhere()
    flags = MS_NOSUID | MS_NODEV
    _mount("tmpfs", work, "tmpfs", flags, f"size={int(limits.max_file_size)},mode=0755")
    _mount("tmpfs", "/tmp", "tmpfs", flags, f"size={tmp_size},mode=1777")
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", flags, f"size={tmp_size},mode=1777")
    _mount("tmpfs", "/proc", "tmpfs", flags | MS_NOEXEC | MS_RDONLY, "size=4k,mode=555")
    os.chdir(work)
    _set_limits(limits)
    drop_capabilities()
    seccomp.install(load_libc())


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1
OPTION_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": 1024,
                "nodiratime": 2048, "relatime": 1 << 21, "strictatime": 1 << 24}


def read_only_everywhere():
    """Every mount the submission inherits becomes read-only, the tmpfs folders that the seal
    makes writable for the zygote (/dev, the hidden folders) too: a submission could otherwise
    leave files there for the next submission of the same zygote, and fill memory that stays
    taken after it ends. Its own writable folders are mounted after this, fresh. One call where
    the kernel has mount_setattr (5.12), else each mount of /proc/self/mountinfo in turn."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    libc = load_libc()
    libc.syscall.restype = ctypes.c_long
    if libc.syscall(ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD), b"/",
                    ctypes.c_uint(AT_RECURSIVE), ctypes.byref(attr),
                    ctypes.c_size_t(ctypes.sizeof(attr))) == 0:
        return
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        target = fields[4].encode().decode("unicode_escape")      # \040 for a space, as mount writes it
        kept = sum(OPTION_FLAGS.get(option, 0) for option in fields[5].split(","))
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def _wait_and_end_as(pid, report=None):
    """In the waiting process: tell the zygote the submission's pid (on `report`, 4 bytes: the
    submission cannot forge it, none of its code has run yet), close everything (the
    submission's channels must see end of file when the submission ends), wait, then end with
    the submission's status or signal."""
    if report is not None:
        try:
            os.write(report, pid.to_bytes(4, "big"))
        except OSError:
            pass
    os.closerange(3, 65536)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        if signum not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_capabilities():
    """No capability left and none to regain: securebits locked so that uid 0 (in its own user
    namespace) is an ordinary user, the bounding set emptied, no new privileges on exec."""
    _prctl(PR_SET_SECUREBITS, SECURE_NO_ROOT)
    for cap in range(64):
        if load_libc().prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), ctypes.c_ulong(0),
                             ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
            break                          # past the last capability this kernel knows
    _call("capset", ctypes.byref(_CapHeader(0x20080522, 0)), ctypes.byref((_CapData * 2)()))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def unsealed_setup(limits, workdir):
    """--no-isolation: only the resource limits and the working folder (trusted work only)."""
    os.chdir(workdir)
    _set_limits(limits)


def describe(sealed) -> list:
    """The isolation layers a submission gets."""
    layers = ["own session and process group", "resource limits (memory, CPU, processes, file size)"]
    if sealed:
        layers += ["allow-list file system (bubblewrap): runtime, allowed packages, its probe, "
                   "training data; nothing of the grader",
                   "own user, PID, IPC, mount, network and UTS namespaces",
                   "own size-limited tmpfs working folder", "no /proc, no capabilities",
                   "system-call filter (seccomp): no new processes (threads only), keyrings, "
                   "new namespaces, mounts, memfd, bpf, io_uring or ptrace"
                   if platform.machine() in seccomp.AUDIT_ARCH
                   else f"no system-call filter ({platform.machine()} has no table here)",
                   "unprivileged uid of its own" if os.geteuid() == 0
                   else "the grader's uid, in a user namespace of its own"]
    else:
        layers += ["NONE: --no-isolation (trusted work only: the submission can read and "
                   "write what the grader can)"]
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
