"""autograder.authoring.build: solutions/<id>/<nb>.py -> nbgrader -> exercises/<id>/<nb>.ipynb.

The tests run the real nbgrader on a tiny course written into a temporary directory. nbgrader
takes a few seconds to start, so the course is built once per module (per xdist worker) and the
tests that change it work on copies.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring import build as b

COURSE_TOML = """\
[course]
name = "fixture course"
public_seed = 0
seed_policy = "fixed"
grading_seed = 1

[limits]
time_limit = 60
cpu_limit = 60
memory_limit = "1GiB"
max_processes = 8
max_file_size = "1MiB"
max_reply = "1MiB"
max_output = "1MiB"

[[assignment]]
id = "01_alpha"
notebook = "alpha"
title = "Alpha"
forbidden_imports = ["dp"]

  [[assignment.task]]
  id = "add_task"
  points = 3
  title = "add"

  [[assignment.task]]
  id = "mul_task"
  points = 1.5
  title = "mul"

[[assignment]]
id = "02_beta"
notebook = "beta"
title = "Beta"

  [[assignment.task]]
  id = "beta_task"
  points = 2
  title = "beta"
"""

ALPHA = '''\
# %% [markdown]
# # Alpha: adding numbers
# Implement `add` and `mul`.

# %%
import math

from autograder import check

# %%
def add(a: float, b: float) -> float:
    """Return the sum.

    $$ f(a, b) = a + b $$
    """
    ### BEGIN SOLUTION
    total = a + b
    return total
    ### END SOLUTION

# %%
check("add_task")  # runs the public checks

# %% [markdown]
# ## Notes
# Multiplication next.

# %%
def mul(a: float, b: float) -> float:
    """Return the product $a b$."""
    ### BEGIN SOLUTION
    return a * b
    ### END SOLUTION

# %% [markdown]
# ## Notes
# A second cell with the same heading.

# %%
check("mul_task")
'''

BETA = '''\
# %%
from autograder import check

# %%
class Beta:
    """Holds a value."""

    def value(self) -> int:
        ### BEGIN SOLUTION
        return 2
        ### END SOLUTION

# %%
check("beta_task")
'''

ALPHA_NB = "exercises/01_alpha/alpha.ipynb"
BETA_NB = "exercises/02_beta/beta.ipynb"
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


def write_course(root: Path, alpha: str = ALPHA, beta: str = BETA, toml: str = COURSE_TOML) -> Path:
    (root / "solutions" / "01_alpha").mkdir(parents=True, exist_ok=True)
    (root / "solutions" / "02_beta").mkdir(parents=True, exist_ok=True)
    (root / "course.toml").write_text(toml)
    (root / "solutions" / "01_alpha" / "alpha.py").write_text(alpha)
    (root / "solutions" / "02_beta" / "beta.py").write_text(beta)
    return root


def files_under(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The fixture course, built once: (root, log lines, {relative path: bytes})."""
    root = write_course(tmp_path_factory.mktemp("course"))
    log = []
    assert b.build(root, log=log.append) == []
    return root, log, files_under(root / "exercises")


@pytest.fixture
def course_copy(built, tmp_path):
    root, _, _ = built
    copy = tmp_path / "course"
    shutil.copytree(root, copy)
    return copy


def load(built, rel):
    root, _, _ = built
    return json.loads((root / rel).read_text())


def cells_by_grade_id(notebook):
    return {c["metadata"]["nbgrader"]["grade_id"]: c for c in notebook["cells"]}


def source(cell):
    return "".join(cell["source"])


# ----- what the build produces --------------------------------------------------------------

def test_only_the_notebooks_reach_exercises(built):
    _, log, files = built
    assert sorted(files) == ["01_alpha/alpha.ipynb", "02_beta/beta.ipynb"]
    assert f"created {ALPHA_NB}" in log and f"created {BETA_NB}" in log


def test_solution_cells_become_stubs(built):
    cells = cells_by_grade_id(load(built, ALPHA_NB))
    add = cells["01_alpha-add"]
    text = source(add)
    assert text.startswith("def add(a: float, b: float) -> float:\n")
    assert '"""Return the sum.\n\n    $$ f(a, b) = a + b $$\n    """' in text  # docstring kept
    assert "raise NotImplementedError()" in text
    assert "total" not in text and "return" not in text
    assert add["metadata"]["nbgrader"] == {
        "grade": False, "solution": True, "locked": False, "grade_id": "01_alpha-add",
        "schema_version": 3, "cell_type": "code", "checksum": add["metadata"]["nbgrader"]["checksum"]}
    assert add["id"] == "01_alpha-add"
    beta = cells_by_grade_id(load(built, BETA_NB))["02_beta-beta"]
    assert '"""Holds a value."""' in source(beta) and "return 2" not in source(beta)
    assert "raise NotImplementedError()" in source(beta)


