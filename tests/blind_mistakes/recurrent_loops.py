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

# Round 2 (2026-11-28), written blind as round 1 was.
from .scalar_autodiff import SWAP  # noqa: E402
MISTAKES += [
    Mistake(A, "forward_order", "cross_edges_not_checked_on_the_stack",
            "            elif child in on_stack:\n", "            else:\n",
            "an edge to a node already in a finished component must not lower low: only nodes "
            "still on the stack count", ("on_stack", "on the stack", "stack", "cross edge",
                                         "finished", "component", "low")),
    Mistake(A, "forward_order", "low_not_passed_to_the_parent",
            "                    low[parent] = min(low[parent], low[node])\n", "",
            "when a child is done, its low must be passed up to its parent; without it no loop "
            "is ever found", ("low", "low-link", "lowlink", "parent", "propagat", "loop",
                              "component")),
    Mistake(A, "loop_forward", "outside_delay_shifted_forward",
            "np.concatenate([initial(name, (steps, B)), source[:T - steps]])",
            "np.concatenate([initial(name, (steps, B)), source[steps:]])",
            "a delay gives source[t - steps], the past: source[steps:] gives values from the "
            "future", DELAY + ("shift", "future", "wrong direction", "t + steps", "t - steps",
                               "slice")),
    Mistake(A, "loop_forward", "loop_operand_read_as_a_whole_sequence",
            "operands = [members[a][t] if a in members else values[a][t] if a in values",
            "operands = [members[a][t] if a in members else values[a] if a in values",
            "inside the loop step t reads step t of a node outside it, values[a][t], not the whole "
            "sequence", ("step", "[t]", "time step", "whole sequence", "shape", "index")),
    Mistake(A, "loop_backward", "loop_backprop_forward_in_time",
            "for t in reversed(range(T)):", "for t in range(T):",
            "through time inside a loop the steps are visited from the last to the first",
            ("revers", "order", "backward in time", "last step", "last to the first",
             "time")),
    Mistake(A, "lstm_task", "input_and_forget_gates_swapped",
            "c = f * c_prev + i * z[..., 2 * k:3 * k].tanh()",
            "c = i * c_prev + f * z[..., 2 * k:3 * k].tanh()",
            "c_t = f·c_{t-1} + i·g: the forget gate multiplies the old cell, the input gate the "
            "candidate; they are swapped", SWAP + ("forget", "input gate", "gate"), slow=True),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "forward_order", "roots_walked_again",
            "        if root in index:\n            continue\n", "",
            "a root already reached from an earlier root is walked again: its nodes get new "
            "indices and land in a second component", ("visited", "again", "twice", "once",
                                                       "duplicat", "index"), slow=True),
    Mistake(A, "forward_order", "loops_of_two_not_ordered",
            "if len(component) > 1:", "if len(component) > 2:",
            "a loop of two nodes is a loop too: > 2 leaves its members in Tarjan's order, "
            "not in the order the delay node's cut gives", ("off by one", "off-by-one", "two",
                                                           "loop", "size", "order"), slow=True),
    Mistake(A, "loop_forward", "in_loop_delay_starts_one_step_late",
            "members[source][t - steps] if t >= steps", "members[source][t - steps] if t > steps",
            "the delayed value is available from step `steps` on; > uses the initial value one "
            "step too long", ("off by one", "off-by-one", "initial", "one step", ">="),
            slow=True),
    Mistake(A, "loop_backward", "initial_value_gets_no_gradient",
            "                send(start, g[:steps], None)\n", "",
            "the first `steps` outputs of a delay are its initial value: their gradient "
            "belongs to it", ("initial", "start", "missing", "no gradient"), slow=True),
    Mistake(A, "loop_backward", "in_loop_delay_gradient_off_by_one",
            "            elif t >= steps:\n", "            elif t > steps:\n",
            "at step t = steps the delay passed on its source's step 0, so its gradient goes "
            "there, not to the initial value", ("off by one", "off-by-one", "initial", ">=",
                                                "one step"), slow=True),
    Mistake(A, "loop_backward", "step_gradient_overwritten",
            "            grads[a][t] += g\n", "            grads[a][t] = g\n",
            "a node used by several nodes at a step adds up their gradients; = keeps only the "
            "last", ("accumulat", "+=", "overwrit", "add up", "sum", "replac"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
ORDER = ("order", "revers", "topolog", "first", "before")
MISTAKES += [
    Mistake(A, "forward_order", "components_reversed",
            "        order.append(component)\n", "        order.insert(0, component)\n",
            "Tarjan's algorithm on the operand edges already finishes a node's operands first: "
            "reversing its list computes each node before its operands", ORDER, slow=True),
    Mistake(A, "forward_order", "index_from_the_stack_size",
            "index[node] = low[node] = len(index)", "index[node] = low[node] = len(stack)",
            "a node's index is meant to be its discovery number, len(index); len(stack) repeats "
            "numbers once components are popped, yet the components and their order come out the "
            "same (20,000 random graphs): no wrong value",
            ("index", "discovery", "number", "stack", "len(index)"), wrong_value=False, slow=True),
    Mistake(A, "forward_order", "order_within_a_loop_leaves_the_loop",
            "                return [a for a in node_operands(network, name) if a in members]",
            "                return node_operands(network, name)",
            "inside a loop only the edges between its members count: following every operand "
            "walks out of the loop and brings other nodes into its order",
            ("member", "within", "inside", "component", "outside", "loop"), slow=True),
    Mistake(A, "loop_forward", "in_loop_delay_of_one_step_always",
            "members[name].append(members[source][t - steps] if t >= steps",
            "members[name].append(members[source][t - 1] if t >= steps",
            "a delay of `steps` reads its source `steps` steps back, t - steps; t - 1 assumes "
            "every delay is one step", DELAY + ("t - 1", "t - steps", "one step"), slow=True),
    Mistake(A, "loop_forward", "initial_value_ignored",
            "        return value + np.zeros(lead + np.shape(value))",
            "        return np.zeros(lead + np.shape(value))",
            "a delay's first outputs are its initial value, broadcast to the batch; zeros ignore "
            "the given initial value", ("initial", "zero", "start", "broadcast"), slow=True),
    Mistake(A, "loop_backward", "outside_delay_gradient_shifted_forward",
            "grads[source][:T - steps] += g[steps:]", "grads[source][steps:] += g[:T - steps]",
            "the delay's output at t is its source at t - steps, so the gradient goes back in "
            "time: the source's step t gets the output's step t + steps", DELAY + ("shift", "back in time"),
            slow=True),
    Mistake(A, "loop_backward", "components_walked_in_forward_order",
            "    for component in reversed(order):\n", "    for component in order:\n",
            "backpropagation visits the components from the last computed to the first: a "
            "component's gradient must be complete before it is passed on", ORDER, slow=True),
    Mistake(A, "lstm_task", "hidden_state_without_the_cell_tanh",
            "h = o * c.tanh()", "h = o * c",
            "the LSTM's output is h = o ⊙ tanh(c): the tanh of the cell state is missing",
            ("tanh", "cell", "squash"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
MISTAKES += [
    Mistake(A, "forward_order", "on_stack_not_cleared",
            "                        component.append(stack.pop())\n"
            "                        on_stack.discard(component[-1])\n",
            "                        component.append(stack.pop())\n",
            "a node popped into its component leaves the stack: still marked on_stack, a later "
            "edge to it lowers low and merges components that are not one loop",
            ("on_stack", "on the stack", "discard", "stack", "merge", "low"), slow=True),
    Mistake(A, "forward_order", "loop_members_not_ordered",
            "            component = [c[0] for c in strongly_connected_components(component, within)]\n",
            "",
            "the nodes of a loop come out of Tarjan's stack in visiting order: they must be "
            "ordered again, with the delay nodes as leaves, so each follows its operands",
            ("loop", "within", "order", "delay", "operand", "inside"), slow=True),
    Mistake(A, "forward_order", "delay_not_a_leaf_within_the_loop",
            "                if network[name][0] == \"delay\":\n                    return []\n",
            "",
            "inside a loop the delay nodes count as leaves: followed to their source, the loop "
            "is one component again and only one of its nodes is kept", DELAY
            + ("leaf", "leaves", "cut", "cycle", "loop"), slow=True),
    Mistake(A, "loop_forward", "time_and_batch_swapped",
            "T, B = next(iter(inputs.values())).shape[:2]",
            "B, T = next(iter(inputs.values())).shape[:2]",
            "the inputs are (T, B, d), time first: the first axis is the number of steps",
            ("time", "batch", "axis", "swap", "(t, b", "first axis", "order"), slow=True),
    Mistake(A, "loop_forward", "initial_not_broadcast_to_the_batch",
            "                                         else initial(name, (B,)))",
            "                                         else params[network[name][3]])",
            "the initial value (k,) must be repeated for every sequence of the batch, (B, k), "
            "like the delay's later values", ("batch", "shape", "broadcast", "(b, k)",
                                               "initial", "repeat"), slow=True),
    Mistake(A, "loop_backward", "parameter_gradient_overwritten",
            "dparams[a] += unbroadcast(g, np.shape(params[a]))",
            "dparams[a] = unbroadcast(g, np.shape(params[a]))",
            "a parameter is used at every step and by several nodes: its gradient adds up all "
            "the shares; = keeps only the last one", ("accumulat", "+=", "overwrit", "add up",
                                                     "every step", "shares", "sum"), slow=True),
    Mistake(A, "loop_backward", "initial_gets_the_late_gradients",
            "send(start, g[:steps], None)", "send(start, g[-steps:], None)",
            "the initial value fills the first `steps` outputs of the shifted sequence: its "
            "gradient is g[:steps], not the last steps'", DELAY + ("initial", "first",
                                                                  "g[:steps]", "last"), slow=True),
    Mistake(A, "loop_backward", "backward_operands_whole_sequence",
            "operands = [params[a] if a not in network else values[a] if t is None else values[a][t]",
            "operands = [params[a] if a not in network else values[a]",
            "inside a loop, step t's local derivatives use the operands' values at step t, "
            "values[a][t], not the whole sequence", ("step t", "[t]", "time step", "sequence",
                                                     "shape", "index"), slow=True),
    Mistake(A, "lstm_task", "cell_state_starts_at_one",
            "h_prev, c_prev = dp.PastValue(np.zeros(k)), dp.PastValue(np.zeros(k))",
            "h_prev, c_prev = dp.PastValue(np.zeros(k)), dp.PastValue(np.ones(k))",
            "the delay nodes start at zero before the first step; the cell state starts at 1",
            ("zero", "initial", "c_0", "ones", "start"), slow=True),
    Mistake(A, "lstm_task", "lstm_batch_read_as_time",
            "        states = dp.run(h, {\"x\": np.asarray(sequences, dtype=float).transpose(1, 0, 2)})\n        return states[-1] @ self.V + self.c_out\n        ### END SOLUTION",
            "        states = dp.run(h, {\"x\": np.asarray(sequences, dtype=float)})\n        return states[-1] @ self.V + self.c_out\n        ### END SOLUTION",
            "the sequences come batch first, (n, T, 3); dp.run wants time first: the transpose "
            "is missing", ("transpos", "time first", "batch first", "axis", "axes"), slow=True),
    Mistake(A, "lstm_task", "predict_argmax_over_the_batch",
            "return model.forward(sequences).value.argmax(axis=1)",
            "return model.forward(sequences).value.argmax(axis=0)",
            "each sequence's class is the argmax over its 2 logits (axis 1), not over the batch",
            ("axis", "argmax", "row", "batch"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "forward_order", "low_passed_to_the_walks_root",
            "parent = walk[-1][0]", "parent = walk[0][0]",
            "a finished node passes its low-link to its parent, the walk's new top walk[-1]; "
            "walk[0] is the root of the whole walk",
            ("walk[-1]", "walk[0]", "low-link", "lowlink", "to its parent"),
            slow=True),
    Mistake(A, "forward_order", "within_keeps_the_outside_operands",
            "return [a for a in node_operands(network, name) if a in members]",
            "return [a for a in node_operands(network, name) if a not in members]",
            "inside a loop only the operands within the loop are edges: `not in` keeps the ones "
            "outside and drops the loop's own", ("outside", "not in", "invert", "within the loop"),
            slow=True),
    Mistake(A, "loop_forward", "delay_initial_values_at_the_end",
            "np.concatenate([initial(name, (steps, B)), source[:T - steps]])",
            "np.concatenate([source[:T - steps], initial(name, (steps, B))])",
            "a delay's first steps are its initial values: they go before the shifted source, "
            "not after it", DELAY + ("initial values", "first steps", "at the end"), slow=True),
    Mistake(A, "loop_forward", "loop_steps_concatenated_not_stacked",
            "values.update({name: np.stack(steps) for",
            "values.update({name: np.concatenate(steps) for",
            "the steps of a loop node form a new time axis (np.stack): np.concatenate joins them "
            "along the batch axis", ("stack", "concatenat", "time axis"),
            slow=True),
    Mistake(A, "loop_forward", "loops_nested_the_wrong_way",
            "        for t in range(T):\n            for name in component:\n"
            "                op, *args = network[name]\n                if op == \"delay\":",
            "        for name in component:\n            for t in range(T):\n"
            "                op, *args = network[name]\n                if op == \"delay\":",
            "a loop is run step by step, every node at step t before any at t + 1: a node's "
            "whole sequence first needs values of the others that are not computed yet",
            ("step by step", "nested", "t + 1", "inner loop", "outer loop"), slow=True),
    Mistake(A, "loop_backward", "parameter_gradient_summed_over_one_axis",
            "dparams[a] += unbroadcast(g, np.shape(params[a]))", "dparams[a] += g.sum(axis=0)",
            "a parameter's gradient sums over every axis it was broadcast along: a whole "
            "sequence's gradient has a time axis and a batch axis, not only one",
            ("unbroadcast", "axes", "every axis", "both axes"), slow=True),
    Mistake(A, "loop_backward", "sequence_gradient_overwritten",
            "        elif t is None:\n            grads[a] += g",
            "        elif t is None:\n            grads[a] = g",
            "a node used by several others adds up their gradients: = keeps only the last",
            ACCUMULATE, slow=True),
    Mistake(A, "lstm_task", "states_connected_crosswise",
            "        h_prev.connect(h)\n        c_prev.connect(c)",
            "        h_prev.connect(c)\n        c_prev.connect(h)",
            "h_prev is fed the hidden state h and c_prev the cell state c: the two delays are "
            "connected the wrong way round", ("swap", "exchang", "connect", "h_prev", "c_prev",
                                              "wrong way"), slow=True),
]

# Written and left out: the LSTM's candidate cell value squashed by a sigmoid instead of tanh
# (lstm_task keeps 2/2).
