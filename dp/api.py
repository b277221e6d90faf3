"""The stable API: every public name of dp and its signature, in one place.

Exercises are written against these names, so they must never disappear or change; the test
``tests/test_api.py`` fails when one does. Add new names here when you add them; mark old ones
deprecated in their docstrings, never remove them. ``None`` means "exists" (a module, an
exception class or a property).
"""

F64 = "<class 'numpy.float64'>"
OPTIMIZER = ("(model, x_train=None, y_train=None, hyperparam=None, batch_size=128, seed=None, "
             "**hyperparameters)")
LAYER = "(self, n_in, n_out, name=None, init=None, dtype=None)"
DENSE = f"(n_in, n_out, name=None, activation=None, init=None, dtype={F64})"
BINARY = "(self, other)"
UNARY = "(self)"
INITIALISER = f"(fan_in, fan_out, dtype={F64})"

STABLE_API = {
    # -- the graph (paper: "Basic (low-level) part") --
    "Node": "(value, name: 'str | None' = None)",
    "Node.grad": "(self, g=1) -> 'dict'",
    "Node.shape": None, "Node.dtype": None, "Node.ndim": None, "Node.T": None,
    "Node.item": "(self) -> 'float'",
    **{f"Node.{m}": BINARY for m in (
        "__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__radd__", "__rsub__",
        "__rmul__", "__rtruediv__", "__rpow__", "dot", "__matmul__", "__rmatmul__")},
    **{f"Node.{m}": UNARY for m in (
        "__neg__", "exp", "log", "sqrt", "square", "abs", "sin", "cos", "tanh", "sigmoid", "relu")},
    "Node.leaky_relu": "(self, slope=0.01)",
    "Node.transpose": "(self, *axes)",
    "Node.softmax": "(self, axis=-1)", "Node.log_softmax": "(self, axis=-1)",
    "Node.sum": "(self, axis=None)", "Node.mean": "(self, axis=None)", "Node.max": "(self, axis=None)",
    "Node.reshape": "(self, *shape)", "Node.__getitem__": "(self, index)",
    "Node.conv1d": "(self, kernel)", "Node.maxpool1d": "(self, size)",
    # the 2019 library's forms (docs/COMPAT.md): x.T(), a.concatenate(b), ops written with
    # ret.grad = grad and Node._set_grad, and its shapes and types in the opt-in 2019 mode
    "Node.__call__": "(self)", "Node.concatenate": "(self, other, axis=0)",
    "Node.NodeStore": None, "Node.uuid": None,
    "Node.get_param": "() -> 'dict'", "Node.set_param": "(params: 'dict') -> 'None'",
    "Node._set_grad": "(self, g_self, other=None, g_other=None) -> 'dict'",
    "compat_2019": "(enabled=True)",
    "concatenate": "(nodes, axis=0) -> 'Node'",
    "maximum": "(a, b) -> 'Node'", "minimum": "(a, b) -> 'Node'",
    "custom_op": "(name: 'str', value, *inputs) -> 'Node'",
    "no_grad": "()", "detect_anomaly": "()", "ShapeError": None,
    "as_array": "(value, dtype=None) -> 'np.ndarray'",
    # -- images and statistics (the computational-network chapter, dp/conv.py) --
    "conv2d": "(x, weight, bias=None, stride=1, padding=0) -> 'Node'",
    "maxpool2d": "(x, size, stride=None, padding=0) -> 'Node'",
    "avgpool2d": "(x, size, stride=None, padding=0) -> 'Node'",
    "inv_std_dev": "(x, axis=0, eps=0.0) -> 'Node'",
    "per_dim_mean_var_norm": "(x, mean, inv_std) -> 'Node'",
    "Statistics": "(axis=0, eps=1e-08)", "Statistics.add": "(self, x) -> 'Statistics'",
    "Statistics.mean": "(self) -> 'Node'", "Statistics.inv_std_dev": "(self) -> 'Node'",
    # -- sequences and recurrent loops: delay nodes, Tarjan's order, BPTT (dp/loops.py) --
    "Input": "(name: 'str')", "PastValue": "(initial=0.0, steps=1)",
    "SequenceNode": "(fn=None, args=(), kwargs=None, op='op')", "SequenceNode.operands": "(self) -> 'list'",
    **{f"{cls}.{method}": f"(self, {args}) -> 'PastValue'" for cls, method, args in (
        ("PastValue", "connect", "source: 'SequenceNode'"),
        ("SequenceNode", "past_value", "initial=0.0, steps=1"))},
    "run": "(outputs, inputs: 'dict', lengths=None)", "evaluation_order": "(outputs) -> 'list'",
    "strongly_connected_components": "(roots, successors) -> 'list'",
    "lstm": "(x, W, U, b, h0=None, c0=None)",
    # -- losses --
    "cross_entropy": "(logits, y, reduction='mean') -> 'Node'",
    "binary_cross_entropy": "(logits, y, reduction='mean') -> 'Node'",
    "mean_squared_error": "(prediction, y, reduction='mean') -> 'Node'",
    "mse": "(prediction, y, reduction='mean') -> 'Node'",
    # -- models and layers (paper: "Neural network library (high-level) part") --
    "Model": f"(dtype={F64})",
    "Model.Linear_Layer": LAYER, "Model.ReLU_Layer": LAYER, "Model.ReLu_Layer": LAYER,
    "Model.Sigmoid_Layer": LAYER, "Model.Tanh_Layer": LAYER,
    "Model.Dropout_Layer": "(self, p=0.5)",
    "Model.BatchNorm_Layer": "(self, n, name, momentum=0.9, eps=1e-05, dtype=None)",
    "Model.forward": "(self, x) -> 'Node'", "Model.loss": "(self, x, y) -> 'Node'",
    "Model.get_grad": "(self, x, y)", "Model.get_param": "(self) -> 'dict'",
    "Model.set_param": "(self, params: 'dict') -> 'None'",
    "Model.parameters": "(self) -> 'dict'", "Model.layers": "(self) -> 'list'",
    "Model.train": "(self, mode=True)", "Model.eval": "(self)",
    "Model.neural_nodes": None,
    "Layer": "()",
    "Dense": DENSE, "NeuralNode": DENSE,
    "Dropout": "(p=0.5)",
    "BatchNorm": f"(n, name, momentum=0.9, eps=1e-05, dtype={F64})",
    # -- optimizers --
    "Optimizer": OPTIMIZER, "SGD": OPTIMIZER, "SGD_Momentum": OPTIMIZER, "RMSProp": OPTIMIZER,
    "RMS_Prop": OPTIMIZER, "Adam": OPTIMIZER,
    "Optimizer.train": "(self, steps=1000, print_each=100, err_hist=False, progress=False)",
    "Optimizer.step": "(self, grads: 'dict') -> 'None'",
    "Optimizer.update": "(self, theta, g, state)",
    "Optimizer.next_batch": "(self)", "Optimizer.random_batch": "(self)", "Optimizer.alpha": None,
    **{f"optimizer.{name}": OPTIMIZER for name in (
        "SGD", "SGD_Momentum", "RMSProp", "RMS_Prop", "Adam", "Optimizer")},
    # -- helpers --
    "one_hot": f"(labels, num_classes=None, dtype={F64}) -> 'np.ndarray'",
    "Helper.one_hot_encoding": f"(labels, num_classes=None, dtype={F64}) -> 'np.ndarray'",
    "batches": "(x, y, batch_size, seed=None, shuffle=True, repeat=False)",
    "gradcheck": "(fn, *inputs, eps=1e-06, tol=1e-06, floor=1.0, seed=0) -> 'float'",
    "GradcheckError": None,
    "numerical_gradient": "(f, x: 'np.ndarray', eps=1e-06) -> 'np.ndarray'",
    "relative_error": "(a, b, floor=1.0) -> 'np.ndarray'",
    "seed": "(value: 'int | None') -> 'None'",
    **{f"init.{f}": INITIALISER for f in (
        "xavier_uniform", "xavier_normal", "he_uniform", "he_normal")},
    "init.uniform": f"(fan_in, fan_out, dtype={F64}, scale=0.1)",
    "init.normal": f"(fan_in, fan_out, dtype={F64}, std=0.1)",
    "data.mnist": "(cache_dir=None, download=None, verbose=True)",
    "plot_loss": "(loss_hist, title='Training loss', ax=None)",   # added with notebook 14
}

# Hyperparameter names and defaults of each optimizer (keyword spelling; see Optimizer).
HYPERPARAMETERS = {
    "SGD": {"lr": 0.001},                        # 0.01 before issue 17: 2019's default is
    "SGD_Momentum": {"lr": 0.001, "beta": 0.9},  # 0.001, and the paper's listing relies on it
    "RMSProp": {"lr": 0.001, "beta": 0.9, "epsilon": 1e-8},
    "Adam": {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
}
