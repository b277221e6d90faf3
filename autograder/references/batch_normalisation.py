"""References of 08 batch normalisation (the grader's side only): dp's own `BatchNorm` layer,
its gradients by automatic differentiation, and the known mistakes that the messages name.

For a batch x of shape (n, d), per feature j over the batch (axis 0):

    mu = mean(x),  var = mean((x - mu)^2) (biased),  std = sqrt(var + eps)
    x_hat = (x - mu) / std,  y = gamma * x_hat + beta

    dbeta = sum(dy),  dgamma = sum(dy * x_hat),
    dx = (g - mean(g) - x_hat * mean(g * x_hat)) / std  with g = gamma * dy

Running statistics: running <- momentum * running + (1 - momentum) * batch statistic (the
biased variance). Evaluation mode normalises with the running mean and variance instead.
dp computes y and the gradients its own way (a graph of elementary ops, differentiated by
autodiff), so that the hand-written formula is checked against an independent computation.
"""
from __future__ import annotations

import numpy as np

import dp
from dp import Node


def _layer(gamma, beta, eps, momentum=0.9) -> dp.BatchNorm:
    gamma, beta = np.asarray(gamma, dtype=float), np.asarray(beta, dtype=float)
    layer = dp.BatchNorm(gamma.shape[1], "ref", momentum=momentum, eps=eps)
    layer.gamma.value, layer.beta.value = gamma.copy(), beta.copy()
    return layer


def _statistics(x) -> tuple:
    """(mean, biased variance) of each feature over the batch, kept as (1, d)."""
    return x.mean(axis=0, keepdims=True), x.var(axis=0, keepdims=True)


def forward(x, gamma, beta, eps) -> dict:
    """{"y", "x_hat", "std"} of the batch x in training mode: y from dp.BatchNorm."""
    y = _layer(gamma, beta, eps)(Node(x)).value
    mean, var = _statistics(x)
    std = np.sqrt(var + eps)
    return {"y": y, "x_hat": (x - mean) / std, "std": std}


def gradients(x, gamma, beta, eps, dy) -> dict:
    """{"dx", "dgamma", "dbeta"} of sum(dy * y), by dp's autodiff through dp.BatchNorm."""
    grads = _layer(gamma, beta, eps)(Node(x, "x")).grad(dy)
    return {"dx": grads["x"], "dgamma": grads["ref_gamma"], "dbeta": grads["ref_beta"]}


def running(running_mean, running_var, batches, momentum) -> list:
    """[{"running_mean", "running_var"} after each batch] of a dp.BatchNorm in training mode
    that starts from the given running statistics."""
    layer = _layer(np.ones_like(running_mean), np.zeros_like(running_mean), 1e-5, momentum)
    layer.running_mean, layer.running_var = running_mean.copy(), running_var.copy()
    steps = []
    for batch in batches:
        layer(Node(batch))
        steps.append({"running_mean": layer.running_mean.copy(),
                      "running_var": layer.running_var.copy()})
    return steps


def evaluate(x, gamma, beta, running_mean, running_var, eps) -> np.ndarray:
    """y of a dp.BatchNorm in evaluation mode with the given running statistics."""
    layer = _layer(gamma, beta, eps)
    layer.running_mean, layer.running_var = running_mean.copy(), running_var.copy()
    layer.training = False
    return layer(Node(x)).value


# -- known mistakes (hints: they only word a message) -----------------------------------------------
def forward_mistakes(x, gamma, beta, eps) -> dict:
    """{what is wrong: the y it gives}."""
    mean, var = _statistics(x)
    n = len(x)
    normalise = {"the unbiased variance (dividing by n - 1): divide by n":
                     (x - mean) / np.sqrt(var * n / (n - 1) + eps),
                 "sqrt(var) + eps: eps goes inside the square root": (x - mean) / (np.sqrt(var) + eps),
                 "no eps at all": (x - mean) / np.sqrt(var),
                 "dividing by the variance, not by the standard deviation": (x - mean) / (var + eps),
                 "statistics over each row (axis 1): normalise each feature over the batch (axis 0)":
                     (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + eps)}
    candidates = {name: gamma * x_hat + beta for name, x_hat in normalise.items()}
    x_hat = (x - mean) / np.sqrt(var + eps)
    candidates["x_hat without the scale gamma and shift beta"] = x_hat
    candidates["gamma and beta swapped"] = beta * x_hat + gamma
    return candidates


