"""Blind mistakes in 12, recurrent networks (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .activation_functions import OFF_BY_ONE
from .scalar_autodiff import ACCUMULATE, SQUARE
from .dp_library import ORDER as GRAPH_ORDER
from .matrix_autodiff import TRANSPOSE

A = "12_recurrent_networks"
PREVIOUS = ("previous", "h_{t-1}", "h_(t-1)", "one step", "state", "delay", "initial")
ORDER = GRAPH_ORDER + ("backward", "time")

MISTAKES = [
    Mistake(A, "rnn_forward", "state_never_carried",
            "return states[-1] if states else initial", "return initial",
            "the delay node gives the previous state h_{t-1}; every step gets the initial state",
            PREVIOUS),
    Mistake(A, "rnn_forward", "delay_returns_the_first_state",
            "return states[-1] if states else initial", "return states[0] if states else initial",
            "the delay node gives the last state so far, states[-1], not the first one",
            PREVIOUS + ("first", "last", "index", "states[0]")),
    Mistake(A, "rnn_forward", "cell_without_tanh",
            "+ params[\"b\"]).tanh()", "+ params[\"b\"])",
            "the cell is h_t = tanh(...): the nonlinearity is missing",
            ("tanh", "activation", "nonlinear")),
    Mistake(A, "rnn_forward", "cell_without_bias",
            "+ h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "+ h_prev.dot(params[\"W_h\"])).tanh()",
            "the cell adds the bias b inside the tanh; it is left out",
            ("bias", "term", "missing", "dropped")),
    Mistake(A, "rnn_forward", "last_step_not_run",
            "for t in range(len(x)):", "for t in range(len(x) - 1):",
            "range(len(x) - 1) stops one step early: the last input is never read",
            OFF_BY_ONE + ("length", "missing")),
    Mistake(A, "bptt_gradients", "gradient_not_carried_back_in_time",
            "dh = dH[t] + dh_later", "dh = dH[t]",
            "h_t also feeds step t + 1: the gradient sent back through the delay node is dropped",
            ("through time", "later", "delay", "carried", "recurrent", "next step", "dh_later",
             "t + 1", "t+1", "dropped", "term", "accumulat")),
    Mistake(A, "bptt_gradients", "tanh_derivative_square_missing",
            "da = dh * (1 - H[t] ** 2)", "da = dh * (1 - H[t])",
            "tanh' = 1 - h²: the square is missing", SQUARE),
    Mistake(A, "bptt_gradients", "previous_state_off_by_one",
            "h_prev = H[t - 1] if t > 0 else h_init", "h_prev = H[t]",
            "W_h multiplies the previous state h_{t-1}, not h_t", OFF_BY_ONE + PREVIOUS
            + ("index",)),
    Mistake(A, "bptt_gradients", "recurrent_weight_gradient_overwritten",
            "grads[\"W_h\"] += h_prev.T @ da", "grads[\"W_h\"] = h_prev.T @ da",
            "W_h is shared by every step: each step adds its share; = keeps only the first "
            "step's", ACCUMULATE + ("shared",)),
    Mistake(A, "bptt_gradients", "delay_gradient_not_transposed",
            "dh_later = da @ W_h.T", "dh_later = da @ W_h",
            "back through h_{t-1} W_h the gradient is da W_hᵀ: the transpose is missing",
            TRANSPOSE),
    Mistake(A, "bptt_gradients", "backprop_forward_in_time",
            "for t in reversed(range(len(x))):", "for t in range(len(x)):",
            "backpropagation through time runs from the last step to the first", ORDER),
    Mistake(A, "sequence_task", "readout_of_the_first_state",
            "return states[-1].dot(self.W_y) + self.b_y", "return states[0].dot(self.W_y) + self.b_y",
            "the prediction reads the last state h_{T-1}, after the whole sequence; h_0 has seen "
            "one step", ("first", "last", "state", "h_0", "h_{t-1}", "index")),
    Mistake(A, "sequence_task", "batch_read_as_time",
            "x = np.asarray(sequences, dtype=float).transpose(1, 0, 2)",
            "x = np.asarray(sequences, dtype=float)",
            "the sequences come batch first (n, T, 2); the cell needs time first: the transpose "
            "is missing", TRANSPOSE + ("axis", "time first", "batch first", "shape")),
]

# Round 2 (2026-11-28), written blind as round 1 was.
MISTAKES += [
    Mistake(A, "rnn_forward", "recurrent_weight_is_the_input_weight",
            "+ h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "+ h_prev.dot(params[\"W_x\"]) + params[\"b\"]).tanh()",
            "copy-paste: the previous state is multiplied by the recurrent weights W_h, not by "
            "the input weights W_x", ("w_h", "w_x", "recurrent weight", "input weight", "weight")),
    Mistake(A, "rnn_forward", "h_init_ignored",
            "initial = Node(np.zeros((n, k))) if h_init is None else h_init",
            "initial = Node(np.zeros((n, k)))",
            "the given initial state h_init is ignored: the sequence always starts from zeros",
            ("h_init", "initial", "ignor", "zeros", "initial state", "start")),
    Mistake(A, "bptt_gradients", "recurrent_gradient_skips_the_tanh",
            "dh_later = da @ W_h.T", "dh_later = dh @ W_h.T",
            "the gradient sent back to h_{t-1} passes through the tanh first: da, not dh",
            ("tanh", "derivative", "da", "dh", "1 - h", "activation", "nonlinearit")),
    Mistake(A, "bptt_gradients", "h_init_gradient_is_that_of_h0",
            "return {**grads, \"h_init\": dh_later, \"H\": dH_total}",
            "return {**grads, \"h_init\": dH_total[0], \"H\": dH_total}",
            "dL/dh_init is what step 0 sends back through the delay node (da_0 W_hᵀ), not the "
            "gradient of h_0", ("h_init", "initial", "h_0", "delay", "one step", "w_h",
                                "previous", "through")),
    Mistake(A, "bptt_gradients", "total_gradient_only_the_direct_part",
            "dH_total[t] = dh", "dH_total[t] = dH[t]",
            "dL/dh_t is the direct gradient plus what comes back from step t+1; only the direct "
            "part is stored", ("total", "direct", "dh_later", "later", "through time", "t + 1",
                               "t+1", "future", "recurren")),
    Mistake(A, "sequence_task", "readout_squashed_by_tanh",
            "return states[-1].dot(self.W_y) + self.b_y",
            "return (states[-1].dot(self.W_y) + self.b_y).tanh()",
            "the readout is linear: a tanh bounds the prediction to (-1, 1), and the sums reach 2",
            ("tanh", "readout", "linear", "activation", "output", "range", "bounded", "(-1, 1)")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "rnn_forward", "delay_waits_for_two_states",
            "return states[-1] if states else initial", "return states[-1] if len(states) > 1 else initial",
            "the delay node gives the previous state as soon as there is one: step 2 gets h0 "
            "again instead of h1", ("off by one", "off-by-one", "initial", "previous", "delay",
                                    "one step"), slow=True),
    Mistake(A, "rnn_forward", "recurrent_product_transposed",
            'h_prev.dot(params["W_h"])', 'params["W_h"].dot(h_prev.T).T',
            "the state is a row, h W_h; W_h hᵀ multiplies by W_h's transpose",
            ("transpos", "order", "w_h", "h w"), slow=True),
    Mistake(A, "rnn_forward", "first_step_skipped",
            "    for t in range(len(x)):\n        states.append(",
            "    for t in range(1, len(x)):\n        states.append(",
            "range(1, T) skips step 0: the first input is never read and one state is missing",
            ("off by one", "off-by-one", "first", "step 0", "missing", "length"), slow=True),
    Mistake(A, "bptt_gradients", "previous_state_wraps_around",
            "h_prev = H[t - 1] if t > 0 else h_init", "h_prev = H[t - 1]",
            "at t = 0, H[t - 1] is H[-1], the last state: step 0's previous state is h_init",
            ("h_init", "initial", "wrap", "h[-1]", "t = 0", "first step", "negative index"),
            slow=True),
    Mistake(A, "bptt_gradients", "input_weight_gradient_transposed",
            'grads["W_x"] += x[t].T @ da', 'grads["W_x"] += da.T @ x[t]',
            "dL/dW_x is xᵀ δ, shaped like W_x; δᵀ x is its transpose",
            ("transpos", "shape", "order", "w_x"), slow=True),
    Mistake(A, "bptt_gradients", "bias_gradient_a_mean",
            'grads["b"] += da.sum(axis=0, keepdims=True)', 'grads["b"] += da.mean(axis=0, keepdims=True)',
            "the bias is added to every example: its gradient is the sum over the batch, not "
            "the mean", ("mean", "sum", "average", "batch"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
AXES = ("axis", "axes", "time", "batch", "shape", "time-first", "time first")
MISTAKES += [
    Mistake(A, "rnn_forward", "initial_state_sized_by_time",
            "n, k = x.shape[1], params[\"W_h\"].shape[0]", "n, k = x.shape[0], params[\"W_h\"].shape[0]",
            "x is time first, (T, n, d): the batch size is x.shape[1]; x.shape[0] is the number "
            "of steps", AXES + PREVIOUS, slow=True),
    Mistake(A, "rnn_forward", "input_indexed_batch_first",
            "states.append(rnn_step(Node(x[t]), delay(states, initial), params))",
            "states.append(rnn_step(Node(x[:, t]), delay(states, initial), params))",
            "x is (T, n, d), time first: step t reads x[t]; x[:, t] is the t-th sequence of the "
            "batch at every time", AXES + ("x[t]", "index"), slow=True),
    Mistake(A, "rnn_forward", "tanh_around_the_recurrent_part_only",
            "return (x_t.dot(params[\"W_x\"]) + h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "return x_t.dot(params[\"W_x\"]) + (h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "h_t = tanh(x_t W_x + h_{t-1} W_h + b): the tanh wraps the whole sum, the input term "
            "too", ("tanh", "parenthes", "bracket", "whole sum", "input term", "precedence"),
            slow=True),
    Mistake(A, "bptt_gradients", "tanh_derivative_of_the_state_again",
            "da = dh * (1 - H[t] ** 2)", "da = dh * (1 - np.tanh(H[t]) ** 2)",
            "H already holds tanh's outputs: tanh' = 1 - h_t², applying tanh to h_t again "
            "squashes it twice", ("tanh", "twice", "again", "output", "already", "1 - h"),
            slow=True),
    Mistake(A, "bptt_gradients", "total_gradient_written_into_h",
            "dH_total = np.zeros_like(H)", "dH_total = H",
            "dH_total = H is the same array: writing the gradients into it overwrites the "
            "states h_t that the tanh derivative still reads (and the caller's H)",
            ("alias", "same array", "copy", "overwrit", "in place", "in-place", "zeros_like"),
            slow=True),
    Mistake(A, "bptt_gradients", "later_gradient_starts_at_the_last_direct_gradient",
            "dh_later = np.zeros_like(h_init)       #", "dh_later = dH[-1].copy()               #",
            "nothing comes back from after the last step: dh_later starts at 0; starting it at "
            "the last direct gradient counts that gradient twice",
            ("zero", "0", "initial", "start", "twice", "last step", "dh_later"), slow=True),
    Mistake(A, "sequence_task", "predict_takes_an_argmax",
            "return model.forward(sequences).value.reshape(-1)",
            "return model.forward(sequences).value.argmax(axis=1)",
            "the adding problem is a regression: the prediction is the output value itself; "
            "argmax over one column is always 0", ("regression", "argmax", "value", "class"),
            slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (full marks in the self-check): predict returning the readout's (n, 1)
# column, old `return model.forward(sequences).value.reshape(-1)` -> new `return
# model.forward(sequences).value` (the notebook's own test_mse then broadcasts to an (n, n)
# matrix).
MISTAKES += [
    Mistake(A, "rnn_forward", "weights_copied_into_new_leaves",
            "return (x_t.dot(params[\"W_x\"]) + h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "return (x_t.dot(Node(params[\"W_x\"].value)) + h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "the step must use the shared parameter Node itself: a new leaf made from its value "
            "cuts the graph, so no gradient reaches W_x", ("graph", "leaf", "new node", "copy",
                                                           "shared", "gradient", ".value"), slow=True),
    Mistake(A, "rnn_forward", "returns_only_the_last_state",
            "        states.append(rnn_step(Node(x[t]), delay(states, initial), params))\n    return states",
            "        states.append(rnn_step(Node(x[t]), delay(states, initial), params))\n    return states[-1]",
            "rnn_forward returns the list of all T states; states[-1] is only the last one",
            ("list", "all", "every state", "last", "states[-1]"), slow=True),
    Mistake(A, "rnn_forward", "recurrent_product_elementwise",
            "h_prev.dot(params[\"W_h\"])", "h_prev * params[\"W_h\"]",
            "the recurrent term is the matrix product h_{t-1} W_h, not an elementwise product",
            ("matrix product", "dot", "@", "elementwise", "element-wise", "shape"), slow=True),
    Mistake(A, "rnn_forward", "initial_state_sized_by_the_inputs",
            "n, k = x.shape[1], params[\"W_h\"].shape[0]", "n, k = x.shape[1], params[\"W_x\"].shape[0]",
            "the state has k units, W_h's size; W_x's first axis is the number of inputs d",
            ("shape", "units", "k", "w_h", "w_x", "size", "initial"), slow=True),
    Mistake(A, "bptt_gradients", "bias_gradient_before_the_tanh",
            "grads[\"b\"] += da.sum(axis=0, keepdims=True)", "grads[\"b\"] += dh.sum(axis=0, keepdims=True)",
            "b is inside the tanh: its gradient is that of the pre-activation, da, not dh",
            ("tanh", "da", "pre-activation", "1 - h", "derivative"), slow=True),
    Mistake(A, "bptt_gradients", "gradients_reset_every_step",
            "    for t in reversed(range(len(x))):\n        dh = dH[t] + dh_later\n",
            "    for t in reversed(range(len(x))):\n"
            "        grads = {name: np.zeros_like(value) for name, value in params.items()}\n"
            "        dh = dH[t] + dh_later\n",
            "the shared parameters' gradients add up over all the steps: set to zero inside "
            "the loop, only the share of step 0 is left", ACCUMULATE + ("reset", "every step",
                                                                     "each step", "zero"), slow=True),
    Mistake(A, "bptt_gradients", "tanh_derivative_of_the_previous_state",
            "da = dh * (1 - H[t] ** 2)", "da = dh * (1 - H[t - 1] ** 2)",
            "tanh's derivative at step t is 1 - h_t², of this step's output, not h_{t-1}'s",
            ("h_t", "this step", "previous", "tanh", "h[t]", "off-by-one", "off by one"), slow=True),
    Mistake(A, "sequence_task", "reshape_for_transpose",
            "x = np.asarray(sequences, dtype=float).transpose(1, 0, 2)",
            "x = np.asarray(sequences, dtype=float).reshape(sequences.shape[1], sequences.shape[0], 2)",
            "reshape keeps the order of the numbers and only regroups them: swapping the batch "
            "and time axes takes a transpose", TRANSPOSE + ("reshape", "axes", "time first",
                                                           "swap"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "rnn_forward", "bias_added_after_the_tanh",
            "h_prev.dot(params[\"W_h\"]) + params[\"b\"]).tanh()",
            "h_prev.dot(params[\"W_h\"])).tanh() + params[\"b\"]",
            "h_t = tanh(x W_x + h W_h + b): the bias belongs inside the tanh, before the squashing",
            ("bias", "outside", "parenthes", "after the tanh", "inside the tanh"), slow=True),
    Mistake(A, "rnn_forward", "initial_state_ones",
            "initial = Node(np.zeros((n, k))) if h_init is None else h_init",
            "initial = Node(np.ones((n, k))) if h_init is None else h_init",
            "without h_init the state starts at 0: np.ones starts every sequence from 1",
            ("ones", "h_init", "zeros", "initial state"), slow=True),
    Mistake(A, "bptt_gradients", "bias_gradient_summed_over_units",
            "grads[\"b\"] += da.sum(axis=0, keepdims=True)",
            "grads[\"b\"] += da.sum(axis=1, keepdims=True)",
            "b (1, k) is shared by the batch: its gradient sums over the examples (axis 0), not "
            "over the units", ("units", "examples", "axis=0", "axis 0"), slow=True),
    Mistake(A, "bptt_gradients", "previous_state_condition_off_by_one",
            "h_prev = H[t - 1] if t > 0 else h_init", "h_prev = H[t - 1] if t > 1 else h_init",
            "only step 0 reads h_init: with t > 1 step 1 also takes h_init instead of h_0",
            OFF_BY_ONE + PREVIOUS + ("t > 0", "t > 1"), slow=True),
    Mistake(A, "bptt_gradients", "backward_stops_before_the_first_step",
            "for t in reversed(range(len(x))):", "for t in reversed(range(1, len(x))):",
            "range(1, T) leaves out step 0: its share of the weights' gradients and the gradient "
            "of h_init are lost", OFF_BY_ONE + ("step 0", "first step", "h_init"), slow=True),
    Mistake(A, "sequence_task", "sequences_cast_to_int",
            "x = np.asarray(sequences, dtype=float).transpose(1, 0, 2)",
            "x = np.asarray(sequences, dtype=int).transpose(1, 0, 2)",
            "dtype=int truncates the inputs toward 0: the network sees integers, not the sequences",
            ("dtype", "truncat", "integer", "dtype=int"), slow=True),
    Mistake(A, "sequence_task", "predict_returns_the_first_row",
            "return model.forward(sequences).value.reshape(-1)",
            "return model.forward(sequences).value[0]",
            "predict returns one prediction per sequence: [0] keeps only the first sequence's",
            ("one per sequence", "[0]", "reshape", "every sequence", "first sequence"), slow=True),
    Mistake(A, "sequence_task", "settling_rate_increased",
            "optimizer.lr = 0.001 ", "optimizer.lr = 0.1 ",
            "the settling phase lowers the learning rate: 0.1 is ten times the first phase's and "
            "throws the model out of its minimum",
            ("learning rate", "diverg", "too large", "settl", "step size"), slow=True),
]

# Written and left out: the readout without its bias b_y (sequence_task keeps 3/3).
