"""Build the student notebooks: solutions/<id>/<notebook>.py -> exercises/<id>/<notebook>.ipynb.

    python -m autograder build            regenerate exercises/ and say what changed
    python -m autograder build --check    exit 1 if the committed exercises/ differ from a fresh build

Each source is a jupytext percent script. It becomes an nbgrader *source* notebook (nbformat 4.5,
nbgrader cell metadata schema 3, stable grade and cell ids):

- a code cell with `### BEGIN SOLUTION` ... `### END SOLUTION` -> autograded answer cell;
- a code cell that is nothing but `check("<task id>")`     -> autograder test cell worth the
  task's points in course.toml, grade_id = the task id;
- a markdown cell marked `# %% [markdown] answer="<question id>"` -> manually graded answer
  cell worth the question's points in course.toml, grade_id = the question id; its text (the
  model answer and rubric) is the solution: students get "YOUR ANSWER HERE". The question
  itself is the markdown cell before it;
- every other cell                                         -> read-only (locked) cell.

All source notebooks go into ONE temporary nbgrader course directory (only the .ipynb files,
since nbgrader copies every file of a source folder), and the real `nbgrader generate_assignment`
turns them into release notebooks, which are normalised (stable JSON, no timestamps) and written
to exercises/. Notebooks and course.toml must agree (every task has exactly one check cell, no
unknown ones, same points; every question has exactly one answer cell); no solution text
(code or rubric) may reach exercises/.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from ..course.config import PACKAGE, CourseError, load_course

COURSE_ID = "dp-courseware"
NBGRADER_SCHEMA = 3
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
# A question's answer cell in a percent script: `# %% [markdown] answer="<question id>"`
# (jupytext reads answer="..." as the cell's metadata). Its whole text is the rubric.
ANSWER_KEY = "answer"
ANSWER_MARKER = re.compile(r"^# %%.*\[markdown\].*\b" + ANSWER_KEY + r"\s*=")
BEGIN_SOLUTION, END_SOLUTION = "BEGIN SOLUTION", "END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
# Text that must never reach a student notebook.
FORBIDDEN_IN_EXERCISES = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN)
ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_ID = 64  # nbformat 4.5 cell ids: ^[a-zA-Z0-9-_]+$, 1-64 characters
MAX_SLUG = 32  # of a read-only or answer cell's id, after the assignment id
# jupytext's own bookkeeping; meaningless in a notebook
JUPYTEXT_CELL_KEYS = {"lines_to_next_cell", "lines_to_end_of_cell_marker", "cell_marker"}
# set here, never taken from the source
CONTROLLED_CELL_KEYS = {"nbgrader", "deletable", "editable", ANSWER_KEY}


class BuildError(RuntimeError):
    """The build could not run (course.toml unreadable, nbgrader failed); the message says why."""


def _tasks_by_assignment(root: Path) -> list:
    """The assignments of root/course.toml (validated by autograder.course.config)."""
    try:
        return list(load_course(root / "course.toml").assignments)
    except CourseError as error:
        raise BuildError(str(error)) from None


def _course_problems(assignments) -> list[str]:
    problems, owner, seen = [], {}, set()
    for a in assignments:
        for what, name in (("assignment id", a.id), ("notebook name", a.notebook)):
            if not ID_RE.match(name):
                problems.append(f"course.toml: {what} {name!r} may only use letters, digits, "
                                f"'_' and '-' (at most {MAX_ID} characters)")
        if a.id in seen:
            problems.append(f"course.toml: assignment {a.id!r} is defined twice")
        seen.add(a.id)
        for kind, items in (("task", a.tasks), ("question", a.questions)):
            for t in items:
                if not ID_RE.match(t.id):
                    problems.append(f"course.toml: assignment {a.id!r}: {kind} {t.id!r} is not a "
                                    f"valid nbgrader grade_id (letters, digits, '_', '-'; at most "
                                    f"{MAX_ID})")
                if t.points < 0:
                    problems.append(f"course.toml: assignment {a.id!r}: {kind} {t.id!r} has "
                                    f"negative points")
                if t.id in owner:
                    problems.append(f"course.toml: {kind} {t.id!r} is defined by assignment "
                                    f"{owner[t.id]!r} and again by {a.id!r}; task and question "
                                    f"ids must be unique across the course")
                else:
                    owner[t.id] = a.id
    return problems


# --------------------------------------------------------------------------------------------
# solutions/<id>/<notebook>.py -> nbgrader source notebook
# --------------------------------------------------------------------------------------------

def grade_ids(assignments) -> dict:
    """{grade id: assignment id} of every task and question of the course."""
    return {t.id: a.id for a in assignments for t in (*a.tasks, *a.questions)}


def answer_lines(text: str):
    """(line number, line) of every line of the answer cells of a percent script (their
    rubrics): from a `# %% [markdown] answer="..."` marker to the next `# %%`."""
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("# %%"):
            inside = bool(ANSWER_MARKER.match(line))
        elif inside:
            yield number, line


def _parse(code: str):
    """The cell's code as an AST (IPython magics and shell escapes read as `pass`), or None."""
    lines = code.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return None
    plain = "\n".join(re.sub(r"^(\s*)[%!].*$", r"\1pass", line) for line in lines)
    try:
        return ast.parse(plain)
    except SyntaxError:
        return None


