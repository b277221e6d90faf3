"""The zygote (autograder.sandbox.zygote, autograder.sandbox.forkserver): submissions forked from a process that
has imported what they need, graded exactly as when each starts a fresh interpreter."""
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import pytest

from autograder.sandbox import forkserver
from autograder.grading.grade import Submission, grade_one
from autograder.sandbox.process import Sandbox, SubmissionCrashed
from tests.grading import COURSE, ROOT, exercise_path, repeatable, solution_source
from tests.mutants import all_mutants

pytestmark = pytest.mark.skipif(not forkserver.enabled(), reason="the zygote is for Linux")


def _children(pid) -> list:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def _descendants(pid) -> list:
    found, todo = [], [pid]
    while todo:
        children = _children(todo.pop())
        found += children
        todo += children
    return found


def _command(pid) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def _host_pids(sandbox) -> tuple:
    """(zygote, submission) as the grader's machine numbers them: the sandbox's own numbers
    are those of the zygote's PID namespace. Below bubblewrap: the zygote, then per submission
    a waiting process and the submission, the first of its own PID namespace."""
    bwrap = sandbox.process._zygote.process.pid
    forks = [p for p in _descendants(bwrap) if b"autograder.sandbox.zygote" in _command(p)   # and its children
             and not _command(p).startswith(_command(bwrap).split(b"\0")[0])]      # not bwrap's own
    [zygote] = [p for p in forks if not any(p in _children(q) for q in forks)]
    [middle] = _children(zygote)
    [submission] = _children(middle)
    return zygote, submission


def _sandbox(*cells, assignment="01_scalar_autodiff", **limits):
    a = COURSE.assignment(assignment)
    if limits:
        a = dataclasses.replace(a, limits=dataclasses.replace(a.limits, **limits))
    return Sandbox([(n, code) for n, code in enumerate(cells, start=1)], a)


def _gone(pid) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True


def test_a_submission_is_forked_by_a_zygote_into_namespaces_of_its_own():
    with _sandbox("x = 1") as sandbox:
        zygote, submission = _host_pids(sandbox)
        assert b"autograder.sandbox.zygote" in _command(zygote)
        assert sandbox.report["errors"] == []
        for ns in ("pid", "user", "mnt", "ipc", "net", "uts"):
            assert os.readlink(f"/proc/{zygote}/ns/{ns}") != os.readlink(f"/proc/{submission}/ns/{ns}"), ns
        status = Path(f"/proc/{submission}/status").read_text()
        assert "CapEff:\t0000000000000000" in status and "NoNewPrivs:\t1" in status
        if os.geteuid() == 0:           # as root: never root, but a uid of its own
            assert os.stat(f"/proc/{submission}").st_uid >= 61000


def test_a_child_inherits_no_socket_or_pipe_of_the_zygote():
    """Only its two channels to the grader (and its output file)."""
    with _sandbox("x = 1") as sandbox:
        _, submission = _host_pids(sandbox)
        fds = Path(f"/proc/{submission}/fd")
        links = [os.readlink(fds / fd) for fd in os.listdir(fds)]
        assert sandbox.report["errors"] == []
    assert sum(link.startswith("pipe:") for link in links) == 2, links
    assert not [link for link in links if "socket" in link or "eventpoll" in link], links


def _notebooks(tmp_path):
    notebooks = {
        "solution_01": ("01_scalar_autodiff", jupytext.reads(solution_source("01_scalar_autodiff"), fmt="py:percent")),
        "stub_01": ("01_scalar_autodiff", nbformat.read(str(exercise_path("01_scalar_autodiff")), as_version=4)),
    }
    for assignment in ("04_activation_functions", "06_optimizers"):
        notebooks[f"solution_{assignment[:2]}"] = (assignment, jupytext.reads(solution_source(assignment),
                                                                             fmt="py:percent"))
    mutant = next(m for m in all_mutants() if m.assignment == "01_scalar_autodiff")
    notebooks["mutant_01"] = ("01_scalar_autodiff", jupytext.reads(mutant.source(), fmt="py:percent"))
    paths = {}
    for name, (assignment, notebook) in notebooks.items():
        paths[name] = (tmp_path / f"{name}.ipynb", assignment)
        nbformat.write(notebook, str(paths[name][0]))
    return paths


