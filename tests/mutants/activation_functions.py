"""Mutants of 04 activation functions.

Only bugs that cost their own task alone are here. The plot must show the true gradient sums of
the specified network, recomputed by the grader, so a bug that changes the networks' gradients
(a wrong forward pass, a loss with a missing term, unsigned or reordered sums) costs the plot too:
those are in CASCADES, with every task they cost (tests/test_nb04_activation_functions.py).
"""
from tests.grading import Mutant

A = "04_activation_functions"

MUTANTS = [
    Mutant(A, "deep_network", "hidden_width_10",
           "sizes = [2] + [20] * 9 + [1]",
           "sizes = [2] + [10] * 9 + [1]",
           "hidden layers of the wrong width"),
    Mutant(A, "bce_loss", "sign_flipped",
           "return -(y * p.log() + (1 - y) * (1 - p).log()).mean()",
           "return (y * p.log() + (1 - y) * (1 - p).log()).mean()",
           "the log-likelihood instead of its negative"),
    Mutant(A, "bce_loss", "no_clipping",
           "p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)",
           "pass",
           "log(0) = -inf for a prediction of exactly 0 or 1"),
    Mutant(A, "gradient_sums", "whole_training_set",
           "grads, _ = net.get_grad(x, y)",
           "grads, _ = net.get_grad(x_train, y_train)",
           "the gradient on the notebook's training set instead of the batch it is given"),
    Mutant(A, "vanishing_plot", "linear_y_axis",
           'ax.set_yscale("log")\nax.set_xticks',
           'ax.set_yscale("linear")\nax.set_xticks',
           "a linear y axis, on which the sigmoid's first layers are indistinguishable from 0"),
    Mutant(A, "vanishing_plot", "labels_swapped",
           "for name, net in nets.items():",
           "for name, net in zip(['relu', 'tanh', 'sigmoid'], nets.values()):",
           "each line labelled with another activation"),
    Mutant(A, "vanishing_plot", "layers_numbered_from_0",
           "ax.plot(np.arange(1, 11), gradient_sums(net, x_plot, y_plot)",
           "ax.plot(np.arange(10), gradient_sums(net, x_plot, y_plot)",
           "the x axis counting layers from 0"),
    Mutant(A, "vanishing_plot", "plotted_nets_trained_afterwards",
           "trained = DeepNetwork(name)          # a new network: nets[name] stays as it was plotted",
           "trained = nets[name]",
           "training the networks of the plot, so the plot no longer shows their gradients"),
]

# Bugs that must cost more than their own task: (mutant, every task it costs).
CASCADES = [
    (Mutant(A, "deep_network", "output_sigmoid_of_minus_z",
            "return self.linear[9](h).sigmoid()",
            "return (-self.linear[9](h)).sigmoid()",
            "sigma(-z): the probability of class 0"), {"deep_network", "vanishing_plot"}),
    (Mutant(A, "deep_network", "no_activation_after_layer_9",
            "for layer in self.linear[:9]:\n            h = getattr(layer(h), self.activation)()",
            "for layer in self.linear[:8]:\n            h = getattr(layer(h), self.activation)()\n"
            "        h = self.linear[8](h)",
            "layer 9 without its activation"), {"deep_network", "vanishing_plot"}),
    (Mutant(A, "bce_loss", "class_0_term_missing",
            "return -(y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "return -(y * p.log()).mean()",
            "only the term of class 1"), {"bce_loss", "vanishing_plot"}),
    (Mutant(A, "gradient_sums", "signed_sums",
            'np.abs(grads[f"layer{l}_W"]).sum()',
            'grads[f"layer{l}_W"].sum()',
            "summing the signed gradients"), {"gradient_sums", "vanishing_plot"}),
    (Mutant(A, "gradient_sums", "reverse_layer_order",
            "for l in range(1, 11)])",
            "for l in range(10, 0, -1)])",
            "output layer first"), {"gradient_sums", "vanishing_plot"}),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/activation_functions.py). The held-out mutants (tests/mutants/__init__.py)
# are measured: never given a mistake here.
NAMED = {
    "sign_flipped": "bce_negated",
    "no_clipping": "p_not_clipped",
    "linear_y_axis": "gradient_plot_not_logarithmic",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "hidden_width_10": "a wrong shape: the network's parameters are not those specified",
    "labels_swapped": "a plot's labels",
    "layers_numbered_from_0": "a plot's x values (its layout)",
}
