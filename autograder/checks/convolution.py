"""Checks of 11 convolution: the 1-d cross-correlation and its gradients, max-pooling and its
gradient, the histogram classifier's accuracy, and the adversarial input.

The expected values come from the references (autograder/references/convolution.py, the
grader's side only, replayed from public cases in the student bundle). The reference for the ops
is dp's own `Node.conv1d` and `Node.maxpool1d`, differentiated for a random upstream gradient
(not all ones), with kernels far from symmetric (a symmetric kernel hides every flip), on shapes
drawn here when grading. The classifier is measured on histograms drawn here with the notebook's
recipe (`histograms`, the same code), whose labels never leave the grader: the labels of the
student's predict, and those of the grader's own forward pass of HistogramNet with the trained
net's parameters (so that only a trained network earns the task). The attack's path is judged
with f recomputed by that forward pass from the parameters the network had when it was attacked:
every point a histogram, small steps, and a stop at the first histogram with f > 0. (No public
case can hold that forward pass on a student's own parameters: the self-check uses f as
net.forward gives it instead, see `_f`.)
"""
import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import floored_rel_error as rel_error
from autograder.grading.checking import floored_rel_errors as rel_errors
from autograder.grading.checking import (diagnosed, leaf_gradient, misconception, node_reply,
                                         shape_located, within, wrong_shape)

ref = references.of(__name__)

TOL = 1e-9        # float64 on both sides, the same sums in another order


# -- the notebook's data: histograms of 500 numbers in 16 bins on [-4, 4] ---------------------------
# The same code as the notebook's section 3 (tests/test_nb11_convolution.py checks they agree).
BINS, LOW, HIGH, SAMPLES = 16, -4.0, 4.0, 500

CLASS_0 = {      # family -> (rng, n) -> n samples (n may be a shape)
    "uniform":        lambda rng, n: rng.uniform(-1, 1, n) * rng.uniform(1, 3),
    "Laplace":        lambda rng, n: rng.laplace(0, rng.uniform(0.5, 1), n),
    "shifted normal": lambda rng, n: rng.normal(rng.choice([-1, 1]) * rng.uniform(0.5, 1.5), 1, n),
    "narrow normal":  lambda rng, n: rng.normal(0, rng.uniform(0.4, 0.7), n),
    "wide normal":    lambda rng, n: rng.normal(0, rng.uniform(1.5, 2.5), n),
    "exponential":    lambda rng, n: rng.choice([-1, 1]) * (rng.exponential(1, n) - 1),
    "two bumps":      lambda rng, n: rng.normal(0, 0.5, n) + rng.choice([-1, 1], n) * rng.uniform(1, 2),
}


def histogram(samples: np.ndarray) -> np.ndarray:
    """The normalised 16-bin histogram on [-4, 4] of each row of samples: (n, 500) -> (n, 16)."""
    counts = np.stack([np.histogram(row, BINS, (LOW, HIGH))[0] for row in samples])
    return counts / counts.sum(axis=1, keepdims=True)


def histograms(n: int, rng: np.random.Generator) -> tuple:
    """n labelled examples: x (n, 16) histograms, y (n,) labels, 1 for the standard normal."""
    y = rng.integers(2, size=n)
    families = list(CLASS_0.values())
    samples = [rng.normal(size=SAMPLES) if label == 1 else
               families[rng.integers(len(families))](rng, SAMPLES) for label in y]
    return histogram(np.stack(samples)), y.astype(float)


PARAMETERS = {"k1": (5,), "k2": (5,), "k3": (5,), "hidden_W": (18, 7), "hidden_b": (1, 7),
              "out_W": (7, 1), "out_b": (1, 1)}


# -- inputs ---------------------------------------------------------------------------------------
def random_conv_case(rng, public) -> tuple:
    """x (B, L), a kernel k (K,) far from symmetric, and an upstream gradient g (B, L - K + 1)."""
    B, L, K = (2, 9, 4) if public else (int(rng.integers(1, 6)), int(rng.integers(5, 25)), 0)
    K = K or int(rng.integers(2, min(L, 8) + 1))
    k = rng.normal(size=K)
    while np.max(np.abs(k - k[::-1])) < 0.5:
        k = rng.normal(size=K)
    return rng.normal(size=(B, L)), k, rng.normal(size=(B, L - K + 1))


