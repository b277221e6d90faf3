"""`python -m autograder release DIR`: the student bundle has the library, the exercises and
the self-check, and not a line of any solution."""
import json
import shutil
import subprocess
import sys
import textwrap
import tomllib

import pytest

from autograder import release
from autograder.course import load_course
from tests.ecosystem import answered, once_per_run
from tests.grading import COURSE, ROOT, solution_source

GRADING_ONLY = ("__main__.py", "grade.py", "report.py", "runner.py", "guard.py", "build.py",
                "demo.py", "notebook.py", "nbgrader_course.py", "release.py", "gradebook.py")


def make_bundle(folder):
    run = subprocess.run([sys.executable, "-m", "autograder", "release", folder / "bundle"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    (folder / "output.txt").write_text(run.stdout)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return once_per_run(tmp_path_factory, "release", make_bundle) / "bundle"


def files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_bundle_has_the_library_the_exercises_the_checks_and_a_readme(bundle):
    shipped = set(files(bundle))
    assert {"README.md", "pyproject.toml", "Makefile", "course.toml", "dp/__init__.py",
            "autograder/__init__.py", "autograder/selfcheck.py",
            "autograder/checks/pytest.ini"} <= shipped
    for a in COURSE.assignments:
        assert f"exercises/{a.id}/{a.notebook}.ipynb" in shipped
        assert f"autograder/checks/{a.notebook}.py" in shipped
        assert f"autograder/probes/{a.notebook}.py" in shipped
    assert {p for p in files(ROOT / "dp") if "__pycache__" not in p} == \
        {p.removeprefix("dp/") for p in shipped if p.startswith("dp/")}
    readme = (bundle / "README.md").read_text()
    assert "pip install -e ." in readme and "jupyter lab" in readme and 'check("' in readme


def test_bundle_has_no_solutions_tests_git_or_grading_engine(bundle):
    for path in files(bundle):
        parts = path.split("/")
        assert not {"solutions", "tests", ".git", "__pycache__"} & set(parts), path
        assert not (parts[0] == "autograder" and parts[-1] in GRADING_ONLY), path
        assert not path.endswith((".pyc", ".db")), path


def test_no_line_of_any_solution_is_in_the_bundle(bundle):
    secret = release.solution_lines(ROOT)
    assert len(secret) > 100          # every solution region is read, not a handful of lines
    assert release.find_solution_text(bundle, ROOT) == []


@pytest.mark.parametrize("plant", ["a solution file", "a solution line in the README",
                                   "a solution notebook", "the tests folder"])
def test_the_scan_finds_planted_solution_text(bundle, tmp_path, plant):
    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    a = COURSE.assignment("01_scalar_autodiff")
    source = solution_source(a.id)
    if plant == "a solution file":
        shutil.copyfile(a.solution_path(), copy / "dp" / "scalar.py")
    elif plant == "a solution line in the README":
        line = next(l for l in source.splitlines() if "self.value * other.value" in l)
        with open(copy / "README.md", "a") as readme:
            readme.write(f"\n    {line.strip()}\n")
    elif plant == "a solution notebook":
        from nbformat import write
        write(answered(a.id), str(copy / "exercises" / a.id / "mine.ipynb"))
    else:
        (copy / "tests").mkdir()
        (copy / "tests" / "x.py").write_text("")
    found = release.find_solution_text(copy, ROOT)
    assert found, f"{plant} was not found"


def test_the_course_file_keeps_everything_but_the_grading_seed(bundle):
    data = tomllib.loads((bundle / "course.toml").read_text())
    assert "grading_seed" not in data["course"]
    assert str(COURSE.grading_seed) not in (bundle / "course.toml").read_text()
    students = load_course(bundle / "course.toml")
    assert students.public_seed == COURSE.public_seed
    assert [(a.id, a.tasks, a.thresholds) for a in students.assignments] == \
        [(a.id, a.tasks, a.thresholds) for a in COURSE.assignments]


def test_only_what_the_self_check_imports_is_shipped_of_the_engine():
    shipped = release.needed_modules(ROOT)
    assert "autograder/selfcheck.py" in shipped and "autograder/judge.py" in shipped
    assert not [m for m in shipped if m.split("/")[-1] in GRADING_ONLY]


SELF_CHECK = textwrap.dedent("""
    import importlib, importlib.util, json, sys
    from pathlib import Path
    bundle = Path(sys.argv[1])
    sys.path.insert(0, str(bundle))
    import nbformat
    from autograder.selfcheck import CheckFailed
    import autograder, dp
    verdicts = {"modules": [autograder.__file__, dp.__file__]}
    for label, path in (("solution", sys.argv[2]), ("stub", sys.argv[3])):
        notebook = nbformat.read(path, as_version=4)
        namespace = {"__name__": "__main__"}
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            try:
                exec(compile(cell.source, "<cell>", "exec"), namespace)
            except (CheckFailed, NotImplementedError) as error:
                verdicts.setdefault(label, []).append(str(error).splitlines()[0] if str(error) else "")
    # every assignment's checks and probes import from the bundle alone
    for path in sorted((bundle / "autograder" / "checks").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"checks_{path.stem}", path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        importlib.import_module(f"autograder.probes.{path.stem}")
    print(json.dumps(verdicts))
""")


def test_the_self_check_runs_from_the_bundle_alone(bundle, tmp_path):
    import nbformat
    a = COURSE.assignment("01_scalar_autodiff")
    nbformat.write(answered(a.id), str(tmp_path / "solution.ipynb"))
    script = tmp_path / "self_check.py"
    script.write_text(SELF_CHECK)
    # -I: neither the current folder nor PYTHONPATH; the bundle is the only source of autograder and dp
    run = subprocess.run([sys.executable, "-I", script, bundle, tmp_path / "solution.ipynb",
                          bundle / "exercises" / a.id / f"{a.notebook}.ipynb"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    verdicts = json.loads(run.stdout.strip().splitlines()[-1])
    assert all(str(bundle) in path for path in verdicts["modules"]), verdicts["modules"]
    assert "solution" not in verdicts, verdicts.get("solution")   # nothing raised
    for task in a.tasks:
        assert f"✔ {task.id}: all" in run.stdout
        assert any(v.startswith(f"✘ {task.id}: 0 of") for v in verdicts["stub"]), verdicts["stub"]


def test_release_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(release.ReleaseError, match="not empty"):
        release.make_bundle(tmp_path, log=lambda *_: None)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_release_of_chosen_assignments(tmp_path):
    release.make_bundle(tmp_path / "b", assignments=["01_scalar_autodiff"], log=lambda *_: None)
    assert [p for p in files(tmp_path / "b") if p.startswith("exercises/")] == \
        ["exercises/01_scalar_autodiff/scalar_autodiff.ipynb"]