def test_grade_cells_keep_check_with_points(built):
    cells = cells_by_grade_id(load(built, ALPHA_NB))
    for task, points in (("add_task", 3), ("mul_task", 1.5)):
        cell = cells[task]
        assert cell["id"] == task
        assert source(cell).startswith(f'check("{task}")')
        meta = cell["metadata"]["nbgrader"]
        assert {k: meta[k] for k in ("grade", "solution", "locked", "grade_id", "points",
                                     "schema_version")} == {
            "grade": True, "solution": False, "locked": True, "grade_id": task,
            "points": points, "schema_version": 3}
        assert cell["metadata"]["editable"] is False and cell["metadata"]["deletable"] is False
    beta = cells_by_grade_id(load(built, BETA_NB))["beta_task"]
    assert beta["metadata"]["nbgrader"]["points"] == 2


def test_other_cells_are_read_only_with_stable_ids(built):
    notebook = load(built, ALPHA_NB)
    assert notebook["nbformat"] == 4 and notebook["nbformat_minor"] == 5
    assert notebook["metadata"]["autograder"] == {"assignment": "01_alpha"}
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert notebook["metadata"]["language_info"]["name"] == "python"
    ids = [c["metadata"]["nbgrader"]["grade_id"] for c in notebook["cells"]]
    assert ids == ["01_alpha-alpha-adding-numbers", "01_alpha-import-math", "01_alpha-add",
                   "add_task", "01_alpha-notes", "01_alpha-mul", "01_alpha-notes-2", "mul_task"]
    assert [c["id"] for c in notebook["cells"]] == ids
    for cell in notebook["cells"]:
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", cell["id"])
        meta = cell["metadata"]["nbgrader"]
        if meta["grade_id"] in ("01_alpha-alpha-adding-numbers", "01_alpha-import-math",
                                "01_alpha-notes", "01_alpha-notes-2"):
            assert (meta["grade"], meta["solution"], meta["locked"]) == (False, False, True)
            assert "points" not in meta


def test_exercises_never_contain_solution_text(built):
    _, _, files = built
    for name, data in files.items():
        text = data.decode()
        for marker in MARKERS:
            assert marker not in text, (name, marker)
        assert "total = a + b" not in text and "return a * b" not in text
        assert text.endswith("}\n")
        nbformat.validate(nbformat.reads(text, as_version=4))


def test_ids_are_stable_and_bounded(tmp_path):
    root = write_course(tmp_path)
    path = root / "solutions" / "01_alpha" / "alpha.py"
    assignment = b._tasks_by_assignment(root)[0]
    tasks = {"add_task": "01_alpha", "mul_task": "01_alpha", "beta_task": "02_beta"}
    first, problems = b._source_notebook(assignment, path, "alpha.py", tasks)
    again, _ = b._source_notebook(assignment, path, "alpha.py", tasks)
    assert problems == [] and nbformat.writes(first) == nbformat.writes(again)
    long = "# %% [markdown]\n# # " + "A very long heading! " * 10 + "\n\n" + ALPHA
    path.write_text(long)
    notebook, _ = b._source_notebook(assignment, path, "alpha.py", tasks)
    grade_id = notebook.cells[0].metadata.nbgrader.grade_id
    assert grade_id.startswith("01_alpha-a-very-long-heading-")
    assert len(grade_id) <= 64 and notebook.cells[0].id == grade_id


# ----- determinism and --check ----------------------------------------------------------------

def test_building_twice_gives_identical_bytes(built, course_copy):
    _, _, files = built
    shutil.rmtree(course_copy / b.CACHE)           # nothing kept: nbgrader runs again
    log = []
    assert b.build(course_copy, log=log.append) == []
    assert any(line.startswith("nbgrader generate_assignment: 2 notebook(s) in") for line in log), log
    assert files_under(course_copy / "exercises") == files
    assert not any(line.startswith(("created", "updated", "removed")) for line in log), log


