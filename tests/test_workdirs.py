"""Working folders: locked while in use; those of a dead grader are removed, no others."""
import os
import subprocess
import sys
import time

from autograder.sandbox import workdirs


def _folder(parent, name, age, content=None):
    path = parent / name
    path.mkdir()
    if content:
        (path / "left.txt").write_text(content)
    past = time.time() - age
    os.utime(path, (past, past))
    return path


def test_only_old_unlocked_folders_are_swept(tmp_path):
    dead = _folder(tmp_path, f"{workdirs.PREFIX}dead", 3600, "from a grader killed with SIGKILL")
    young = _folder(tmp_path, f"{workdirs.PREFIX}young", 0)   # its grader may lock it next
    other = _folder(tmp_path, "autograder-zygote-x", 3600)     # not a sandbox's
    # a folder locked by another, living process (as a running grader holds its own)
    held = _folder(tmp_path, f"{workdirs.PREFIX}held", 3600)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('locked', flush=True); sys.stdin.read()", str(held)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        removed = workdirs.sweep(tmp_path)
    finally:
        holder.communicate("")
    assert removed == [dead]
    assert not dead.exists() and young.exists() and held.exists() and other.exists()
    assert workdirs.sweep(tmp_path) == [held]      # its holder has exited now


def test_a_workdir_is_locked_until_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(workdirs.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(workdirs, "_swept", True)
    work = workdirs.WorkDir()
    os.utime(work.path, (time.time() - 3600,) * 2)
    assert work.path.parent == tmp_path and work.path.name.startswith(workdirs.PREFIX)
    assert workdirs.sweep(tmp_path) == [] and work.path.exists()
    work.remove()
    assert not work.path.exists()


def test_a_killed_graders_folder_is_removed_by_the_next_grader(tmp_path):
    """SIGKILL a grader while a submission runs (a notebook that sleeps forever), then grade
    again: the new grader removes the folder the killed one could not. (Unsealed only: a sealed
    submission's folder is a tmpfs in its own mount namespace, gone with it.)"""
    import signal

    import jupytext
    import nbformat

    from tests.grading import ROOT, exercise_path, solution_source
    A = "01_scalar_autodiff"
    sleeper = jupytext.reads(solution_source(A), fmt="py:percent")
    sleeper.cells.insert(0, nbformat.v4.new_code_cell("import time\nwhile True:\n    time.sleep(1)"))
    (tmp_path / "slow").mkdir()
    nbformat.write(sleeper, str(tmp_path / "slow" / "scalar_autodiff.ipynb"))
    # the graders' temporary folder is this test's own: another test's grader, running at the
    # same time, makes and removes working folders of its own in the system's
    temporary = tmp_path / "tmp"
    temporary.mkdir()

    def grade(folder, out):
        return subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(folder),
                                 "--assignment", A, "--out", str(out), "--jobs", "1", "--quiet",
                                 "--no-isolation"],
                                cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=dict(os.environ, TMPDIR=str(temporary)))
    killed = grade(tmp_path / "slow", tmp_path / "out1")
    deadline, left = time.monotonic() + 120, set()
    while not left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = set(temporary.glob(workdirs.PREFIX + "*"))
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait()
    assert left, "the grader never made a working folder"
    time.sleep(1)
    assert all(p.exists() for p in left)            # nobody cleaned up after a SIGKILL
    for path in left:       # as if old: a folder younger than a minute is never swept
        os.utime(path, (time.time() - 3600,) * 2)
    rerun = grade(exercise_path(A), tmp_path / "out2")
    assert rerun.wait(timeout=300) == 0
    assert not [p for p in left if p.exists()]