def _check_task(tree):
    """The task id if the code is exactly one `check("<task id>")` call, else None."""
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "check"
            and len(call.args) == 1 and not call.keywords
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
        return call.args[0].value
    return None


def _has_check_call(tree, code: str) -> bool:
    if tree is None:
        return re.search(r"(?<![\w.])check\s*\(", code) is not None
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
               and node.func.id == "check" for node in ast.walk(tree))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-_")


def _label(cell, tree) -> str:
    """What a cell is about: its first function/class name, else its first heading or line."""
    text = cell.source
    if cell.cell_type == "code":
        if tree is not None:
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    return node.name
        m = re.search(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", text, re.M)
        if m:
            return m.group(1)
    else:
        for line in text.splitlines():
            if line.lstrip().startswith("#"):
                return line.strip().lstrip("#")
    for line in text.splitlines():
        if _slug(line):
            return line
    return "cell"


def _stable_id(assignment_id: str, label: str, taken: set) -> str:
    """assignment id + slug of the label (+ -2, -3, ... for duplicates), at most 64 characters."""
    slug = _slug(label) or "cell"
    room = max(min(MAX_SLUG, MAX_ID - len(assignment_id) - 1 - 4), 8)  # 4: a "-NNN" counter
    if len(slug) > room:  # cut at a word boundary when one is near
        cut = slug[:room + 1].rfind("-")
        slug = slug[:cut] if cut >= room // 2 else slug[:room]
    base = f"{assignment_id}-{slug.rstrip('-_') or 'cell'}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


def _cell_id(grade_id: str) -> str:
    """nbformat 4.5 cell id for a grade_id: the grade_id itself when it fits."""
    if ID_RE.match(grade_id):
        return grade_id
    digest = hashlib.sha1(grade_id.encode()).hexdigest()[:8]
    return f"{re.sub(r'[^A-Za-z0-9_-]+', '-', grade_id)[:MAX_ID - 9]}-{digest}"


def _marker_problem(code: str):
    """Why the solution markers of a code cell are malformed, or None."""
    inside = False
    for line in code.splitlines():
        if BEGIN_SOLUTION in line:
            if inside:
                return f"'{BEGIN_SOLUTION}' inside a solution region"
            inside = True
        elif END_SOLUTION in line:
            if not inside:
                return f"'{END_SOLUTION}' without a '{BEGIN_SOLUTION}' before it"
            inside = False
    return f"'{BEGIN_SOLUTION}' without an '{END_SOLUTION}'" if inside else None


def _cell_lines(text: str, n_cells: int):
    """Line number of each cell's `# %%` marker in the percent script (None when unsure)."""
    markers = [i + 1 for i, line in enumerate(text.splitlines()) if line.startswith("# %%")]
    if len(markers) == n_cells:
        return markers
    if len(markers) == n_cells - 1:  # code before the first marker is a cell too
        return [1] + markers
    return [None] * n_cells


def _source_notebook(a, path: Path, rel: str, course_task_ids: dict):
    """Read a percent script and make the nbgrader source notebook; returns (notebook, problems)."""
    import jupytext  # only the build needs it

    text = path.read_text(encoding="utf-8")
    try:
        script = jupytext.reads(text, fmt="py:percent")
    except Exception as error:  # jupytext raises many kinds
        return None, [f"{rel}: jupytext cannot read it: {error}"]
    lines = _cell_lines(text, len(script.cells))
    points = {t.id: t.points for t in a.tasks}
    questions = {q.id: q.points for q in a.questions}
    problems, checks, answers = [], {}, {}
    parsed = []
    for i, cell in enumerate(script.cells):
        where = f"{rel}:{lines[i]}: cell {i + 1}" if lines[i] else f"{rel}: cell {i + 1}"
        tree = _parse(cell.source) if cell.cell_type == "code" else None
        task = _check_task(tree) if cell.cell_type == "code" else None
        kind = "readonly"
        if ANSWER_KEY in cell.metadata:
            kind, task = "question", cell.metadata[ANSWER_KEY]
            problems += _answer_problems(a, script.cells, i, where, questions, course_task_ids)
            answers.setdefault(task, []).append(where)
        elif task is not None:
            kind = "grade"
            checks.setdefault(task, []).append(where)
            if task not in points:
                other = course_task_ids.get(task)
                problems.append(
                    f"{where}: {_call(task)}: task {task!r} is not a task of assignment "
                    f"{a.id!r} in course.toml"
                    + (f" (it belongs to {other!r})" if other else "")
                    + f"; its tasks are: {', '.join(points) or '(none)'}")
            if not ID_RE.match(task):
                problems.append(f"{where}: {_call(task)}: not a valid nbgrader grade_id")
        elif cell.cell_type == "code" and _has_check_call(tree, cell.source):
            problems.append(f"{where}: a check(...) call must be alone in its cell, with the task id "
                            f"as a string literal: check(\"<task id>\")")
        has_solution = BEGIN_SOLUTION in cell.source or END_SOLUTION in cell.source
        if kind == "grade" and has_solution:
            problems.append(f"{where}: solution markers in the {_call(task)} cell")
        elif cell.cell_type == "code" and has_solution:
            kind = "answer"
            why = _marker_problem(cell.source)
            if why:
                problems.append(f"{where}: malformed solution region: {why}")
        elif has_solution:
            problems.append(f"{where}: solution markers in a {cell.cell_type} cell; "
                            f"only code cells may hold solutions (a question's answer cell is "
                            f"all solution: `# %% [markdown] {ANSWER_KEY}=\"<question id>\"`)")
        if kind != "grade" and (BEGIN_HIDDEN in cell.source or END_HIDDEN in cell.source):
            problems.append(f"{where}: hidden-test markers outside a check(\"<task id>\") cell")
        parsed.append((cell, tree, kind, task))

    problems += _exactly_one(rel, a, "task", points, checks, _call)
    problems += _exactly_one(rel, a, "question", questions, answers, lambda _: "answer")
    marked = sum(1 for _ in filter(ANSWER_MARKER.match, text.splitlines()))
    if not problems and marked != len(answers):     # release.py finds rubrics by the marker
        problems.append(f"{rel}: {marked} line(s) look like answer-cell markers but jupytext "
                        f"reads {len(answers)} answer cell(s); write each as "
                        f"# %% [markdown] {ANSWER_KEY}=\"<question id>\"")
    if problems:
        return None, problems

    taken = set(course_task_ids) | set(checks) | set(answers)
    cells = []
    for cell, tree, kind, task in parsed:
        metadata = {k: v for k, v in cell.metadata.items()
                    if k not in JUPYTEXT_CELL_KEYS | CONTROLLED_CELL_KEYS}
        if kind == "grade":
            grade_id = task
            metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True,
                                    "grade_id": task, "points": _number(points[task]),
                                    "schema_version": NBGRADER_SCHEMA}
        elif kind == "question":     # nbgrader's manually graded answer
            grade_id = task
            metadata["nbgrader"] = {"grade": True, "solution": True, "locked": False,
                                    "grade_id": task, "points": _number(questions[task]),
                                    "schema_version": NBGRADER_SCHEMA}
        else:
            grade_id = _stable_id(a.id, _label(cell, tree), taken)
            metadata["nbgrader"] = {"grade": False, "solution": kind == "answer",
                                    "locked": kind != "answer", "grade_id": grade_id,
                                    "schema_version": NBGRADER_SCHEMA}
        new = (nbformat.v4.new_code_cell if cell.cell_type == "code"
               else nbformat.v4.new_raw_cell if cell.cell_type == "raw"
               else nbformat.v4.new_markdown_cell)
        cells.append(new(source=cell.source, metadata=metadata, id=_cell_id(grade_id)))
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        "autograder": {"assignment": a.id},
    })
    notebook.nbformat, notebook.nbformat_minor = 4, 5
    nbformat.validate(notebook)
    return notebook, []