def test_a_build_runs_nbgrader_only_for_the_sources_that_changed(built, course_copy):
    """Issue 33: the build rebuilt every notebook for a one-notebook change, saying nothing
    while nbgrader ran."""
    _, _, files = built
    log = []
    assert b.build(course_copy, log=log.append) == []
    assert "2 notebook(s) unchanged since they were last built (build/exercises/)" in log, log
    assert not any(line.startswith("nbgrader") for line in log), log
    assert files_under(course_copy / "exercises") == files
    alpha = course_copy / "solutions" / "01_alpha" / "alpha.py"
    alpha.write_text(alpha.read_text().replace("Return the sum.", "Return a + b."))
    log = []
    assert b.build(course_copy, log=log.append) == []
    assert "1 notebook(s) unchanged since they were last built (build/exercises/)" in log, log
    assert "nbgrader generate_assignment: 1 notebook(s) (01_alpha) ..." in log, log
    now = files_under(course_copy / "exercises")
    assert now["02_beta/beta.ipynb"] == files["02_beta/beta.ipynb"]
    assert "Return a + b." in now["01_alpha/alpha.ipynb"].decode()
    assert len(list((course_copy / b.CACHE).glob("01_alpha-*.ipynb"))) == 1     # the old one gone


def test_check_passes_right_after_build(built):
    root, _, files = built
    log = []
    assert b.build(root, check=True, log=log.append) == []
    assert any("in sync" in line for line in log)
    assert files_under(root / "exercises") == files


def test_check_names_stale_missing_and_extra_notebooks_then_build_repairs(built, course_copy):
    _, _, files = built
    root = course_copy
    alpha = root / "solutions" / "01_alpha" / "alpha.py"
    alpha.write_text(alpha.read_text().replace("Return the sum.", "Return a + b."))
    (root / BETA_NB).unlink()
    (root / "exercises" / "01_alpha" / "notes.txt").write_text("stray")
    (root / "exercises" / "01_alpha" / "alpha.py").write_text("# a solution source, misplaced")
    (root / "exercises" / "99_gone").mkdir()
    (root / "exercises" / "99_gone" / "gone.ipynb").write_text("{}")

    problems = b.build(root, check=True, log=lambda line: None)
    assert len(problems) == 5, problems
    text = "\n".join(problems)
    assert f"{ALPHA_NB}: stale" in text
    assert f"{BETA_NB}: missing" in text
    assert "exercises/01_alpha/notes.txt: extra file" in text
    assert "exercises/01_alpha/alpha.py: extra file" in text
    assert "exercises/99_gone/gone.ipynb: extra notebook" in text
    assert not (root / BETA_NB).exists()  # --check writes nothing
    assert (root / "exercises" / "01_alpha" / "notes.txt").exists()

    log = []
    assert b.build(root, log=log.append) == []
    assert f"updated {ALPHA_NB}" in log and f"created {BETA_NB}" in log
    assert "removed exercises/01_alpha/notes.txt" in log
    assert "removed exercises/99_gone/" in log
    now = files_under(root / "exercises")
    assert sorted(now) == ["01_alpha/alpha.ipynb", "02_beta/beta.ipynb"]
    assert now["02_beta/beta.ipynb"] == files["02_beta/beta.ipynb"]
    assert "Return a + b." in now["01_alpha/alpha.ipynb"].decode()


# ----- notebooks vs course.toml (found before nbgrader runs) -----------------------------------

BETA_MISSING = ("solutions/02_beta/beta.py: missing (the source of assignment '02_beta' "
                "in course.toml)")


def problems_for(tmp_path, alpha: str) -> list[str]:
    """The problems of the fixture course with this alpha source. beta's source is removed so
    that nothing is left to build and nbgrader does not run: these checks come before it."""
    root = write_course(tmp_path, alpha=alpha)
    (root / "solutions" / "02_beta" / "beta.py").unlink()
    problems = b.build(root, log=lambda line: None)
    assert problems[-1] == BETA_MISSING
    assert not (root / "exercises").exists()  # an assignment with problems is not built
    return problems[:-1]


def test_task_missing_from_the_notebook_other_assignments_still_build(tmp_path):
    root = write_course(tmp_path, alpha=ALPHA.replace('check("mul_task")', "pass"))
    assert b.build(root, log=lambda line: None) == [
        "solutions/01_alpha/alpha.py: task 'mul_task' of assignment '01_alpha' (course.toml) "
        'has no check("mul_task") cell']
    assert not (root / ALPHA_NB).exists()
    assert (root / BETA_NB).exists()


def test_task_in_the_notebook_but_not_in_course_toml(tmp_path):
    alpha = ALPHA + '\n# %%\ncheck("div_task")\n'
    [problem] = problems_for(tmp_path, alpha=alpha)
    assert problem.startswith("solutions/01_alpha/alpha.py:")
    assert "cell 9" in problem and "'div_task'" in problem and "add_task, mul_task" in problem


