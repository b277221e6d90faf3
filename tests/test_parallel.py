"""Grading a class in parallel: the results of one core on all cores and on Dask; a submission
that loops holds up no other; an interrupted run stops its submissions at once."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import pytest

from autograder.grading import executors
from autograder.grading.executors import process_table, submission_processes
from tests.grading import ROOT, exercise_path, repeatable, solution_source
from tests.mutants import all_mutants

A = "01_scalar_autodiff"
LOOP = "while True:\n    pass\n"


def _write(submitted, student, notebook):
    path = submitted / student / A / "scalar_autodiff.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, str(path))


def _solution():
    return jupytext.reads(solution_source(A), fmt="py:percent")


def _grade(*args, env=None):
    return subprocess.run([sys.executable, "-m", "autograder", "grade", *map(str, args), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=env and {**os.environ, **env})


def _graded(out):
    """Everything a run wrote, by relative path: results, feedback pages, grades.csv. Results
    without `course_sha256`, which the main process adds (a digest of course.toml and of the
    checks of every assignment, which may change while the suite runs, as a course grows), and
    without `seconds`, the time grading took."""
    graded = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        text = path.read_text()
        if path.suffix == ".json":
            text = repeatable(json.loads(text), also=("course_sha256",))
        graded[path.relative_to(out).as_posix()] = text
    return graded


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """Four notebooks of 01 (solution, stub, two mutants), graded on one core."""
    root = tmp_path_factory.mktemp("classroom")
    _write(root / "submitted", "solution", _solution())
    _write(root / "submitted", "stub", nbformat.read(str(exercise_path(A)), as_version=4))
    for mutant in [m for m in all_mutants() if m.assignment == A][:2]:
        _write(root / "submitted", mutant.name, jupytext.reads(mutant.source(), fmt="py:percent"))
    run = _grade(root / "submitted", "--out", root / "one-core", "--jobs", "1")
    assert run.returncode == 0, run.stderr
    graded = _graded(root / "one-core")
    assert len([p for p in graded if p.startswith("results/")]) == 4
    return root / "submitted", graded, root


def test_all_cores_give_the_results_of_one_core(classroom):
    submitted, one_core, root = classroom
    run = _grade(submitted, "--out", root / "all-cores", "--jobs", "2")
    assert run.returncode == 0, run.stderr
    assert _graded(root / "all-cores") == one_core


def test_dask_local_cluster_gives_the_results_of_one_core(classroom):
    pytest.importorskip("distributed")
    submitted, one_core, root = classroom
    run = _grade(submitted, "--out", root / "dask", "--executor", "dask", "--jobs", "2")
    assert run.returncode == 0, run.stderr
    assert _graded(root / "dask") == one_core


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dask_cluster_at_a_scheduler_address_gives_the_results_of_one_core(classroom):
    pytest.importorskip("distributed")
    submitted, one_core, root = classroom
    address = f"tcp://127.0.0.1:{_free_port()}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}   # as on a real cluster: the repository installed
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen([*dask, "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                                  "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                               "--nworkers", "2", "--no-dashboard", "--host", "127.0.0.1"], cwd="/",
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run = _grade(submitted, "--out", root / "cluster", "--executor", "dask", "--scheduler", address)
    finally:
        for process in (worker, scheduler):
            process.terminate()
            process.wait(timeout=60)
    assert run.returncode == 0, run.stderr
    assert _graded(root / "cluster") == one_core


def _our_submissions(grader) -> set:
    """One process per submission being graded below `grader`: the one a zygote forked."""
    parents, commands = process_table()
    found = submission_processes(parents, commands)
    tops = {pid for pid in found if parents[pid] not in found}
    below = set()
    for pid in tops:
        ancestor = parents.get(pid)
        while ancestor not in (None, 0, 1, grader):
            ancestor = parents.get(ancestor)
        if ancestor == grader:
            below.add(pid)
    return below


def _alive(pids) -> set:
    return {p for p in pids if Path(f"/proc/{p}").exists()
            and Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"}


def _as_from_a_terminal():
    """Ctrl-C as an instructor's shell delivers it: a pytest worker may have come to ignore or
    block SIGINT (a disposition and a mask that its children inherit, and with which Python
    leaves Ctrl-C ignored), which no terminal does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_a_submission_that_loops_holds_up_no_other_and_ctrl_c_stops_it(tmp_path, executor):
    """The looping notebook is graded first and may run for ten minutes: the others must be
    graded meanwhile. Ctrl-C then ends the run and the loop, without waiting for its limit."""
    if executor == "dask":
        pytest.importorskip("distributed")
    course = (ROOT / "course.toml").read_text()
    course = course.replace('notebook = "scalar_autodiff"\n',
                            'notebook = "scalar_autodiff"\ntime_limit = 600\ncpu_limit = 900\n', 1)
    (tmp_path / "course.toml").write_text(course)
    submitted, out = tmp_path / "submitted", tmp_path / "out"
    loop = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(LOOP)])
    _write(submitted, "a_loops", loop)
    quick = ["b", "c", "d"]
    for student in quick:
        _write(submitted, student, _solution())
    start = time.monotonic()
    run = subprocess.Popen([sys.executable, "-m", "autograder", "--course", str(tmp_path / "course.toml"),
                            "grade", str(submitted), "--out", str(out), "--jobs", "2", "--quiet",
                            "--executor", executor], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True,
                           preexec_fn=_as_from_a_terminal)
    try:
        while not all((out / "results" / s / f"{A}.json").exists() for s in quick):
            assert run.poll() is None, run.stderr.read()
            assert time.monotonic() - start < 300, "the quick submissions waited for the loop"
            time.sleep(0.2)
        took = time.monotonic() - start
        assert not (out / "results" / "a_loops").exists(), f"after {took:.1f} s"
        looping = _our_submissions(run.pid)
        assert len(looping) == 1, looping
    finally:
        os.killpg(run.pid, signal.SIGINT)                 # Ctrl-C
        stopping = time.monotonic()
        try:        # read its output meanwhile: a full pipe would hold it up at its first write
            _, stderr = run.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            _, stderr = run.communicate()
            raise AssertionError(f"Ctrl-C did not end the run in 120 s; it wrote:\n{stderr[-4000:]}")
    assert run.returncode == 130, stderr
    assert time.monotonic() - stopping < 60
    deadline = time.monotonic() + 10
    while _alive(looping) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(looping), "the looping submission outlived the interrupted run"
    for student in quick:
        result = json.loads((out / "results" / student / f"{A}.json").read_text())
        assert result["score"] == result["max_score"] == 10


