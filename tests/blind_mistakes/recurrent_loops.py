"""Blind mistakes in 13, recurrent loops (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .activation_functions import OFF_BY_ONE

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
    Mistake(A, "forward_order", "delay_edges_cut_on_the_wrong_side",
            "if network[name][0] == \"delay\":\n                    return []\n"
            "                return [a for a in node_operands(network, name) if a in members]",
            "return [a for a in node_operands(network, name)\n"
            "                        if a in members and network[a][0] != \"delay\"]",
            "inside a loop a delay node is a leaf: the edge from it to its source is left out, not "
            "the edges into it from the nodes that read it (which must come after it)",
            DELAY + ("leaf", "leaves", "operand")),
    Mistake(A, "loop_forward", "initial_value_one_step_too_long",
            "members[source][t - steps] if t >= steps", "members[source][t - steps] if t > steps",
            "the delay gives its initial value for t < steps only; at t = steps it gives its "
            "source's first value", DELAY + OFF_BY_ONE + ("initial",)),
    Mistake(A, "loop_forward", "outside_delay_not_shifted",
            "values[name] = np.concatenate([initial(name, (steps, B)), source[:T - steps]])",
            "values[name] = source",
            "a delay outside a loop shifts the whole sequence by its steps, with the initial value "
            "in front", DELAY + ("shift", "initial")),
    Mistake(A, "loop_backward", "loop_nodes_not_reversed_within_a_step",
            "            for name in reversed(component):\n                step_back(name, t)",
            "            for name in component:\n                step_back(name, t)",
            "within a step the loop's nodes go back in reverse order too: a node sends its "
            "gradient on before the nodes that read it at the same step have added theirs",
            ("order", "reverse", "before", "complete")),
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
