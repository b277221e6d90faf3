"""The probe modules of 01, 03, 09 and 10, and the checks modules shipped in the student bundle,
hold no answers (issue 15).

A probe module runs next to the student's code: the sandbox ships it to the submission and the
student bundle ships it too, so whatever it holds is in the students' hands. Before issue 15, 01's
held a complete chain-rule pass over the student's nodes (the answer to `scalar_backprop`) and 03's
the leaf-gradient loop (the answer to `named_leaves`). Now the probes only call the student's code
and collect data; the chain rule runs in the grader (the checks). These tests guard that:

- the call scan: for every function of the probe module (and every method of its classes), a stub
  whose answer functions are filled with calls into it (each body whose signature the function
  accepts, with the student's arguments, with or without the notebook's namespace first, as a
  probe is called) earns 0 on every task. A module that held an answer in a callable form would
  earn points here; a planted reference (the old 03 leaf-gradient loop as a function) shows that
  the scan catches one;
- the same call scan over each checks module whose references moved to autograder/references
  (the bundle ships the checks; at the end of this file);
- the AST scan: no function of these probe modules both iterates over the nodes' parents and
  accumulates gradients (a topological order with a backprop loop, as the old probes had);
  the same scan finds the loops of the solutions' own `backward` and `grad`.
"""
from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from autograder.course.config import PACKAGE
from tests.grading import (COURSE, SOLUTION_BLOCK, explain, full_marks, grade_source, points,
                           solution_source)

ASSIGNMENTS = ["01_scalar_autodiff", "03_dp_library",
               "09_mnist", "10_optimisation_beyond_ml"]    # 10's held the catenary's loss before


def probes_of(assignment_id):
    return importlib.import_module(COURSE.assignment(assignment_id).probes_module)


# -- the call scan -----------------------------------------------------------------------------------
def answer_blocks(source: str) -> list:
    """(match, positional parameter names of the function it is the body of, or None) for every
    solution block of `source`."""
    tree = ast.parse(source)
    blocks = []
    for match in SOLUTION_BLOCK.finditer(source):
        line = source[:match.start()].count("\n") + 1
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.lineno < line <= n.end_lineno]
        inner = max(functions, key=lambda n: n.lineno, default=None)
        blocks.append((match, None if inner is None else [a.arg for a in inner.args.args]))
    return blocks


def callables(module) -> dict:
    """{qualified name: function} of the functions defined in `module` and the methods of its
    classes."""
    found = {}
    for name, value in vars(module).items():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            found[name] = value
        elif inspect.isclass(value) and value.__module__ == module.__name__:
            for method, function in vars(value).items():
                if inspect.isfunction(function):
                    found[f"{name}.{method}"] = function
    return found


def accepts(function, count: int) -> bool:
    try:
        inspect.signature(function).bind(*range(count))
    except TypeError:
        return False
    return True


def leak_stub(source: str, blocks, getter: str, function, with_namespace: bool):
    """`source` with each answer block whose parameters `function` accepts (after the notebook's
    namespace, if `with_namespace`) replaced by `return` a call of it, every other block by
    `raise NotImplementedError()`; `getter` is the code of a cell that binds the function to
    `_target`. None when no block accepts it."""
    extra = 1 if with_namespace else 0
    parts, end, used = [], 0, False
    for match, params in blocks:
        indent = match[1]
        if params is not None and accepts(function, len(params) + extra):
            body = f"{indent}return _leak({', '.join(params)})"
            used = True
        else:
            body = f"{indent}raise NotImplementedError()"
        parts += [source[end:match.start()], body]
        end = match.end()
    if not used:
        return None
    first = source.index("# %%")
    call = "_target(globals(), *args)" if with_namespace else "_target(*args)"
    cell = f"# %%\n{getter}\n\n\ndef _leak(*args):\n    return {call}\n\n\n"
    stubbed = "".join(parts) + source[end:]
    return stubbed[:first] + cell + stubbed[first:]


