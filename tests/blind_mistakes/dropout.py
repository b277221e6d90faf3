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

# Round 2 (2026-11-28), written blind as round 1 was.
from .optimizers import PRECEDENCE  # noqa: E402
MISTAKES += [
    Mistake(A, "dropout_forward", "scale_precedence",
            "return keep / (1 - self.p)", "return keep / 1 - self.p",
            "keep / 1 - p subtracts p from the mask: the parentheses around 1 - p are missing",
            PRECEDENCE + SCALE),
    Mistake(A, "dropout_forward", "mask_from_the_global_generator",
            "keep = self.rng.random(shape) >= self.p", "keep = np.random.random(shape) >= self.p",
            "the mask must be drawn from the layer's own generator self.rng, not NumPy's global "
            "one", ("rng", "generator", "seed", "self.rng", "np.random", "random state",
                    "reproduc")),
    Mistake(A, "dropout_forward", "mask_drawn_once_and_reused",
            "        keep = self.rng.random(shape) >= self.p\n",
            "        if not hasattr(self, \"_keep\"):\n"
            "            self._keep = self.rng.random(shape) >= self.p\n"
            "        keep = self._keep\n",
            "the mask is drawn at the first call and kept: every call must draw a fresh one, "
            "or the same units are dropped every time", ("fresh", "same mask", "every call",
                                                          "each call", "reused", "new mask",
                                                          "cached", "once")),
    Mistake(A, "dropout_backward", "backward_scales_the_input",
            "            return g * scale", "            return x.value * scale",
            "the backward pass maps the upstream gradient g, not the input x, through the mask",
            ("upstream", "x.value", "value", "input", "incoming gradient", "instead of g")),
    Mistake(A, "dropout_eval", "eval_flag_of_the_notebook_instance",
            "if not self.training or self.p == 0:", "if not drop.training or self.p == 0:",
            "the layer must read its own flag self.training, not that of the notebook's `drop`",
            ("self.training", "global", "drop", "instance", "training flag", "attribute",
             "own flag")),
    Mistake(A, "dropout_eval", "eval_returns_a_detached_copy",
            "return x                                       # evaluation: the identity",
            "return Node(x.value)                           # evaluation: the identity",
            "in evaluation dropout is the identity, gradient included: a new leaf cuts the "
            "graph, so no gradient reaches x", ("gradient", "graph", "detach", "new node",
                                                 "disconnect", "copy", "leaf")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "dropout_forward", "dropout_multiplies_by_the_keep_probability",
            "return keep / (1 - self.p)", "return keep * (1 - self.p)",
            "inverted dropout divides the kept units by 1 - p; multiplying shrinks them twice",
            ("divid", "multipl", "1 - p", "scale", "inverted", "expectation"), slow=True),
    Mistake(A, "dropout_forward", "scale_by_floor_division",
            "return keep / (1 - self.p)", "return keep // (1 - self.p)",
            "// is floor division: 1 // 0.8 is 1.0, so the kept units are not scaled by 1/(1 - p)",
            ("//", "floor", "integer", "division", "1 - p", "scale"), slow=True),
    Mistake(A, "dropout_forward", "training_flag_inverted",
            "if not self.training or self.p == 0:", "if self.training or self.p == 0:",
            "dropout acts in training and is the identity in evaluation; the test is inverted",
            ("training", "evaluation", "invert", "eval", "flag", "not"), slow=True),
    Mistake(A, "dropout_backward", "backward_returns_the_mask",
            "return g * scale ", "return scale ",
            "the chain rule multiplies the upstream gradient by the mask; returning the mask "
            "forgets g", ("upstream", "chain", "g *", "multipl", "factor"), slow=True),
    Mistake(A, "dropout_backward", "backward_summed_over_the_batch",
            "return g * scale ", "return (g * scale).sum(axis=0) ",
            "the gradient of x has x's shape: summing over the batch is what a shared "
            "parameter's gradient needs, not an input's", ("shape", "sum", "batch", "axis"),
            slow=True),
    Mistake(A, "dropout_forward", "input_scaled_in_place",
            '        return custom_op("dropout", x.value * scale, (x, backward))',
            '        x.value *= scale\n        return custom_op("dropout", x.value, (x, backward))',
            "*= writes the dropped values into the input's own array: the caller's x changes",
            ("in place", "in-place", "*=", "input", "alias", "copy", "modif"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
# Written and left out (full marks in the self-check): the mask kept on the layer (`self.scale`,
# overwritten by a second forward pass before the first one's backward) and evaluation mode
# switched on by setting `self.p = 0`, which stays 0 back in training mode. (Stop 40: both fail
# now; mutants mask_kept_on_the_layer and eval_sets_p_to_zero.)
MISTAKES += [
    Mistake(A, "dropout_forward", "mask_shared_across_the_batch",
            "keep = self.rng.random(shape) >= self.p", "keep = self.rng.random(shape[-1:]) >= self.p",
            "each entry of the batch gets its own mask: drawn for the last axis only, one mask "
            "is shared by every example (and the mask has the wrong shape)",
            ("shape", "each example", "batch", "shared", "every entry", "broadcast"), slow=True),
    Mistake(A, "dropout_forward", "mask_shape_from_the_global_x",
            "keep = self.rng.random(shape) >= self.p", "keep = self.rng.random(x.shape) >= self.p",
            "scale_mask must use its argument `shape`: x.shape reads the notebook's global x",
            ("shape", "argument", "global", "x.shape"), slow=True),
    Mistake(A, "dropout_backward", "forward_and_backward_masks_differ",
            "custom_op(\"dropout\", x.value * scale, (x, backward))",
            "custom_op(\"dropout\", x.value * self.scale_mask(x.shape), (x, backward))",
            "the forward pass draws a second mask: the output and the gradient are masked "
            "differently, so the gradient no longer goes where the output came from", MASK
            + ("differ", "two masks", "second mask", "twice"), slow=True),
    Mistake(A, "dropout_eval", "eval_returns_the_array",
            "return x                                       # evaluation: the identity",
            "return x.value                                 # evaluation: the identity",
            "the identity returns the node x itself; x.value is a bare array, cut from the graph "
            "and not a Node", ("node", "array", "value", "graph", "identity"), slow=True),
    Mistake(A, "dropout_forward", "forward_applies_the_binary_mask",
            "custom_op(\"dropout\", x.value * scale, (x, backward))",
            "custom_op(\"dropout\", x.value * (scale > 0), (x, backward))",
            "the forward pass multiplies by the scaled mask: with the 0/1 mask the kept units "
            "are not divided by 1 - p, so the expectation shrinks", SCALE, slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
MISTAKES += [
    Mistake(A, "dropout_forward", "one_draw_for_the_whole_array",
            "keep = self.rng.random(shape) >= self.p", "keep = self.rng.random() >= self.p",
            "every entry is dropped independently: a single draw keeps or drops the whole array "
            "at once", ("each entry", "independent", "single", "one draw", "whole", "shape",
                        "all or nothing"), slow=True),
    Mistake(A, "dropout_forward", "mask_ignores_p",
            "keep = self.rng.random(shape) >= self.p",
            "keep = self.rng.integers(0, 2, shape).astype(bool)",
            "a coin flip keeps half of the entries whatever p is: an entry must be kept with "
            "probability 1 - p", ("p", "probability", "1 - p", "half", "coin", "0.5"), slow=True),
    Mistake(A, "dropout_forward", "mask_from_a_normal",
            "keep = self.rng.random(shape) >= self.p", "keep = self.rng.normal(size=shape) >= self.p",
            "the mask compares a uniform number in [0, 1) with p; a standard normal number is "
            ">= p with another probability", ("uniform", "normal", "random(", "probability",
                                               "distribution", "1 - p"), slow=True),
    Mistake(A, "dropout_backward", "backward_divides_by_the_mask",
            "return g * scale                                # the mask of the forward pass",
            "return g / scale                                # the mask of the forward pass",
            "the gradient of x * s is g * s: dividing by s gives inf where a unit was dropped "
            "and scales the kept ones the wrong way", ("multipl", "divid", "g * s", "inf",
                                                        "chain"), slow=True),
    Mistake(A, "dropout_backward", "backward_scaled_twice",
            "return g * scale                                # the mask of the forward pass",
            "return g * scale / (1 - self.p)                 # the mask of the forward pass",
            "scale already holds the factor 1/(1 - p): dividing again scales the gradient twice",
            SCALE + ("twice", "double"), slow=True),
    Mistake(A, "dropout_eval", "eval_test_with_and",
            "if not self.training or self.p == 0:", "if not self.training and self.p == 0:",
            "either condition makes dropout the identity: with `and`, evaluation mode still "
            "drops whenever p > 0", ("and", "or", "eval", "training", "identity", "condition"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "dropout_forward", "forward_value_unmasked",
            "custom_op(\"dropout\", x.value * scale, (x, backward))",
            "custom_op(\"dropout\", x.value, (x, backward))",
            "the mask is applied in the backward pass only: the output must be x * s too",
            ("unmasked", "not masked", "x * s", "without the mask", "no mask"), slow=True),
    Mistake(A, "dropout_forward", "scale_cast_to_int",
            "return keep / (1 - self.p)", "return (keep / (1 - self.p)).astype(int)",
            "casting the scale to int truncates 1/(1 - p) to 1: the kept units are not scaled up",
            SCALE + ("truncat", "dtype", "integer", "astype(int)"), slow=True),
    Mistake(A, "dropout_forward", "p_test_inverted",
            "if not self.training or self.p == 0:", "if not self.training or self.p != 0:",
            "the shortcut is for p = 0 only: `!= 0` makes every layer with p > 0 the identity, so "
            "nothing is ever dropped", ("p == 0", "p != 0", "invert", "condition", "identity",
                                        "never drop", "nothing is dropped"), slow=True),
    Mistake(A, "dropout_forward", "input_name_reused_for_the_output",
            "        return custom_op(\"dropout\", x.value * scale, (x, backward))",
            "        x = x.value * scale\n        return custom_op(\"dropout\", x, (x, backward))",
            "x is reused for the masked array: the parent handed to custom_op is no longer the "
            "input node", ("parent", "reus", "overwrit", "input node", "shadow"),
            slow=True),
    Mistake(A, "dropout_backward", "backward_matrix_product",
            "return g * scale                                # the mask of the forward pass",
            "return g @ scale                                # the mask of the forward pass",
            "the mask multiplies elementwise: g @ s is a matrix product",
            ("elementwise", "element-wise", "matrix product", "@", "g * s", "hadamard"), slow=True),
    Mistake(A, "dropout_backward", "backward_reads_the_layers_last_mask",
            "        def backward(g):\n            return g * scale ",
            "        self.mask = scale\n\n        def backward(g):\n"
            "            return g * self.mask",
            "the backward pass reads self.mask, which the layer's next call overwrites: each "
            "call's backward pass must use the mask of its own call", MASK + ("own call",
                                                                           "self.mask", "overwrit",
                                                                           "last call"), slow=True),
    Mistake(A, "dropout_eval", "eval_draws_a_mask_anyway",
            "        if not self.training or self.p == 0:\n            return x",
            "        scale = self.scale_mask(x.shape)\n"
            "        if not self.training or self.p == 0:\n"
            "            return x",
            "evaluation draws no random numbers: the mask drawn before the test advances the "
            "generator, so later training masks change", ("random", "draw", "generator", "rng",
                                                          "no random numbers"), slow=True),
    Mistake(A, "dropout_forward", "parent_and_backward_swapped",
            "custom_op(\"dropout\", x.value * scale, (x, backward))",
            "custom_op(\"dropout\", x.value * scale, (backward, x))",
            "custom_op takes (parent, backward) pairs: the node and its backward function are in "
            "the wrong order", ("pair", "swap", "custom_op", "(parent, backward)", "parent"),
            slow=True),
]
