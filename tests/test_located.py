"""Locating sentences of autograder/grading/checking.py added for issue 30 (3): a square root or a
square of each value, a factor said as n or 1/n, and a dict's keys. (The older ones are tested in
tests/test_derived_mistakes.py.)"""
import numpy as np
import pytest

from autograder.grading.checking import keys_located, located


@pytest.mark.parametrize("got, expected, said", [
    (44.822522, 2009.0585, "every received value is the square root of the expected one."),
    ([4.0, 9.0, 0.25], [2.0, 3.0, 0.5], "every received value is the square of the expected one."),
    (167.421542, 2009.0585, "every received value is 0.0833333 (1/12) times the expected one."),
    ([-6.0, 3.0], [2.0, -1.0], "every received value is -3 times the expected one."),
    ([2.5, 5.0], [1.0, 2.0], "every received value is 2.5 times the expected one."),
])
def test_a_power_or_a_simple_factor_is_said(got, expected, said):
    assert located(np.asarray(got), np.asarray(expected)) == ". The first difference: " + said


def test_a_power_is_not_said_of_values_it_does_not_fit():
    # 3 = sqrt(9) but 5 != sqrt(16): the values are said one by one, not as a root
    assert "square root" not in located(np.array([3.0, 5.0]), np.array([9.0, 16.0]))
    # negative values have no root to compare with
    assert "square" not in located(np.array([-2.0, 3.0]), np.array([4.0, 9.0]))


def test_the_keys_of_a_dict_that_differ_are_said():
    assert keys_located({"None": 1, "W": 2}, {"W": 2}) == \
        ". The first difference is in the keys: 'None' is not expected."
    assert keys_located({"W": 1}, {"W": 2, "b": 3, "c": 4}) == \
        ". The first difference is in the keys: 'b', 'c' are missing."
    assert keys_located({"a": 1, "x": 2}, dict.fromkeys("abcdef")) == \
        ". The first difference is in the keys: 'x' is not expected, and 'b', 'c', 'd' and 2 " \
        "more are missing."
    assert keys_located({"W": 1}, {"W": 5}) == ""


def test_an_op_that_returns_another_shape_says_which_axes_differ():
    from autograder.grading.checking import node_reply
    with pytest.raises(AssertionError) as raised:
        node_reply({"type": "Node", "grads": None, "value": np.zeros((1, 2, 2, 2))},
                   "maxpool2d(x (1, 2, 7, 7), 3, 2)", (1, 2, 3, 3))
    assert str(raised.value).endswith(
        "expected (1, 2, 3, 3). The first difference is in the shape, along axes 2 and 3: 2 and 2 "
        "entries, expected 3 and 3 (one too few on each, off by one).")


def test_gauss_newton_is_located_at_the_first_loss_that_departs():
    """10's linear residual: Gauss-Newton's first step lands on the least-squares optimum, so the
    losses before each step are the loss at z0, then the optimum's."""
    from autograder.checks import optimisation_beyond_ml as checks10
    ref, n, t1, ends = checks10.ref, 12, 4.0, (1.0, -0.5)
    A = ref.ode_matrix(n, t1)
    z0 = np.linspace(ends[0], ends[1], n)[1:-1] + 0.1
    best = ref.least_squares(ends, t1, n)

    def loss(z):
        r = A @ np.concatenate([ends[:1], z, ends[1:]])
        return r @ r
    right = np.array([loss(z0), loss(best), loss(best)])
    assert np.allclose(checks10.gauss_newton_losses(A, ends, t1, z0, 3), right)
    assert checks10._first_step_located(right, right) == ""
    uphill = np.array([loss(z0), loss(2 * z0 - best), loss(3 * z0 - 2 * best)])  # steps reversed
    said = checks10._first_step_located(uphill, right)
    assert said.startswith(". The losses before each step are [") and \
        "; 2 of 3 entries differ" in said and ". The first difference is at index [1]" in said
    assert "shape (2,), expected (3,)" in checks10._first_step_located(right[:2], right)


@pytest.mark.parametrize("mean, std, said", [
    (1e-4, 0.005, "in the standard deviation: 0.005 is that of the variance 2 / n_in = 0.005 taken "
                  "for it"),
    (3e-4, 0.1414, "in the standard deviation: 0.1414 is that of N(0, 2 / n_out)"),
    (1e-4, 0.05, "in the standard deviation: 0.05 is that of N(0, 1 / n_in)"),
    (0.0707, 1.0, "in the mean: 0.0707 is the standard deviation 0.07071 of N(0, 2 / n_in): the "
                  "standard deviation given where the mean belongs (normal(mean, std, size))"),
])
def test_the_normal_a_layers_weights_were_drawn_from_is_said(mean, std, said):
    """03's ReLU layer (400, 100) draws from N(0, 2 / 400): the draws' mean and standard deviation
    tell which other normal a slip drew from, when one alone fits."""
    from autograder.checks.dp_library import _draws_located
    assert _draws_located(mean, std, 2, 400, 100) == ". The first difference is " + said
    assert _draws_located(1e-4, 0.0707, 2, 400, 100) == ""         # the right one
    assert _draws_located(1e-4, 0.3, 2, 400, 100) == ""            # none fits


def test_a_selection_of_the_lowest_is_located_by_its_ranks():
    from autograder.checks.mnist import ranks_located
    key = np.array([0.5, 0.1, 0.9, 0.3, 0.7, 0.2])          # ranks 4, 1, 6, 3, 5, 2
    start = ". The first difference is in the ranking by p, 1 the lowest of 6: yours are at "
    assert ranks_located(np.array([5, 3]), key, "p") == start + "ranks 2 to 3, where 1 to 2 belong"
    assert ranks_located(np.array([2, 4]), key, "p") == start + "ranks 5 to 6, where 1 to 2 belong"
    assert ranks_located(np.array([1, 0, 2]), key, "p") == \
        start + "ranks 1, 4, 6, where 1 to 3 belong"


def test_loss_curves_drawn_over_other_x_values_are_located():
    from autograder.checks.optimizers import _steps_located
    steps, losses = np.arange(5.0), np.array([5.0, 4.0, 3.0, 2.5, 2.25])
    start = ". The first difference is in the x values of the line "
    assert _steps_located({"sgd": {"x": steps, "y": losses}, "adam": {"x": steps + 1, "y": losses}}) \
        == start + "'adam': every received value is the expected one plus 1."
    assert _steps_located({"sgd": {"x": losses, "y": steps}}) == \
        start + "'sgd': its y values are the steps 0 to 4: x and y swapped."
    assert _steps_located({"sgd": {"x": steps, "y": losses}}) == ""
