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

from . import misconception


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


def evaluate_gradient(x, gamma, beta, running_mean, running_var, eps, g) -> np.ndarray:
    """d sum(g * y) / dx of a dp.BatchNorm in evaluation mode: g gamma / sqrt(running_var + eps)."""
    layer = _layer(gamma, beta, eps)
    layer.running_mean, layer.running_var = running_mean.copy(), running_var.copy()
    layer.training = False
    return (layer(Node(x, "x")) * g).sum().grad(1)["x"]


# -- known mistakes (autograder/references/__init__.py: `misconception`) ----------------------------
def _normalised(x, gamma, beta, mean, std, affine=lambda x_hat, gamma, beta: gamma * x_hat + beta):
    """What a forward pass that normalises with `mean` and `std` returns, as `forward` does."""
    x_hat = (x - mean) / std
    return {"y": affine(x_hat, gamma, beta), "x_hat": x_hat, "std": std}


@misconception("forward", "the unbiased variance (dividing by n - 1): divide by n")
def forward_unbiased_variance(x, gamma, beta, eps):
    mean, var = _statistics(x)
    return _normalised(x, gamma, beta, mean, np.sqrt(var * len(x) / (len(x) - 1) + eps))


@misconception("forward", "sqrt(var) + eps: eps goes inside the square root")
def forward_eps_outside_sqrt(x, gamma, beta, eps):
    mean, var = _statistics(x)
    return _normalised(x, gamma, beta, mean, np.sqrt(var) + eps)


@misconception("forward", "no eps at all: std = sqrt(var + eps)")
def forward_without_eps(x, gamma, beta, eps):
    mean, var = _statistics(x)
    return _normalised(x, gamma, beta, mean, np.sqrt(var))


@misconception("forward", "dividing by the variance, not by the standard deviation sqrt(var + eps)")
def forward_divided_by_the_variance(x, gamma, beta, eps):
    mean, var = _statistics(x)
    return _normalised(x, gamma, beta, mean, var + eps)


@misconception("forward", "statistics over each row (axis 1): normalise each feature over the batch "
                          "(axis 0)")
def forward_statistics_over_features(x, gamma, beta, eps):
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    return _normalised(x, gamma, beta, mean, np.sqrt(var + eps))


@misconception("forward", "x_hat without the scale gamma and shift beta")
def forward_without_gamma_and_beta(x, gamma, beta, eps):
    mean, var = _statistics(x)
    return _normalised(x, gamma, beta, mean, np.sqrt(var + eps), lambda x_hat, gamma, beta: x_hat)


@misconception("forward", "gamma and beta swapped")
def forward_gamma_and_beta_swapped(x, gamma, beta, eps):
    mean, var = _statistics(x)
    return _normalised(x, gamma, beta, mean, np.sqrt(var + eps),
                       lambda x_hat, gamma, beta: beta * x_hat + gamma)


def _backward(x, gamma, eps, dy, dx=None, dgamma=None):
    """{"dx", "dgamma", "dbeta"} by the formula, with `dx` (a function of g = gamma dy, x_hat,
    std and the batch mean) or `dgamma` (of dy, x_hat) replaced by a mistaken one."""
    mean, var = _statistics(x)
    std = np.sqrt(var + eps)
    x_hat, g = (x - mean) / std, gamma * dy

    def average(a):
        return a.mean(axis=0, keepdims=True)
    dx = dx or (lambda g, x_hat, std, average: (g - g.mean(axis=0, keepdims=True) - x_hat * (
        g * x_hat).mean(axis=0, keepdims=True)) / std)       # each mean spelled out: `forms`
    dgamma = dgamma or (lambda dy, x_hat: (dy * x_hat).sum(axis=0, keepdims=True))
    return {"dx": dx(g, x_hat, std, average), "dgamma": dgamma(dy, x_hat),
            "dbeta": dy.sum(axis=0, keepdims=True)}


# -- `forward` and `gradients` as the exercise has students write them (derived.py: `forms`):
# the variance as a mean of squares, the gradients by their closed form, not by dp's autodiff --
def forward_written(x, gamma, beta, eps) -> dict:
    """`forward`, by the formulas of the exercise."""
    mean = x.mean(axis=0, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=0, keepdims=True)
    return _normalised(x, gamma, beta, mean, np.sqrt(var + eps))


def gradients_written(x, gamma, beta, eps, dy) -> dict:
    """`gradients`, by the closed form of the exercise."""
    return _backward(x, gamma, eps, dy)


AS_WRITTEN = {"forward": ("forward_written",), "gradients": ("gradients_written",)}


@misconception("gradients", "dgamma = sum(dy): that is dbeta")
def dgamma_is_dbeta(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy, dgamma=lambda dy, x_hat: dy.sum(axis=0, keepdims=True))


@misconception("gradients", "dgamma = sum(dy * gamma * x_hat): gamma is not part of dgamma")
def dgamma_times_gamma(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy,
                     dgamma=lambda dy, x_hat: (dy * gamma * x_hat).sum(axis=0, keepdims=True))


@misconception("gradients", "dgamma = dy * x_hat per example: sum it over the batch (axis 0)")
def dgamma_not_summed(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy, dgamma=lambda dy, x_hat: dy * x_hat)


