"""Probes of 08 batch normalisation: the student's NumPy forward and backward passes, the running
statistics update, and the evaluation mode of the MyBatchNorm layer, each on inputs chosen by the
grader. Each task is probed on its own: the backward pass gets the grader's x_hat and std, the
evaluation mode the grader's running statistics, so a bug in one part shows up in its task only."""
import numpy as np

from dp import Node

from .schema import AnyShape, Either, Flag, Hint, Items, Plain, Text, TypeName


def _plain(value):
    """A student's result as float arrays (a Node as its value); anything else as its type name."""
    if isinstance(value, Node):
        value = value.value
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return {"not_array": type(value).__name__}
    return array if array.dtype == float else {"not_array": type(value).__name__}


def _results(value, names) -> dict:
    """{name: array} of a function's tuple result, or {"error": what it returned instead}."""
    if not isinstance(value, (tuple, list)) or len(value) != len(names):
        count = len(value) if isinstance(value, (tuple, list)) else 1
        return {"error": f"a {type(value).__name__} of {count} value(s), not the {len(names)} "
                         f"values ({', '.join(names)})"}
    return dict(zip(names, (_plain(v) for v in value)))


def forward(ns, x, gamma, beta, eps):
    """batchnorm_forward(x, gamma, beta, eps) -> {y, x_hat, std}."""
    out = ns["batchnorm_forward"](x.copy(), gamma.copy(), beta.copy(), eps)
    return _results(out, ("y", "x_hat", "std"))


def backward(ns, dy, x_hat, std, gamma):
    """batchnorm_backward(dy, x_hat, std, gamma) -> {dx, dgamma, dbeta}."""
    out = ns["batchnorm_backward"](dy.copy(), x_hat.copy(), std.copy(), gamma.copy())
    return _results(out, ("dx", "dgamma", "dbeta"))


def running_statistics(ns, running_mean, running_var, batches, momentum):
    """The running statistics after each batch, updated by update_running_statistics, and
    whether the arrays passed in were changed."""
    mean, var = running_mean.copy(), running_var.copy()
    steps = []
    for batch in batches:
        given = (mean.copy(), var.copy())
        out = _results(ns["update_running_statistics"](mean, var, batch.copy(), momentum),
                       ("running_mean", "running_var"))
        if "error" in out:
            return {"error": out["error"], "steps": steps}
        out["changed_inputs"] = not (np.array_equal(mean, given[0]) and np.array_equal(var, given[1]))
        steps.append(out)
        mean, var = out["running_mean"], out["running_var"]
        if not isinstance(mean, np.ndarray) or not isinstance(var, np.ndarray):
            break
        mean, var = mean.copy(), var.copy()
    return {"steps": steps}


def evaluate(ns, x, gamma, beta, running_mean, running_var, eps, momentum, g):
    """MyBatchNorm in evaluation mode with the grader's gamma, beta and running statistics:
    its output on x, d sum(g * y) / dx through it (None when none reaches x), and its running
    statistics afterwards."""
    layer = ns["MyBatchNorm"](x.shape[1], "probe", momentum=momentum, eps=eps)
    layer.gamma.value, layer.beta.value = gamma.copy(), beta.copy()
    layer.running_mean, layer.running_var = running_mean.copy(), running_var.copy()
    layer.training = False
    out = layer(Node(x.copy(), "x"))
    dx = None
    if isinstance(out, Node) and np.shape(out.value) == np.shape(g):
        dx = (out * g).sum().grad(1).get("x")
        dx = None if dx is None else np.array(dx, dtype=float)
    single = layer(Node(x[:1].copy()))
    return {"y": _plain(out), "type": type(out).__name__, "y_first_alone": _plain(single),
            "dx": dx, "running_mean": _plain(layer.running_mean),
            "running_var": _plain(layer.running_var)}


def _named(names, *like) -> Either:
    """What `_results` returns."""
    return Either({name: Plain(AnyShape(*like)) for name in names}, {"error": Text(500)})


def _steps(batches):
    step = {"running_mean": Plain(AnyShape(*batches)), "running_var": Plain(AnyShape(*batches)),
            "changed_inputs": Flag()}
    return Items(step, max_len=len(batches))


REPLIES = {
    "forward": lambda x, gamma, beta, eps: _named(("y", "x_hat", "std"), x),
    "backward": lambda dy, x_hat, std, gamma: _named(("dx", "dgamma", "dbeta"), dy),
    "running_statistics": lambda running_mean, running_var, batches, momentum: Either(
        {"steps": _steps(batches)}, {"error": Text(500), "steps": _steps(batches)}),
    "evaluate": lambda x, gamma, beta, running_mean, running_var, eps, momentum, g: {
        "y": Plain(AnyShape(x)), "type": Hint(TypeName()), "y_first_alone": Plain(AnyShape(x)),
        "dx": Either(None, AnyShape(x)),
        "running_mean": Plain(AnyShape(x)), "running_var": Plain(AnyShape(x))},
}
