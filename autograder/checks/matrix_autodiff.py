"""Checks of 02 matrix autodiff: the student's Tensor operations against dp, on hidden shapes.

The in-notebook self-check (`public`) uses small fixed dimensions (3, 4, 2). Grading draws
every dimension from `rng` in 5..9, so the graded shapes are never the ones the notebook was
tried on, and they differ from student to student. Every input matrix and the upstream
gradient are drawn here too. Backprop starts from a random upstream gradient G (the loss is
sum(G * out)), never from all ones, which would let a sum whose backward returns ones pass.
The expected values come from dp on the same expression. Each check uses only the operations
of its own task (see autograder/probes/matrix_autodiff.py).

Each task has one case on large matrices too (LARGE_MATRICES, hundreds of rows), where a backward pass of
reverse mode takes milliseconds and one by numerical differentiation, two forward passes per
entry of each operand, runs far past the probe's time budget (probe_time_limit of course.toml):
benchmarks/probe_budget.py measures both. The self-check runs it on its small dimensions, so it
stays fast in the notebook.
"""
from __future__ import annotations

import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import located, misconception, pairs, probe, shape_located
from dp import relative_error

ref = references.of(__name__)
TOL = 1e-6     # float64 formulas agree with dp to ~1e-13; a wrong gradient misses by far more
FLOOR = 1e-6   # |received - expected| / max(|received| + |expected|, FLOOR), elementwise
PUBLIC_DIMS = (3, 4, 2)
HIDDEN_DIMS = (5, 10)        # grading: each dimension drawn from 5..9
NAMES = "abc"
SUM_HINT = (" -- a sum over an axis keeps that axis with length 1: an (m, n) matrix summed "
            "over axis 0 is (1, n), over axis 1 (m, 1), and the sum of all entries is (1, 1)")
OVERFLOW_HINT = (" -- NaN or inf: e^z overflows (or every e^z rounds to 0) for logits near "
                 "+-1000; subtract each row's maximum before exp")

# op -> (number of matrix operands, how to print it)
OPS = {
    "dot": (2, lambda a, b: f"{a}.dot({b})"),
    "T": (1, lambda a: f"{a}.T"),
    "transpose": (1, lambda a: f"{a}.transpose()"),
    "add": (2, lambda a, b: f"{a} + {b}"),
    "mul": (2, lambda a, b: f"{a} * {b}"),
    "plus_number": (1, lambda a, c: f"{a} + {c:.4g}"),
    "number_plus": (1, lambda a, c: f"{c:.4g} + {a}"),
    "times_number": (1, lambda a, c: f"{a} * {c:.4g}"),
    "number_times": (1, lambda a, c: f"{c:.4g} * {a}"),
    "sum": (1, lambda a, axis=None: f"{a}.sum()" if axis is None else f"{a}.sum(axis={axis})"),
    "softmax": (1, lambda a: f"{a}.softmax()"),
    "log": (1, lambda a: f"{a}.log()"),
}

INFIX = {"add", "mul", "plus_number", "number_plus", "times_number", "number_times"}


def dims(rng, public) -> tuple:
    """(m, n, p): the self-check's fixed small dimensions, or hidden ones drawn from rng."""
    if public:
        return PUBLIC_DIMS
    return tuple(int(d) for d in rng.integers(*HIDDEN_DIMS, size=3))


def fmt(x) -> str:
    return f"{x:.8g}"


def show(matrix) -> str:
    return np.array2string(np.asarray(matrix), precision=5, separator=", ",
                           max_line_width=120).replace("\n", "")