def random_pool_case(rng, public) -> tuple:
    """x (B, L) without ties, a window n dividing L, and an upstream gradient g (B, L / n)."""
    B, n, count = (2, 2, 4) if public else (int(rng.integers(1, 6)), int(rng.integers(2, 5)),
                                            int(rng.integers(2, 8)))
    return rng.normal(size=(B, n * count)), n, rng.normal(size=(B, count))


def cases(rng, public, draw) -> list:
    return [draw(rng, public) for _ in range(2 if public else 4)]


# -- comparing ------------------------------------------------------------------------------------
def _compare(got, expected, what, context, metrics, mistakes=(), part=None, shape_hints=None):
    """Assert that the array `got` is `expected`; a wrong shape or value is named, and the known
    mistake it equals (`mistakes`: what ref.misconceptions gave, whose `part` `expected` is;
    `shape_hints`: {shape: hint})."""
    assert not isinstance(got, dict), f"{context}{what} must be an array, not a {got['not_array']}"
    if got.shape != expected.shape:
        hint = (shape_hints or {}).get(got.shape, "")
        raise AssertionError(f"{context}{what} has shape {got.shape}, expected {expected.shape}"
                             + (f": {hint}" if hint else "")
                             + wrong_shape(got, expected, mistakes, within(TOL, rel_error), part))
    errors = rel_errors(got, expected)
    error = float(np.max(errors, initial=0.0))
    metrics["max_rel_error"] = max(error, metrics.get("max_rel_error", 0.0))
    if error > TOL:
        i = tuple(int(n) for n in np.unravel_index(int(np.argmax(errors)), expected.shape))
        raise AssertionError(f"{context}{what}[{', '.join(map(str, i))}] is {got[i]:.6g}, expected "
                             f"{expected[i]:.6g} (relative error {error:.1e})"
                             + misconception(got, expected, mistakes, within(TOL, rel_error), part))


# -- conv1d_grad ----------------------------------------------------------------------------------
def _conv(submission, x, k, g):
    out = submission.probe("conv1d", x=x, k=k, g=g)
    node_reply(out, f"conv1d(x {x.shape}, k {k.shape})", g.shape)
    return out


def _conv_context(x, k) -> str:
    return f"for x of shape {x.shape} and the kernel {np.round(k, 3).tolist()}: "


@pytest.mark.task("conv1d_grad")
def test_value_is_the_valid_cross_correlation(submission, rng, public, metrics):
    for x, k, g in cases(rng, public, random_conv_case):
        out = submission.probe("conv1d", x=x, k=k, g=g)
        assert out.get("type") == "Node", (
            f"conv1d must return a Node (made with custom_op), not a {out.get('type')}")
        n = x.shape[1] - len(k) + 1
        _compare(out["value"], ref.conv(x, k, g)["value"], "conv1d(x, k)", _conv_context(x, k),
                 metrics, ref.misconceptions.conv(x, k, g), "value",
                 shape_hints={(x.shape[0], n + 2 * (len(k) - 1)): "that is 'full' mode; 'valid' "
                              f"has L - K + 1 = {n} outputs"})


@pytest.mark.task("conv1d_grad")
def test_input_gradient_is_the_full_convolution_of_g_with_the_kernel(submission, rng, public, metrics):
    for x, k, g in cases(rng, public, random_conv_case):
        out = _conv(submission, x, k, g)
        B, K, n = x.shape[0], len(k), g.shape[1]
        _compare(leaf_gradient(out, "x", "conv1d"), ref.conv(x, k, g)["x"], "dL/dx",
                 _conv_context(x, k) + "for L = sum(g * y), ", metrics,
                 ref.misconceptions.conv(x, k, g), "x",
                 shape_hints={(B, n - K + 1): "that is a 'valid' correlation of g; pad g with K - 1 "
                                              "zeros on each side ('full'), giving length L",
                              (B, n): "it has the output's length; pad g with K - 1 zeros on each "
                                      "side and correlate with the flipped kernel"})


@pytest.mark.task("conv1d_grad")
def test_kernel_gradient_is_the_correlation_of_x_with_g(submission, rng, public, metrics):
    for x, k, g in cases(rng, public, random_conv_case):
        out = _conv(submission, x, k, g)
        _compare(leaf_gradient(out, "k", "conv1d"), ref.conv(x, k, g)["k"], "dL/dk",
                 _conv_context(x, k) + "for L = sum(g * y), ", metrics,
                 ref.misconceptions.conv(x, k, g), "k",
                 shape_hints={(len(x), len(k)): "one row per example; the kernel is shared by all "
                                                "rows: sum their contributions"})