def _exactly_one(rel, a, kind, declared, found, cell) -> list:
    """Each `kind` of course.toml (`declared` ids) has exactly one cell (`found`: {id: the places
    of its cells}); `cell(id)` names such a cell."""
    return [f"{rel}: {kind} {i!r} has {len(places)} {cell(i)} cells ({'; '.join(places)}); "
            f"each {kind} needs exactly one" for i, places in found.items() if len(places) > 1] + [
        f"{rel}: {kind} {i!r} of assignment {a.id!r} (course.toml) has no {cell(i)} cell"
        for i in declared if i not in found]


def _answer_problems(a, cells, i, where, questions, course_task_ids) -> list:
    """What is wrong with cell i, marked as the answer cell of a question."""
    cell, question = cells[i], cells[i].metadata[ANSWER_KEY]
    marker = f"{ANSWER_KEY}={question!r}"
    if not isinstance(question, str) or not ID_RE.match(question):
        return [f"{where}: {marker}: a question id is a string of letters, digits, '_', '-'"]
    problems = []
    if question not in questions:
        other = course_task_ids.get(question)
        problems.append(f"{where}: {marker}: {question!r} is not a question of assignment "
                        f"{a.id!r} in course.toml" + (f" (it belongs to {other!r})" if other else "")
                        + f"; its questions are: {', '.join(questions) or '(none)'}")
    if cell.cell_type != "markdown":
        problems.append(f"{where}: {marker} on a {cell.cell_type} cell; an answer cell is "
                        f"markdown: # %% [markdown] {ANSWER_KEY}=\"{question}\"")
    if BEGIN_SOLUTION in cell.source or END_SOLUTION in cell.source:
        problems.append(f"{where}: solution markers in the answer cell of {question!r}: its "
                        f"whole text is the solution")
    before = cells[i - 1] if i > 0 else None
    if before is None or before.cell_type != "markdown" or ANSWER_KEY in before.metadata:
        problems.append(f"{where}: the answer cell of {question!r} needs the question before it, "
                        f"in a markdown cell of its own (students see that cell, not this one)")
    return problems


