"""`python -m autograder release DIR`: the student bundle.

    DIR/README.md                    install, open JupyterLab, self-check (docs/STUDENTS.md)
    DIR/pyproject.toml, Makefile     `pip install -e .` or `make lab`
    DIR/course.toml                  the course, without its grading secret (grading_seed)
    DIR/dp/                          the library
    DIR/exercises/<assignment>/<notebook>.ipynb
    DIR/autograder/                  what `check("<task id>")` needs and nothing else: the
                                     checks and probes of the released assignments, and the
                                     modules they import
    DIR/autograder/public_cases/<notebook>.json
                                     what the checks' reference calls returned with the
                                     public seed, recorded by running each released solution
                                     and its checks here (autograder/grading/public_cases.py)

No solutions/, tests/ (their mutants are solutions with one bug), reference modules
(autograder/references/ but its proxy, which replays the public cases) or git history. Before it
finishes, the release scans every file it wrote for the text of the solutions (see
`solution_lines`) and of the questions' rubrics (`rubric_lines`) and fails if it finds any.

Which exercises: by default those released by their due dates (`released_on`: what is past due
and the one open now; `--date` to say when "now" is), or `--until ASSIGNMENT`, `--assignment`,
`--all`. Before anything is written, the provided code of those notebooks is compared, function
by function, with the solutions of the other assignments (`find_exposures`); provided code that
holds the answer of an assignment that is not yet due stops the release, naming both notebooks,
unless `--all` was asked for, which lists what it reveals in a warning.
"""
from __future__ import annotations

import ast
import dataclasses
import datetime
import io
import json
import keyword
import re
import shutil
import sys
import tokenize
import tomllib
from pathlib import Path

from ..grading import public_cases
from .build import answer_lines
from ..course.config import ROOT, CourseError, load_course, parse_timezone

# The only things the self-check needs besides the closure of imports (see `needed_modules`).
SELF_CHECK_ENTRY = ("autograder/__init__.py", "autograder/grading/selfcheck.py")
DATA_FILES = ("autograder/checks/pytest.ini",)
# What students need on top of the project's own dependencies: the self-check runs the checks
# with pytest, the notebooks plot with matplotlib, and they are opened in JupyterLab.
STUDENT_TOOLS = ("matplotlib", "pytest", "ipykernel", "jupyterlab")
NEVER_SHIPPED = ("solutions", "tests", ".git", "__pycache__", ".ipynb_checkpoints")
# The reference computations of the checks (autograder/references/<notebook>.py): the bundle has
# only the proxy that replays the public cases in their place (autograder/references/__init__.py).
REFERENCES = "autograder/references/"
REFERENCE_PROXY = "autograder/references/__init__.py"
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
MIN_TOKENS = 4   # a solution line with fewer content tokens is structure, not an answer
MIN_WORDS = 4    # a rubric line with fewer words ("- 1 point", "**Rubric**") says nothing

# Solution lines that a shipped file must contain too, because it computes the reference the
# student's work is compared with next to the student's code (a probe). Each is listed, with
# the reason; any other solution line in the bundle stops the release.
SHARED_WITH_PROBES = {
    ("autograder/probes/scalar_autodiff.py", "for parent, local in node.parents:"):
        "the probe walks the student's graph, whose parents are (node, local derivative) pairs",
    ("autograder/probes/dp_library.py", "if node.name is not None and not node.parents:"):
        "the probe finds the named leaves of the student's graph",
}

STUDENT_MAKEFILE = """\
# `make lab`: install the course into .venv (once) and open the exercises in JupyterLab.
PYTHON ?= python3
.DEFAULT_GOAL := lab

.venv/.installed: pyproject.toml
\ttest -x .venv/bin/python || $(PYTHON) -m venv .venv
\t.venv/bin/python -m pip install -q -e .
\ttouch .venv/.installed

# LAB_ARGS passes options on (make lab LAB_ARGS=--no-browser); as root JupyterLab needs --allow-root.
lab: .venv/.installed
\t.venv/bin/python -m jupyter lab exercises $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

.PHONY: lab
"""

STUDENT_PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "dp-course"
version = {version}
description = "Differentiable programming with dp: the library, the exercises and their self-checks"
readme = "README.md"
requires-python = {requires_python}
dependencies = {dependencies}

