"""Blind mistakes in 01, scalar automatic differentiation (see tests/blind_mistakes/__init__.py)."""
from . import Mistake

A = "01_scalar_autodiff"
SWAP = ("swap", "exchang", "interchang", "the other operand", "each other")
SQUARE = ("square", "**2", "** 2", "²", "power")
ACCUMULATE = ("accumulat", "+=", "overwrit", "replac", "sum of", "add up", "adds up", "summed")

MISTAKES = [
    Mistake(A, "scalar_arithmetic", "mul_local_derivatives_swapped",
            "((self, other.value), (other, self.value))",
            "((self, self.value), (other, other.value))",
            "d(a·b)/da is b, not a: each operand's local derivative is its own value instead of "
            "the other operand's", SWAP),
    Mistake(A, "scalar_arithmetic", "div_derivative_square_missing",
            "-self.value / other.value ** 2", "-self.value / other.value",
            "d(a/b)/db is -a/b², not -a/b: the square of the denominator is missing", SQUARE),
    Mistake(A, "scalar_arithmetic", "sub_derivative_sign",
            "((self, 1.0), (other, -1.0))", "((self, 1.0), (other, 1.0))",
            "d(a-b)/db is -1: the gradient of the subtrahend has the wrong sign",
            ("sign", "negat", "minus", "-1", "+1", "a + b")),
    Mistake(A, "scalar_arithmetic", "div_quotient_rule_upside_down",
            "((self, 1 / other.value), (other, -self.value / other.value ** 2))",
            "((self, 1 / other.value), (other, -other.value / self.value ** 2))",
            "d(a/b)/db is -a/b²: the numerator and denominator are exchanged in it",
            SWAP + ("upside", "invert", "numerator", "denominator")),
    Mistake(A, "scalar_functions", "tanh_derivative_square_missing",
            "((self, 1 - value ** 2),)", "((self, 1 - value),)",
            "tanh'(x) = 1 - tanh(x)²: the square is missing", SQUARE),
    Mistake(A, "scalar_functions", "sigmoid_sign_in_exponent",
            "1 / (1 + math.exp(-self.value))", "1 / (1 + math.exp(self.value))",
            "sigmoid(x) = 1/(1+e^(-x)): the minus sign in the exponent is missing, so the value "
            "is sigmoid(-x)", ("sign", "negat", "minus", "-x", "sigmoid(-x)")),
    Mistake(A, "scalar_functions", "exp_derivative_is_input",
            "return Scalar(value, ((self, value),))", "return Scalar(value, ((self, self.value),))",
            "exp'(x) = exp(x): the local derivative used is the input x instead of the output",
            ("input", "output", "exp(x)", "e^x", "self.value", "instead of the value")),
    Mistake(A, "scalar_functions", "log_derivative_not_reciprocal",
            "(self, 1 / self.value)", "(self, self.value)",
            "log'(x) = 1/x: the reciprocal is missing",
            ("reciprocal", "1/x", "1 / x", "invert", "inverse", "divid")),
    Mistake(A, "scalar_backprop", "gradient_overwritten_not_accumulated",
            "parent.grad += local * node.grad", "parent.grad = local * node.grad",
            "a node reached by several paths must add up their gradients; = overwrites all "
            "but the last", ACCUMULATE),
    Mistake(A, "scalar_backprop", "chain_rule_upstream_forgotten",
            "parent.grad += local * node.grad", "parent.grad += local",
            "the chain rule multiplies the local derivative by the node's own gradient; the "
            "upstream factor is forgotten",
            ("chain", "upstream", "node.grad", "factor", "multipl")),
    Mistake(A, "scalar_backprop", "backward_in_forward_order",
            "for node in reversed(order):", "for node in order:",
            "gradients must flow from the output back to the inputs: the topological order is "
            "walked the wrong way round", ("order", "revers", "topolog", "backward")),
    Mistake(A, "scalar_backprop", "output_gradient_not_one",
            "    self.grad = 1.0\n", "    self.grad = 0.0\n",
            "the seed of backprop is dL/dL = 1; it is left at 0, so every gradient is 0",
            ("seed", "1.0", "dl/dl", "output's gradient", "output gradient", "start")),
    Mistake(A, "numerical_gradient", "central_difference_without_two",
            "(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x - eps)) / eps",
            "the central difference spans 2ε, so it divides by 2ε; dividing by ε doubles it",
            ("2ε", "2 eps", "2*eps", "2 * eps", "factor", "twice", "double", "×2", "× 2", "half")),
    Mistake(A, "numerical_gradient", "central_difference_precedence",
            "(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x - eps)) / 2 * eps",
            "/ 2 * eps divides by 2 and then multiplies by ε: the parentheses around 2·ε are "
            "missing", ("precedence", "parenthes", "bracket", "group", "multipl")),
]