# -- maxpool_grad ---------------------------------------------------------------------------------
def _pool_context(x, n) -> str:
    return f"for x of shape {x.shape} and windows of {n}: "


@pytest.mark.task("maxpool_grad")
def test_value_is_the_maximum_of_each_window(submission, rng, public, metrics):
    for x, n, g in cases(rng, public, random_pool_case):
        out = submission.probe("maxpool1d", x=x, n=n, g=g)
        assert out.get("type") == "Node", (
            f"maxpool1d must return a Node (made with custom_op), not a {out.get('type')}")
        _compare(out["value"], ref.pool(x, n, g)["value"], "maxpool1d(x, n)",
                 _pool_context(x, n), metrics, ref.misconceptions.pool(x, n, g), "value")


@pytest.mark.task("maxpool_grad")
def test_gradient_goes_to_the_maximum_of_each_window_only(submission, rng, public, metrics):
    for x, n, g in cases(rng, public, random_pool_case):
        out = submission.probe("maxpool1d", x=x, n=n, g=g)
        node_reply(out, f"maxpool1d(x {x.shape}, {n})", g.shape)
        _compare(leaf_gradient(out, "x", "maxpool1d"), ref.pool(x, n, g)["x"], "dL/dx",
                 _pool_context(x, n) + "for L = sum(g * y), ", metrics,
                 ref.misconceptions.pool(x, n, g), "x")


# -- histogram_classifier -------------------------------------------------------------------------
LABELS_SWAPPED = diagnosed("labels_swapped", "the labels look swapped: class 1 must be where "
                                            "f > 0, class 0 where f <= 0")


def _assert_accurate(labels, y, what, assignment, metrics, metric) -> None:
    """Assert that the labels (n,) of 0 and 1 are right for the required fraction of `y` at
    least; record that fraction in metrics[metric]."""
    accuracy = float(np.mean(labels == y))
    metrics[metric] = accuracy
    threshold = assignment.thresholds["accuracy"]
    by_class = {c: float(np.mean(labels[y == c] == c)) for c in (1, 0)}
    assert accuracy >= threshold, (
        f"{what} {accuracy:.4f} on {len(y):,} histograms is below the required {threshold} "
        f"(class 1: {by_class[1]:.3f} right, class 0: {by_class[0]:.3f} right)"
        + (LABELS_SWAPPED if accuracy < 1 - threshold else ""))


def _parameters(params: dict) -> dict:
    """The trained network's parameters, checked against HistogramNet's names and shapes, and
    finite (the histograms `test_predict_gives_the_networks_decisions` asks about next are
    chosen by f)."""
    shapes = {name: getattr(value, "shape", None) for name, value in params.items()}
    assert shapes == PARAMETERS, (
        f"the grader recomputes f from net's parameters, which must be those of HistogramNet "
        f"{PARAMETERS}; net has {shapes}")
    broken = sorted(name for name, value in params.items() if not np.all(np.isfinite(value)))
    assert not broken, (
        f"net's trained parameters {broken} hold NaN or infinite values: the training diverged "
        f"(a learning rate too large?)")
    return params


def _yours(f, n: int) -> np.ndarray:
    """f (n,) as net.forward gave it for n histograms, checked to be one per histogram."""
    assert isinstance(f, np.ndarray) and f.size == n, (
        f"net.forward must give one f per histogram: for {n} histograms it returned "
        f"{f.get('not_array') if isinstance(f, dict) else f'shape {np.shape(f)}'}")
    return np.ravel(f)


def _f(params, x, reply, public) -> np.ndarray:
    """f (n,) of HistogramNet with net's trained `params` on histograms x (n, 16): when grading,
    the grader's own forward pass (references.classifier_f). The self-check cannot have it: no
    public case holds the grader's forward pass on a student's own trained parameters. It uses f
    as net.forward gave it (reply["f"], read in the self-check only) instead, and grading checks
    the rest."""
    if public:
        return _yours(reply["f"], len(x))
    with np.errstate(all="ignore"):                 # parameters may overflow: f of NaN is no class
        return ref.classifier_f(params, x)


