"""Mutants of 03 DP library: the mistakes of a first library layer on top of autodiff."""
from tests.grading import Mutant

A = "03_dp_library"

MUTANTS = [
    # named_leaves
    Mutant(A, "named_leaves", "only_the_last_leaf",
           "            named[node.name] = g_node\n", "            named = {node.name: g_node}\n",
           "grad(1) starts a new dict at every named leaf: only the last one visited is returned"),
    Mutant(A, "named_leaves", "no_accumulation",
           "grads[id(parent)] = grads.get(id(parent), 0) + grad_fn(g_node)",
           "grads[id(parent)] = grad_fn(g_node)",
           "a node used twice keeps only the last share of its gradient"),
    Mutant(A, "named_leaves", "unnamed_leaves_included",
           "if node.name is not None and not node.parents:", "if not node.parents:",
           "constants (leaves without a name) get an entry, under None"),
    Mutant(A, "named_leaves", "upstream_ignored",
           "grads = {id(self): np.ones(self.shape) * g}", "grads = {id(self): np.ones(self.shape)}",
           "grad(g) always starts from 1"),
    # model_layers
    Mutant(A, "model_layers", "relu_layer_is_linear",
           'return h.relu() if self.activation == "relu" else h', "return h",
           "Layer never applies the ReLU: a ReLU layer is linear"),
    Mutant(A, "model_layers", "bias_named_like_the_weights",
           'self.b = Node(np.zeros((1, n_out)), f"{name}_b")',
           'self.b = Node(np.zeros((1, n_out)), f"{name}_bias")',
           "the bias named h1_bias instead of the library's h1_b"),
    Mutant(A, "model_layers", "variance_over_n_out",
           'variance = (2.0 if activation == "relu" else 1.0) / n_in',
           'variance = (2.0 if activation == "relu" else 1.0) / n_out',
           "the initial weights' variance divided by the layer's fan-out instead of its fan-in"),
    Mutant(A, "model_layers", "bias_used_by_its_value",
           "h = x.dot(self.W) + self.b", "h = x.dot(self.W) + self.b.value",
           "the bias added as an array: the forward pass is right, but b is no leaf of the graph "
           "and gets no gradient"),
    # training_loop
    Mutant(A, "training_loop", "one_step_too_few",
           "    for _ in range(steps):\n        grads, loss = net.get_grad(x, y)",
           "    for _ in range(steps - 1):\n        grads, loss = net.get_grad(x, y)",
           "range(steps - 1): the loop takes one step fewer than it is told"),
    Mutant(A, "training_loop", "gradient_ascent",
           "param[name] - lr * grads[name]", "param[name] + lr * grads[name]",
           "the step goes along the gradient: the loss grows"),
    Mutant(A, "training_loop", "train_ignores_its_lr",
           "param[name] - lr * grads[name]", "param[name] - 0.05 * grads[name]",
           "the step uses train's default learning rate, whatever lr it is given (round 5's gap)", slow=True),
    Mutant(A, "training_loop", "get_grad_arguments_swapped",
           "grads, loss = net.get_grad(x, y)", "grads, loss = net.get_grad(y, x)",
           "the gradients of the targets as inputs, towards the inputs (round 6's gap)", slow=True),
    Mutant(A, "training_loop", "learning_rate_too_small",
           "steps: int = 1000, lr: float = 0.05", "steps: int = 1000, lr: float = 0.0001",
           "a learning rate 500 times too small to reach the target in 1,000 steps"),
    Mutant(A, "training_loop", "parameters_never_set",
           "        net.set_param({name: param[name] - lr * grads[name] for name in param})\n",
           "        param = {name: param[name] - lr * grads[name] for name in param}\n",
           "new parameters computed and never given to the model"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/dp_library.py, autograder/checks/dp_library.py). The held-out mutants
# (tests/mutants/__init__.py) are measured: never given a mistake here.
NAMED = {
    "train_ignores_its_lr": "learning_rate_not_used",
    "get_grad_arguments_swapped": "gradients_of_other_data",
    "no_accumulation": "shares_overwritten",
    "relu_layer_is_linear": "relu_layers_linear",
    "bias_used_by_its_value": "parameter_used_by_its_value",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "one_step_too_few": "a count of steps, not a value: the message says how many it took",
    "only_the_last_leaf": "missing entries: the dict's keys, which the check lists",
    "unnamed_leaves_included": "an extra entry (None): the dict's keys, which the check lists",
    "gradient_ascent": "a training loop, graded by the loss it reaches (its learning rate is "
                       "the student's)",
    "learning_rate_too_small": "a training loop, graded by the loss it reaches",
    "parameters_never_set": "a training loop, graded by the loss it reaches",
    "bias_named_like_the_weights": "a parameter's name: the dict's keys, which the check lists",
    "variance_over_n_out": "a random draw's spread, a statistic of 40,000 weights: the message says by what factor",
}
