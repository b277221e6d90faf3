"""Blind mistakes in 14, convolutional networks (see tests/blind_mistakes/__init__.py). The CNN's and
the filter plot's train the network again (a few seconds each): they are slow."""
from . import Mistake
from .batch_normalisation import AXIS

A = "14_convolutional_networks"
OVERLAP = ("overlap", "add", "+=", "sum", "accumulat", "several windows")
SHAPE = ("shape",)

MISTAKES = [
    Mistake(A, "conv2d_grad", "col2im_overwrites_overlapping_windows",
            "padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride] += columns[:, :, p, q]",
            "padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride] = columns[:, :, p, q]",
            "a pixel in several windows gets the sum of their gradients: col2im must add, not assign",
            OVERLAP),
    Mistake(A, "conv2d_grad", "im2col_ignores_the_stride",
            "columns[:, :, p, q] = padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride]",
            "columns[:, :, p, q] = padded[:, :, p:p + oh, q:q + ow]",
            "the windows are stride pixels apart; these slices take neighbouring positions",
            ("stride",)),
    Mistake(A, "conv2d_grad", "numpy_pad_pads_every_axis",
            "padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))",
            "padded = np.pad(x, padding)",
            "np.pad(x, padding) pads the batch and channel axes too: only H and W get a frame",
            ("pad", "axis", "axes", "channel", "batch") + SHAPE),
    Mistake(A, "conv2d_grad", "bias_gradient_of_all_filters_together",
            "return g.sum(axis=(0, 2, 3))", "return g.sum()",
            "each filter has its own bias: sum g over the images and positions, keeping the filters",
            AXIS + ("filter", "per filter", "each")),
    Mistake(A, "conv2d_grad", "weight_gradient_reshaped_from_the_transpose",
            "return (g.reshape(n, f, -1) @ columns.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)",
            "return (columns @ g.reshape(n, f, -1).transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)",
            "X_n G_n^T is (C KH KW, F), the transpose of dL/dW: reshaping it scrambles the filters",
            ("transpos", "order", "swap", "reshape")),
    Mistake(A, "maxpool2d_grad", "pooled_gradient_set_to_one",
            "np.put_along_axis(routed, winners, g.reshape(n * c, 1, -1), axis=1)",
            "np.put_along_axis(routed, winners, 1.0, axis=1)",
            "the maximum gets the upstream gradient g of its window, not 1",
            ("upstream", "g ", "ones", "1 instead", "scale")),
    Mistake(A, "maxpool2d_grad", "maximum_over_the_positions",
            "columns.max(axis=1).reshape(n, c, oh, ow)",
            "columns.max(axis=2).reshape(n, c, oh, ow)",
            "axis 1 holds the elements of a window; axis 2 runs over the windows",
            AXIS + ("window",)),
    Mistake(A, "maxpool2d_grad", "winners_of_the_first_channel_for_all",
            "winners = columns.argmax(axis=1)[:, None]",
            "winners = np.broadcast_to(columns[:1].argmax(axis=1)[:, None], columns[:, :1].shape)",
            "each channel of each image has its own maxima; the first channel's were used for all",
            ("channel", "first", "every", "each")),
    Mistake(A, "cnn_accuracy", "predict_returns_the_scores",
            "return net.eval().forward(x).value.argmax(axis=1)",
            "return net.eval().forward(x).value",
            "predict returns the 10 scores of each image; the digit is their argmax",
            ("argmax", "digit", "label", "one per image") + SHAPE, slow=True),
    Mistake(A, "cnn_accuracy", "learning_rate_far_too_large",
            "lr=3e-3, batch_size=64", "lr=3.0, batch_size=64",
            "a learning rate of 3 makes Adam's steps far too large: the loss diverges",
            ("learning rate", "nan", "diverg", "too large", "lr"), slow=True),
    Mistake(A, "filter_plot", "a_figure_per_filter",
            "        ax.imshow(weights[f, 0], cmap=\"RdBu_r\", vmin=-np.abs(weights).max(), vmax=np.abs(weights).max())",
            "        plt.figure()\n        plt.imshow(weights[f, 0], cmap=\"RdBu_r\")",
            "plt.figure() in the loop makes a new figure per filter: the returned one has no image",
            ("one image per filter", "images", "figure", "axes"), slow=True),
    Mistake(A, "filter_plot", "filter_drawn_as_a_row",
            "ax.imshow(weights[f, 0], cmap",
            "ax.imshow(weights[f, 0].reshape(1, -1), cmap",
            "a filter is a KxK image; drawn as a row of K*K pixels it shows no shape",
            ("kxk", "shape", "reshape", "w[f, 0]"), slow=True),
]