def x_hat_mistakes(x, gamma, beta, eps) -> dict:
    """{what is wrong: the x_hat it gives}: the mistakes of the normalisation itself."""
    return {name: (y - beta) / gamma for name, y in forward_mistakes(x, gamma, beta, eps).items()
            if "gamma" not in name}


def std_mistakes(x, eps) -> dict:
    """{what is wrong: the std it gives}."""
    _, var = _statistics(x)
    n = len(x)
    return {"the standard deviation without eps: std = sqrt(var + eps)": np.sqrt(var),
            "the variance: std = sqrt(var + eps)": var + eps,
            "sqrt(var) + eps: eps goes inside the square root": np.sqrt(var) + eps,
            "the unbiased standard deviation: divide by n": np.sqrt(var * n / (n - 1) + eps)}


def dgamma_mistakes(dy, x_hat, gamma) -> dict:
    """{what is wrong: the dgamma it gives}."""
    return {"sum(dy): that is dbeta": dy.sum(axis=0, keepdims=True),
            "sum(dy * gamma * x_hat): gamma is not part of dgamma":
                (dy * gamma * x_hat).sum(axis=0, keepdims=True)}


def dx_mistakes(dy, x_hat, std, gamma) -> dict:
    """{what is wrong: the dx it gives}: paths of the graph left out, and alike."""
    g = gamma * dy

    def mean(a):
        return a.mean(axis=0, keepdims=True)

    return {
        "the formula without the mean of the gradient, - mean(g), the path through mu":
            (g - x_hat * mean(g * x_hat)) / std,
        "the formula without - x_hat * mean(g * x_hat), the path through the variance":
            (g - mean(g)) / std,
        "gamma * dy / std: only the direct path; mu and the variance depend on x too": g / std,
        "the formula without gamma: g = gamma * dy": (dy - mean(dy) - x_hat * mean(dy * x_hat)) / std,
        "the formula multiplied by std instead of divided":
            (g - mean(g) - x_hat * mean(g * x_hat)) * std}


def running_mistakes(running_mean, running_var, batches, momentum) -> list:
    """Per batch, [{what is wrong: running_mean}, {what is wrong: running_var}], each from the
    right running statistics before that batch."""
    steps, m = [], momentum
    mean, var = running_mean, running_var
    for batch, right in zip(batches, running(running_mean, running_var, batches, momentum)):
        n = len(batch)
        batch_mean, batch_var = _statistics(batch)
        steps.append([
            {"momentum on the wrong side: the momentum weighs the old running mean":
                 (1 - m) * mean + m * batch_mean,
             "the batch mean alone": batch_mean,
             "the old running mean, not updated": mean},
            {"momentum on the wrong side: the momentum weighs the old running variance":
                 (1 - m) * var + m * batch_var,
             "the unbiased batch variance: use the biased one, as in the forward pass":
                 m * var + (1 - m) * batch_var * n / (n - 1),
             "the batch standard deviation in place of the variance": m * var + (1 - m) * np.sqrt(batch_var),
             "the batch variance alone": batch_var,
             "the old running variance, not updated": var}])
        mean, var = right["running_mean"], right["running_var"]
    return steps


def eval_mistakes(x, gamma, beta, running_mean, running_var, eps) -> dict:
    """{what is wrong: the y it gives} in evaluation mode."""
    rm, rv = running_mean, running_var
    batch_mean, batch_var = _statistics(x)
    return {
        "the batch statistics: in evaluation mode use the running mean and variance":
            gamma * (x - batch_mean) / np.sqrt(batch_var + eps) + beta,
        "the batch mean with the running variance": gamma * (x - batch_mean) / np.sqrt(rv + eps) + beta,
        "the running mean with the batch variance": gamma * (x - rm) / np.sqrt(batch_var + eps) + beta,
        "the running variance used as the standard deviation": gamma * (x - rm) / (rv + eps) + beta,
        "sqrt(running_var) + eps: eps goes inside the square root":
            gamma * (x - rm) / (np.sqrt(rv) + eps) + beta,
        "no scale gamma and shift beta": (x - rm) / np.sqrt(rv + eps)}
