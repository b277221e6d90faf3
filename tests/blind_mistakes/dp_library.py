"""Blind mistakes in 03, a DP library (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .scalar_autodiff import ACCUMULATE

A = "03_dp_library"
ORDER = ("order", "revers", "topolog")
SIGN = ("sign", "negat", "minus", "ascent", "uphill", "opposite", "up the gradient", "climb",
        "along the gradient")

MISTAKES = [
    Mistake(A, "named_leaves", "gradient_overwritten_not_accumulated",
            "grads[id(parent)] = grads.get(id(parent), 0) + grad_fn(g_node)",
            "grads[id(parent)] = grad_fn(g_node)",
            "a node used twice must add up the gradients of both uses; = keeps only the last",
            ACCUMULATE),
    Mistake(A, "named_leaves", "walked_from_the_leaves",
            "for node in topological_order(self):", "for node in reversed(topological_order(self)):",
            "gradients are passed from the output to the leaves: the order is walked backwards",
            ORDER),
    Mistake(A, "named_leaves", "upstream_gradient_ignored",
            "grads = {id(self): np.ones(self.shape) * g}", "grads = {id(self): np.ones(self.shape)}",
            "grad(g) starts from the given upstream gradient g; it always starts from ones",
            ("upstream", "seed", "ones", "g ", "initial gradient", "scale", "factor")),
    Mistake(A, "model_layers", "bias_is_a_column",
            "self.b = Node(np.zeros((1, n_out)), f\"{name}_b\")",
            "self.b = Node(np.zeros((n_out, 1)), f\"{name}_b\")",
            "the bias is a row (1, n_out) added to every example; a column broadcasts wrongly",
            ("shape", "bias", "broadcast", "transpos", "column", "row")),
    Mistake(A, "model_layers", "relu_on_every_layer",
            "return h.relu() if self.activation == \"relu\" else h", "return h.relu()",
            "a Linear_Layer has no activation; ReLU is applied to it too",
            ("relu", "activation", "linear")),
    Mistake(A, "training_loop", "gradient_ascent",
            "param[name] - lr * grads[name]", "param[name] + lr * grads[name]",
            "gradient descent steps against the gradient: + climbs the loss", SIGN),
    Mistake(A, "training_loop", "gradient_computed_once",
            "    for _ in range(steps):\n        grads, loss = net.get_grad(x, y)\n",
            "    grads, loss = net.get_grad(x, y)\n    for _ in range(steps):\n",
            "the gradient is computed once, before the loop, and never again at the new "
            "parameters", ("once", "stale", "outside the loop", "recomput", "every step",
                           "before the loop")),
    Mistake(A, "training_loop", "step_replaces_the_parameter",
            "{name: param[name] - lr * grads[name] for name in param}",
            "{name: -lr * grads[name] for name in param}",
            "the update is θ - lr·g: the current parameter θ is dropped, only the step is kept",
            ("param", "current", "θ", "theta", "dropped", "term", "previous value")),
]

# Round 2 (2026-11-28), written blind as round 1 was.
MISTAKES += [
    Mistake(A, "named_leaves", "leaf_value_returned_for_its_gradient",
            "named[node.name] = g_node", "named[node.name] = node.value",
            "grad returns dL/d(leaf): the leaf's value is stored instead of the gradient that "
            "arrived at it", ("value", "instead of the gradient", "not the gradient",
                              "node.value")),
    Mistake(A, "model_layers", "bias_added_after_relu",
            "h = x.dot(self.W) + self.b\n        return h.relu() if self.activation == \"relu\" else h",
            "h = x.dot(self.W)\n        return h.relu() + self.b if self.activation == \"relu\" "
            "else h + self.b",
            "relu(x W + b): the bias goes inside the activation; it is added after the ReLU",
            ("bias", "order", "after", "before", "inside", "outside")),
    Mistake(A, "training_loop", "return_inside_the_loop",
            "        losses.append(loss)\n    return losses",
            "        losses.append(loss)\n        return losses",
            "return is indented into the for loop: train returns after the first step",
            ("return", "loop", "indent", "early", "first step", "one step", "only once",
             "1 step")),
    Mistake(A, "training_loop", "gradient_divided_by_the_batch_size",
            "param[name] - lr * grads[name]", "param[name] - lr * grads[name] / len(x)",
            "the loss is already a mean: dividing the gradient by the batch size again makes "
            "the steps 64 times too small", ("batch size", "len(x)", "1/n", "divid", "mean",
                                            "factor", "too small", "learning rate", "slow")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "named_leaves", "named_intermediate_nodes_returned",
            "if node.name is not None and not node.parents:", "if node.name is not None:",
            "grad returns the gradients of the named leaves; a named intermediate node is no "
            "leaf (the ops make unnamed nodes, so no graph built with them shows it)",
            ("leaf", "leaves", "intermediate", "parents"), wrong_value=False, slow=True),
    Mistake(A, "named_leaves", "parents_get_the_seed_not_the_node_gradient",
            "grads.get(id(parent), 0) + grad_fn(g_node)", "grads.get(id(parent), 0) + grad_fn(g)",
            "each node passes on its own gradient g_node; g, the seed, is the output's only",
            ("upstream", "chain", "seed", "g_node", "node's gradient", "variable"), slow=True),
    Mistake(A, "model_layers", "bias_added_inside_the_product",
            "h = x.dot(self.W) + self.b", "h = x.dot(self.W + self.b)",
            "x(W + b) adds Σx·b, not b: the bias belongs outside the product",
            ("bias", "parenthes", "bracket", "precedence", "inside"), slow=True),
    Mistake(A, "model_layers", "set_param_casts_to_int",
            "own[name].value = np.array(value, dtype=float)",
            "own[name].value = np.array(value, dtype=int)",
            "parameters are real numbers: dtype=int truncates every weight towards 0",
            ("int", "dtype", "truncat", "integer", "float"), slow=True),
    Mistake(A, "training_loop", "parameters_read_once_before_the_loop",
            "    for _ in range(steps):\n        grads, loss = net.get_grad(x, y)\n"
            "        param = net.get_param()\n",
            "    param = net.get_param()\n    for _ in range(steps):\n"
            "        grads, loss = net.get_grad(x, y)\n",
            "the parameters are read once, before the loop: every step starts again from the "
            "initial parameters instead of the current ones", ("state", "carried", "initial",
                                                             "current", "once", "every step"),
            slow=True),
    Mistake(A, "training_loop", "loss_recorded_after_the_step",
            "        losses.append(loss)\n", "        losses.append(net.get_grad(x, y)[1])\n",
            "the loss of each step is the one the gradient was taken at, before the update; "
            "this records the loss after it, one step ahead",
            ("after", "before", "one step", "shift", "ahead"), slow=True),
    Mistake(A, "model_layers", "relu_name_capitalised",
            'return Layer(n_in, n_out, name, "relu")', 'return Layer(n_in, n_out, name, "ReLU")',
            'the layer compares its activation with "relu": "ReLU" never matches, so the ReLU '
            "layer is linear", ("relu", "activation", "linear", "case", "capital"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
# Written and left out (the self-check gives them full marks; gaps in model_layers' checks):
# the initialisation's variance from n_out, the variance passed as the standard deviation, He's
# factor 2 on the linear layer too, and the bias added as `self.b.value` (no gradient reaches b).
# (Stop 40: each fails now; mutants variance_over_n_out and bias_used_by_its_value.)
MISTAKES += [
    Mistake(A, "named_leaves", "gradients_keyed_by_name",
            "    grads = {id(self): np.ones(self.shape) * g}    # what has arrived at each node so far\n"
            "    named = {}\n"
            "    for node in topological_order(self):\n"
            "        g_node = grads.pop(id(node))\n",
            "    grads = {self.name: np.ones(self.shape) * g}    # what has arrived at each node so far\n"
            "    named = {}\n"
            "    for node in topological_order(self):\n"
            "        g_node = grads.pop(node.name, 0)\n",
            "the gradients that arrive must be kept per node (by id): keyed by name, every "
            "unnamed intermediate node shares the key None and their gradients are mixed up",
            ("name", "none", "id(", "identity", "unnamed", "key", "mixed"), slow=True),
    Mistake(A, "training_loop", "learning_rate_forgotten",
            "param[name] - lr * grads[name]", "param[name] - grads[name]",
            "the gradient-descent step is θ - lr·∇L: without the learning rate the steps are far "
            "too large", ("learning rate", "lr", "step size", "factor", "scale"), slow=True),
    Mistake(A, "training_loop", "one_step_short",
            "    for _ in range(steps):\n        grads, loss = net.get_grad(x, y)\n        param =",
            "    for _ in range(steps - 1):\n        grads, loss = net.get_grad(x, y)\n        param =",
            "range(steps) already runs `steps` times: range(steps - 1) takes one step too few",
            ("off by one", "off-by-one", "one too few", "one step", "steps", "range", "length",
             "count"), slow=True),
    Mistake(A, "named_leaves", "unnamed_leaves_returned",
            "if node.name is not None and not node.parents:", "if not node.parents:",
            "only the named leaves are returned: constant leaves have no name, and they all land "
            "under the key None", ("name", "none", "unnamed", "constant", "key"), slow=True),
    Mistake(A, "training_loop", "biases_never_updated",
            "{name: param[name] - lr * grads[name] for name in param}",
            "{name: param[name] - lr * grads[name] for name in param if name.endswith(\"_W\")}",
            "every parameter takes a step, the biases too: only the weights W are updated",
            ("bias", "_b", "every parameter", "all parameters", "weights only"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (full marks in the self-check): the seed left a bare number, old `grads =
# {id(self): np.ones(self.shape) * g}` -> new `grads = {id(self): g}` (a 1x1 output made by a dot,
# or a named leaf as output, then gets a number, not an array);
# each layer draws W from a new generator, old `Node(init_rng.normal(0.0, np.sqrt(variance),
# (n_in, n_out)), f"{name}_W")` -> new `Node(np.random.default_rng(0).normal(0.0,
# np.sqrt(variance), (n_in, n_out)), f"{name}_W")` (init_rng ignored, every layer the same draws);
# the step ignores the argument lr, old `param[name] - lr * grads[name]` -> new `param[name] -
# 0.05 * grads[name]` in train (the default, so a check with lr = 0.05 only cannot tell).
# (Stop 41: the last fails now; mutant train_ignores_its_lr.)
from .scalar_autodiff import SWAP  # noqa: E402
MISTAKES += [
    Mistake(A, "named_leaves", "accumulates_the_nodes_own_entry",
            "grads[id(parent)] = grads.get(id(parent), 0) + grad_fn(g_node)",
            "grads[id(parent)] = grads.get(id(node), 0) + grad_fn(g_node)",
            "the share is added to what has already arrived at the parent, grads[id(parent)]: "
            "id(node) reads the node's own entry, popped already, so earlier shares are lost",
            ("id(parent)", "parent", "accumulat", "earlier share", "wrong key", "overwrit"), slow=True),
    Mistake(A, "model_layers", "variance_passed_as_the_standard_deviation",
            "init_rng.normal(0.0, np.sqrt(variance), (n_in, n_out))",
            "init_rng.normal(0.0, variance, (n_in, n_out))",
            "normal() takes the standard deviation: the square root of the variance 2/n_in is "
            "missing", ("standard deviation", "sqrt", "square root", "variance", "std", "scale"), slow=True),
    Mistake(A, "model_layers", "fan_out_instead_of_fan_in",
            "variance = (2.0 if activation == \"relu\" else 1.0) / n_in",
            "variance = (2.0 if activation == \"relu\" else 1.0) / n_out",
            "He and LeCun initialisation divide by the number of inputs n_in, not outputs",
            ("n_in", "fan_in", "fan-in", "fan in", "n_out", "inputs", "outputs"), slow=True),
    Mistake(A, "model_layers", "product_operands_reversed",
            "h = x.dot(self.W) + self.b", "h = self.W.dot(x) + self.b",
            "the rows of x are the examples: the layer computes x W, (n, n_in) @ (n_in, n_out); "
            "W x has its operands in the wrong order", SWAP + ("order", "x w", "w x", "shape",
                                                             "x.dot", "commut"), slow=True),
    Mistake(A, "model_layers", "bias_initialised_to_one",
            "self.b = Node(np.zeros((1, n_out)), f\"{name}_b\")",
            "self.b = Node(np.ones((1, n_out)), f\"{name}_b\")",
            "the biases start at zero; np.ones starts every one at 1",
            ("zero", "np.ones", "ones", "bias", "initial"), slow=True),
    Mistake(A, "training_loop", "update_applied_to_the_copies",
            "net.set_param({name: param[name] - lr * grads[name] for name in param})",
            "for name in param:\n            param[name] -= lr * grads[name]",
            "get_param returns copies: subtracting from them leaves the network unchanged, "
            "set_param must write them back", ("set_param", "cop", "unchanged", "never updated",
                                                "not updated", "write"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "named_leaves", "leaf_test_inverted",
            "if node.name is not None and not node.parents:",
            "if node.name is not None and node.parents:",
            "a leaf is a node WITHOUT parents: the test is inverted, so the named leaves are "
            "never collected", ("leaf", "leaves", "invert", "not node.parents", "condition"),
            slow=True),
    Mistake(A, "named_leaves", "leaf_gradient_summed_to_a_number",
            "named[node.name] = g_node", "named[node.name] = np.sum(g_node)",
            "each gradient has the shape of its leaf: summing it to one number loses every entry",
            ("shape", "number", "scalar", "entries"), slow=True),
    Mistake(A, "model_layers", "he_branch_inverted",
            "(2.0 if activation == \"relu\" else 1.0) / n_in",
            "(1.0 if activation == \"relu\" else 2.0) / n_in",
            "He's 2/n_in is for ReLU layers and 1/n_in for linear ones: the branches are "
            "exchanged", ("2/n_in", "1/n_in", "branch", "swap", "exchang", "invert"), slow=True),
    Mistake(A, "model_layers", "bias_left_out",
            "h = x.dot(self.W) + self.b", "h = x.dot(self.W)",
            "the layer is x W + b: without b the bias is never used and gets no gradient",
            ("bias", "+ b", "self.b", "left out"), slow=True),
    Mistake(A, "model_layers", "standard_deviation_passed_as_the_mean",
            "init_rng.normal(0.0, np.sqrt(variance), (n_in, n_out))",
            "init_rng.normal(np.sqrt(variance), size=(n_in, n_out))",
            "normal(loc, scale, size): with the mean left out, the standard deviation is taken "
            "as the mean and the spread is 1", ("mean", "loc", "standard deviation", "argument",
                                                "scale", "centred", "centered"), slow=True),
    Mistake(A, "model_layers", "weight_name_without_underscore",
            "f\"{name}_W\")", "f\"{name}W\")",
            "the weight's name is f\"{name}_W\": without the underscore the key does not match "
            "the parameter names", ("key", "underscore", "spell", "misspel", "parameter name"),
            slow=True),
    Mistake(A, "training_loop", "losses_list_reset_every_step",
            "    losses = []\n    for _ in range(steps):\n",
            "    for _ in range(steps):\n        losses = []\n",
            "losses = [] inside the loop empties the list every step: only the last loss is "
            "returned", ("reset", "inside the loop", "one loss", "every step", "len(", "emptied"),
            slow=True),
    Mistake(A, "training_loop", "parameter_and_gradient_swapped",
            "param[name] - lr * grads[name]", "grads[name] - lr * param[name]",
            "the step is θ - lr·∇θ: the parameter and its gradient are exchanged",
            ("swap", "exchang", "θ - lr", "theta - lr", "operand"), slow=True),
]

# Written and left out (they keep every point of their task, graded by the self-check with the
# public seed): train calling `net.get_grad(x, x)`, the inputs as the targets (training_loop
# keeps 4/4); a one-dimensional bias `np.zeros(n_out)` for the (1, n_out) row (model_layers
# keeps 2/2; its values broadcast alike, so it may give no wrong value at all).
