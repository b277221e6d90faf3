"""Where the training of a network below the bar went wrong (autograder/grading/training.py):
each stage locates its own departure, an earlier stage speaks first, a training that did what it
must says nothing, and no reply the schema lets through makes the grader fail (every part of the
probe's reply is a hint, from the student's process). End to end: a trained network graded by
09's checks with a notebook's namespace (tests/test_nb09_mnist.py's way)."""
from __future__ import annotations

import types

import numpy as np
import pytest

import dp
from autograder.grading import training
from autograder.grading.checking import NAMES
from autograder.grading.judge import run_checks
from autograder.grading.replies import validate
from autograder.grading.selfcheck import LocalSubmission
from autograder.probes.dp_common import training_reply
from tests.grading import COURSE

NAMED = {name: NAMES + why for name, why in training.WHY.items()}
RNG = np.random.default_rng(3)
DIGITS = types.SimpleNamespace(x_train=RNG.integers(0, 256, (400, 784)) / 255.0,
                               y_train=RNG.integers(0, 10, 400))
ROWS = np.arange(training.SAMPLE)
LABELS = DIGITS.y_train[ROWS]
LOGITS = RNG.normal(size=(len(ROWS), 10))
DENSE = [{"kind": "dense", "activation": "relu"}, {"kind": "dense", "activation": "linear"}]


def cross_entropy(logits, labels):
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return float(-np.mean(np.log(p[np.arange(len(labels)), labels])))


def reply(**parts):
    """A reply of a training that did what it must, with `parts` changed."""
    good = {"losses": np.linspace(4.0, cross_entropy(LOGITS, LABELS), 300),
            "loss": cross_entropy(LOGITS, LABELS),
            "logits": LOGITS, "names": [["h1_W", "h1_b"], ["h2_W", "h2_b"]],
            "optimizer": {"lr": 1e-3, "steps": 300, "x": DIGITS.x_train[:200],
                          "y": np.eye(10)[DIGITS.y_train[:200]], "y_shape": [400, 10]}}
    for key, value in parts.items():
        if isinstance(value, dict) and isinstance(good.get(key), dict):
            good[key] = {**good[key], **value}
        else:
            good[key] = value
    return good


def located(layers=DENSE, **parts) -> str:
    return training.first_difference(reply(**parts), DIGITS, ROWS, layers, NAMED)


def test_a_training_that_did_what_it_must_says_nothing():
    assert located() == ""
    assert located(losses=None, optimizer=None, names=None, loss=None, logits=None) == ""


def test_a_hidden_layer_without_an_activation_is_named():
    layers = [{"kind": "dense", "activation": "linear"}] + DENSE
    said = located(layers)
    assert said.startswith(". The first difference is in net's layers: its dense layer 0")
    assert said.endswith(NAMED["hidden_layer_without_activation"])
    # the output layer is linear by design; a dropout between two dense layers changes nothing
    assert located([{"kind": "dense", "activation": "relu"}, {"kind": "dropout"},
                    {"kind": "dense", "activation": "linear"}]) == ""


def test_two_layers_with_a_parameter_of_one_name_are_named():
    said = located(names=[["h1_W", "h1_b"], ["h1_W", "h1_b"]])
    assert "layers 0 and 1 both have a parameter named 'h1_W'" in said
    assert said.endswith(NAMED["parameters_named_alike"])


def test_labels_that_are_not_one_hot_are_named():
    said = located(optimizer={"y_shape": [400], "y": DIGITS.y_train[:200, None] * 1.0})
    assert "the optimizer's labels have shape (400,)" in said
    assert said.endswith(NAMED["training_labels_not_one_hot"])


def test_labels_that_are_not_those_of_the_images_are_named_with_the_first_such_image():
    shuffled = np.eye(10)[(DIGITS.y_train[:200] + 1) % 10]
    said = located(optimizer={"y": shuffled})
    assert "are not theirs for 100% of them (its image 0 is a" in said
    assert said.endswith(NAMED["training_labels_not_the_images"])
    # images the grader does not know (scaled otherwise): nothing to compare, nothing said
    assert located(optimizer={"y": shuffled, "x": DIGITS.x_train[:200] * 255}) == ""