[project.optional-dependencies]
# The student's tools are dependencies here already; the extra makes the course repository's
# install command, pip install -e '.[student]', work in the bundle too.
student = []

[tool.setuptools.packages.find]
include = ["dp*", "autograder*"]

[tool.setuptools.package-data]
"*" = ["*.ini", "*.toml", "*.json"]
autograder = ["public_cases/*.json"]
"""


class ReleaseError(RuntimeError):
    """The bundle cannot be written, or would contain solution text; the message says where."""


# -- what the self-check imports -----------------------------------------------------------

def _module_file(name: str, root: Path):
    base = root / Path(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported(path: Path, root: Path) -> set:
    """autograder.* modules that the file imports, anywhere in it (lazy imports included)."""
    package = ".".join(path.relative_to(root).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{a.name}" for a in node.names)   # `from . import protocol`
    return {n for n in names if n.split(".")[0] == "autograder" and _module_file(n, root)}


def needed_modules(root: Path = ROOT, notebooks=None) -> list:
    """The files of the autograder package that `check("<task id>")` can import: the closure
    of the imports of the self-check and of the checks and probes of `notebooks` (default:
    all), read from their source."""
    package = root / "autograder"
    todo = [root / p for p in SELF_CHECK_ENTRY]
    for kind in ("checks", "probes"):
        todo += [p for p in sorted((package / kind).glob("*.py"))
                 if notebooks is None or p.stem in notebooks]
    seen = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imported(path, root):
            parts = name.split(".")
            for i in range(2, len(parts) + 1):      # the packages on the way, too
                found = _module_file(".".join(parts[:i]), root)
                if found and found not in seen:
                    todo.append(found)
    return sorted(p.relative_to(root).as_posix() for p in seen)


# -- solution text ---------------------------------------------------------------------------

def normalise(line: str):
    """(the line's code without comments, spaces normalised; its number of content tokens).
    Content tokens: names (not keywords), numbers, strings and operators other than brackets,
    separators and `=`: `return x` has 1, `else:` 0, `h = x` 2, `c = a * b` 4."""
    text = line.strip()
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                                    tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):   # half of a bracketed expression, a docstring
        return " ".join(text.split()), len(text.split())
    content = sum(1 for t in tokens
                  if (t.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
                      and not keyword.iskeyword(t.string))
                  or (t.type == tokenize.OP and t.string not in ("(", ")", "[", "]", "{", "}",
                                                                 ",", ":", ".", ";", "=")))
    return " ".join(t.string for t in tokens), content


def _regions(path: Path):
    """(line number, line, inside a solution region) for every line of a solution source."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if "BEGIN SOLUTION" in line:
            inside = True
        elif "END SOLUTION" in line:
            inside = False
        else:
            yield number, line, inside


def solution_lines(root: Path = ROOT) -> dict:
    """{normalised line: 'solutions/<id>/<notebook>.py:<line>'}: the lines a release must never
    contain. A line inside a `### BEGIN SOLUTION` ... `### END SOLUTION` region counts when

    * it has at least MIN_TOKENS content tokens (`else:`, `return out`, `h = x`, `for W in
      weights:` are how any code says it, not an answer), and
    * the course does not publish it anyway: it is not part of a line outside the solution
      regions of any source (the given code and docstrings; a later notebook hands out the
      solutions of earlier ones as given code) nor of the `dp` library."""
    given = set()
    candidates = {}
    for path in sorted((Path(root) / "solutions").glob("*/*.py")):
        where = path.relative_to(root).as_posix()
        for number, line, inside in _regions(path):
            code, tokens = normalise(line)
            if not inside:
                given.add(code)
            elif tokens >= MIN_TOKENS:
                candidates.setdefault(code, f"{where}:{number}")
    for path in sorted((Path(root) / "dp").rglob("*.py")):
        given.update(normalise(line)[0] for line in path.read_text(encoding="utf-8").splitlines())
    published = "\n".join(given)
    return {code: where for code, where in candidates.items() if code not in published}


def prose(line: str) -> str:
    """A line of text as its words: the percent script's `# `, markdown's list, quote and
    emphasis marks at its start gone, blanks collapsed (a rubric line in a source and in a
    notebook's markdown read the same)."""
    return " ".join(line.strip().lstrip("#").strip().lstrip("-*>").split())


def rubric_lines(root: Path = ROOT) -> dict:
    """{prose of a line: 'solutions/<id>/<notebook>.py:<line>'}: the lines of the questions'
    answer cells (their model answers and rubrics, autograder.authoring.build.answer_lines)
    that a release must never contain: those of at least MIN_WORDS words that no other cell
    of any source has (a rubric may quote its question)."""
    given, candidates = set(), {}
    for path in sorted((Path(root) / "solutions").glob("*/*.py")):
        where = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        rubric = dict(answer_lines(text))
        for number, line in enumerate(text.splitlines(), start=1):
            words = prose(line)
            if number not in rubric:
                given.add(words)
            elif len(words.split()) >= MIN_WORDS:
                candidates.setdefault(words, f"{where}:{number}")
    return {words: where for words, where in candidates.items() if words not in given}


def _text_lines(path: Path):
    """The lines of a file as a reader sees them: a notebook's cell sources, else its text."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    lines = text.splitlines()
    if path.suffix == ".ipynb":
        try:
            cells = json.loads(text).get("cells", [])
        except ValueError:
            return lines
        for cell in cells:
            source = cell.get("source", "")
            lines += ("".join(source) if isinstance(source, list) else str(source)).splitlines()
    return lines


def find_solution_text(folder: Path, root: Path = ROOT) -> list:
    """Everything in `folder` that must not be in a student bundle: solution lines and rubric
    lines (but the
    listed SHARED_WITH_PROBES), solution markers, folders that are never shipped, and reference
    modules (autograder/references/ but its proxy)."""
    folder = Path(folder)
    secret, rubrics = solution_lines(root), rubric_lines(root)
    shared = {(path, normalise(line)[0]) for path, line in SHARED_WITH_PROBES}
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if any(part in NEVER_SHIPPED for part in path.relative_to(folder).parts):
            found.append(f"{rel}: must not be shipped")
            continue
        if not path.is_file():
            continue
        if rel.startswith(REFERENCES) and rel != REFERENCE_PROXY:
            found.append(f"{rel}: reference code must not be shipped (the bundle has the public "
                         f"cases instead)")
            continue
        for number, line in enumerate(_text_lines(path), start=1):
            if any(marker in line for marker in MARKERS):
                found.append(f"{rel}: a solution marker: {line.strip()[:80]}")
            code = normalise(line)[0]
            if code in secret and (rel, code) not in shared:
                found.append(f"{rel}: line {number} is line {secret[code]}: {line.strip()[:80]}")
            elif prose(line) in rubrics:
                found.append(f"{rel}: line {number} is rubric line {rubrics[prose(line)]}: "
                             f"{line.strip()[:80]}")
    return found


# -- provided code that solves another assignment --------------------------------------------
#
# Later notebooks start from earlier answers: 02's `Tensor.backward` is 01's topological sort,
# 03 gives 02's stable softmax. Released before the earlier assignment is due, that provided code
# is its answer. The unit compared is a function: every function (or method) of a notebook's
# provided code, i.e. the code cells of its exercise notebook, against the solution of every
# function of every other assignment, i.e. the statements of its solution source between
# `### BEGIN SOLUTION` and `### END SOLUTION`. Both are compared as normalised ASTs, statement by
# statement (see `_canonical`): renamed variables, reordered keyword arguments, type hints and
# docstrings do not hide a copy.

MIN_SHARE = 0.5   # a provided function holding this share of a solution (in AST nodes) reveals it
MIN_NODES = 20    # ... when that is at least this many nodes (`return Layer(n_in, n_out, name)`
                  # is how anyone writes it, not an answer)
SKIPPED_FIELDS = {"ctx", "type_comment", "annotation", "returns", "type_params", "name",
                  "decorator_list", "lineno", "col_offset", "end_lineno", "end_col_offset"}


@dataclasses.dataclass(frozen=True)
class Exposure:
    """Provided code of `assignment`'s notebook that contains the solution of `reveals`."""
    notebook: str          # exercises/<id>/<notebook>.ipynb that gives the code
    assignment: str        # its assignment
    function: str          # the provided function, e.g. Tensor.backward
    reveals: str           # the assignment whose solution it contains
    solution: str          # the function of `reveals` whose solution it is, e.g. backward
    where: str             # solutions/<id>/<notebook>.py:<line of BEGIN SOLUTION>
    share: float           # the share of that solution's AST nodes found in the function

    def __str__(self):
        return (f"{self.notebook} gives `{self.function}` as provided code; it contains the "
                f"solution of `{self.solution}` of {self.reveals} ({self.where}, "
                f"{self.share:.0%} of it)")


def _body(statements: list) -> list:
    """A function's statements without its docstring."""
    if statements and isinstance(statements[0], ast.Expr) \
            and isinstance(statements[0].value, ast.Constant) and isinstance(statements[0].value.value, str):
        return statements[1:]
    return statements


def _canonical(node, names: dict) -> tuple:
    """(text, number of nodes) of an AST with its names replaced by their order of first
    appearance (`order, seen = [], set()` and `out, done = [], set()` are the same), keyword
    arguments sorted, and no type hints, docstrings, function names or positions. Attribute
    names, constants and keyword names stay: they are what the code does."""
    if isinstance(node, ast.Name):
        return "v" + names.setdefault(node.id, str(len(names))), 1
    if isinstance(node, ast.arg):
        return "v" + names.setdefault(node.arg, str(len(names))), 1
    if isinstance(node, ast.Constant):
        return repr(node.value), 1
    parts, size = [type(node).__name__], 1
    for field, value in ast.iter_fields(node):
        if field in SKIPPED_FIELDS:
            continue
        if field == "body" and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            value = _body(value)
        if field == "keywords":
            value = sorted(value, key=lambda k: k.arg or "")
        if isinstance(value, list):
            texts = []
            for item in value:
                if isinstance(item, ast.AST):
                    text, n = _canonical(item, names)
                    texts.append(text)
                    size += n
                else:
                    texts.append(repr(item))
            parts.append(f"{field}=[{','.join(texts)}]")
        elif isinstance(value, ast.AST):
            text, n = _canonical(value, names)
            parts.append(f"{field}={text}")
            size += n
        elif value is not None:
            parts.append(f"{field}={value!r}")
    return "(" + " ".join(parts) + ")", size


def _fingerprint(statement) -> tuple:
    """(canonical text, size) of one statement on its own (names numbered from it)."""
    return _canonical(statement, {})


def _child_statements(statement) -> list:
    children = []
    for _, value in ast.iter_fields(statement):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.stmt):
                    children.append(item)
                elif isinstance(item, (ast.ExceptHandler, ast.match_case)):
                    children.extend(item.body)
    return children


