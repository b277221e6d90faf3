"""Students of 01_scalar_autodiff for `make demo`, the similarity tests and benchmark: honest
students who solved it in their own styles, two of them with a known mistake (a wrong gradient
or function that the feedback names), two who copied a classmate (renamed variables, reordered
functions and cells, added comments), and one who handed in the exercise untouched.
Made from the solution's source: a repository tool, never in the student bundle.

The solution's 13 `### BEGIN SOLUTION` blocks, in order: + - * / neg rsub rtruediv (the Scalar
class), exp log tanh sigmoid, backward, numerical_gradient. A style is 13 bodies; an honest
student takes the arithmetic, the functions and the backward pass from one style each (no two
honest students take all three from the same), and adds a cell of their own experiments.
"""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jupytext
import nbformat

from ..course.config import load_course

A = load_course().assignment("01_scalar_autodiff")
BLOCK = re.compile(r"(?m)^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION\n", re.S)

STYLES = {
    # the reference solution's own bodies
    "textbook": None,
    "kahn": [
        "out = Scalar(self.value + other.value, [(self, 1), (other, 1)])\nreturn out",
        "return self + (-other)",
        "out_value = self.value * other.value\n"
        "return Scalar(out_value, [(self, other.value), (other, self.value)])",
        "inv = 1.0 / other.value\n"
        "return Scalar(self.value * inv, [(self, inv), (other, -self.value * inv * inv)])",
        "return self * -1.0",
        "return Scalar(other) - self",
        "return Scalar(other) / self",
        "e = math.exp(self.value)\nreturn Scalar(e, [(self, e)])",
        "x = self.value\nreturn Scalar(math.log(x), [(self, 1.0 / x)])",
        "t = (math.exp(2 * self.value) - 1) / (math.exp(2 * self.value) + 1)\n"
        "return Scalar(t, [(self, 1.0 - t * t)])",
        "if self.value >= 0:\n    s = 1.0 / (1.0 + math.exp(-self.value))\nelse:\n"
        "    z = math.exp(self.value)\n    s = z / (1.0 + z)\n"
        "return Scalar(s, [(self, s * (1.0 - s))])",
        """\
        children = {}
        seen = {id(self): self}
        todo = [self]
        while todo:
            node = todo.pop()
            for parent, _ in node.parents:
                children[id(parent)] = children.get(id(parent), 0) + 1
                if id(parent) not in seen:
                    seen[id(parent)] = parent
                    todo.append(parent)
        for node in seen.values():
            node.grad = 0.0
        self.grad = 1.0
        ready = [self]
        while ready:
            node = ready.pop()
            for parent, local in node.parents:
                parent.grad += local * node.grad
                children[id(parent)] -= 1
                if children[id(parent)] == 0:
                    ready.append(parent)""",
        "h = eps\nforward = f(x + h)\nbackward = f(x - h)\nreturn (forward - backward) / (2.0 * h)",
    ],
    "explicit": [
        "value = self.value + other.value\nparents = ((self, 1.0), (other, 1.0))\n"
        "return Scalar(value, parents)",
        "value = self.value - other.value\nparents = ((self, 1.0), (other, -1.0))\n"
        "return Scalar(value, parents)",
        "value = self.value * other.value\nparents = ((self, other.value), (other, self.value))\n"
        "return Scalar(value, parents)",
        "value = self.value / other.value\n"
        "parents = ((self, 1.0 / other.value), (other, -value / other.value))\n"
        "return Scalar(value, parents)",
        "return Scalar(0.0) - self",
        "return -self + other",
        "return as_scalar(other).__truediv__(self)",
        "result = Scalar(math.exp(self.value))\nresult.parents = ((self, result.value),)\n"
        "return result",
        "if self.value <= 0:\n    raise ValueError('log of a number <= 0')\n"
        "return Scalar(math.log(self.value), ((self, self.value ** -1),))",
        "y = Scalar(math.tanh(self.value))\ny.parents = ((self, 1 - y.value * y.value),)\nreturn y",
        "y = Scalar(0.5 * (1 + math.tanh(self.value / 2)))\n"
        "y.parents = ((self, y.value - y.value ** 2),)\nreturn y",
        """\
        topo, done = [], {id(self)}
        stack = [(self, iter(self.parents))]
        while stack:
            node, parents = stack[-1]
            for parent, _ in parents:
                if id(parent) not in done:
                    done.add(id(parent))
                    stack.append((parent, iter(parent.parents)))
                    break
            else:
                stack.pop()
                topo.append(node)
        for node in topo:
            node.grad = 0
        self.grad = 1
        for node in topo[::-1]:
            for parent, d in node.parents:
                parent.grad = parent.grad + d * node.grad""",
        "return (f(x + eps) - f(x - eps)) / eps / 2",
    ],
}
PARTS = (range(0, 7), range(7, 11), range(11, 13))    # arithmetic, functions, backward + numerical
HONEST = {   # student: (arithmetic, functions, backward) styles, and their own experiment
    "hana": (("textbook", "explicit", "kahn"), "print(Scalar(3.0) * 2 + 1)"),
    "ivan": (("kahn", "kahn", "kahn"),
             "for v in [-2.0, 0.0, 2.0]:\n    s = Scalar(v).sigmoid()\n    s.backward()\n"
             "    print(v, s.value, s.grad)"),
    "jun": (("explicit", "explicit", "explicit"),
            "x = Scalar(0.3)\ny = x.tanh() * x.exp()\ny.backward()\nprint('dy/dx', x.grad)"),
    "kim": (("textbook", "kahn", "explicit"),
            "z = Scalar(1.5)\nw = (z * z).log()\nw.backward()\n"
            "assert abs(z.grad - 2 / 1.5) < 1e-9"),
    "lena": (("explicit", "textbook", "kahn"),
             "import math\nprint(numerical_gradient(math.sin, 0.0), 'should be 1')"),
    "omar": (("kahn", "explicit", "textbook"),
             "chain = Scalar(0.5)\nfor _ in range(1000):\n    chain = chain.tanh()\n"
             "chain.backward()"),
}
# Honest students with one of the course's known mistakes (autograder/references/
# scalar_autodiff.py): their styles (each shares at most one part's with any other student, as the
# honest ones do), their experiment, and the line they got wrong.
MISTAKEN = {
    "rui": (("explicit", "kahn", "textbook"), "print((Scalar(5.0) - Scalar(2.0)).value)",
            ("parents = ((self, 1.0), (other, -1.0))",       # d(a - b)/db = +1
             "parents = ((self, 1.0), (other, 1.0))")),
    "sam": (("kahn", "textbook", "explicit"), "print(Scalar(0.0).sigmoid().value)",
            ("value = 1 / (1 + math.exp(-self.value))",              # sigma(-x)
             "value = 1 / (1 + math.exp(self.value))")),
}
# The copies: the students they copied, and what they did to hide it.
RENAMES = {"inv": "reciprocal", "children": "n_children", "seen": "nodes", "todo": "pending",
           "ready": "queue", "out_value": "product", "forward": "f_plus", "h": "step",
           "topo": "ordering", "done": "visited", "parents": "inputs", "result": "res",
           "value": "val", "y": "out"}