def _call(task: str) -> str:
    return f'check("{task}")'


def _number(x: float):
    return int(x) if float(x).is_integer() else float(x)


# --------------------------------------------------------------------------------------------
# nbgrader
# --------------------------------------------------------------------------------------------

NBGRADER_CONFIG = """\
# Written by autograder/authoring/build.py for one build; everything the output depends on is set here,
# so that user or system Jupyter configuration cannot change the generated notebooks.
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.db_url = {db_url!r}
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.ignore = []
c.CourseDirectory.include = ["*"]
c.ClearSolutions.code_stub = {{"python": {code_stub!r}}}
c.ClearSolutions.text_stub = {text_stub!r}
c.ClearSolutions.begin_solution_delimeter = {begin!r}
c.ClearSolutions.end_solution_delimeter = {end!r}
c.ClearSolutions.enforce_metadata = True
c.ClearHiddenTests.begin_test_delimeter = {begin_hidden!r}
c.ClearHiddenTests.end_test_delimeter = {end_hidden!r}
c.IncludeHeaderFooter.header = ""
c.IncludeHeaderFooter.footer = ""
"""


def _run_nbgrader(course_dir: Path, assignment_ids: list[str]) -> None:
    """The real `nbgrader generate_assignment --force` for every assignment, in one process
    (nbgrader takes the assignment id as a glob, so one call covers all of them)."""
    (course_dir / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
        root=str(course_dir), course_id=COURSE_ID,
        db_url=f"sqlite:///{course_dir / 'gradebook.db'}", code_stub=CODE_STUB, text_stub=TEXT_STUB,
        begin=BEGIN_SOLUTION, end=END_SOLUTION, begin_hidden=BEGIN_HIDDEN, end_hidden=END_HIDDEN),
        encoding="utf-8")
    env = dict(os.environ)
    env["JUPYTER_CONFIG_DIR"] = str(course_dir / ".jupyter")  # no per-user configuration
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env.pop("JUPYTER_CONFIG_PATH", None)
    # nbgrader's gradebook runs the `alembic` script, installed next to this Python
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    pattern = assignment_ids[0] if len(assignment_ids) == 1 else "*"
    cmd = [sys.executable, "-m", "nbgrader", "generate_assignment", pattern, "--force",
           "--log-level=WARN"]
    result = subprocess.run(cmd, cwd=course_dir, env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True)
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip()
        raise BuildError(f"nbgrader generate_assignment failed (exit {result.returncode}):\n"
                         f"  {' '.join(cmd)}\n{output}")


