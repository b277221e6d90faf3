"""Mistakes derived from a reference's own code (issue 30): the grader's side only, never shipped.

A hand-written catalogue (`misconception`) knows the mistakes its authors imagined. Here, as in
an error model (Singh, Gulwani and Solar-Lezama, PLDI 2013), wrong versions of a reference are
made by small rewrite rules on its syntax tree, each of which a student makes often:

    two operands or arguments swapped        a - b -> b - a,  f(x, y) -> f(y, x),  (b, a) -> (a, b),
                                             f((a, da), (b, db)) -> f((a, db), (b, da))
    a sign flipped                           a + b <-> a - b,  -a -> a
    a term or a factor dropped               a + b -> a,  a * b -> a,  a / b -> a
    a power or a root                        a ** b -> a * b,  a ** 2 -> a,  sqrt(a) -> a
    sum and mean, the axis                   x.sum() <-> x.mean(),  axis=0 -> axis=1
    another function                         np.log(x) -> np.log10(x), np.exp(x) -> np.exp2(x)
    a transpose added or dropped             a.T -> a,  a @ b -> a.T @ b
    an order reversed, off by one            for x in s -> in reversed(s),  range(n) -> range(n - 1),
                                             x[i] -> x[i + 1]
    accumulation lost                        a += b -> a = b
    stale state                              a line left out (never written back),
                                             two lines in the other order (read before written)
    two hyperparameters swapped              every use of beta1 and beta2 exchanged, or one use
                                             of beta2 read as beta1
    a division as a product                  a / b -> a * b
    precedence regrouped                     a / b * c <-> a / (b * c),  a / (b - c) -> a / b - c,
                                             f(a / b) -> f(a) / b, a / f(b),  (1 - p).log() -> 1 - p.log()
    the input for the result                 out = np.exp(x); lambda: out -> lambda: x (a local
                                             derivative written with an operation's output)
    a step skipped                           h = x; h = act(h @ W) -> act(x @ W);  da = dh * d;
                                             da @ W -> dh @ W (in the reference's own module)

A reference may also be written, for this only, in the form its exercise has students write it
(`forms`: dp's division computes d/db as -g out / b, a student as -a / b ** 2, which loses its
square where dp's form has none): the mutants of each form are derived too.

`derived(module, name, args, kwargs)` runs the reference `name` once under a line tracer to learn
which top-level definitions of `module` the call executes, and on which lines; applies each rule
at each node of those lines; compiles each mutant from the module's source (`ast`) into a copy of
the module's globals; and runs it on the same arguments. It keeps a mutant whose result differs
from the reference's (at most SAME_VALUE explanations of one value are kept),
within `LIMIT` mutants and `SECONDS` of time, and gives [[id, why, value]] as the catalogue does.
It is only called where `references` computes a reference's known mistakes: lazily, for a task
whose failure message reads them.
"""
from __future__ import annotations

import __future__
import ast
import contextlib
import copy
import hashlib
import inspect
import json
import os
import resource
import select
import signal
import sys
import time

import numpy as np

from ..sandbox import protocol
from . import wording

# an id ends with @<module>:<line>#<rank>.<kind>: the format of references.SITE and RANK, which
# the student bundle has (checking reads it there); not imported from the package, which imports
# this module (tests/test_derived_mistakes.py says they are the same)
SITE, RANK = "@", "#"

LIMIT = 300         # mutants run per call, at most
SECONDS = 3.0       # and the CPU time they may take: a safety net, the count is the bound meant
PER_TASK = 4.0      # and all the calls of one task's checks together (`per_task`)
TRACE = 0.25        # the CPU time the traced run of the reference may take, or no mutants at all
WALL = 3            # the child has WALL times their sum + 1 s of wall time for both, killed past it
SAME_VALUE = 3      # explanations kept for one value: another mutation may be the student's, and
                    # three unrelated ones of one value are too many to name any (checking)
MEMORY = 1 << 30    # the address space the mutants may take beyond the grader's
QUOTE = 60          # the longest piece of code quoted in an explanation
KEPT = 256          # calls whose mutants this process keeps (`derived` on the same arguments again)

_NONCOMMUTATIVE = (ast.Sub, ast.Div, ast.Pow, ast.MatMult, ast.FloorDiv, ast.Mod)


_OPERATION = {ast.Add: "a sum", ast.Sub: "a difference", ast.Mult: "a product",
              ast.Div: "a quotient", ast.Pow: "a power", ast.MatMult: "a matrix product",
              ast.FloorDiv: "a whole-number quotient", ast.Mod: "a remainder"}


def _quote(node) -> str:
    """What `node` is, for an explanation: a name or an attribute of a name as written (`other`,
    `self.value`: the student's vocabulary), an entry of a dict by its key (`b` for params["b"]),
    any other expression or line by its kind, in words.
    The reference's code itself is the grader's: nothing a student receives may quote it (the
    explanations reach the feedback and the bundle's public cases), and a name is quoted only
    where the student's released exercise has it too (`wording.quotable`)."""
    if isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        text = ast.unparse(node)
        return f"`{text}`" if len(text) <= QUOTE and wording.quotable(text, _words[0]) \
            else "a name"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
            isinstance(node.slice.value, str):      # params["b"]: the entry by its key, `b`
        return _quote(ast.Name(node.slice.value, ast.Load())).replace("a name", "an index")
    if isinstance(node, ast.BinOp):
        return _OPERATION.get(type(node.op), "an operation")
    if isinstance(node, ast.UnaryOp):
        return "a negation" if isinstance(node.op, ast.USub) else "an operation"
    if isinstance(node, ast.Call):
        name = _call_name(node)
        return f"a call of {name}()" if name and len(name) <= QUOTE else "a call"
    kinds = {ast.Lambda: "a function", ast.Constant: "a constant", ast.Subscript: "an index",
             ast.Tuple: "a tuple", ast.Assign: "an assignment", ast.AugAssign: "an accumulation",
             ast.Attribute: "an attribute", ast.Compare: "a comparison", ast.Return: "a return"}
    return next((words for kind, words in kinds.items() if isinstance(node, kind)), "an expression")


