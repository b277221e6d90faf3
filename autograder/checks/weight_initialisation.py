"""Checks of 05 weight initialisation: Xavier and He initialisers, per-layer activation
statistics, and their plot.

The initialisers are checked statistically, on one large sample drawn with a generator seeded
here: the shape (fan_in, fan_out), with fan_in and fan_out far apart so that a swap shows; a
mean of 0 and the specified variance (within VARIANCE_RTOL, many standard errors); the kind of
distribution (the range of a uniform, the kurtosis of a normal); and that the generator passed in
is the only source of randomness. The specified variances, and the activation statistics of
weights chosen here, come from the grader's references (autograder/references/
weight_initialisation.py); the plot's lines are recomputed from the notebook's own `networks` and
`x_stats` with dp's public ops, once those are checked to be the experiment the notebook
prescribes (EXPERIMENT: ten 100 x 100 layers per initialisation, 1,000 standard normal inputs,
each network's weights with the variance its label states).
"""
import numpy as np
import pytest

import dp
from autograder import references
from autograder.grading.checking import (diagnosed, located, misconception, rel_error,
                                         shape_located, within)

ref = references.of(__name__)

VARIANCE_RTOL = 0.03   # standard error of the sample variance: at most 0.4% (n >= 150,000)
MEAN_SIGMAS = 6        # |mean| at most 6 standard errors
KURTOSIS_ATOL = 0.2    # standard error of the excess kurtosis of a normal: sqrt(24 / n) < 0.013
RTOL = 1e-8            # statistics that the student's code and the reference compute alike
PLOT_ACTIVATIONS = ("tanh", "relu")
# The experiment the notebook prescribes: N_LAYERS square layers of WIDTH units, x_stats of
# N_EXAMPLES standard normal rows, and per label the initialiser the notebook draws it with
# (None: N(0, std^2) of the label's std, which the notebook gives).
WIDTH, N_LAYERS, N_EXAMPLES = 100, 10, 1000
PLOT_INITS = {"std 0.01": None, "std 1": None, "xavier": "xavier_uniform", "he": "he_normal"}
NAIVE_STDS = {"std 0.01": 0.01, "std 1": 1.0}
# One layer's variance: 10,000 weights, a standard error of at most sqrt(2 / 10,000) = 1.4% (a
# normal's; a uniform's is smaller); LAYER_VARIANCE_RTOL is 10 of them. A network's 100,000
# weights together are held to VARIANCE_RTOL (6.7 standard errors).
LAYER_VARIANCE_RTOL = 0.15

XAVIER = "2 / (fan_in + fan_out)"
HE = "2 / fan_in"
# name: (task, distribution, Var(W) as text)
INITIALISERS = {
    "xavier_uniform": ("xavier_init", "uniform", XAVIER),
    "xavier_normal": ("xavier_init", "normal", XAVIER),
    "he_uniform": ("he_init", "uniform", HE),
    "he_normal": ("he_init", "normal", HE),
}
EXCESS_KURTOSIS = {"uniform": -1.2, "normal": 0.0}


def _initialisers():
    return [pytest.param(name, marks=pytest.mark.task(task))
            for name, (task, _, _) in INITIALISERS.items()]


def _fans(rng, public) -> tuple:
    """fan_in and fan_out at least 1.6 times apart (either way round), 150,000+ weights."""
    if public:
        return 300, 500
    small = int(rng.integers(320, 451))
    large = int(round(small * rng.uniform(1.6, 2.4)))
    return (small, large) if rng.random() < 0.5 else (large, small)


def _sample(submission, name, fan_in, fan_out, seed) -> np.ndarray:
    reply = submission.probe("sample", initialiser=name, fan_in=fan_in, fan_out=fan_out, seed=seed)
    assert reply["array"] is not None, (
        f"{name}({fan_in}, {fan_out}, rng) must return a NumPy array of floats, not a {reply['type']}")
    return reply["array"]


def _shaped_sample(submission, name, fan_in, fan_out, seed) -> np.ndarray:
    W = _sample(submission, name, fan_in, fan_out, seed)
    swapped = "; fan_in and fan_out are swapped" if W.shape == (fan_out, fan_in) else ""
    assert W.shape == (fan_in, fan_out), (
        f"{name}(fan_in={fan_in}, fan_out={fan_out}, rng) returned shape {W.shape}, expected "
        f"(fan_in, fan_out) = {(fan_in, fan_out)}: one row per input, one column per output{swapped}"
        f"{shape_located(W.shape, (fan_in, fan_out))}")
    return W