def test_grading_is_the_same_with_and_without_the_zygote(tmp_path, monkeypatch):
    """Scores, messages, output, flags and the figures' PNG bytes, for notebooks that import
    matplotlib and dp (04, 06) or must not import dp (01). (In 06, a child that closed the
    font files the zygote's matplotlib keeps open printed errors.)"""
    graded, notebooks = {}, _notebooks(tmp_path)
    for zygote in ("1", "0"):
        monkeypatch.setenv("AUTOGRADER_ZYGOTE", zygote)
        for name, (path, assignment) in notebooks.items():
            result, figures = grade_one(Submission(path, name, assignment))
            graded[zygote, name] = json.dumps(repeatable(result), sort_keys=True), figures
    for name in notebooks:
        assert graded["1", name][0] == graded["0", name][0], name
        assert graded["1", name][1] == graded["0", name][1], name
    assert json.loads(graded["1", "solution_04"][0])["score"] == COURSE.assignment("04_activation_functions").max_score
    assert graded["1", "solution_04"][1], "the figures of 04"


def test_a_dead_zygote_is_replaced():
    with _sandbox("x = 1") as sandbox:
        first, _ = _host_pids(sandbox)
    os.kill(first, signal.SIGKILL)
    with _sandbox("x = 2") as sandbox:
        second, _ = _host_pids(sandbox)
        assert sandbox.probe("__figures__") == []
    assert second != first and _gone(first)


def test_a_zygote_that_cannot_start_is_an_error_never_less_isolation(monkeypatch):
    monkeypatch.setattr(forkserver, "BOOTSTRAP", "import sys; sys.exit(3)")
    monkeypatch.setattr(forkserver, "_zygotes", {})
    with pytest.raises(SubmissionCrashed, match="the sandbox could not start: the zygote (ended|is gone)"):
        with _sandbox("y = 1", assignment="02_matrix_autodiff"):
            pass


def test_the_exit_status_of_a_forked_submission_reaches_the_grader():
    with _sandbox("x = 1") as sandbox:
        os.kill(_host_pids(sandbox)[1], signal.SIGKILL)
        with pytest.raises(SubmissionCrashed, match="signal SIGKILL"):
            sandbox.probe("__figures__")
    assert sandbox.process is None


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_a_zygote_imports_no_module_its_assignment_forbids(assignment):
    a = COURSE.assignment(assignment)
    modules = forkserver.preload_for(a)
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\nimport importlib\n"
            f"for m in {list(modules)!r}:\n    importlib.import_module(m)\n"
            "from autograder.sandbox.zygote import warm_up\nwarm_up()\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(a.forbidden_imports)!r}))")
    run = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         env={"MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "PATH": os.environ["PATH"]})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_a_zygote_ends_with_its_grader_and_takes_its_submissions_along(tmp_path):
    """The grader killed (SIGKILL: no clean-up of its own): its zygote sees the end of its
    control socket, kills the submission still running, removes its folder and exits."""
    code = (f"import sys, os, time; sys.path.insert(0, {str(ROOT)!r})\n"
            "from tests.test_zygote import _sandbox\n"
            "sandbox = _sandbox('import time\\nwhile True:\\n    time.sleep(1)', time_limit=300, cpu_limit=300)\n"
            "import threading; threading.Thread(target=sandbox.start, daemon=True).start()\n"
            "while sandbox.process is None:\n    time.sleep(0.05)\n"
            "from tests.test_zygote import _host_pids\n"
            "print(*_host_pids(sandbox), sandbox.process._zygote.process.pid, flush=True)\n"
            "time.sleep(600)\n")
    grader = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "TMPDIR": str(tmp_path)})
    zygote, child, bwrap = map(int, grader.stdout.readline().split())
    everything = [bwrap, *_descendants(bwrap)]
    assert zygote in everything and child in everything
    grader.kill()
    grader.wait()
    deadline = time.monotonic() + 10
    while not all(map(_gone, everything)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(map(_gone, everything)), [p for p in everything if not _gone(p)]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("autograder-zygote-")]


# -- nothing of a submission outlives its sandbox (red team A1) --------------------------------
UNPRIVILEGED = 60999          # the unprivileged grader's uid, as in tests/test_hostile.py


def linger_cell(name: str) -> str:
    """A cell that tries to leave processes named `name` behind: sleeping daemons started while
    the notebook runs, and, once the submission is told to stop, a first process that does not
    end and busy ones. Each clears its PR_SET_PDEATHSIG, double-forks and starts a session of
    its own (ctypes: the guards' os.fork would refuse). The seccomp filter refuses the forks
    (it prints what fork returned); the first process still lingers, busy."""
    return f"""import ctypes, sys, time
libc = ctypes.CDLL(None)
def _stay(busy):
    libc.prctl(15, b"{name}")
    while True:
        if not busy:
            time.sleep(1)
def _daemon(busy):
    child = libc.fork()
    print("fork:", child, flush=True)
    if child == 0:
        libc.setsid()
        libc.prctl(1, 0, 0, 0, 0)
        if libc.fork() == 0:
            _stay(busy)
        libc._exit(0)
def _linger(code):
    libc.prctl(1, 0, 0, 0, 0)
    for _ in range(3):
        _daemon(True)
    _stay(True)
_daemon(False)
_daemon(False)
sys.modules["autograder.sandbox.runner"]._exit = _linger
"""


