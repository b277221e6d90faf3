"""Checks of 09 MNIST: accuracy on test digits held by the grader."""
import numpy as np
import pytest

import dp


@pytest.fixture(scope="module")
def digits():
    return dp.data.mnist(download=False, verbose=False)


@pytest.mark.task("mnist_accuracy")
def test_accuracy_on_held_out_digits(submission, digits, assignment, metrics, rng):
    order = rng.permutation(len(digits.y_test))          # an order the notebook never saw
    images, labels = digits.x_test[order], digits.y_test[order]
    predicted = submission.probe("predict", images=images)
    assert isinstance(predicted, np.ndarray) and predicted.shape == labels.shape, (
        f"predict(x) must return an array of {len(labels)} labels, one per image; "
        f"it returned {type(predicted).__name__} of shape {getattr(predicted, 'shape', None)}")
    assert np.issubdtype(predicted.dtype, np.number), (
        f"predict(x) must return digits 0-9, not {predicted.dtype} values")
    accuracy = float(np.mean(predicted == labels))
    metrics["accuracy"] = accuracy
    full = digits.source.startswith("full")
    threshold = assignment.thresholds["accuracy_full" if full else "accuracy"]
    assert accuracy >= threshold, (
        f"test accuracy {accuracy:.4f} on {len(labels):,} digits is below the required {threshold}")
