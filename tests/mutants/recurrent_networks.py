"""Mutants of 12 recurrent networks: the mistakes of unrolling a cell and of backpropagating
through time by hand."""
from tests.grading import Mutant

A = "12_recurrent_networks"

MUTANTS = [
    # rnn_forward
    Mutant(A, "rnn_forward", "default_initial_state_ones",
           "initial = Node(np.zeros((n, k))) if h_init is None else h_init",
           "initial = Node(np.ones((n, k))) if h_init is None else h_init",
           "the delay node's default initial state is ones instead of zeros"),
    Mutant(A, "rnn_forward", "given_initial_state_ignored",
           "initial = Node(np.zeros((n, k))) if h_init is None else h_init",
           "initial = Node(np.zeros((n, k)))",
           "every sequence starts from zeros, whatever h_init the caller gives"),
    Mutant(A, "rnn_forward", "delay_at_t0_reads_a_copy",
           "return states[-1] if states else initial",
           "return states[-1] if states else Node(initial.value)",
           "at t = 0 the delay node hands out a copy of the initial state: the right values, but "
           "no gradient reaches h_init"),
    # bptt_gradients
    Mutant(A, "bptt_gradients", "W_h_gradient_overwritten",
           'grads["W_h"] += h_prev.T @ da',
           'grads["W_h"] = h_prev.T @ da',
           "the shared W_h keeps only the share of step 0 instead of the sum over the steps"),
    Mutant(A, "bptt_gradients", "no_tanh_derivative",
           "da = dh * (1 - H[t] ** 2)",
           "da = dh",
           "the gradient passes the tanh unchanged"),
    Mutant(A, "bptt_gradients", "truncated_to_the_last_step",
           "for t in reversed(range(len(x))):",
           "for t in [len(x) - 1]:",
           "backpropagation stops after the last step"),
    Mutant(A, "bptt_gradients", "no_gradient_through_the_delay",
           "dh = dH[t] + dh_later",
           "dh = dH[t]",
           "each step sees only its own loss: nothing flows back from the later steps"),
    Mutant(A, "bptt_gradients", "initial_state_wraps_around",
           "h_prev = H[t - 1] if t > 0 else h_init",
           "h_prev = H[t - 1]",
           "at t = 0, H[t - 1] is H[-1], the last state, instead of h_init"),
    Mutant(A, "bptt_gradients", "W_h_not_transposed",
           "dh_later = da @ W_h.T",
           "dh_later = da @ W_h",
           "the gradient goes back through W_h instead of its transpose"),
    # sequence_task
    Mutant(A, "sequence_task", "predict_sees_only_the_last_step",
           "return model.forward(sequences).value.reshape(-1)",
           "return model.forward(sequences[:, -1:]).value.reshape(-1)",
           "predict ignores every step but the last"),
    Mutant(A, "sequence_task", "readout_of_the_first_state",
           "return states[-1].dot(self.W_y) + self.b_y",
           "return states[0].dot(self.W_y) + self.b_y",
           "the prediction reads h_0, which has seen only the first step"),
    Mutant(A, "sequence_task", "learning_rate_too_small",
           "lr=0.01, batch_size=64",
           "lr=0.0001, batch_size=64",
           "a learning rate 100 times too small to learn in 2,000 steps"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/recurrent_networks.py). The held-out mutants (tests/mutants/__init__.py)
# are measured: never given a mistake here.
NAMED = {
    "default_initial_state_ones": "states_from_ones",
    "given_initial_state_ignored": "states_from_zeros",
    "no_tanh_derivative": "bptt_tanh",
    "truncated_to_the_last_step": "bptt_last_step",
    "no_gradient_through_the_delay": "bptt_no_delay",
    "W_h_not_transposed": "bptt_untransposed",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "delay_at_t0_reads_a_copy": "a missing gradient: the states are right, no gradient reaches "
                                "h_init",
    "predict_sees_only_the_last_step": "a trained model, graded by its error on new sequences",
    "readout_of_the_first_state": "a trained model, graded by its error on new sequences",
    "learning_rate_too_small": "a trained model, graded by its error on new sequences",
}
