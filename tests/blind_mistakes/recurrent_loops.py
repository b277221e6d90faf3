"""Blind mistakes in 13, recurrent loops (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .activation_functions import OFF_BY_ONE
from .scalar_autodiff import ACCUMULATE

A = "13_recurrent_loops"
DELAY = ("delay", "past", "steps", "lambda", "earlier", "previous")

MISTAKES = [
    Mistake(A, "forward_order", "root_test_inverted",
            "if low[node] == index[node]:", "if low[node] != index[node]:",
            "a node is the root of a component when low == index; the test is inverted",
            ("component", "root", "low", "index")),
    Mistake(A, "forward_order", "stack_popped_one_too_few",
            "while not component or component[-1] != node:", "while stack and stack[-1] != node:",
            "the component is the stack down to and including its root; the root stays behind",
            ("component", "root", "stack") + OFF_BY_ONE),
    Mistake(A, "forward_order", "delay_edges_kept_everywhere",
            "if network[name][0] == \"delay\":\n                    return []",
            "if False:\n                    return []",
            "inside a loop the delay nodes are leaves: their source was computed at an earlier step",
            DELAY + ("leaf", "leaves")),
    Mistake(A, "loop_forward", "delay_reads_the_current_step",
            "members[source][t - steps] if t >= steps", "members[source][t - steps + 1] if t >= steps",
            "the delay gives its source's value `steps` steps back, t - steps, not t - steps + 1",
            DELAY + OFF_BY_ONE),
    Mistake(A, "loop_forward", "outside_delay_not_shifted",
            "values[name] = np.concatenate([initial(name, (steps, B)), source[:T - steps]])",
            "values[name] = source",
            "a delay outside a loop shifts the whole sequence by its steps, with the initial value "
            "in front", DELAY + ("shift", "initial")),
    Mistake(A, "loop_backward", "delay_gradient_sent_forward_in_time",
            "grads[source][t - steps] += g       # the book's rule: to the source, lambda back",
            "grads[source][min(t + steps, T - 1)] += g",
            "the delay's gradient at t goes to its source at t - steps (the step it read)",
            DELAY + ("t - steps", "source")),
    Mistake(A, "loop_backward", "upstream_ignored",
            "    for name, g in upstream.items():\n        grads[name] += g\n",
            "",
            "the direct gradients of the loss (upstream) never enter the backward pass",
            ("upstream", "direct", "loss", "zero")),
    Mistake(A, "loop_backward", "outside_delay_gradient_not_shifted",
            "grads[source][:T - steps] += g[steps:]", "grads[source] += g",
            "outside a loop the delay's gradient is the upstream shifted back by its steps",
            DELAY + ("shift",)),
    Mistake(A, "lstm_task", "forget_gate_from_the_input_gate",
            "z[..., k:2 * k].sigmoid(), z[..., 3 * k:].sigmoid()",
            "z[..., :k].sigmoid(), z[..., 3 * k:].sigmoid()",
            "the forget gate reads its own k columns, z[..., k:2k]",
            ("forget", "gate", "columns", "slice"), slow=True),
]
