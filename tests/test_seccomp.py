"""The system-call filter (autograder.sandbox.seccomp): the calls it refuses are refused inside a sealed
submission, as root and as an unprivileged grader (new processes among them), and threads
still work. And nothing the submission inherits is writable (isolation.read_only_everywhere):
only its own /work, /tmp and /dev/shm, fresh for each submission."""
import errno
import json
import os
import platform
import struct
import subprocess
import sys

import pytest

from autograder.sandbox import isolation, seal, seccomp
from tests.grading import ROOT, notebook_from_source, solution_source

A = "01_scalar_autodiff"
UNPRIVILEGED = 60998
MODES = ["root", "unprivileged"] if os.geteuid() == 0 else ["unprivileged"]

# x86_64 numbers, written out here rather than taken from the module under test
CALLS = {"fork": "57", "vfork": "58", "clone_process": "56, 17, 0, 0, 0, 0",
         "keyctl": "250, 0, -3, 0", "add_key": "248, 0, 0, 0, 0, -3", "request_key": "249, 0, 0, 0, 0",
         "unshare": "272, 0x10000000", "setns": "308, 0, 0",
         "clone_newuser": "56, 0x10000000 | 17, 0, 0, 0, 0", "clone_newnet": "56, 0x40000000 | 17, 0, 0, 0, 0",
         "clone3": "435, 0, 0", "memfd_create": "319, 0, 0", "shmget": "29, 0, 1 << 20, 0o1600",
         "msgget": "68, 0, 0o1600", "io_setup": "206, 1000, 0",
         "mount": "165, 0, 0, 0, 0, 0", "fsopen": "430, 0, 0", "bpf": "321, 0, 0, 0",
         "userfaultfd": "323, 0", "perf_event_open": "298, 0, 0, -1, -1, 0",
         "io_uring_setup": "425, 1, 0", "ptrace": "101, 0, 0, 0, 0", "process_vm_readv": "310, 1, 0, 0, 0, 0, 0"}
CELL = f"""
import ctypes, errno, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return result, ctypes.get_errno()
tried = {{{", ".join(f"{name!r}: call({args})" for name, args in CALLS.items())}}}
made = {{name: result for name, result in tried.items()
         if result[0] >= 0 or result[1] not in (errno.EPERM, errno.ENOSYS)}}
done = []
thread = threading.Thread(target=done.append, args=[1])
thread.start()
thread.join()
child = libc.fork()                   # the C library's fork: clone without CLONE_THREAD
if child == 0:
    libc._exit(0)
import os
writable = []
for top, folders, _ in os.walk("/"):
    if top.startswith(("/work", "/tmp", "/dev/shm", "/proc")) or top.count("/") > 4:
        folders[:] = []
        continue
    try:
        os.mkdir(os.path.join(top, "left-for-the-next"))
        writable.append(top)
    except OSError:
        pass
print("writable:", writable)
print(f"refused {{len(tried) - len(made)}} of {{len(tried)}}; made: {{made}}; thread {{done}}; "
      f"process {{child}}")
"""


def test_the_filter_names_every_call_once_and_allows_the_rest():
    for machine in seccomp.AUDIT_ARCH:
        code = seccomp.program(machine)
        ops = [struct.unpack("=HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
        assert ops[-1] == (seccomp.RET_K, 0, 0, seccomp.RET_ALLOW)
        column = 0 if machine == "x86_64" else 1
        compared = [k for code_, _, _, k in ops if code_ == seccomp.JEQ_K]
        numbers = [n[column] for n in seccomp.DENIED.values() if n[column] is not None]
        assert all(number in compared for number in numbers)
        assert len(numbers) == len(set(numbers)), machine


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the notebook's call numbers are x86_64's")
@pytest.mark.skipif(seal.unavailable() is not None, reason=f"no sealed sandbox: {seal.unavailable()}")
@pytest.mark.parametrize("mode", MODES)
def test_a_submission_is_refused_every_filtered_call(mode, tmp_path):
    folder = tmp_path / "submitted" / "mallory" / A
    folder.mkdir(parents=True)
    notebook_from_source(solution_source(A) + "\n# %%\n" + CELL, folder / "scalar_autodiff.ipynb")
    extra = {}
    if mode == "unprivileged" and os.geteuid() == 0:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            os.chown(path, UNPRIVILEGED, UNPRIVILEGED)
        extra["preexec_fn"] = isolation.run_as(UNPRIVILEGED, [sys.prefix, sys.base_prefix, str(ROOT),
                                                               str(tmp_path)])
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(tmp_path / "submitted"),
                          "--out", str(tmp_path / "out"), "--quiet"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, env={**os.environ, "TMPDIR": str(tmp_path),
                                                      "HOME": str(tmp_path)}, **extra)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads((tmp_path / "out" / "results" / "mallory" / f"{A}.json").read_text())
    assert f"refused {len(CALLS)} of {len(CALLS)}; made: {{}}; thread [1]; process -1" in \
        result["output"], result["output"][-2000:]
    assert "writable: []" in result["output"], result["output"][-2000:]
    assert result["score"] == 10, result["tasks"]
    assert any(layer.startswith("system-call filter (seccomp)") for layer in result["isolation"])