def _normalised(path: Path) -> bytes:
    """A release notebook as stable bytes: nbformat's JSON (sorted keys, indent 1), a trailing
    newline, no timestamps or execution state."""
    notebook = nbformat.read(path, as_version=4)
    for key in ("widgets",):
        notebook.metadata.pop(key, None)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)  # timestamps recorded by some front ends
    text = nbformat.writes(notebook)
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


def _exercise_problems(a, rel: str, data: bytes) -> list[str]:
    """What is wrong with a generated exercise: solution text, grade cells vs course.toml."""
    problems = []
    notebook = nbformat.reads(data.decode("utf-8"), as_version=4)
    points = {t.id: t.points for t in a.tasks}
    questions = {q.id: q.points for q in a.questions}
    seen = {}
    for i, cell in enumerate(notebook.cells):
        meta = cell.metadata.get("nbgrader", {})
        where = f"{rel}: cell {i + 1} ({meta.get('grade_id', cell.get('id', '?'))})"
        for marker in FORBIDDEN_IN_EXERCISES:
            if marker in cell.source:
                problems.append(f"{where}: contains the solution marker {marker!r}")
        if not meta.get("grade"):
            continue
        gid = meta.get("grade_id")
        kind, declared, name = (("question", questions, "answer cell") if cell.cell_type == "markdown"
                                else ("task", points, "grade cell"))
        seen[gid] = seen.get(gid, 0) + 1
        if gid not in declared:
            problems.append(f"{where}: {name} for {kind} {gid!r}, which is not a {kind} of "
                            f"assignment {a.id!r} in course.toml")
        elif float(meta.get("points", -1)) != declared[gid]:
            problems.append(f"{where}: {kind} {gid!r} is worth {meta.get('points')} points in "
                            f"the notebook but {_number(declared[gid])} in course.toml")
        if kind == "question" and (not meta.get("solution") or cell.source.strip() != TEXT_STUB):
            problems.append(f"{where}: the answer cell of {gid!r} must be an nbgrader "
                            f"solution cell holding only {TEXT_STUB!r} (no rubric)")
        elif kind == "task" and _check_task(_parse(cell.source)) != gid:
            problems.append(f"{where}: the grade cell of task {gid!r} is not {_call(gid)}")
    for kind, declared, name in (("task", points, "grade cell"), ("question", questions, "answer cell")):
        problems += [f"{rel}: {kind} {i!r} has {seen.get(i, 0)} {name}s; expected 1"
                     for i in declared if seen.get(i, 0) != 1]
    if notebook.metadata.get("autograder", {}).get("assignment") != a.id:
        problems.append(f"{rel}: notebook metadata autograder.assignment is not {a.id!r}")
    return problems