def scan_cases():
    cases = []
    for assignment_id in ASSIGNMENTS:
        source = solution_source(assignment_id)
        blocks = answer_blocks(source)
        module = probes_of(assignment_id)
        for qualname, function in callables(module).items():
            getter = (f"import importlib\n_target = importlib.import_module({module.__name__!r})"
                      + "".join(f".{part}" for part in qualname.split(".")))
            # a probe's first parameter is the namespace: a stub passes it globals()
            with_namespace = next(iter(inspect.signature(function).parameters), "") == "ns"
            stub = leak_stub(source, blocks, getter, function, with_namespace)
            if stub is not None:
                form = "globals(), *args" if with_namespace else "*args"
                cases.append(pytest.param(assignment_id, stub,
                                          id=f"{assignment_id[:2]}-{qualname}({form})"))
    return cases


@pytest.mark.parametrize("assignment_id, stub", scan_cases())
def test_a_stub_calling_the_probe_module_earns_nothing(assignment_id, stub, tmp_path):
    result = grade_source(stub, assignment_id, tmp_path)
    assert points(result) == dict.fromkeys(full_marks(assignment_id), 0.0), explain(result)


# a reference planted where a stub can call it: the leaf-gradient loop that 03's probe module held
# before issue 15, as a function (`grad(self, g)` of the notebook, given topological_order)
PLANTED = """\
import numpy as np


def _target(ns, self, g=1.0):
    arrived, named = {id(self): np.ones(self.value.shape) * g}, {}
    for node in ns["topological_order"](self):
        total = arrived.pop(id(node))
        if node.name is not None and not node.parents:
            named[node.name] = total
        for parent, grad_fn in node.parents:
            arrived[id(parent)] = arrived.get(id(parent), 0) + grad_fn(total)
    return named"""


def test_the_call_scan_catches_a_planted_reference(tmp_path):
    """The scan's stub, calling the planted loop instead of a probe module's function, earns the
    points of named_leaves: a probe module that held it would fail the scan."""
    assignment_id = "03_dp_library"
    source = solution_source(assignment_id)
    namespace = {}
    exec(PLANTED, namespace)
    stub = leak_stub(source, answer_blocks(source), PLANTED, namespace["_target"], True)
    result = grade_source(stub, assignment_id, tmp_path)
    assert points(result)["named_leaves"] == full_marks(assignment_id)["named_leaves"], explain(result)


# -- the AST scan ----------------------------------------------------------------------------------
def reads_parents(node) -> bool:
    """`node` (a loop) iterates over something's `.parents`."""
    return any(isinstance(n, ast.Attribute) and n.attr == "parents" for n in ast.walk(node.iter))


def accumulates(node) -> bool:
    """`node` (a loop) adds to a gradient: `x += ...` or `x = x.get(...) + ...` / `x = x + ...`
    where x is a subscript or an attribute (grads[...], node.grad)."""
    for n in ast.walk(node):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add):
            return True
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.BinOp) and \
                isinstance(n.value.op, ast.Add) and \
                any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in n.targets):
            return True
    return False