def test_a_loss_that_is_not_the_cross_entropy_of_the_logits_is_located():
    said = located(loss=-cross_entropy(LOGITS, LABELS))
    assert said.startswith(". The first difference is in net.loss(x, y): on 100 of the notebook's")
    assert NAMES not in said
    assert located(loss=cross_entropy(LOGITS, LABELS) * (1 + 1e-6)) == ""


@pytest.mark.parametrize("losses, said", [
    (np.r_[2.3, 5e5, np.linspace(2.3, 2.0, 100)], "the loss jumped from 2.3 at step 0 of "
                                                  "loss_hist to 5e+05 at step 1"),
    (np.r_[np.linspace(2.3, 2.0, 50), np.nan], "loss_hist's loss 50 is nan"),
    (np.linspace(2.3, 4.0, 100), "the loss rose, from 2.377"),
    (np.full(100, 2.3), "the loss hardly changed, from 2.3"),
    (np.linspace(2.3, 1e-6, 100), "loss_hist ends at"),
])
def test_a_loss_history_that_departs_is_located_with_the_optimizer(losses, said):
    text = located(losses=losses)
    assert said in text and text.endswith("; the optimizer took 300 steps with lr 0.001"), text


def test_an_earlier_stage_speaks_first():
    both = located(loss=-1.0, losses=np.full(100, 2.3), optimizer={"y_shape": [400]})
    assert "training labels" in both and "net.loss" not in both and "hardly" not in both


@pytest.mark.parametrize("parts", [
    {"losses": np.array([])}, {"losses": np.array([np.inf, np.nan])}, {"losses": np.zeros(5)},
    {"losses": -np.ones(50)}, {"logits": np.full((100, 10), np.nan)}, {"loss": np.nan},
    {"loss": np.inf}, {"names": [[], ["x" * 100] * 8] * 16},
    {"optimizer": {"y_shape": []}}, {"optimizer": {"y_shape": [10 ** 12, -3, 0]}},
    {"optimizer": {"x": np.zeros((0, 784)), "y": np.zeros((0, 10))}},
    {"optimizer": {"x": np.full((200, 784), np.nan)}},
    {"optimizer": {"x": np.zeros((3, 5)), "y": np.zeros((3, 10))}},
    {"optimizer": {"y": np.full((200, 10), np.inf)}},
    {"optimizer": {"lr": np.nan, "steps": -5, "y": np.zeros((7, 10))}},
])
def test_any_reply_the_schema_lets_through_gives_a_sentence_or_nothing(parts):
    got = reply(**parts)
    validate(got, training_reply(DIGITS.x_train[ROWS]))       # raises if it may not arrive
    said = training.first_difference(got, DIGITS, ROWS, DENSE, NAMED)
    assert isinstance(said, str) and (said == "" or said.startswith(". The first difference"))


# -- end to end: 09's accuracy check on a network trained below the bar --------------------------
ASSIGNMENT = COURSE.assignment("09_mnist")


@pytest.fixture(scope="module")
def mnist():
    return dp.data.mnist(download=False, verbose=False)


def test_a_network_trained_on_labels_of_other_images_is_told_so(mnist):
    from tests.test_nb09_mnist import MLP, predict_of
    dp.seed(0)
    net = MLP((16,))
    labels = np.roll(mnist.y_train, 1)                     # each image with its neighbour's label
    optimizer = dp.Adam(net, mnist.x_train, dp.one_hot(labels, 10), lr=1e-3, batch_size=128,
                        seed=0)
    loss_hist = [optimizer.train(steps=1, print_each=0) for _ in range(20)]
    [result] = run_checks(LocalSubmission({"net": net, "predict": predict_of(net),
                                           "optimizer": optimizer, "loss_hist": loss_hist},
                                          ASSIGNMENT), ASSIGNMENT, 5, public=True,
                          tasks=["mnist_accuracy"])
    assert result["status"] == "failed"
    assert "The first difference is in the training labels" in result["message"]
    assert NAMES + training.WHY["training_labels_not_the_images"] in result["message"]
