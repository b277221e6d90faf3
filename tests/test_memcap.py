"""The memory cgroup per sandbox (autograder.sandbox.memcap): `memory_limit` bounds the kernel's
memory for a submission too. A socket-buffer hog fills AF_UNIX socket pairs (8 MiB each way
here, net.core.wmem_max permitting), memory that no address-space limit counts: without the
cgroup it holds more than `memory_limit`; with it, it is killed at the limit, and says so."""
import dataclasses
import json
import os
import re
import subprocess
import sys

import pytest

from autograder.sandbox import cpushare, forkserver, memcap, seal
from autograder.sandbox.errors import SubmissionCrashed
from autograder.sandbox.process import Sandbox
from tests.grading import COURSE, ROOT, notebook_from_source, solution_source

MIB = 1 << 20
LIMIT = 1536 * MIB      # above a forked zygote child's address space, which RLIMIT_AS bounds too
PAIRS = 256             # 512 descriptors (RLIMIT_NOFILE: 1024), up to 2 GiB of socket buffers

HOG = f'''
import socket
pairs, held = [], 0
chunk = b"x" * 65536
for _ in range({PAIRS}):
    a, b = socket.socketpair()
    for end in (a, b):
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
        end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
    a.setblocking(False)
    pairs.append((a, b))
    while True:
        try:
            held += a.send(chunk)
        except BlockingIOError:
            break
print(f"held {{held}} bytes in {{len(pairs)}} socket pairs", flush=True)
'''

SEALED = pytest.mark.skipif(seal.unavailable() is not None,
                            reason=f"no sealed sandbox here: {seal.unavailable()}")


def _assignment():
    assignment = COURSE.assignment("01_scalar_autodiff")
    return dataclasses.replace(assignment,
                               limits=dataclasses.replace(assignment.limits, memory_limit=LIMIT))


@pytest.fixture
def fresh_zygotes():
    """Zygotes started for this test alone (their cgroups are made when they start)."""
    forkserver.stop_all()
    yield
    forkserver.stop_all()


def _limit_file(group):
    return group / ("memory.max" if (group / "memory.max").exists() else "memory.limit_in_bytes")


def _usage(group):
    return int((group / ("memory.current" if (group / "memory.current").exists()
                         else "memory.usage_in_bytes")).read_text())


@SEALED
def test_without_the_cgroup_the_hog_holds_more_than_memory_limit(fresh_zygotes, monkeypatch):
    """What the cgroup is for: the address-space limit alone lets the hog past memory_limit."""
    monkeypatch.setenv("AUTOGRADER_MEMORY_CGROUP", "0")
    with Sandbox([(1, HOG)], _assignment()) as sandbox:
        assert sandbox.process.memory is None
        assert memcap.describe(None) in sandbox.layers
        assert sandbox.report["errors"] == [], sandbox.report["errors"]
        held = int(re.search(r"held (\d+) bytes", sandbox.output()).group(1))
    print(f"\nwithout a memory cgroup: the hog held {held / MIB:.0f} MiB of socket buffers "
          f"(memory_limit {LIMIT / MIB:.0f} MiB)")
    assert held > LIMIT


@SEALED
def test_a_socket_buffer_hog_stays_under_memory_limit(fresh_zygotes, monkeypatch):
    monkeypatch.delenv("AUTOGRADER_MEMORY_CGROUP", raising=False)
    if cpushare._parent("memory", "memory.limit_in_bytes")[1] is None:
        pytest.skip(f"{memcap.describe(None)}")
    sandbox = Sandbox([(1, HOG)], _assignment())
    try:
        with pytest.raises(SubmissionCrashed, match="SIGKILL: memory_limit reached"):
            sandbox.start()
        group = sandbox.process.memory
        assert memcap.describe(group) in sandbox.layers
        limit = int(_limit_file(group).read_text())
        peak = memcap.peak(group)
        zygote = _usage(group)              # the submission is gone: what is left is the zygote's
        assert sandbox.process._zygote.alive()    # the kernel chose the submission, not the zygote
    finally:
        sandbox.close()
    assert "held" not in sandbox.captured_output
    print(f"\nwith a memory cgroup: the group's peak {peak / MIB:.0f} MiB, limit {limit / MIB:.0f} "
          f"MiB = the zygote's {(limit - LIMIT) / MIB:.0f} MiB + memory_limit; "
          f"{zygote / MIB:.0f} MiB left after the hog was killed")
    assert limit - LIMIT < 512 * MIB        # the zygote's share, whatever it holds, is small
    assert peak <= limit
    assert zygote < limit - LIMIT + 64 * MIB  # its socket buffers went with it
    assert sandbox.lost is None             # its own limit, not a kill from outside: no regrade


@SEALED
def test_where_no_cgroup_is_made_the_results_and_the_run_say_so(tmp_path):
    notebook = notebook_from_source(solution_source("01_scalar_autodiff"),
                                    tmp_path / "alice_scalar_autodiff.ipynb")
    env = {**os.environ, "AUTOGRADER_MEMORY_CGROUP": "0", "AUTOGRADER_CPU_SHARE": "0"}
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out",
                          str(tmp_path / "out"), "--quiet"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads((tmp_path / "out" / "results" / "alice" / "01_scalar_autodiff.json").read_text())
    assert result["score"] == 10
    assert memcap.describe(None) in result["isolation"]
    assert cpushare.describe(None) in result["isolation"]
    assert f"note: {memcap.describe(None)}" in run.stdout
    assert f"note: {cpushare.describe(None)}" in run.stdout