@pytest.fixture
def expect(metrics):
    """expect(received, expected, what): same shape, elementwise relative error <= TOL; the
    message ends with `named()` (the known mistakes `received` equals) when it is not."""

    def expect(received, expected, what, shape_hint="", nan_hint="", named=str):
        expected = np.asarray(expected, dtype=float)
        assert received is not None, f"{what}: no gradient arrived (grad is None)"
        received = np.asarray(received, dtype=float)
        assert received.shape == expected.shape, (
            f"{what}: expected a matrix of shape {expected.shape}, received shape "
            f"{received.shape}{named() or shape_hint + shape_located(received.shape, expected.shape)}")
        errors = relative_errors(received, expected)
        error = float(errors.max(initial=0.0))
        metrics["max_rel_error"] = max(metrics.get("max_rel_error", 0.0), min(error, 1.0))
        if error > TOL:
            at = np.unravel_index(int(np.argmax(errors)), errors.shape)
            at_text = f"[{', '.join(map(str, at))}]"
            whole = (f"; expected {show(expected)}, received {show(received)}"
                     if expected.size <= 12 else "")
            raise AssertionError(
                f"{what}: at {at_text} expected {fmt(expected[at])}, received {fmt(received[at])}"
                f"{whole}{'' if np.all(np.isfinite(received)) else nan_hint}"
                f"{named() or located(received, expected, same)}")

    return expect


def relative_errors(received, expected) -> np.ndarray:
    """The elementwise relative errors (with FLOOR), inf where one is not finite."""
    errors = relative_error(received, expected, FLOOR)
    return np.where(np.isfinite(errors), errors, np.inf)


def same(received, value) -> bool:
    """To name a known mistake: the reply is its value, as `expect` compares them."""
    return np.shape(received) == np.shape(value) and \
        float(relative_errors(received, value).max(initial=0.0)) <= TOL


def describe(program, inputs) -> str:
    """'a.dot(b) with a of shape (5, 7) and b of shape (7, 6)'."""
    texts, binary = list(NAMES[:len(inputs)]), set()   # binary: registers printed as "a + b"
    for op, *args in program:
        arity, show_op = OPS[op]
        operands = [f"({texts[i]})" if i in binary else texts[i] for i in args[:arity]]
        texts.append(show_op(*operands, *args[arity:]))
        if op in INFIX:
            binary.add(len(texts) - 1)
    shapes = " and ".join(f"{NAMES[i]} of shape {np.shape(x)}" for i, x in enumerate(inputs))
    return f"{texts[-1]} with {shapes}"


def check_program(submission, rng, expect, inputs, program, shape_hint="", nan_hint=""):
    """Run `program` on the student's Tensors; compare its value and the gradients of L =
    sum(G * out), for a random upstream gradient G, with the references'."""
    inputs = [np.asarray(x, dtype=float) for x in inputs]
    value = ref.value(inputs, program)
    upstream = rng.normal(size=value.shape)
    grads = ref.gradients(inputs, program, upstream)
    mistakes = ref.misconceptions.gradients(inputs, program, upstream)
    what = describe(program, inputs)
    received = probe(submission, "run", f"computing {what}", inputs=inputs, program=program,
                     upstream=upstream)
    assert received.get("type") == "Tensor", (
        f"{what} returned a {received.get('type')}, not a Tensor")
    expect(received["value"], value, f"the value of {what}", shape_hint, nan_hint)
    assert received["grads"] is not None, (
        f"{what}: its value has shape {received['value'].shape}, expected {value.shape}"
        f"{shape_hint or shape_located(received['value'].shape, value.shape)}")
    for i, (name, (got, want)) in enumerate(zip(NAMES, pairs(received["grads"], grads,
                                                             f"gradients of {what}"))):
        expect(got, want, f"dL/d{name} for L = sum(G * out), out = {what}, G random",
               nan_hint=nan_hint, named=lambda got=got, want=want, i=i: misconception(
                   got, want, mistakes, same, i))


def normal(rng, *shape):
    return rng.normal(size=shape)


# -- matrix_dot_transpose --------------------------------------------------------------------------

@pytest.mark.task("matrix_dot_transpose")
def test_dot_of_square_matrices(submission, rng, public, expect):
    # first: every gradient has the right shape here, so only the values can catch a mistake,
    # and the message can name it (on other shapes, a mistaken gradient has another shape)
    n = dims(rng, public)[0]
    check_program(submission, rng, expect, [normal(rng, n, n), normal(rng, n, n)], [["dot", 0, 1]])


