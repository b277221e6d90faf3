"""What a released exercise asks the student for: the names its code cells define, and under
which heading. Read from exercises/<assignment>/<notebook>.ipynb (in the repository and in the
student bundle alike), so that a check can say "the notebook defines no function `bce_loss`; the
exercise asks for it in section “2. Binary cross-entropy”" instead of the probe's KeyError.
"""
from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

_MAGIC = re.compile(r"^\s*[%!]")
_KINDS = {ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.ClassDef: "class"}


@functools.lru_cache(maxsize=32)
def definitions(path: Path) -> dict:
    """{name: (kind, heading)}: each name that a code cell of the notebook at `path` defines at
    its top level ("function", "class" or "variable"), with the last markdown heading above
    that cell ("" when there is none). Empty when the notebook cannot be read."""
    try:
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    found, heading = {}, ""
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "markdown":
            titles = [line.lstrip("#").strip() for line in _outside_fences(source)
                      if re.match(r"#{1,6}\s", line)]
            heading = titles[-1] if titles else heading
            continue
        try:
            tree = ast.parse("\n".join("pass" if _MAGIC.match(line) else line
                                       for line in source.splitlines()))
        except SyntaxError:
            continue
        for node in tree.body:
            if type(node) in _KINDS:
                found.setdefault(node.name, (_KINDS[type(node)], heading))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, ("variable", heading))
    return found


def _outside_fences(markdown: str) -> list:
    """The lines of `markdown` that are not in a ``` code block (a `# comment` is no heading)."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def missing_name(name: str, exercise: Path):
    """The sentence for a notebook that lacks `name`, which the exercise defines (renamed or
    deleted by the student); None when the exercise does not define it."""
    kind, heading = definitions(Path(exercise)).get(name, (None, None))
    if kind is None:
        return None
    where = f" in section “{heading}”" if heading else ""
    if kind == "variable":
        return (f"the notebook has no `{name}` once it has run; the exercise makes it{where} "
                "(did that cell raise an error?)")
    return (f"the notebook defines no {kind} `{name}`; the exercise asks for it{where} (keep the "
            "name and the signature that the exercise gives: the checks call it)")