# Round 2 (2026-11-28), written blind as round 1 was.
from .scalar_autodiff import SWAP  # noqa: E402
MISTAKES += [
    Mistake(A, "conv2d_grad", "bias_not_broadcast_over_positions",
            "y = (filters @ columns).reshape(n, f, oh, ow) + b.value[:, None, None]",
            "y = (filters @ columns).reshape(n, f, oh, ow) + b.value",
            "b (F,) must be added per filter, b[:, None, None]; plain b broadcasts along the "
            "last axis, the width", ("bias", "broadcast", "axis", "channel", "filter", "width")
            + SHAPE),
    Mistake(A, "conv2d_grad", "im2col_width_slice_uses_the_height",
            "columns[:, :, p, q] = padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride]",
            "columns[:, :, p, q] = padded[:, :, p:p + stride * oh:stride, q:q + stride * oh:stride]",
            "copy-paste: the slice along the width must run over ow windows, not oh",
            ("oh", "ow", "height", "width", "non-square", "slice") + SHAPE),
    Mistake(A, "maxpool2d_grad", "output_size_arguments_swapped",
            "oh, ow = output_size(h, size, stride, 0), output_size(w, size, stride, 0)",
            "oh, ow = output_size(h, stride, size, 0), output_size(w, stride, size, 0)",
            "output_size(n, k, stride, padding): the window size and the stride are passed in "
            "the wrong order", SWAP + ("argument", "order", "stride", "size", "output_size")),
    Mistake(A, "maxpool2d_grad", "channels_pooled_together",
            "columns = im2col(x.value.reshape(n * c, 1, h, w), size, size, stride, 0)",
            "columns = im2col(x.value, size, size, stride, 0)",
            "each channel is pooled on its own: without the reshape to (N·C, 1, H, W) the "
            "maximum is taken across the channels too", ("channel", "per channel",
                                                         "each channel", "across") + SHAPE),
    Mistake(A, "cnn_accuracy", "images_reshaped_channels_last",
            "h = h.reshape(h.shape[0], 1, 28, 28)", "h = h.reshape(h.shape[0], 28, 28, 1)",
            "dp's convolutions take (N, C, H, W): the channel axis comes before the height and "
            "width", ("channel", "nchw", "(n, 1, 28, 28)", "axis", "channels last") + SHAPE,
            slow=True),
    Mistake(A, "filter_plot", "filter_index_swapped",
            "ax.imshow(weights[f, 0], cmap", "ax.imshow(weights[0, f], cmap",
            "W is (filters, channels, K, K): filter f is weights[f, 0], not weights[0, f]",
            SWAP + ("index", "filter", "channel", "w[f, 0]", "order", "axis"), slow=True),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "conv2d_grad", "im2col_integer_buffer",
            "columns = np.empty((N, C, kh, kw, oh, ow), dtype=x.dtype)",
            "columns = np.empty((N, C, kh, kw, oh, ow), dtype=int)",
            "the columns buffer is an integer array: every value copied into it is truncated",
            ("int", "dtype", "truncat", "integer", "float"), slow=True),
    Mistake(A, "conv2d_grad", "col2im_crop_without_the_offset",
            "return padded[:, :, padding:padding + H, padding:padding + W]",
            "return padded[:, :, padding:H, padding:W]",
            "the padding is cropped from both sides: the slice ends at padding + H, not H",
            ("crop", "slice", "padding", "shape", "off by"), slow=True),
    Mistake(A, "conv2d_grad", "filters_reshaped_filter_last",
            "filters = w.value.reshape(f, -1)", "filters = w.value.reshape(-1, f).T",
            "w is (F, C, KH, KW): each filter is a row of reshape(F, -1); reshape(-1, F) mixes "
            "the filters' weights", ("reshape", "order", "transpos", "filter", "layout"),
            slow=True),
    Mistake(A, "conv2d_grad", "weight_gradient_averaged_over_the_batch",
            "@ columns.transpose(0, 2, 1)).sum(axis=0)", "@ columns.transpose(0, 2, 1)).mean(axis=0)",
            "the filters are shared by every image: their gradient sums the images' shares",
            ("mean", "sum", "average", "batch"), slow=True),
    Mistake(A, "maxpool2d_grad", "routed_gradient_aliases_the_columns",
            "routed = np.zeros_like(columns)", "routed = columns",
            "routed must be a new zero array: columns itself keeps every input value where the "
            "gradient is not put, and is changed for the next backward", ("zero", "alias", "copy",
                                                                          "in place", "in-place"),
            slow=True),
    Mistake(A, "cnn_accuracy", "predict_argmax_of_everything",
            "return net.eval().forward(x).value.argmax(axis=1)",
            "return np.argmax(net.eval().forward(x).value)",
            "argmax without an axis is over the flattened scores: one number, not a class per "
            "image", ("axis", "flatten", "shape", "per image", "one number"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
TRANSPOSE = ("transpos", ".t", "ᵀ")
MISTAKES += [
    Mistake(A, "conv2d_grad", "input_gradient_filters_not_transposed",
            "return col2im(filters.T @ g.reshape(n, f, -1)", "return col2im(filters @ g.reshape(n, f, -1)",
            "y = F · columns, so the columns' gradient is Fᵀ · g: the transpose of the filter "
            "matrix is missing", TRANSPOSE, slow=True),
    Mistake(A, "conv2d_grad", "bias_gradient_not_summed_over_images",
            "return g.sum(axis=(0, 2, 3))", "return g.sum(axis=(2, 3))",
            "each filter's bias is shared by every image and position, so its gradient sums g "
            "over the images (axis 0) too; left (n, F), dp sums the extra axis back to b's shape "
            "itself: no wrong value", AXIS + SHAPE + ("images", "sum"), wrong_value=False,
            slow=True),
    Mistake(A, "conv2d_grad", "im2col_channels_after_the_kernel_offsets",
            "    columns = np.empty((N, C, kh, kw, oh, ow), dtype=x.dtype)\n"
            "    for p in range(kh):\n        for q in range(kw):\n            columns[:, :, p, q] = padded",
            "    columns = np.empty((N, kh, kw, C, oh, ow), dtype=x.dtype)\n"
            "    for p in range(kh):\n        for q in range(kw):\n            columns[:, p, q] = padded",
            "the rows of the columns must follow the filters' order (C, KH, KW); laid out as "
            "(KH, KW, C) they pair each weight with another channel's pixel",
            AXIS + SHAPE + ("order", "channel", "layout"), slow=True),
    Mistake(A, "maxpool2d_grad", "maxpool_default_stride_one",
            "stride = size if stride is None else stride", "stride = 1 if stride is None else stride",
            "a pooling window's default stride is its size (windows that do not overlap); a "
            "stride of 1 slides them one pixel at a time",
            ("stride", "overlap", "default", "size"), slow=True),
    Mistake(A, "cnn_accuracy", "convolution_without_padding",
            "net = CNN(Conv(1, 8, 3, \"conv1\", padding=1)", "net = CNN(Conv(1, 8, 3, \"conv1\")",
            "a 3×3 convolution without padding shrinks 28×28 to 26×26: the dense layer's 8·14·14 "
            "inputs no longer match", ("padding", "pad", "shape", "size", "26", "14"), slow=True),
    Mistake(A, "filter_plot", "filter_colour_scale_not_symmetric",
            "vmin=-np.abs(weights).max(), vmax=np.abs(weights).max())",
            "vmin=weights.min(), vmax=weights.max())",
            "with a diverging colour map the scale must be symmetric around 0, so that white is "
            "0: weights.min() and weights.max() shift it. The images' values are right (the "
            "notebook allows any rescaling): no wrong value",
            ("symmetric", "vmin", "vmax", "colour", "color", "zero", "scale"), wrong_value=False,
            slow=True),
    Mistake(A, "filter_plot", "filter_shown_transposed",
            "ax.imshow(weights[f, 0], cmap", "ax.imshow(weights[f, 0].T, cmap",
            "a filter is drawn as it is stored, rows as rows: .T mirrors it along its diagonal",
            TRANSPOSE + ("mirror", "rotat", "flip"), slow=True),
    Mistake(A, "maxpool2d_grad", "winners_without_the_kept_axis",
            "winners = columns.argmax(axis=1)[:, None]", "winners = columns.argmax(axis=1)",
            "put_along_axis needs the winners' indices with the window axis kept, (N C, 1, OH OW): "
            "argmax drops it", ("keepdims", "axis", "shape", "[:, none]", "dimension"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
MISTAKES += [
    Mistake(A, "conv2d_grad", "kernel_offset_times_the_stride",
            "columns[:, :, p, q] = padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride]",
            "columns[:, :, p, q] = padded[:, :, p * stride:p * stride + stride * oh:stride, q * stride:q * stride + stride * ow:stride]",
            "the kernel offset p, q moves one pixel; only the window's position i, j moves by "
            "the stride", ("offset", "stride", "kernel position", "p * stride", "window"), slow=True),
    Mistake(A, "conv2d_grad", "weight_gradient_of_the_first_image",
            "return (g.reshape(n, f, -1) @ columns.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)",
            "return (g.reshape(n, f, -1) @ columns.transpose(0, 2, 1))[0].reshape(w.shape)",
            "the filters are shared by every image: their gradient sums the shares of all N "
            "images, not the first one's", ("sum", "every image", "all images", "batch",
                                             "first image", "[0]", "shared"), slow=True),
    Mistake(A, "conv2d_grad", "input_gradient_padding_forgotten",
            "return col2im(filters.T @ g.reshape(n, f, -1), x.shape, kh, kw, stride, padding)",
            "return col2im(filters.T @ g.reshape(n, f, -1), x.shape, kh, kw, stride, 0)",
            "col2im is im2col's adjoint only with the same padding: with 0 the windows are "
            "placed one padding off", ("padding", "adjoint", "same arguments", "offset"), slow=True),
    Mistake(A, "conv2d_grad", "crop_with_a_negative_index",
            "return padded[:, :, padding:padding + H, padding:padding + W]",
            "return padded[:, :, padding:-padding, padding:-padding]",
            "with padding 0, padded[0:-0] is empty: the crop must end at padding + H",
            ("padding", "-0", "empty", "negative", "slice", "crop", "padding = 0"), slow=True),
    Mistake(A, "maxpool2d_grad", "pool_stride_argument_ignored",
            "stride = size if stride is None else stride", "stride = size",
            "the windows are `stride` apart when a stride is given; only the default is the size",
            ("stride", "argument", "default", "overlap"), slow=True),
    Mistake(A, "cnn_accuracy", "batch_read_as_channels",
            "h = h.reshape(h.shape[0], 1, 28, 28)", "h = h.reshape(1, h.shape[0], 28, 28)",
            "the images are (N, C, H, W) with one channel: (1, N, 28, 28) makes the batch the "
            "channels of a single image", ("channel", "batch", "(n, 1, 28, 28)", "shape",
                                           "reshape", "axis"), slow=True),
    Mistake(A, "cnn_accuracy", "cnn_labels_not_one_hot",
            "optimizer = dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=3e-3",
            "optimizer = dp.Adam(net, x_train, y_train, lr=3e-3",
            "the cross-entropy compares the logits with one-hot labels (n, 10): the digits "
            "themselves are not", ("one-hot", "one_hot", "label", "(n, 10)"), slow=True),
    Mistake(A, "cnn_accuracy", "layers_in_reverse",
            "        for layer in self.stack:", "        for layer in reversed(self.stack):",
            "the layers run in the order given, the first convolution first", ("order",
                                                                                "revers",
                                                                                "first layer"), slow=True),
    Mistake(A, "filter_plot", "filters_of_an_untrained_layer",
            "first = next(layer for layer in net.stack if isinstance(layer, Conv))\n    weights",
            "first = Conv(1, 8, 3, \"conv1\", padding=1)\n    weights",
            "the plot shows the trained network's first layer: a new Conv has fresh random "
            "filters, not what net learned", ("net", "trained", "new layer", "fresh", "random",
                                              "untrained", "first conv"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "conv2d_grad", "bias_gradient_misses_the_width_axis",
            "return g.sum(axis=(0, 2, 3))", "return g.sum(axis=(0, 2))",
            "each filter's bias is added at every position: its gradient sums over the images "
            "and both image axes, (0, 2, 3); the width axis is left out",
            AXIS + ("axes", "(0, 2, 3)", "width", "position"), slow=True),
    Mistake(A, "conv2d_grad", "col2im_buffer_not_zeroed",
            "padded = np.zeros((N, C, H + 2 * padding, W + 2 * padding), dtype=columns.dtype)",
            "padded = np.empty((N, C, H + 2 * padding, W + 2 * padding), dtype=columns.dtype)",
            "col2im adds into its buffer with +=: np.empty leaves whatever was in memory, so the "
            "buffer must start at zero", ("zeros", "empty", "uninitiali", "start at zero",
                                          "buffer", "garbage"), slow=True),
    Mistake(A, "conv2d_grad", "weight_shape_unpacked_channels_first",
            "f, c, kh, kw = w.shape", "c, f, kh, kw = w.shape",
            "w is (filters, channels, KH, KW): unpacking it as (c, f, ...) exchanges the number "
            "of filters with the number of channels", ("filters", "channels", "unpack", "swap"),
            slow=True),
    Mistake(A, "maxpool2d_grad", "gradient_put_along_the_positions_axis",
            "g.reshape(n * c, 1, -1), axis=1)", "g.reshape(n * c, 1, -1), axis=2)",
            "the winners index the window entries, axis 1 of the columns: putting along axis 2, "
            "the output positions, sends the gradients to the wrong places",
            AXIS + ("axis=1", "axis 1", "put_along_axis", "winners"), slow=True),
    Mistake(A, "maxpool2d_grad", "pooled_reshaped_channels_first",
            "columns.max(axis=1).reshape(n, c, oh, ow)",
            "columns.max(axis=1).reshape(c, n, oh, ow)",
            "the columns' rows are image-major (n·c): reshaping to (c, n, ...) deals the maxima "
            "out to the wrong images and channels",
            ("reshape", "(n, c", "(c, n", "channels", "images"),
            slow=True),
    Mistake(A, "cnn_accuracy", "forward_returns_after_the_first_layer",
            "            h = layer(h)\n        return h",
            "            h = layer(h)\n            return h",
            "return h is indented into the loop: forward returns after the first layer",
            ("inside the loop", "first layer", "indent"), slow=True),
    Mistake(A, "cnn_accuracy", "trained_thirty_steps",
            "for _ in range(300)]", "for _ in range(30)]",
            "30 Adam steps leave the CNN barely trained: the notebook trains for 300",
            ("longer", "300", "undertrain", "too few steps", "more steps"), slow=True),
    Mistake(A, "filter_plot", "one_panel_per_channel",
            "plt.subplots(1, len(weights),", "plt.subplots(1, len(weights[0]),",
            "W is (filters, channels, K, K): len(weights[0]) is the number of input channels, "
            "1, so only one filter gets a panel", ("panel", "filters", "channels", "len(weights)",
                                                   "one filter", "number of"), slow=True),
    Mistake(A, "filter_plot", "every_panel_the_first_filter",
            "ax.imshow(weights[f, 0], cmap", "ax.imshow(weights[0, 0], cmap",
            "each panel shows its own filter f: weights[0, 0] draws the first filter in every one",
            ("filter f", "first filter", "same filter", "weights[f"), slow=True),
]

# Written and left out: im2col padding only the top and the left, (padding, 0) (conv2d_grad
# keeps 4/4, and cnn_accuracy 3/3); the filters drawn with cmap "RdBu", red for negative
# against the title's red + (filter_plot keeps 1/1).