def test_scheduler_without_dask_is_refused(tmp_path):
    run = _grade(ROOT / "exercises" / A, "--scheduler", "tcp://127.0.0.1:1", "--out", tmp_path / "out")
    assert run.returncode == 2 and "--scheduler needs --executor dask" in run.stderr


def test_an_unreachable_scheduler_is_named_without_a_traceback(tmp_path):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    run = _grade(ROOT / "exercises" / A, "--out", tmp_path / "out", "--executor", "dask",
                 "--scheduler", address, env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert run.returncode == 2, run.stderr
    assert f"cannot reach the Dask scheduler at {address}" in run.stderr
    assert "Traceback" not in run.stderr


class FakeClient:
    """What _check_workers asks of a Dask client, with workers that answer `answers`."""

    def __init__(self, answers, threads=1):
        self.answers, self.threads = answers, threads

    def wait_for_workers(self, n, timeout):
        pass

    def run(self, function, *args):
        return {worker: {**function(*args), **answer} for worker, answer in self.answers.items()}

    def nthreads(self):
        return {worker: self.threads for worker in self.answers}


def test_workers_that_would_grade_differently_are_refused(tmp_path):
    submission = tmp_path / "x.ipynb"
    submission.write_text("{}")
    client = FakeClient({"tcp://a:1": {}, "tcp://b:1": {"numpy": "1.0.0", str(submission): "unreadable"}})
    with pytest.raises(executors.ExecutorError) as error:
        executors._check_workers(client, [str(submission)])
    message = str(error.value)
    assert "tcp://b:1: numpy 1.0.0 there" in message and f"tcp://b:1: {submission} unreadable" in message
    assert "tcp://a:1" not in message
    executors._check_workers(FakeClient({"tcp://a:1": {}}), [str(submission)])   # the same: fine


def test_workers_with_several_threads_are_told_to_use_one(capsys):
    executors._check_workers(FakeClient({"tcp://a:1": {}}, threads=4), [])
    assert "--nthreads 1" in capsys.readouterr().err


# -- a worker that dies with its call (issue 21) --------------------------------------------------
def _dies_on(marker_dir, name, deaths):
    """Kill this worker the first `deaths` times it is called with `name`, then answer."""
    marker = Path(marker_dir) / name
    count = int(marker.read_text()) if marker.exists() else 0
    if count < deaths:
        marker.write_text(str(count + 1))
        os.kill(os.getpid(), signal.SIGKILL)
    return name, os.getpid()


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_a_call_whose_worker_dies_is_retried_once_then_lost(tmp_path, executor):
    """A call whose worker dies once is answered by a fresh worker; one whose worker dies
    twice gets `lost`'s answer, with the reason; the other calls are answered as usual."""
    calls = [(str(tmp_path), "once", 1), (str(tmp_path), "always", 9), (str(tmp_path), "never", 0),
             (str(tmp_path), "never2", 0)]
    lost = []
    with executors.completed(_dies_on, calls, executor, workers=2,
                             lost=lambda args, reason: lost.append((args[1], reason)) or (args[1], None)) as answers:
        got = dict(answers)
    assert set(got) == {"once", "always", "never", "never2"}
    assert got["once"] is not None and got["never"] is not None and got["always"] is None
    assert [name for name, _ in lost] == ["always"]
    assert "twice" in lost[0][1] and ("SIGKILL" in lost[0][1] or executor == "dask"), lost
    assert (tmp_path / "once").read_text() == "1" and int((tmp_path / "always").read_text()) == 2


def test_pool_workers_die_with_the_main_process(tmp_path):
    """SIGKILL to the process that runs the pool: its workers end too (PR_SET_PDEATHSIG)."""
    script = ("import sys, time, os\nfrom autograder.grading import executors\n"
              "def nap(i):\n    time.sleep(60)\n"
              "with executors.completed(nap, [(1,), (2,)], 'local', workers=2) as answers:\n"
              "    print(os.getpid(), flush=True)\n    list(answers)\n")
    run = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    run.stdout.readline()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        workers = [pid for pid, parent in process_table()[0].items() if parent == run.pid]
        if len(workers) == 2:
            break
        time.sleep(0.05)
    assert len(workers) == 2
    run.kill()
    run.wait()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
