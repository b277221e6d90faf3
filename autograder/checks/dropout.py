"""Checks of 07 dropout: inverted dropout in training (statistics over many draws), its gradient
(the same mask and scale as the output), and the identity in evaluation mode.

The masks are random, so the forward checks are statistical, with tolerances of several standard
deviations; the backward check needs no statistics: for whatever mask the forward pass drew, the
gradient of sum(u * y) must be u * y / x exactly. The scale of the kept units comes from the
grader's references (autograder/references/dropout.py).
"""
import numpy as np
import pytest

from autograder import references
from autograder.grading import answers
from autograder.grading.checking import diagnosed, misconception, shape_located

ref = references.of(__name__)

EXACT = 1e-12      # "exactly": values both sides compute as x / (1 - p) in float64
SIGMAS = 6         # statistical tolerance, in standard deviations


def random_p(rng, public) -> float:
    """A drop probability; never close to 0.5, where p and 1 - p cannot be told apart."""
    if public:
        return 0.3
    return float(rng.uniform(0.1, 0.4) if rng.random() < 0.5 else rng.uniform(0.6, 0.8))


def random_input(rng, public) -> np.ndarray:
    """An (n, d) input with every |x| >= 0.5, so that y / x tells the scale of every unit."""
    shape = (4, 5) if public else (int(rng.integers(3, 12)), int(rng.integers(4, 16)))
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)


def _seed(rng) -> int:
    return int(rng.integers(2 ** 31))


def _values(out, what, shape) -> np.ndarray:
    assert out["values"] is not None, (
        f"{what} must return a Node with the input's shape {tuple(shape)}; it returned a "
        f"{out['type']} of shape {tuple(out['shape'])}")
    return out["values"]


def _index(flat, shape) -> tuple:
    return tuple(int(i) for i in np.unravel_index(int(flat), shape))


# -- dropout_forward ------------------------------------------------------------------------------
def _scale_errors(scales, wanted) -> np.ndarray:
    return np.abs(scales - wanted) / wanted


def _kept_scale_is(scales, wanted) -> bool:
    """Every kept unit's y / x (`scales`) is `wanted`, exactly (within EXACT)."""
    return bool(np.all(_scale_errors(scales, wanted) <= EXACT))


@pytest.fixture
def draws(submission, rng, public):
    """(p, x, outputs of 2,000 training-mode calls of one seeded layer on x)."""
    p, x = random_p(rng, public), random_input(rng, public)
    out = submission.probe("train_outputs", p=p, x=x, seed=_seed(rng), draws=2000)
    return p, x, _values(out, f"MyDropout({p:.3f}) in training mode", x.shape)


@pytest.mark.task("dropout_forward")
def test_kept_units_are_scaled_by_exactly_1_over_1_minus_p(draws, metrics):
    p, x, values = draws
    wanted = ref.kept_scale(p)
    scale = values / x
    kept = np.abs(scale) > EXACT
    assert np.all(np.isfinite(values)), "the output contains NaN or infinite values"
    assert kept.any(), f"with p = {p:.3f} every unit was dropped in every one of {len(values)} calls"
    mistakes = ref.misconceptions.kept_scale(p)
    metrics["max_scale_error"] = float(_scale_errors(scale[kept], wanted).max())
    if not _kept_scale_is(scale[kept], wanted):
        seen = np.unique(scale[kept].round(6))[:4]
        # the scale of the kept units says nothing of a layer that keeps them all: its mask is off
        raise AssertionError(
            f"with p = {p:.3f}, every output must be 0 or x / (1 - p) = {wanted:.4f} * x; "
            f"yours has y / x = {', '.join(f'{s:g}' for s in seen)}"
            + (f". The first difference is in the mask: no output was 0 in any of the "
               f"{len(values):,} calls, so no unit was dropped (each must be, with probability "
               f"p = {p:.3f})"
               if kept.all() else misconception(scale[kept], wanted, mistakes, _kept_scale_is)))


REUSED = 0.99           # the share of masks equal to the one before that only a mask reused reaches
MASK_REUSED = diagnosed("mask_reused", "the mask is drawn once and reused: draw a new mask on "
                                      "every call")
ONE_DRAW = diagnosed("mask_one_draw_for_the_whole_array", "every mask keeps all the units or none: "
                     "one random number for the whole array; draw one per unit, of x's shape")
NOT_FROM_RNG = diagnosed("mask_not_from_self_rng", "the mask is not drawn from the layer's own "
                         "generator: draw every random number from self.rng")


