"""Mutants of 07 dropout."""
from tests.grading import Mutant

A = "07_dropout"

MUTANTS = [
    Mutant(A, "dropout_forward", "one_draw_broadcast_to_the_shape",
           "keep = self.rng.random(shape) >= self.p",
           "keep = np.full(shape, self.rng.random() >= self.p)",
           "one random number decides for the whole array: all units kept, or none (stop 41)", slow=True),
    Mutant(A, "dropout_forward", "mask_shared_by_the_batch",
           "keep = self.rng.random(shape) >= self.p",
           "keep = self.rng.random(shape[1:]) >= self.p",
           "one mask of a row's shape, broadcast over the batch: every example loses the same "
           "units"),
    Mutant(A, "dropout_forward", "not_rescaled",
           "return keep / (1 - self.p)",
           "return keep.astype(float)",
           "plain dropout in training, without the 1 / (1 - p) that keeps the expectation"),
    Mutant(A, "dropout_forward", "rescaled_by_p",
           "return keep / (1 - self.p)",
           "return keep / self.p",
           "the kept units divided by the drop probability instead of the keep probability"),
    Mutant(A, "dropout_forward", "keep_probability_confused",
           "keep = self.rng.random(shape) >= self.p",
           "keep = self.rng.random(shape) < self.p",
           "units kept with probability p, i.e. dropped with probability 1 - p"),
    Mutant(A, "dropout_forward", "global_random_state",
           "keep = self.rng.random(shape) >= self.p",
           "keep = np.random.random(shape) >= self.p",
           "the mask drawn from NumPy's global state, not from the layer's rng"),
    Mutant(A, "dropout_forward", "mask_drawn_once",
           "scale = self.scale_mask(x.shape)",
           "if getattr(self, \"fixed\", None) is None or self.fixed.shape != x.shape:\n"
           "            self.fixed = self.scale_mask(x.shape)\n"
           "        scale = self.fixed",
           "one mask drawn on the first call and reused on every later call"),
    Mutant(A, "dropout_backward", "mask_redrawn_in_backward",
           "return g * scale                                # the mask of the forward pass",
           "return g * self.scale_mask(g.shape)",
           "a new mask in the backward pass: gradient for units that were dropped"),
    Mutant(A, "dropout_backward", "gradient_not_scaled",
           "return g * scale                                # the mask of the forward pass",
           "return g * (scale > 0)",
           "the gradient masked but not scaled by 1 / (1 - p)"),
    Mutant(A, "dropout_backward", "graph_cut",
           'return custom_op("dropout", x.value * scale, (x, backward))',
           "return Node(x.value * scale)",
           "a new leaf with the right value: no gradient reaches x"),
    Mutant(A, "dropout_eval", "active_in_eval",
           "if not self.training or self.p == 0:",
           "if self.p == 0:",
           "dropout still active in evaluation mode"),
    Mutant(A, "dropout_eval", "non_inverted_eval_scaling",
           "return x                                       # evaluation: the identity",
           "return x * (1 - self.p)",
           "scaling by 1 - p at test time, as non-inverted dropout does, on top of the inverted scaling"),
    Mutant(A, "dropout_backward", "mask_kept_on_the_layer",
           "        scale = self.scale_mask(x.shape)\n\n        def backward(g):\n"
           "            return g * scale                                # the mask of the forward pass\n\n"
           "        return custom_op(\"dropout\", x.value * scale, (x, backward))",
           "        self.scale = self.scale_mask(x.shape)\n\n        def backward(g):\n"
           "            return g * self.scale\n\n"
           "        return custom_op(\"dropout\", x.value * self.scale, (x, backward))",
           "the mask kept on the layer: the backward pass of an earlier call uses the mask of the "
           "last one"),
    Mutant(A, "dropout_eval", "eval_sets_p_to_zero",
           "        if not self.training or self.p == 0:\n",
           "        if not self.training:\n            self.p = 0\n        if self.p == 0:\n",
           "evaluation mode sets p to 0 for good: back in training mode nothing is dropped"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/dropout.py, autograder/checks/dropout.py). The held-out mutants
# (tests/mutants/__init__.py) are measured: never given a mistake here.
NAMED = {
    "one_draw_broadcast_to_the_shape": "mask_one_draw_for_the_whole_array",
    "not_rescaled": "kept_not_rescaled",
    "rescaled_by_p": "kept_divided_by_p",
    "keep_probability_confused": "p_is_the_keep_probability",
    "gradient_not_scaled": "upstream_not_scaled",
    "non_inverted_eval_scaling": "evaluated_non_inverted",
    "mask_drawn_once": "mask_reused",
    "mask_kept_on_the_layer": "mask_overwritten_by_the_next_call",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "mask_shared_by_the_batch": "a mask shared by the rows, a property of the masks, not a value to equal",
    "mask_redrawn_in_backward": "a gradient through another random mask, not a value to equal",
    "active_in_eval": "a random mask in evaluation mode, not a value to equal",
    "graph_cut": "a missing gradient: the value is right, no gradient reaches x",
    "eval_sets_p_to_zero": "a layer that evaluation left changed: a property of later calls",
}
