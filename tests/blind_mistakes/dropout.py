"""Blind mistakes in 07, dropout (see tests/blind_mistakes/__init__.py)."""
from . import Mistake

A = "07_dropout"
SCALE = ("scale", "1 - p", "1-p", "1/(1-p)", "1 / (1 - p)", "invert", "factor")
MASK = ("mask", "same", "fresh", "new random", "forward pass")

MISTAKES = [
    Mistake(A, "dropout_forward", "dropout_keeps_with_probability_p",
            "keep = self.rng.random(shape) >= self.p", "keep = self.rng.random(shape) < self.p",
            "an entry is kept with probability 1 - p; here it is kept with probability p",
            ("keep", "drop", "probability", "1 - p", "1-p", "invert", "comparison", "<", ">=")),
    Mistake(A, "dropout_forward", "dropout_not_rescaled",
            "return keep / (1 - self.p)", "return keep.astype(float)",
            "inverted dropout divides the kept entries by 1 - p so the expectation is unchanged",
            SCALE),
    Mistake(A, "dropout_forward", "dropout_scaled_by_p",
            "return keep / (1 - self.p)", "return keep / self.p",
            "the kept entries are scaled by 1/(1 - p), the keep probability, not 1/p", SCALE),
    Mistake(A, "dropout_backward", "dropout_backward_fresh_mask",
            "return g * scale                                # the mask of the forward pass",
            "return g * self.scale_mask(x.shape)",
            "the backward pass must reuse the forward pass's mask; it draws a new one", MASK),
    Mistake(A, "dropout_backward", "dropout_backward_unmasked",
            "return g * scale                                # the mask of the forward pass",
            "return g",
            "the dropped entries get no gradient and the kept ones are scaled: the mask is missing "
            "from the backward pass", MASK + SCALE),
    Mistake(A, "dropout_backward", "dropout_backward_unscaled_mask",
            "return g * scale                                # the mask of the forward pass",
            "return g * (scale > 0)",
            "the backward pass multiplies by the same scale as the forward, 1/(1 - p) included",
            SCALE),
    Mistake(A, "dropout_eval", "dropout_also_in_evaluation",
            "if not self.training or self.p == 0:", "if self.p == 0:",
            "in evaluation mode dropout is the identity; it still drops here",
            ("eval", "training", "identity", "mode")),
    Mistake(A, "dropout_eval", "dropout_eval_scaled",
            "return x                                       # evaluation: the identity",
            "return x * (1 - self.p)",
            "with inverted dropout evaluation is the identity: scaling by 1 - p is the old, "
            "non-inverted convention", SCALE + ("identity",)),
]