_words = [""]      # the text of the exercise of the reference being mutated (`_search`)


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _plus(node, k: int):
    """node + k (k = +-1), folded when node is a constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and \
            not isinstance(node.value, bool):
        return ast.Constant(node.value + k)
    return ast.BinOp(node, ast.Add() if k > 0 else ast.Sub(), ast.Constant(abs(k)))


# -- the rewrite rules: node -> [(what the mistake is, the node that replaces it)] ---------------
def _binop(node: ast.BinOp) -> list:
    op, a, b = type(node.op), node.left, node.right
    found = []
    if op in _NONCOMMUTATIVE:
        found.append(("the two operands swapped", ast.BinOp(b, node.op, a)))
    if op in (ast.Add, ast.Sub):
        found.append(("a sign flipped", ast.BinOp(a, ast.Sub() if op is ast.Add else ast.Add(), b)))
        found.append(("a term dropped", a))
        found.append(("a term dropped", b if op is ast.Add else ast.UnaryOp(ast.USub(), b)))
    if op is ast.Mult:
        found += [("a factor dropped", a), ("a factor dropped", b)]
    if op in (ast.Div, ast.FloorDiv):
        found.append(("the division dropped", a))
    if op is ast.Div:
        found.append((DIVISION_AS_PRODUCT, ast.BinOp(a, ast.Mult(), b)))
    if op is ast.MatMult:
        found += [("a transpose added", ast.BinOp(ast.Attribute(a, "T", ast.Load()), node.op, b)),
                  ("a transpose added", ast.BinOp(a, node.op, ast.Attribute(b, "T", ast.Load())))]
        found += _contraction_means(node, a, [ast.UnaryOp(ast.USub(), ast.Constant(1))])
    if op is ast.Pow:
        square = isinstance(b, ast.Constant) and b.value == 2
        root = isinstance(b, ast.Constant) and b.value == 0.5
        found.append((wording.POWER_AS_PRODUCT, ast.BinOp(a, ast.Mult(), b)))
        found.append(("the square dropped" if square else "the square root dropped" if root
                      else "the power dropped", a))
    for inner, outer_side in ((a, "left"), (b, "right")):     # precedence: regrouped
        if isinstance(node.op, _ARITHMETIC) and isinstance(inner, ast.BinOp) and \
                isinstance(inner.op, _ARITHMETIC):
            if outer_side == "left":
                regrouped = ast.BinOp(inner.left, inner.op, ast.BinOp(inner.right, node.op, b))
            else:
                regrouped = ast.BinOp(ast.BinOp(a, node.op, inner.left), inner.op, inner.right)
            found.append((PRECEDENCE, regrouped))
    if op is not ast.Pow and not (isinstance(b, ast.Constant) and b.value == 2):
        found.append(("a square added", ast.BinOp(node, ast.Pow(), ast.Constant(2))))
    return found


# two nested operations of these are regrouped, of one level (a / b * c <-> a / (b * c)) or of two:
# parentheses dropped (a / (b - c) -> a / b - c) or put where they change the order (1 - t ** 2
# -> (1 - t) ** 2)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow)


def _unary(node: ast.UnaryOp) -> list:
    return [("a minus sign dropped", node.operand)] if isinstance(node.op, ast.USub) else []


def _call(node: ast.Call) -> list:
    name, found = _call_name(node), []
    func, args = node.func, node.args
    if name == "sqrt" and len(args) == 1:
        found.append(("the square root dropped", args[0]))
    if name in ("sqrt", "square") and not args and isinstance(func, ast.Attribute):  # x.sqrt()
        found.append((wording.SQUARE if name == "square" else "the square root dropped",
                      func.value))
    if name == "square" and len(args) == 1:
        found.append((wording.SQUARE, args[0]))
    found += _one_operand(node)
    if name in ("sum", "mean") and isinstance(func, ast.Attribute):
        other = "mean" if name == "sum" else "sum"
        changed = copy.copy(node)
        changed.func = ast.Attribute(func.value, other, func.ctx)
        found.append((f"a {other} where the right computation takes a {name}", changed))
    if name == "dot" and isinstance(func, ast.Attribute) and len(args) in (1, 2):    # a.dot(b)
        first = args[0] if len(args) == 2 else func.value                           # np.dot(a, b)
        found += _contraction_means(node, first, [ast.UnaryOp(ast.USub(), ast.Constant(1))])
    axes = next((k.value for k in node.keywords if k.arg == "axes"),
                args[2] if len(args) > 2 else None)
    if name == "tensordot" and len(args) >= 2 and axes is not None and \
            not isinstance(axes, (ast.Tuple, ast.List)):
        first = ast.BinOp(ast.Attribute(args[0], "ndim", ast.Load()), ast.Sub(), axes)    # a.ndim - n
        found += _contraction_means(node, args[0], [first, ast.UnaryOp(ast.USub(), ast.Constant(1))])
    for other in _OTHER_FUNCTIONS.get(name, ()) if len(args) == 1 else ():
        changed = copy.copy(node)
        changed.func = ast.Attribute(func.value, other, func.ctx) if isinstance(func, ast.Attribute) \
            else ast.Name(other, func.ctx)
        found.append((ANOTHER_FUNCTION, changed))
    if name in ("transpose",) and len(args) <= 1:
        found.append(("a transpose dropped", args[0] if args else func.value))
    if name == "reversed" and len(args) == 1:
        found.append(("the order not reversed", args[0]))
    if name == "range" and isinstance(func, ast.Name) and 1 <= len(args) <= 2:
        for i, arg in enumerate(args):
            for k in (-1, 1):
                changed = copy.copy(node)
                changed.args = list(args)
                changed.args[i] = _plus(arg, k)
                found.append(("a range off by one", changed))
    for keyword in node.keywords:
        for axis in _other_axes(keyword.value) if keyword.arg == "axis" else ():
            changed = copy.copy(node)
            changed.keywords = [ast.keyword("axis", axis) if k is keyword else k
                                for k in node.keywords]
            found.append(("the axis changed", changed))
    tuples = [i for i, a in enumerate(args) if isinstance(a, ast.Tuple)]
    for m, first in enumerate(tuples):      # (a, da) and (b, db) -> (a, db) and (b, da)
        for second in tuples[m + 1:]:
            one, other = args[first].elts, args[second].elts
            for p in range(1 if len(one) == len(other) else 0, len(one)):
                if p < len(other):
                    changed = copy.copy(node)
                    changed.args = list(args)
                    changed.args[first] = ast.Tuple(one[:p] + [other[p]] + one[p + 1:], ast.Load())
                    changed.args[second] = ast.Tuple(other[:p] + [one[p]] + other[p + 1:],
                                                     ast.Load())
                    found.append((f"{_quote(one[p])} given with {_quote(one[0])} and "
                                  f"{_quote(other[p])} given with {_quote(other[0])} swapped",
                                  changed))
    if not any(isinstance(a, ast.Starred) for a in args):
        found += _adjacent_swaps(node, "args", "two arguments swapped")
    return found


# functions taken for one another: a logarithm to another base, a power of 2 for one of e
_OTHER_FUNCTIONS = {"log": ("log10", "log2"), "log10": ("log",), "log2": ("log",), "exp": ("exp2",),
                    "exp2": ("exp",)}
ANOTHER_FUNCTION = "another function taken for the right one"


def _one_operand(node: ast.Call) -> list:
    """Precedence: a function of an operation taken of one of its operands only, the other
    outside it: f(a / b) -> f(a) / b, a / f(b); and as a method, (1 - p).log() -> 1 - p.log(),
    p.log() - 1 is not (only a name or an attribute takes the method)."""
    func, args = node.func, node.args
    if node.keywords or len(args) > 1:
        return []
    if len(args) == 1:          # f(a op b)
        inner, apply = args[0], lambda operand: ast.Call(func, [operand], [])
    elif isinstance(func, ast.Attribute):       # (a op b).f()
        inner = func.value
        apply = lambda operand: ast.Call(ast.Attribute(operand, func.attr, ast.Load()), [], [])
    else:
        return []
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, (ast.Add, ast.Sub, ast.Mult,
                                                                    ast.Div))):
        return []
    operands = [inner.left, inner.right] if args else \
        [o for o in (inner.left, inner.right) if isinstance(o, (ast.Name, ast.Attribute))]
    why = f"{PRECEDENCE}: {_quote(node)} taken of one operand only, with the other operand outside it"
    return [(why, ast.BinOp(apply(o), inner.op, inner.right) if o is inner.left else
             ast.BinOp(inner.left, inner.op, apply(o))) for o in operands]


def _other_axes(axis) -> list:
    """The axes a student may write for `axis`: another of 0, 1, -1 and None for one of them; for
    several (a tuple), all of them (None) or the tuple without one of its axes."""
    if isinstance(axis, ast.Constant):
        return [ast.Constant(a) for a in (0, 1, -1, None) if a != axis.value or
                (a is None) != (axis.value is None)]
    if isinstance(axis, ast.Tuple) and len(axis.elts) >= 2:
        elts = axis.elts
        return [ast.Constant(None)] + [ast.Tuple(elts[:i] + elts[i + 1:], ast.Load())
                                       for i in range(len(elts))]
    return []


def _contraction_means(node, operand, axes: list) -> list:
    """A sum that a product of arrays takes over an axis (`operand`'s axes `axes`, expressions)
    as a mean: `node` divided by that axis's length (one mutant per distinct axis)."""
    found, seen = [], set()
    for axis in axes:
        length = ast.Subscript(ast.Attribute(operand, "shape", ast.Load()), axis, ast.Load())
        if ast.dump(axis) not in seen:
            seen.add(ast.dump(axis))
            found.append((CONTRACTION_MEAN, ast.BinOp(node, ast.Div(), length)))
    return found


def _adjacent_swaps(node, field: str, why: str) -> list:
    """`node` with two adjacent items of its list `field` swapped, each pair in turn."""
    items, found = getattr(node, field), []
    for i in range(len(items) - 1):
        changed = copy.copy(node)
        setattr(changed, field, items[:i] + [items[i + 1], items[i]] + items[i + 2:])
        found.append((why, changed))
    return found


def _attribute(node: ast.Attribute) -> list:
    return [("a transpose dropped", node.value)] if node.attr == "T" else []


def _subscript(node: ast.Subscript) -> list:
    index = node.slice
    if isinstance(index, ast.Constant) and isinstance(index.value, int) and \
            not isinstance(index.value, bool):
        return [("an index off by one", ast.Subscript(node.value, ast.Constant(index.value + k),
                                                      node.ctx)) for k in (-1, 1)]
    if isinstance(index, ast.Slice):
        found = []
        for bound in ("lower", "upper"):
            if getattr(index, bound) is not None:
                for k in (-1, 1):
                    changed = copy.copy(index)
                    setattr(changed, bound, _plus(getattr(index, bound), k))
                    found.append(("a slice off by one", ast.Subscript(node.value, changed, node.ctx)))
        return found
    return []


def _sequence(node) -> list:
    if not 2 <= len(node.elts) <= 4 or isinstance(node.ctx, ast.Store):
        return []
    return _adjacent_swaps(node, "elts", "two values swapped")


PRECEDENCE = "the operations grouped the other way (precedence)"
CONTRACTION_MEAN = ("a mean where the right computation takes a sum: a product of arrays sums "
                    "along one of its dimensions, divided here by that dimension's length")
ACCUMULATION_LOST = "an accumulation written as an assignment: what was accumulated is overwritten"
# explanations (their beginnings) that say all there is to say, without the kinds of what
# replaced what
INPUT_FOR_RESULT = "its input used where the formula takes the operation's output"
DIVISION_AS_PRODUCT = wording.DIVISION_AS_PRODUCT
_COMPLETE = (ACCUMULATION_LOST, wording.POWER_AS_PRODUCT, CONTRACTION_MEAN, PRECEDENCE + ": ",
             INPUT_FOR_RESULT, DIVISION_AS_PRODUCT)


def _augassign(node: ast.AugAssign) -> list:
    if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        value = node.value if isinstance(node.op, ast.Add) else \
            ast.UnaryOp(ast.USub(), node.value) if isinstance(node.op, ast.Sub) else node.value
        return [(ACCUMULATION_LOST,
                 ast.Assign([node.target], value))]
    return []


def _for(node: ast.For) -> list:
    changed = copy.copy(node)
    changed.iter = ast.Call(ast.Name("reversed", ast.Load()),
                            [ast.Call(ast.Name("list", ast.Load()), [node.iter], [])], [])
    return [("the loop run in the reverse order", changed)]


def _body(node) -> list:
    """Stale state: a line of a block left out (a value never written back), or two adjacent
    lines in the other order (a value read before it is updated). Which lines is the mistake:
    each is described by what it computes where the exercise has that name (`_line`); where one
    only has its kind ("an assignment"), the change is described by the kinds and is opaque
    (`_explained`)."""
    body, found = node.body, []
    for i, statement in enumerate(body):
        if isinstance(statement, (ast.Assign, ast.AugAssign)) and len(body) > 1:
            changed = copy.copy(node)
            changed.body = body[:i] + body[i + 1:]
            line = _line(statement)
            found.append((f"{line} {NEVER_WRITTEN}" if line else
                          f"a line ({_quote(statement)}) {NEVER_WRITTEN}", changed))
        if i + 1 < len(body) and not isinstance(body[i + 1], ast.Return):
            changed = copy.copy(node)
            changed.body = body[:i] + [body[i + 1], statement] + body[i + 2:]
            first, second = _line(statement), _line(body[i + 1])
            found.append((f"two lines in the other order, {second} before {first} {READ_BEFORE}"
                          if first and second else
                          f"two lines ({_quote(statement)}, {_quote(body[i + 1])}) in the other "
                          f"order {READ_BEFORE}", changed))
    return found


NEVER_WRITTEN = "left out (a value never written back)"
READ_BEFORE = "(a value read before it is updated)"
# a line left out or two lines in the other order that only the lines' kinds describe (`_body`)
_LINES_BY_KIND = ("a line (", "two lines (")


def _line(statement) -> str | None:
    """A line, in words a student can follow: 'the line that computes `v`' (an assignment to a
    name, an attribute of a name or an entry by its key, that the exercise has: `_quote`), 'the
    call of append() on `losses`' (a call of a method of such a name, as a line of its own);
    None where only its kind would say it (a loop, a condition, a return, a name the exercise
    lacks)."""
    if isinstance(statement, (ast.Assign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if len(targets) == 1:
            target = targets[0]
            while isinstance(target, ast.Subscript) and not (
                    isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)):
                target = target.value       # grads[p]: `grads`; params["b"]: `b`
            quoted = _quote(target)
            if quoted.startswith("`"):
                return f"the line that computes {quoted}"
        return None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and \
            isinstance(statement.value.func, ast.Attribute):
        quoted = _quote(statement.value.func.value)
        if quoted.startswith("`") and len(statement.value.func.attr) <= QUOTE:
            return f"the call of {statement.value.func.attr}() on {quoted}"
    return None


def _parameters(node: ast.FunctionDef, numbers: set) -> list:
    """Two numeric parameters of the function (`numbers`: those that were numbers in the traced
    call) swapped wherever the body reads them; and swapped between two adjacent lines of the
    body, one of which reads only the first and the other only the second (each line given the
    other's: m with beta2 and v with beta1)."""
    names = [a.arg for a in node.args.args + node.args.kwonlyargs if a.arg in numbers]
    found = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            pair = first, second
            quoted = all(wording.quotable(n, _words[0]) for n in pair)
            found.append((f"`{first}` and `{second}` swapped wherever they are used" if quoted
                          else wording.PARAMETERS_SWAPPED, _renamed(node, pair)))
            found += _one_use_read_as(node, pair, quoted) + \
                _one_use_read_as(node, pair[::-1], quoted)
            body = node.body
            for j in range(len(body) - 1):
                reads = [{n.id for n in ast.walk(s) if isinstance(n, ast.Name)} & set(pair)
                         for s in body[j:j + 2]]
                if len(reads[0]) == len(reads[1]) == 1 and reads[0] != reads[1]:
                    changed = copy.copy(node)
                    changed.body = body[:j] + [_renamed(s, pair) for s in body[j:j + 2]] + \
                        body[j + 2:]
                    found.append((f"`{first}` and `{second}` swapped between the two lines that "
                                  "use them" if quoted else wording.PARAMETERS_SWAPPED, changed))
    return found


def _one_use_read_as(function: ast.FunctionDef, pair: tuple, quoted: bool) -> list:
    """`function` with one of its reads of the parameter pair[0] reading pair[1] instead (a
    bias correction of v with beta1): one mutant per read."""
    found = []
    reads = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == pair[0]
             and isinstance(n.ctx, ast.Load)]
    for k in range(len(reads)):
        changed = copy.deepcopy(function)
        [read] = [n for n in ast.walk(changed) if isinstance(n, ast.Name) and n.id == pair[0]
                  and isinstance(n.ctx, ast.Load)][k:k + 1]
        read.id = pair[1]
        found.append((f"`{pair[1]}` where `{pair[0]}` belongs, in one place" if quoted
                      else wording.PARAMETERS_SWAPPED, changed))
    return found


def _renamed(tree, pair: tuple):
    """A copy of `tree` with the names `pair` exchanged wherever it reads them."""
    changed = copy.deepcopy(tree)
    for name in ast.walk(changed):
        if isinstance(name, ast.Name) and name.id in pair:
            name.id = pair[1] if name.id == pair[0] else pair[0]
    return changed


RULES = {ast.BinOp: _binop, ast.UnaryOp: _unary, ast.Call: _call, ast.Attribute: _attribute,
         ast.Subscript: _subscript, ast.Tuple: _sequence, ast.List: _sequence,
         ast.AugAssign: _augassign, ast.For: _for}


# -- where the call goes ------------------------------------------------------------------------
class _TooSlow(Exception):
    """The reference takes too long for its mutants to be run within the time they may take."""


def _trace(files: dict, function, args, kwargs, deadline: float):
    """(result, {file: executed line numbers}, {code name: names of numeric arguments},
    {(file, first line of a code object that ran): its deepest call depth}) of
    function(*args, **kwargs), traced in the files of `files` only; _TooSlow when it is still
    running at `deadline`."""
    lines, numbers, depths = {}, {}, {}

    def stop(frame, event, arg):
        raise _TooSlow

    def tracer(frame, event, arg):
        # past the deadline, the frame's first line raises (a 'line' event's exception is raised
        # in the traced code, as a loop's next turn raises in `local`)
        if time.thread_time() > deadline:
            return stop
        filename = frame.f_code.co_filename
        if filename not in files:
            return None
        seen = lines.setdefault(filename, set())
        seen.add(frame.f_lineno)
        depth, outer = 0, frame.f_back
        while outer is not None and depth < 50:
            depth, outer = depth + 1, outer.f_back
        where = filename, frame.f_code.co_firstlineno
        depths[where] = max(depth, depths.get(where, 0))
        numbers.setdefault(frame.f_code.co_name, set()).update(
            name for name, value in frame.f_locals.items()
            if isinstance(value, (float, np.floating)) and not isinstance(value, bool))

        def local(frame, event, arg):
            if event == "line":
                if time.thread_time() > deadline:
                    raise _TooSlow
                seen.add(frame.f_lineno)
            return local
        return local
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    saved = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = function(*args, **kwargs)
    finally:
        sys.settrace(saved)
    return result, lines, numbers, depths


def _executed(statement, lines) -> bool:
    return any(line in lines for line in range(statement.lineno, statement.end_lineno + 1))


def _sites(statement, lines, numbers, own=True):
    """[(path, j, why, node, replacement)]: the j-th mutation of the node at `path` (`_walk`)
    of `statement`, for the nodes on its executed lines (none inside a `while`: a mutant must
    end); a step skipped (`_skipped_step`) only in the reference's `own` module, whose
    functions are few, not in the library's many."""
    sites, results = [], _results(statement)
    sources = _sources(statement) if own else {}
    looping = {id(n) for w in ast.walk(statement) if isinstance(w, ast.While) for n in ast.walk(w)}
    for node, path in _walk(statement):
        if id(node) not in looping and getattr(node, "lineno", None) is not None and \
                any(line in lines for line in range(node.lineno, node.end_lineno + 1)):
            rules = _rules(node, numbers) + \
                (_input_for_result(node, results) if isinstance(node, ast.Lambda) else []) + \
                (_skipped_step(node, sources) if isinstance(node, _SIMPLE) else [])
            for j, (why, new) in enumerate(rules):
                sites.append((path, j, why, node, new))
    return sites



def _results(function) -> dict:
    """{name: [its input]} of the names that `function` assigns once from an expression of one
    of its inputs (an argument, or an attribute of one: `out = np.exp(self.value)`): the result
    of an operation of one operand, which its local derivative may be written with."""
    if not isinstance(function, ast.FunctionDef):
        return {}
    arguments = {a.arg for a in function.args.args + function.args.kwonlyargs}
    assigned = [a for a in ast.walk(function) if isinstance(a, ast.Assign)
                and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)]
    found = {}
    for assignment in assigned:
        name = assignment.targets[0].id
        inputs = {ast.dump(n): n for n in ast.walk(assignment.value) if _input(n, arguments)}
        if name not in arguments and len(inputs) == 1 and \
                sum(a.targets[0].id == name for a in assigned) == 1:
            found[name] = list(inputs.values())
    return found


