"""Faults: the grader killed at random points and rerun; grading twice; bad input to the CLI."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import pytest

from tests.grading import ROOT, exercise_path, repeatable, solution_source
from tests.mutants import all_mutants

A = "01_scalar_autodiff"
SEED = int(os.environ.get("FAULT_SEED", "20261122"))


def _class(folder):
    notebooks = {"solution": jupytext.reads(solution_source(A), fmt="py:percent"),
                 "stub": nbformat.read(str(exercise_path(A)), as_version=4)}
    for mutant in [m for m in all_mutants() if m.assignment == A][:5]:
        notebooks[f"mutant_{mutant.name}"] = jupytext.reads(mutant.source(), fmt="py:percent")
    for student, nb in notebooks.items():
        path = folder / "submitted" / student / A / "scalar_autodiff.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, str(path))
    return folder / "submitted"


def _grade(submitted, out, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out),
                             "--jobs", "2", "--quiet"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)


def _results(out):
    """{student: result}, as a rerun repeats it (`repeatable`)."""
    return {p.parent.name: repeatable(json.loads(p.read_text()))
            for p in (out / "results").glob(f"*/{A}.json")}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    submitted = _class(root)
    run = _grade(submitted, root / "baseline")
    assert run.wait(timeout=600) == 0, run.stderr.read()
    return submitted, _results(root / "baseline"), root


def test_grading_twice_gives_identical_results(baseline):
    submitted, first, root = baseline
    run = _grade(submitted, root / "again")
    assert run.wait(timeout=600) == 0
    assert _results(root / "again") == first


def test_killed_at_random_points_then_rerun_gives_the_uninterrupted_results(baseline):
    submitted, expected, root = baseline
    out, rng = root / "interrupted", random.Random(SEED)
    for round_ in range(5):
        run = _grade(submitted, out)
        time.sleep(rng.uniform(0.3, 3.0))
        how = rng.choice(["SIGKILL to the group", "SIGTERM", "SIGINT to the group"])
        try:
            if how == "SIGTERM":
                os.kill(run.pid, signal.SIGTERM)
            else:
                os.killpg(run.pid, signal.SIGKILL if "KILL" in how else signal.SIGINT)
        except ProcessLookupError:
            pass
        run.wait(timeout=600)
        if how == "SIGKILL to the group":
            time.sleep(0.5)
        for path in (out / "results").glob("*/*.json"):      # never half a result
            assert json.loads(path.read_text())["student"] == path.parent.name, (SEED, round_, how)
    final = _grade(submitted, out)
    assert final.wait(timeout=600) == 0, final.stderr.read()
    assert _results(out) == expected, f"seed {SEED}"
    assert sorted(p.name for p in (out / "results").iterdir()) == sorted(expected)
    assert not list(out.rglob("*.tmp"))


@pytest.mark.parametrize("args, message", [
    (["grade", "nowhere.ipynb"], "nowhere.ipynb: no such file or folder"),
    (["grade", "exercises", "--assignment", "99_nope"], "unknown assignment '99_nope'"),
    (["--course", "missing.toml", "grade", "exercises"], "missing.toml: not found"),
    (["check", "README.md"], "cannot tell which assignment"),
])
def test_cli_errors_name_what_is_wrong_without_a_traceback(args, message):
    run = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2
    assert message in run.stderr and "Traceback" not in run.stderr


def test_course_with_missing_keys_is_reported_by_the_cli(tmp_path):
    bad = tmp_path / "course.toml"
    bad.write_text("[course]\n[[assignment]]\nid = 'x'\n")
    run = subprocess.run([sys.executable, "-m", "autograder", "--course", str(bad), "grade", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "assignment 'x': missing key 'task'" in run.stderr


# -- one process of the run killed from outside (issue 21) ---------------------------------------
def _table():
    """{pid: (parent, start time, command line)} of every process now."""
    table = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    command = f.read()
            except OSError:
                continue
            table[int(entry.name)] = (int(fields[1]), int(fields[19]), command)
    return table


def _run_processes(table, root_pid):
    """The run's processes: `root_pid` and its descendants, by kind."""
    below, kinds = {root_pid}, {}
    for _ in range(12):
        below |= {pid for pid, (parent, _, _) in table.items() if parent in below}
    def bwrap(pid):
        return os.path.basename(table.get(pid, (0, 0, b""))[2].split(b"\0")[0]) == b"bwrap"

    def zygote_code(pid):       # a zygote or what it forked (they share its command line)
        return b"autograder.sandbox.zygote" in table.get(pid, (0, 0, b""))[2] and not bwrap(pid)

    for pid in below:
        parent = table.get(pid, (0,))[0]
        if pid == root_pid:
            kind = "main"
        elif zygote_code(pid):
            kind = "sandbox" if zygote_code(parent) else "zygote"
        elif parent == root_pid and not bwrap(pid):
            kind = "worker"
        else:
            kind = "other"
        kinds.setdefault(kind, []).append(pid)
    return kinds


def _alive_of(table, pids):
    """Those of `pids` (with their start times in `table`) that still run."""
    now = _table()
    return sorted(pid for pid in pids if pid in now and now[pid][1] == table[pid][1])