def excess_kurtosis(W) -> float:
    centred = W - W.mean()
    return float(np.mean(centred ** 4) / np.mean(centred ** 2) ** 2 - 3)


def _variance_diagnosis(mistakes, variance, wanted) -> str:
    """The known mistakes (`mistakes`: [[id, why, the variance it gives]]) whose variance the
    measured one is, within the check's VARIANCE_RTOL, named."""
    return misconception(variance, wanted, mistakes, lambda a, b: abs(a / b - 1) < VARIANCE_RTOL)


OTHER_DISTRIBUTION = diagnosed("drawn_from_the_other_distribution", "drawn from the other "
                               "distribution: rng.uniform(-a, a) for a uniform, rng.normal(0, "
                               "std) for a normal (a uniform's a is sqrt(3) times its std)")


def looks_other(W, kind: str, metrics, name: str) -> str:
    """The naming of weights that look drawn from the distribution other than `kind` (their
    excess kurtosis within KURTOSIS_ATOL of the other's), with the figures; "" otherwise. A
    wrong distribution explains a wrong variance too (a normal of std a, the uniform's bound,
    has three times its variance): it outranks what the variance alone would name."""
    kurtosis = metrics[f"{name}_excess_kurtosis"] = excess_kurtosis(W)
    other = "normal" if kind == "uniform" else "uniform"
    return (OTHER_DISTRIBUTION + f" (yours look {other}: excess kurtosis {kurtosis:.2f}, a "
            f"{other} distribution has {EXCESS_KURTOSIS[other]:g}, a {kind} one "
            f"{EXCESS_KURTOSIS[kind]:g})"
            if abs(kurtosis - EXCESS_KURTOSIS[other]) < KURTOSIS_ATOL else "")


# -- xavier_init, he_init --------------------------------------------------------------------
@pytest.mark.parametrize("name", _initialisers())
def test_weights_have_shape_fan_in_by_fan_out(submission, rng, public, name):
    fan_in, fan_out = _fans(rng, public)
    _shaped_sample(submission, name, fan_in, fan_out, int(rng.integers(2 ** 31)))
    _shaped_sample(submission, name, fan_out, fan_in, int(rng.integers(2 ** 31)))


@pytest.mark.parametrize("name", _initialisers())
def test_weights_have_mean_zero_and_the_specified_variance(submission, rng, public, metrics, name):
    fan_in, fan_out = _fans(rng, public)
    W = _shaped_sample(submission, name, fan_in, fan_out, int(rng.integers(2 ** 31)))
    _, kind, text = INITIALISERS[name]
    wanted = ref.variance(name, fan_in, fan_out)
    mistakes = ref.misconceptions.variance(name, fan_in, fan_out)
    variance, mean = float(W.var()), float(W.mean())
    error = metrics[f"{name}_variance_rel_error"] = variance / wanted - 1
    metrics[f"{name}_mean"] = mean
    assert abs(error) < VARIANCE_RTOL, (
        f"{name}(fan_in={fan_in}, fan_out={fan_out}, rng): the weights' variance is {variance:.4g}, "
        f"expected {text} = {wanted:.4g} (within {VARIANCE_RTOL:.0%})"
        + (looks_other(W, kind, metrics, name) or _variance_diagnosis(mistakes, variance, wanted)))
    limit = MEAN_SIGMAS * np.sqrt(wanted / W.size)
    assert abs(mean) < limit, (
        f"{name}(fan_in={fan_in}, fan_out={fan_out}, rng): the weights' mean is {mean:.3g}, expected 0 "
        f"(|mean| below {limit:.2g} for {W.size:,} weights): the distribution must be centred at 0")