@pytest.mark.task("histogram_classifier")
def test_accuracy_on_histograms_held_by_the_grader(submission, rng, public, assignment, metrics):
    x, y = histograms(1000 if public else 2000, rng)
    predicted = submission.probe("predict", histograms=x)
    assert not isinstance(predicted, dict) and predicted.shape == y.shape, (
        f"predict(histograms) must return an array of {len(y)} labels, one per histogram; it "
        f"returned {predicted.get('not_array') if isinstance(predicted, dict) else predicted.shape}"
        f"{'' if isinstance(predicted, dict) else shape_located(predicted.shape, y.shape)}")
    assert np.all(np.isin(predicted, (0, 1))), (
        f"predict must return labels 0 or 1 (class 1 where f > 0), not values such as "
        f"{', '.join(f'{v:.3g}' for v in np.unique(predicted)[:3])}")
    _assert_accurate(predicted, y, "test accuracy", assignment, metrics, "accuracy")


@pytest.mark.task("histogram_classifier")
def test_the_trained_parameters_classify_through_the_graders_network(submission, rng, public,
                                                                    assignment, metrics):
    """The trained `net` graded on its parameters: the grader's own forward pass of HistogramNet
    with net's parameters labels new histograms (class 1 where f > 0). A predict that answers
    without the trained network (a closed-form test of normality, a lookup) earns nothing here.
    (The self-check labels them by net.forward's own f: see `_f`.)"""
    x, y = histograms(1000 if public else 2000, rng)
    model = submission.probe("model", histograms=x)
    params = _parameters(model["params"])
    labels = (_f(params, x, model, public) > 0).astype(float)
    whose = "net.forward" if public else "the grader's HistogramNet with net's trained parameters"
    _assert_accurate(labels, y, f"{whose}: test accuracy", assignment, metrics,
                     "accuracy_of_the_trained_parameters")


NEAR_TIE = 1e-9    # |f| below which the grader's forward pass and the notebook's may decide apart


NEW = 1000        # new histograms (`test_predict_gives_the_networks_decisions`)
ACROSS = 8        # pairs of histograms on either side of net's boundary (`_across_the_boundary`)
ALONG = 128       # histograms on the segment between the two of a pair


def _across_the_boundary(x, f) -> np.ndarray:
    """Histograms near net's decision boundary, where a wrong threshold shows: ALONG points on
    each segment from a histogram of f < 0 to one of f > 0 (a mixture of two histograms is a
    histogram), ACROSS pairs; none when net puts every histogram on one side."""
    below, above = np.flatnonzero(f < 0)[:ACROSS], np.flatnonzero(f > 0)[:ACROSS]
    n = min(len(below), len(above))
    t = np.linspace(0, 1, ALONG)[None, :, None]
    return ((1 - t) * x[below[:n], None] + t * x[above[:n], None]).reshape(-1, x.shape[1])


@pytest.mark.task("histogram_classifier")
def test_predict_gives_the_networks_decisions(submission, rng, public):
    """predict is net's decision, class 1 where f > 0, on new histograms and on histograms
    between two of them on either side of net's boundary: an accuracy above the bar does not
    show a wrong threshold (f > 0.5 on a logit), since few histograms have f near 0."""
    new, _ = histograms(NEW, rng)
    model = submission.probe("model", histograms=new)
    params = _parameters(model["params"])
    f = _f(params, new, model, public)
    boundary = _across_the_boundary(new, f)
    if len(boundary):       # f there: the self-check's from net.forward, grading's its own
        f = np.concatenate([f, _f(params, boundary, submission.probe(
            "model", histograms=boundary) if public else None, public)])
    x = np.concatenate([new, boundary])
    reply = submission.probe("predict", histograms=x)
    assert not isinstance(reply, dict) and reply.size == len(x), (
        f"predict(histograms) must return {len(x)} labels, one per histogram, not "
        f"{reply['not_array'] if isinstance(reply, dict) else f'shape {reply.shape}'}")
    predicted = np.ravel(reply)
    with np.errstate(invalid="ignore"):       # f of NaN is no decision: it never agrees
        differ = np.flatnonzero((predicted != (f > 0)) & ~(np.abs(f) <= NEAR_TIE) | np.isnan(f))
    assert not differ.size, (
        f"predict(histograms) is not net's decision on {differ.size} of {len(x)} histograms: "
        f"for histogram {differ[0]}"
        f"{' (a mixture of two on either side of the boundary)' if differ[0] >= NEW else ''}, "
        f"f = {f[differ[0]]:.4g} and predict gives "
        f"{predicted[differ[0]]:g}; the label is 1 where f > 0 (f is a logit: its boundary is 0, "
        f"that of the probability sigmoid(f) is 0.5)")