def test_task_of_another_assignment(tmp_path):
    [problem] = problems_for(tmp_path, alpha=ALPHA + '\n# %%\ncheck("beta_task")\n')
    assert "'beta_task'" in problem and "belongs to '02_beta'" in problem


def test_duplicated_check_cell(tmp_path):
    [problem] = problems_for(tmp_path, alpha=ALPHA + '\n# %%\ncheck("add_task")  # again\n')
    assert "task 'add_task' has 2 check(\"add_task\") cells" in problem
    assert "cell 4" in problem and "cell 9" in problem


def test_check_call_not_alone_in_its_cell(tmp_path):
    alpha = ALPHA.replace('check("mul_task")', 'check("mul_task")\nprint("done")')
    problems = problems_for(tmp_path, alpha=alpha)
    assert any("check(...) call must be alone in its cell" in p for p in problems)
    assert any("'mul_task'" in p and "has no check" in p for p in problems)


def test_solution_markers_outside_code_solutions(tmp_path):
    alpha = ALPHA.replace("# Multiplication next.", "# ### BEGIN SOLUTION\n# secret\n# ### END SOLUTION")
    alpha = alpha.replace("import math\n", "import math  # END SOLUTION\n")
    alpha = alpha.replace('check("add_task")  # runs the public checks',
                          'check("add_task")  # BEGIN SOLUTION')
    problems = problems_for(tmp_path, alpha=alpha)
    assert len(problems) == 3, problems
    assert "cell 5: solution markers in a markdown cell" in problems[2]
    assert "cell 2: malformed solution region: 'END SOLUTION' without" in problems[0]
    assert 'cell 4: solution markers in the check("add_task") cell' in problems[1]


def test_missing_solutions_and_duplicate_task_ids(tmp_path, capsys):
    root = write_course(tmp_path)
    (root / "solutions" / "01_alpha" / "alpha.py").unlink()
    (root / "solutions" / "02_beta" / "beta.py").unlink()
    assert b.build(root, log=lambda line: None) == [
        "solutions/01_alpha/alpha.py: missing (the source of assignment '01_alpha' in course.toml)",
        BETA_MISSING]
    assert b.main(["--root", str(root)]) == 1
    assert BETA_MISSING in capsys.readouterr().err
    toml = COURSE_TOML.replace('id = "beta_task"', 'id = "add_task"')
    (root / "course.toml").write_text(toml)
    with pytest.raises(b.BuildError, match="task id 'add_task' is already used by assignment '01_alpha'"):
        b.build(root, check=True, log=lambda line: None)


# ----- checks on the generated notebooks (no nbgrader needed) -----------------------------------

def test_exercise_points_and_markers_are_checked(built):
    root, _, files = built
    alpha = b._tasks_by_assignment(root)[0]
    good = files["01_alpha/alpha.ipynb"]
    assert b._exercise_problems(alpha, ALPHA_NB, good) == []
    notebook = json.loads(good)
    cells = cells_by_grade_id(notebook)
    cells["mul_task"]["metadata"]["nbgrader"]["points"] = 2
    cells["01_alpha-mul"]["source"].append("\n    ### END SOLUTION")
    problems = b._exercise_problems(alpha, ALPHA_NB, json.dumps(notebook).encode())
    assert len(problems) == 2, problems
    assert "task 'mul_task' is worth 2 points in the notebook but 1.5 in course.toml" in problems[1]
    assert "(01_alpha-mul): contains the solution marker 'END SOLUTION'" in problems[0]


def test_nbgrader_failure_shows_its_output(tmp_path):
    folder = tmp_path / "source" / "01_alpha"
    folder.mkdir(parents=True)
    meta = {"grade": False, "solution": False, "locked": True, "grade_id": "same",
            "schema_version": 3}
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1", id="a", metadata={"nbgrader": dict(meta)}),
        nbformat.v4.new_code_cell("y = 2", id="b", metadata={"nbgrader": dict(meta)})])
    nbformat.write(notebook, folder / "alpha.ipynb")
    with pytest.raises(b.BuildError, match=r"(?s)generate_assignment failed.*Duplicate grade id"):
        b._run_nbgrader(tmp_path, ["01_alpha"])


# ----- the repository itself -------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not (ROOT / "solutions").is_dir(), reason="no solutions/ yet")
def test_repository_exercises_are_in_sync():
    problems = b.build(ROOT, check=True, log=lambda line: None)
    assert problems == [], "\n".join(problems + ["(regenerate with `python -m autograder build`)"])