@pytest.mark.task("dropout_forward")
def test_masks_are_new_for_every_call_and_come_from_rng(draws, submission, rng):
    p, x, values = draws
    masks = (values != 0).reshape(len(values), -1)
    repeated = float(np.mean(np.all(masks[1:] == masks[:-1], axis=1)))
    # two independent masks of N units agree with probability (p^2 + (1-p)^2)^N, below 0.1 here;
    # a mask reused agrees every time, one all-or-nothing draw with probability p^2 + (1 - p)^2
    whole = bool(np.all(masks.all(axis=1) | ~masks.any(axis=1)))
    assert repeated < 0.5, (
        f"in {len(masks):,} calls of one layer, {repeated:.0%} of the masks were the same as the "
        f"one before" + (ONE_DRAW if whole else MASK_REUSED if repeated >= REUSED else ""))
    seed = _seed(rng)
    first, again = (_values(submission.probe("train_outputs", p=p, x=x, seed=seed, draws=3),
                            f"MyDropout({p:.3f})", x.shape) for _ in range(2))
    assert np.array_equal(first, again), (
        "two layers MyDropout(p, np.random.default_rng(seed)) with the same seed gave different "
        f"outputs{NOT_FROM_RNG}")
    other = _values(submission.probe("train_outputs", p=p, x=x, seed=seed + 1, draws=3),
                    f"MyDropout({p:.3f})", x.shape)
    assert not np.array_equal(first, other), (
        "layers with different seeds gave the same outputs: draw the mask from self.rng")


@pytest.mark.task("dropout_forward")
def test_each_example_has_a_mask_of_its_own(draws):
    """Units are dropped independently in every example of a batch: with n rows of d units, all
    rows share one mask by chance with probability (p^n + (1 - p)^n)^d per call, 0.3 at most
    here; in none of 2,000 calls is beyond chance (below 1e-90)."""
    p, x, values = draws
    masks = values != 0
    shared = np.all(masks == masks[:, :1, :], axis=(1, 2))
    assert not shared.all(), (
        f"in every one of {len(values):,} calls, all {x.shape[0]} rows of the input lost the same "
        f"units: each example needs a mask of its own, of the input's whole shape {x.shape} (a mask "
        f"of shape {x.shape[1:]} is shared by the whole batch)")


@pytest.mark.task("dropout_forward")
def test_fraction_dropped_is_p(draws, metrics):
    p, x, values = draws
    dropped = float(np.mean(values == 0))
    metrics["fraction_dropped"] = dropped
    sigma = np.sqrt(p * (1 - p) / values.size)
    expected, mistakes = ref.dropped_fraction(p), ref.misconceptions.dropped_fraction(p)

    def close(fraction, value) -> bool:         # within the statistical tolerance
        return abs(fraction - value) < SIGMAS * sigma + 1e-3
    assert close(dropped, expected), (
        f"with p = {p:.3f}, a fraction {dropped:.4f} of {values.size:,} outputs was 0; expected "
        f"about p = {p:.3f}" + misconception(dropped, expected, mistakes, close))


@pytest.mark.task("dropout_forward")
def test_mean_over_many_draws_is_the_input(draws, metrics):
    p, x, values = draws
    ratio = (values / x).mean(axis=0)        # per unit: mean of y / x, expected 1
    sigma_unit = np.sqrt(p / (1 - p) / len(values))
    sigma_all = sigma_unit / np.sqrt(ratio.size)
    metrics["mean_output_over_input"] = float(ratio.mean())
    assert abs(ratio.mean() - 1) < SIGMAS * sigma_all + 1e-3, (
        f"with p = {p:.3f}, the mean of y / x over {len(values):,} calls and all units is "
        f"{ratio.mean():.4f}; inverted dropout preserves the expectation, E[y] = x, so it must "
        f"be about 1")
    worst = int(np.argmax(np.abs(ratio - 1)))
    assert abs(ratio.flat[worst] - 1) < SIGMAS * sigma_unit, (
        f"with p = {p:.3f}, unit {_index(worst, x.shape)} has a mean output of "
        f"{ratio.flat[worst] * x.flat[worst]:.4f} over {len(values):,} calls, for the input "
        f"{x.flat[worst]:.4f}: is every unit dropped independently?")