@pytest.mark.task("matrix_dot_transpose")
def test_dot(submission, rng, public, expect):
    m, n, p = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, m, n), normal(rng, n, p)], [["dot", 0, 1]])


SLIM = {"row_times_matrix": lambda m, n, p: ((1, n), (n, p)),
        "matrix_times_column": lambda m, n, p: ((m, n), (n, 1)),
        "row_times_column": lambda m, n, p: ((1, n), (n, 1)),
        "column_times_row": lambda m, n, p: ((m, 1), (1, p))}


@pytest.mark.task("matrix_dot_transpose")
@pytest.mark.parametrize("case", SLIM)
def test_dot_with_rows_and_columns(case, submission, rng, public, expect):
    a, b = SLIM[case](*dims(rng, public))
    check_program(submission, rng, expect, [normal(rng, *a), normal(rng, *b)], [["dot", 0, 1]])


@pytest.mark.task("matrix_dot_transpose")
@pytest.mark.parametrize("spelling", ["T", "transpose"])
def test_transpose(spelling, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, n, n)], [[spelling, 0]])   # square first
    check_program(submission, rng, expect, [normal(rng, m, n)], [[spelling, 0]])


@pytest.mark.task("matrix_dot_transpose")
def test_gram_matrix_uses_a_twice(submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, m, n)], [["T", 0], ["dot", 1, 0]])


@pytest.mark.task("matrix_dot_transpose")
def test_dot_with_a_transposed_operand(submission, rng, public, expect):
    m, n, p = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, m, n), normal(rng, p, n)],
                  [["T", 1], ["dot", 0, 2]])


# -- broadcast_add_mul ---------------------------------------------------------------------------

BROADCASTS = {"same_shape": lambda m, n: ((m, n), (m, n)),
              "row": lambda m, n: ((m, n), (1, n)),
              "column": lambda m, n: ((m, n), (m, 1)),
              "one_by_one": lambda m, n: ((m, n), (1, 1)),
              "row_on_the_left": lambda m, n: ((1, n), (m, n)),
              "column_on_the_left": lambda m, n: ((m, 1), (m, n)),
              "column_and_row": lambda m, n: ((m, 1), (1, n))}


@pytest.mark.task("broadcast_add_mul")
@pytest.mark.parametrize("case", BROADCASTS)
@pytest.mark.parametrize("op", ["add", "mul"])
def test_broadcasting(op, case, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    a, b = BROADCASTS[case](m, n)
    check_program(submission, rng, expect, [normal(rng, *a), normal(rng, *b)], [[op, 0, 1]])


@pytest.mark.task("broadcast_add_mul")
@pytest.mark.parametrize("op", ["plus_number", "number_plus", "times_number", "number_times"])
def test_with_a_python_number(op, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    number = float(rng.uniform(0.5, 2) * rng.choice([-1, 1]))
    check_program(submission, rng, expect, [normal(rng, m, n)], [[op, 0, number]])


@pytest.mark.task("broadcast_add_mul")
def test_bias_row_used_twice(submission, rng, public, expect):
    # out = a * b + b: the row b is broadcast in two operations; both shares add up
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, m, n), normal(rng, 1, n)],
                  [["mul", 0, 1], ["add", 2, 1]])


# -- matrix_sums ---------------------------------------------------------------------------------

@pytest.mark.task("matrix_sums")
@pytest.mark.parametrize("axis", [None, 0, 1], ids=["all", "axis0", "axis1"])
def test_sum(axis, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, m, n)], [["sum", 0, axis]],
                  shape_hint=SUM_HINT)


SLIM_SUMS = {"row_over_axis1": ((1, "n"), 1), "column_over_axis0": (("m", 1), 0),
             "row_over_axis0": ((1, "n"), 0), "column_over_all": (("m", 1), None)}


