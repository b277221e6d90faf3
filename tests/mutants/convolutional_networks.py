"""Mutants of 14 convolutional networks: the mistakes of writing conv2d and max-pooling by im2col,
of training and reading out a CNN, and of plotting its filters."""
from tests.grading import Mutant

A = "14_convolutional_networks"

MUTANTS = [
    # conv2d_grad
    Mutant(A, "conv2d_grad", "kernel_flipped",
           "filters = w.value.reshape(f, -1)",
           "filters = w.value[:, :, ::-1, ::-1].reshape(f, -1)",
           "the kernel flipped, as signal processing convolves"),
    Mutant(A, "conv2d_grad", "bias_gradient_mean",
           "return g.sum(axis=(0, 2, 3))",
           "return g.mean(axis=(0, 2, 3))",
           "the bias gradient averaged over the batch and the positions instead of summed",
           slow=True),
    Mutant(A, "conv2d_grad", "weight_gradient_of_the_first_image",
           ".sum(axis=0).reshape(w.shape)",
           "[0].reshape(w.shape)",
           "the shared filters' gradient taken from the first image of the batch only",
           slow=True),
    Mutant(A, "conv2d_grad", "padding_not_dropped",
           "return padded[:, :, padding:padding + H, padding:padding + W]",
           "return padded[:, :, :H, :W]",
           "col2im cuts the first H x W pixels of the padded image instead of dropping the frame"),
    Mutant(A, "conv2d_grad", "bias_gradient_over_the_batch_only",
           "return g.sum(axis=(0, 2, 3))",
           "return g.sum(axis=0)[:, 0, 0]",
           "the bias gradient of the first output position only: the bias is added at every one",
           slow=True),
    # maxpool2d_grad
    Mutant(A, "maxpool2d_grad", "gradient_to_the_minimum",
           "winners = columns.argmax(axis=1)[:, None]",
           "winners = columns.argmin(axis=1)[:, None]",
           "the gradient routed to the smallest element of each window"),
    Mutant(A, "maxpool2d_grad", "minimum_pooling",
           "columns.max(axis=1).reshape(n, c, oh, ow)",
           "columns.min(axis=1).reshape(n, c, oh, ow)",
           "the minimum of each window instead of the maximum",
           slow=True),
    Mutant(A, "maxpool2d_grad", "gradient_to_every_element",
           "np.put_along_axis(routed, winners, g.reshape(n * c, 1, -1), axis=1)",
           "routed[:] = g.reshape(n * c, 1, -1)",
           "every element of the window gets the window's gradient"),
    Mutant(A, "maxpool2d_grad", "default_stride_one",
           "stride = size if stride is None else stride",
           "stride = 1 if stride is None else stride",
           "without a stride the windows overlap (stride 1) instead of lying side by side",
           slow=True),
    # cnn_accuracy
    Mutant(A, "cnn_accuracy", "predict_least_likely",
           "return net.eval().forward(x).value.argmax(axis=1)",
           "return net.eval().forward(x).value.argmin(axis=1)",
           "predict returns the least likely digit"),
    Mutant(A, "cnn_accuracy", "untrained",
           "for _ in range(300)]",
           "for _ in range(3)]",
           "three steps of training: the network has learned nothing yet",
           slow=True),
    # filter_plot
    Mutant(A, "filter_plot", "filters_transposed",
           "ax.imshow(weights[f, 0], cmap",
           "ax.imshow(weights[f, 0].T, cmap",
           "every filter shown transposed"),
    Mutant(A, "cnn_accuracy", "forward_skips_the_first_layer",
           "for layer in self.stack:",
           "for layer in self.stack[1:]:",
           "forward starts after the convolution: the stack no longer fits the images"),
    Mutant(A, "filter_plot", "lines_not_images",
           "ax.imshow(weights[f, 0], cmap=\"RdBu_r\", vmin=-np.abs(weights).max(), vmax=np.abs(weights).max())",
           "ax.plot(weights[f, 0].ravel())",
           "each filter drawn as a line of its weights, not as an image",
           slow=True),
    Mutant(A, "filter_plot", "returns_no_figure",
           "    return figure\n    ### END SOLUTION",
           "    plt.show()\n    ### END SOLUTION",
           "plot_filters shows the figure and returns nothing",
           slow=True),
    Mutant(A, "filter_plot", "only_the_first_four_filters",
           "for f, ax in enumerate(np.atleast_1d(axes)):",
           "for f, ax in enumerate(np.atleast_1d(axes)[:4]):",
           "only four of the eight filters are drawn",
           slow=True),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/convolutional_networks.py). The held-out mutants (tests/mutants/__init__.py)
# are measured: never given a mistake here.
NAMED = {
    "kernel_flipped": "kernel_flipped",
    "bias_gradient_mean": "bias_gradient_mean",
    "weight_gradient_of_the_first_image": "weight_gradient_first_image",
    "bias_gradient_over_the_batch_only": "bias_gradient_over_the_batch_only",
    "gradient_to_the_minimum": "pool_gradient_to_minimum",
    "minimum_pooling": "pool_minimum",
    "predict_least_likely": "least_likely_digits",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "untrained": "a trained model, graded by its accuracy",
    "default_stride_one": "an argument's default, not a formula: the shape is wrong, and the "
                          "message says what the default is",
    "forward_skips_the_first_layer": "the training raises, and the network is refused: its message "
                                      "says why",
    "filters_transposed": "a plot, checked against the student's own filters (no reference value); "
                          "its message says the images are transposed",
    "lines_not_images": "a plot without images: the count is wrong, which the message says",
    "returns_no_figure": "no figure at all: the kind of reply is wrong",
    "only_the_first_four_filters": "a plot with images missing: the count is wrong, which the "
                                   "message says",
}
