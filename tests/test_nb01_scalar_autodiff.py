"""Notebook 01, scalar autodiff: the solution earns full marks, the exercise earns nothing, and
the notebook's own check cells pass on the solution and fail, readably, on the exercise."""
from __future__ import annotations

import contextlib
import time

import numpy as np
import pytest

from autograder.grading import public_cases
from autograder import references
from autograder.references import scalar_autodiff as ref
from autograder.sandbox.errors import ProbeError
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from tests.mutants.scalar_autodiff import ORDER_AND_SEED
from tests.grading import (COURSE, assert_full_marks, explain, forbidden_imports_of_probes,
                           full_marks, grade_notebook, grade_source, load_checks, mutate,
                           notebook_fixture, notebook_tests, notebooks_fixture, points,
                           solution_source)

ASSIGNMENT = "01_scalar_autodiff"

# {"solution": path, "exercise": path}: the exercise is the built one under exercises/ when it
# exists, else derived from the solution the way nbgrader derives it
notebooks = notebooks_fixture(ASSIGNMENT)
notebook = notebook_fixture(ASSIGNMENT)
FULL = full_marks(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    # far below the checks' tolerance of 1e-6: rounding only (and eps^2 for numerical_gradient)
    assert all(t["metrics"]["max_rel_error"] < 1e-7 for t in result["tasks"]), explain(result)
    # the questions: graded by hand, in neither score nor maximum
    assert [(q["id"], q["points"], q["status"]) for q in result["questions"]] == [
        (q.id, None, "manual") for q in COURSE.assignment(ASSIGNMENT).questions]
    assert result["max_score"] == sum(FULL.values())


# the check cells run in the exercise's folder (or a temporary one), as the student's kernel would
(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(
    ASSIGNMENT, says="NotImplementedError", chdir=True)


def test_probes_do_not_import_dp():
    """The probes run next to the student's code, where dp is a forbidden import."""
    assert not forbidden_imports_of_probes(ASSIGNMENT)


# -- a backward() that follows every path instead of visiting each node once ---------------------
# Red team round 2: it gave the right gradients on every graph that the checks drew (fewer than
# 10,000 paths each) and earned 10/10. On v = x + x, doubled 60 times (61 nodes, 2^60 paths from
# the output to x), it would never end; the graph probe stops it after a bounded number of
# gradient updates (or reads of node.parents), quickly, so that the later tasks keep their time.
SOLUTION_BACKWARD = ORDER_AND_SEED + """
        for parent, local in node.parents:
            parent.grad += local * node.grad
"""
EVERY_PATH = """\
    self.grad = 1.0
    stack = [(self, 1.0)]
    while stack:
        node, g = stack.pop()
        for parent, local in node.parents:
            parent.grad += local * g
            stack.append((parent, local * g))
"""
# the solution's search for the order, without its visited set: the search itself follows every
# path (and never writes a gradient while it does)
NO_VISITED_SET = SOLUTION_BACKWARD.replace("elif id(node) not in visited:", "elif True:")
EVERY_PATH_SAYS = ("times on a graph of 61 nodes: it follows every path to a node (2^60 here) "
                   "instead of visiting each node once, in topological order")


def method(body: str):
    """A backward() whose body is `body` (indented as in the solution), as a function of self."""
    namespace = {}
    exec("def backward(self):\n" + body, namespace)
    return namespace["backward"]


def backward_source(body: str) -> str:
    return mutate(solution_source(ASSIGNMENT), SOLUTION_BACKWARD, body)


def scalar_backprop(results) -> dict:
    [result] = [r for r in results if r["id"] == "scalar_backprop"]
    return result


def test_a_backward_that_follows_every_path_loses_scalar_backprop_quickly(tmp_path):
    start = time.perf_counter()
    result = grade_source(backward_source(EVERY_PATH), ASSIGNMENT, tmp_path)
    assert time.perf_counter() - start < 60, explain(result)
    assert points(result) == {**FULL, "scalar_backprop": 0}, explain(result)
    task = scalar_backprop(result["tasks"])
    assert "backward() updated gradients more than" in task["message"], task["message"]
    assert EVERY_PATH_SAYS in task["message"], task["message"]


@pytest.mark.parametrize("body, says", [(EVERY_PATH, "updated gradients more than"),
                                        (NO_VISITED_SET, "read node.parents more than")],
                         ids=["every_path", "no_visited_set"])
@pytest.mark.parametrize("replayed", [False, True], ids=["references", "public_cases"])
def test_the_self_check_says_so_too(body, says, replayed):
    assignment = COURSE.assignment(ASSIGNMENT)
    namespace = public_cases.notebook_namespace(backward_source(body), "every path",
                                                stop_at_errors=False)
    cases = public_cases.record(assignment, COURSE.public_seed) if replayed else None
    start = time.perf_counter()
    with references.replay({assignment.notebook: cases}) if replayed else contextlib.nullcontext():
        results = run_checks(LocalSubmission(namespace, assignment), assignment,
                             seed=COURSE.public_seed, public=True)
    assert time.perf_counter() - start < 30
    assert {r["id"]: r["points"] for r in results} == {**FULL, "scalar_backprop": 0}, results
    checks = {c["name"]: c for c in scalar_backprop(results)["checks"]}
    [paths] = [c for name, c in checks.items() if "each_node_once" in name]
    assert paths["status"] == "failed", paths
    assert f"backward() {says}" in paths["message"] and EVERY_PATH_SAYS in paths["message"], paths


@pytest.mark.parametrize("seed", range(12))
def test_the_solution_keeps_full_marks_on_hidden_seeds(seed, notebook):
    assignment = COURSE.assignment(ASSIGNMENT)
    results = run_checks(LocalSubmission(notebook, assignment), assignment, seed=3000 + seed,
                         public=False)
    assert {r["id"]: r["points"] for r in results} == FULL, [
        (r["id"], r["message"]) for r in results if r["status"] != "passed"]


def test_on_x_doubled_60_times_the_gradient_is_2_to_the_60_exactly(notebook):
    checks = load_checks(ASSIGNMENT)
    program, inputs = checks.DOUBLINGS, [1.5]
    assert ref.program_gradients(program, inputs) == [2.0 ** 60]
    assignment = COURSE.assignment(ASSIGNMENT)
    received = LocalSubmission(notebook, assignment).probe(
        "graph", inputs=inputs, nodes=ref.graph_nodes(program, inputs), bounded=True)
    assert (received["grad"], received["input_grads"]) == (1.0, [2.0 ** 60])
    assert received["node_grads"].tolist() == [2.0 ** (60 - k) for k in range(61)]


class Slotted:
    """A correct Scalar with __slots__ (no instance __dict__) and its own __setattr__."""
    __slots__ = ("value", "parents", "grad")

    def __init__(self, value, parents=()):
        self.value, self.parents, self.grad = float(value), tuple(parents), 0.0

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)

    backward = method(SOLUTION_BACKWARD)


def test_the_bound_works_on_a_class_with_slots_and_leaves_it_as_it_was():
    assignment = COURSE.assignment(ASSIGNMENT)
    checks = load_checks(ASSIGNMENT)
    own = Slotted.__dict__["__setattr__"]
    program, inputs = checks.DOUBLINGS, [0.75]
    probe = LocalSubmission({"Scalar": Slotted}, assignment).probe
    received = probe("graph", inputs=inputs, nodes=ref.graph_nodes(program, inputs),
                     bounded=True)
    assert (received["grad"], received["input_grads"]) == (1.0, [2.0 ** 60])
    assert Slotted.__dict__["__setattr__"] is own and "__getattribute__" not in Slotted.__dict__

    class EveryPath(Slotted):
        __slots__ = ()
        backward = method(EVERY_PATH)

    with pytest.raises(ProbeError, match="gradient updates on a graph of 61 nodes and 120 edges"):
        probe_of = LocalSubmission({"Scalar": EveryPath}, assignment).probe
        probe_of("graph", inputs=inputs, nodes=ref.graph_nodes(program, inputs), bounded=True)
    assert "__setattr__" not in EveryPath.__dict__ and "__getattribute__" not in EveryPath.__dict__
    assert Slotted.__dict__["__setattr__"] is own


# -- the grader's chain rule on the graphs the probes collect (autograder/checks) -----------------
def path_sums(parents, v) -> float:
    """d out/d v by definition: the sum, over every path from node 0 (out) to v, of the product
    of the local derivatives on its edges (parents[k]: the edges k -> parent; exponential)."""
    if v == 0:
        return 1.0
    return sum(local * path_sums(parents, k) for k, node in enumerate(parents)
               for parent, local in node if parent == v)


def test_the_chain_rule_check_is_the_sum_over_paths_on_random_graphs():
    operand_gradients = load_checks(ASSIGNMENT).operand_gradients
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 9))       # node k's parents are later nodes: no cycle
        parents = [[[int(p), float(rng.normal())] for p in rng.integers(k + 1, n, rng.integers(1, 5))]
                   if k < n - 1 else [] for k in range(n)]
        referred = {0} | {p for node in parents for p, _ in node}
        operands = [n - 1, *(i for i in range(n) if i not in referred)]
        got = operand_gradients(parents, operands, "a random graph")
        for i, g in zip(operands, got):
            assert g == pytest.approx(path_sums(parents, i), rel=1e-12, abs=1e-12), (parents, i)


