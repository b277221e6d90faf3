"""Code written for the 2019 DP library runs on dp: one test per row of docs/COMPAT.md.

Each test runs the 2019 form as it was written then, and checks the numbers it gives.
"""
import numbers

import numpy as np
import pytest

import dp
from dp import Model, Node


class Network(Model):
    """A small network written the 2019 way (the paper's MNIST network, narrower)."""

    def __init__(self):
        super(Network, self).__init__()
        self.h1 = self.ReLu_Layer(4, 8, "h1")
        self.h2 = self.Linear_Layer(8, 3, "h2")

    def loss(self, x, y):
        if not type(y) == Node:
            y = Node(y)
        out = self.forward(x)
        loss = -1 * (y * out.log())
        return loss.sum()

    def forward(self, x):
        if not type(x) == Node:
            x = Node(x)
        return self.h2(self.h1(x)).softmax()


class Unnamed(Model):
    """The same network, its layers without names."""

    def __init__(self):
        super(Unnamed, self).__init__()
        self.h1 = self.ReLU_Layer(4, 8)
        self.h2 = self.Linear_Layer(8, 3)

    loss, forward = Network.loss, Network.forward


def data(n=10, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 4)), dp.one_hot(rng.integers(0, 3, n), 3)


@pytest.fixture
def network():
    dp.seed(0)
    return Network()


@pytest.fixture
def numpy_global_generator():
    """dp's generator at NumPy's global one, as at import (other tests call dp.seed(value))."""
    dp.seed(None)
    yield
    dp.seed(None)


# -- optimizers: defaults and 2019 names -----------------------------------------------------------
def test_defaults_are_alpha_0001_and_128_examples_drawn_with_replacement(numpy_global_generator):
    x, y = np.arange(50.0)[:, None], np.arange(50)
    optimizer = dp.SGD(None, x, y)
    assert optimizer.alpha == optimizer.lr == 0.001 and optimizer.batch_size == 128
    np.random.seed(5)
    batches = [optimizer.next_batch() for _ in range(3)]
    np.random.seed(5)
    for xb, yb in batches:                     # 128 of 50 examples: with replacement
        expected = np.random.randint(0, 50, 128)
        np.testing.assert_array_equal(yb, expected)
        np.testing.assert_array_equal(xb[:, 0], expected)


def test_sgd_with_the_2019_defaults_takes_the_documented_step(network, numpy_global_generator):
    x, y = data(20)
    start = network.get_param()
    np.random.seed(3)
    dp.SGD(network, x, y).train(steps=1, print_each=0)
    np.random.seed(3)
    index = np.random.randint(0, 20, 128)
    reference = Network()
    reference.set_param(start)
    grads, _ = reference.get_grad(x[index], y[index])
    for name, value in network.get_param().items():
        np.testing.assert_allclose(value, start[name] - 0.001 * grads[name], rtol=1e-12)


def test_an_optimizer_without_data_and_its_alpha():
    class Parabola(Model):
        def __init__(self):
            super(Parabola, self).__init__()
            self.w = Node(np.array([[3.0]]), "w")

        def loss(self, x, y):
            return (self.w * self.w).sum()

    net = Parabola()
    optimizer = dp.SGD(net)
    optimizer.alpha = 0.25                     # w <- w - 0.25 * 2w = w / 2
    assert optimizer.lr == 0.25
    optimizer.train(steps=3, print_each=0)
    np.testing.assert_allclose(net.w.value, [[3.0 / 8]])


def test_rms_prop_takes_its_2019_hyperparameter_dictionary():
    optimizer = dp.RMS_Prop(None, None, None, hyperparam={"alpha": 0.01, "beta2": 0.8,
                                                          "epsilon": 1e-8})
    assert optimizer.hyperparameters == {"lr": 0.01, "beta": 0.8, "epsilon": 1e-8}
    theta, g, state = np.array([1.0, -2.0]), np.array([0.5, 4.0]), {}
    for _ in range(2):                         # s = 0.2 g^2, then 0.36 g^2: no bias correction
        theta = optimizer.update(theta, g, state)
    s1, s2 = 0.2 * g * g, 0.36 * g * g
    expected = (np.array([1.0, -2.0]) - 0.01 * g / (np.sqrt(s1) + 1e-8)
                - 0.01 * g / (np.sqrt(s2) + 1e-8))
    np.testing.assert_allclose(theta, expected, rtol=1e-12)