_SIMPLE = (ast.Assign, ast.AugAssign, ast.Return)      # statements with no statements inside


def _sources(function) -> dict:
    """{name: [the names its assignments in `function` read]}, each name once and none of its
    own (h = x; h = act(h @ W): h from x and W), not the functions called."""
    if not isinstance(function, ast.FunctionDef):
        return {}
    found = {}
    for target, value in _pairs(function):
        called = {id(n) for c in ast.walk(value) if isinstance(c, ast.Call) for n in ast.walk(c.func)}
        names = found.setdefault(target.id, [])
        for n in ast.walk(value):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called \
                    and n.id != target.id and n.id not in names:
                names.append(n.id)
    return found


def _pairs(function):
    """(name, the value assigned to it) of each assignment of `function` to a name, the names of
    a tuple assigned a tuple too (hs, h = [], x)."""
    for assignment in ast.walk(function):
        if isinstance(assignment, ast.Assign) and len(assignment.targets) == 1:
            target, value = assignment.targets[0], assignment.value
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and \
                    len(target.elts) == len(value.elts):
                yield from ((t, v) for t, v in zip(target.elts, value.elts)
                            if isinstance(t, ast.Name))
            elif isinstance(target, ast.Name):
                yield target, value


def _skipped_step(statement, sources: dict) -> list:
    """A step skipped: `statement` reading, wherever it reads a name, a name that name was
    computed from instead (h = act(x @ W) for h = act(h @ W), after h = x; dh for da = dh * ...).
    Worded by the two names where the exercise has them, else opaque."""
    found = []
    read = sorted({n.id for n in ast.walk(statement) if isinstance(n, ast.Name)
                   and isinstance(n.ctx, ast.Load)} & sources.keys())
    for name in read:
        for source in sources[name]:
            changed = copy.deepcopy(statement)
            for node in ast.walk(changed):
                if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                    node.id = source
            quoted = [_quote(ast.Name(n, ast.Load())) for n in (source, name)]
            found.append((f"a step skipped: {quoted[0]} used where {quoted[1]}, computed from it, "
                          "belongs" if all(q.startswith("`") for q in quoted)
                          else wording.STEP_SKIPPED, changed))
    return found