# -- adversarial_input ----------------------------------------------------------------------------
def _targets(f, labels) -> list:
    """Histograms the network rejects (f < 0), those of class 0 first."""
    rejected = f < 0
    return [int(i) for i in np.flatnonzero(rejected & (labels == 0))] + \
        [int(i) for i in np.flatnonzero(rejected & (labels == 1))]


MAX_STEP = 0.05   # the most a bin may change in one step of the attack
# A step of gradient ascent, clipped and renormalised, leaves every bin that stays above 0 at
# x_{t+1,i} = a x_{t,i} + b d_i + c, with d = grad_x f(x_t) - its mean, b > 0 (a = 1 / the sum, c = 0
# for the notebook's rule; c != 0 for a step along the raw gradient). The least-squares fit of
# those bins leaves a residual, relative to the step, of at most 2e-11 for the solution and for
# steps along the raw gradient; 0.32 or more at some step of every path that walks in a straight
# line to a histogram of class 1 (measured on 90 attacks, tests/test_nb11_convolution.py).
STEP_RESIDUAL = 1e-3
FREE_BINS = 4     # a step is judged where at least this many bins stay above 0 (3 coefficients)
FD_STEP = 1e-6    # the self-check's central differences of net.forward (see _input_gradients)


NOT_RENORMALISED = diagnosed("adversarial_not_renormalised",
                             "a step leaves the histogram unnormalised: step along the gradient "
                             "minus its mean, and renormalise")
TOO_LARGE = diagnosed("adversarial_steps_too_large",
                      f"a step changes a bin by more than {MAX_STEP}: scale each step, "
                      f"x + eps * d / max |d|, with eps <= {MAX_STEP}")
DESCENDS = diagnosed("adversarial_descends", "the steps descend, against the gradient (the "
                     "step's sign): ascend, x + eps * grad f")


def _path(out, x0) -> np.ndarray:
    """The attack's path (T + 1, 16), checked: it starts at x0, every entry is a histogram, and
    every step is small."""
    path = out["path"]
    assert not isinstance(path, dict), f"adversarial must return an array, not a {path['not_array']}"
    assert path.ndim == 2 and path.shape[1] == BINS and len(path) >= 2, (
        f"adversarial must return the path x_0, ..., x_T as an array of shape (T + 1, {BINS}) with "
        f"T >= 1, not shape {path.shape}")
    assert np.all(np.isfinite(path)), "the path contains NaN or infinite values"
    assert np.allclose(path[0], x0, rtol=0, atol=1e-12), (
        "the path must start at x0, the histogram attacked")
    negative = np.flatnonzero(path.min(axis=1) < -1e-12)
    assert not negative.size, (
        f"x_{negative[0]} has a negative entry ({path[negative[0]].min():.3g}): it is no longer a "
        f"histogram; clip the entries at 0 (and renormalise)")
    sums = path.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1) >= 1e-6)
    assert not off.size, (
        f"x_{off[0]} sums to {sums[off[0]]:.6g}, not 1: it is no longer a histogram"
        f"{NOT_RENORMALISED}")
    steps = np.abs(np.diff(path, axis=0)).max(axis=1)
    large = np.flatnonzero(steps > MAX_STEP)
    assert not large.size, (
        f"from x_{large[0]} to x_{large[0] + 1} a bin changes by {steps[large[0]]:.3f}{TOO_LARGE}")
    return path


def _input_gradients(submission, params, x, public) -> np.ndarray:
    """grad_x f (n, 16) at the histograms x (n, 16): when grading, the grader's own backward pass
    (references.classifier_gradient, on net's parameters); in the self-check, which cannot have
    it (see `_f`), central differences of f as net.forward gives it."""
    if not public:
        return ref.classifier_gradient(params, x)
    shifts = FD_STEP * np.eye(BINS)
    points = np.concatenate([x[:, None, :] + shifts, x[:, None, :] - shifts]).reshape(-1, BINS)
    f = _yours(submission.probe("model", histograms=points)["f"], len(points)).reshape(2, len(x), BINS)
    return (f[0] - f[1]) / (2 * FD_STEP)


