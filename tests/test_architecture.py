"""The autograder's architecture, read from its source: packages whose imports go one way.

Every import of every module (lazy ones inside functions included) is read with `ast`. The
test fails on a cycle between modules, and on an import that goes against the direction written
in LAYERS below, or into a package's internals (ENTRY). Each package's docstring says the same
in words.
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from tests.grading import ROOT

# What each part of autograder/ may import of the others. Read upwards: course is the bottom;
# the sandbox runs submissions and knows nothing of answers; grading uses the sandbox; reports,
# authoring and platforms build on grading. "app" is the top: the package's own __init__ (the
# notebook's `check`), the command line (__main__), the demo, and the nbgrader plugin's old name.
LAYERS = {
    "course": set(),
    "probes": set(),                                # run beside the student's code: nothing of the grader
    "sandbox": {"course", "probes"},                # never where the answers live
    "references": {"sandbox"},                      # plain data (sandbox.protocol) and nothing else
    "grading": {"sandbox", "course", "references", "probes"},
    "checks": {"grading", "sandbox", "references", "probes", "course"},
    "reports": {"grading", "references", "course"},
    "authoring": {"grading", "references", "course"},
    "platforms": {"authoring", "reports", "grading", "sandbox", "course"},
    "app": None,                                    # anything
}
# The modules of a package that others may import; the rest are its own.
ENTRY = {
    "sandbox": {"process", "seal", "forkserver", "errors", "protocol"},
}
APP = {"__init__", "__main__", "demo", "nbgrader_plugin"}


def modules(package: Path) -> dict:
    """{dotted module name: path} of every .py file under `package`."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(name: str, path: Path, known: dict) -> set:
    """The modules of `known` that the module `name` imports, anywhere in it. `from P import x`
    is an import of P.x where that is a module, of P otherwise."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    return {n for n in found if n in known and n != name}


def unit(name: str) -> str:
    """The part of the package a module belongs to: its subpackage, or "app" at the top."""
    parts = name.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in APP):
        return "app"
    return parts[1]


def graph(package: Path) -> dict:
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict) -> list:
    """The strongly connected components of more than one module, or a module importing itself
    (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1
                    stack.append(child); on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop(); on_stack.discard(member); component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    found.append(sorted(component))
    return found


def violations(edges: dict) -> list:
    """Imports against LAYERS or into another package's internals (ENTRY)."""
    wrong = []
    for name, targets in sorted(edges.items()):
        mine = unit(name)
        for target in sorted(targets):
            theirs = unit(target)
            if theirs == mine or LAYERS[mine] is None:
                continue
            if theirs not in LAYERS[mine]:
                wrong.append(f"{name} imports {target}: {mine} may not import {theirs}")
            elif theirs in ENTRY and len(target.split(".")) > 2 and \
                    target.split(".")[2] not in ENTRY[theirs]:
                wrong.append(f"{name} imports {target}: outside {theirs}, only "
                             f"{sorted(ENTRY[theirs])} may be imported")
    return wrong


def test_every_module_belongs_to_a_layer():
    names = {unit(name) for name in modules(ROOT / "autograder")}
    assert names <= set(LAYERS), f"parts of autograder/ without a rule in LAYERS: {names - set(LAYERS)}"


def test_no_import_cycle():
    found = cycles(graph(ROOT / "autograder"))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_imports_go_one_way():
    wrong = violations(graph(ROOT / "autograder"))
    assert not wrong, "\n".join(wrong)


def test_the_sandbox_and_the_probes_import_no_answer():
    edges = graph(ROOT / "autograder")
    for name, targets in edges.items():
        if unit(name) in ("sandbox", "probes"):
            answers = {t for t in targets if unit(t) in ("references", "checks", "grading")}
            assert not answers, f"{name} imports {sorted(answers)}"


def test_each_package_says_what_it_may_import():
    for init in sorted((ROOT / "autograder").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        lines = doc.splitlines()
        assert len(lines) >= 3 and lines[1].startswith("May import") and \
            lines[2].startswith("Must never import"), f"{init}: the first three lines of its docstring"


# -- the checks above can fail -------------------------------------------------------------------

def _tree(tmp_path, files: dict) -> Path:
    package = tmp_path / "autograder"
    for relative, source in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return package


CLEAN = {"__init__.py": "", "course/__init__.py": "", "course/config.py": "",
         "sandbox/__init__.py": "", "sandbox/process.py": "from ..course import config\n",
         "sandbox/forkserver.py": "from . import process\n",
         "grading/__init__.py": "", "grading/grade.py": "from ..sandbox.process import Sandbox\n"}


def test_a_clean_tree_passes(tmp_path):
    edges = graph(_tree(tmp_path, CLEAN))
    assert edges["autograder.grading.grade"] == {"autograder.sandbox.process"}
    assert not cycles(edges) and not violations(edges)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_planted_cycle_is_found(tmp_path, lazy):
    back = "def f():\n    from .forkserver import x\n" if lazy else "from . import forkserver\n"
    edges = graph(_tree(tmp_path, {**CLEAN, "sandbox/process.py": back}))
    assert cycles(edges) == [["autograder.sandbox.forkserver", "autograder.sandbox.process"]]


def test_an_import_against_the_direction_is_found(tmp_path):
    files = {**CLEAN, "course/config.py": "import autograder.grading.grade\n",
             "sandbox/seal.py": "from autograder import references\n", "references/__init__.py": "",
             "reports/__init__.py": "", "reports/x.py": "from ..sandbox import zygote\n",
             "sandbox/zygote.py": ""}
    wrong = violations(graph(_tree(tmp_path, files)))
    assert wrong == [
        "autograder.course.config imports autograder.grading.grade: course may not import grading",
        "autograder.reports.x imports autograder.sandbox.zygote: reports may not import sandbox",
        "autograder.sandbox.seal imports autograder.references: sandbox may not import references"]
    files["reports/x.py"] = ""
    files["platforms/__init__.py"] = "from ..sandbox import zygote\n"
    wrong = violations(graph(_tree(tmp_path, files)))
    assert "autograder.platforms imports autograder.sandbox.zygote: outside sandbox, only " \
           "['errors', 'forkserver', 'process', 'protocol', 'seal'] may be imported" in wrong
