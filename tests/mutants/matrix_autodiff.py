"""Mutants of 02 matrix autodiff: the mistakes of a first matrix autodiff engine."""
from tests.grading import Mutant

A = "02_matrix_autodiff"

# A backward pass by numerical differentiation: right values, at the cost of two forward passes
# per entry of each operand (a central difference of L = sum(G * out) for each entry in turn),
# where reverse mode costs about one. `numerically(op)` is `op` whose every Tensor operand gets
# its gradient so, from the student's own forward `op`. Grading gives the gradient checks of each
# task one case on large matrices, where this runs far past the probe's budget (probe_time_limit;
# benchmarks/probe_budget.py measures it).
NUMERICAL = """
def numerically(op, eps=1e-5):
    def numerical_op(*args, **kwargs):
        out = op(*args, **kwargs)

        def central_differences(operand):
            def grad_fn(g):
                x, grad = operand.value, np.zeros(operand.shape)
                for index in np.ndindex(x.shape):
                    saved = x[index]
                    x[index] = saved + eps
                    plus = np.sum(g * op(*args, **kwargs).value)
                    x[index] = saved - eps
                    minus = np.sum(g * op(*args, **kwargs).value)
                    x[index] = saved
                    grad[index] = (plus - minus) / (2 * eps)
                return grad
            if any(operand is arg for arg in args):
                return grad_fn
            return lambda g: np.zeros(operand.shape)    # a number made a leaf inside op

        out.parents = tuple((parent, central_differences(parent)) for parent, _ in out.parents)
        return out
    return numerical_op

"""
# the linear operations (matrix_dot_transpose, broadcast_add_mul, matrix_sums), their backward
# passes by numerical differentiation: exact but for rounding, so they pass every small case
NUMERICAL_LINEAR = NUMERICAL + """
Tensor.dot = Tensor.__matmul__ = numerically(dot)
Tensor.T = property(numerically(transpose))
Tensor.transpose = numerically(transpose)
Tensor.__add__ = Tensor.__radd__ = numerically(add)
Tensor.__mul__ = Tensor.__rmul__ = numerically(mul)
Tensor.sum = numerically(reduce_sum)
"""
# and softmax and log too (whose small cases near logits of +-1000 it fails on precision)
NUMERICAL_EVERYWHERE = NUMERICAL_LINEAR + """
Tensor.softmax = numerically(softmax)
Tensor.log = numerically(log)
"""

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
    # right values, far too slowly: its large case runs past the probe's budget
    Mutant(A, "matrix_dot_transpose", "dot_by_numerical_differentiation",
           "Tensor.dot = Tensor.__matmul__ = dot\n",
           NUMERICAL + "Tensor.dot = Tensor.__matmul__ = numerically(dot)\n",
           "the gradients of the matrix product by central differences of the forward pass, "
           "entry by entry"),
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
    "dot_by_numerical_differentiation": "right values: only its time is wrong, which the probe's "
                                        "budget says",
}