# --------------------------------------------------------------------------------------------
# build
# --------------------------------------------------------------------------------------------

def _generate(root: Path, log):
    """Build every exercise in memory.

    Returns (outputs, kept, problems): outputs maps 'exercises/<id>/<nb>.ipynb' to its bytes for
    every assignment that built cleanly; kept holds the exercise paths of assignments that have
    problems (their committed notebooks are neither rewritten nor removed).
    """
    assignments = _tasks_by_assignment(root)
    problems = _course_problems(assignments)
    exercise = {a.id: f"exercises/{a.id}/{a.notebook}.ipynb" for a in assignments}
    if problems:  # course.toml itself is inconsistent: build nothing
        return {}, set(exercise.values()), problems
    course_task_ids = grade_ids(assignments)
    sources, kept = [], set()
    for a in assignments:
        path = root / "solutions" / a.id / f"{a.notebook}.py"
        rel = path.relative_to(root).as_posix()
        if not path.is_file():
            problems.append(f"{rel}: missing (the source of assignment {a.id!r} in course.toml)")
            kept.add(exercise[a.id])
            continue
        notebook, found = _source_notebook(a, path, rel, course_task_ids)
        if found:
            problems += found
            kept.add(exercise[a.id])
        else:
            sources.append((a, notebook))
    outputs = {}
    cached = {a.id: _cached(root, a, notebook) for a, notebook in sources}
    todo = [(a, notebook) for a, notebook in sources if cached[a.id] is None]
    if len(todo) < len(sources):
        log(f"{len(sources) - len(todo)} notebook(s) unchanged since they were last built "
            f"({CACHE}/)")
    with tempfile.TemporaryDirectory(prefix="autograder-build-") as tmp:
        course_dir = Path(tmp)
        for a, notebook in todo:
            folder = course_dir / "source" / a.id
            folder.mkdir(parents=True)
            # only the notebook: nbgrader copies every file it finds in a source folder
            nbformat.write(notebook, folder / f"{a.notebook}.ipynb")
        if todo:
            log(f"nbgrader generate_assignment: {len(todo)} notebook(s) "
                f"({', '.join(a.id for a, _ in todo)}) ...")
            start = time.perf_counter()
            _run_nbgrader(course_dir, [a.id for a, _ in todo])
            log(f"nbgrader generate_assignment: {len(todo)} notebook(s) in "
                f"{time.perf_counter() - start:.1f} s")
        for a, notebook in sources:
            release = course_dir / "release" / a.id
            rel = exercise[a.id]
            if cached[a.id] is not None:
                files, data = [f"{a.notebook}.ipynb"], cached[a.id]
            else:
                files = sorted(p.relative_to(release).as_posix() for p in release.rglob("*")
                               if p.is_file()) if release.is_dir() else []
            found = []
            if files != [f"{a.notebook}.ipynb"]:
                found.append(f"{rel}: nbgrader released {files} for assignment {a.id!r}; "
                             f"expected only {a.notebook}.ipynb")
            if f"{a.notebook}.ipynb" in files:
                if cached[a.id] is None:
                    data = _normalised(release / f"{a.notebook}.ipynb")
                found += _exercise_problems(a, rel, data)
            if found:
                problems += found
                kept.add(rel)
            else:
                outputs[rel] = data
                if cached[a.id] is None:
                    _keep(root, a, notebook, data)
    return outputs, kept, problems


CACHE = "build/exercises"   # nbgrader's output per source, under the course root (git ignores build/)


def _cache_key(assignment, notebook) -> str:
    """What nbgrader's output depends on: the source notebook, this module (the nbgrader
    configuration, the stub, the normalisation) and nbgrader's and nbformat's versions."""
    import nbgrader
    digest = hashlib.sha256(nbformat.writes(notebook).encode())
    digest.update(Path(__file__).read_bytes())
    digest.update(f"{nbgrader.__version__} {nbformat.__version__}".encode())
    return digest.hexdigest()[:24]


def _cached(root: Path, assignment, notebook) -> bytes | None:
    path = root / CACHE / f"{assignment.id}-{_cache_key(assignment, notebook)}.ipynb"
    try:
        return path.read_bytes()
    except OSError:
        return None


