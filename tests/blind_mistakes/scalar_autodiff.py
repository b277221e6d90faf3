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

# Round 2 (2026-11-28), written blind as round 1 was.
SIGN = ("sign", "negat", "minus", "-1", "+1")
MISTAKES += [
    Mistake(A, "scalar_arithmetic", "rsub_operands_reversed",
            "return as_scalar(other) - self", "return self - as_scalar(other)",
            "2 - a is other - self: writing self - other computes a - 2, the negative",
            SWAP + SIGN + ("order", "revers", "self - other", "other - self")),
    Mistake(A, "scalar_arithmetic", "neg_derivative_plus_one",
            "return Scalar(-self.value, ((self, -1.0),))",
            "return Scalar(-self.value, ((self, 1.0),))",
            "d(-a)/da is -1: the value is negated but the local derivative is left at +1", SIGN),
    Mistake(A, "scalar_functions", "log_base_ten",
            "math.log(self.value)", "math.log10(self.value)",
            "log is the natural logarithm ln x; math.log10 is the logarithm to base 10",
            ("log10", "base", "natural", "ln", "ln(10)", "ln 10")),
    Mistake(A, "scalar_backprop", "gradients_not_reset",
            "    for node in order:\n        node.grad = 0.0\n", "",
            "a second backward() adds to the gradients the first one left: they must be set "
            "to 0 first", ("reset", "zero", "previous", "stale", "left over", "accumulat",
                           "twice", "second call", "again")),
    Mistake(A, "scalar_backprop", "visited_set_not_checked",
            "        elif id(node) not in visited:\n", "        else:\n",
            "without the visited check a node reached twice enters the order twice, and passes "
            "its gradient on twice", ("visit", "once", "duplicat", "twice", "more than once",
                                      "diamond", "reused", "shared")),
    Mistake(A, "numerical_gradient", "forward_difference",
            "(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x + eps) - f(x)) / eps",
            "a forward difference, (f(x+ε) - f(x))/ε, is only first-order accurate: the task "
            "asks for the central difference", ("forward difference", "central", "one-sided",
                                                "one sided", "f(x)", "f(x - eps)", "f(x-eps)")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "scalar_arithmetic", "div_numerator_derivative_is_the_denominator",
            "((self, 1 / other.value), (other,", "((self, other.value), (other,",
            "d(a/b)/da is 1/b: the local derivative of the numerator is b, the reciprocal is "
            "missing", ("reciprocal", "1/b", "1 / b", "invert", "inverse", "divid"), slow=True),
    Mistake(A, "scalar_arithmetic", "neg_value_not_negated",
            "return Scalar(-self.value, ((self, -1.0),))",
            "return Scalar(self.value, ((self, -1.0),))",
            "-a has the value -a: the derivative is -1 but the value itself is left unnegated",
            ("sign", "negat", "minus"), slow=True),
    Mistake(A, "scalar_functions", "sigmoid_derivative_from_the_input",
            "((self, value * (1 - value)),)", "((self, self.value * (1 - self.value)),)",
            "σ'(x) = σ(x)(1 - σ(x)): the formula is applied to the input x, not to the output σ(x)",
            ("input", "output", "σ(x)", "sigmoid(x)", "self.value"), slow=True),
    Mistake(A, "scalar_functions", "tanh_derivative_square_of_the_difference",
            "((self, 1 - value ** 2),)", "((self, (1 - value) ** 2),)",
            "tanh'(x) = 1 - tanh(x)²: the square belongs to tanh, not to 1 - tanh",
            ("square", "parenthes", "bracket", "precedence", "1 - tanh"), slow=True),
    Mistake(A, "scalar_backprop", "order_recorded_before_the_parents",
            "        if parents_done:\n            order.append(node)\n"
            "        elif id(node) not in visited:\n            visited.add(id(node))\n",
            "        if parents_done:\n            continue\n"
            "        elif id(node) not in visited:\n            visited.add(id(node))\n"
            "            order.append(node)\n",
            "a node is appended when it is first reached (pre-order), not after its parents "
            "(post-order): the order is not topological, so gradients flow before they are complete",
            ("order", "topolog", "post-order", "pre-order", "postorder", "preorder"), slow=True),
    Mistake(A, "scalar_backprop", "seed_is_the_output_value",
            "    self.grad = 1.0\n", "    self.grad = self.value\n",
            "backprop starts from dL/dL = 1, not from the value of L",
            ("seed", "1.0", "dl/dl", "output's gradient", "output gradient", "start"), slow=True),
    Mistake(A, "numerical_gradient", "central_difference_reversed",
            "(f(x + eps) - f(x - eps)) / (2 * eps)", "(f(x - eps) - f(x + eps)) / (2 * eps)",
            "the central difference is f(x+ε) - f(x-ε): the two evaluations are subtracted the "
            "wrong way round, so the sign flips", ("sign", "negat", "minus", "revers", "order",
                                                    "swap"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
MISTAKES += [
    Mistake(A, "scalar_arithmetic", "add_second_operand_left_out",
            "((self, 1.0), (other, 1.0))", "((self, 1.0),)",
            "a + b has two parents: only a is recorded, so b never receives its gradient of 1",
            ("parent", "operand", "other", "missing", "left out", "second", "zero"), slow=True),
    Mistake(A, "scalar_arithmetic", "div_derivative_sign_lost",
            "(other, -self.value / other.value ** 2)", "(other, self.value / other.value ** 2)",
            "d(a/b)/db is -a/b²: the minus sign is lost", SIGN, slow=True),
    Mistake(A, "scalar_arithmetic", "rtruediv_operands_reversed",
            "return as_scalar(other) / self", "return self / as_scalar(other)",
            "2 / a is other / self: writing self / other computes a / 2",
            SWAP + ("order", "revers", "self / other", "other / self", "reciprocal"), slow=True),
    Mistake(A, "scalar_functions", "sigmoid_derivative_half_the_product",
            "((self, value * (1 - value)),)", "((self, 1 - value),)",
            "σ'(x) = σ(x)(1 - σ(x)): the factor σ(x) is forgotten",
            ("factor", "σ(x)", "sigmoid(x)", "missing", "forgot", "product"), slow=True),
    Mistake(A, "scalar_functions", "tanh_derivative_sech_not_squared",
            "((self, 1 - value ** 2),)", "((self, 1 / math.cosh(self.value)),)",
            "tanh'(x) = sech²(x) = 1/cosh²(x): the square of sech is missing", SQUARE, slow=True),
    Mistake(A, "scalar_backprop", "chain_rule_multiplies_the_parents_gradient",
            "parent.grad += local * node.grad", "parent.grad += local * parent.grad",
            "the chain rule passes on the node's own gradient, node.grad: parent.grad is the one "
            "being accumulated, still 0", ("node.grad", "upstream", "chain", "parent.grad",
                                           "wrong variable"), slow=True),
    Mistake(A, "scalar_backprop", "seed_set_before_the_reset",
            "    for node in order:\n        node.grad = 0.0\n    self.grad = 1.0\n",
            "    self.grad = 1.0\n    for node in order:\n        node.grad = 0.0\n",
            "the output is in `order` too: resetting every gradient after seeding it sets the "
            "seed back to 0, so every gradient is 0",
            ("seed", "reset", "order", "zero", "1.0", "dl/dl"), slow=True),
    Mistake(A, "numerical_gradient", "central_difference_step_two_eps",
            "(f(x + eps) - f(x - eps)) / (2 * eps)",
            "(f(x + 2 * eps) - f(x - 2 * eps)) / (2 * eps)",
            "x ± 2ε spans 4ε: divided by 2ε the estimate is doubled",
            ("2ε", "4ε", "2 * eps", "4 * eps", "factor", "twice", "double", "×2", "× 2", "half",
             "step"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
MISTAKES += [
    Mistake(A, "scalar_arithmetic", "mul_derivative_copied_from_add",
            "((self, other.value), (other, self.value))", "((self, 1.0), (other, self.value))",
            "d(ab)/da is b: the 1.0 copied from __add__ is the derivative of a sum, not a product",
            ("d/da", "product", "b", "1.0", "copied", "local derivative", "other.value"),
            slow=True),
    Mistake(A, "scalar_functions", "log_derivative_from_the_output",
            "return Scalar(math.log(self.value), ((self, 1 / self.value),))",
            "value = math.log(self.value)\n    return Scalar(value, ((self, 1 / value),))",
            "log'(x) = 1/x is written with the input x; 1/ln x uses the output, as exp's "
            "derivative may but log's may not", ("1/x", "input", "output", "ln", "log x",
                                                  "reciprocal"), slow=True),
    Mistake(A, "scalar_functions", "sigmoid_precedence",
            "value = 1 / (1 + math.exp(-self.value))", "value = 1 / 1 + math.exp(-self.value)",
            "1 / 1 + e^-x is 1 + e^-x: the parentheses around the denominator are missing",
            ("parenthes", "precedence", "bracket", "denominator", "1 + e"), slow=True),
    Mistake(A, "scalar_functions", "tanh_derivative_doubled_not_squared",
            "((self, 1 - value ** 2),)", "((self, 1 - value * 2),)",
            "tanh'(x) = 1 - tanh²(x): `* 2` doubles where `** 2` squares", SQUARE + ("double",), slow=True),
    Mistake(A, "scalar_backprop", "queue_instead_of_stack",
            "node, parents_done = stack.pop()", "node, parents_done = stack.pop(0)",
            "pop(0) takes from the front, a breadth-first queue: a node is put into the order "
            "before its parents, so the order is not topological",
            ("pop(0)", "queue", "breadth", "topolog", "order", "stack", "front"), slow=True),
    Mistake(A, "scalar_backprop", "visited_by_value",
            "        elif id(node) not in visited:\n            visited.add(id(node))\n",
            "        elif node.value not in visited:\n            visited.add(node.value)\n",
            "nodes are told apart by id(node): two different nodes with the same value are "
            "taken for one and the second is never visited",
            ("id(", "identity", "same value", "value", "visited", "distinct", "never visited"), slow=True),
    Mistake(A, "scalar_backprop", "reset_to_one",
            "    for node in order:\n        node.grad = 0.0\n",
            "    for node in order:\n        node.grad = 1.0\n",
            "the gradients start at 0 and the shares add to it; starting every node at 1 adds 1 "
            "to every gradient", ("reset", "zero", "0.0", "start", "initial", "1.0"), slow=True),
    Mistake(A, "numerical_gradient", "eps_argument_ignored",
            "return (f(x + eps) - f(x - eps)) / (2 * eps)",
            "return (f(x + 1e-6) - f(x - 1e-6)) / (2 * eps)",
            "the step must be the argument eps: the points x ± 1e-6 do not match the 2·eps "
            "divided by", ("eps", "argument", "parameter", "1e-6", "step", "hard-coded",
                           "hardcoded"), slow=True),
    Mistake(A, "numerical_gradient", "central_difference_sum",
            "return (f(x + eps) - f(x - eps)) / (2 * eps)",
            "return (f(x + eps) + f(x - eps)) / (2 * eps)",
            "the central difference subtracts f(x - eps); adding it gives about f(x)/eps",
            ("sign", "subtract", "minus", "+", "sum", "difference"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "scalar_arithmetic", "sub_value_reversed",
            "Scalar(self.value - other.value,", "Scalar(other.value - self.value,",
            "a - b is self.value - other.value: the value is computed as b - a, the negative",
            SWAP + SIGN + ("order", "revers", "b - a"), slow=True),
    Mistake(A, "scalar_arithmetic", "mul_value_copied_from_add",
            "Scalar(self.value * other.value,", "Scalar(self.value + other.value,",
            "the value of a·b is the product; `+` was copied from __add__, so a·b has the value "
            "a + b", ("product", "a + b", "copied", "__add__", "a·b", "a * b"), slow=True),
    Mistake(A, "scalar_arithmetic", "div_numerator_derivative_squared",
            "((self, 1 / other.value), (other,", "((self, 1 / other.value ** 2), (other,",
            "d(a/b)/da is 1/b: the square belongs only in the derivative for b",
            SQUARE + ("1/b", "1 / b"), slow=True),
    Mistake(A, "scalar_arithmetic", "div_derivative_precedence",
            "(other, -self.value / other.value ** 2)", "(other, -(self.value / other.value) ** 2)",
            "d(a/b)/db is -a/b²: squaring the whole quotient gives -a²/b²",
            SQUARE + ("parenthes", "precedence", "bracket", "a²", "a**2", "a ** 2"), slow=True),
    Mistake(A, "scalar_functions", "sigmoid_derivative_sign",
            "((self, value * (1 - value)),)", "((self, value * (value - 1)),)",
            "σ'(x) = σ(x)(1 - σ(x)): the factor is written σ(x) - 1, so the sign flips",
            SIGN + ("1 - σ", "1 - value", "σ(x) - 1", "value - 1"), slow=True),
    Mistake(A, "scalar_functions", "tanh_derivative_tanh_applied_twice",
            "((self, 1 - value ** 2),)", "((self, 1 - math.tanh(value) ** 2),)",
            "value is already tanh(x): 1 - tanh(value)² applies tanh a second time",
            ("twice", "again", "tanh(tanh", "already", "tanh(value)", "applied to the output"),
            slow=True),
    Mistake(A, "scalar_functions", "exp_derivative_one",
            "return Scalar(value, ((self, value),))", "return Scalar(value, ((self, 1.0),))",
            "d(e^x)/dx = e^x: the local derivative is left at 1, as for an addition",
            ("exp(x)", "e^x", "local derivative", "itself"), slow=True),
    Mistake(A, "scalar_backprop", "node_pushed_after_its_parents",
            "            stack.append((node, True))\n"
            "            stack.extend((parent, False) for parent, _ in node.parents)\n",
            "            stack.extend((parent, False) for parent, _ in node.parents)\n"
            "            stack.append((node, True))\n",
            "the node's 'done' marker must go on the stack under its parents; pushed on top it "
            "pops first, so the node enters the order before its parents",
            ("order", "topolog", "stack", "before its parents", "post-order", "pre-order"),
            slow=True),
    Mistake(A, "scalar_backprop", "backward_skips_the_output",
            "for node in reversed(order):", "for node in reversed(order[:-1]):",
            "the output is the last node of the order: leaving it out of the loop means its "
            "gradient of 1 is never passed on",
            ("off-by-one", "off by one", "skip", "order[:-1]", "left out", "output node", "seed"),
            slow=True),
    Mistake(A, "numerical_gradient", "central_difference_numerator_unparenthesised",
            "return (f(x + eps) - f(x - eps)) / (2 * eps)",
            "return f(x + eps) - f(x - eps) / (2 * eps)",
            "without parentheses around the difference only f(x - eps) is divided by 2ε",
            ("parenthes", "precedence", "bracket", "group", "numerator"), slow=True),
]
