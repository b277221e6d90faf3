"""Blind mistakes in 08, batch normalisation (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .activation_functions import SUM_MEAN
from .optimizers import HYPER
from .weight_initialisation import ROOT

A = "08_batch_normalisation"
AXIS = ("axis", "feature", "column", "row", "per example", "over the batch")
GAMMA = ("gamma", "γ", "scale")

MISTAKES = [
    Mistake(A, "batchnorm_forward", "batchnorm_mean_over_features",
            "mean = x.mean(axis=0, keepdims=True)\n    var", "mean = x.mean(axis=1, keepdims=True)\n    var",
            "the statistics are per feature, over the batch (axis 0); the mean is over axis 1",
            AXIS),
    Mistake(A, "batchnorm_forward", "batchnorm_divides_by_variance",
            "std = np.sqrt(var + eps)\n    x_hat", "std = var + eps\n    x_hat",
            "x is normalised by the standard deviation sqrt(var + eps), not by the variance", ROOT),
    Mistake(A, "batchnorm_forward", "batchnorm_gamma_beta_swapped",
            "return gamma * x_hat + beta, x_hat, std", "return beta * x_hat + gamma, x_hat, std",
            "γ scales and β shifts: y = γ x̂ + β; they are swapped", HYPER + GAMMA),
    Mistake(A, "batchnorm_forward", "batchnorm_variance_not_squared",
            "var = ((x - mean) ** 2).mean(axis=0, keepdims=True)",
            "var = np.abs(x - mean).mean(axis=0, keepdims=True)",
            "the variance is the mean of the squared deviations; the mean absolute deviation is "
            "used", ("square", "variance", "abs", "power")),
    Mistake(A, "batchnorm_backward", "dbeta_mean_not_sum",
            "dbeta = dy.sum(axis=0, keepdims=True)", "dbeta = dy.mean(axis=0, keepdims=True)",
            "β is added to every example, so its gradient sums dy over the batch", SUM_MEAN),
    Mistake(A, "batchnorm_backward", "dx_without_gamma",
            "    g = gamma * dy\n", "    g = dy\n",
            "the chain rule through y = γ x̂ + β: dx̂ = γ·dy, the factor γ is missing",
            GAMMA + ("chain", "factor")),
    Mistake(A, "batchnorm_backward", "dx_term_through_variance_missing",
            "dx = (g - g.mean(axis=0, keepdims=True)\n"
            "          - x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "dx = (g - g.mean(axis=0, keepdims=True)) / std",
            "the variance depends on x too: the term - x̂·mean(g·x̂) is missing",
            ("term", "variance", "missing", "dropped", "x_hat", "x̂")),
    Mistake(A, "batchnorm_backward", "dgamma_without_x_hat",
            "dgamma = (dy * x_hat).sum(axis=0, keepdims=True)", "dgamma = dy.sum(axis=0, keepdims=True)",
            "γ multiplies x̂, so dγ = Σ dy·x̂; the factor x̂ is missing",
            ("x_hat", "x̂", "normalised", "normalized", "factor", "dbeta", "sum(dy)", "β")),
    Mistake(A, "running_statistics", "running_momentum_swapped",
            "momentum * running_mean + (1 - momentum) * batch_mean",
            "(1 - momentum) * running_mean + momentum * batch_mean",
            "the running mean keeps `momentum` of the old value; momentum and 1 - momentum are "
            "swapped", HYPER + ("momentum",)),
    Mistake(A, "running_statistics", "running_var_from_the_mean",
            "momentum * running_var + (1 - momentum) * batch_var",
            "momentum * running_var + (1 - momentum) * batch_mean",
            "the running variance is updated with the batch mean instead of the batch variance",
            ("variance", "var", "mean")),
    Mistake(A, "running_statistics", "running_std_instead_of_var",
            "batch_var = x.var(axis=0, keepdims=True)", "batch_var = x.std(axis=0, keepdims=True)",
            "the running statistic is the variance, not the standard deviation", ROOT),
    Mistake(A, "batchnorm_eval", "eval_uses_batch_statistics",
            "std = np.sqrt(self.running_var + self.eps)\n"
            "        return (x - self.running_mean) / std",
            "std = np.sqrt(x.value.var(axis=0, keepdims=True) + self.eps)\n"
            "        return (x - x.value.mean(axis=0, keepdims=True)) / std",
            "evaluation normalises with the running statistics, not the batch's own",
            ("running", "batch statistics", "batch mean", "batch's")),
    Mistake(A, "batchnorm_eval", "eval_divides_by_running_variance",
            "std = np.sqrt(self.running_var + self.eps)", "std = self.running_var + self.eps",
            "evaluation divides by the running standard deviation sqrt(var + eps), not the "
            "variance", ROOT),
]

# Round 2 (2026-11-28), written blind as round 1 was.
EPSILON = ("eps", "ε", "epsilon")
MISTAKES += [
    Mistake(A, "batchnorm_forward", "batchnorm_unbiased_variance",
            "var = ((x - mean) ** 2).mean(axis=0, keepdims=True)",
            "var = ((x - mean) ** 2).sum(axis=0, keepdims=True) / (len(x) - 1)",
            "batch norm uses the biased variance, a mean over n; dividing by n - 1 is the "
            "unbiased estimate", ("biased", "unbiased", "n - 1", "n-1", "bessel", "ddof")),
    Mistake(A, "batchnorm_forward", "batchnorm_eps_outside_the_root",
            "std = np.sqrt(var + eps)", "std = np.sqrt(var) + eps",
            "std = sqrt(var + ε): ε is added inside the root, not after it",
            EPSILON + ("inside", "outside", "root", "sqrt")),
    Mistake(A, "batchnorm_backward", "dx_not_divided_by_std",
            "          - x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "          - x_hat * (g * x_hat).mean(axis=0, keepdims=True))",
            "dx_hat/dx = 1/std: the whole bracket is divided by std, which is forgotten",
            ("std", "divid", "σ", "sigma", "1/std", "scale", "factor")),
    Mistake(A, "batchnorm_backward", "dx_sum_for_mean",
            "dx = (g - g.mean(axis=0, keepdims=True)", "dx = (g - g.sum(axis=0, keepdims=True)",
            "the middle term is the mean of g over the batch: the sum misses the factor 1/n",
            ("mean", "sum", "1/n", "average", "factor", "batch size")),
    Mistake(A, "running_statistics", "running_var_around_the_running_mean",
            "batch_var = x.var(axis=0, keepdims=True)",
            "batch_var = ((x - running_mean) ** 2).mean(axis=0, keepdims=True)",
            "the batch variance is taken around the batch mean, not around the running mean",
            ("running mean", "batch mean", "centred", "centered", "around", "mean")),
    Mistake(A, "batchnorm_eval", "eval_shift_before_scale",
            "return (x - self.running_mean) / std * self.gamma + self.beta",
            "return ((x - self.running_mean) / std + self.beta) * self.gamma",
            "y = γ·x_hat + β: the shift β is added after scaling by γ, not before",
            GAMMA + ("order", "beta", "β", "shift", "after", "before", "parenthes")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "batchnorm_forward", "variance_not_centred",
            "var = ((x - mean) ** 2).mean(axis=0, keepdims=True)",
            "var = (x ** 2).mean(axis=0, keepdims=True)",
            "the variance is the mean of (x - μ)²; the mean of x² is it only when μ = 0",
            ("centr", "mean", "subtract", "x - mean", "x - μ", "second moment"), slow=True),
    Mistake(A, "batchnorm_forward", "cache_holds_the_variance",
            "return gamma * x_hat + beta, x_hat, std", "return gamma * x_hat + beta, x_hat, var",
            "the cache returns the standard deviation √(σ² + ε); var is its square",
            ("std", "standard deviation", "variance", "root", "sqrt"), slow=True),
    Mistake(A, "batchnorm_backward", "dgamma_summed_over_features",
            "dgamma = (dy * x_hat).sum(axis=0, keepdims=True)",
            "dgamma = (dy * x_hat).sum(axis=1, keepdims=True)",
            "γ has one entry per feature: its gradient sums over the batch, axis 0",
            ("axis", "batch", "feature", "shape"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_projection_sign",
            "          - x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "          + x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "the term through the variance is subtracted: dx = (g - mean(g) - x̂ mean(g x̂)) / σ",
            ("sign", "negat", "minus", "subtract"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_mean_over_features",
            "dx = (g - g.mean(axis=0, keepdims=True)", "dx = (g - g.mean(axis=1, keepdims=True)",
            "the mean in the gradient is over the batch (axis 0), as in the forward pass",
            ("axis", "batch", "feature"), slow=True),
    Mistake(A, "running_statistics", "running_mean_over_features",
            "batch_mean = x.mean(axis=0, keepdims=True)\n    batch_var",
            "batch_mean = x.mean(axis=1, keepdims=True)\n    batch_var",
            "the batch mean is per feature, over the examples (axis 0)",
            ("axis", "batch", "feature", "shape"), slow=True),
    Mistake(A, "batchnorm_eval", "eval_without_gamma",
            "return (x - self.running_mean) / std * self.gamma + self.beta",
            "return (x - self.running_mean) / std + self.beta",
            "evaluation normalises with the running statistics and then scales by γ and shifts "
            "by β; the scale γ is missing", ("gamma", "γ", "scale"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
MISTAKES += [
    Mistake(A, "batchnorm_forward", "x_hat_not_centred",
            "x_hat = (x - mean) / std", "x_hat = x / std",
            "x̂ = (x - μ)/σ: the batch mean is not subtracted before dividing",
            ("mean", "centr", "subtract", "x - mean", "x - μ"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_projection_weighs_dy_not_g",
            "- x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "- x_hat * (dy * x_hat).mean(axis=0, keepdims=True)) / std",
            "the gradient flowing into x̂ is g = γ·dy: the last term uses dy, which lacks the "
            "factor γ", GAMMA + ("dy", "g =", "factor"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_projection_without_x_hat",
            "- x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "- (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "the term through the variance is x̂ · mean(g·x̂): the factor x̂ in front is dropped",
            ("x_hat", "x̂", "factor", "missing", "dropped"), slow=True),
    Mistake(A, "running_statistics", "running_statistics_updated_in_place",
            "    return (momentum * running_mean + (1 - momentum) * batch_mean,\n"
            "            momentum * running_var + (1 - momentum) * batch_var)\n",
            "    running_mean *= momentum\n    running_mean += (1 - momentum) * batch_mean\n"
            "    running_var *= momentum\n    running_var += (1 - momentum) * batch_var\n"
            "    return running_mean, running_var\n",
            "the function must return new arrays: *= and += change the caller's running_mean "
            "and running_var in place",
            ("in place", "in-place", "caller", "copy", "mutat", "modif", "changed"), slow=True),
    Mistake(A, "running_statistics", "running_var_replaced_by_the_batch_var",
            "momentum * running_var + (1 - momentum) * batch_var)",
            "batch_var)",
            "the running variance is a moving average too: it is replaced by the last batch's "
            "variance", ("running", "average", "momentum", "moving", "last batch", "replac"),
            slow=True),
    Mistake(A, "batchnorm_eval", "eval_gamma_in_the_denominator",
            "return (x - self.running_mean) / std * self.gamma + self.beta",
            "return (x - self.running_mean) / (std * self.gamma) + self.beta",
            "x̂ is multiplied by γ: the parentheses put γ under the fraction, dividing by it",
            GAMMA + ("precedence", "parenthes", "divid", "multipl"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (full marks in the self-check): batchnorm_forward ignores its argument eps,
# old `std = np.sqrt(var + eps)` -> new `std = np.sqrt(var + EPS)`;
# the statistics without keepdims, old `mean = x.mean(axis=0, keepdims=True)` and `var = ((x -
# mean) ** 2).mean(axis=0, keepdims=True)` -> new `x.mean(axis=0)`, `.mean(axis=0)` (std returned
# with shape (d,), not (1, d));
# evaluation computed on the arrays, old `return (x - self.running_mean) / std * self.gamma +
# self.beta` -> new `return (x.value - self.running_mean) / std * self.gamma.value +
# self.beta.value` (a bare array, not a Node: no gradient reaches x, gamma or beta). (Stop 41:
# the last fails now, mutant eval_computed_on_arrays; eps ignored fails when graded, where eps is
# drawn, not the self-check's 1e-5.)
MISTAKES += [
    Mistake(A, "batchnorm_forward", "beta_inside_the_scale",
            "return gamma * x_hat + beta, x_hat, std", "return gamma * (x_hat + beta), x_hat, std",
            "y = γ x̂ + β: β is added after scaling; inside the parentheses it is scaled by γ too",
            ("beta", "β", "parenthes", "precedence", "shift", "order") + GAMMA, slow=True),
    Mistake(A, "batchnorm_backward", "dbeta_without_keepdims",
            "dbeta = dy.sum(axis=0, keepdims=True)", "dbeta = dy.sum(axis=0)",
            "dbeta has beta's shape (1, d): the sum without keepdims has shape (d,)",
            ("keepdims", "shape", "(1, d)", "dimension"), slow=True),
    Mistake(A, "batchnorm_backward", "dgamma_from_g",
            "dgamma = (dy * x_hat).sum(axis=0, keepdims=True)",
            "dgamma = (gamma * dy * x_hat).sum(axis=0, keepdims=True)",
            "dL/dγ = Σ dy x̂: γ is not a factor of its own gradient (that is g = γ dy, for dx)",
            GAMMA + ("dy", "g =", "factor"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_multiplied_by_std",
            "- x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "- x_hat * (g * x_hat).mean(axis=0, keepdims=True)) * std",
            "x̂ = (x - μ)/σ, so dx carries the factor 1/σ: multiplying by σ inverts it",
            ("std", "σ", "divid", "multipl", "1/σ", "1 / std"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_mean_term_of_dy",
            "dx = (g - g.mean(axis=0, keepdims=True)", "dx = (g - dy.mean(axis=0, keepdims=True)",
            "the mean subtracted is that of g = γ dy, the gradient of x̂; dy's mean forgets γ",
            GAMMA + ("g.mean", "dy", "mean"), slow=True),
    Mistake(A, "running_statistics", "running_var_unbiased",
            "batch_var = x.var(axis=0, keepdims=True)", "batch_var = x.var(axis=0, ddof=1, keepdims=True)",
            "the running variance averages the biased batch variance (divided by n), as the "
            "docstring says: ddof=1 divides by n - 1", ("biased", "unbiased", "ddof", "n - 1",
                                                         "n-1", "bessel"), slow=True),
    Mistake(A, "running_statistics", "running_statistics_returned_swapped",
            "    return (momentum * running_mean + (1 - momentum) * batch_mean,\n"
            "            momentum * running_var + (1 - momentum) * batch_var)",
            "    return (momentum * running_var + (1 - momentum) * batch_var,\n"
            "            momentum * running_mean + (1 - momentum) * batch_mean)",
            "the function returns (running_mean, running_var): the two are returned in the "
            "other order", ("order", "swap", "exchang", "returned", "mean", "variance"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
PRECEDENCE = ("precedence", "parenthes", "bracket", "group")
MISTAKES += [
    Mistake(A, "batchnorm_forward", "x_hat_precedence",
            "x_hat = (x - mean) / std", "x_hat = x - mean / std",
            "x̂ = (x - μ)/σ: without the parentheses only the mean is divided by σ",
            PRECEDENCE, slow=True),
    Mistake(A, "batchnorm_forward", "mean_over_the_whole_matrix",
            "    mean = x.mean(axis=0, keepdims=True)\n    var", "    mean = x.mean()\n    var",
            "each feature has its own mean over the batch (axis 0): x.mean() is one number over "
            "every entry", AXIS + ("whole", "every entry", "all entries", "global", "one number"),
            slow=True),
    Mistake(A, "batchnorm_forward", "cache_holds_the_input",
            "return gamma * x_hat + beta, x_hat, std", "return gamma * x_hat + beta, x, std",
            "the cache must hold the normalised x̂: the raw input x is returned in its place, so "
            "the backward pass uses the wrong values",
            ("cache", "x_hat", "x̂", "normalised", "normalized"),
            slow=True),
    Mistake(A, "batchnorm_backward", "dx_divided_by_the_variance",
            "- x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "- x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std ** 2",
            "dx is divided by σ once: dividing by σ² gives the variance where the standard "
            "deviation belongs", ("std", "σ", "variance", "square", "σ²"), slow=True),
    Mistake(A, "batchnorm_backward", "backward_returns_dgamma_and_dbeta_swapped",
            "return dx, dgamma, dbeta", "return dx, dbeta, dgamma",
            "the backward pass returns (dx, dgamma, dbeta): dγ and dβ are exchanged",
            ("swap", "exchang", "order", "dgamma", "dbeta", "dγ", "dβ"), slow=True),
    Mistake(A, "batchnorm_backward", "dx_only_the_last_term_divided",
            "    dx = (g - g.mean(axis=0, keepdims=True)\n"
            "          - x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
            "    dx = g - g.mean(axis=0, keepdims=True) \\\n"
            "          - x_hat * (g * x_hat).mean(axis=0, keepdims=True) / std",
            "the whole bracket is divided by σ: without the parentheses only the last term is",
            PRECEDENCE + ("std", "σ"), slow=True),
    Mistake(A, "running_statistics", "running_mean_never_moves",
            "momentum * running_mean + (1 - momentum) * batch_mean",
            "momentum * running_mean + (1 - momentum) * running_mean",
            "the new running mean mixes in the batch mean: running_mean written twice leaves it "
            "where it started", ("batch_mean", "batch mean", "never", "unchanged", "copied",
                                 "wrong variable"), slow=True),
    Mistake(A, "running_statistics", "running_mean_precedence",
            "momentum * running_mean + (1 - momentum) * batch_mean",
            "momentum * running_mean + 1 - momentum * batch_mean",
            "(1 - momentum) needs its parentheses: without them 1 is added and the batch mean is "
            "weighted by momentum", PRECEDENCE + ("1 - momentum",), slow=True),
    Mistake(A, "batchnorm_eval", "eval_centres_with_the_variance",
            "(x - self.running_mean) / std", "(x - self.running_var) / std",
            "evaluation subtracts the running mean: the running variance is subtracted instead",
            ("running_mean", "running mean", "running_var", "wrong variable"), slow=True),
]