def _keep(root: Path, assignment, notebook, data: bytes) -> None:
    """Keep what nbgrader made of this source, so that a build where it did not change does not
    run nbgrader for it again (the old versions of its notebook go)."""
    folder = root / CACHE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(f"{assignment.id}-*.ipynb"):
            old.unlink()
        partial = folder / f".{assignment.id}.{os.getpid()}.tmp"
        partial.write_bytes(data)
        partial.replace(folder / f"{assignment.id}-{_cache_key(assignment, notebook)}.ipynb")
    except OSError:
        pass        # a read-only checkout builds every time, as before


def _committed(root: Path) -> dict:
    """Every file under root/exercises/, as {'exercises/...': path}."""
    base = root / "exercises"
    if not base.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p for p in sorted(base.rglob("*"))
            if p.is_file() or p.is_symlink()}


def build(root: Path, check: bool = False, log=print) -> list[str]:
    """Regenerate root/exercises from root/solutions; with check, only compare.

    Returns the problems found; empty means all is well (with check: exercises/ is in sync).
    An assignment whose source disagrees with course.toml is reported and not built; its
    committed notebook is left alone. Progress and changes go to `log`.
    Raises BuildError when the build cannot run (course.toml unreadable, nbgrader fails).
    """
    root = Path(root).resolve()
    start = time.perf_counter()
    outputs, kept, problems = _generate(root, log)
    if root == PACKAGE.parent:     # the checks and probes are this package's: they must fit,
        from ..grading import public_cases       # and grade each solution with the public seed
        from ..grading.judge import preflight
        assignments = _tasks_by_assignment(root)
        problems += preflight(assignments) or public_cases.verify(
            assignments, load_course(root / "course.toml").public_seed, root, log=log)
    committed = _committed(root)
    extra = [rel for rel in committed if rel not in outputs and rel not in kept]

    if check:
        for rel, data in outputs.items():
            if rel not in committed:
                problems.append(f"{rel}: missing; run `python -m autograder build`")
            elif committed[rel].read_bytes() != data:
                problems.append(f"{rel}: stale (differs from what its solution builds); "
                                f"run `python -m autograder build`")
        for rel in extra:
            kind = "notebook" if rel.endswith(".ipynb") else "file (only notebooks belong here)"
            problems.append(f"{rel}: extra {kind}, not built from any assignment in course.toml")
        if not problems:
            log(f"exercises/ is in sync with solutions/ ({len(outputs)} notebook(s), "
                f"{time.perf_counter() - start:.1f} s)")
        return problems

    changes = []
    for rel, data in outputs.items():
        path = root / rel
        if rel in committed and committed[rel].read_bytes() == data:
            continue
        changes.append(f"{'updated' if rel in committed else 'created'} {rel}")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    for rel in extra:
        committed[rel].unlink()
        changes.append(f"removed {rel}")
    base = root / "exercises"
    if base.is_dir():  # folders left empty by removals
        for folder in sorted((p for p in base.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
                changes.append(f"removed {folder.relative_to(root).as_posix()}/")
    for line in changes:
        log(line)
    skipped = f", {len(kept)} not built because of problems" if kept else ""
    log(f"{len(outputs)} notebook(s) built, {len(changes)} change(s){skipped}, "
        f"{time.perf_counter() - start:.1f} s")
    return problems


def _default_root() -> Path:
    cwd = Path.cwd()
    return cwd if (cwd / "course.toml").is_file() else Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    """`python -m autograder build [--check] [--root DIR]`; argv excludes the word `build`."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder build",
        description="Regenerate exercises/ from solutions/ with nbgrader.")
    parser.add_argument("--check", action="store_true",
                        help="build into a temporary directory and fail if exercises/ differs")
    parser.add_argument("--root", type=Path, default=None,
                        help="the course repository (default: the current directory if it has "
                             "a course.toml, else the repository of this package)")
    args = parser.parse_args(argv)
    try:
        problems = build(args.root or _default_root(), check=args.check)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s)" + (" -- exercises/ is not in sync" if args.check else
                                               "; notebooks with problems were not written"),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
