"""A CPU share per sandbox: a cgroup that caps a zygote and every submission it forks at
`CPUS` processors, so that a submission keeping many processes busy slows down only itself,
not a neighbour graded at the same time.

cgroup v2 where this process may make a child cgroup with the cpu controller (a delegated
subtree, or root on a v2 machine): `cpu.max`. cgroup v1's cpu controller otherwise (root):
`cpu.cfs_quota_us`. Where neither can be had, nothing: the resource limits still apply, and
`describe` says so. A process joins its cgroup itself, between fork and exec, so that nothing
it starts escapes (`join`). Empty cgroups that a killed grader left are removed by the next.
`make` (a new cgroup where a controller can be had) serves autograder.sandbox.memcap too.
"""
from __future__ import annotations

import itertools
import os
from pathlib import Path

CPUS = 1.0                  # processors per sandbox
PERIOD = 100_000            # microseconds
PREFIX = "autograder-"
UNAVAILABLE = "no cgroup available here"    # in `describe` (and memcap's) where none was made
_counter = itertools.count()


def _own_cgroup(version, controller="cpu") -> Path | None:
    """The folder of this process's cgroup: v2 (the unified hierarchy), or v1's `controller`
    (autograder.sandbox.memcap asks for "memory")."""
    mounts = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        kind, options = fields[fields.index("-") + 1], fields[-1].split(",")
        if kind == "cgroup2":
            mounts.setdefault(2, fields[4])
        elif kind == "cgroup" and controller in options:
            mounts.setdefault(1, fields[4])
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        number, controllers, path = line.split(":", 2)
        if version in mounts and ((version == 2 and number == "0")
                                  or (version == 1 and controller in controllers.split(","))):
            return Path(mounts[version]) / path.lstrip("/")
    return None


def _parent(controller="cpu", v1_file="cpu.cfs_quota_us") -> tuple:
    """(cgroup version, folder to make sandbox cgroups in) where `controller` can be had: v2
    where it is enabled for our cgroup's children and we may write there, v1 where its
    hierarchy has `v1_file` and we may write there; or (None, None)."""
    v2 = _own_cgroup(2)
    try:
        if v2 is not None and controller in (v2 / "cgroup.subtree_control").read_text().split() \
                and os.access(v2, os.W_OK):
            return 2, v2
    except OSError:
        pass
    v1 = _own_cgroup(1, controller)
    if v1 is not None and (v1 / v1_file).exists() and os.access(v1, os.W_OK):
        return 1, v1
    return None, None


def create() -> Path | None:
    """A new cgroup capped at CPUS, or None where this machine gives none to us (or where
    AUTOGRADER_CPU_SHARE=0 says not to make one, e.g. to measure what it changes)."""
    if os.environ.get("AUTOGRADER_CPU_SHARE") == "0":
        return None
    version, group = make("cpu", "cpu.cfs_quota_us")
    if group is None:
        return None
    try:
        if version == 2:
            (group / "cpu.max").write_text(f"{int(CPUS * PERIOD)} {PERIOD}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD))
            (group / "cpu.cfs_quota_us").write_text(str(int(CPUS * PERIOD)))
    except OSError:
        remove(group)
        return None
    return group


def make(controller, v1_file) -> tuple:
    """(cgroup version, a new empty cgroup) where `controller` can be had (see `_parent`), or
    (None, None). Sweeps first the empty cgroups that graders gone left in the same place."""
    try:
        version, parent = _parent(controller, v1_file)
    except OSError:
        return None, None
    if parent is None:
        return None, None
    for old in parent.glob(PREFIX + "*"):      # those of graders gone (a killed one's stay)
        if not _owner_alive(old):
            remove(old)
    group = parent / f"{PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        group.mkdir()
    except OSError:
        return None, None
    return version, group


def _owner_alive(group: Path) -> bool:
    """Whether the grader that made `group` (its pid is in the name: PREFIX + pid-count) still
    runs: a running grader's new cgroup is empty until its zygote joins it, and must not be
    swept meanwhile. A name of another form is not a grader's: it is left alone too."""
    owner, _, count = group.name[len(PREFIX):].partition("-")
    return not (owner.isdigit() and count.isdigit()) or os.path.exists(f"/proc/{owner}")


def join(group: Path | None) -> None:
    """Move the calling process into `group` (between fork and exec: its children follow)."""
    if group is not None:
        with open(group / "cgroup.procs", "w") as procs:
            procs.write(str(os.getpid()))


def remove(group: Path | None) -> None:
    """Remove `group` once it is empty (a cgroup with processes stays)."""
    if group is not None:
        try:
            group.rmdir()
        except OSError:
            pass


def describe(group) -> str:
    return (f"CPU share: at most {CPUS:g} processor (cgroup)" if group is not None else
            f"no CPU share ({UNAVAILABLE}): a busy submission can slow its neighbours")