def _all_statements(statements):
    for statement in statements:
        yield statement
        yield from _all_statements(_child_statements(statement))


def _share(solution: list, provided: set) -> tuple:
    """(AST nodes of the solution statements found in `provided`, all its nodes): a statement
    counts whole when its fingerprint is provided, else by its statements that are."""
    found = total = 0
    for statement in solution:
        text, size = _fingerprint(statement)
        total += size
        if text in provided:
            found += size
        else:
            inner_found, _ = _share(_child_statements(statement), provided)
            found += inner_found
    return found, total


def _parse(text: str):
    """The module of a cell or source; magics and shell lines (`%time`, `!pip`) left out."""
    try:
        return ast.parse(text)
    except SyntaxError:
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
        try:
            return ast.parse("\n".join(lines))
        except SyntaxError:
            return None


def _functions(tree, functions: dict) -> dict:
    """Add {qualified name: fingerprints of its statements} of every function and method of the
    module `tree` to `functions`."""
    def visit(statements, scope):
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{scope}{statement.name}"
                prints = {_fingerprint(s)[0] for s in _all_statements(_body(statement.body))}
                functions.setdefault(name, set()).update(prints)
                visit(statement.body, f"{name}.")
            elif isinstance(statement, ast.ClassDef):
                visit(statement.body, f"{scope}{statement.name}.")
            else:
                visit(_child_statements(statement), scope)

    visit(tree.body, "")
    return functions


