"""Read a submitted notebook: its code cells, which are grade cells, magics, forbidden imports.

Grading never depends on the student's grade cells: a cell counts as a grade cell if nbgrader's
metadata says so or if its code is nothing but `check(...)` calls, and all grade cells are
skipped. The tasks graded are course.toml's, whatever the notebook contains.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path


class NotebookError(ValueError):
    """The notebook cannot be read; the message says why (for the student's feedback)."""


MAX_NOTEBOOK_BYTES = 64 * 2 ** 20
# The code of all code cells, in characters. The grader parses it (grade cells, imports, copies)
# outside any sandbox, and Python's parser takes some 500 bytes of memory per character of the
# worst code (`x = [1, 1, ...]`): 64 MiB of it would need tens of GB. A course notebook with its
# answers holds some 30,000 characters of code.
MAX_CODE_CHARS = 2 ** 20
# What Python's parsers raise on input built against them (nesting thousands deep, NUL bytes),
# besides SyntaxError: none of it may escape to stop a class run.
UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError)
MAGIC = re.compile(r"^(\s*)([%!]|\?\w)")


def read_notebook(path: Path) -> dict:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            raise NotebookError(f"the notebook is {size / 2**20:.0f} MiB, more than the "
                                f"{MAX_NOTEBOOK_BYTES // 2**20} MiB allowed")
        text = path.read_bytes().decode("utf-8")
        notebook = json.loads(text)
    except FileNotFoundError:
        raise NotebookError("the notebook file does not exist") from None
    except UnicodeDecodeError as error:
        raise NotebookError(f"the notebook is not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise NotebookError(f"the notebook is not valid JSON (line {error.lineno}: {error.msg})") from None
    except (RecursionError, MemoryError):
        raise NotebookError("the notebook's JSON is nested too deeply to be a notebook") from None
    except OSError as error:
        raise NotebookError(f"the notebook cannot be read: {error.strerror}") from None
    if not isinstance(notebook, dict):
        raise NotebookError("the file is not a Jupyter notebook")
    if notebook.get("nbformat") != 4:
        raise NotebookError(f"nbformat {notebook.get('nbformat')!r} is not supported (version 4 is)")
    if not isinstance(notebook.get("cells"), list):
        raise NotebookError("the file is not a Jupyter notebook (no list of cells)")
    _check_structure(notebook)
    code = sum(len(source_of(cell)) for cell in notebook["cells"] if cell.get("cell_type") == "code")
    if code > MAX_CODE_CHARS:
        raise NotebookError(f"the notebook's code cells hold {code:,} characters of code, more than "
                            f"the {MAX_CODE_CHARS:,} allowed")
    return notebook


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _check_structure(notebook: dict) -> None:
    """The parts of nbformat 4 that grading reads have the types it expects: the rest of the
    grader can then rely on them (a `"metadata": []` is a clear error, not a crash)."""
    def expect(value, types, what, wanted):
        if not isinstance(value, types):
            raise NotebookError(f"the notebook's {what} is {_kind(value)}, not {wanted} "
                                "(the file was edited by hand or damaged)")
    metadata = notebook.get("metadata", {})
    expect(metadata, dict, "metadata", "an object")
    for key in ("kernelspec", "autograder", "language_info"):
        expect(metadata.get(key, {}), dict, f"metadata.{key}", "an object")
    for number, cell in enumerate(notebook["cells"], start=1):
        expect(cell, dict, f"cell {number}", "an object")
        expect(cell.get("cell_type"), str, f"cell {number}'s cell_type", "a string")
        source = cell.get("source", "")
        if isinstance(source, list):
            for line in source:
                expect(line, str, f"cell {number}'s source line", "a string")
        expect(source, (str, list), f"cell {number}'s source", "a string or a list of strings")
        expect(cell.get("metadata", {}), dict, f"cell {number}'s metadata", "an object")
        expect(cell.get("metadata", {}).get("nbgrader", {}), dict,
               f"cell {number}'s metadata.nbgrader", "an object")


def source_of(cell) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def is_check_call_only(code: str) -> bool:
    try:
        body = ast.parse(code).body
    except UNPARSABLE:
        return False
    return bool(body) and all(
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Name) and s.value.func.id == "check" for s in body)


def is_grade_cell(cell) -> bool:
    meta = cell.get("metadata", {})
    nbgrader = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return (isinstance(nbgrader, dict) and nbgrader.get("grade") is True
            and nbgrader.get("solution") is not True) or is_check_call_only(source_of(cell))