def test_the_chain_rule_check_refuses_a_cycle_and_reads_a_long_chain_in_linear_time():
    operand_gradients = load_checks(ASSIGNMENT).operand_gradients
    with pytest.raises(AssertionError, match="the probe's graph has a cycle"):
        operand_gradients([[[1, 1.0]], [[2, 1.0]], [[1, 1.0]]], [2], "a cycle")
    # the red team's reply: 10,000 nodes, 15 duplicate edges per link (28.9 s of CPU before);
    # with local derivatives 1/15, d out/d x = (15 * 1/15)^9999 = 1
    chain = [[[k + 1, 1 / 15]] * 15 for k in range(9_999)] + [[]]
    start = time.process_time()
    got = operand_gradients(chain, [9_999, None], "a chain")
    assert time.process_time() - start < 1.0
    assert got[0] == pytest.approx(1.0, rel=1e-9) and got[1] is None


PROGRAM, INPUTS = [["mul", 0, 1], ["exp", 2], ["add", 3, 1]], [0.5, -1.0]


def test_the_grads_of_every_register_are_dps_at_the_inputs():
    grads = ref.node_gradients(PROGRAM, INPUTS)
    assert grads[:2] == pytest.approx(ref.program_gradients(PROGRAM, INPUTS), rel=1e-12)
    assert grads[2:] == pytest.approx([np.exp(-0.5), 1.0, 1.0], rel=1e-12)    # v2, v3, out