def backprop_loops(tree) -> list:
    """Names of the functions of `tree` with a loop over `.parents` that accumulates gradients."""
    found = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            loops = [n for n in ast.walk(function) if isinstance(n, (ast.For, ast.comprehension))]
            if any(reads_parents(loop) and accumulates(loop) for loop in loops
                   if isinstance(loop, ast.For)):
                found.append(getattr(function, "name", "<lambda>"))
    return found


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_the_probe_module_holds_no_backprop_loop(assignment_id):
    path = PACKAGE / "probes" / f"{COURSE.assignment(assignment_id).notebook}.py"
    assert backprop_loops(ast.parse(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("assignment_id, function", [("01_scalar_autodiff", "backward"),
                                                    ("03_dp_library", "grad")])
def test_the_ast_scan_finds_the_solutions_own_loop(assignment_id, function):
    """The scan is not blind: it finds the backprop loop of the solution's own answer, and the one
    that 01's probe module held before issue 15 (kept here as text)."""
    assert function in backprop_loops(ast.parse(solution_source(assignment_id)))
    assert "_gradients" in backprop_loops(ast.parse(OLD_01_PROBE))


OLD_01_PROBE = """\
def _gradients(out) -> dict:
    children, seen, stack = {}, {id(out)}, [out]
    while stack:
        for parent, _ in stack.pop().parents:
            children[id(parent)] = children.get(id(parent), 0) + 1
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    grads, ready = {id(out): 1.0}, [out]
    while ready:
        node = ready.pop()
        for parent, local in node.parents:
            grads[id(parent)] = grads.get(id(parent), 0.0) + float(local) * grads[id(node)]
            children[id(parent)] -= 1
            if children[id(parent)] == 0:
                ready.append(parent)
    return grads
"""


# -- the shipped checks modules ---------------------------------------------------------------------
# The student bundle ships the checks too (the self-check runs them), not the references
# (autograder/references/<notebook>.py), which replaces the public cases recorded at release. A
# student with the bundle can import a checks module: for every function of it (tests, helpers,
# methods), a stub whose answer blocks call it with a compatible signature must earn 0 on every
# task. The bundle's checks are importable only where the self-check runs, next to the notebook,
# so the stub runs in this process and is graded there (its checks with a hidden seed).
from autograder.grading import public_cases  # noqa: E402
from autograder.grading.judge import run_checks  # noqa: E402
from autograder.grading.selfcheck import LocalSubmission  # noqa: E402

HIDDEN_SEED = 20261005      # any seed but the public one


def checks_module_name(assignment) -> str:
    return f"autograder.checks.{assignment.notebook}"


def checks_module(assignment):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        return importlib.import_module(checks_module_name(assignment))


def checks_scan_cases():
    cases = []
    for assignment in COURSE.assignments:
        if not public_cases.has_references(assignment):
            cases.append(pytest.param(assignment.id, None, "", marks=pytest.mark.skip(
                reason=f"the checks of {assignment.id} have no references module yet: they still "
                       f"hold their references"), id=f"{assignment.id[:2]}-not-converted"))
            continue
        source = solution_source(assignment.id)
        blocks = answer_blocks(source)
        for qualname, function in callables(checks_module(assignment)).items():
            getter = (f"import importlib\n_target = importlib.import_module("
                      f"{checks_module_name(assignment)!r})"
                      + "".join(f".{part}" for part in qualname.split(".")))
            stub = leak_stub(source, blocks, getter, function, False)
            if stub is not None:
                cases.append(pytest.param(assignment.id, stub, qualname,
                                          id=f"{assignment.id[:2]}-{qualname}"))
    return cases


def graded_in_process(source: str, assignment_id: str) -> dict:
    """{task: points} of the notebook `source`, run in this process and its checks run with a
    hidden seed, as grading runs them."""
    assignment = COURSE.assignment(assignment_id)
    namespace = public_cases.notebook_namespace(source, "a stub", stop_at_errors=False)
    results = run_checks(LocalSubmission(namespace, assignment), assignment, seed=HIDDEN_SEED)
    return {r["id"]: r["points"] for r in results}


@pytest.mark.parametrize("assignment_id, stub, function", checks_scan_cases())
def test_a_stub_calling_the_shipped_checks_module_earns_nothing(assignment_id, stub, function):
    assert graded_in_process(stub, assignment_id) == dict.fromkeys(full_marks(assignment_id), 0.0)


def test_the_checks_scan_catches_a_planted_reference(monkeypatch):
    """The chain rule that 01's probe module held before issue 15 (OLD_01_PROBE), planted into
    the shipped checks module as `backward(self)` would call it: the scan's stub earns the points
    of scalar_backprop, so a checks module that held it would fail the scan."""
    assignment_id = "01_scalar_autodiff"
    assignment = COURSE.assignment(assignment_id)
    namespace = {}
    exec(OLD_01_PROBE + PLANTED_BACKWARD, namespace)
    monkeypatch.setattr(checks_module(assignment), "set_grads", namespace["set_grads"],
                        raising=False)
    source = solution_source(assignment_id)
    getter = (f"import importlib\n_target = importlib.import_module("
              f"{checks_module_name(assignment)!r}).set_grads")
    stub = leak_stub(source, answer_blocks(source), getter, namespace["set_grads"], False)
    earned = graded_in_process(stub, assignment_id)
    assert earned["scalar_backprop"] == full_marks(assignment_id)["scalar_backprop"], earned


PLANTED_BACKWARD = """

def set_grads(self):
    grads = _gradients(self)
    seen, stack = {id(self)}, [self]
    while stack:
        node = stack.pop()
        node.grad = grads.get(id(node), 0.0)
        for parent, _ in node.parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
"""