def strip_magics(code: str) -> str:
    """IPython syntax as plain Python: line magics and shell escapes become `pass`;
    a cell magic (%%time, %%capture, ...) keeps its body; %%bash & co. drop the cell."""
    lines = code.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].split()[0][2:]
        if magic not in ("time", "timeit", "capture", "prun", "debug"):
            return ""
        lines = lines[1:]
    return "\n".join(f"{m[1]}pass  # {line.strip()[:60]}" if (m := MAGIC.match(line)) else line
                     for line in lines)


def code_cells(notebook: dict) -> list:
    """[(cell number, code)] of the cells to run: code cells, grade cells excluded, magics
    stripped. Cell numbers count all cells from 1, as a student sees them."""
    cells = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and not is_grade_cell(cell):
            code = strip_magics(source_of(cell))
            if code.strip():
                cells.append((number, code))
    return cells


def cell_labels(notebook: dict) -> dict:
    """{cell number: how a student finds that cell}, for every code cell. JupyterLab shows no
    cell numbers (and `code_cells`' numbers count the markdown cells too): a cell is named by its
    first line, and by the execution count the student's last run gave it, when it has one:
    'the cell [7] that begins “def gradient_sums(net, x, y):”'."""
    labels = {}
    for number, cell in enumerate(notebook["cells"], start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            lines = [line.strip() for line in source_of(cell).splitlines() if line.strip()]
            first = lines[0] if lines else ""
            first = first if len(first) <= 80 else first[:79] + "…"
            count = cell.get("execution_count")
            shown = f" [{count}]" if isinstance(count, int) and not isinstance(count, bool) else ""
            labels[number] = f"the cell{shown} that begins “{first}”" if first else \
                f"the empty code cell{shown}"
    return labels


def grade_ids(notebook: dict) -> set:
    """Task ids the notebook mentions: nbgrader grade_ids and `check("...")` arguments."""
    ids = set()
    for cell in notebook["cells"]:
        if isinstance(cell, dict):
            ids.update(re.findall(r"""check\(\s*["']([\w-]+)["']\s*\)""", source_of(cell)))
        meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
        nbgrader = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
        if isinstance(nbgrader, dict) and isinstance(nbgrader.get("grade_id"), str):
            ids.add(nbgrader["grade_id"])
    return ids


def scan_imports(cells, forbidden, labels=None) -> list:
    """Flags for imports of forbidden modules, direct or through __import__/importlib/exec.
    `labels`: {cell number: its name for the student} (`cell_labels`; default "cell N")."""
    forbidden, flags = set(forbidden), []
    for number, code in cells:
        where = (labels or {}).get(number, f"cell {number}")
        try:
            tree = ast.parse(code)
        except SyntaxError as error:
            flags.append(f"syntax error in {where} (line {error.lineno}): {error.msg}")
            continue
        except UNPARSABLE as error:     # nested too deeply, a NUL byte: Python cannot parse it
            flags.append(f"code that Python cannot parse in {where} ({type(error).__name__})")
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called in ("__import__", "import_module", "exec", "eval", "compile"):
                    names = [s for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                             for s in re.findall(r"[A-Za-z_][\w.]*", a.value)]
                    if called in ("exec", "eval", "compile"):
                        names = [n for n in names if n.split(".")[0] in forbidden]
            for name in names:
                if name.split(".")[0] in forbidden:
                    flags.append(f"forbidden import: {name.split('.')[0]} ({where})")
    return list(dict.fromkeys(flags))


def line_key(line: str) -> str:
    """A line of code, whitespace aside: how a student's line is matched with the exercise's."""
    return " ".join(line.split())


def scan_library_use(cells, names, provided, labels=None) -> list:
    """Flags for the student's own code using dp's version of what the assignment asks them to
    write: an attribute `names` (dp.Adam, dp.optim.Adam, x.conv1d, self.Dropout_Layer) or a
    name imported from dp, on a line that is not a line of the exercise (`provided`: its
    lines, whitespace aside; the exercise itself may use them, to compare). A hint for the
    instructor, as the import flags are: code can reach the same through getattr."""
    names, flags = set(names), []
    if not names:
        return flags
    for number, code in cells:
        where = (labels or {}).get(number, f"cell {number}")
        try:
            tree = ast.parse(code)
        except UNPARSABLE:
            continue                     # scan_imports says so
        lines = code.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in names:
                used = [node.attr]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "dp":
                used = [a.name for a in node.names if a.name in names]
            else:
                continue
            line = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else ""
            if line_key(line) not in provided:
                flags += [f"uses dp's own {name} ({where}), which this assignment asks students "
                          f"to write" for name in used]
    return list(dict.fromkeys(flags))