@pytest.mark.parametrize("name", _initialisers())
def test_weights_follow_the_specified_distribution(submission, rng, public, metrics, name):
    fan_in, fan_out = _fans(rng, public)
    W = _shaped_sample(submission, name, fan_in, fan_out, int(rng.integers(2 ** 31)))
    _, kind, _ = INITIALISERS[name]
    looks = looks_other(W, kind, metrics, name)
    kurtosis = metrics[f"{name}_excess_kurtosis"]
    assert abs(kurtosis - EXCESS_KURTOSIS[kind]) < KURTOSIS_ATOL, (
        f"{name}(fan_in={fan_in}, fan_out={fan_out}, rng) must draw from a {kind} distribution, whose "
        f"excess kurtosis is {EXCESS_KURTOSIS[kind]:g}; yours is {kurtosis:.2f}{looks}")
    if kind == "uniform":
        a = np.sqrt(3 * ref.variance(name, fan_in, fan_out))
        low, high = float(W.min()), float(W.max())
        assert -a * (1 + 1e-12) <= low and high <= a * (1 + 1e-12), (
            f"{name}(fan_in={fan_in}, fan_out={fan_out}, rng): the weights range over "
            f"[{low:.4g}, {high:.4g}], outside U(-a, a) with a = sqrt(3 Var(W)) = {a:.4g}")
        assert low < -0.999 * a and high > 0.999 * a, (
            f"{name}(fan_in={fan_in}, fan_out={fan_out}, rng): the weights range over "
            f"[{low:.4g}, {high:.4g}], but among {W.size:,} draws from U(-a, a) with a = {a:.4g} "
            f"some come within 0.1% of both -a and a")


@pytest.mark.parametrize("name", _initialisers())
def test_weights_come_from_the_generator_passed_in(submission, rng, name):
    seed = int(rng.integers(2 ** 31))
    first = _shaped_sample(submission, name, 17, 29, seed)
    again = _shaped_sample(submission, name, 17, 29, seed)
    other = _shaped_sample(submission, name, 17, 29, seed + 1)
    assert np.array_equal(first, again), (
        f"{name}(17, 29, rng) gave different weights for two generators with the same seed {seed}: "
        f"draw the random numbers from `rng` (rng.uniform, rng.normal), not from np.random")
    assert not np.array_equal(first, other), (
        f"{name}(17, 29, rng) gave the same weights for the seeds {seed} and {seed + 1}: draw the "
        f"random numbers from the generator `rng` you are given")


# -- activation_statistics: the student's own networks, recomputed with dp --------------------------
ACT = ("linear", "tanh", "relu")
PUBLIC_ACT = {"linear": lambda h: h, "tanh": dp.Node.tanh, "relu": dp.Node.relu}


def activation_stds(weights, activation, x) -> np.ndarray:
    """The standard deviation of all entries of each h_l = act(h_{l-1} W_l), h_0 = x, l = 1..L,
    for weights and inputs that the notebook made: recomputed with dp's public ops (the student's
    own values, which no reference function may take)."""
    stds, h = [], dp.Node(np.asarray(x, dtype=float))
    with dp.no_grad():
        for W in weights:
            h = PUBLIC_ACT[activation](h.dot(dp.Node(W)))
            stds.append(h.value.std())
    return np.array(stds)


@references.misconception("activation_stds", "the means of the layers, not their standard "
                                             "deviations")
def activation_means(weights, activation, x) -> np.ndarray:
    means, h = [], dp.Node(np.asarray(x, dtype=float))
    with dp.no_grad():
        for W in weights:
            h = PUBLIC_ACT[activation](h.dot(dp.Node(W)))
            means.append(h.value.mean())
    return np.array(means)


