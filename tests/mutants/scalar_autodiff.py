"""Mutants of 01 scalar autodiff: the mistakes students make in a first autodiff engine."""
from tests.grading import Mutant

A = "01_scalar_autodiff"

# The solution's backward(): topological order by depth-first search, then the chain rule.
ORDER_AND_SEED = """\
    order, visited, stack = [], set(), [(self, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
        elif id(node) not in visited:
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent, _ in node.parents)
    for node in order:
        node.grad = 0.0
    self.grad = 1.0
    for node in reversed(order):"""

PREORDER = """\
    order, visited, stack = [], set(), [self]
    while stack:
        node = stack.pop()
        if id(node) not in visited:
            visited.add(id(node))
            order.append(node)
            stack.extend(parent for parent, _ in node.parents)
    for node in order:
        node.grad = 0.0
    self.grad = 1.0
    for node in order:"""

BREADTH_FIRST = """\
    order, visited = [self], {id(self)}
    for node in order:
        for parent, _ in node.parents:
            if id(parent) not in visited:
                visited.add(id(parent))
                order.append(parent)
    for node in order:
        node.grad = 0.0
    self.grad = 1.0
    for node in order:"""

RECURSIVE = """\
    order, visited = [], set()

    def visit(node):
        if id(node) not in visited:
            visited.add(id(node))
            for parent, _ in node.parents:
                visit(parent)
            order.append(node)

    visit(self)
    for node in order:
        node.grad = 0.0
    self.grad = 1.0
    for node in reversed(order):"""

MUTANTS = [
    # scalar_arithmetic
    Mutant(A, "scalar_arithmetic", "div_denominator_sign",
           "(other, -self.value / other.value ** 2)", "(other, self.value / other.value ** 2)",
           "d(a/b)/db = +a/b^2: the minus sign of the quotient rule lost"),
    Mutant(A, "scalar_arithmetic", "sub_gradient_sign",
           "((self, 1.0), (other, -1.0))", "((self, 1.0), (other, 1.0))",
           "d(a-b)/db = 1, as if it were a + b"),
    Mutant(A, "scalar_arithmetic", "rsub_order",
           "return as_scalar(other) - self", "return self - as_scalar(other)",
           "__rsub__ computing self - other: 1 - a gives a - 1"),
    Mutant(A, "scalar_arithmetic", "neg_gradient_sign",
           "return Scalar(-self.value, ((self, -1.0),))",
           "return Scalar(-self.value, ((self, 1.0),))",
           "d(-a)/da = 1"),
    # scalar_functions
    Mutant(A, "scalar_functions", "sigmoid_of_minus_x",
           "value = 1 / (1 + math.exp(-self.value))", "value = 1 / (1 + math.exp(self.value))",
           "sigmoid computing sigma(-x): the sign of the exponent"),
    Mutant(A, "scalar_functions", "tanh_derivative_unsquared",
           "((self, 1 - value ** 2),)", "((self, 1 - value),)",
           "d tanh x/dx = 1 - tanh x: the square forgotten"),
    Mutant(A, "scalar_functions", "log_derivative_inverse_square",
           "((self, 1 / self.value),)", "((self, 1 / self.value ** 2),)",
           "d log x/dx = 1/x^2"),
    Mutant(A, "scalar_functions", "exp_derivative_input",
           "return Scalar(value, ((self, value),))", "return Scalar(value, ((self, self.value),))",
           "d e^x/dx = x: the input instead of the value"),
    # scalar_backprop
    Mutant(A, "scalar_backprop", "overwrite_instead_of_accumulate",
           "parent.grad += local * node.grad", "parent.grad = local * node.grad",
           "a reused node keeps only the last share of its gradient"),
    Mutant(A, "scalar_backprop", "preorder_instead_of_topological", ORDER_AND_SEED, PREORDER,
           "depth-first pre-order from the output: a node passes its gradient on before every "
           "node computed from it has contributed (wrong on diamonds)"),
    Mutant(A, "scalar_backprop", "breadth_first_order", ORDER_AND_SEED, BREADTH_FIRST,
           "breadth-first from the output: right when both paths to a node have the same "
           "length, wrong otherwise"),
    Mutant(A, "scalar_backprop", "no_visited_set",
           "        elif id(node) not in visited:\n", "        elif True:\n",
           "a node reached along two paths is visited twice and passes its gradient on twice"),
    Mutant(A, "scalar_backprop", "grads_never_reset",
           "    for node in order:\n        node.grad = 0.0\n    self.grad = 1.0\n    for node in reversed",
           "    self.grad = 1.0\n    for node in reversed",
           "backward() never sets the grads to 0: a second call adds to what the first left"),
    Mutant(A, "scalar_backprop", "recursive_topological_sort", ORDER_AND_SEED, RECURSIVE,
           "micrograd's recursive topological sort: RecursionError on a deep graph"),
    # numerical_gradient
    Mutant(A, "numerical_gradient", "forward_difference",
           "return (f(x + eps) - f(x - eps)) / (2 * eps)", "return (f(x + eps) - f(x)) / eps",
           "a forward difference: an error of order eps instead of eps^2"),
    Mutant(A, "numerical_gradient", "half_step",
           "return (f(x + eps) - f(x - eps)) / (2 * eps)", "return (f(x + eps) - f(x - eps)) / eps",
           "the central difference divided by eps instead of 2 eps"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/scalar_autodiff.py). The held-out mutants (tests/mutants/__init__.py)
# are measured: never given a mistake here.
NAMED = {
    "div_denominator_sign": "div_denominator_sign",
    "sub_gradient_sign": "sub_gradient_sign",
    "rsub_order": "rsub_order",
    "sigmoid_of_minus_x": "sigmoid_of_minus_x",
    "tanh_derivative_unsquared": "tanh_derivative_unsquared",
    "log_derivative_inverse_square": "log_derivative_inverse_square",
    "overwrite_instead_of_accumulate": "overwrite_instead_of_accumulate",
    "preorder_instead_of_topological": "preorder_instead_of_topological",
    "breadth_first_order": "breadth_first_order",
    "forward_difference": "forward_difference",
    "half_step": "central_difference_over_eps",
    "grads_never_reset": "gradients_not_reset",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "recursive_topological_sort": "an exception (RecursionError on a deep graph)",
}