def test_2019_module_and_class_names():
    from dp import Helper, NeuralNode, optimizer
    from dp.Helper import one_hot_encoding
    from dp.optimizer import SGD, Adam, RMS_Prop, SGD_Momentum
    assert (SGD, SGD_Momentum, RMS_Prop, Adam) == (dp.SGD, dp.SGD_Momentum, dp.RMSProp, dp.Adam)
    assert optimizer.SGD is dp.SGD and NeuralNode is dp.Dense
    np.testing.assert_array_equal(Helper.one_hot_encoding(np.array([2, 0])), [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(one_hot_encoding(np.array([[1], [0]]), 3), [[0, 1, 0], [1, 0, 0]])
    layer = NeuralNode(3, 2, "n")
    assert sorted(layer.parameters()) == ["n_W", "n_b"] and layer(np.ones((5, 3))).shape == (5, 2)


# -- models ----------------------------------------------------------------------------------------
def test_parameters_answer_to_their_2019_names(network):
    x, y = data()
    grad, loss = network.get_grad(x, y)
    param = network.get_param()
    np.testing.assert_array_equal(grad["h1_weight"], grad["h1_W"])
    np.testing.assert_array_equal(param.get("h2_bias"), param["h2_b"])
    assert "h2_weight" in param and "h3_weight" not in param and sorted(param)[0] == "h1_W"
    network.set_param({"h1_weight": np.zeros((4, 8)), "h1_bias": np.ones((1, 8))})
    np.testing.assert_array_equal(network.h1.W.value, 0)
    np.testing.assert_array_equal(network.parameters()["h1_bias"].value, 1)
    with pytest.raises(KeyError):
        param["h1_gamma"]


def test_layers_without_names_are_numbered_per_model():
    dp.seed(0)
    first, second = Unnamed(), Unnamed()
    assert sorted(first.get_param()) == ["layer1_W", "layer1_b", "layer2_W", "layer2_b"]
    second.set_param(first.get_param())        # so two instances exchange their parameters
    x, y = data()
    assert first.loss(x, y).item() == second.loss(x, y).item()
    grad, loss = first.get_grad(x, y)
    assert grad["layer1_weight"].shape == (4, 8)
    a, b = dp.NeuralNode(2, 2), dp.NeuralNode(2, 2)
    assert a.W.name != b.W.name and a.W.name.startswith("dense")


def test_neural_nodes_map_layer_names_to_layers(network):
    nodes = network.neural_nodes
    assert nodes == {"h1": network.h1, "h2": network.h2}
    assert list(nodes) == sorted(nodes) == ["h1", "h2"] and nodes["h2"] is network.h2
    assert list(Unnamed().neural_nodes) == ["layer1", "layer2"]

    class WithDropout(Model):
        def __init__(self):
            super(WithDropout, self).__init__()
            self.h1, self.drop = self.ReLU_Layer(4, 8, "h1"), self.Dropout_Layer(0.5)

    assert list(WithDropout().neural_nodes) == ["h1", "dropout2"]


def test_random_batch_is_the_next_batch(numpy_global_generator):
    x, y = np.arange(50.0)[:, None], np.arange(50)
    np.random.seed(7)
    xb, yb = dp.SGD(None, x, y).random_batch()
    np.random.seed(7)
    np.testing.assert_array_equal(yb, np.random.randint(0, 50, 128))
    np.testing.assert_array_equal(xb[:, 0], yb)


# -- nodes and ops ---------------------------------------------------------------------------------
def test_T_is_a_method_as_well_as_a_property():
    x = Node(np.arange(6.0).reshape(2, 3), "x")
    assert x.T().shape == x.T.shape == (3, 2)
    g = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal((x.T() * g).sum().grad(1)["x"], g.T)


def test_concatenate_is_a_method():
    a, b = Node(np.ones((2, 1)), "a"), Node(np.zeros((2, 2)), "b")
    c = a.concatenate(b, axis=1)
    np.testing.assert_array_equal(c.value, [[1, 0, 0], [1, 0, 0]])
    grads = (c * np.array([[1.0, 2.0, 3.0]])).sum().grad(1)
    np.testing.assert_array_equal(grads["a"], [[1], [1]])
    np.testing.assert_array_equal(grads["b"], [[2, 3], [2, 3]])


def test_conv1d_takes_a_kernel_row():
    x = np.random.default_rng(0).normal(size=(3, 7))
    row, flat = np.array([[1.0, -2.0, 0.5]]), np.array([1.0, -2.0, 0.5])
    out = Node(x).conv1d(Node(row))
    np.testing.assert_array_equal(out.value, Node(x).conv1d(Node(flat)).value)
    k = Node(row, "k")
    assert Node(x).conv1d(k).sum().grad(1)["k"].shape == (1, 3)
    dp.gradcheck(lambda x, k: x.conv1d(k), x, row)


def paper_mul(self, other):
    """The paper's listing of element-wise multiplication, as printed."""
    if isinstance(other, numbers.Number) or isinstance(other, np.ndarray):
        other = Node(other)
    ret = Node(self.value * other.value)

    def grad(g):
        g_total_self = g * other.value
        g_total_other = g * self.value
        x = Node._set_grad(self, g_total_self,
                           other, g_total_other)
        return x

    ret.grad = grad
    return ret


def test_an_op_written_the_2019_way_backpropagates(monkeypatch):
    """The paper's __mul__ put in dp's place: its example gives the printed gradients, through
    dp's own exp and sum; its node reused twice (a diamond) gets both gradients."""
    monkeypatch.setattr(Node, "__mul__", paper_mul)
    a = Node(np.array([[1, 1, 1], [2, 2, 2]]), "A")
    b = Node(np.array([[1, 2, 3]]), "B")
    e = (a * b).exp().sum()
    grads = e.grad(1)
    np.testing.assert_allclose(grads["A"], [[2.7, 14.78, 60.26], [7.39, 109.20, 1210.29]],
                               atol=0.02)
    np.testing.assert_allclose(grads["B"], [[17.50, 116.59, 826.94]], atol=0.01)
    c = a * b
    twice = (c + c.exp()).sum().grad(1)        # dc/dA = B, on two paths: (1 + e^c) B
    np.testing.assert_allclose(twice["A"], (1 + np.exp(a.value * b.value)) * b.value)
    direct = c.grad(np.ones((2, 3)))           # the 2019 node's own grad, called directly
    np.testing.assert_array_equal(direct["B"], [[3, 3, 3]])
    assert (a * 2).grad(np.ones((2, 3)))["A"].tolist() == [[2, 2, 2], [2, 2, 2]]


def test_a_function_set_as_grad_replaces_the_ops_own_backward():
    a = Node(np.array([[1.0, -2.0]]), "a")
    c = a * 3.0
    c.grad = lambda g: Node._set_grad(a, g)    # straight through: dc/da taken as 1
    np.testing.assert_array_equal(c.exp().sum().grad(1)["a"], np.exp(c.value))
    np.testing.assert_array_equal(c.grad(np.ones((1, 2)))["a"], [[1.0, 1.0]])


# -- the opt-in 2019 mode: shapes and types --------------------------------------------------------
def test_full_reductions_are_1_by_1_in_the_2019_mode():
    a = Node(np.array([[1.0, 5.0], [3.0, 2.0]]), "a")
    assert a.sum().shape == () and a.max().shape == ()
    with dp.compat_2019():
        s, m, mx = a.sum(), a.mean(), a.max()
        assert (s.shape, m.shape, mx.shape) == ((1, 1), (1, 1), (1, 1))
        assert (s.value[0, 0], m.value[0, 0], mx.value[0, 0]) == (11.0, 2.75, 5.0)
        np.testing.assert_array_equal(mx.grad(1)["a"], [[0, 1], [0, 0]])
    assert a.sum().shape == ()                 # off again after the block


def test_a_1d_argument_of_dot_is_a_column_in_the_2019_mode():
    w = Node(np.arange(6.0).reshape(2, 3), "W")
    v = np.array([1.0, 2.0, 3.0])
    assert w.dot(v).shape == (2,)
    with dp.compat_2019():
        out = w.dot(v)
        np.testing.assert_array_equal(out.value, [[8.0], [26.0]])
        np.testing.assert_array_equal(out.sum().grad(1)["W"], [v, v])


def test_a_1d_left_operand_of_dot_is_a_column_in_the_2019_mode():
    u, row = Node(np.array([1.0, 2.0, 3.0]), "u"), Node(np.array([[1.0, -1.0]]), "r")
    with pytest.raises(dp.ShapeError):
        u.dot(row)                             # dp: a 1-d left operand is a row
    with dp.compat_2019():
        out = u.dot(row)                       # (3, 1) . (1, 2): the outer product
        np.testing.assert_array_equal(out.value, [[1, -1], [2, -2], [3, -3]])
        grads = (out * np.array([[1.0, 2.0]])).sum().grad(1)
        np.testing.assert_array_equal(grads["u"], [-1, -1, -1])
        np.testing.assert_array_equal(grads["r"], [[6, 12]])
        assert u.dot(u.value[:, None].T).shape == (3, 3)
        with pytest.raises(dp.ShapeError, match=r"\(3, 1\) @ \(3, 2\)"):
            u.dot(np.ones((3, 2)))


def test_named_nodes_are_in_the_node_store_in_the_2019_mode(monkeypatch):
    monkeypatch.setattr(Node, "NodeStore", {})
    Node(np.ones((1, 2)), "outside")           # not in the mode: not kept
    with pytest.raises(RuntimeError, match="compat_2019"):
        Node.get_param()
    with dp.compat_2019():
        w, b = Node(np.ones((2, 2)), "w"), Node(np.zeros((1, 2)), "b")
        Node(np.ones(3))                       # unnamed: not kept
        assert Node.NodeStore == {"w": w, "b": b}
        param = Node.get_param()
        assert sorted(param) == ["b", "w"]
        param["w"][0, 0] = 5.0                 # a copy
        assert w.value[0, 0] == 1.0
        Node.set_param({"b": [[3, 4]]})
        np.testing.assert_array_equal(b.value, [[3.0, 4.0]])
        assert b.dtype == np.float64
        with pytest.raises(KeyError, match="'v'.*\\['b', 'w'\\]"):
            Node.set_param({"v": np.ones(2)})
        with pytest.raises(dp.ShapeError, match=r"'w' has shape \(2, 2\), got \(3,\)"):
            Node.set_param({"w": np.ones(3)})
        assert sorted(dp.Input("x").get_param()) == ["b", "w"]   # not an op recorded on x


def test_a_node_has_a_uuid():
    a, b = Node(np.ones(2), "a"), Node(np.ones(2))
    assert a.uuid == a.uuid and a.uuid != b.uuid and a.uuid != (a + b).uuid
    assert a.uuid.version == 4


def test_get_grad_gives_the_loss_as_a_node_in_the_2019_mode(network):
    x, y = data()
    grad, loss = network.get_grad(x, y)
    assert isinstance(loss, float)
    with dp.compat_2019():
        grad, node = network.get_grad(x, y)
        assert isinstance(node, Node) and node.value.shape == (1, 1)
        assert node.value[0, 0] == pytest.approx(loss, rel=1e-12)


def test_train_returns_the_loss_as_a_1_by_1_array_in_the_2019_mode(network):
    x, y = data()
    with dp.compat_2019():
        loss = dp.SGD(network, x, y, batch_size=None).train(steps=2, print_each=0)
        assert isinstance(loss, np.ndarray) and loss.shape == (1, 1)
        last, loss_hist, _ = dp.SGD(network, x, y, batch_size=None).train(
            steps=2, print_each=0, err_hist=True)
        assert last.shape == (1, 1) and last[0, 0] == loss_hist[-1]
    assert isinstance(dp.SGD(network, x, y).train(steps=1, print_each=0), float)


def test_the_2019_mode_is_a_switch_too():
    a = Node(np.ones((2, 2)))
    dp.compat_2019()
    try:
        assert a.sum().shape == (1, 1)
    finally:
        dp.compat_2019(False)
    assert a.sum().shape == ()


# -- the 2019 bugs stay fixed ----------------------------------------------------------------------
def test_the_2019_bugs_stay_fixed():
    """sigma(x), not sigma(-x); softmax without overflow. (set_param: test_paper_listings'
    manual loop; RMSProp's and Adam's rules: test_optim and the RMS_Prop test above.)"""
    np.testing.assert_allclose(Node(np.array([[2.0, -2.0]])).sigmoid().value,
                               [[1 / (1 + np.exp(-2)), 1 / (1 + np.exp(2))]])
    probabilities = Node(np.array([[1000.0, 0.0]])).softmax().value
    np.testing.assert_array_equal(probabilities, [[1.0, 0.0]])