PLANTED = {"pat": "ivan", "quinn": "jun"}


def source_of(styles) -> str:
    """The solution source with each part's blocks written in the given styles."""
    blocks = iter(range(13))

    def body(match):
        index = next(blocks)
        style = styles[next(i for i, part in enumerate(PARTS) if index in part)]
        if STYLES[style] is None:
            return match[0]
        return textwrap.indent(textwrap.dedent(STYLES[style][index]), match[1]) + "\n"
    source = BLOCK.sub(body, A.solution_path().read_text(encoding="utf-8"))
    return source


def notebook(styles, experiment, mistake=None):
    """The solution in `styles`, with the student's own `experiment` cell; `mistake`: (old, new),
    a line of theirs written wrong."""
    source = source_of(styles)
    if mistake:
        assert source.count(mistake[0]) == 1, mistake
        source = source.replace(*mistake)
    nb = jupytext.reads(source, fmt="py:percent")
    nb.cells.append(nbformat.v4.new_code_cell(experiment))
    return nb


def _renamed(code: str) -> str:
    """Local names renamed (not attributes: `.value`, `.parents` stay)."""
    for old, new in RENAMES.items():
        code = re.sub(rf"(?<![.\w]){old}\b", new, code)
    return code


def disguised(nb, comment: str):
    """A copy of `nb`: its variables renamed, the four functions of Part 2 in another order,
    the numerical_gradient cell moved before the backward pass, comments added."""
    nb = nbformat.from_dict(nb)
    cells = nb.cells
    for cell in cells:
        if cell.cell_type != "code":
            continue
        if "def exp(self" in cell.source:
            functions = cell.source.split("\n\n\n")
            last = functions.pop()                        # Scalar.exp, ... = exp, ...
            functions = functions[::-1]
            cell.source = "\n\n\n".join(functions + [last])
        if "def " in cell.source:
            cell.source = _renamed(cell.source)
            cell.source = "\n".join(line + (f"  # {comment}" if line.strip().startswith("return")
                                            else "") for line in cell.source.splitlines())
    numerical = next(i for i, c in enumerate(cells) if "def numerical_gradient" in c.source)
    backward = next(i for i, c in enumerate(cells) if "def backward" in c.source)
    cells.insert(backward, cells.pop(numerical))
    return nb


def make_class(submitted: Path, copies: bool = True, untouched: str | None = "cleo") -> dict:
    """Write the class as submitted/<student>/<assignment>/<notebook>.ipynb: the honest
    students, the copies (`copies`), and `untouched` with the exercise as released (None: no
    such student). Returns {student: notebook}."""
    notebooks = {student: notebook(styles, experiment)
                 for student, (styles, experiment) in HONEST.items()}
    notebooks.update({student: notebook(styles, experiment, mistake)
                      for student, (styles, experiment, mistake) in MISTAKEN.items()})
    if copies:
        for copier, original in PLANTED.items():
            notebooks[copier] = disguised(notebooks[original], f"{copier}'s own work")
    if untouched:
        notebooks[untouched] = nbformat.read(str(A.exercise_path()), as_version=4)
    for student, nb in notebooks.items():
        path = submitted / student / A.id / f"{A.notebook}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
    return notebooks
