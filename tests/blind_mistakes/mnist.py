"""Blind mistakes in 09, MNIST (see tests/blind_mistakes/__init__.py). Each one trains the network
again (about 10 s): all are slow."""
from . import Mistake
from .dp_library import SIGN
from .batch_normalisation import AXIS

A = "09_mnist"
LR = ("learning rate", "lr", "diverg", "too large", "step size")

MISTAKES = [
    Mistake(A, "mnist_accuracy", "predict_argmax_over_the_batch",
            ".value.argmax(axis=1)", ".value.argmax(axis=0)",
            "each row's class is the argmax over its 10 scores (axis 1), not over the examples",
            AXIS + ("argmax",), slow=True),
    Mistake(A, "mnist_accuracy", "predict_returns_the_score",
            ".value.argmax(axis=1)", ".value.max(axis=1)",
            "the predicted digit is the index of the largest score (argmax), not the score itself",
            ("argmax", "index", "max", "class", "label", "digit"), slow=True),
    Mistake(A, "mnist_accuracy", "learning_rate_far_too_large",
            "lr=1e-3, batch_size=128", "lr=2.0, batch_size=128",
            "a learning rate of 2 makes Adam jump around: training diverges", LR, slow=True),
    Mistake(A, "mnist_accuracy", "labels_not_one_hot",
            "dp.one_hot(y_train, 10)", "y_train",
            "the cross-entropy takes one-hot labels of shape (n, 10), not the digits",
            ("one-hot", "one_hot", "one hot", "label", "shape"), slow=True),
    Mistake(A, "mnist_accuracy", "loss_maximised",
            "return dp.cross_entropy(self.forward(x), y)",
            "return -dp.cross_entropy(self.forward(x), y)",
            "minimising minus the cross-entropy makes the network as wrong as it can be", SIGN,
            slow=True),
    Mistake(A, "mnist_accuracy", "trained_six_steps",
            "for _ in range(600)]", "for _ in range(6)]",
            "six steps of training is far too few", ("steps", "train", "iteration", "too few",
                                                     "underfit", "epoch"), slow=True),
    Mistake(A, "mnist_accuracy", "predict_builds_a_graph",
            "    with dp.no_grad():\n        return net.eval().forward(x).value.argmax(axis=1)",
            "    return net.eval().forward(x).value.argmax(axis=1)",
            "predicting without dp.no_grad() records a graph nobody differentiates: slower, "
            "same answer", ("no_grad", "graph"), wrong_value=False, slow=True),
]
