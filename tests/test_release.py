"""`python -m autograder release DIR`: the student bundle has the library, the exercises and
the self-check, and not a line of any solution; it hands out the course in order of the due
dates, and refuses provided code that is the answer of an assignment not yet due."""
import datetime
import os
import json
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zoneinfo

import nbformat
import pytest

from autograder.authoring import release
from autograder.course.config import CourseError, load_course
from tests.ecosystem import answered, once_per_run
from tests.grading import COURSE, ROOT, solution_source

# (course/notebook.py is shipped: the self-check's command, `python -m autograder.grading.selfcheck
# NOTEBOOK TASK`, which GitHub Classroom's workflow runs, reads the notebook's cells with it.)
GRADING_ONLY = ("__main__.py", "grade.py", "report.py", "runner.py", "guard.py", "build.py",
                "demo.py", "nbgrader_course.py", "release.py", "gradebook.py")


LONDON = zoneinfo.ZoneInfo("Europe/London")
BEFORE_TERM = "2026-09-20"     # before 01 is due: 02 and 03 would reveal 01's and 02's answers


def release_command(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "autograder", "release", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def make_bundle(folder):
    # everything at once, before anything is due: the warning lists what that reveals
    # the first release runs every solution with references to record its public cases (kept
    # in build/public_cases/ for the next ones): several minutes on a busy machine
    run = release_command(folder / "bundle", "--all", "--date", BEFORE_TERM, timeout=1800)
    assert run.returncode == 0, run.stdout + run.stderr
    (folder / "output.txt").write_text(run.stdout + run.stderr)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return once_per_run(tmp_path_factory, "release", make_bundle) / "bundle"


def files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_bundle_has_the_library_the_exercises_the_checks_and_a_readme(bundle):
    shipped = set(files(bundle))
    assert {"README.md", "pyproject.toml", "Makefile", "course.toml", "dp/__init__.py",
            "autograder/__init__.py", "autograder/grading/selfcheck.py",
            "autograder/checks/pytest.ini"} <= shipped
    for a in COURSE.assignments:
        assert f"exercises/{a.id}/{a.notebook}.ipynb" in shipped
        assert f"autograder/checks/{a.notebook}.py" in shipped
        assert f"autograder/probes/{a.notebook}.py" in shipped
    assert {p for p in files(ROOT / "dp") if "__pycache__" not in p} == \
        {p.removeprefix("dp/") for p in shipped if p.startswith("dp/")}
    readme = (bundle / "README.md").read_text()
    assert "pip install -e '.[student]'" in readme and "make lab" in readme and 'check("' in readme


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


def test_bundle_has_public_cases_and_no_reference_code(bundle):
    """The references stay with the grader: the bundle has their proxy only, which replays the
    public cases recorded for every assignment whose checks have references."""
    from autograder.grading.public_cases import has_references
    shipped = files(bundle)
    assert [p for p in shipped if p.startswith("autograder/references/")] == \
        ["autograder/references/__init__.py"]
    with_references = [a for a in COURSE.assignments if has_references(a)]
    assert {a.notebook for a in with_references} >= {"scalar_autodiff", "matrix_autodiff",
                                                     "activation_functions"}
    assert sorted(p for p in shipped if p.startswith("autograder/public_cases/")) == \
        sorted(f"autograder/public_cases/{a.notebook}.json" for a in with_references)
    for a in with_references:   # (a notebook's checks may call its references only when grading)
        cases = json.loads((bundle / "autograder" / "public_cases" / f"{a.notebook}.json").read_text())
        assert all(len(key) == 32 for key in cases), a.id
        assert cases or a.notebook not in ("scalar_autodiff", "matrix_autodiff",
                                           "activation_functions"), a.id
    assert release.find_reference_code(bundle, ROOT) == []


def test_the_scan_finds_planted_reference_code(bundle, tmp_path):
    """A reference module in the bundle, or a reference function copied into a shipped module
    under other names, stops the release."""
    import ast
    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    shutil.copyfile(ROOT / "autograder" / "references" / "activation_functions.py",
                    copy / "autograder" / "references" / "activation_functions.py")
    assert release.find_solution_text(copy, ROOT) == [
        "autograder/references/activation_functions.py: reference code must not be shipped (the "
        "bundle has the public cases instead)"]
    (copy / "autograder" / "references" / "activation_functions.py").unlink()
    source = (ROOT / "autograder" / "references" / "activation_functions.py").read_text()
    [function] = [node for node in ast.parse(source).body
                  if isinstance(node, ast.FunctionDef) and node.name == "_gradients"]
    planted = ast.get_source_segment(source, function).replace("delta", "d") \
        .replace("grads", "out").replace("_gradients", "layer_grads")     # renamed throughout
    checks = copy / "autograder" / "checks" / "activation_functions.py"
    checks.write_text(checks.read_text() + "\n\n" + planted + "\n")
    found = release.find_reference_code(copy, ROOT)
    assert found == ["autograder/checks/activation_functions.py: `layer_grads` holds the reference "
                     f"autograder/references/activation_functions.py:{function.lineno} `_gradients` "
                     "(100% of it)"], found


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
    assert "autograder/grading/selfcheck.py" in shipped and "autograder/grading/judge.py" in shipped
    assert "autograder/course/notebook.py" in shipped
    assert not [m for m in shipped if m.split("/")[-1] in GRADING_ONLY]


SELF_CHECK = textwrap.dedent("""
    import importlib, importlib.util, json, sys
    from pathlib import Path
    bundle = Path(sys.argv[1])
    sys.path.insert(0, str(bundle))
    import nbformat
    from autograder.grading.selfcheck import CheckFailed
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
    # -I: neither the current folder nor PYTHONPATH; the bundle is the only source of autograder and dp.
    # -B: no __pycache__ written into the bundle, which the other tests of this run read (under
    # pytest-xdist, this test may run before those that check that the bundle holds none)
    run = subprocess.run([sys.executable, "-I", "-B", script, bundle, tmp_path / "solution.ipynb",
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
        release.make_bundle(tmp_path, log=lambda *_: None, expose=True, warn=lambda *_: None)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_release_of_chosen_assignments(tmp_path):
    release.make_bundle(tmp_path / "b", assignments=["01_scalar_autodiff"], log=lambda *_: None)
    assert [p for p in files(tmp_path / "b") if p.startswith("exercises/")] == \
        ["exercises/01_scalar_autodiff/scalar_autodiff.ipynb"]


# -- releasing in order ----------------------------------------------------------------------

SECOND, DAY = datetime.timedelta(seconds=1), datetime.timedelta(days=1)
# Provided code that is an earlier assignment's answer, as the course has it today (issue 15):
# (the notebook that gives it, the provided function, the assignment whose answer it is)
KNOWN_EXPOSURES = {
    ("exercises/02_matrix_autodiff/matrix_autodiff.ipynb", "Tensor.backward", "01_scalar_autodiff"),
    ("exercises/03_dp_library/dp_library.ipynb", "topological_order", "01_scalar_autodiff"),
    ("exercises/03_dp_library/dp_library.ipynb", "Node.softmax", "02_matrix_autodiff"),
}


def ids(assignments):
    return [a.id for a in assignments]


@pytest.fixture(scope="module")
def exposures():
    return release.find_exposures(COURSE, ROOT)


def test_the_course_is_due_in_curriculum_order():
    dues = [a.due for a in COURSE.assignments]
    assert all(due is not None and due.tzinfo is not None for due in dues)
    assert dues == sorted(dues) and len(set(dues)) == len(dues)
    assert ids(release.course_order(COURSE)) == ids(COURSE.assignments)
    assert COURSE.assignment("01_scalar_autodiff").due == \
        datetime.datetime(2026, 10, 5, 23, 59, tzinfo=LONDON)


def test_release_by_date_gives_the_prefix():
    order = COURSE.assignments
    assert ids(release.released_on(COURSE, order[0].due - 30 * DAY)) == ids(order[:1])
    for k, a in enumerate(order[:-1]):
        # the next assignment opens at the moment the one before it is due, not a second earlier
        assert ids(release.released_on(COURSE, a.due - SECOND)) == ids(order[:k + 1]), a.id
        assert ids(release.released_on(COURSE, a.due)) == ids(order[:k + 2]), a.id
    assert ids(release.released_on(COURSE, order[-1].due + DAY)) == ids(order)


def test_a_date_on_the_command_line_is_the_start_of_that_day_in_the_course_time_zone():
    assert release.parse_moment("2026-10-06", "Europe/London") == \
        datetime.datetime(2026, 10, 6, tzinfo=LONDON)
    assert release.parse_moment("2026-10-06T09:30+02:00", "Europe/London") == \
        datetime.datetime(2026, 10, 6, 7, 30, tzinfo=datetime.timezone.utc)
    with pytest.raises(release.ReleaseError, match="'next monday'"):
        release.parse_moment("next monday")


def test_the_release_command_hands_out_what_is_past_due_and_the_one_open(tmp_path):
    run = release_command(tmp_path / "b", "--date", "2026-10-06")   # 01 was due on the 5th
    assert run.returncode == 0, run.stdout + run.stderr
    assert [p for p in files(tmp_path / "b") if p.startswith("exercises/")] == [
        "exercises/01_scalar_autodiff/scalar_autodiff.ipynb",
        "exercises/02_matrix_autodiff/matrix_autodiff.ipynb"]
    assert "next: 03_dp_library, once 02_matrix_autodiff is past its due date" in run.stdout
    assert "warning" not in run.stderr   # 02 reveals 01's answer, but 01 is past due


@pytest.mark.parametrize("choice", [["--until", "02_matrix_autodiff"],
                                    ["--assignment", "01_scalar_autodiff",
                                     "--assignment", "02_matrix_autodiff"]])
def test_early_release_is_refused_and_names_both_notebooks(tmp_path, choice):
    run = release_command(tmp_path / "b", *choice, "--date", BEFORE_TERM)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "would hand out answers before they are due" in run.stderr
    refusal = next(line for line in run.stderr.splitlines() if "Tensor.backward" in line)
    for part in ("exercises/02_matrix_autodiff/matrix_autodiff.ipynb", "`Tensor.backward`",
                 "`backward` of 01_scalar_autodiff", "solutions/01_scalar_autodiff/scalar_autodiff.py",
                 "due 2026-10-05 23:59 BST"):
        assert part in refusal, (part, refusal)
    assert not (tmp_path / "b").exists()                     # nothing written
    # once 01 is past due, the same release goes through
    assert release_command(tmp_path / "c", *choice, "--date", "2026-10-06").returncode == 0


def test_release_of_everything_warns_with_what_it_reveals(bundle):
    output = (bundle.parent / "output.txt").read_text()
    warning = output[output.index("warning: as of 2026-09-20 00:00 BST"):]
    listed = {line.strip() for line in warning.splitlines()[1:] if line.startswith("  ")}
    for notebook, function, reveals in KNOWN_EXPOSURES:
        assert any(line.startswith(f"{notebook}: `{function}` reveals {reveals} ")
                   for line in listed), (notebook, function, listed)
    assert ids(load_course(bundle / "course.toml").assignments) == ids(COURSE.assignments)


def test_the_course_reveals_only_answers_that_are_past_due_when_released_by_date(exposures):
    found = {(e.notebook, e.function, e.reveals) for e in exposures}
    assert KNOWN_EXPOSURES <= found                       # the scan sees them
    order = ids(COURSE.assignments)
    for e in exposures:                                   # always an earlier assignment's answer
        assert order.index(e.reveals) < order.index(e.assignment), e
    for a in COURSE.assignments:                          # so no date of the term is refused
        for now in (a.due - SECOND, a.due):
            released = ids(release.released_on(COURSE, now))
            early = [e for e in exposures if e.assignment in released
                     and not release.is_due(COURSE.assignment(e.reveals), now)]
            assert early == [], (now, early)


# -- a synthetic course: planted provided code, due dates -----------------------------------

SYNTHETIC = """\
[course]
name = "synthetic"
timezone = "Europe/London"

[limits]
time_limit = 10
cpu_limit = 10
memory_limit = "1GiB"
max_processes = 4
max_file_size = "1MiB"
max_reply = "1MiB"
max_output = "1MiB"

[[assignment]]
id = "01_trees"
notebook = "trees"
due = 2026-10-05

  [[assignment.task]]
  id = "flatten"
  points = 1

[[assignment]]
id = "02_forests"
notebook = "forests"
due = 2026-10-12T18:00:00+02:00

  [[assignment.task]]
  id = "count_leaves"
  points = 1
"""

TREES = '''\
def flatten(tree: dict) -> list:
    """Every leaf of a nested dict, depth first, without recursion."""
    ### BEGIN SOLUTION
    leaves, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
        else:
            leaves.append(node)
    return leaves
    ### END SOLUTION
'''

FORESTS = '''\
def count_leaves(forest: list) -> int:
    ### BEGIN SOLUTION
    return sum(len(flatten(tree)) for tree in forest)
    ### END SOLUTION
'''

PLANTS = {
    # renamed: other names for the function and every variable
    "renamed": '''\
def walk_leaves(root):
    "Given: the leaves of a nested dict."
    out, todo = [], [root]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(reversed(list(item.values())))
        else:
            out.append(item)
    return out
''',
    # the solution itself as a method, with type hints and a docstring of its own
    "method": "class Forest:\n" + textwrap.indent(
        "".join(line for line in TREES.splitlines(keepends=True) if "SOLUTION" not in line)
        .replace("def flatten(tree", "def leaves(self, tree")
        .replace("Every leaf of a nested dict, depth first, without recursion.", "All leaves."), "    "),
    # another algorithm for the same thing: not the answer's code
    "recursive": '''\
def walk_leaves(tree):
    if not isinstance(tree, dict):
        return [tree]
    return [leaf for child in tree.values() for leaf in walk_leaves(child)]
''',
    "none": "",
}


def synthetic_course(root, plant="none", course_toml=SYNTHETIC):
    (root / "course.toml").write_text(course_toml)
    for aid, name, source in (("01_trees", "trees", TREES), ("02_forests", "forests", FORESTS)):
        (root / "solutions" / aid).mkdir(parents=True)
        (root / "solutions" / aid / f"{name}.py").write_text(source)
        stub = source.split("    ### BEGIN SOLUTION")[0] + "    # YOUR CODE HERE\n    raise NotImplementedError()\n"
        cells = [nbformat.v4.new_markdown_cell(f"# {aid}"), nbformat.v4.new_code_cell(stub)]
        if aid == "02_forests" and PLANTS[plant]:
            cells.insert(1, nbformat.v4.new_code_cell(PLANTS[plant]))
        (root / "exercises" / aid).mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(cells=cells), str(root / "exercises" / aid / f"{name}.ipynb"))
    return load_course(root / "course.toml")


@pytest.mark.parametrize("plant, function", [("renamed", "walk_leaves"), ("method", "Forest.leaves")])
def test_a_planted_provided_function_is_caught(tmp_path, plant, function):
    course = synthetic_course(tmp_path, plant)
    found = release.find_exposures(course, tmp_path)
    assert [(e.notebook, e.function, e.reveals, e.solution) for e in found] == \
        [("exercises/02_forests/forests.ipynb", function, "01_trees", "flatten")]
    assert found[0].share == 1.0
    before = datetime.datetime(2026, 10, 1, tzinfo=LONDON)
    with pytest.raises(release.ReleaseError) as refused:
        release.make_bundle(tmp_path / "out", root=tmp_path, now=before, log=lambda *_: None)
    message = str(refused.value)
    for part in ("exercises/02_forests/forests.ipynb", f"`{function}`", "`flatten` of 01_trees",
                 "solutions/01_trees/trees.py:3", "01_trees is due 2026-10-05 23:59 BST"):
        assert part in message, (part, message)
    assert not (tmp_path / "out").exists()
    # once 01_trees is past due (the end of 5 October in London) it is no longer early
    assert release.early_exposures(course, list(course.assignments),
                                   datetime.datetime(2026, 10, 5, 23, 59, 59, tzinfo=LONDON),
                                   tmp_path) == []


@pytest.mark.parametrize("plant", ["recursive", "none"])
def test_other_provided_code_is_not_taken_for_the_answer(tmp_path, plant):
    course = synthetic_course(tmp_path, plant)
    assert release.find_exposures(course, tmp_path) == []


def test_due_dates_of_every_toml_kind(tmp_path):
    course = synthetic_course(tmp_path)
    trees, forests = course.assignments
    assert trees.due == datetime.datetime(2026, 10, 5, 23, 59, 59, tzinfo=LONDON)   # a date: its end
    assert forests.due == datetime.datetime(2026, 10, 12, 16, 0, tzinfo=datetime.timezone.utc)
    local = load_course_text(tmp_path, SYNTHETIC.replace("due = 2026-10-05", "due = 2026-10-05T09:00:00"))
    assert local.assignments[0].due == datetime.datetime(2026, 10, 5, 9, 0, tzinfo=LONDON)
    utc = load_course_text(tmp_path, SYNTHETIC.replace('timezone = "Europe/London"\n', ""))
    assert utc.timezone == "UTC" and utc.assignments[0].due.utcoffset() == datetime.timedelta(0)


def load_course_text(folder, text):
    path = folder / "other.toml"
    path.write_text(text)
    return load_course(path)


@pytest.mark.parametrize("bad, expected", [
    ('due = "2026-10-12"', ["assignment '02_forests': due", "'2026-10-12'", "without quotes"]),
    ("due = 2026-13-12", ["line 26: due = 2026-13-12 (in assignment '02_forests')",
                          "a due date is a TOML date or date-time that exists"]),
    ("due = 23:59:00", ["assignment '02_forests': due", "23:59:00", "time of day without a date"]),
    ("due = 12", ["assignment '02_forests': due", "got 12"]),
    ("due_date = 2026-10-12", ["assignment '02_forests'", "unknown key 'due_date'", "did you mean 'due'"]),
])
def test_bad_due_dates_are_clear_errors(tmp_path, bad, expected):
    text = SYNTHETIC.replace("due = 2026-10-12T18:00:00+02:00", bad)
    assert text != SYNTHETIC
    with pytest.raises(CourseError) as error:
        load_course_text(tmp_path, text)
    for part in expected:
        assert part in str(error.value), (part, str(error.value))


def test_a_bad_time_zone_is_a_clear_error(tmp_path):
    with pytest.raises(CourseError, match=r"\[course\] timezone: unknown time zone 'Europe/Londn'"):
        load_course_text(tmp_path, SYNTHETIC.replace("Europe/London", "Europe/Londn"))


def test_assignments_without_a_due_date_are_released_only_when_asked(tmp_path):
    text = SYNTHETIC.replace("due = 2026-10-12T18:00:00+02:00\n", "")
    course = load_course_text(tmp_path, text)
    late = datetime.datetime(2027, 1, 1, tzinfo=LONDON)
    assert ids(release.released_on(course, late)) == ["01_trees"]
    assert "never released by date (no due date): 02_forests" in \
        release.describe_plan(course, release.released_on(course, late), late)
    assert ids(release.choose(course, late, until="02_forests")) == ["01_trees", "02_forests"]
    undated = load_course_text(tmp_path, text.replace("due = 2026-10-05\n", ""))
    with pytest.raises(release.ReleaseError, match="--until ASSIGNMENT, --assignment, or --all"):
        release.released_on(undated, late)
    assert ids(release.choose(undated, late, everything=True)) == ["01_trees", "02_forests"]


def test_the_bundle_course_toml_lists_only_what_is_released(tmp_path):
    """Issue 33: the bundle's course.toml listed the assignments not handed out yet (titles,
    tasks, due dates). Only the released ones are left, each whole (tasks, thresholds)."""
    text = (ROOT / "course.toml").read_text(encoding="utf-8")
    released = {"01_scalar_autodiff", "02_matrix_autodiff"}
    path = tmp_path / "course.toml"
    path.write_text(release.student_course_toml(text, released), encoding="utf-8")
    students = load_course(path)
    assert [a.id for a in students.assignments] == ["01_scalar_autodiff", "02_matrix_autodiff"]
    for a in students.assignments:
        assert a == COURSE.assignment(a.id)
    later = COURSE.assignment("03_dp_library")
    assert later.id not in path.read_text() and later.title not in path.read_text()
    assert "grading_seed" not in tomllib.loads(path.read_text())["course"]
    assert [a.id for a in load_course(ROOT / "course.toml").assignments] == \
        [a["id"] for a in tomllib.loads(release.student_course_toml(text))["assignment"]]


def test_the_bundle_s_make_lab_passes_lab_args_and_runs_as_root(tmp_path):
    """Issue 33: the bundle's `make lab` ignored LAB_ARGS, and stopped as root (JupyterLab
    refuses root without --allow-root)."""
    (tmp_path / "Makefile").write_text(release.STUDENT_MAKEFILE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed").write_text("")
    os.utime(tmp_path / "pyproject.toml", (0, 0))        # installed after: nothing to install
    run = subprocess.run(["make", "-n", "lab", "LAB_ARGS=--no-browser --port 8899"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    [command] = [line for line in run.stdout.splitlines() if "jupyter lab" in line]
    assert command.endswith("--no-browser --port 8899")
    assert ("--allow-root" in command) == (os.getuid() == 0)
