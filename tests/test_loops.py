"""Delay nodes and recurrent loops (dp/loops.py): Tarjan's components against brute-force
reachability, its cost on 10^5 nodes, and networks with loops against the same networks unrolled
by hand into ordinary dp graphs (values and gradients to 1e-10); an LSTM against torch.nn.LSTM
(skipped without PyTorch)."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

import dp
from dp import Input, Node, PastValue

try:
    import torch
except ImportError:
    torch = None

requires_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


# -- Tarjan's algorithm -----------------------------------------------------------------------------
def random_graph(seed, n=12):
    rng = np.random.default_rng(seed)
    return {v: [int(w) for w in rng.choice(n, rng.integers(0, 3), replace=False)] for v in range(n)}


def reachable(graph, start):
    seen, todo = {start}, [start]
    while todo:
        for w in graph[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


@pytest.mark.parametrize("seed", range(30))
def test_components_are_the_mutually_reachable_sets_in_dependency_order(seed):
    graph = random_graph(seed)
    components = dp.strongly_connected_components(list(graph), graph.__getitem__)
    reach = {v: reachable(graph, v) for v in graph}
    expected = {frozenset(w for w in graph if w in reach[v] and v in reach[w]) for v in graph}
    assert {frozenset(c) for c in components} == expected
    position = {v: i for i, c in enumerate(components) for v in c}
    for v in graph:              # every edge leads to the same component or an earlier one
        assert all(position[w] <= position[v] for w in graph[v])


def test_tarjan_visits_each_node_and_edge_once_on_a_looped_graph_of_10_5_nodes():
    n = 100_000
    calls = []

    def successors(v):           # a chain n-1 -> ... -> 0, and 10k -> 10k + 9: loops of 10
        calls.append(v)
        return ([v - 1] if v else []) + ([v + 9] if v % 10 == 0 else [])
    components = dp.strongly_connected_components([n - 1], successors)
    assert sorted(calls) == list(range(n))       # each node's edges read once: linear
    assert len(components) == n // 10 and all(len(c) == 10 for c in components)


def test_evaluation_order_of_a_loop_of_20000_ops_needs_no_recursion():
    h_prev = PastValue(0.0)
    h = h_prev
    for _ in range(20_000):      # far past Python's recursion limit (1,000)
        h = h + 1.0
    h_prev.connect(h)
    order = dp.evaluation_order([h])
    assert len(order) == 1 and len(order[0]) == 20_001
    assert order[0][0] is h_prev and order[0][-1] is h


# -- a simple recurrent network against its unrolled DAG -------------------------------------------
def parameters(seed, n=3, m=4, k=2):
    rng = np.random.default_rng(seed)
    return {name: Node(rng.standard_normal(shape) * 0.5, name) for name, shape in
            (("W", (n, m)), ("U", (m, m)), ("b", (m,)), ("V", (m, k)), ("h0", (m,)))}


def rnn_network(p):
    x = Input("x")
    h_prev = PastValue(p["h0"])
    h = (x @ p["W"] + h_prev @ p["U"] + p["b"]).tanh()
    h_prev.connect(h)
    return h @ p["V"]


def rnn_unrolled(p, xs):
    """The same network written as an ordinary dp graph, one step after another."""
    h, ys = p["h0"], []
    for x_t in xs:
        h = (Node(x_t) @ p["W"] + h @ p["U"] + p["b"]).tanh()
        ys.append(h @ p["V"])
    return ys


def weighted_sum(outputs, u):
    return sum((y * u_t).sum() for y, u_t in zip(outputs, u))


def test_loop_equals_the_network_unrolled_by_hand():
    p, xs = parameters(0), np.random.default_rng(1).standard_normal((7, 5, 3))
    out = dp.run(rnn_network(p), {"x": xs})
    u = np.random.default_rng(2).standard_normal(out.shape)
    grads = (out * u).sum().grad()
    reference = rnn_unrolled(p, xs)
    expected = weighted_sum(reference, u).grad()
    assert_allclose(out.value, np.stack([y.value for y in reference]), rtol=1e-10, atol=1e-12)
    assert sorted(grads) == ["U", "V", "W", "b", "h0"]
    for name in expected:
        assert_allclose(grads[name], expected[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_a_recurrent_weight_also_used_otherwise_in_the_loop_equals_the_unrolled_network():
    # U twice in the loop: in h_prev @ U and in h * U[0]; its gradients add up over both
    p, xs = parameters(3), np.random.default_rng(4).standard_normal((6, 5, 3))
    x, h_prev = Input("x"), PastValue(p["h0"])
    h = (x @ p["W"] + h_prev @ p["U"] + p["b"]).tanh() * p["U"][0]
    h_prev.connect(h)
    out = dp.run(h, {"x": xs})
    u = np.random.default_rng(5).standard_normal(out.shape)
    grads = (out * u).sum().grad()
    h, expected = p["h0"], 0
    for x_t, u_t in zip(xs, u):
        h = (Node(x_t) @ p["W"] + h @ p["U"] + p["b"]).tanh() * p["U"][0]
        expected = expected + (h * u_t).sum()
    expected = expected.grad()
    assert sorted(grads) == ["U", "W", "b", "h0"]
    for name in expected:
        assert_allclose(grads[name], expected[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_sequences_of_different_lengths_equal_each_run_alone():
    p, lengths = parameters(3), [6, 2, 4]
    xs = np.random.default_rng(4).standard_normal((6, 3, 3))
    xs[2:, 1] = 1e3                          # padding: must change nothing
    out = dp.run(rnn_network(p), {"x": xs}, lengths=lengths)
    u = np.random.default_rng(5).standard_normal(out.shape)
    grads = (out * u).sum().grad()
    expected, total = {}, 0
    for b, length in enumerate(lengths):
        alone = dp.run(rnn_network(p), {"x": xs[:length, b:b + 1]})
        assert_allclose(out.value[:length, b], alone.value[:, 0], rtol=1e-10, atol=1e-12)
        assert np.all(out.value[length:, b] == 0)
        total = total + (alone * u[:length, b:b + 1]).sum()
    expected = total.grad()
    for name in expected:
        assert_allclose(grads[name], expected[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_delay_of_two_steps_inside_and_outside_a_loop():
    # s_t = 0.5 s_{t-2} + x_{t-1} w: a loop through a 2-step delay, fed by a delay outside it
    w = Node(np.array([1.5, -2.0]), "w")
    x = Input("x")
    s_prev = PastValue(np.array([0.25, 1.0]), steps=2)
    s = s_prev * 0.5 + x.past_value(initial=3.0) * w
    s_prev.connect(s)
    xs = np.random.default_rng(6).standard_normal((5, 1, 2))
    out = dp.run(s, {"x": xs})
    history = [Node(np.array([0.25, 1.0]))] * 2
    for t in range(5):
        x_before = Node(xs[t - 1]) if t else Node(np.full((1, 2), 3.0))
        history.append(history[-2] * 0.5 + x_before * w)
    reference = history[2:]
    assert_allclose(out.value, np.stack([r.value for r in reference]), rtol=1e-12)
    assert_allclose(out.sum().grad()["w"], sum(r.sum() for r in reference).grad()["w"], rtol=1e-10)


def test_loop_outputs_read_by_ops_outside_compose_with_further_ops():
    p, xs = parameters(7), np.random.default_rng(8).standard_normal((4, 2, 3))
    logits = dp.run(rnn_network(p).softmax(-1).log(), {"x": xs})
    reference = [y.softmax(-1).log() for y in rnn_unrolled(p, xs)]
    assert_allclose(logits.value, np.stack([r.value for r in reference]), rtol=1e-10)
    grads, expected = logits.sum().grad(), sum(r.sum() for r in reference).grad()
    for name in expected:
        assert_allclose(grads[name], expected[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_order_puts_the_loop_after_what_it_reads_and_the_batched_ops_outside_it():
    p = parameters(0)
    x = Input("x")
    x_w = x @ p["W"]
    h_prev = PastValue(0.0)
    h = (x_w + h_prev @ p["U"]).tanh()
    h_prev.connect(h)
    y = h @ p["V"]
    order = dp.evaluation_order([y])
    assert [len(c) for c in order] == [1, 1, 4, 1]
    assert order[0] == [x] and order[1] == [x_w] and order[-1] == [y]
    assert order[2][0] is h_prev and order[2][-1] is h


def test_numbers_and_nodes_on_the_left_are_recorded_too():
    b = Node(np.array([1.0, 2.0]), "b")
    x = Input("x")
    y = 1 - x
    z = b + 2.0 * y / 4.0
    assert all(isinstance(node, dp.SequenceNode) for node in (y, z))
    xs = np.random.default_rng(11).standard_normal((3, 2, 2))
    out = dp.run(z, {"x": xs})
    assert_allclose(out.value, [1.0, 2.0] + (1 - xs) / 2, rtol=1e-12)
    assert_allclose(out.sum().grad()["b"], [6.0, 6.0])


def test_without_grad_the_loop_gives_the_same_values_and_builds_no_graph():
    p, xs = parameters(12), np.random.default_rng(13).standard_normal((5, 2, 3))
    with dp.no_grad():
        out = dp.run(rnn_network(p), {"x": xs})
    assert not out.needs_grad
    assert_allclose(out.value, dp.run(rnn_network(p), {"x": xs}).value, rtol=1e-12)


@pytest.mark.parametrize("build, error, message", [
    (lambda: dp.run(PastValue(0.0) + Input("x"), {"x": np.zeros((2, 1))}), ValueError,
     "never connected"),
    (lambda: dp.run(Input("x") * 2, {"y": np.zeros((2, 1))}), KeyError, "no value for the input 'x'"),
    (lambda: dp.run(Input("x") + Input("y"), {"x": np.zeros((2, 1)), "y": np.zeros((3, 1))}),
     dp.ShapeError, "same T and B"),
    (lambda: dp.run(Input("x") * 2, {"x": np.zeros((2, 3))}, lengths=[1, 2, 3]), ValueError,
     "lengths must be 3 integers in 1..2"),
    (lambda: PastValue(0.0, steps=0), ValueError, "steps must be an integer >= 1"),
    (lambda: PastValue().connect(np.zeros(2)), TypeError, "must be another node"),
    (lambda: PastValue(Input("x")), TypeError, "initial value must be a number"),
    (lambda: dp.conv2d(Input("x"), np.zeros((1, 1, 1, 1))), TypeError, "has no value of its own"),
    (lambda: Input("x").shape, TypeError, r"dp.run\(outputs, inputs\) computes"),
])
def test_errors_say_what_is_wrong(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_a_delay_connects_once():
    delay = PastValue()
    delay.connect(Input("x"))
    with pytest.raises(ValueError, match="already connected"):
        delay.connect(Input("y"))


# -- LSTM -------------------------------------------------------------------------------------------
@pytest.mark.torch
@requires_torch
def test_lstm_from_nodes_equals_torch_lstm():
    n, m, length, batch = 3, 5, 9, 4
    rng = np.random.default_rng(9)
    reference = torch.nn.LSTM(n, m, dtype=torch.float64)
    W = Node(reference.weight_ih_l0.detach().numpy().T.copy(), "W")
    U = Node(reference.weight_hh_l0.detach().numpy().T.copy(), "U")
    b = Node((reference.bias_ih_l0 + reference.bias_hh_l0).detach().numpy(), "b")
    xs = rng.standard_normal((length, batch, n))
    h, c = dp.lstm(Input("x"), W, U, b)
    out_h, out_c = dp.run([h, c], {"x": xs})
    u, v = rng.standard_normal(out_h.shape), rng.standard_normal((batch, m))
    grads = ((out_h * u).sum() + (out_c[-1] * v).sum()).grad()

    x_t = torch.tensor(xs, requires_grad=True)
    expected_h, (_, expected_c) = reference(x_t)
    ((expected_h * torch.from_numpy(u)).sum() + (expected_c[0] * torch.from_numpy(v)).sum()).backward()
    assert_allclose(out_h.value, expected_h.detach().numpy(), rtol=1e-8, atol=1e-10)
    assert_allclose(out_c.value[-1], expected_c[0].detach().numpy(), rtol=1e-8, atol=1e-10)
    assert_allclose(grads["W"], reference.weight_ih_l0.grad.numpy().T, rtol=1e-8, atol=1e-10)
    assert_allclose(grads["U"], reference.weight_hh_l0.grad.numpy().T, rtol=1e-8, atol=1e-10)
    assert_allclose(grads["b"], reference.bias_ih_l0.grad.numpy(), rtol=1e-8, atol=1e-10)
    assert_allclose(grads["b"], reference.bias_hh_l0.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_lstm_gradients_pass_gradcheck():
    rng = np.random.default_rng(10)
    xs = rng.standard_normal((4, 2, 2))

    def network(W, U, b):
        return dp.run(dp.lstm(Input("x"), W, U, b)[0], {"x": xs})
    assert dp.gradcheck(network, rng.standard_normal((2, 12)), rng.standard_normal((3, 12)),
                        rng.standard_normal(12)) < 1e-7
