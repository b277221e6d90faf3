"""Blind mistakes in 02, matrix automatic differentiation (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .scalar_autodiff import SWAP

A = "02_matrix_autodiff"
TRANSPOSE = ("transpos", ".t", "ᵀ")
SHAPE = ("keepdims", "shape", "dimension", "axis")
UPSTREAM = ("upstream", "chain", "incoming", "multipl", "factor")

MISTAKES = [
    Mistake(A, "matrix_dot_transpose", "dot_grad_left_transpose_missing",
            "lambda g: g @ b.T", "lambda g: g @ b",
            "dL/dA = G Bᵀ: the transpose of B is missing", TRANSPOSE),
    Mistake(A, "matrix_dot_transpose", "dot_grad_right_operands_reversed",
            "lambda g: a.T @ g", "lambda g: g.T @ a",
            "dL/dB = Aᵀ G; Gᵀ A is its transpose: the factors are in the wrong order",
            TRANSPOSE + SWAP + ("order",)),
    Mistake(A, "matrix_dot_transpose", "transpose_grad_not_transposed",
            "parents=((self, lambda g: g.T),), op=\"transpose\"",
            "parents=((self, lambda g: g),), op=\"transpose\"",
            "the gradient of Aᵀ must be transposed back to A's shape", TRANSPOSE),
    Mistake(A, "broadcast_add_mul", "unbroadcast_drops_the_summed_axis",
            "return grad.sum(axis=stretched, keepdims=True)", "return grad.sum(axis=stretched)",
            "summing over the broadcast axis without keepdims loses the axis: the gradient has "
            "the wrong shape", SHAPE),
    Mistake(A, "broadcast_add_mul", "mul_grad_not_summed_back",
            "lambda g: unbroadcast(g * b, a.shape)", "lambda g: g * b",
            "a broadcast operand's gradient must be summed back to its own shape",
            ("unbroadcast", "broadcast", "summed back", "sum it back", "shape")),
    Mistake(A, "broadcast_add_mul", "mul_grads_own_operand",
            "(self, lambda g: unbroadcast(g * b, a.shape)),\n"
            "                                  (other, lambda g: unbroadcast(g * a, b.shape))",
            "(self, lambda g: unbroadcast(g * a, a.shape)),\n"
            "                                  (other, lambda g: unbroadcast(g * b, b.shape))",
            "d(a⊙b)/da is b: each operand's gradient is multiplied by its own value instead of "
            "the other's", SWAP),
    Mistake(A, "matrix_sums", "sum_drops_the_axis",
            "value = self.value.sum(axis=axis, keepdims=True)",
            "value = self.value.sum(axis=axis)",
            "the sum over an axis must keep it (keepdims=True): a column becomes a row", SHAPE
            + TRANSPOSE),
    Mistake(A, "matrix_sums", "sum_grad_is_ones",
            "lambda g: np.broadcast_to(g, self.shape)", "lambda g: np.ones(self.shape)",
            "the gradient of a sum is the upstream gradient copied to every element, not ones",
            UPSTREAM + ("ones",)),
    Mistake(A, "softmax_log", "softmax_not_stabilised",
            "np.exp(self.value - self.value.max(axis=1, keepdims=True))", "np.exp(self.value)",
            "without subtracting each row's maximum, exp overflows for large scores",
            ("stab", "overflow", "max", "subtract", "inf", "nan")),
    Mistake(A, "softmax_log", "softmax_normalised_over_columns",
            "s = exps / exps.sum(axis=1, keepdims=True)", "s = exps / exps.sum(axis=0, keepdims=True)",
            "each row is a distribution: the sum is over axis 1, not axis 0", ("axis", "column",
                                                                             "row")),
    Mistake(A, "softmax_log", "softmax_grad_factor_s_missing",
            "lambda g: s * (g - (g * s).sum(axis=1, keepdims=True))",
            "lambda g: g - (g * s).sum(axis=1, keepdims=True)",
            "the softmax Jacobian-vector product is s ⊙ (g - Σ g⊙s): the factor s is missing",
            ("factor", "multipl", "s *", "s ⊙", "missing")),
    Mistake(A, "softmax_log", "log_grad_upstream_forgotten",
            "lambda g: g / self.value", "lambda g: 1 / self.value",
            "the chain rule: the local derivative 1/x times the upstream gradient, which is "
            "forgotten", UPSTREAM),
]

# Round 2 (2026-11-28), written blind as round 1 was.
MEAN = ("mean", "average", "divid", "1/n", "size", "sum")
ROW = ("row", "axis", "each row", "per row", "whole", "all entries", "global")
MISTAKES += [
    Mistake(A, "matrix_dot_transpose", "dot_is_elementwise",
            "return Tensor(a @ b, parents=", "return Tensor(a * b, parents=",
            "* multiplies elementwise; the matrix product is a @ b (np.dot)",
            ("elementwise", "element-wise", "matrix product", "@", "matmul", "np.dot", "*")),
    Mistake(A, "matrix_dot_transpose", "transpose_value_not_transposed",
            "return Tensor(self.value.T, parents=", "return Tensor(self.value, parents=",
            "the value of a.T is the transposed matrix; only the gradient was transposed",
            TRANSPOSE + ("value",)),
    Mistake(A, "broadcast_add_mul", "unbroadcast_averages",
            "return grad.sum(axis=stretched, keepdims=True)",
            "return grad.mean(axis=stretched, keepdims=True)",
            "a broadcast operand was used once per row: its gradient is the sum over the rows, "
            "not the mean", MEAN),
    Mistake(A, "broadcast_add_mul", "add_second_operand_gets_first_shape",
            "(other, lambda g: unbroadcast(g, b.shape))), op=\"add\")",
            "(other, lambda g: unbroadcast(g, a.shape))), op=\"add\")",
            "copy-paste: the second operand's gradient is summed back to the first operand's "
            "shape, a.shape, instead of its own", SHAPE + ("a.shape", "b.shape", "operand",
                                                            "broadcast")),
    Mistake(A, "softmax_log", "softmax_global_maximum",
            "exps = np.exp(self.value - self.value.max(axis=1, keepdims=True))",
            "exps = np.exp(self.value - self.value.max())",
            "the maximum must be each row's: with the global maximum a row of small logits "
            "underflows to 0/0", ROW + ("max", "stabl", "underflow", "overflow", "nan")),
    Mistake(A, "softmax_log", "softmax_grad_summed_over_everything",
            "s * (g - (g * s).sum(axis=1, keepdims=True))", "s * (g - (g * s).sum())",
            "the sum Σ_k G_k s_k is taken along each row, not over the whole matrix", ROW + SHAPE),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "broadcast_add_mul", "mul_grad_reduced_before_multiplying",
            "(self, lambda g: unbroadcast(g * b, a.shape))",
            "(self, lambda g: unbroadcast(g, a.shape) * b)",
            "d(a*b)/da is g*b summed back to a's shape: summing g first and multiplying by b "
            "afterwards mixes the broadcast rows", ("unbroadcast", "order", "before", "sum",
                                                    "broadcast"), slow=True),
    Mistake(A, "broadcast_add_mul", "add_first_operand_not_reduced",
            "(self, lambda g: unbroadcast(g, a.shape))", "(self, lambda g: g)",
            "a broadcast operand of + gets g summed over the axes it was stretched along; g is "
            "passed on at the output's shape", ("unbroadcast", "broadcast", "shape", "sum",
                                                "reduc"), slow=True),
    Mistake(A, "matrix_sums", "sum_axis_zero_treated_as_none",
            "value = self.value.sum(axis=axis, keepdims=True)",
            "value = self.value.sum(axis=axis if axis else None, keepdims=True)",
            "`if axis` is false for axis 0: a sum over axis 0 sums over everything",
            ("axis 0", "axis=0", "axis", "falsy", "none", "everything"), slow=True),
    Mistake(A, "matrix_sums", "sum_grad_divided_by_the_count",
            "np.broadcast_to(g, self.shape)),), op=\"sum\")",
            "np.broadcast_to(g, self.shape) / self.value.size),), op=\"sum\")",
            "the gradient of a sum is g copied to every element; dividing by the count is the "
            "gradient of a mean", ("mean", "average", "divid", "count", "size", "1/n"), slow=True),
    Mistake(A, "softmax_log", "softmax_grad_diagonal_only",
            "lambda g: s * (g - (g * s).sum(axis=1, keepdims=True))",
            "lambda g: g * s * (1 - s)",
            "the softmax Jacobian is diag(s) - s sᵀ: only its diagonal s(1-s) is used, the "
            "off-diagonal -s_i s_j terms are missing", ("diagonal", "off-diagonal", "jacobian",
                                                       "s(1-s)", "s * (1 - s)", "sigmoid"),
            slow=True),
    Mistake(A, "softmax_log", "softmax_sum_without_keepdims",
            "s = exps / exps.sum(axis=1, keepdims=True)", "s = exps / exps.sum(axis=1)",
            "without keepdims the row sums (n,) broadcast along the rows' last axis: each row is "
            "divided by other rows' sums", ("keepdims", "broadcast", "shape", "axis", "column"),
            slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
MISTAKES += [
    Mistake(A, "matrix_dot_transpose", "dot_gradients_given_to_the_wrong_operands",
            "parents=((self, lambda g: g @ b.T), (other, lambda g: a.T @ g))",
            "parents=((self, lambda g: a.T @ g), (other, lambda g: g @ b.T))",
            "dL/dA = G Bᵀ and dL/dB = Aᵀ G: the two formulas are attached to the wrong operands",
            SWAP + ("operand", "wrong parent", "g @ b.t", "a.t @ g"), slow=True),
    Mistake(A, "broadcast_add_mul", "unbroadcast_sums_the_kept_axes",
            "if n == 1 and grad.shape[axis] != 1)", "if n != 1)",
            "the gradient is summed over the axes where the operand has size 1 (those it was "
            "stretched along); the condition is inverted, so it sums over the operand's own axes",
            ("axis", "axes", "invert", "condition", "size 1", "stretched", "broadcast"), slow=True),
    Mistake(A, "broadcast_add_mul", "unbroadcast_reads_the_gradients_shape",
            "for axis, n in enumerate(shape) if", "for axis, n in enumerate(grad.shape) if",
            "the axes to sum are those of size 1 in the operand's shape; enumerating grad.shape "
            "finds none, so nothing is summed back",
            ("shape", "grad.shape", "unbroadcast", "broadcast", "summed back", "sum"), slow=True),
    Mistake(A, "broadcast_add_mul", "mul_second_gradient_upstream_forgotten",
            "(other, lambda g: unbroadcast(g * a, b.shape))",
            "(other, lambda g: unbroadcast(a, b.shape))",
            "the chain rule: d(a⊙b)/db = a times the upstream gradient g, which is forgotten",
            UPSTREAM, slow=True),
    Mistake(A, "matrix_sums", "sum_gradient_totals_the_upstream",
            "lambda g: np.broadcast_to(g, self.shape)",
            "lambda g: np.broadcast_to(g.sum(), self.shape)",
            "a sum along an axis has one upstream gradient per row: each row's elements get "
            "their own row's gradient, not the total of all of them",
            ("row", "each", "total", "whole", "sum", "axis", "per row"), slow=True),
    Mistake(A, "softmax_log", "softmax_maximum_over_columns",
            "np.exp(self.value - self.value.max(axis=1, keepdims=True))",
            "np.exp(self.value - self.value.max(axis=0, keepdims=True))",
            "softmax is unchanged by a shift of each row, not of each column: the maximum "
            "subtracted must be the row's (axis 1)", ROW + ("column", "max", "shift"), slow=True),
    Mistake(A, "softmax_log", "softmax_gradient_inner_sum_without_s",
            "s * (g - (g * s).sum(axis=1, keepdims=True))",
            "s * (g - g.sum(axis=1, keepdims=True))",
            "the softmax backward is s ⊙ (g - Σ_k g_k s_k): the inner sum weighs g by s, and "
            "that weight is missing", ("g * s", "g ⊙ s", "weigh", "factor", "s", "inner",
                                      "missing"), slow=True),
    Mistake(A, "softmax_log", "log_gradient_multiplies",
            "lambda g: g / self.value", "lambda g: g * self.value",
            "d log x / dx is 1/x: the upstream gradient is divided by x, not multiplied",
            ("reciprocal", "1/x", "1 / x", "divid", "multipl", "invert", "inverse"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (full marks in the self-check): softmax stabilised by the row minimum
# instead of the maximum, old `exps = np.exp(self.value - self.value.max(axis=1, keepdims=True))`
# -> new `exps = np.exp(self.value - self.value.min(axis=1, keepdims=True))` (it overflows only
# when the entries of a row span more than about 709).
MISTAKES += [
    Mistake(A, "matrix_dot_transpose", "dot_grad_right_transpose_missing",
            "(other, lambda g: a.T @ g)", "(other, lambda g: a @ g)",
            "dL/d(other) is selfᵀ @ G: the transpose of the left operand is missing",
            TRANSPOSE + SHAPE, slow=True),
    Mistake(A, "matrix_dot_transpose", "dot_value_operands_reversed",
            "return Tensor(a @ b, parents=", "return Tensor(b @ a, parents=",
            "the matrix product does not commute: self @ other is a @ b, not b @ a",
            SWAP + ("order", "commut", "b @ a", "revers", "shape"), slow=True),
    Mistake(A, "broadcast_add_mul", "unbroadcast_rows_only",
            "stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and grad.shape[axis] != 1)",
            "stretched = (0,) if shape[0] == 1 and grad.shape[0] != 1 else ()",
            "an operand may be broadcast along either axis: only axis 0 is summed, so a column "
            "(m, 1) keeps a gradient of the wrong shape", ("axis 1", "column", "every axis",
                                                           "each axis", "axes", "shape"), slow=True),
    Mistake(A, "matrix_sums", "sum_grad_not_broadcast",
            "parents=((self, lambda g: np.broadcast_to(g, self.shape)),), op=\"sum\")",
            "parents=((self, lambda g: g),), op=\"sum\")",
            "the gradient of a sum is the upstream gradient copied to every summed entry: passed "
            "on as it is, it has the shape of the sum, not of the input",
            ("broadcast", "shape", "copied", "every entry", "expand"), slow=True),
    Mistake(A, "matrix_sums", "sum_axis_ignored",
            "value = self.value.sum(axis=axis, keepdims=True)",
            "value = self.value.sum(keepdims=True)",
            "sum(axis=...) sums along the given axis only; without it every entry is summed",
            ("axis", "argument", "all entries", "every entry", "total"), slow=True),
    Mistake(A, "softmax_log", "softmax_normalised_over_the_whole_batch",
            "s = exps / exps.sum(axis=1, keepdims=True)", "s = exps / exps.sum()",
            "each row is normalised by its own sum; exps.sum() divides by the sum over the "
            "whole batch, so the rows no longer sum to 1", ("row", "axis", "each row", "sum to 1",
                                                             "whole", "all entries"), slow=True),
    Mistake(A, "softmax_log", "softmax_grad_sign",
            "lambda g: s * (g - (g * s).sum(axis=1, keepdims=True))",
            "lambda g: s * (g + (g * s).sum(axis=1, keepdims=True))",
            "dL/dz = s (G - Σ G s): the inner sum is subtracted, not added",
            ("sign", "subtract", "minus", "+", "added"), slow=True),
    Mistake(A, "softmax_log", "log_gradient_divides_by_the_output",
            "lambda g: g / self.value", "lambda g: g / np.log(self.value)",
            "d log x / dx is 1/x with the input x; dividing by log x uses the output",
            ("1/x", "1 / x", "input", "output", "log x", "reciprocal"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "matrix_dot_transpose", "dot_second_operand_copied",
            "    a, b = self.value, other.value\n    return Tensor(a @ b,",
            "    a, b = self.value, self.value\n    return Tensor(a @ b,",
            "b is read from self instead of other: the product is A·A, and other's gradient "
            "uses the wrong matrix",
            ("self.value", "wrong operand", "a @ a", "a·a", "copied", "same operand"),
            slow=True),
    Mistake(A, "broadcast_add_mul", "mul_grad_uses_matrix_product",
            "unbroadcast(g * b, a.shape)", "unbroadcast(g @ b.T, a.shape)",
            "a * b is elementwise: its gradient is G * b, not the matrix product's G bᵀ",
            ("elementwise", "element-wise", "matrix product", "@", "g * b", "hadamard"),
            slow=True),
    Mistake(A, "broadcast_add_mul", "add_grad_copied_from_mul",
            "(self, lambda g: unbroadcast(g, a.shape)),",
            "(self, lambda g: unbroadcast(g * b, a.shape)),",
            "d(a + b)/da is 1: the factor b, copied from the product's gradient, does not belong",
            ("factor", "copied", "g * b", "product", "multipl"), slow=True),
    Mistake(A, "matrix_sums", "sum_value_is_mean",
            "value = self.value.sum(axis=axis, keepdims=True)",
            "value = self.value.mean(axis=axis, keepdims=True)",
            "reduce_sum adds the entries: .mean divides the value by their count", MEAN,
            slow=True),
    Mistake(A, "matrix_sums", "sum_grad_multiplied_by_the_input",
            "lambda g: np.broadcast_to(g, self.shape)",
            "lambda g: np.broadcast_to(g, self.shape) * self.value",
            "every entry adds to the sum with weight 1: the gradient is G broadcast, not G times "
            "the input", ("self.value", "factor", "multipl", "times the input", "weight"),
            slow=True),
    Mistake(A, "softmax_log", "softmax_denominator_unshifted",
            "s = exps / exps.sum(axis=1, keepdims=True)",
            "s = exps / np.exp(self.value).sum(axis=1, keepdims=True)",
            "the numerator has the row maximum subtracted but the denominator does not: the two "
            "must be shifted alike, or the rows no longer sum to 1",
            ("maximum", "max", "shift", "denominator", "sum to 1", "normalis", "normaliz"),
            slow=True),
    Mistake(A, "softmax_log", "softmax_grad_summed_down_the_columns",
            "(g * s).sum(axis=1, keepdims=True)", "(g * s).sum(axis=0, keepdims=True)",
            "the softmax of a row depends only on that row: the sum of G·s is along each row "
            "(axis 1), not down the columns", ROW + ("column", "axis=0", "axis 0"), slow=True),
    Mistake(A, "softmax_log", "softmax_divided_by_the_maximum",
            "s = exps / exps.sum(axis=1, keepdims=True)",
            "s = exps / exps.max(axis=1, keepdims=True)",
            "softmax divides by the row's sum of exponentials; after the shift the maximum is 1, "
            "so the rows are not normalised",
            ("normalis", "normaliz", "sum to 1", "sums to 1", "maximum", "denominator"),
            slow=True),
]