def _named(name) -> list:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == name:
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def _in_namespace(ns) -> list:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "ns" / "pid") == ns:
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def linger_scenario(name) -> dict:
    """A lingering submission, then the next one, graded by the same zygote: which processes
    exist while each runs and once the first has closed."""
    seen = {}
    sandbox = _sandbox(linger_cell(name), "x = 1")
    with sandbox:
        zygote, submission = _host_pids(sandbox)
        sandbox.process_zygote = sandbox.process._zygote
        ns = os.readlink(f"/proc/{submission}/ns/pid")
        time.sleep(0.5)                     # the daemons have named themselves
        seen["during"] = _named(name)
        seen["errors"] = sandbox.report["errors"]
    seen["after"] = _named(name)
    seen["namespace_after"] = _in_namespace(ns)
    seen["output"] = sandbox.captured_output
    with _sandbox("x = 2") as following:
        seen["same_zygote"] = following.process._zygote is sandbox.process_zygote
        seen["next"] = _named(name)
        seen["next_errors"] = following.report["errors"]
        # below the zygote: the next submission's waiting process and itself, nothing else
        seen["next_tree"] = [Path(f"/proc/{p}/stat").read_text()[:60] for p in _descendants(zygote)]
    return seen


@pytest.mark.parametrize("mode", ["root", "unprivileged"] if os.geteuid() == 0 else ["unprivileged"])
def test_nothing_of_a_submission_outlives_its_sandbox(mode, tmp_path):
    """A submission that clears PR_SET_PDEATHSIG, tries to double-fork and start sessions of its
    own (refused: autograder.sandbox.seccomp) and leaves itself busy: once its sandbox has closed, no
    process of it (of its PID namespace) exists; the next submission from the same zygote runs
    alongside nothing of it, and the result says that it had to be killed."""
    from autograder.sandbox import isolation, seal
    if seal.unavailable() is not None:
        pytest.skip(f"no sealed sandbox here: {seal.unavailable()}")
    name = f"lng{os.getpid()}{mode[0]}"[:15]
    if mode == "root":
        seen = linger_scenario(name)
    else:
        code = (f"import json, sys; sys.path.insert(0, {str(ROOT)!r})\n"
                "from tests.test_zygote import linger_scenario\n"
                f"print(json.dumps(linger_scenario({name!r})))\n")
        extra = {}
        if os.geteuid() == 0:
            os.chown(tmp_path, UNPRIVILEGED, UNPRIVILEGED)
            extra["preexec_fn"] = isolation.run_as(UNPRIVILEGED, [sys.prefix, sys.base_prefix,
                                                                  str(ROOT), str(tmp_path)])
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                             timeout=300, env={**os.environ, "TMPDIR": str(tmp_path),
                                               "HOME": str(tmp_path)}, **extra)
        assert run.returncode == 0, run.stderr[-3000:]
        seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["errors"] == [] and seen["next_errors"] == []
    assert seen["during"] == [] and "fork: -1" in seen["output"], seen   # no process but threads
    assert seen["after"] == [] and seen["namespace_after"] == [], seen
    assert "were still running after it was told to stop" in seen["output"]
    assert seen["same_zygote"], seen
    assert seen["next"] == [] and len(seen["next_tree"]) == 2, seen
    assert _named(name) == []


# -- no open file description is shared between submissions (red team A7) ----------------------
OFFSETS = """import os, stat
for fd in range(3, 1024):
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            {move}
            print("OFFSET", fd, os.lseek(fd, 0, os.SEEK_CUR))
    except OSError:
        pass
"""


def _offsets(move="pass") -> dict:
    with _sandbox(OFFSETS.format(move=move)) as sandbox:
        assert sandbox.report["errors"] == []
    return {int(fd): int(offset) for _, fd, offset in
            (line.split() for line in sandbox.captured_output.splitlines() if line.startswith("OFFSET "))}


def test_a_file_offset_carries_nothing_to_the_next_submission():
    """Each file a child inherits open from the zygote (matplotlib's fonts) has an open file
    description of its own: a submission that moves the offset of every one of them changes
    nothing that the next submission sees."""
    before = _offsets()
    moved = _offsets("os.lseek(fd, 4099 * fd + 7, os.SEEK_SET)")
    after = _offsets()
    assert before, "no file inherited open: nothing tested"
    assert moved == {fd: 4099 * fd + 7 for fd in before} and moved != before
    assert after == before