def _cgroup_processes(worker_pids) -> int:
    """Processes left in the CPU-share cgroups that the run's processes made (autograder.sandbox.cpushare)."""
    from autograder.sandbox import cpushare
    try:
        _, parent = cpushare._parent()
    except OSError:
        return 0
    if parent is None:
        return 0
    count = 0
    for pid in worker_pids:
        for group in parent.glob(f"{cpushare.PREFIX}{pid}-*"):
            try:
                count += len((group / "cgroup.procs").read_text().split())
            except OSError:
                pass
    return count


@pytest.mark.parametrize("kind", ["main", "worker", "zygote", "sandbox"])
def test_a_process_killed_from_outside_leaves_nothing_running_and_loses_nothing(kind, baseline):
    """SIGKILL to one process of a class run, at a random point: afterwards no process of the
    run is left (by descent at the moment of the kill, and by CPU-share cgroup); the run itself
    regrades what the kill interrupted (a worker, zygote or sandbox) or a rerun grades what is
    missing (the main process), and the results are those of an uninterrupted run."""
    submitted, expected, root = baseline
    rng = random.Random(f"{SEED}-{kind}")
    out = root / f"killed-{kind}"
    run = _grade(submitted, out)
    deadline, target, table = time.monotonic() + 120, None, {}
    time.sleep(rng.uniform(0.0, 2.0))
    while target is None and time.monotonic() < deadline and run.poll() is None:
        table = _table()
        found = _run_processes(table, run.pid).get(kind, [])
        if found and (kind == "main" or len(_run_processes(table, run.pid).get("sandbox", [])) > 0):
            target = rng.choice(sorted(found))
        else:
            time.sleep(0.02)
    assert target is not None, f"no {kind} process appeared (seed {SEED}): {run.stderr.read()}"
    processes = _run_processes(table, run.pid)
    everything = [pid for pids in processes.values() for pid in pids]
    os.kill(target, signal.SIGKILL)
    code = run.wait(timeout=600)
    deadline = time.monotonic() + 10
    while _alive_of(table, everything) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive_of(table, everything)
    print(f"seed {SEED}: SIGKILL to the {kind} ({target}) among {len(everything)} processes "
          f"{ {k: len(v) for k, v in processes.items()} }: {len(left)} left")
    assert left == [], f"seed {SEED}: after SIGKILL to the {kind}, still running: {left}"
    assert _cgroup_processes([run.pid] + processes.get("worker", [])) == 0
    if kind == "main":
        assert code == -signal.SIGKILL
    else:
        assert code == 0, run.stderr.read()
        assert _differences(_results(out), expected) == [], f"seed {SEED}: after the {kind}'s kill"
    rerun = _grade(submitted, out)
    assert rerun.wait(timeout=600) == 0, rerun.stderr.read()
    assert _differences(_results(out), expected) == [], f"seed {SEED}: after the rerun"
    assert sorted(p.name for p in (out / "results").iterdir()) == sorted(expected)
    assert not list(out.rglob("*.tmp"))


def _differences(got, expected) -> list:
    """(student, field, got) where `got` differs from `expected`."""
    return [(student, key, str(got.get(student, {}).get(key))[:300])
            for student in expected for key in expected[student]
            if got.get(student, {}).get(key) != expected[student][key]]


def _memory_cgroup():
    """A new cgroup v1 memory controller folder under this process's own, or None."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            group = Path("/sys/fs/cgroup/memory") / path.lstrip("/") / f"autograder-oom-{os.getpid()}"
            try:
                group.mkdir()
                (group / "memory.swappiness").write_text("0")
                return group
            except OSError:
                return None
    return None


def test_the_main_process_killed_by_a_memory_limit_leaves_nothing_and_a_rerun_completes(baseline):
    """The kernel's OOM killer ends the main process (it alone is moved into a cgroup with a
    memory limit of one page, once its workers are running): nothing of the run is left, and a
    rerun gives the uninterrupted results."""
    submitted, expected, root = baseline
    group = _memory_cgroup()
    if group is None:
        pytest.skip("no cgroup v1 memory controller to make a cgroup in (needs root)")
    out = root / "oom"
    try:
        run = _grade(submitted, out)
        deadline, kinds, table = time.monotonic() + 120, {}, {}
        while time.monotonic() < deadline and run.poll() is None:
            table = _table()
            kinds = _run_processes(table, run.pid)
            if kinds.get("sandbox"):
                break
            time.sleep(0.02)
        assert kinds.get("sandbox"), run.stderr.read()
        everything = [pid for pids in kinds.values() for pid in pids]
        (group / "memory.limit_in_bytes").write_text("4096")   # its next new page is over
        (group / "cgroup.procs").write_text(str(run.pid))
        assert run.wait(timeout=600) == -signal.SIGKILL
        oom_kills = [line for line in (group / "memory.oom_control").read_text().splitlines()
                     if line.startswith("oom_kill ")]
        deadline = time.monotonic() + 10
        while _alive_of(table, everything) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _alive_of(table, everything)
        print(f"OOM-killed main process ({oom_kills}) among {len(everything)} processes: {len(left)} left")
        assert left == []
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    rerun = _grade(submitted, out)
    assert rerun.wait(timeout=600) == 0, rerun.stderr.read()
    assert _differences(_results(out), expected) == [], "after the rerun"
