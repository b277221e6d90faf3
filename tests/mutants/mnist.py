"""Mutants of 09 MNIST."""
from tests.grading import Mutant

MUTANTS = [
    Mutant("09_mnist", "mnist_accuracy", "predict_argmin",
           "return net.eval().forward(x).value.argmax(axis=1)",
           "return net.eval().forward(x).value.argmin(axis=1)",
           "an off-by-sign prediction: the least likely digit"),
    Mutant("09_mnist", "mnist_accuracy", "untrained",
           "loss, loss_hist, _ = optimizer.train(steps=600, print_each=100, err_hist=True)",
           "loss, loss_hist, _ = optimizer.train(steps=3, print_each=100, err_hist=True)",
           "stopping training far too early"),
    Mutant("09_mnist", "mnist_accuracy", "predict_returns_probabilities",
           "return net.eval().forward(x).value.argmax(axis=1)",
           "return net.eval().forward(x).softmax().value",
           "returning class probabilities instead of labels"),
]