def provided_functions(notebook: Path) -> dict:
    """{qualified name: fingerprints of its statements} for every function and method in the
    code cells of an exercise notebook (what students are given)."""
    functions = {}
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        tree = _parse("".join(source) if isinstance(source, list) else str(source))
        if tree is not None:
            _functions(tree, functions)
    return functions


def solution_functions(source: Path) -> list:
    """[(qualified name, first line, solution statements)] of a solution source: for each
    `### BEGIN SOLUTION` ... `### END SOLUTION` region, the statements in it, grouped by the
    function they are in (a function defined whole inside a region is its own entry; code of
    a region outside any function is named after its line)."""
    text = source.read_text(encoding="utf-8")
    tree = _parse(text)
    if tree is None:
        raise ReleaseError(f"{source}: not valid Python")
    regions, begin = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if "BEGIN SOLUTION" in line:
            begin = number
        elif "END SOLUTION" in line and begin is not None:
            regions.append((begin, number))
            begin = None
    units = {}

    def add(name, line, statements):
        entry = units.setdefault(name, [line, []])
        entry[1].extend(statements)

    def visit(statements, scope, begin, end, function):
        for statement in statements:
            if begin < statement.lineno and statement.end_lineno < end:       # inside
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    add(f"{scope}{statement.name}", begin, _body(statement.body))
                elif isinstance(statement, ast.ClassDef):
                    visit(statement.body, f"{scope}{statement.name}.", 0, float("inf"), None)
                else:
                    add(function or f"<code at line {begin}>", begin, [statement])
            elif statement.lineno < begin < statement.end_lineno:   # around it (its last
                # statement may come before the END comment)
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{scope}{statement.name}"
                    visit(statement.body, f"{name}.", begin, end, name)
                elif isinstance(statement, ast.ClassDef):
                    visit(statement.body, f"{scope}{statement.name}.", begin, end, function)
                else:
                    visit(_child_statements(statement), scope, begin, end, function)

    for begin, end in regions:
        visit(tree.body, "", begin, end, None)
    return [(name, line, statements) for name, (line, statements) in units.items()]


