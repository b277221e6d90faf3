"""A memory cgroup per sandbox: `memory_limit` (course.toml) bounds everything a submission
holds, the kernel's memory for it included (socket buffers, pipes, page tables), not only the
address space of its process (the RLIMIT_AS that autograder.sandbox.isolation sets).

The cgroup holds a zygote and the submission it forks (as the CPU share does,
autograder.sandbox.cpushare). Before each fork, the grader sets its limit to

    limit = usage(zygote, now) + memory_limit

so that the submission may charge at most `memory_limit` bytes of its own: the pages it shares
with the zygote copy-on-write are charged once, to the zygote. No swap (memory.swap.max = 0;
v1: memory.memsw.limit_in_bytes = limit). A submission past its limit is killed by the kernel
(the cgroup's OOM killer; the child's oom_score_adj is 1000, so it goes first, never the
zygote), and `oom_kills` tells the grader that its SIGKILL came from its own limit.

cgroup v2 where this process may make a child cgroup with the memory controller (root, or a
delegated subtree): the CPU share's cgroup when it has the memory controller too (a process
is in one v2 cgroup), a cgroup of its own otherwise. cgroup v1's memory controller otherwise
(root): kernel memory is charged there too (kmem accounting), socket buffers of AF_UNIX pairs
among it. Where neither can be had, nothing: `describe` says so, and each result's
`isolation` with it. AUTOGRADER_MEMORY_CGROUP=0 makes none (to measure what it changes).
"""
from __future__ import annotations

import os
from pathlib import Path

from . import cpushare


def create(share: Path | None) -> Path | None:
    """The memory cgroup for a zygote whose CPU share is `share` (which may serve), or None."""
    if os.environ.get("AUTOGRADER_MEMORY_CGROUP") == "0":
        return None
    if share is not None and (share / "memory.max").exists():
        return share
    _, group = cpushare.make("memory", "memory.limit_in_bytes")
    return group


def limit(group: Path | None, memory_limit: int) -> None:
    """Let the next submission of `group` charge `memory_limit` bytes beyond what is charged
    now (the zygote's). OSError if the kernel refuses."""
    if group is None:
        return
    if (group / "memory.max").exists():
        total = int((group / "memory.current").read_text()) + memory_limit
        (group / "memory.max").write_text(str(total))
        if (group / "memory.swap.max").exists():
            (group / "memory.swap.max").write_text("0")
        return
    total = int((group / "memory.usage_in_bytes").read_text()) + memory_limit
    # v1 wants memsw >= limit at every step: raise memsw first when raising, last when lowering.
    names = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
    if int((group / names[0]).read_text()) < total:
        names.reverse()
    for name in names:
        if (group / name).exists():
            (group / name).write_text(str(total))


def oom_kills(group: Path | None) -> int:
    """How many processes of `group` its limit has killed so far (v2: memory.events; v1:
    memory.oom_control); 0 where there is no group or no counter."""
    if group is None:
        return 0
    for name in ("memory.events", "memory.oom_control"):
        try:
            for line in (group / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            continue
    return 0


def peak(group: Path | None) -> int | None:
    """The most `group` has held at once, in bytes (v2: memory.peak, Linux 5.19; v1:
    memory.max_usage_in_bytes), or None."""
    if group is None:
        return None
    for name in ("memory.peak", "memory.max_usage_in_bytes"):
        try:
            return int((group / name).read_text())
        except (OSError, ValueError):
            continue
    return None


def describe(group) -> str:
    return ("memory: memory_limit bounds all a submission holds, kernel memory included (cgroup)"
            if group is not None else
            f"no memory cgroup ({cpushare.UNAVAILABLE}): memory_limit bounds the address space "
            "only, not kernel memory such as socket buffers")