def _network(rng, public) -> tuple:
    """Weights W_l ~ N(0, 1.5^2 / n_{l-1}) for layers of random widths, and an input batch."""
    sizes = [5, 6, 4, 7] if public else list(rng.integers(2, 30, size=int(rng.integers(4, 13))))
    n = 8 if public else int(rng.integers(5, 60))
    weights = [rng.normal(0, 1.5 / np.sqrt(a), (a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
    return weights, rng.normal(size=(n, sizes[0]))


# -- activation_statistics ------------------------------------------------------------------------
@pytest.mark.task("activation_statistics")
@pytest.mark.parametrize("activation", tuple(ACT))
def test_statistics_are_the_mean_and_std_of_each_layer(submission, rng, public, metrics, activation):
    weights, x = _network(rng, public)
    shapes = " -> ".join(str(W.shape[0]) for W in weights) + f" -> {weights[-1].shape[1]}"
    reply = submission.probe("statistics", weights=weights, activation=activation, x=x)
    assert reply["means"] is not None, (
        f"activation_statistics must return a pair (means, stds), not a {reply['type']}")
    expected = dict(zip(("means", "stds"), ref.statistics(weights, activation, x)))
    mistakes = ref.misconceptions.statistics(weights, activation, x)
    where = f"a {activation} network {shapes} ({len(weights)} layers) and {len(x)} examples"
    for part, which in enumerate(("means", "stds")):
        got = reply[which]

        def named() -> str:
            return misconception(got, expected[which], mistakes, within(RTOL), part)
        assert got.shape == (len(weights),), (
            f"activation_statistics on {where}: {which} has shape {got.shape}, expected "
            f"({len(weights)},), one value per layer h_1 ... h_{len(weights)}"
            + (named() or shape_located(got.shape, (len(weights),))))
        error = metrics[f"max_rel_error_{which}_{activation}"] = rel_error(got, expected[which])
        i = int(np.argmax(np.abs(got - expected[which])))
        assert error < RTOL, (
            f"activation_statistics on {where}: {which}[{i}] (layer {i + 1}) is {got[i]:.6g}, "
            f"expected {expected[which][i]:.6g}" + named())


# -- activation_statistics: the plot --------------------------------------------------------------
def _panels(data) -> dict:
    """{activation: (axes, {init name: line})}: the axes titled with each activation."""
    panels = {}
    for activation in PLOT_ACTIVATIONS:
        titled = [ax for ax in data["axes"] if ax["title"].strip().lower() == activation]
        assert titled, (
            f"no axes titled {activation!r} was found (titles: "
            f"{', '.join(repr(ax['title']) for ax in data['axes']) or 'none'}); draw on "
            f"axes[0] (title 'tanh') and axes[1] (title 'relu') of `fig`")
        ax = titled[0]
        lines = {}
        for line in ax["lines"]:
            lines.setdefault(line["label"].strip(), line)
        missing = [name for name in PLOT_INITS if name not in lines]
        assert not missing, (
            f"the {activation!r} axes has no line labelled {', '.join(map(repr, missing))}; its lines "
            f"are labelled {', '.join(repr(l) for l in lines) or 'nothing'}: label each line with its "
            f"key in `networks`")
        panels[activation] = ax, {name: lines[name] for name in PLOT_INITS}
    return panels


NOT_LOG = diagnosed("statistics_plot_not_logarithmic",
                    "the y axis is not logarithmic, where the standard deviations range over 20 "
                    "orders of magnitude (ax.set_yscale('log'))")


@pytest.mark.task("activation_statistics")
def test_plot_has_a_panel_per_activation_with_logarithmic_y_axis(submission):
    for activation, (ax, lines) in _panels(submission.probe("plot")).items():
        assert ax["yscale"] == "log", (
            f"the y axis of the {activation!r} axes is {ax['yscale']}{NOT_LOG}")
        assert ax["xlabel"].strip(), f"label the x axis of the {activation!r} axes (ax.set_xlabel)"
        for name, line in lines.items():
            layers = np.arange(1, len(line["y"]) + 1)
            assert np.array_equal(line["x"], layers), (
                f"{activation!r} axes, line {name!r}: the x values must be the layer numbers 1, "
                f"2, ..., not {np.round(line['x'], 3).tolist()}" + located(line["x"], layers))


# -- activation_statistics: the experiment the plot shows -----------------------------------------
def _stated_variance(label) -> tuple:
    """(Var(W) that `label` states for WIDTH x WIDTH layers, how it is written)."""
    if label in NAIVE_STDS:
        return NAIVE_STDS[label] ** 2, f"N(0, {NAIVE_STDS[label]:g}^2)'s"
    initialiser = PLOT_INITS[label]
    text = XAVIER if initialiser.startswith("xavier") else HE
    return ref.variance(initialiser, WIDTH, WIDTH), f"{initialiser}'s {text}"


def _own_initialiser_variance(submission, label, rng):
    """The variance of N_LAYERS WIDTH x WIDTH samples of the student's own initialiser of `label`
    (None where it gives none): a network drawn with a wrong initialiser is what the notebook
    prescribes, and costs the initialiser's task only."""
    samples = []
    for _ in range(N_LAYERS):
        reply = submission.probe("sample", initialiser=PLOT_INITS[label], fan_in=WIDTH,
                                 fan_out=WIDTH, seed=int(rng.integers(2 ** 31)))
        if reply["array"] is None or reply["array"].shape != (WIDTH, WIDTH):
            return None
        samples.append(reply["array"])
    return float(np.var(samples))


def _variance_is_off(layers, variance) -> bool:
    """Whether the weights of `layers` together, or of any one layer, miss `variance`."""
    return (abs(float(np.var(layers)) / variance - 1) >= VARIANCE_RTOL
            or max(abs(float(W.var()) / variance - 1) for W in layers) >= LAYER_VARIANCE_RTOL)


def assert_prescribed_experiment(submission, networks, x, rng) -> None:
    """`networks` and `x_stats` are the notebook's experiment: x_stats N_EXAMPLES x WIDTH standard
    normal inputs; per label of PLOT_INITS, N_LAYERS WIDTH x WIDTH weight matrices with mean 0 and
    the variance the label states (or that the student's own initialiser of it gives)."""
    keep = "leave `networks` and `x_stats` as the notebook makes them"
    assert networks is not None and x is not None, (
        "`networks` (a dict from names to lists of weight matrices) and `x_stats` must be defined")
    assert x.shape == (N_EXAMPLES, WIDTH), (
        f"x_stats has shape {x.shape}, expected ({N_EXAMPLES}, {WIDTH}): {N_EXAMPLES:,} standard "
        f"normal inputs of {WIDTH} units; {keep}")
    mean, variance = float(x.mean()), float(x.var())
    assert abs(mean) < MEAN_SIGMAS * np.sqrt(1 / x.size) and abs(variance - 1) < VARIANCE_RTOL, (
        f"x_stats has mean {mean:.3g} and variance {variance:.4g}, expected a standard normal batch "
        f"(mean 0, variance 1); {keep}")
    for label in PLOT_INITS:
        assert label in networks, f"networks has no entry {label!r}; it has {sorted(networks)}"
        layers = networks[label]
        shapes = sorted({W.shape for W in layers})
        assert len(layers) == N_LAYERS and shapes == [(WIDTH, WIDTH)], (
            f"networks[{label!r}] has {len(layers)} weight matrices"
            + (f" of shape {', '.join(map(str, shapes))}" if layers else "")
            + f", expected {N_LAYERS} of shape ({WIDTH}, {WIDTH}); {keep}")
        wanted, text = _stated_variance(label)
        got = float(np.var(layers))
        if _variance_is_off(layers, wanted) and PLOT_INITS[label] is not None:
            own = _own_initialiser_variance(submission, label, rng)
            if own is not None and not _variance_is_off(layers, own):
                wanted = own
        worst = max(range(N_LAYERS), key=lambda l: abs(float(layers[l].var()) / wanted - 1))
        assert not _variance_is_off(layers, wanted), (
            f"networks[{label!r}]: the weights' variance is {got:.4g} (layer {worst + 1}: "
            f"{float(layers[worst].var()):.4g}), expected {text} = {wanted:.4g} for "
            f"{WIDTH} x {WIDTH} layers (within {VARIANCE_RTOL:.0%} over the network, "
            f"{LAYER_VARIANCE_RTOL:.0%} per layer); {keep}")
        mean = float(np.mean(layers))
        limit = MEAN_SIGMAS * np.sqrt(wanted / (N_LAYERS * WIDTH * WIDTH))
        assert abs(mean) < limit, (
            f"networks[{label!r}]: the weights' mean is {mean:.3g}, expected 0 (|mean| below "
            f"{limit:.2g}); {keep}")


@pytest.mark.task("activation_statistics")
def test_plot_shows_the_true_standard_deviations_of_networks(submission, rng, metrics):
    data = submission.probe("plot")
    panels = _panels(data)
    networks, x = data["networks"], data["x_stats"]
    assert_prescribed_experiment(submission, networks, x, rng)
    worst = 0.0
    for activation, (_, lines) in panels.items():
        for name, line in lines.items():
            assert name in networks, f"networks has no entry {name!r}; it has {sorted(networks)}"
            truth = activation_stds(networks[name], activation, x)
            got = line["y"]
            assert got.shape == truth.shape, (
                f"{activation!r} axes, line {name!r}: {got.size} values, expected {truth.size}, one "
                f"per layer of networks[{name!r}]")
            error = rel_error(got, truth)
            worst = metrics["max_rel_error"] = max(worst, error)
            i = int(np.argmax(np.abs(got - truth) / (np.abs(truth) + 1e-300)))
            assert error < RTOL, (
                f"{activation!r} axes, line {name!r}: layer {i + 1} shows {got[i]:.6g}, but the "
                f"standard deviation of h_{i + 1} for networks[{name!r}] and x_stats is {truth[i]:.6g}"
                + (misconception(got, truth, references.variants(
                    activation_stds, networks[name], activation, x), within(RTOL))
                   or ": plot activation_statistics(networks[name], activation, x_stats)[1]"))
