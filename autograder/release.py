"""`python -m autograder release DIR`: the student bundle.

    DIR/README.md                    install, open JupyterLab, self-check (docs/STUDENTS.md)
    DIR/pyproject.toml, Makefile     `pip install -e .` or `make lab`
    DIR/course.toml                  the course, without its grading secret (grading_seed)
    DIR/dp/                          the library
    DIR/exercises/<assignment>/<notebook>.ipynb
    DIR/autograder/                  what `check("<task id>")` needs and nothing else: the
                                     checks and probes of the released assignments, and the
                                     modules they import

No solutions/, tests/ (their mutants are solutions with one bug) or git history. Before it
finishes, the release scans every file it wrote for the text of the solutions (see
`solution_lines`) and fails if it finds any.
"""
from __future__ import annotations

import ast
import io
import json
import keyword
import re
import shutil
import sys
import tokenize
import tomllib
from pathlib import Path

from .course import ROOT, load_course

# The only things the self-check needs besides the closure of imports (see `needed_modules`).
SELF_CHECK_ENTRY = ("autograder/__init__.py", "autograder/selfcheck.py")
DATA_FILES = ("autograder/checks/pytest.ini",)
# What students need on top of the project's own dependencies: the self-check runs the checks
# with pytest, the notebooks plot with matplotlib, and they are opened in JupyterLab.
STUDENT_TOOLS = ("matplotlib", "pytest", "ipykernel", "jupyterlab")
NEVER_SHIPPED = ("solutions", "tests", ".git", "__pycache__", ".ipynb_checkpoints")
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
MIN_TOKENS = 4   # a solution line with fewer content tokens is structure, not an answer

# Solution lines that a shipped file must contain too, because it computes the reference the
# student's work is compared with next to the student's code (a probe). Each is listed, with
# the reason; any other solution line in the bundle stops the release.
SHARED_WITH_PROBES = {
    ("autograder/probes/scalar_autodiff.py", "for parent, local in node.parents:"):
        "the probe walks the student's graph, whose parents are (node, local derivative) pairs",
    ("autograder/probes/dp_library.py", "if node.name is not None and not node.parents:"):
        "the probe finds the named leaves of the student's graph",
    ("autograder/probes/activation_functions.py", "for layer in self.linear[:9]:"):
        "the probe rebuilds the 10-layer reference network from the student's weights",
    ("autograder/probes/activation_functions.py", "h = getattr(layer(h), self.activation)()"):
        "the probe rebuilds the 10-layer reference network from the student's weights",
}

STUDENT_MAKEFILE = """\
# `make lab`: install the course into .venv (once) and open the exercises in JupyterLab.
PYTHON ?= python3
.DEFAULT_GOAL := lab

.venv/.installed: pyproject.toml
\ttest -x .venv/bin/python || $(PYTHON) -m venv .venv
\t.venv/bin/python -m pip install -q -e .
\ttouch .venv/.installed

lab: .venv/.installed
\t.venv/bin/python -m jupyter lab exercises

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

[tool.setuptools.packages.find]
include = ["dp*", "autograder*"]

[tool.setuptools.package-data]
"*" = ["*.ini", "*.toml", "*.json"]
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
    """Everything in `folder` that must not be in a student bundle: solution lines (but the
    listed SHARED_WITH_PROBES), solution markers, and folders that are never shipped."""
    folder = Path(folder)
    secret = solution_lines(root)
    shared = {(path, normalise(line)[0]) for path, line in SHARED_WITH_PROBES}
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if any(part in NEVER_SHIPPED for part in path.relative_to(folder).parts):
            found.append(f"{rel}: must not be shipped")
            continue
        if not path.is_file():
            continue
        for number, line in enumerate(_text_lines(path), start=1):
            if any(marker in line for marker in MARKERS):
                found.append(f"{rel}: a solution marker: {line.strip()[:80]}")
            code = normalise(line)[0]
            if code in secret and (rel, code) not in shared:
                found.append(f"{rel}: line {number} is line {secret[code]}: {line.strip()[:80]}")
    return found


# -- the bundle ------------------------------------------------------------------------------

def student_course_toml(text: str) -> str:
    """course.toml without `grading_seed` (the secret the hidden per-student seeds derive from
    when AUTOGRADER_SECRET is not set)."""
    kept = [line for line in text.splitlines(keepends=True)
            if not re.match(r"\s*grading_seed\s*=", line)]
    result = "".join(kept)
    if "grading_seed" in tomllib.loads(result).get("course", {}):
        raise ReleaseError("course.toml: grading_seed could not be removed")
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


def make_bundle(folder, assignments=None, root: Path = ROOT, force=False, log=print) -> Path:
    """Write the student bundle into `folder` (new or empty, or replaced with `force`)."""
    root, folder = Path(root).resolve(), Path(folder).resolve()
    if folder.exists() and any(folder.iterdir()):
        if not force:
            raise ReleaseError(f"{folder} is not empty (use --force to replace it)")
        if folder == root or root.is_relative_to(folder):
            raise ReleaseError(f"{folder} holds the course repository itself")
        shutil.rmtree(folder)
    course = load_course(root / "course.toml")
    chosen = [course.assignment(a) for a in assignments] if assignments else list(course.assignments)
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
    (folder / "course.toml").write_text(
        student_course_toml((root / "course.toml").read_text(encoding="utf-8")), encoding="utf-8")
    shutil.copyfile(root / "docs" / "STUDENTS.md", folder / "README.md")
    (folder / "pyproject.toml").write_text(_pyproject(root), encoding="utf-8")
    (folder / "Makefile").write_text(STUDENT_MAKEFILE, encoding="utf-8")
    found = find_solution_text(folder, root)
    if found:
        raise ReleaseError(
            f"the bundle in {folder} contains solution text; it must not be handed out:\n  "
            + "\n  ".join(found[:50]) + "\n(a line that a probe must share with the solution, "
            "because it computes the reference next to the student's code, can be listed with "
            "the reason in autograder.release.SHARED_WITH_PROBES)")
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    log(f"student bundle in {folder}: {files} files, {len(chosen)} exercise(s) "
        f"({', '.join(a.id for a in chosen)}); no solution text found")
    return folder


def main(args) -> int:
    """The `release` subcommand (arguments parsed by autograder.__main__)."""
    try:
        make_bundle(args.directory, assignments=args.assignment or None, force=args.force)
    except ReleaseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