def _input(node, arguments: set) -> bool:
    """An argument (`a`), or an attribute of one (`self.value`), read."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id in arguments and node.attr != "T"
    return isinstance(node, ast.Name) and node.id in arguments and \
        isinstance(node.ctx, ast.Load) and node.id != "self"


def _input_for_result(node: ast.Lambda, results: dict) -> list:
    """A local derivative written with the operation's result (`lambda: out * (1 - out)`) taken
    of the operation's input instead, at every use (`self.value * (1 - self.value)`): one
    mutant per result it reads (`_results`)."""
    found = []
    read = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)}
    for name in sorted(read & results.keys()):
        for source in results[name]:
            changed = copy.deepcopy(node)
            for parent in ast.walk(changed):
                for field, index, child in list(_children(parent)):
                    if isinstance(child, ast.Name) and child.id == name:
                        if index is None:
                            setattr(parent, field, copy.deepcopy(source))
                        else:
                            getattr(parent, field)[index] = copy.deepcopy(source)
            found.append((INPUT_FOR_RESULT, changed))
    return found


def _walk(node, path=()):
    """(node, [(field, index or None)] from the root to it) of every node, the root first."""
    yield node, path
    for field, index, child in _children(node):
        yield from _walk(child, path + ((field, index),))


def _rules(node, numbers) -> list:
    found = list(RULES[type(node)](node)) if type(node) in RULES else []
    if isinstance(node, (ast.FunctionDef, ast.For)):
        found += _body(node)
    if isinstance(node, ast.FunctionDef):
        found += _parameters(node, numbers.get(node.name, set()))
    return found


def _replaced(statement, path, old, new):
    """A copy of `statement` whose node `old` at `path` is `new`: only the nodes on the path to
    it are copied, the rest is shared (no node is ever changed in place)."""
    new = ast.fix_missing_locations(ast.copy_location(new, old))
    if not path:
        return new
    root = node = copy.copy(statement)
    for depth, (field, index) in enumerate(path):
        last = depth == len(path) - 1
        value = getattr(node, field)
        if index is None:
            child = new if last else copy.copy(value)
            setattr(node, field, child)
        else:
            value = list(value)
            child = new if last else copy.copy(value[index])
            value[index] = child
            setattr(node, field, value)
        node = child
    return root


def _children(node):
    """(field, index or None, child) of each child node, in `ast.iter_child_nodes`' order."""
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            yield field, None, value
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield field, index, item


