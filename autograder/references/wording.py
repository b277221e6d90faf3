"""How a mistake derived from a reference's code (derived.py) is worded for a student: by the ROLE
of what changed, never by the reference's code (grader side only, as derived.py).

An explanation reaches the feedback and the public cases in the student bundle, so it may quote
(in backquotes) only what the student's own released exercise already holds: its function,
argument and variable names (`vocabulary`, `quotable`). Everything else is described:

    which derivative    the mutated code is one of the local-gradient functions of a dp op whose
                        docstring states them ("a / b.  d/da = 1/b, d/db = -a/b^2"): the k-th
                        function is d/d(k-th operand), "in the local derivative d/db = -a/b^2 of
                        a / b" (dp is the public library: its docstrings' math is no answer code)
    which state         a term dropped that reads what the line writes (state[key] = beta *
                        state[key] + ...): the state from the previous step left out, as if it
                        were never written back
    which line          the variable the line assigns, when the exercise has that name

and a few mutations read better by what they do than by their syntax: 1/x with its operands
swapped, or multiplied, is x, "the reciprocal dropped"; a - b swapped flips the sign; x * x
without a factor is "the square dropped"; n + 1 without its 1 is "off by one"; a / 2 without
its division is "a factor 1/2 dropped".

`rank(why)` orders explanations from the simplest, most common mistake (0) to the least likely
(2): where mutations of one line give the reply's value, only those of the best rank are named
(grading.checking.misconception).
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
_FORMULA = re.compile(r"d/d\w+ = (?:[^,.;]|\.\d)+")

STALE = ("the state kept from the previous step left out of the update, as if it were never "
         "written back (each step starts again without it)")
OFF_BY_ONE = "off by one: a 1 added or taken away is missing"
SQUARE = "the square dropped"
POWER_AS_PRODUCT = "a power written as a product"
DIVISION_AS_PRODUCT = "multiplied where the right computation divides"
# two parameters swapped whose names the student's exercise does not have: opaque (below)
PARAMETERS_SWAPPED = "two parameters swapped wherever they are used"
RECIPROCAL = "the reciprocal dropped: the value itself where 1 over it belongs"
DIFFERENCE_SWAPPED = "the two operands of a difference swapped, which flips its sign"

# the least likely mistakes: a syntactic change that students seldom make on their own
_UNLIKELY = ("a square added", "a transpose added")
_LESS_LIKELY = ("a term dropped", "a factor dropped", "the division dropped", POWER_AS_PRODUCT)
# the kind of a mutation, the first of these its explanation holds: mutations of one kind are
# one mistake, however many lines give it
_KINDS = ("step skipped", "swapped", "state", "sign", "reciprocal", "square root", "square", "power", "off by one",
          "axis", "mean", "transpose", "reverse", "other order", "accumulation", "left out",
          "dropped", "grouped")
_texts: dict = {}


def vocabulary(notebook: str) -> str:
    """What an explanation may quote of the released exercise `exercises/*/<notebook>.ipynb` (''
    where there is none): its code cells (their docstrings state the formulas the student codes),
    and what its text cells put in backquotes or in $math$. Not its prose: a name that is also a
    word there ("the two terms", "Oktay, D.") is not one the student's code has."""
    if notebook not in _texts:
        text = []
        for path in sorted(EXERCISES.glob(f"*/{notebook}.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
            for cell in cells:
                source = "".join(cell.get("source", ""))
                spans = re.findall(r"`([^`\n]+)`|\$([^$]+)\$", source)
                text += [source] if cell.get("cell_type") == "code" else \
                    ["".join(parts) for parts in spans]
        _texts[notebook] = "\n".join(text)
    return _texts[notebook]


def quotable(text: str, words: str) -> bool:
    """Whether `text` occurs in the exercise's text `words`, as a whole (not inside a longer
    name, nor an English possessive's s)."""
    return bool(text) and re.search(r"(?<![\w.'])" + re.escape(text) + r"(?!\w)", words) is not None


def rank(why: str) -> int:
    """0 for the common mistakes (a sign, a swap, a square, a root, off by one, stale state,
    parentheses lost or misplaced, ...), 1 for a term, factor or division dropped, 2 for a square
    or transpose added."""
    if why.startswith(_UNLIKELY):
        return 2
    return 1 if why.startswith(_LESS_LIKELY) else 0


def kind(why: str) -> str:
    """What kind of change `why` explains: 'swapped', 'sign', 'square', ... (`_KINDS`), the first
    that it has as a word (with an -s, -d or -ed: 'reversed'), not inside another ('sign' in
    'assignment') nor in a quoted name."""
    words = re.sub(r"`[^`]*`", "", why)     # not inside a quoted name (`state`)
    return next((k for k in _KINDS if re.search(rf"\b{k}(?:s|d|ed)?\b", words)),
                "other").replace(" ", "-")


def reworded(why: str, old, new) -> str:
    """`why` for the mutation `old` -> `new`, in the words of what it does where those say more
    than its syntax (see the module's doc)."""
    if isinstance(old, ast.BinOp):
        if why.startswith(("the two operands swapped", DIVISION_AS_PRODUCT)) and \
                isinstance(old.op, ast.Div) and _is_one(old.left):
            return RECIPROCAL
        if why.startswith("the two operands swapped") and isinstance(old.op, ast.Sub):
            return DIFFERENCE_SWAPPED
        if why.startswith("a factor dropped") and ast.dump(old.left) == ast.dump(old.right):
            return SQUARE
        if why.startswith("a term dropped") and any(_is_one(side) for side in (old.left, old.right)
                                                    if side is not new):
            return OFF_BY_ONE
        if why.startswith("the division dropped") and _number(old.right) and not _is_one(old.right):
            return f"a factor 1/{old.right.value!r} dropped: the division by {old.right.value!r} " \
                "is missing"
    return why


# the rank of an explanation that says only the kinds of what was dropped or swapped ("a term
# dropped: a negation where the right computation has a difference"): a student cannot tell from
# it what their code got wrong, nor whether it is theirs at all (it may match a different mistake
# by coincidence), so `grading.checking` never names it, but counts it as one more line that gives
# the reply (references.OPAQUE, in the student bundle too)
OPAQUE = 3
# the mutations whose meaning is which part they drop or swap
STEP_SKIPPED = "a step skipped: a name used where another, computed from it, belongs"
_PARTS = ("a term dropped", "a factor dropped", "the division dropped", "two values swapped",
          "two arguments swapped", STEP_SKIPPED)


def opaque(why: str) -> bool:
    """Whether the mutation `why` says what it did only by which part it changed (_PARTS)."""
    return why.startswith(_PARTS)


def changed_parts(why: str, old, new) -> list:
    """The nodes a mutation of _PARTS changed: the operand that `new` drops from the operation
    `old` (a + b -> a: [b]; a - b -> -b: [a]), or the two items that it swaps; [] otherwise."""
    if not opaque(why):
        return []
    if isinstance(old, ast.BinOp):
        kept = new.operand if isinstance(new, ast.UnaryOp) else new
        return [old.right] if kept is old.left else [old.left] if kept is old.right else []
    field = "elts" if isinstance(old, (ast.Tuple, ast.List)) else "args"
    before, after = getattr(old, field, None), getattr(new, field, None)
    if before is None or after is None or len(before) != len(after):
        return []
    return [a for a, b in zip(before, after) if a is not b]


def _number(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
        not isinstance(node.value, bool)


def _is_one(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 and not isinstance(node.value, bool)


def role(function, ancestors: list, old, new, why: str, words: str) -> str:
    """Where the mutation `old` -> `new` (`ancestors`: the nodes from the `function`, or the
    statement, down to `old`'s parent) sits, as a student would say it, before `why`:
    'in the local derivative d/db = -a/b^2 of a / b: <why>', 'in the line that computes `v`:
    <why>', or `why` alone. A dropped term that reads what its line writes is stale state."""
    target = next((a for a in reversed(ancestors) if isinstance(a, (ast.Assign, ast.AugAssign))),
                  None)
    if why.startswith("a term dropped") and target is not None and isinstance(old, ast.BinOp):
        dropped = old.right if new is old.left else old.left
        if _written(target) & {n.id for n in ast.walk(dropped) if isinstance(n, ast.Name)}:
            why = STALE
    derivative = _derivative(function, ancestors, old)
    if why == STALE:        # which state is the line's, and the line says nothing more
        return why
    if derivative:
        return f"in the local derivative {derivative}: {why}"
    names = [n for n in _computed(target, ancestors, old) if quotable(n, words)] \
        if target is not None else []
    return f"in the line that computes {' and '.join(f'`{n}`' for n in names)}: {why}" \
        if names else why


def placed(explanation: str) -> bool:
    """Whether `explanation` says where its change is (`role`, `swapped_derivatives`: which
    derivative, which line, which state)."""
    return explanation.startswith(_PLACES)


_PLACES = ("in the local derivative ", "in the line that computes `", "the two local derivatives ",
           STALE)


def swapped_derivatives(function, call) -> str | None:
    """'the two local derivatives d/da = b and d/db = a of a * b swapped (each operand given the
    other's)', when `call`'s arguments hold the local-gradient functions of the dp op `function`
    (whose docstring states them), else None."""
    formulas, head = _formulas(function)
    lambdas = [n for n in _lambdas(function) if any(n is m for m in ast.walk(call))]
    if len(lambdas) == 2 and len(formulas) == len(_lambdas(function)):
        first, second = (formulas[_lambdas(function).index(n)] for n in lambdas)
        return (f"the two local derivatives {first} and {second} of {head} swapped (each operand "
                "given the other's)")
    return None


def _computed(target, ancestors: list, old) -> list:
    """The names the assignment `target` writes, in the order written; of a tuple assigned a tuple
    (m_hat, v_hat = m / c1, v / c2), only the one whose value holds `old`."""
    if isinstance(target, ast.Assign) and len(target.targets) == 1 and \
            isinstance(target.targets[0], ast.Tuple) and isinstance(target.value, ast.Tuple) and \
            len(target.targets[0].elts) == len(target.value.elts):
        for name, value in zip(target.targets[0].elts, target.value.elts):
            if value is old or any(a is value for a in ancestors):
                return _in_order(name)
    return [n for t in (target.targets if isinstance(target, ast.Assign) else [target.target])
            for n in _in_order(t)]


def _in_order(node) -> list:
    """The names an assignment's target `node` writes, in the order written: x of x, x[k] and
    x.a; each of a tuple's."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        return _in_order(node.value)
    if isinstance(node, (ast.Tuple, ast.List)):
        return list(dict.fromkeys(n for e in node.elts for n in _in_order(e)))
    return []


def _written(target) -> set:
    """The names an assignment writes: x = ..., x[k] = ..., x.a = ... all write x."""
    targets = target.targets if isinstance(target, ast.Assign) else [target.target]
    found = set()
    for t in targets:
        for node in ast.walk(t):
            if isinstance(node, ast.Name):
                found.add(node.id)
    return found


def _lambdas(function) -> list:
    """The lambdas of `function`, in the order of the source."""
    if not isinstance(function, ast.FunctionDef):
        return []
    return sorted((n for n in ast.walk(function) if isinstance(n, ast.Lambda)),
                  key=lambda n: (n.lineno, n.col_offset))


def _formulas(function) -> tuple:
    """(["d/da = 1/b", "d/db = -a/b^2"], "a / b") from the docstring of a dp op, else ([], '')."""
    doc = ast.get_docstring(function) if isinstance(function, ast.FunctionDef) else None
    if not doc:
        return [], ""
    formulas = [f.strip() for f in _FORMULA.findall(doc)]
    head = doc.split("d/d", 1)[0].strip().rstrip(".").strip()
    return formulas, head


def _derivative(function, ancestors, old) -> str | None:
    """'d/db = -a/b^2 of a / b' when `old` is inside the k-th local-gradient function (a lambda)
    of the dp op `function`, whose docstring states one formula per such function."""
    formulas, head = _formulas(function)
    lambdas = _lambdas(function)
    inside = [a for a in ancestors + [old] if isinstance(a, ast.Lambda)]
    if not inside or not head or len(formulas) != len(lambdas) or "\n" in head:
        return None
    k = next((i for i, n in enumerate(lambdas) if n is inside[-1]), None)
    return None if k is None else f"{formulas[k]} of {head}"