@pytest.mark.task("matrix_sums")
@pytest.mark.parametrize("case", SLIM_SUMS)
def test_sum_of_a_row_or_column(case, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    shape, axis = SLIM_SUMS[case]
    shape = tuple({"m": m, "n": n}.get(d, d) for d in shape)
    check_program(submission, rng, expect, [normal(rng, *shape)], [["sum", 0, axis]],
                  shape_hint=SUM_HINT)


@pytest.mark.task("matrix_sums")
@pytest.mark.parametrize("first", [0, 1], ids=["axis0_then_all", "axis1_then_all"])
def test_sum_of_a_sum(first, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [normal(rng, m, n)],
                  [["sum", 0, first], ["sum", 1, None]], shape_hint=SUM_HINT)


# -- softmax_log ---------------------------------------------------------------------------------

@pytest.mark.task("softmax_log")
def test_softmax(submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [2 * normal(rng, m, n)], [["softmax", 0]],
                  nan_hint=OVERFLOW_HINT)


@pytest.mark.task("softmax_log")
def test_softmax_of_a_single_row(submission, rng, public, expect):
    _, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [2 * normal(rng, 1, n)], [["softmax", 0]],
                  nan_hint=OVERFLOW_HINT)


LARGE = {"near_plus_1000": lambda rng, m: np.full((m, 1), 1000.0),
         "near_minus_1000": lambda rng, m: np.full((m, 1), -1000.0),
         "rows_far_apart": lambda rng, m: rng.choice([-1000.0, 0.0, 1000.0], (m, 1))}


@pytest.mark.task("softmax_log")
@pytest.mark.parametrize("logits", LARGE)
def test_softmax_of_large_logits(logits, submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    z = LARGE[logits](rng, m) + 3 * normal(rng, m, n)
    check_program(submission, rng, expect, [z], [["softmax", 0]],
                  nan_hint=OVERFLOW_HINT)


@pytest.mark.task("softmax_log")
def test_log(submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    check_program(submission, rng, expect, [rng.uniform(0.2, 3.0, (m, n))], [["log", 0]])


@pytest.mark.task("softmax_log")
def test_log_of_softmax_of_large_logits(submission, rng, public, expect):
    m, n, _ = dims(rng, public)
    z = 1000.0 + 2 * normal(rng, m, n)
    check_program(submission, rng, expect, [z], [["softmax", 0], ["log", 1]],
                  nan_hint=OVERFLOW_HINT)


# -- every task: large matrices ------------------------------------------------------------------

# case -> (task, the range of its hidden dimensions, the shapes of its inputs, its program)
LARGE_MATRICES = {
    "dot": ("matrix_dot_transpose", (190, 221), lambda m, n, p: [(m, n), (n, p)], [["dot", 0, 1]]),
    "bias_row_used_twice": ("broadcast_add_mul", (300, 331), lambda m, n, p: [(m, n), (1, n)],
                            [["mul", 0, 1], ["add", 2, 1]]),
    "sum_over_axis1": ("matrix_sums", (520, 571), lambda m, n, p: [(m, n)], [["sum", 0, 1]]),
    "log_of_softmax": ("softmax_log", (260, 291), lambda m, n, p: [(m, n)],
                       [["softmax", 0], ["log", 1]]),
}

HINTS = {"matrix_sums": {"shape_hint": SUM_HINT}, "softmax_log": {"nan_hint": OVERFLOW_HINT}}


def large_case(case, rng, public) -> tuple:
    """(inputs, program) of a LARGE_MATRICES case: on the self-check's small dimensions, or on large
    hidden ones drawn from rng."""
    _, sizes, shapes, program = LARGE_MATRICES[case]
    m, n, p = PUBLIC_DIMS if public else (int(d) for d in rng.integers(*sizes, size=3))
    return [normal(rng, *shape) for shape in shapes(m, n, p)], program


@pytest.mark.parametrize("case", [pytest.param(case, marks=pytest.mark.task(task))
                                  for case, (task, *_) in LARGE_MATRICES.items()])
def test_large_matrices(case, submission, rng, public, expect):
    inputs, program = large_case(case, rng, public)
    check_program(submission, rng, expect, inputs, program, **HINTS.get(LARGE_MATRICES[case][0], {}))
