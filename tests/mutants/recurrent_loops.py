"""Mutants of 13 recurrent loops: the mistakes of Tarjan's algorithm and the forward order, of
running a loop step by step, of backpropagation through time over a loop's nodes, and of the
LSTM."""
from tests.grading import Mutant

A = "13_recurrent_loops"

MUTANTS = [
    # forward_order
    Mutant(A, "forward_order", "finished_component_lowers_low",
           "            elif child in on_stack:\n                low[node] = min(low[node], index[child])",
           "            else:\n                low[node] = min(low[node], index[child])",
           "an edge to a node of a component already emitted lowers low: components merge"),
    Mutant(A, "forward_order", "low_not_passed_to_the_parent",
           "                    low[parent] = min(low[parent], low[node])\n",
           "",
           "going back up, the parent never learns the child's low: every node is a component",
           slow=True),
    Mutant(A, "forward_order", "components_in_reverse",
           "        order.append(component)\n    return order",
           "        order.append(component)\n    return order[::-1]",
           "the components in the order Tarjan's algorithm emits them, reversed",
           slow=True),
    Mutant(A, "forward_order", "loop_order_keeps_the_delay_edges",
           "                if network[name][0] == \"delay\":\n                    return []\n",
           "",
           "inside a loop, the delay nodes are not leaves: the loop stays one component and only "
           "its first node is kept"),
    Mutant(A, "forward_order", "loop_nodes_not_ordered",
           "            component = [c[0] for c in strongly_connected_components(component, within)]",
           "            component = component",
           "the nodes of a loop in the order Tarjan's algorithm popped them",
           slow=True),
    # loop_forward
    Mutant(A, "loop_forward", "delay_starts_from_zeros",
           "                                         else initial(name, (B,)))",
           "                                         else np.zeros((B,) + np.shape(params[args[2]])))",
           "in a loop, the delay node gives zeros before the first steps, not its initial value"),
    Mutant(A, "loop_forward", "every_node_step_by_step",
           "        if len(component) == 1:\n            [name] = component\n            op, *args = network[name]\n            if op == \"input\":",
           "        if len(component) == 1 and network[component[0]][0] in (\"input\", \"delay\"):\n            [name] = component\n            op, *args = network[name]\n            if op == \"input\":",
           "the nodes outside the loops are computed step by step too: the right values, T times "
           "as many op calls",
           slow=True),
    Mutant(A, "loop_forward", "delay_always_one_step",
           "members[source][t - steps] if t >= steps",
           "members[source][t - 1] if t >= 1",
           "in a loop, the delay node looks back one step, whatever its number of steps"),
    # loop_backward
    Mutant(A, "loop_backward", "backward_forward_in_time",
           "        for t in reversed(range(T)):\n            for name in reversed(component):",
           "        for t in range(T):\n            for name in reversed(component):",
           "the loop's backward pass runs t = 0, 1, ...: the later steps' gradients have not "
           "arrived",
           slow=True),
    Mutant(A, "loop_backward", "no_gradient_through_the_delay",
           "                grads[source][t - steps] += g       # the book's rule: to the source, lambda back",
           "                pass",
           "in a loop, the delay node sends nothing back to its source"),
    Mutant(A, "loop_backward", "delay_gradient_to_the_same_step",
           "                grads[source][t - steps] += g       # the book's rule: to the source, lambda back",
           "                grads[source][t] += g",
           "the delay node's gradient goes to its source at step t instead of t - steps",
           slow=True),
    Mutant(A, "loop_backward", "parameter_gradient_overwritten",
           "            dparams[a] += unbroadcast(g, np.shape(params[a]))",
           "            dparams[a] = unbroadcast(g, np.shape(params[a]))",
           "a shared parameter keeps only the last share of its gradient"),
    Mutant(A, "loop_backward", "initial_value_gets_no_gradient",
           "            else:\n                send(start, g, t)",
           "            else:\n                pass",
           "in a loop, the delay node's initial value gets no gradient",
           slow=True),
    # lstm_task
    Mutant(A, "lstm_task", "gates_in_the_order_i_f_o_g",
           "i, f, o = z[..., :k].sigmoid(), z[..., k:2 * k].sigmoid(), z[..., 3 * k:].sigmoid()\n"
           "        c = f * c_prev + i * z[..., 2 * k:3 * k].tanh()",
           "i, f, o = z[..., :k].sigmoid(), z[..., k:2 * k].sigmoid(), z[..., 2 * k:3 * k].sigmoid()\n"
           "        c = f * c_prev + i * z[..., 3 * k:].tanh()",
           "the gates in the order i, f, o, g: the network learns, but it is not the LSTM of the "
           "notebook, which the grader runs on its parameters"),
    Mutant(A, "lstm_task", "predict_argmax_over_the_batch",
           "return model.forward(sequences).value.argmax(axis=1)",
           "return model.forward(sequences).value.argmax(axis=0)",
           "predict takes the argmax over the sequences, not over the classes",
           slow=True),
    Mutant(A, "lstm_task", "forget_bias_zero",
           "forget_bias: float = 5.0", "forget_bias: float = 0.0",
           "the forget gate starts at 0.5: the gradient to step 0 vanishes as in the Elman network"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/recurrent_loops.py). The held-out mutants (tests/mutants/__init__.py)
# are measured: never given a mistake here.
NAMED = {
    "delay_starts_from_zeros": "delay_from_zeros",
    "no_gradient_through_the_delay": "delay_no_gradient",
    "delay_gradient_to_the_same_step": "delay_gradient_same_step",
    "initial_value_gets_no_gradient": "no_initial_gradient",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "finished_component_lowers_low": "a wrong partition, checked as a property of the reply (any "
                                     "valid order passes) and worded by the node it misplaces",
    "low_not_passed_to_the_parent": "a wrong partition, checked as a property of the reply and "
                                    "worded by the node it misplaces",
    "components_in_reverse": "a wrong order, checked as a property (any valid order passes): "
                             "the message names the node read before it is computed",
    "loop_order_keeps_the_delay_edges": "nodes left out, worded by the nodes missing",
    "loop_nodes_not_ordered": "a wrong order inside a loop, checked as a property: the message "
                              "names the node that comes before its operand",
    "every_node_step_by_step": "the right values: only the number of op calls is wrong",
    "backward_forward_in_time": "the catalogue's forward_in_time also runs the shifts outside the loops forward in time, so it names this only where no delay outside a loop reads a node",
    "gates_in_the_order_i_f_o_g": "a trained model, graded by its accuracy on new sequences",
    "predict_argmax_over_the_batch": "a wrong shape: one class per sequence is expected",
    "forget_bias_zero": "a trained model, graded by its accuracy on new sequences",
}
