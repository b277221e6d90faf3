"""Mutants of 08 batch normalisation."""
from tests.grading import Mutant

A = "08_batch_normalisation"

MUTANTS = [
    Mutant(A, "batchnorm_forward", "unbiased_variance",
           "var = ((x - mean) ** 2).mean(axis=0, keepdims=True)",
           "var = ((x - mean) ** 2).sum(axis=0, keepdims=True) / (len(x) - 1)",
           "the unbiased variance (n - 1) in the forward pass"),
    Mutant(A, "batchnorm_forward", "eps_outside_sqrt",
           "std = np.sqrt(var + eps)",
           "std = np.sqrt(var) + eps",
           "eps added to the standard deviation instead of the variance"),
    Mutant(A, "batchnorm_forward", "statistics_over_features",
           "mean = x.mean(axis=0, keepdims=True)\n    var = ((x - mean) ** 2).mean(axis=0, keepdims=True)",
           "mean = x.mean(axis=1, keepdims=True)\n    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)",
           "normalising each example over its features (layer norm) instead of each feature over the batch"),
    Mutant(A, "batchnorm_backward", "no_mean_of_gradient",
           "dx = (g - g.mean(axis=0, keepdims=True)\n          - x_hat",
           "dx = (g\n          - x_hat",
           "dx without the term through the batch mean"),
    Mutant(A, "batchnorm_backward", "no_variance_term",
           "\n          - x_hat * (g * x_hat).mean(axis=0, keepdims=True)) / std",
           ") / std",
           "dx without the term through the batch variance"),
    Mutant(A, "batchnorm_backward", "dgamma_not_summed",
           "dgamma = (dy * x_hat).sum(axis=0, keepdims=True)",
           "dgamma = dy * x_hat",
           "dgamma per example, not summed over the batch"),
    Mutant(A, "running_statistics", "momentum_on_the_wrong_side",
           "return (momentum * running_mean + (1 - momentum) * batch_mean,\n"
           "            momentum * running_var + (1 - momentum) * batch_var)",
           "return ((1 - momentum) * running_mean + momentum * batch_mean,\n"
           "            (1 - momentum) * running_var + momentum * batch_var)",
           "the momentum weighing the new batch (PyTorch's convention) instead of the old value"),
    Mutant(A, "running_statistics", "unbiased_running_variance",
           "batch_var = x.var(axis=0, keepdims=True)",
           "batch_var = x.var(axis=0, ddof=1, keepdims=True)",
           "the unbiased batch variance in the running variance (PyTorch's choice, not this course's)"),
    Mutant(A, "batchnorm_eval", "batch_statistics_in_eval",
           "std = np.sqrt(self.running_var + self.eps)\n"
           "        return (x - self.running_mean) / std * self.gamma + self.beta",
           "mean = x.mean(axis=0)\n"
           "        std = ((x - mean).square().mean(axis=0) + self.eps).sqrt()\n"
           "        return (x - mean) / std * self.gamma + self.beta",
           "the batch statistics in evaluation mode"),
    Mutant(A, "batchnorm_eval", "eval_computed_on_arrays",
           "return (x - self.running_mean) / std * self.gamma + self.beta",
           "return (x.value - self.running_mean) / std * self.gamma.value + self.beta.value",
           "evaluation computed on the arrays: the right values, but no Node, so no gradient "
           "(round 5's gap)", slow=True),
    Mutant(A, "batchnorm_backward", "dgamma_and_dbeta_under_each_others_names",
           "dbeta = dy.sum(axis=0, keepdims=True)\n    dgamma = (dy * x_hat).sum(axis=0, keepdims=True)",
           "dgamma = dy.sum(axis=0, keepdims=True)\n    dbeta = (dy * x_hat).sum(axis=0, keepdims=True)",
           "dgamma's and dbeta's formulas written under each other's names", slow=True),
    Mutant(A, "batchnorm_eval", "eval_eps_outside_sqrt",
           "std = np.sqrt(self.running_var + self.eps)",
           "std = np.sqrt(self.running_var) + self.eps",
           "eps outside the square root in evaluation mode"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/batch_normalisation.py). The held-out mutants (tests/mutants/__init__.py)
# are measured: never given a mistake here.
NAMED = {
    "eval_computed_on_arrays": "evaluation_output_not_a_node",
    "unbiased_variance": "forward_unbiased_variance",
    "eps_outside_sqrt": "forward_eps_outside_sqrt",
    "statistics_over_features": "forward_statistics_over_features",
    "no_variance_term": "dx_without_the_variance_term",
    "dgamma_not_summed": "dgamma_not_summed",
    "momentum_on_the_wrong_side": "running_momentum_on_the_wrong_side",
    "batch_statistics_in_eval": "eval_batch_statistics",
    "eval_eps_outside_sqrt": "eval_eps_outside_sqrt",
    "dgamma_and_dbeta_under_each_others_names": "result_in_another_place",
}
UNNAMEABLE = {}