def _undecorated(statement):
    if isinstance(statement, ast.FunctionDef) and statement.decorator_list:
        statement = copy.copy(statement)
        statement.decorator_list = []
    return statement


_parsed: dict = {}


def _statements(module) -> list:
    if module.__name__ not in _parsed:
        _parsed[module.__name__] = ast.parse(inspect.getsource(module)).body
    return _parsed[module.__name__]


def _defines(statement) -> set:
    if isinstance(statement, ast.FunctionDef):
        return {statement.name}
    if isinstance(statement, ast.Assign):
        return {n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _key(value) -> str:
    return hashlib.sha256(json.dumps(protocol.encode(value), sort_keys=True,
                                     default=repr).encode()).hexdigest()


def _shaped_like(value, expected):
    """`value` with a number where `expected` has an array given as a 0-d array (a sum over every
    axis): the checks compare a mistake's value as they compare the reference's, by its shape
    too, and a number crosses from the child (JSON) as a Python float, which has none. None
    where a part is no number nor array where the reference's is one (a string, an op's name
    returned by a mutant of dp): no mistake a reply can equal, and no check compares it."""
    numeric = (int, float, np.number)
    if isinstance(expected, (np.ndarray, *numeric)) and not isinstance(expected, bool):
        if isinstance(value, bool) or not isinstance(value, (np.ndarray, *numeric)):
            return None
        return np.asarray(value, dtype=float) if isinstance(expected, np.ndarray) and \
            not isinstance(value, np.ndarray) else value
    if isinstance(expected, dict) and isinstance(value, dict):
        parts = {k: _shaped_like(v, expected[k]) if k in expected else v for k, v in value.items()}
        return None if any(p is None for p in parts.values()) else parts
    if isinstance(expected, (list, tuple)) and isinstance(value, (list, tuple)) and \
            len(value) == len(expected):
        parts = [_shaped_like(v, e) for v, e in zip(value, expected)]
        return None if any(p is None and e is not None for p, e in zip(parts, expected)) \
            else type(value)(parts)
    return value


def _equal(a, b) -> bool:
    """Whether two plain results are the same (to 1e-9 relative): a mutant that equals the
    reference on these inputs is no mistake here."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b     # (a string == an array would be an array)
    try:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-9, atol=1e-12, equal_nan=True))


def _library() -> dict:
    """{file: module} of the library the references compute with (dp): its code may be
    mutated too (a student who writes d(a b)/da = a has mutated dp's product)."""
    import dp
    root = dp.__file__.rsplit("/", 1)[0] + "/"
    return {m.__file__: m for m in list(sys.modules.values())
            if getattr(m, "__file__", None) and m.__file__.startswith(root)
            and m.__file__.endswith(".py")}


_until = [None]      # when the current task's time for derived mistakes ends (None: no bound)


def per_task(seconds: float | None = PER_TASK) -> None:
    """Start the time of a task's checks for deriving mistakes: all of its calls of `derived`
    together take at most `seconds` (the judge calls this when a task's first check starts, and
    with None when its checks end: no bound outside a task's checks, and none left over)."""
    _until[0] = None if seconds is None else time.monotonic() + seconds


_kept: dict = {}     # {(module, name, key of the arguments): [[id, why, value]]}, oldest first


def derived(module, name: str, args: tuple, kwargs: dict) -> list:
    """The mutants of reference `name` (`_derived`), and then those of each form the module
    writes it in as its exercise has students write it (`forms`)."""
    return _with_forms(module, name, lambda form: _derived(module, form, args, kwargs))


def _is_form(module, name: str) -> bool:
    """Whether `name` is a form of a reference of `module` (`forms`), not a reference."""
    return any(name in names for names in getattr(module, "AS_WRITTEN", {}).values())


def _with_forms(module, name: str, derive) -> list:
    """derive(name), and derive(form) of each form of `name` as its exercise writes it: one slip
    may give one value in both, and is then one slip, not two lines that give the reply. Of a
    value, the reference's mutants are kept where one says what changed (not opaque), else the
    forms' (dp's division drops a part only its kind describes, 01's drops a square); but one
    that says where it is only in the forms (wording.placed: which line, which derivative)
    defers to them: the student writes the forms (dp's sigmoid, e^min(a, 0) / (1 + e^-|a|), with
    its operands swapped is "a quotient where the right computation has a quotient"; 01's
    1 / (1 + e^-a) is "in the line that computes `value`", the reciprocal dropped or the
    operations grouped the other way). Of the forms', one explanation of a value once (dp's
    log and 01's both lose the reciprocal)."""
    found = derive(name)
    if len(forms(module, name)) == 1:
        return found
    written = []
    for mutant in (m for form in forms(module, name)[1:] for m in derive(form)):
        if not any(mutant[1] == why and _equal(mutant[2], value) for _, why, value in written):
            written.append(mutant)
    placed = [m for m in written if not _opaque(m) and _placed(m)]
    found = [m for m in found if not any(_equal(m[2], value) for _, _, value in (
        written if _opaque(m) else [] if _placed(m) else placed))]
    told = [m for m in found if not _opaque(m)]
    return found + [m for m in written if not any(_equal(m[2], value) for _, _, value in told)]


def _placed(mutant) -> bool:
    """Whether a mutant [id, why, value] says where its change is (wording.placed)."""
    return wording.placed(mutant[1].removeprefix(DERIVED_WHY))


def _opaque(mutant) -> bool:
    """Whether a mutant [id, why, value] says only the kinds of what it changed (its rank)."""
    return mutant[0].rpartition(RANK)[2].partition(".")[0] == str(wording.OPAQUE)


def forms(module, name: str) -> list:
    """`name`, and the functions that `module`'s AS_WRITTEN ({reference: (its forms)}) gives
    for it: each computes the reference's value with the formulas of the exercise, as a student
    writes them (a local derivative as -a/b^2, not as dp's -g out/b; a loss as a plain
    formula, not guarded), so that a student's slip in a formula is a mutation of a formula."""
    return [name, *getattr(module, "AS_WRITTEN", {}).get(name, ())]


def _derived(module, name: str, args: tuple, kwargs: dict) -> list:
    """`_derive`, once per reference and arguments in this process (the grading of a task and
    its messages, and a class graded with the same inputs, ask again): the last KEPT answers
    are kept, those cut short by the task's time are not."""
    try:
        key = (module.__name__, name, _key([list(args), kwargs]))
    except (TypeError, ValueError, protocol.ProtocolError):
        return _derive(module, name, args, kwargs)[0]
    if key not in _kept:
        found, complete = _derive(module, name, args, kwargs)
        if not complete:
            return found
        while len(_kept) >= KEPT:
            del _kept[next(iter(_kept))]
        _kept[key] = found
    return _kept[key]


def _derive(module, name: str, args: tuple, kwargs: dict) -> tuple:
    """[[id, why, value]] of the mutants of reference `name` of `module` on these arguments whose
    value differs from the reference's (and at most SAME_VALUE of them for one value); see the
    module's doc. (`references` prefixes each id with DERIVED.)

    A mutant may do anything that its rule makes of the code: an outer product of two long
    vectors, a loop a million times longer. So they run in a child process forked from this one,
    with MEMORY bytes more address space than this one has and WALL * (SECONDS + TRACE) + 1
    seconds of wall time to answer, killed past that; what it answers is plain data (protocol),
    read as such. Within the current task's time (`per_task`): none left, none derived.
    Gives (the list, whether it is complete: not cut short by a bound of time)."""
    wall = WALL * (SECONDS + TRACE) + 1
    left = wall if _until[0] is None else min(wall, _until[0] - time.monotonic())
    if left < 0.5:
        return [], False
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return [], False
    if pid == 0:                # the child: never returns
        status = 1
        try:
            os.close(read)
            with open("/proc/self/statm", encoding="ascii") as statm:
                size = int(statm.read().split()[0]) * resource.getpagesize()
            resource.setrlimit(resource.RLIMIT_AS, (size + MEMORY, resource.getrlimit(
                resource.RLIMIT_AS)[1]))
            found, complete = _search(module, name, args, kwargs)
            answer = json.dumps([protocol.encode(found), complete]).encode()
            with os.fdopen(write, "wb") as pipe:
                pipe.write(answer)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    data = _read_until(read, time.monotonic() + left)
    if data is None:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if data is None or status != 0:
        return [], False
    try:
        found, complete = json.loads(data)
        return protocol.decode(found), complete is True
    except (ValueError, TypeError, protocol.ProtocolError):
        return [], False


def _read_until(fd: int, deadline: float):
    """All that can be read from `fd` until its end, or None at `deadline`; closes it."""
    chunks = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def mutants(module, name: str, args: tuple, kwargs: dict) -> list:
    """`derived`, in this process."""
    return _with_forms(module, name, lambda form: _search(module, form, args, kwargs)[0])


def _search(module, name: str, args: tuple, kwargs: dict) -> tuple:
    """(`mutants`, whether the search ended on its own: all sites tried, or LIMIT of them; not
    cut short by SECONDS or the task's time)."""
    # CPU time (this thread's), so that what is derived does not depend on the machine's load;
    # the task's bound (`per_task`) is wall time, and a safety net
    deadline, task_ends = time.thread_time() + SECONDS, _until[0]
    _words[0] = wording.vocabulary(module.__name__.rsplit(".", 1)[-1])
    try:
        statements = _statements(module)
    except (OSError, TypeError):        # a module without source (made in a test): no mutants
        return [], True
    files = {module.__file__: module, **_library()}
    try:
        with np.errstate(all="ignore"):
            expected, lines, numbers, depths = _trace(
                files, getattr(module, name), args, kwargs, time.thread_time() + TRACE)
    except _TooSlow:        # (01's chain of 5,000 nodes): no mutant could run in the time left
        return [], True
    mine = lines.get(module.__file__, set())
    # a form is mutated in its own module only: the library's code it runs, the reference's
    # search mutates already (and the same mutants again would only cost time)
    libraries = [] if _is_form(module, name) else \
        [files[f] for f in sorted(lines) if f != module.__file__]
    ran = [i for i, s in enumerate(statements)
           if isinstance(s, (ast.FunctionDef, ast.Assign)) and _executed(s, mine)]
    # the names a mutant may give a new value: the functions that ran, and what the reference
    # module took from a library that ran (its tables of them are made again: RULES, GRAPH_OPS)
    names = set().union(*(_defines(statements[i]) for i in ran)) | \
        {k for k, v in vars(module).items() for lib in libraries
         if getattr(lib, k, None) is v and callable(v) and not isinstance(v, type(sys))}
    ran += [i for i, s in enumerate(statements) if isinstance(s, ast.Assign) and i not in ran
            and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(s.value))]
    ran.sort()
    reference = _Unit(module, statements, ran, undecorated=True)
    units = [(reference, i, None) for i in ran]
    for library in libraries:
        try:
            unit = _Unit(library, _statements(library), None, undecorated=False)
        except (OSError, TypeError, SyntaxError):
            continue
        executed = lines[library.__file__]
        for i, statement in enumerate(unit.statements):     # a class: each of its methods
            members = [m for m in statement.body if isinstance(m, ast.FunctionDef)] \
                if isinstance(statement, ast.ClassDef) else [None]
            units += [(unit, i, m) for m in members if _executed(m or statement, executed)]

    def depth(unit_index):      # the deepest code first: the formulas are in the leaves of the calls
        unit, i, member = unit_index
        statement, file = member or unit.statements[i], unit.module.__file__
        return -max((d for (f, line), d in depths.items() if f == file
                     and statement.lineno <= line <= statement.end_lineno), default=0)
    found, seen, tried = [], {_key(expected): SAME_VALUE}, 0
    for unit, i, member in sorted(units, key=depth):
        statement = member or unit.statements[i]
        for path, j, why, old, new in _sites(statement, lines[unit.module.__file__], numbers,
                                             own=unit is reference):
            if tried >= LIMIT:
                return found, True
            if time.thread_time() > deadline or \
                    task_ends is not None and time.monotonic() > task_ends - 0.5:
                return found, False
            tried += 1
            value = _run(reference, unit, i, member, _replaced(statement, path, old, new), name,
                         args, kwargs)
            if value is None:
                continue
            value = _shaped_like(value, expected)
            if value is None:
                continue
            try:
                digest = _key(value)
            except (protocol.ProtocolError, TypeError, ValueError):
                continue
            if seen.get(digest, 0) >= SAME_VALUE or _equal(value, expected):
                continue
            seen[digest] = seen.get(digest, 0) + 1
            explanation, rank = _explained(statement, path, old, new, why)
            where = ".".join(f"{field}{'' if index is None else index}" for field, index in path)
            found.append([f"{name}.{unit.module.__name__}.{i}.{where}.{j}"
                          f"{SITE}{unit.module.__name__}:{getattr(old, 'lineno', 0)}{RANK}"
                          f"{rank}.{wording.kind(explanation)}", DERIVED_WHY + explanation,
                          value])
    return found, True


DERIVED_WHY = "the computation with one change, "


def _explained(statement, path, old, new, why) -> tuple:
    """(the explanation of the mutation `old` -> `new` at `path` of `statement`: what it does
    (wording.reworded), where (wording.role), else what was dropped or swapped when the exercise
    has its names (wording.changed_parts), else what replaced what, by their kinds; its
    wording.rank, wording.OPAQUE for a dropped or swapped part that only its kind describes)."""
    if why == wording.PARAMETERS_SWAPPED:       # whose names the exercise does not have
        return why, wording.OPAQUE
    ancestors, node = [], statement
    for field, index in path:
        ancestors.append(node)
        node = getattr(node, field) if index is None else getattr(node, field)[index]
    if isinstance(old, ast.Call) and " given with " in why:
        swapped = wording.swapped_derivatives(statement, old)
        if swapped:
            return swapped, 0
    changed, opaque = wording.reworded(why, old, new), False
    if why.endswith((NEVER_WRITTEN, READ_BEFORE)):       # lines (`_body`): by name, or opaque
        opaque = why.startswith(_LINES_BY_KIND)
    elif why == ACCUMULATION_LOST:      # which accumulation: by its line, or opaque (as a term)
        line = _line(old)
        changed, opaque = (f"in {line}: {why}", False) if line else (why, True)
    elif changed == why and "`" not in why and not why.startswith(_COMPLETE):
        named = [_part(n, statement) for n in wording.changed_parts(why, old, new)]
        if named and all(named):
            changed = f"{why} ({' and '.join(named)})"
        else:
            changed = f"{why}: {_quote(new)} where the right computation has {_quote(old)}"
            opaque = wording.opaque(why)
    explained = wording.role(statement, ancestors, old, new, changed, _words[0])
    if opaque and explained != wording.STALE:
        return explained, wording.OPAQUE
    return explained, wording.rank(changed if explained.endswith(changed) else explained)


def _part(node, statement) -> str | None:
    """A part that a mutation dropped or swapped, in words a student can follow: its name where
    the exercise has it (`_quote`), else, for a name that `statement` assigns once, what computes
    it ("the value of a call of sqrt()"), a number by its value where the exercise writes it
    (the 2 of a mean of two ends); None where only the part's kind would say it."""
    quoted = _quote(node)
    if quoted.startswith("`"):
        return quoted
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
            not isinstance(node.value, bool):
        return f"`{node.value!r}`" if wording.quotable(repr(node.value), _words[0]) else None
    if isinstance(node, ast.Name):
        values = [a.value for a in ast.walk(statement) if isinstance(a, ast.Assign) and
                  [ast.dump(t) for t in a.targets] == [ast.dump(ast.Name(node.id, ast.Store()))]]
        if len(values) == 1 and isinstance(values[0], ast.Call) and _call_name(values[0]):
            return f"the value of {_quote(values[0])}"
    return None


class _Unit:
    """A module whose statements (`ran`: the indices of those to execute again, None: all) are
    compiled once; a mutant replaces one of them."""

    def __init__(self, module, statements, ran, undecorated: bool):
        self.module, self.statements, self.undecorated = module, statements, undecorated
        self.ran = list(range(len(statements))) if ran is None else ran
        self.compiled = {i: self.compile(statements[i]) for i in self.ran}
        self.names = {id(v): k for k, v in vars(module).items()}

    def compile(self, statement):
        if self.undecorated:
            statement = _undecorated(statement)
        return compile(ast.Module(body=[statement], type_ignores=[]), self.module.__file__,
                       "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)

    def execute(self, scope: dict, i=None, code=None) -> dict:
        for m in self.ran:
            exec(code if m == i else self.compiled[m], scope)
        return scope


def _run(reference, unit, i, member, mutated, name, args, kwargs):
    """name(*args, **kwargs) with statement i of `unit` (or its method `member`, when it is a
    class) replaced by `mutated`: in a copy of the reference module's globals where its
    statements that ran are executed again. A mutated function or method of a library module
    takes the original's place, for this call, wherever the library and the reference hold it
    (`_swapped`): the module, its package (`dp.conv2d`), the library modules that imported it and
    the class, so that the library's other code, however the reference reaches it, calls the
    mutant. A library's other statement (a table of ops) is executed again with the module whole
    into a fresh namespace, and what the reference module took from it is taken from there.
    None when the mutant fails or does not compile."""
    try:
        code = unit.compile(mutated)
    except (SyntaxError, ValueError, TypeError):
        return None
    scope = dict(vars(reference.module))
    try:
        with np.errstate(all="ignore"):
            if unit is reference:
                reference.execute(scope, i, code)
            elif member is not None or isinstance(unit.statements[i], ast.FunctionDef):
                with _swapped(unit, i, member, code, scope):
                    reference.execute(scope)
                    return scope[name](*copy.deepcopy(args), **copy.deepcopy(kwargs))
            else:
                library = unit.module
                fresh = {"__name__": library.__name__, "__file__": library.__file__,
                         "__package__": library.__package__, "__builtins__": __builtins__}
                unit.execute(fresh, i, code)
                for key, value in list(scope.items()):
                    if id(value) in unit.names and unit.names[id(value)] in fresh and \
                            callable(value) and not isinstance(value, type(sys)):
                        scope[key] = fresh[unit.names[id(value)]]
                reference.execute(scope)
            return scope[name](*copy.deepcopy(args), **copy.deepcopy(kwargs))
    except Exception:           # a mutant may fail in any way: it is then no candidate
        return None


@contextlib.contextmanager
def _swapped(unit, i, member, code, scope: dict):
    """Inside, the function (statement i of library `unit`) or the method `member` of its class
    is the one `code` defines: set on the class, or in place of the original in every module of
    the library and in `scope` (the reference's globals); all put back on leaving."""
    library, statement = unit.module, unit.statements[i]
    defined = dict(vars(library))
    exec(code, defined)
    if member is not None:
        owner = getattr(library, statement.name)
        places = [(owner, member.name, defined[member.name])]
    else:
        old, new = getattr(library, statement.name), defined[statement.name]
        modules = {id(m): m for m in [*_library().values(), library]}
        places = [(module, key, new) for module in modules.values()
                  for key, value in list(vars(module).items()) if value is old]
        package = sys.modules.get(library.__package__ or "")
        if package is not None:
            places += [(package, key, new) for key, value in list(vars(package).items())
                       if value is old]
        scope.update({key: new for key, value in scope.items() if value is old})
    saved = [(owner, key, vars(owner).get(key, _ABSENT)) for owner, key, _ in places]
    try:
        for owner, key, value in places:
            setattr(owner, key, value)
        yield
    finally:
        for owner, key, value in reversed(saved):
            if value is _ABSENT:
                delattr(owner, key)
            else:
                setattr(owner, key, value)


_ABSENT = object()