def step_residuals(path, gradients) -> list:
    """[(t, relative residual, b)] of each step x_t -> x_{t+1} of `path` judged (FREE_BINS bins
    or more above 0 after it): the least-squares fit x_{t+1,i} = a x_{t,i} + b d_i + c over those
    bins, d = gradients[t] minus its mean."""
    judged = []
    for t, (x, after, gradient) in enumerate(zip(path[:-1], path[1:], gradients)):
        free = after > 0
        if free.sum() < FREE_BINS or np.array_equal(x[free], after[free]):
            continue
        basis = np.stack([x[free], (gradient - gradient.mean())[free], np.ones(free.sum())], axis=1)
        coefficients, *_ = np.linalg.lstsq(basis, after[free], rcond=None)
        residual = np.linalg.norm(basis @ coefficients - after[free]) / np.linalg.norm(after[free] - x[free])
        judged.append((t, float(residual), float(coefficients[1])))
    return judged


def _assert_steps_follow_the_gradient(submission, params, path, public, metrics) -> None:
    judged = step_residuals(path, _input_gradients(submission, params, path[:-1], public))
    if not judged:
        return
    worst = max(judged, key=lambda j: j[1])
    metrics["max_step_residual"] = max(worst[1], metrics.get("max_step_residual", 0.0))
    t, residual, _ = worst
    assert residual < STEP_RESIDUAL, (
        f"the step from x_{t} to x_{t + 1} does not follow the gradient of f at x_{t}: the bins that "
        f"stay above 0 are not x_{t} plus a multiple of grad f minus its mean (then renormalised): "
        f"{residual:.2g} of the step is in another direction; take each step along grad f at the "
        f"current x (x + eps * d / max |d|, clip at 0, renormalise)")
    descending = [j for j in judged if j[2] <= 0]
    assert not descending, (
        f"the step from x_{descending[0][0]} to x_{descending[0][0] + 1} goes against the gradient "
        f"of f: ascend, x + eps * grad f")


@pytest.mark.task("adversarial_input")
def test_gradient_ascent_turns_a_rejected_histogram_into_class_1(submission, rng, public, metrics):
    candidates, labels = histograms(64, rng)
    model = submission.probe("model", histograms=candidates)
    params = _parameters(model["params"])
    yours = _yours(model["f"], len(candidates))
    f = _f(params, candidates, model, public)
    assert np.allclose(yours, f, rtol=1e-6, atol=1e-9), (
        f"net.forward gives other values of f than HistogramNet's architecture with net's own "
        f"parameters ({yours[0]:.4g} instead of {f[0]:.4g}); the grader evaluates the "
        f"attack with that architecture, so keep it")
    targets = _targets(f, labels)
    assert targets, "the network gives f >= 0 for every one of 64 histograms: nothing to attack"
    for i in targets[:1 if public else 3]:
        out = submission.probe("adversarial", x0=candidates[i])
        assert not out["changed"], (
            f"adversarial changed the network's parameters {out['changed']}: change only the input")
        path = _path(out, candidates[i])
        attacked = _parameters(out["params"])
        assert all(np.array_equal(attacked[name], params[name]) for name in params), (
            "adversarial attacked a network whose parameters are not net's")
        f_path = _f(params, path, out, public)
        metrics.setdefault("f_before", float(f_path[0]))
        metrics.setdefault("f_after", float(f_path[-1]))
        metrics["steps"] = max(len(path) - 1, metrics.get("steps", 0))
        change = float(np.abs(path[-1] - path[0]).sum())
        metrics["l1_change"] = max(change, metrics.get("l1_change", 0.0))
        T = len(path) - 1
        assert f_path[-1] > 0, (
            f"after {T} step{'s' if T > 1 else ''} from f(x_0) = {f_path[0]:.3f}, "
            f"f(x_T) = {f_path[-1]:.3f}; "
            + ("f went down" + DESCENDS if f_path[-1] < f_path[0] else
               "keep ascending until f > 0"))
        accepted = np.flatnonzero(f_path[:-1] >= 0)
        assert not accepted.size, (
            f"x_{accepted[0]} already has f = {f_path[accepted[0]]:.3f} >= 0, yet the path goes on to "
            f"x_{T}: stop at the first histogram with f > 0")
        _assert_steps_follow_the_gradient(submission, params, path, public, metrics)