# -- dropout_backward -----------------------------------------------------------------------------
def acts_in_training(submission, rng, public, what: str) -> None:
    """A layer that returns its input unchanged in training mode has no mask to pass a gradient
    through and nothing to switch off in evaluation mode (an identity earned both tasks). On
    400 units, a layer that drops any (p >= 0.1) leaves them all with probability 0.9^400."""
    p = random_p(rng, public)
    x = rng.choice([-1.0, 1.0], (20, 20)) * rng.uniform(0.5, 2.0, (20, 20))
    out = submission.probe("train_gradient", p=p, x=x, u=np.ones_like(x), seed=_seed(rng))
    assert not np.array_equal(out["value"], x), (
        f"in training mode forward(x) returned x unchanged (p = {p:.3f}, 400 units): no unit was "
        f"dropped or scaled, so {what}")


def upstream_through(u, y, x) -> np.ndarray:
    """dL/dx for L = sum(u * y), y the layer's output for x: u times each unit's y / x, the
    mask and scale that the forward pass drew."""
    return u * y / x


@references.misconception("upstream_through", "the upstream gradient itself: multiply it by the "
                                              "scale s = m / (1 - p)")
def upstream_unmasked(u, y, x) -> np.ndarray:
    return u


@references.misconception("upstream_through", "masked but not scaled by 1 / (1 - p)")
def upstream_not_scaled(u, y, x) -> np.ndarray:
    return u * (y != 0)


@pytest.mark.task("dropout_backward")
def test_gradient_is_the_upstream_masked_and_scaled_like_the_output(submission, rng, public, metrics):
    acts_in_training(submission, rng, public, "there is no dropout to backpropagate through")
    for _ in range(3):
        p, x = random_p(rng, public), random_input(rng, public)
        u = rng.normal(size=x.shape)
        out = submission.probe("train_gradient", p=p, x=x, u=u, seed=_seed(rng))
        assert out["is_node"], (
            f"forward(x) must return a Node (use custom_op), not a {out['type']}: no gradient "
            f"can flow back through it")
        assert out["value"].shape == x.shape, (
            f"forward(x) returned shape {out['value'].shape} for an input of shape {x.shape}"
            f"{shape_located(out['value'].shape, x.shape)}")
        assert out["grad"] is not None, (
            "no gradient reaches x through forward(x): build the output with "
            "custom_op(\"dropout\", value, (x, backward))")
        grad, expected = out["grad"], upstream_through(u, out["value"], x)
        assert grad.shape == x.shape, (f"the gradient has shape {grad.shape}, not x's {x.shape}"
                                       f"{shape_located(grad.shape, x.shape)}")
        error = float(np.max(np.abs(grad - expected) / (np.abs(grad) + np.abs(expected) + 1e-300),
                             initial=0.0, where=(grad != expected)))
        metrics["max_rel_error"] = max(error, metrics.get("max_rel_error", 0.0))
        if error < 1e-10:
            continue
        scale, kept = out["value"] / x, np.abs(out["value"]) > 0
        named = misconception(grad, expected, references.variants(
            upstream_through, u, out["value"], x), lambda a, b: np.allclose(a, b))
        other_mask = ("; it is zero for other units than the output: use the mask of the forward "
                      "pass, not a new one" if np.any((grad != 0) != kept) else "")
        i = _index(np.argmax(np.abs(grad - expected)), x.shape)
        raise AssertionError(
            f"with p = {p:.3f}, for L = sum(u * y) the gradient at {i} is {grad[i] + 0.0:.4g}; expected "
            f"u * y / x = {u[i]:.4g} * {scale[i]:.4g} = {expected[i]:.4g} (the same mask and scale "
            f"as the output)" + (named or other_mask))


@pytest.mark.task("dropout_backward")
def test_two_calls_before_a_backward_pass_keep_their_own_masks(submission, rng, public):
    """The layer called twice on x (a layer used twice in a network, or two forward passes
    before one backward): each output's gradient goes through its own mask, so that of
    sum(u * y1) + sum(v * y2) is u * y1 / x + v * y2 / x. A mask kept on the layer (self.mask)
    and used by the backward pass is the second call's for both."""
    acts_in_training(submission, rng, public, "there is no dropout to backpropagate through")
    p, x = random_p(rng, public), random_input(rng, public)
    u, v = rng.normal(size=x.shape), rng.normal(size=x.shape)
    out = submission.probe("twice_gradient", p=p, x=x, u=u, v=v, seed=_seed(rng))
    assert out["grad"] is not None and out["first"].shape == out["second"].shape == x.shape, (
        "two forward passes of one layer on x gave no gradient with respect to x, or outputs of "
        "another shape than x's")
    expected = upstream_through(u, out["first"], x) + upstream_through(v, out["second"], x)
    if np.allclose(out["grad"], expected, rtol=1e-10, atol=1e-12):
        return
    i = _index(np.argmax(np.abs(out["grad"] - expected)), x.shape)
    shared = np.allclose(out["grad"], upstream_through(u + v, out["second"], x), rtol=1e-10,
                         atol=1e-12)
    raise AssertionError(
        f"with p = {p:.3f}, the layer called twice on x, y1 and y2, and L = sum(u * y1) + "
        f"sum(v * y2): the gradient at {i} is {out['grad'][i] + 0.0:.4g}, expected u * y1 / x + "
        f"v * y2 / x = {expected[i]:.4g}" + (MASK_OVERWRITTEN if shared else ""))


