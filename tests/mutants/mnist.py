"""Mutants of 09 MNIST."""
from tests.grading import Mutant

MUTANTS = [
    Mutant("09_mnist", "mnist_accuracy", "predict_argmin",
           "return net.eval().forward(x).value.argmax(axis=1)",
           "return net.eval().forward(x).value.argmin(axis=1)",
           "an off-by-sign prediction: the least likely digit"),
    Mutant("09_mnist", "mnist_accuracy", "untrained",
           "loss_hist = [optimizer.train(steps=1, print_each=0) for _ in range(600)]",
           "loss_hist = [optimizer.train(steps=1, print_each=0) for _ in range(3)]",
           "stopping training far too early"),
    Mutant("09_mnist", "mnist_accuracy", "predict_returns_probabilities",
           "return net.eval().forward(x).value.argmax(axis=1)",
           "return net.eval().forward(x).softmax().value",
           "returning class probabilities instead of labels"),
    Mutant("09_mnist", "width_lr_sweep", "sweep_plotted_against_the_index",
           "ax_sweep.plot(LEARNING_RATES, list(sweep[width].values()), marker=\"o\"",
           "ax_sweep.plot(list(sweep[width].values()), marker=\"o\"",
           "each line drawn against 0, 1, 2 (its index), not the learning rates"),
    Mutant("09_mnist", "width_lr_sweep", "sweep_written_by_hand",
           "sweep[width][lr] = float(np.mean(scores.argmax(axis=1) == y_val))",
           "sweep[width][lr] = 0.9",
           "the sweep's accuracies made up (the networks trained, never measured)"),
    Mutant("09_mnist", "width_lr_sweep", "sweep_scores_the_main_network",
           "scores = candidate.eval().forward(x_val).value",
           "scores = net.eval().forward(x_val).value",
           "every cell of the sweep measures the notebook's main network, not the candidate",
           slow=True),
    Mutant("09_mnist", "width_lr_sweep", "sweep_in_percent",
           "sweep[width][lr] = float(np.mean(scores.argmax(axis=1) == y_val))",
           "sweep[width][lr] = 100 * float(np.mean(scores.argmax(axis=1) == y_val))",
           "accuracies recorded in percent, not as a share between 0 and 1", slow=True),
    Mutant("09_mnist", "error_analysis", "confusion_transposed",
           "np.add.at(confusion, (y_val, predicted), 1)",
           "np.add.at(confusion, (predicted, y_val), 1)",
           "rows and columns swapped: row i counts the digits read as i"),
    Mutant("09_mnist", "error_analysis", "worst_by_least_confidence",
           "worst = np.argsort(probabilities[np.arange(len(y_val)), y_val], kind=\"stable\")[:8]",
           "worst = np.argsort(probabilities.max(axis=1), kind=\"stable\")[:8]",
           "the least confident digits (lowest top probability), not the lowest probability of "
           "the true label", slow=True),
    Mutant("09_mnist", "error_analysis", "worst_are_the_best",
           "y_val], kind=\"stable\")[:8]", "y_val], kind=\"stable\")[-8:]",
           "the 8 best-classified digits: the end of an ascending sort", slow=True),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/mnist.py; named when graded only: the self-check has no forward pass on
# the student's trained parameters).
NAMED = {
    "predict_argmin": "least_likely_digits",
    "confusion_transposed": "confusion_transposed",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "untrained": "a trained model, graded by its accuracy",
    "predict_returns_probabilities": "not labels at all: the kind of reply is wrong",
    "worst_by_least_confidence": "a choice of indices, checked by a property of their probabilities",
    "worst_are_the_best": "a choice of indices, checked by a property of their probabilities",
    "sweep_plotted_against_the_index": "a plot's x values, checked against the learning rates",
    "sweep_in_percent": "a range, checked by its bounds",
    "sweep_written_by_hand": "made-up values: compared with the networks trained again, the "
                             "message locates the first cell that differs",
    "sweep_scores_the_main_network": "another network's accuracy: compared with the networks "
                                     "trained again, the message locates the first cell that "
                                     "differs",
}