def find_exposures(course, root: Path = ROOT, released=None) -> list:
    """Every (provided function of a released notebook, solution of another assignment) pair
    where the function holds at least MIN_SHARE (and MIN_NODES) of that solution; `released`:
    assignments (default: all). Whether a pair matters depends on the dates (`refused`)."""
    root = Path(root)
    released = list(course.assignments) if released is None else list(released)
    solutions = {}
    for a in course.assignments:
        path = a.solution_path(root)
        if path.is_file():
            where = path.relative_to(root).as_posix()
            solutions[a.id] = [(name, f"{where}:{line}", statements)
                               for name, line, statements in solution_functions(path)]
    exposures = []
    for x in released:
        notebook = x.exercise_path(root)
        if not notebook.is_file():
            continue
        provided = provided_functions(notebook)
        for y in course.assignments:
            if y.id == x.id:
                continue
            for solution, where, statements in solutions.get(y.id, []):
                for function, prints in provided.items():
                    found, total = _share(statements, prints)
                    if total and found >= MIN_NODES and found / total >= MIN_SHARE:
                        exposures.append(Exposure(
                            notebook.relative_to(root).as_posix(), x.id, function, y.id,
                            solution, where, found / total))
    return exposures


# -- reference code --------------------------------------------------------------------------

def reference_functions(root: Path = ROOT) -> list:
    """[(where, statements)] of every function and method of the reference modules
    (autograder/references/<notebook>.py): what a bundle must not contain, whatever its names."""
    found = []
    for path in sorted((Path(root) / REFERENCES).glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((f"{path.relative_to(root).as_posix()}:{node.lineno} `{node.name}`",
                              _body(node.body)))
    return found


REFERENCE_SHARE = 0.8   # a copied reference, renamed or not, holds all of it; a probe that only
                        # sets up the same dp layer as a reference does (55% of a 4-line one) is
                        # not a copy


def _tree(statements) -> list:
    """[(fingerprint, size, children's tree)] of `statements`, computed once (see `_share`)."""
    return [(*_fingerprint(s), _tree(_child_statements(s))) for s in statements]


def _tree_share(tree, provided: set) -> tuple:
    """`_share` on a precomputed `_tree`."""
    found = total = 0
    for text, size, children in tree:
        total += size
        found += size if text in provided else _tree_share(children, provided)[0]
    return found, total


def find_reference_code(folder: Path, root: Path = ROOT) -> list:
    """The functions of the Python files in `folder` that hold a reference function (at least
    REFERENCE_SHARE of its AST nodes, when that is MIN_NODES or more), compared as normalised
    ASTs as `find_exposures` compares provided code with solutions: a reference copied into a
    shipped module, renamed or not, is found."""
    references = [(where, _tree(statements)) for where, statements in reference_functions(root)]
    found = []
    for path in sorted(Path(folder).rglob("*.py")):
        tree = _parse(path.read_text(encoding="utf-8"))
        if tree is None:
            continue
        for name, prints in _functions(tree, {}).items():
            for where, statements in references:
                share, total = _tree_share(statements, prints)
                if total >= MIN_NODES and share >= REFERENCE_SHARE * total:
                    found.append(f"{path.relative_to(folder).as_posix()}: `{name}` holds the "
                                 f"reference {where} ({share / total:.0%} of it)")
    return found


# -- releasing in order ---------------------------------------------------------------------
#
# The rule: in course order (by due date; assignments without one after them, in file order), the
# first assignment is released from the start, and each next one once the one before it is past
# its due date. So the bundle holds everything that is past due and the one assignment open now.
# Assignments without a due date are never released by date, only by --until, --assignment or
# --all. Whatever chose the assignments, provided code that contains the solution of an
# assignment that is not yet due stops the release (--all: a warning that lists it).

def course_order(course) -> list:
    """The assignments in release order: by due date (ties in file order), then those without
    a due date in file order."""
    dated = sorted((a for a in course.assignments if a.due is not None), key=lambda a: a.due)
    return dated + [a for a in course.assignments if a.due is None]


def released_on(course, now: datetime.datetime) -> list:
    """The assignments released at `now` by their due dates: the first in `course_order`, and
    every next one whose predecessor is past its due date (due <= now)."""
    dated = [a for a in course_order(course) if a.due is not None]
    if not dated:
        raise ReleaseError("course.toml gives no assignment a due date, so nothing is released by "
                           "date: choose with --until ASSIGNMENT, --assignment, or --all")
    chosen = dated[:1]
    for previous, a in zip(dated, dated[1:]):
        if previous.due > now:
            break
        chosen.append(a)
    return chosen


def released_until(course, assignment_id: str) -> list:
    """The prefix of `course_order` that ends with `assignment_id`."""
    order = course_order(course)
    last = course.assignment(assignment_id)
    return order[:order.index(last) + 1]


def is_due(assignment, now: datetime.datetime) -> bool:
    """Past its due date at `now` (an assignment without a due date never is)."""
    return assignment.due is not None and assignment.due <= now


def parse_moment(text: str, timezone: str = "UTC") -> datetime.datetime:
    """--date: `2026-10-06` (the start of that day), `2026-10-06T09:00` (in the course's time
    zone) or `2026-10-06T09:00+01:00`."""
    zone = parse_timezone(timezone, "course timezone")
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ReleaseError(f"--date {text!r}: not a date (2026-10-06) or date and time "
                           f"(2026-10-06T09:00, optionally with +01:00)") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


def when(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M %Z").strip()


def early_exposures(course, chosen, now, root: Path = ROOT) -> list:
    """The exposures of the notebooks `chosen` whose revealed assignment is not due at `now`."""
    return [e for e in find_exposures(course, root, chosen)
            if not is_due(course.assignment(e.reveals), now)]


def describe_exposure(exposure: Exposure, course) -> str:
    due = course.assignment(exposure.reveals).due
    return f"{exposure}; {exposure.reveals} is " + (f"due {when(due)}" if due else "not given a due date")


def describe_plan(course, chosen, now) -> str:
    """What is released, as of when, and what comes next."""
    def one(a):
        if a.due is None:
            return f"{a.id} (no due date)"
        return f"{a.id} (due {when(a.due)}{', past' if is_due(a, now) else ''})"
    text = f"as of {when(now)}: {len(chosen)} assignment(s): {', '.join(one(a) for a in chosen)}"
    order = course_order(course)
    later = [a for a in order if a not in chosen]
    if later and later[0].due is not None and chosen and chosen[-1].due is not None \
            and order[:len(chosen)] == chosen:
        text += (f"; next: {later[0].id}, once {chosen[-1].id} is past its due date "
                 f"({when(chosen[-1].due)})")
    undated = [a.id for a in later if a.due is None]
    if undated:
        text += (f"; never released by date (no due date): {', '.join(undated)}"
                 " (--until or --all)")
    return text


# -- the bundle ------------------------------------------------------------------------------

_HEADER = re.compile(r"\s*\[\[?\s*([\w.]+)\s*\]\]?\s*(#.*)?$")


def _assignment_blocks(text: str) -> list:
    """(assignment id or None, its text) of course.toml, in order: the tables before and between
    assignments are None's; an [[assignment]] owns its [[assignment.task]] and [assignment.*]."""
    blocks, current = [[None, ""]], None
    for line in text.splitlines(keepends=True):
        header = _HEADER.match(line)
        if header and line.lstrip().startswith("[[") and header[1] == "assignment":
            current = ["", ""]
            blocks.append(current)
        elif header and not header[1].startswith("assignment."):
            current = None
            blocks.append([None, ""])
        blocks[-1][1] += line
    for block in blocks:
        if block[0] == "":
            block[0] = tomllib.loads(block[1])["assignment"][0]["id"]
    return [tuple(b) for b in blocks]


def student_course_toml(text: str, released=None) -> str:
    """course.toml without `grading_seed` (the fixed policy's grading seed, and the secret of the
    hidden per-student seeds where secret_from_grading_seed says so: autograder.grading.secret),
    and with only the `released` assignments (ids; None: all):
    the bundle says nothing of what is not handed out yet (titles, tasks, due dates)."""
    text = "".join(text for found, text in _assignment_blocks(text)
                   if found is None or released is None or found in released)
    kept = [line for line in text.splitlines(keepends=True)
            if not re.match(r"\s*grading_seed\s*=", line)]
    result = "".join(kept)
    data = tomllib.loads(result)
    if "grading_seed" in data.get("course", {}):
        raise ReleaseError("course.toml: grading_seed could not be removed")
    if released is not None and {a["id"] for a in data.get("assignment", [])} != set(released):
        raise ReleaseError("course.toml: the assignments not released could not be removed")
    return result


def _pyproject(root: Path) -> str:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dependencies = list(project.get("dependencies", [])) + list(STUDENT_TOOLS)
    return STUDENT_PYPROJECT.format(
        version=json.dumps(project["version"]),
        requires_python=json.dumps(project.get("requires-python", ">=3.11")),
        dependencies="[\n" + "".join(f"    {json.dumps(d)},\n" for d in dependencies) + "]")


def _copy(source: Path, target: Path):
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def _warn(message):
    print(message, file=sys.stderr)


def make_bundle(folder, assignments=None, root: Path = ROOT, force=False, log=print, now=None,
                expose=False, warn=_warn, course_path=None) -> Path:
    """Write the student bundle of `assignments` (ids; default: all) into `folder` (new or
    empty, or replaced with `force`). Refused when a chosen notebook's provided code contains
    the solution of an assignment not due at `now` (default: the current time); with
    `expose`, written anyway, with a warning that lists what it reveals."""
    root, folder = Path(root).resolve(), Path(folder).resolve()
    course_path = Path(course_path) if course_path else root / "course.toml"
    course = load_course(course_path)
    chosen = [course.assignment(a) for a in assignments] if assignments else list(course.assignments)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    exposed = early_exposures(course, chosen, now, root)
    if exposed and not expose:
        raise ReleaseError(
            f"the bundle would hand out answers before they are due (as of {when(now)}):\n  "
            + "\n  ".join(describe_exposure(e, course) for e in exposed)
            + "\nRelease by due date (no --until or --assignment), choose a later --date, or "
              "hand out everything knowingly with --all.")
    if exposed:
        warn(f"warning: as of {when(now)}, this bundle reveals the solutions of assignments that "
             f"are not yet due ({len(exposed)} provided function(s)):\n  "
             + "\n  ".join(f"{e.notebook}: `{e.function}` reveals {e.reveals} "
                           f"(its `{e.solution}`, {e.share:.0%}; "
                           + (f"due {when(course.assignment(e.reveals).due)})"
                              if course.assignment(e.reveals).due else "no due date)")
                           for e in exposed))
    if folder.exists() and any(folder.iterdir()):
        if not force:
            raise ReleaseError(f"{folder} is not empty (use --force to replace it)")
        if folder == root or root.is_relative_to(folder):
            raise ReleaseError(f"{folder} holds the course repository itself")
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted((root / "dp").rglob("*")):
        if path.is_file() and not set(path.relative_to(root).parts) & set(NEVER_SHIPPED) \
                and path.suffix not in (".pyc", ".pyo"):
            _copy(path, folder / path.relative_to(root))
    for a in chosen:
        exercise = a.exercise_path(root)
        if not exercise.is_file():
            raise ReleaseError(f"{exercise.relative_to(root)}: missing; run `python -m autograder build`")
        _copy(exercise, folder / exercise.relative_to(root))
    for rel in needed_modules(root, {a.notebook for a in chosen}) + list(DATA_FILES):
        _copy(root / rel, folder / rel)
    log("recording the public cases: each released solution with checks that have references "
        "runs here, and its checks with the public seed")
    try:
        public_cases.write(folder, chosen, seed=course.public_seed, root=root, log=log)
    except public_cases.PublicCasesError as error:
        raise ReleaseError(str(error)) from None
    (folder / "course.toml").write_text(
        student_course_toml(course_path.read_text(encoding="utf-8"), {a.id for a in chosen}),
        encoding="utf-8")
    shutil.copyfile(root / "docs" / "STUDENTS.md", folder / "README.md")
    (folder / "pyproject.toml").write_text(_pyproject(root), encoding="utf-8")
    (folder / "Makefile").write_text(STUDENT_MAKEFILE, encoding="utf-8")
    found = find_solution_text(folder, root) + find_reference_code(folder, root)
    if found:
        raise ReleaseError(
            f"the bundle in {folder} contains solution text or reference code; it must not be "
            f"handed out:\n  "
            + "\n  ".join(found[:50]) + "\n(a line that a probe must share with the solution, "
            "because it computes the reference next to the student's code, can be listed with "
            "the reason in autograder.authoring.release.SHARED_WITH_PROBES)")
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    log(f"student bundle in {folder}: {files} files, {len(chosen)} exercise(s) "
        f"({', '.join(a.id for a in chosen)}); no solution text or reference code found")
    return folder


def choose(course, now, until=None, assignments=None, everything=False) -> list:
    """The assignments of a release: all of them, the ones named, the prefix `until` one, or
    (default) those released by their due dates at `now`."""
    if everything:
        return list(course.assignments)
    if assignments:
        return [course.assignment(a) for a in assignments]
    if until:
        return released_until(course, until)
    return released_on(course, now)


def main(args) -> int:
    """The `release` subcommand (arguments parsed by autograder.__main__)."""
    try:
        course_path = Path(args.course) if getattr(args, "course", None) else ROOT / "course.toml"
        course = load_course(course_path)
        now = (parse_moment(args.date, course.timezone) if args.date
               else datetime.datetime.now(parse_timezone(course.timezone, "course timezone")))
        chosen = choose(course, now, until=args.until, assignments=args.assignment,
                        everything=args.all)
        print(f"release {describe_plan(course, chosen, now)}")
        if args.dry_run:
            exposed = early_exposures(course, chosen, now)
            for e in exposed:
                print(f"{'warning' if args.all else 'refused'}: {describe_exposure(e, course)}")
            return 1 if exposed and not args.all else 0
        if args.directory is None:
            raise ReleaseError("the bundle folder is missing (only --dry-run writes nothing)")
        make_bundle(args.directory, assignments=[a.id for a in chosen], force=args.force,
                    now=now, expose=args.all, course_path=course_path)
    except (ReleaseError, CourseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
