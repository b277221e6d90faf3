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
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/mnist.py; named when graded only: the self-check has no forward pass on
# the student's trained parameters).
NAMED = {
    "predict_argmin": "least_likely_digits",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "untrained": "a trained model, graded by its accuracy",
    "predict_returns_probabilities": "not labels at all: the kind of reply is wrong",
}