@misconception("gradients", "dx without the mean of the gradient, - mean(g): the path through mu")
def dx_without_the_mean_term(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy, dx=lambda g, x_hat, std, average:
                     (g - x_hat * average(g * x_hat)) / std)


@misconception("gradients", "dx without - x_hat * mean(g * x_hat): the path through the variance")
def dx_without_the_variance_term(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy, dx=lambda g, x_hat, std, average: (g - average(g)) / std)


@misconception("gradients", "dx = gamma * dy / std: only the direct path; mu and the variance "
                            "depend on x too")
def dx_direct_path_only(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy, dx=lambda g, x_hat, std, average: g / std)


@misconception("gradients", "dx without gamma: g = gamma * dy")
def dx_without_gamma(x, gamma, beta, eps, dy):
    return _backward(x, np.ones_like(gamma), eps, dy)       # dgamma does not depend on gamma


@misconception("gradients", "dx multiplied by std instead of divided")
def dx_times_std(x, gamma, beta, eps, dy):
    return _backward(x, gamma, eps, dy, dx=lambda g, x_hat, std, average:
                     (g - average(g) - x_hat * average(g * x_hat)) * std)


def _running(running_mean, running_var, batches, momentum, update):
    """[{"running_mean", "running_var"} after each batch] with update(mean, var, batch) ->
    (new mean, new var) for the running statistics (mean, var)."""
    steps, mean, var = [], running_mean, running_var
    for batch in batches:
        mean, var = update(mean, var, batch)
        steps.append({"running_mean": mean, "running_var": var})
    return steps


def _average(momentum, old, new):
    return momentum * old + (1 - momentum) * new


@misconception("running", "momentum on the wrong side: the momentum weighs the old running "
                          "statistics, (1 - momentum) the batch's")
def running_momentum_on_the_wrong_side(running_mean, running_var, batches, momentum):
    return _running(running_mean, running_var, batches, momentum, lambda mean, var, batch: (
        _average(1 - momentum, mean, batch.mean(axis=0, keepdims=True)),
        _average(1 - momentum, var, batch.var(axis=0, keepdims=True))))


@misconception("running", "the unbiased batch variance in the running variance: use the biased "
                          "one, as in the forward pass")
def running_unbiased_variance(running_mean, running_var, batches, momentum):
    return _running(running_mean, running_var, batches, momentum, lambda mean, var, batch: (
        _average(momentum, mean, batch.mean(axis=0, keepdims=True)),
        _average(momentum, var, batch.var(axis=0, ddof=1, keepdims=True))))


@misconception("running", "the batch standard deviation in place of the variance")
def running_standard_deviation(running_mean, running_var, batches, momentum):
    return _running(running_mean, running_var, batches, momentum, lambda mean, var, batch: (
        _average(momentum, mean, batch.mean(axis=0, keepdims=True)),
        _average(momentum, var, batch.std(axis=0, keepdims=True))))


@misconception("running", "the batch statistics alone, not averaged with the running ones")
def running_batch_statistics_alone(running_mean, running_var, batches, momentum):
    return _running(running_mean, running_var, batches, momentum, lambda mean, var, batch: (
        batch.mean(axis=0, keepdims=True), batch.var(axis=0, keepdims=True)))


@misconception("running", "the running statistics not updated")
def running_not_updated(running_mean, running_var, batches, momentum):
    return _running(running_mean, running_var, batches, momentum,
                    lambda mean, var, batch: (mean, var))


def _evaluated(x, gamma, beta, mean, std):
    return gamma * (x - mean) / std + beta


@misconception("evaluate", "the batch statistics: in evaluation mode use the running mean and "
                           "variance")
def eval_batch_statistics(x, gamma, beta, running_mean, running_var, eps):
    mean, var = _statistics(x)
    return _evaluated(x, gamma, beta, mean, np.sqrt(var + eps))


@misconception("evaluate", "the batch mean with the running variance")
def eval_batch_mean(x, gamma, beta, running_mean, running_var, eps):
    return _evaluated(x, gamma, beta, _statistics(x)[0], np.sqrt(running_var + eps))


@misconception("evaluate", "the running mean with the batch variance")
def eval_batch_variance(x, gamma, beta, running_mean, running_var, eps):
    return _evaluated(x, gamma, beta, running_mean, np.sqrt(_statistics(x)[1] + eps))


@misconception("evaluate", "the running variance used as the standard deviation")
def eval_variance_as_std(x, gamma, beta, running_mean, running_var, eps):
    return _evaluated(x, gamma, beta, running_mean, running_var + eps)


@misconception("evaluate", "sqrt(running_var) + eps: eps goes inside the square root")
def eval_eps_outside_sqrt(x, gamma, beta, running_mean, running_var, eps):
    return _evaluated(x, gamma, beta, running_mean, np.sqrt(running_var) + eps)


@misconception("evaluate", "no scale gamma and shift beta in evaluation mode")
def eval_without_gamma_and_beta(x, gamma, beta, running_mean, running_var, eps):
    return _evaluated(x, 1.0, 0.0, running_mean, np.sqrt(running_var + eps))
