"""Model, layers, initialisations, dropout and batch norm."""
import numpy as np
import pytest

import dp
from dp import Node


class Network(dp.Model):
    """The paper's MNIST network, written exactly as in the paper (smaller sizes)."""

    def __init__(self):
        super().__init__()
        self.h1 = self.ReLU_Layer(8, 6, "h1")
        self.h2 = self.ReLu_Layer(6, 5, "h2")
        self.h3 = self.Linear_Layer(5, 3, "h3")

    def loss(self, x, y):
        if not type(y) == Node:
            y = Node(y)
        out = self.forward(x)
        return (-1 * (y * out.log())).sum()

    def forward(self, x):
        if not type(x) == Node:
            x = Node(x)
        return self.h3(self.h2(self.h1(x))).softmax()


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((16, 8)), dp.one_hot(rng.integers(0, 3, 16), 3)


def test_paper_network_parameters_and_gradients(data):
    dp.seed(0)
    net = Network()
    grads, loss = net.get_grad(*data)
    params = net.get_param()
    assert list(params) == ["h1_W", "h1_b", "h2_W", "h2_b", "h3_W", "h3_b"]
    assert all(grads[k].shape == params[k].shape for k in params)
    assert isinstance(loss, float) and loss > 0


def test_get_grad_matches_central_differences(data):
    dp.seed(1)
    net = Network()
    grads, _ = net.get_grad(*data)
    for name, value in net.get_param().items():
        def loss_at(v, name=name):
            net.set_param({name: v})
            return net.loss(*data).item()
        numeric = dp.numerical_gradient(loss_at, value.copy())
        net.set_param({name: value})
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-7)


def test_manual_training_loop_of_the_paper_lowers_the_loss(data):
    dp.seed(2)
    net = Network()
    first = net.get_grad(*data)[1]
    for _ in range(100):
        grad, loss = net.get_grad(*data)
        param_current = net.get_param()
        net.set_param({name: param_current[name] - 0.01 * grad[name] for name in param_current})
    assert loss < 0.5 * first


def test_get_param_returns_copies(data):
    net = Network()
    params = net.get_param()
    params["h1_W"][:] = 0
    assert np.any(net.get_param()["h1_W"] != 0)


def test_set_param_errors_name_the_parameter():
    net = Network()
    with pytest.raises(KeyError, match="no parameter 'h9_W'"):
        net.set_param({"h9_W": np.zeros((8, 6))})
    with pytest.raises(dp.ShapeError, match=r"'h1_W' has shape \(8, 6\), got \(6, 8\)"):
        net.set_param({"h1_W": np.zeros((6, 8))})


def test_layer_input_mismatch_names_the_layer():
    with pytest.raises(dp.ShapeError, match="layer 'h1': input has 7 features"):
        Network().forward(np.ones((2, 7)))


def test_duplicate_layer_names_are_an_error():
    class Twice(dp.Model):
        def __init__(self):
            super().__init__()
            self.a = self.Linear_Layer(2, 2, "same")
            self.b = self.Linear_Layer(2, 2, "same")
    with pytest.raises(ValueError, match="two parameters are named 'same_W'"):
        Twice().get_param()


@pytest.mark.parametrize("init, variance", [
    ("xavier_uniform", 2 / (400 + 200)), ("xavier_normal", 2 / (400 + 200)),
    ("he_uniform", 2 / 400), ("he_normal", 2 / 400),
])
def test_initialisation_variances(init, variance):
    dp.seed(3)
    w = dp.init.get(init)(400, 200)
    assert w.shape == (400, 200)
    assert w.var() == pytest.approx(variance, rel=0.03)
    assert abs(w.mean()) < 0.01 * np.sqrt(variance) * 10


def test_float32_model_stays_float32(data):
    class Small(Network):
        def __init__(self):
            dp.Model.__init__(self, dtype=np.float32)
            self.h1 = self.ReLU_Layer(8, 6, "h1")
            self.h2 = self.ReLU_Layer(6, 5, "h2")
            self.h3 = self.Linear_Layer(5, 3, "h3")
    net = Small()
    x, y = data
    grads, _ = net.get_grad(x.astype(np.float32), y.astype(np.float32))
    assert {g.dtype for g in grads.values()} == {np.dtype(np.float32)}
    dp.Adam(net, None, None).step(grads)
    assert {p.dtype for p in net.get_param().values()} == {np.dtype(np.float32)}


def test_dropout_preserves_the_expectation_and_masks_the_gradient():
    dp.seed(4)
    layer = dp.Dropout(0.3)
    x = Node(np.ones((200, 500)), "x")
    y = layer(x)
    assert y.value.mean() == pytest.approx(1.0, rel=0.01)
    assert set(np.unique(y.value)) == {0.0, 1 / 0.7}
    np.testing.assert_allclose(y.sum().grad(1)["x"], y.value)  # mask / (1 - p), same as forward


def test_dropout_in_eval_mode_is_the_identity():
    class Net(dp.Model):
        def __init__(self):
            super().__init__()
            self.drop = self.Dropout_Layer(0.5)

        def forward(self, x):
            return self.drop(x)
    net = Net().eval()
    x = np.random.default_rng(0).random((4, 5))
    np.testing.assert_array_equal(net.forward(x).value, x)
    assert not net.drop.training and net.train().drop.training


def test_batchnorm_train_normalises_and_eval_uses_running_statistics():
    rng = np.random.default_rng(5)
    layer = dp.BatchNorm(3, "bn", momentum=0.5)
    x = 4 + 2 * rng.standard_normal((50, 3))
    out = layer(x).value
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(out.var(0), 1, rtol=1e-4)
    np.testing.assert_allclose(layer.running_mean, 0.5 * x.mean(0, keepdims=True))
    np.testing.assert_allclose(layer.running_var, 0.5 + 0.5 * x.var(0, keepdims=True))
    layer.training = False
    single = x[:1]
    expected = (single - layer.running_mean) / np.sqrt(layer.running_var + layer.eps)
    np.testing.assert_allclose(layer(single).value, expected)


def test_batchnorm_gradients_match_central_differences():
    rng = np.random.default_rng(6)
    layer = dp.BatchNorm(4, "bn")
    layer.gamma.value = rng.random((1, 4)) + 0.5
    assert dp.gradcheck(lambda x: layer(x), rng.standard_normal((6, 4)), tol=1e-6) < 1e-6


def test_optimizer_trains_the_network_with_minibatches(data):
    dp.seed(7)
    net = Network()
    x, y = data
    before = net.get_grad(x, y)[1]
    dp.Adam(net, x, y, lr=0.01, batch_size=4, seed=0).train(steps=60, print_each=0)
    assert net.get_grad(x, y)[1] < 0.5 * before
