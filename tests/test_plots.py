"""dp.plot_loss: the loss curve that the notebooks draw after training."""
import matplotlib
import numpy as np
import pytest

import dp

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def test_plot_loss_draws_every_step_on_a_log_axis_and_returns_the_figure():
    losses = [2.3, 1.1, 0.52, 0.31]
    figure = dp.plot_loss(losses, title="CNN")
    (ax,) = figure.axes
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [0, 1, 2, 3])
    np.testing.assert_array_equal(line.get_ydata(), losses)
    assert (ax.get_yscale(), ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == \
        ("log", "step", "training loss", "CNN")
    plt.close(figure)


def test_plot_loss_draws_on_the_axes_it_is_given():
    figure, (left, right) = plt.subplots(1, 2)
    assert dp.plot_loss([1.0, 0.5], ax=right) is figure
    assert (len(left.get_lines()), len(right.get_lines())) == (0, 1)
    plt.close(figure)


def test_plot_loss_of_no_steps_yet_draws_empty_axes():
    figure = dp.plot_loss([])
    assert len(figure.axes[0].get_lines()[0].get_ydata()) == 0
    plt.close(figure)


@pytest.mark.parametrize("losses", [[[1.0, 2.0]], 3.0])
def test_plot_loss_names_what_is_wrong_with_its_input(losses):
    with pytest.raises(ValueError, match="plot_loss: expected a list of losses"):
        dp.plot_loss(losses)