MASK_OVERWRITTEN = diagnosed(
    "mask_overwritten_by_the_next_call", "the backward pass reads the mask kept on the layer "
    "(self.mask), which the next call overwrote: each call's backward must use the mask of its "
    "own forward pass")


# -- dropout_eval ---------------------------------------------------------------------------------
def evaluated(x, p) -> np.ndarray:
    """The layer's output in evaluation mode: x itself."""
    return x


@references.misconception("evaluated", "x * (1 - p): that is the old, non-inverted dropout; "
                                       "inverted dropout already scaled in training")
def evaluated_non_inverted(x, p) -> np.ndarray:
    return x * (1 - p)


@pytest.mark.task("dropout_eval")
def test_evaluation_mode_is_the_identity(submission, rng, public):
    acts_in_training(submission, rng, public, "there is no dropout for evaluation mode to switch off")
    p, x = random_p(rng, public), random_input(rng, public)
    u = rng.normal(size=x.shape)
    out = submission.probe("eval_gradient", p=p, x=x, u=u, seed=_seed(rng))
    got = out["value"]
    assert got.shape == x.shape, f"in evaluation mode forward(x) returned shape {got.shape}, not {x.shape}"
    if not np.array_equal(got, x):
        ratio = np.unique((got / x).round(6))[:4]
        named = misconception(got, evaluated(x, p), references.variants(evaluated, x, p),
                              lambda a, b: np.allclose(a, b))
        hint = ("; units are still dropped: check self.training" if np.any(got == 0)
                else f"; y / x = {', '.join(f'{r:g}' for r in ratio)}")
        raise AssertionError("with training = False, forward(x) must return x unchanged"
                             + (named or hint))
    assert np.array_equal(out["second"], x), "a second call in evaluation mode changed the output"
    assert out["grad"] is not None and np.allclose(out["grad"], u, rtol=1e-12, atol=0), (
        "in evaluation mode the gradient with respect to x must be the upstream gradient")


@pytest.mark.task("dropout_eval")
def test_evaluation_mode_draws_no_random_numbers(submission, rng, public):
    p, x = random_p(rng, public), random_input(rng, public)
    out = submission.probe("eval_gradient", p=p, x=x, u=np.ones_like(x), seed=_seed(rng))
    assert not out["drew_random_numbers"], (
        "in evaluation mode the layer drew random numbers from its rng: it must not draw a mask")


@pytest.mark.task("dropout_eval")
def test_model_eval_switches_the_layer_off(submission, rng, public):
    p, x = random_p(rng, public), random_input(rng, public)
    out = submission.probe("model_eval", p=p, x=x, seed=_seed(rng))
    assert not out["training"], (
        "net.eval() did not set the layer's `training` to False: MyDropout must be a dp.Layer")
    assert np.array_equal(out["value"], x), (
        "in a dp Model switched to evaluation mode with net.eval(), the layer changed its input")


@pytest.mark.task("dropout_eval")
def test_training_mode_drops_again_after_evaluation(submission, rng, public):
    """net.eval(), a forward pass, net.train(): the layer drops units again. Evaluation mode
    must change only `training`, not the layer's p or its mask (the chance that none of the
    units of AGAIN passes is dropped is below 1e-10). How the kept units are scaled is
    dropout_forward's."""
    p, x = random_p(rng, public), random_input(rng, public)
    again = submission.probe("model_eval", p=p, x=x, seed=_seed(rng))["again"]
    assert again is not None, (
        "after net.eval() and net.train(), the layer's output has another shape than its input")
    dropped = again == 0
    assert dropped.any(), (
        f"after net.eval() and then net.train(), {len(again)} forward passes in training mode "
        f"dropped no unit (p = {p:.3f}): evaluation mode must leave the layer as it was, and "
        f"switch only `training`")



# -- forgot_eval: a question graded automatically (autograder/grading/answers.py) ------------------
@pytest.mark.task("forgot_eval")
def test_the_test_loss_measured_in_training_mode(submission, public):
    answers.judge(submission, public, "answer_forgot_eval", ref.forgot_eval_answer, choices="abc")