def test_a_wrong_grad_is_located_at_the_first_register_that_differs_going_back():
    """The local derivatives of v2 = x0 * x1 without the upstream grad: x0 and x1 are wrong,
    v2 and after are right; going back from the output, x1 comes first."""
    from autograder.checks.scalar_autodiff import graph_located
    from autograder.grading.checking import LOCATED
    right = ref.node_gradients(PROGRAM, INPUTS)
    received = [-1.0, 1.0 + 0.5, *right[2:]]     # d v2/dx0 = x1, d v2/dx1 = x0, plus out's 1
    assert graph_located(received, right, PROGRAM, INPUTS) == (
        f"{LOCATED}, going back from the output, is the grad of x1 = -1: expected "
        f"{right[1]:.8g}, received 1.5; it comes from v2 = x0 * x1 and out = v3 + x1, whose "
        f"grads are right")
    assert graph_located(right, right, PROGRAM, INPUTS) == ""
    assert graph_located(None, right, PROGRAM, INPUTS) == ""
    assert graph_located(right[:2], right, PROGRAM, INPUTS) == ""
    assert graph_located(received, None, PROGRAM, INPUTS) == ""


def test_a_difference_over_another_distance_than_its_points_is_named_with_them():
    """Derived from where the code evaluated f: (f(x + 2 eps) - f(x - 2 eps)) / (2 eps)."""
    checks = load_checks("01_scalar_autodiff")
    x, eps = 0.7, 1e-6
    estimate = (np.exp(x + 2 * eps) - np.exp(x - 2 * eps)) / (2 * eps)
    said = checks.over_another_distance("exp", x, None, [2.0, -2.0], estimate)
    assert said == checks.OTHER_DISTANCE + (": (f(x + 2 * eps) - f(x - 2 * eps)) / (2 * eps), "
                                            "where the points are 4 * eps apart")
    # the right divisor for its points, and an estimate that is no such quotient: nothing named
    right = (np.exp(x + 2 * eps) - np.exp(x - 2 * eps)) / (4 * eps)
    assert checks.over_another_distance("exp", x, None, [2.0, -2.0], right) == ""
    assert checks.over_another_distance("exp", x, None, [2.0, -2.0], 1.2345) == ""
    assert checks.over_another_distance("exp", x, None, [1.0, 0.0, -1.0], estimate) == ""
