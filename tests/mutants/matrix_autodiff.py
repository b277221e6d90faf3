"""Mutants of 02 matrix autodiff: the mistakes of a first matrix autodiff engine."""
from tests.grading import Mutant

A = "02_matrix_autodiff"

MUTANTS = [
    # matrix_dot_transpose
    Mutant(A, "matrix_dot_transpose", "dot_gradients_swapped",
           "parents=((self, lambda g: g @ b.T), (other, lambda g: a.T @ g))",
           "parents=((self, lambda g: a.T @ g), (other, lambda g: g @ b.T))",
           "each operand of the matrix product gets the other one's gradient (only the "
           "shapes of square matrices let it run)"),
    Mutant(A, "matrix_dot_transpose", "dot_factors_in_wrong_order",
           "(self, lambda g: g @ b.T)", "(self, lambda g: b.T @ g)",
           "dL/da = b^T G instead of G b^T"),
    Mutant(A, "matrix_dot_transpose", "transpose_gradient_not_transposed",
           "parents=((self, lambda g: g.T),), op=\"transpose\"",
           "parents=((self, lambda g: g),), op=\"transpose\"",
           "the gradient of a^T passed on without transposing it back"),
    # broadcast_add_mul
    Mutant(A, "broadcast_add_mul", "broadcast_gradient_not_reduced",
           "    return grad.sum(axis=stretched, keepdims=True)\n", "    return grad\n",
           "unbroadcast returns the gradient of the broadcast result: a bias row gets an "
           "(m, n) gradient"),
    Mutant(A, "broadcast_add_mul", "unbroadcast_drops_the_axis",
           "return grad.sum(axis=stretched, keepdims=True)", "return grad.sum(axis=stretched)",
           "the broadcast axis summed away: (m, n) -> (n,) instead of (1, n)"),
    Mutant(A, "broadcast_add_mul", "mul_gradient_own_value",
           "(other, lambda g: unbroadcast(g * a, b.shape))",
           "(other, lambda g: unbroadcast(g * b, b.shape))",
           "d(a * b)/db = b: the operand's own value instead of the other's"),
    # matrix_sums
    Mutant(A, "matrix_sums", "sum_backward_returns_ones",
           "lambda g: np.broadcast_to(g, self.shape)", "lambda g: np.ones(self.shape)",
           "the backward pass of a sum ignores the upstream gradient (right only when the "
           "sum is the loss itself)"),
    Mutant(A, "matrix_sums", "sum_drops_the_axis",
           "value = self.value.sum(axis=axis, keepdims=True)", "value = self.value.sum(axis=axis)",
           "x.sum(axis=1) of shape (m,) (a row once it is a Tensor) instead of (m, 1)"),
    # softmax_log
    Mutant(A, "softmax_log", "softmax_without_max_subtraction",
           "exps = np.exp(self.value - self.value.max(axis=1, keepdims=True))",
           "exps = np.exp(self.value)",
           "the textbook softmax: NaN for logits near +-1000"),
    Mutant(A, "softmax_log", "softmax_gradient_diagonal_only",
           "lambda g: s * (g - (g * s).sum(axis=1, keepdims=True))", "lambda g: g * s * (1 - s)",
           "only the diagonal of the softmax Jacobian, s_k (1 - s_k)"),
    Mutant(A, "softmax_log", "log_gradient_ignores_upstream",
           "lambda g: g / self.value", "lambda g: 1 / self.value",
           "d log a = 1/a, not multiplied by the upstream gradient"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/matrix_autodiff.py). The held-out mutants (tests/mutants/__init__.py) are
# measured: never given a mistake here.
NAMED = {
    "dot_gradients_swapped": "dot_gradients_swapped",
    "dot_factors_in_wrong_order": "dot_factors_in_wrong_order",
    "transpose_gradient_not_transposed": "transpose_gradient_not_transposed",
    "mul_gradient_own_value": "mul_gradient_own_value",
    "sum_backward_returns_ones": "sum_backward_returns_ones",
    "softmax_gradient_diagonal_only": "softmax_gradient_diagonal_only",
    "log_gradient_ignores_upstream": "log_gradient_ignores_upstream",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "unbroadcast_drops_the_axis": "a wrong shape, which the reply's schema rejects",
    "softmax_without_max_subtraction": "NaN where e^z overflows, not a value to equal",
    "broadcast_gradient_not_reduced": "a wrong shape, which the reply's schema rejects",
    "sum_drops_the_axis": "a wrong shape, which the check says",
}
