"""Mistakes derived from the reference's code (issue 30): autograder/references/derived.py makes
wrong versions of a reference by rewrite rules on its syntax tree, `ref.misconceptions.f(...)`
gives their values after the catalogue's, `checking.misconception` names one that a failing reply
equals (the catalogue first), and `checking.located` says where a reply that nothing names goes
wrong. A right answer, and an equivalent form that the checks accept, is never named."""
import ast
import math
import time

import numpy as np
import pytest

from autograder import references
from autograder.checks import optimizers as optimizer_checks
from autograder.checks import scalar_autodiff as scalar_checks
from autograder.grading.checking import LOCATED, NAMES, OR_NAMES, located, misconception, within
from autograder.references import derived, optimizers, wording
from autograder.reports.classreport import named_mistakes
from tests.test_nb06_optimizers import FORMS

ref = references.of("autograder.checks.dropout")
ADAM = {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8}
A, C = np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([1.0, -1.0])
CLOSE = within(1e-6)


def adam_paths(hyper=ADAM, n_steps=6):
    return optimizers.paths("adam_update", hyper, A, C, [np.array([0.5, -0.2])], n_steps)


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch):
    """Each test derives afresh: what an earlier one derived (`derived._kept`) is not reused."""
    monkeypatch.setattr(derived, "_kept", {})


def derived_adam(n_steps=6):
    return derived.derived(optimizers, "paths", ("adam_update", ADAM, A, C,
                                                 [np.array([0.5, -0.2])], n_steps), {})


def test_a_sign_flipped_in_the_reference_is_named_with_the_expression_it_changes():
    p = 0.3
    message = misconception(1 / (1 + p), ref.kept_scale(p), ref.misconceptions.kept_scale(p), CLOSE)
    assert message == NAMES + derived.DERIVED_WHY + \
        "a sign flipped: a sum where the right computation has a difference"


def test_the_catalogue_keeps_precedence_and_its_wording():
    """Not rescaling gives 1, which the derived 'division dropped' gives too: only the
    catalogue's entry is named."""
    p = 0.3
    variants = list(ref.misconceptions.kept_scale(p))
    assert any(id_.startswith(references.DERIVED) and value == 1 for id_, _, value in variants)
    [entry] = [m for m in references.catalogue("dropout") if m.id == "kept_not_rescaled"]
    assert misconception(1.0, ref.kept_scale(p), variants, CLOSE) == NAMES + entry.why


def test_swapped_hyperparameters_are_derived_and_named():
    swapped = adam_paths({**ADAM, "beta1": ADAM["beta2"], "beta2": ADAM["beta1"]})
    [expected] = adam_paths()
    message = misconception(swapped[0], expected, derived_adam(), CLOSE, part=0)
    assert "`beta1` and `beta2` swapped wherever they are used" in message, message


def test_two_hyperparameters_swapped_between_the_two_lines_that_use_them_are_named():
    """m averaged with beta2 and v with beta1 (the bias corrections right): a swap of the two
    moment lines, not of every use."""
    def adam_moments_swapped(theta, g, state, t, lr, beta1, beta2, eps):
        m = state["m"] = beta2 * state.get("m", 0.0) + (1 - beta2) * g
        v = state["v"] = beta1 * state.get("v", 0.0) + (1 - beta1) * g * g
        m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
        return theta - lr * m_hat / (np.sqrt(v_hat) + eps)
    [got] = optimizers._rule_paths(adam_moments_swapped, ADAM, A, C, [np.array([0.5, -0.2])], 6)
    [expected] = adam_paths()
    message = misconception(got, expected, derived_adam(), CLOSE, part=0)
    assert message == NAMES + derived.DERIVED_WHY + \
        "`beta1` and `beta2` swapped between the two lines that use them", message


@pytest.mark.parametrize("code, mean", [
    ("a @ b", "a @ b / a.shape[-1]"),
    ("np.dot(a, b)", "np.dot(a, b) / a.shape[-1]"),
    ("a.dot(b)", "a.dot(b) / a.shape[-1]"),
    ("np.tensordot(a, b, axes=2)", "np.tensordot(a, b, axes=2) / a.shape[a.ndim - 2]"),
])
def test_the_sum_a_product_of_arrays_takes_is_also_derived_as_a_mean(code, mean):
    node = ast.parse(code, mode="eval").body
    means = [ast.unparse(new) for why, new in derived._rules(node, {})
             if why == derived.CONTRACTION_MEAN]
    assert mean in means, means     # divided by the length of the (first) axis summed over


@pytest.mark.parametrize("code, regrouped", [
    ("a / (b * c)", "a / b * c"),                   # one level
    ("m / (1 - b ** t)", "m / 1 - b ** t"),         # the parentheses dropped
    ("1 - t ** 2", "(1 - t) ** 2"),                 # parentheses that change the order
    ("np.sqrt(6 / n)", "np.sqrt(6) / n"),           # a function of one operand only
    ("np.sqrt(2 / n)", "2 / np.sqrt(n)"),
])
def test_the_operations_are_regrouped_across_levels_and_calls(code, regrouped):
    node = ast.parse(code, mode="eval").body
    found = [ast.unparse(new) for why, new in derived._rules(node, {}) if "grouped" in why]
    assert regrouped in found, found


@pytest.mark.parametrize("code, axes", [
    ("x.sum(axis=0)", ["x.sum(axis=1)", "x.sum(axis=-1)", "x.sum(axis=None)"]),
    ("x.sum(axis=(0, 2, 3))", ["x.sum(axis=None)", "x.sum(axis=(2, 3))", "x.sum(axis=(0, 3))",
                               "x.sum(axis=(0, 2))"]),
])
def test_an_axis_or_a_tuple_of_axes_is_changed(code, axes):
    node = ast.parse(code, mode="eval").body
    assert [ast.unparse(new) for why, new in derived._rules(node, {})
            if why == "the axis changed"] == axes


def test_a_dropped_part_is_named_by_its_key_or_by_the_call_that_computes_it(monkeypatch):
    monkeypatch.setattr(derived, "_words", ["h = np.tanh(x @ W_x + b)"])
    function = ast.parse("def f(x, params):\n    s = np.sqrt(x)\n    return s * x").body[0]
    assert derived._part(ast.parse('params["b"]', mode="eval").body, function) == "`b`"
    assert derived._part(ast.parse('params["c"]', mode="eval").body, function) is None
    assert derived._part(ast.Name("s", ast.Load()), function) == "the value of a call of sqrt()"
    assert derived._part(ast.Name("x", ast.Load()), function) == "`x`"


def test_descends_mistakes_are_derived_from_its_reference():
    from autograder.references import optimisation_beyond_ml
    Q, c, z0 = np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([1.0, -1.0]), np.array([0.4, -0.2])
    right = optimisation_beyond_ml.gradient_steps(Q, c, z0, 0.1, 3)
    never_moved = [np.full(3, z0 @ Q @ z0 / 2 + c @ z0), z0]
    variants = derived.mutants(optimisation_beyond_ml, "gradient_steps", (Q, c, z0, 0.1, 3), {})
    assert NAMES in misconception(never_moved[0], right[0], variants, CLOSE, part=0)


def test_a_reply_of_another_shape_is_named_by_the_mistake_of_that_shape():
    from autograder.grading.checking import compare
    expected = np.array([1.0, 2.0, 3.0])
    mistakes = [["derived:f@m:1#0.axis", derived.DERIVED_WHY + "the axis changed", 6.0]]
    with pytest.raises(AssertionError) as failed:
        compare(np.array(6.0), expected, "dL/db", {}, tol=1e-9, mistakes=mistakes)
    assert str(failed.value) == "dL/db has shape (), expected (3,)" + NAMES + \
        derived.DERIVED_WHY + "the axis changed"
    with pytest.raises(AssertionError) as failed:          # no mistake of that value: located
        compare(np.array(5.0), expected, "dL/db", {}, tol=1e-9, mistakes=mistakes)
    assert NAMES not in str(failed.value) and "axis 0 (of length 3) is missing" in str(failed.value)


def test_a_kernel_gradient_averaged_over_the_batch_is_named_and_the_right_one_is_not():
    from autograder.references import convolution
    rng = np.random.default_rng(11)
    x, k, g = rng.normal(size=(3, 9)), rng.normal(size=4), rng.normal(size=(3, 6))
    right = convolution.conv(x, k, g)
    variants = [[id_, why, value["k"]] for id_, why, value in
                derived.mutants(convolution, "conv", (x, k, g), {})
                if isinstance(value, dict) and "k" in value]
    assert misconception(right["k"] / 3, right["k"], variants, CLOSE) == \
        NAMES + derived.DERIVED_WHY + derived.CONTRACTION_MEAN
    by_rows = sum(np.correlate(x[b], g[b], "valid") for b in range(3))     # an honest other form
    assert np.allclose(by_rows, right["k"])
    assert misconception(by_rows, right["k"], variants, CLOSE) == ""


def test_a_mutant_within_the_checks_tolerance_of_the_right_answer_is_never_named():
    """eps's sign flipped in Adam moves its path by about 1e-8 relative: a right reply, at the
    check's tolerance (1e-6 here), equals it, and is not named for it."""
    [expected] = adam_paths()
    variants = derived_adam()
    assert any(CLOSE(value[0], expected) for _, _, value in variants)
    assert misconception(expected, expected, variants, CLOSE, part=0) == ""
    assert misconception(expected * (1 + 1e-9), expected, variants, CLOSE, part=0) == ""


def test_two_mistakes_of_one_value_are_both_named():
    variants = [["derived:f.1", derived.DERIVED_WHY + "first", 2.0],
                ["derived:f.2", derived.DERIVED_WHY + "second", 2.0]]
    assert misconception(2.0, 1.0, variants, CLOSE) == \
        NAMES + derived.DERIVED_WHY + "first" + OR_NAMES + derived.DERIVED_WHY + "second"


@pytest.mark.parametrize("rule", sorted(FORMS))
def test_no_equivalent_form_of_an_optimizer_is_named(rule):
    """Each equivalent form that 06's checks accept, run as the probe runs a student's rule, at
    the check's own per-step tolerance: no derived mistake is named."""
    rng = np.random.default_rng(30)
    problem = optimizer_checks.quadratic(rng, False)
    hyper = optimizer_checks.hyperparameters(rule, rng, problem["cond"])
    starts, n_steps = [optimizer_checks.start(rng, problem)], 12
    args = (rule, hyper, problem["A"], problem["c"], starts, n_steps)
    [expected] = optimizers.paths(*args)
    [tolerance] = optimizer_checks._tolerances(rule, hyper, problem, starts, n_steps)
    variants = derived.derived(optimizers, "paths", args, {})
    assert variants, "the reference has mutants here"
    for form in FORMS[rule]:
        [got] = optimizers._paths(lambda th, g, s, t: form(th, g, s, **hyper), problem["A"],
                                  problem["c"], starts, n_steps)
        message = misconception(got, expected, variants,
                                lambda a, b: optimizer_checks._within(a, b, tolerance), part=0)
        assert NAMES not in message, (form.__name__, message)


def test_mutants_are_bounded_in_number(monkeypatch):
    monkeypatch.setattr(derived, "LIMIT", 3)
    assert len(derived_adam()) <= 3


def test_derived_mistakes_are_computed_only_when_a_message_reads_them(monkeypatch):
    calls = []
    real = derived.derived
    monkeypatch.setattr(derived, "derived", lambda *a: calls.append(a[1]) or real(*a))
    mistakes = ref.misconceptions.kept_scale(0.25)
    assert calls == [], "a right reply computes no mutant"
    assert misconception(1.0, ref.kept_scale(0.25), mistakes, CLOSE).startswith(NAMES)
    assert calls == [], "a reply that the catalogue names computes no mutant"
    assert any(id_.startswith(references.DERIVED) for id_, _, _ in mistakes)
    assert calls == ["kept_scale"]


def test_derived_mistakes_are_recorded_and_replayed_for_the_self_check():
    with references.record() as cases:
        recorded = ref.misconceptions.kept_scale(0.4)
    with references.replay(cases):
        replayed = ref.misconceptions.kept_scale(0.4)
    assert [why for _, why, _ in replayed] == [why for _, why, _ in recorded]
    assert any(why.startswith(derived.DERIVED_WHY) for _, why, _ in replayed)
    assert misconception(1 / 1.4, ref.kept_scale(0.4), replayed, CLOSE).startswith(
        NAMES + derived.DERIVED_WHY)


def test_the_class_report_counts_a_derived_mistake_by_its_mutation():
    why = derived.DERIVED_WHY + "a sign flipped: a sum where the right computation has a difference"
    message = "kept_scale(0.3): expected 1.42857, received 0.769231" + NAMES + why
    assert named_mistakes(message, known=[]) == [why]
    other_inputs = "kept_scale(0.7): expected 3.33333, received 0.588235" + NAMES + why
    assert named_mistakes(other_inputs, known=[]) == named_mistakes(message, known=[])


# -- located: what cannot be named -----------------------------------------------------------------
def test_a_constant_factor_is_located():
    expected = np.arange(1.0, 7.0).reshape(2, 3)
    assert located(-2 * expected, expected) == \
        LOCATED + ": every received value is -2 times the expected one."
    assert located(3.3163211e-12, 3.3163211) == \
        LOCATED + ": every received value is 1e-12 times the expected one."


def test_a_transpose_is_located():
    expected = np.arange(9.0).reshape(3, 3) ** 2
    assert located(expected.T, expected) == \
        LOCATED + ": the received array is the expected one transposed."


def test_one_wrong_column_is_located_at_its_first_entry():
    expected = np.arange(1.0, 13.0).reshape(3, 4) ** 2
    got = expected.copy()
    got[:, 2] *= 1.5
    got[0, 0] = expected[0, 0]
    assert located(got, expected) == (
        LOCATED + " is at index [0, 2]: expected 9, received 13.5; 3 of 12 entries differ, "
        "all at index 2 along axis 1.")


def test_the_first_diverging_item_of_a_path_list_is_located():
    expected = [np.ones((3, 2)), np.arange(6.0).reshape(3, 2) ** 2]
    got = [expected[0], expected[1].copy()]
    got[1][2, 1] = np.nan
    assert located(got, expected, CLOSE) == \
        LOCATED + " is in item 1, a non-finite value (nan) at index [2, 1]."


def test_a_message_that_names_nothing_locates_instead():
    p = 0.3
    message = misconception(5.0, ref.kept_scale(p), ref.misconceptions.kept_scale(p), CLOSE)
    assert message.startswith(LOCATED), message


# -- mutants of the library the references compute with (dp) ---------------------------------------
def test_the_two_local_derivatives_of_a_product_swapped_are_named():
    """At 01's own comparison (checks.scalar_autodiff.CLOSE): 01's d(a b)/da = a, d(a b)/db = b: a mutant of dp's product, which binary() runs."""
    scalar = references.of("autograder.checks.scalar_autodiff")
    a, b = 1.5, 2.5
    expected = scalar.binary("mul", a, b)
    message = misconception([a * b, [a, b]], expected, scalar.misconceptions.binary("mul", a, b),
                            scalar_checks.CLOSE)
    assert message.startswith(NAMES + derived.DERIVED_WHY + (
        "the two local derivatives d/da = b and d/db = a of a * b (elementwise) swapped")), message
    assert "lambda" not in message and "g *" not in message      # no reference code quoted


def test_mutating_the_library_leaves_the_library_itself_unchanged():
    from autograder.references import scalar_autodiff
    before = scalar_autodiff.program_gradients([["mul", 0, 1], ["tanh", 2], ["mul", 3, 0]],
                                               [0.5, 1.5])
    assert derived.mutants(scalar_autodiff, "program_gradients",
                           ([["mul", 0, 1], ["tanh", 2], ["mul", 3, 0]], [0.5, 1.5]), {})
    assert scalar_autodiff.program_gradients([["mul", 0, 1], ["tanh", 2], ["mul", 3, 0]],
                                             [0.5, 1.5]) == before


def _conv2d_case():
    rng = np.random.default_rng(3)
    return (rng.normal(size=(2, 2, 6, 5)), rng.normal(size=(3, 2, 3, 2)), rng.normal(size=3), 2, 1,
            rng.normal(size=(2, 3, 3, 3)))


def test_a_library_function_the_reference_reaches_through_its_package_is_mutated():
    """`dp.conv2d(...)`: the mutant takes the function's place in the package and in every module
    of the library for the call (not only in the reference's own names), and leaves it after."""
    import dp
    from autograder.references import convolutional_networks
    original, args = dp.conv2d, _conv2d_case()
    right = convolutional_networks.conv(*args)
    found = derived.mutants(convolutional_networks, "conv", args, {})
    assert any("@dp.conv:" in id_ for id_, _, _ in found), [id_ for id_, _, _ in found]
    # the weights' gradient averaged over the batch: dp.conv2d's sum over the images as a mean
    assert any(np.allclose(value["w"], right["w"] / 2) for _, _, value in found)
    assert dp.conv2d is original and dp.conv.conv2d is original
    assert all(np.array_equal(v, right[k]) for k, v in convolutional_networks.conv(*args).items())


def test_a_reference_too_slow_to_trace_in_the_time_bound_gets_no_mutants(monkeypatch):
    monkeypatch.setattr(derived, "TRACE", 1e-9)
    assert derived_adam() == []


def test_the_same_reference_call_is_derived_once_unless_a_bound_of_time_cut_it_short(monkeypatch):
    """Grading a task and wording its messages ask for the same mutants again: the process
    derives them once. An answer cut short by the task's time is not kept: the next call, with
    time, derives the whole list."""
    forks, derive = [], derived._derive
    monkeypatch.setattr(derived, "_derive", lambda *args: forks.append(args) or derive(*args))
    first = derived_adam()
    assert first and derived_adam() == first and len(forks) == 1
    assert len(derived_adam(n_steps=5)[0][2][0]) != len(first[0][2][0]) and len(forks) == 2
    monkeypatch.setattr(derived, "_kept", {})
    with monkeypatch.context() as short_of_time:
        short_of_time.setattr(derived, "SECONDS", 1e-4)
        short = derived_adam()
    named = [(id_, why) for id_, why, _ in first]
    assert len(short) < len(first) and [(i, w) for i, w, _ in derived_adam()] == named
    assert derived_adam() is derived_adam() and len(forks) == 4


def test_a_mutant_that_takes_all_memory_or_never_ends_costs_nothing_but_itself(monkeypatch):
    """The mutants run in a forked child with a bounded address space and time: one that
    allocates 8 GiB, or sleeps, gives no mutants, and the grader carries on."""
    monkeypatch.setattr(derived, "_search", lambda *args: (np.ones(1 << 30).tolist(), True))
    assert derived_adam() == []
    monkeypatch.setattr(derived, "_search", lambda *args: time.sleep(60))
    monkeypatch.setattr(derived, "SECONDS", 0.5)
    started = time.monotonic()
    assert derived_adam() == []
    assert time.monotonic() - started < 5


# -- worded by role, in the exercise's own words ----------------------------------------------------
def test_a_name_is_quoted_only_where_the_released_exercise_has_it(monkeypatch):
    import ast
    monkeypatch.setattr(derived, "_words", ["def step(velocity, lr):"])
    assert derived._quote(ast.parse("velocity", mode="eval").body) == "`velocity`"
    assert derived._quote(ast.parse("keep", mode="eval").body) == "a name"
    assert derived._quote(ast.parse("lr_decay", mode="eval").body) == "a name"


def _quoted(explanations) -> set:
    import re
    return {q for why in explanations for q in re.findall(r"`([^`]*)`", why)}


@pytest.mark.parametrize("notebook, name, args", [
    ("scalar_autodiff", "binary", ("div", 1.3, -1.4)),
    ("scalar_autodiff", "unary", ("log", 0.3)),
    ("optimizers", "paths", ("adam_update", ADAM, A, C, [np.array([0.5, -0.2])], 4)),
    ("optimisation_beyond_ml", "catenary_loss", (np.array([-0.2, -0.35, -0.3, -0.15]), 1.1)),
    ("dropout", "kept_scale", (0.3,)),
])
def test_every_quoted_fragment_of_a_derived_explanation_is_in_the_released_exercise(
        notebook, name, args):
    """What a student receives may quote only what their own exercise holds: the explanations
    reach the feedback and the public cases of the bundle."""
    import importlib
    from autograder.references import wording
    module = importlib.import_module(f"autograder.references.{notebook}")
    found = derived.mutants(module, name, args, {})
    assert found
    words = wording.vocabulary(notebook)
    assert words, f"no released exercise for {notebook}"
    quoted = _quoted(why for _, why, _ in found)
    assert all(wording.quotable(q, words) for q in quoted), sorted(quoted)


def _scalar_named(function, got, *args):
    scalar = references.of("autograder.checks.scalar_autodiff")
    expected = getattr(scalar, function)(*args)
    return misconception(got, expected, getattr(scalar.misconceptions, function)(*args),
                         scalar_checks.CLOSE)


def test_a_reciprocal_left_out_is_named_as_such_in_its_local_derivative():
    x = 0.3
    message = _scalar_named("unary", [np.log(x), [x]], "log", x)
    assert message == NAMES + derived.DERIVED_WHY + (
        "in the local derivative d/da = 1/a of ln a: the reciprocal dropped: the value itself "
        "where 1 over it belongs"), message


def test_a_product_of_a_value_with_itself_without_a_factor_is_the_square_dropped():
    """(01's tanh, 1 - out * out, has a catalogue entry for this: the rule is shown on its own.)"""
    import ast
    from autograder.references import wording
    square = ast.parse("1 - out * out", mode="eval").body.right
    assert wording.reworded("a factor dropped", square, square.left) == wording.SQUARE
    product = ast.parse("out * other", mode="eval").body
    assert wording.reworded("a factor dropped", product, product.left) == "a factor dropped"


def _as_read(found) -> list:
    """derived's [[id, why, value]] as `ref.misconceptions` gives them: ids prefixed DERIVED."""
    return [[references.DERIVED + id_, why, value] for id_, why, value in found]


def _catenary(z, length, dx=None, root=True):
    """The catenary's loss as 10's notebook writes it, with dx = 1/(n - 1) or the given one."""
    y = np.concatenate([[0.0], z, [0.0]])
    dx = 1.0 / (len(z) + 1) if dx is None else dx
    squares = np.diff(y) ** 2 + dx ** 2
    s = np.sqrt(squares) if root else squares
    return (s.sum() - length) ** 2 + (s * (y[1:] + y[:-1]) / 2).sum()


@pytest.mark.parametrize("mistake, kwargs, words", [
    ("a 1 dropped from the count of intervals", {"dx": 0.25}, "off by one"),
    ("the segment's root dropped", {"root": False}, "the square root dropped"),
])
def test_catenary_mistakes_are_named_by_what_they_do(mistake, kwargs, words):
    """With the words of what the change does (off by one, a root dropped), and only those of
    the simplest change of its line: squaring what a root is taken of gives the same value,
    and defers to the root dropped."""
    from autograder.checks.optimisation_beyond_ml import _same_loss
    from autograder.references import optimisation_beyond_ml
    z, length = np.array([-0.2, -0.35, -0.3, -0.15]), 1.1
    assert np.isclose(_catenary(z, length), optimisation_beyond_ml.catenary_loss(z, length)[0])
    variants = _as_read(derived.derived(optimisation_beyond_ml, "catenary_loss", (z, length), {}))
    message = misconception(_catenary(z, length, **kwargs),
                            optimisation_beyond_ml.catenary_loss(z, length)[0], variants,
                            _same_loss, part=0)
    assert message.startswith(NAMES) and words in message, (mistake, message)
    assert "a square added" not in message, message


def test_a_state_never_written_back_is_named_as_stale_state():
    """Momentum whose velocity is not kept between steps: each step's v is (1 - beta) g alone,
    which is the reference with the term that reads the stored v dropped."""
    hyper = {"lr": 0.1, "beta": 0.9}
    args = ("momentum_update", hyper, A, C, [np.array([0.5, -0.2])], 6)
    [expected] = optimizers.paths(*args)
    [got] = optimizers._paths(lambda th, g, s, t: th - hyper["lr"] * (1 - hyper["beta"]) * g,
                              A, C, [np.array([0.5, -0.2])], 6)
    message = misconception(got, expected, _as_read(derived.derived(optimizers, "paths", args, {})),
                            CLOSE, part=0)
    assert message == NAMES + derived.DERIVED_WHY + (
        "the state kept from the previous step left out of the update, as if it were never "
        "written back (each step starts again without it)"), message


# -- which derived mistakes are named ---------------------------------------------------------------
def _variant(line: int, rank: int, kind: str, why: str, value=2.0) -> list:
    return [f"{references.DERIVED}f.m.{line}{references.SITE}m:{line}{references.RANK}{rank}.{kind}",
            derived.DERIVED_WHY + why, value]


def test_unrelated_changes_on_three_lines_that_give_the_reply_name_none_and_locate_it():
    variants = [_variant(1, 1, "dropped", "a term dropped"), _variant(2, 0, "other-order", "two "
                "lines in the other order"), _variant(3, 0, "sign", "a sign flipped")]
    message = misconception(np.array([2.0, 4.0]), np.array([1.0, 2.0]),
                            [[i, w, np.array([2.0, 4.0])] for i, w, _ in variants], CLOSE)
    assert message == LOCATED + ": every received value is 2 times the expected one."
    assert misconception(2.0, 1.0, variants[:2], CLOSE) == \
        NAMES + derived.DERIVED_WHY + "two lines in the other order" + OR_NAMES + \
        derived.DERIVED_WHY + "a term dropped", "two lines: both, the simplest change first"


def test_one_change_made_on_three_lines_is_named():
    variants = [_variant(n, 0, "swapped", f"swapped on line {n}") for n in (1, 2, 3)]
    assert misconception(2.0, 1.0, variants, CLOSE) == NAMES + derived.DERIVED_WHY + \
        "swapped on line 1" + OR_NAMES + derived.DERIVED_WHY + "swapped on line 2"


def test_each_of_two_lines_that_give_the_reply_is_named_before_a_second_change_of_one():
    variants = [_variant(4, 0, "left-out", "a line left out"),
                _variant(4, 0, "other-order", "two lines in the other order"),
                _variant(9, 0, "sign", "a minus sign dropped")]
    assert misconception(2.0, 1.0, variants, CLOSE) == NAMES + derived.DERIVED_WHY + \
        "a line left out" + OR_NAMES + derived.DERIVED_WHY + "a minus sign dropped"


def test_of_the_changes_of_one_line_that_give_the_reply_the_simplest_is_named():
    variants = [_variant(7, 2, "square", "a square added"),
                _variant(7, 0, "square-root", "the square root dropped")]
    assert misconception(2.0, 1.0, variants, CLOSE) == \
        NAMES + derived.DERIVED_WHY + "the square root dropped"


# -- the shape of a difference ---------------------------------------------------------------------
@pytest.mark.parametrize("got, expected, sentence", [
    ((5, 1), (1, 5), ": the received shape is the expected one transposed."),
    ((9,), (10,), ", along axis 0 only: 9 entries, expected 10 (one too few, off by one)."),
    ((2, 11), (2, 9), ", along axis 1 only: 11 entries, expected 9 (2 too many)."),
    ((), (3,), ": axis 0 (of length 3) is missing: summed over, or dropped."),
    ((1000, 10), (1000,), ": an extra axis 1, of length 10."),
    ((1, 2, 2, 2), (1, 2, 3, 3),
     ", along axes 2 and 3: 2 and 2 entries, expected 3 and 3 (one too few on each, off by one)."),
    ((1, 3, 0, 0), (1, 3, 6, 5), ", along axes 2 and 3: 0 and 0 entries, expected 6 and 5 (empty)."),
    ((4, 7, 2), (3, 4, 5), ", along axes 0, 1 and 2: 4, 7 and 2 entries, expected 3, 4 and 5."),
    ((1, 6, 5, 3), (1, 3, 6, 5), ": it has the expected lengths of the axes, in another order."),
    ((), (1, 3), ": one number, where every axis (of lengths 1 and 3) belongs: summed over, or "
                 "dropped."),
    ((3,), (2, 3, 4), ": axes 0 and 2 (of lengths 2 and 4) are missing: summed over, or dropped."),
    ((2, 4, 1, 1), (2, 4), ": extra axes 2 and 3, of lengths 1 and 1."),
])
def test_a_wrong_shape_is_located_by_how_it_departs(got, expected, sentence):
    from autograder.grading.checking import shape_located
    assert shape_located(got, expected) == LOCATED + " is in the shape" + sentence
    assert located(np.zeros(got), np.ones(expected)) == LOCATED + " is in the shape" + sentence


def test_shapes_of_other_ranks_that_no_one_axis_explains_are_not_located():
    from autograder.grading.checking import shape_located
    assert shape_located((8,), (2, 4)) == "" and shape_located((2, 3, 4), (6, 5)) == ""
    assert shape_located((4, 4), (4, 4)) == ""


def test_derived_ids_are_written_in_the_format_that_checking_reads():
    assert (derived.SITE, derived.RANK) == (references.SITE, references.RANK)


# -- a dropped or swapped part is named by its name, or the mistake is not named -------------------
def _explained(code: str, words: str, why: str, new_of) -> tuple:
    """derived._explained of the mutation new_of(old) of the value of the assignment `code`, in
    an exercise whose text is `words`."""
    statement = ast.parse(code).body[0]
    old = statement.value
    derived._words[0] = words
    try:
        return derived._explained(statement, [("value", None)], old, new_of(old), why)
    finally:
        derived._words[0] = ""


def test_a_dropped_term_is_named_by_its_name_when_the_exercise_has_it():
    assert _explained("y = a + rate", "y = a + rate", "a term dropped", lambda old: old.left) == \
        ("in the line that computes `y`: a term dropped (`rate`)", 1)
    assert _explained("y = a / rate", "y a rate", "the division dropped", lambda old: old.left) \
        == ("in the line that computes `y`: the division dropped (`rate`)", 1)


def test_a_dropped_part_that_only_its_kind_describes_is_opaque():
    """The exercise has no name for what was dropped: 'a term dropped: a name where the right
    computation has a sum' tells a student nothing, and is ranked never to be named."""
    why, rank = _explained("y = a + secret", "y", "a term dropped", lambda old: old.left)
    assert why == "in the line that computes `y`: a term dropped: a name where the right " \
                  "computation has a sum" and rank == references.OPAQUE == wording.OPAQUE


def test_two_swapped_values_are_named_by_their_names_or_are_opaque():
    swap = lambda old: ast.Tuple([old.elts[1], old.elts[0]], ast.Load())    # noqa: E731
    assert _explained("y = (w, b)", "y w b", "two values swapped", swap) == \
        ("in the line that computes `y`: two values swapped (`w` and `b`)", 0)
    assert _explained("y = (w * 2, b)", "y w b", "two values swapped", swap)[1] == references.OPAQUE


def test_an_opaque_change_is_not_named_and_the_reply_is_located():
    message = misconception(np.array([2.0, 4.0]), np.array([1.0, 2.0]),
                            [_variant(5, references.OPAQUE, "dropped", "a term dropped: x", 0)
                             [:2] + [np.array([2.0, 4.0])]], CLOSE)
    assert message == LOCATED + ": every received value is 2 times the expected one."


def test_an_opaque_change_counts_among_the_lines_that_give_the_reply():
    """Two lines give the reply by changes of other kinds, and a third by an opaque one: three
    unrelated explanations of one value name none of them."""
    variants = [_variant(1, 0, "sign", "a sign flipped"), _variant(2, 0, "swapped", "swapped"),
                _variant(3, references.OPAQUE, "dropped", "a term dropped: x")]
    assert NAMES not in misconception(2.0, 1.0, variants, CLOSE)
    assert misconception(2.0, 1.0, variants[:2], CLOSE) == NAMES + derived.DERIVED_WHY + \
        "a sign flipped" + OR_NAMES + derived.DERIVED_WHY + "swapped"


def test_the_vocabulary_is_the_exercises_code_and_what_its_text_quotes(tmp_path, monkeypatch):
    """A name in the prose only ("the two terms", "Oktay, D.", "the rope's") is no name of the
    student's code: not quotable; one in a code cell, in backquotes or in $math$ is."""
    import json
    folder = tmp_path / "99_words"
    folder.mkdir()
    prose = "The two terms of D. Oktay's rope: `scale` and $s_t$.\n"
    cells = [{"cell_type": "markdown", "source": [prose]},
             {"cell_type": "code", "source": ["def f(x):\n", "    \"\"\"v_hat = v / c\"\"\"\n"]}]
    (folder / "words.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    monkeypatch.setattr(wording, "EXERCISES", tmp_path)
    monkeypatch.setattr(wording, "_texts", {})
    words = wording.vocabulary("words")
    assert [name for name in ("scale", "s_t", "f", "x", "v_hat", "terms", "D", "Oktay", "s", "rope")
            if wording.quotable(name, words)] == ["scale", "s_t", "f", "x", "v_hat"]


# -- general causes of mistakes located but not named ---------------------------------------------
def reference_module(tmp_path, monkeypatch, name: str, source: str):
    """A reference module written from `source` (derived.py mutates the source of a module)."""
    import importlib
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def test_a_mutant_that_returns_a_string_where_the_reference_returns_an_array_ends_no_search(
        tmp_path, monkeypatch):
    """`pick(...)[1]` off by one gives the string; the search goes on to the other mutants."""
    module = reference_module(tmp_path, monkeypatch, "string_mutant", (
        "import numpy as np\n\n\n"
        "def pick(x):\n"
        "    return [np.sqrt(x), 'name'][0] * 2\n"))
    found = derived.mutants(module, "pick", (np.array([4.0, 9.0]),), {})
    assert any(np.allclose(value, [2.0, 3.0]) for _, _, value in found), found
    assert derived._equal("name", np.ones(2)) is False and derived._equal("a", "a") is True


@pytest.mark.parametrize("code, other", [
    ("np.log(x)", "np.log10(x)"), ("math.log(x)", "math.log2(x)"), ("np.exp(x)", "np.exp2(x)"),
    ("log10(x)", "log(x)"),
])
def test_a_logarithm_to_another_base_or_a_power_of_two_is_derived(code, other):
    node = ast.parse(code, mode="eval").body
    assert other in [ast.unparse(new) for why, new in derived._rules(node, {})
                     if why == derived.ANOTHER_FUNCTION]


def test_a_logarithm_to_another_base_is_named_by_the_function_taken():
    from autograder.references import scalar_autodiff
    x = 0.4
    got = [math.log10(x), [1 / x]]      # the value to base 10, the derivative by hand as 1/x
    message = misconception(got, scalar_autodiff.unary("log", x),
                            derived.mutants(scalar_autodiff, "unary", ("log", x), {}),
                            scalar_checks.CLOSE)
    assert message == NAMES + derived.DERIVED_WHY + derived.ANOTHER_FUNCTION + \
        ": a call of log10() where the right computation has a call of log()", message


def test_each_form_a_reference_is_written_in_computes_the_references_value():
    from autograder.references import scalar_autodiff
    for op in ("add", "sub", "mul", "div"):
        for number in (None, "left", "right"):
            assert scalar_checks.CLOSE(scalar_autodiff.binary_written(op, 1.3, -0.7, number),
                                       scalar_autodiff.binary(op, 1.3, -0.7, number))
    for fn in ("neg", "exp", "log", "tanh", "sigmoid"):
        assert scalar_checks.CLOSE(scalar_autodiff.unary_written(fn, 0.8),
                                   scalar_autodiff.unary(fn, 0.8))
    for function in scalar_checks.FUNCTIONS:
        assert scalar_checks.CLOSE(scalar_autodiff.derivative_written(function, 0.8),
                                   scalar_autodiff.derivative(function, 0.8))


@pytest.mark.parametrize("call, got, words", [
    (("binary", "div", 1.4, -0.6), [1.4 / -0.6, [1 / -0.6, -1.4 / -0.6]],
     "in the local derivative d/db = -a/b^2 of a / b: the square dropped"),
    (("unary", "tanh", -0.9), [math.tanh(-0.9), [(1 - math.tanh(-0.9)) ** 2]],
     "in the local derivative d/da = 1 - tanh^2 a of tanh a: " + derived.PRECEDENCE),
    (("derivative", "exp", 0.8), (math.exp(0.8 + 1e-6) - math.exp(0.8 - 1e-6)) / 2 * 1e-6,
     derived.PRECEDENCE),
])
def test_a_slip_in_a_formula_as_the_exercise_writes_it_is_named(call, got, words):
    """dp's division has d/db = -g out / b, with no square to drop, and 01's reference of a
    derivative is dp's exact one, with no central difference: their forms as the exercise writes
    them (`forms`) are mutated too."""
    scalar = references.of("autograder.checks.scalar_autodiff")
    name, *args = call
    message = misconception(got, getattr(scalar, name)(*args),
                            getattr(scalar.misconceptions, name)(*args), scalar_checks.CLOSE)
    assert message.startswith(NAMES + derived.DERIVED_WHY + words), message
    assert OR_NAMES not in message


@pytest.mark.parametrize("code, regrouped", [
    ("(1 - x).log()", ["1 - x.log()"]),                 # the constant takes no method
    ("(a / b).exp()", ["a.exp() / b", "a / b.exp()"]),
    ("np.sqrt(a / b)", ["np.sqrt(a) / b", "a / np.sqrt(b)"]),
])
def test_a_function_or_method_of_an_operation_is_taken_of_one_operand(code, regrouped):
    node = ast.parse(code, mode="eval").body
    assert [ast.unparse(new) for why, new in derived._rules(node, {})
            if why.startswith(derived.PRECEDENCE)] == regrouped


def test_a_sign_flipped_in_a_term_that_the_references_guards_hide_is_named():
    """`bce` keeps (1 - y) log(1 - p) only where y < 1, where 1 + y is the same: only its form as
    the exercise writes it (`forms`) gives the slip a value of its own."""
    from autograder.checks.activation_functions import BCE_RTOL
    activation = references.of("autograder.checks.activation_functions")
    rng = np.random.default_rng(4)
    p, y = rng.uniform(0.02, 0.98, (12, 1)), (rng.random((12, 1)) < 0.5).astype(float)
    got = float(-(y * np.log(p) + (1 + y) * np.log(1 - p)).mean())
    right = activation.bce(p, y)
    written = activation.bce_written(p, y)
    assert np.isclose(written[0], right[0]) and np.allclose(written[1], right[1])
    message = misconception(got, right[0], activation.misconceptions.bce(p, y), within(BCE_RTOL),
                            part=0)
    assert message == NAMES + derived.DERIVED_WHY + "in the line that computes `loss`: " \
        "a sign flipped: a sum where the right computation has a difference", message


def test_a_slip_in_a_closed_form_gradient_is_named_where_the_reference_uses_autodiff():
    """08's reference differentiates dp.BatchNorm by dp's backprop: its form as the exercise
    writes it (`forms`), the closed form, is mutated too."""
    from autograder.checks.batch_normalisation import TOL, rel_error
    batchnorm = references.of("autograder.checks.batch_normalisation")
    rng = np.random.default_rng(8)
    x, dy = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    gamma, beta, eps = rng.normal(size=(1, 3)), rng.normal(size=(1, 3)), 1e-5
    right = batchnorm.gradients(x, gamma, beta, eps, dy)
    written = batchnorm.gradients_written(x, gamma, beta, eps, dy)
    assert all(np.allclose(written[k], right[k]) for k in right)
    mean, std = x.mean(axis=0, keepdims=True), x.std(axis=0, keepdims=True)
    x_hat, g = (x - mean) / np.sqrt(std ** 2 + eps), gamma * dy
    got = (g - g.mean(axis=0, keepdims=True) - x_hat * (g * x_hat).mean(axis=1, keepdims=True)) / \
        np.sqrt(std ** 2 + eps)
    message = misconception(got, right["dx"], batchnorm.misconceptions.gradients(
        x, gamma, beta, eps, dy), within(TOL, rel_error), part="dx")
    assert message.startswith(NAMES + derived.DERIVED_WHY + "in the line that computes `dx`: "
                              "the axis changed"), message
    assert OR_NAMES not in message


def test_a_local_derivative_of_the_input_where_it_takes_the_output_is_named():
    """tanh' = 1 - tanh^2 a, written with the operation's output: taken of the input a instead."""
    scalar = references.of("autograder.checks.scalar_autodiff")
    x = 0.7
    message = misconception([math.tanh(x), [1 - x ** 2]], scalar.unary("tanh", x),
                            scalar.misconceptions.unary("tanh", x), scalar_checks.CLOSE)
    assert message.startswith(NAMES + derived.DERIVED_WHY + "in the local derivative d/da = "
                              "1 - tanh^2 a of tanh a: " + derived.INPUT_FOR_RESULT), message


def test_the_input_for_the_result_replaces_every_use_in_one_local_derivative_only():
    function = ast.parse("def f(a):\n    out = np.exp(a) + 1\n"
                         "    return out, (lambda: out * (1 - out), lambda: out)").body[0]
    [first] = [n for n in ast.walk(function) if isinstance(n, ast.Lambda)][:1]
    assert [ast.unparse(new) for _, new in derived._input_for_result(
        first, derived._results(function))] == ["lambda: a * (1 - a)"]


def test_a_quotient_multiplied_instead_is_derived():
    node = ast.parse("m / (1 - b)", mode="eval").body
    assert "m * (1 - b)" in [ast.unparse(new) for why, new in derived._rules(node, {})
                             if why == derived.DIVISION_AS_PRODUCT]


def test_one_use_of_a_hyperparameter_read_as_another_is_named():
    """m's bias correction with beta2, the rest right."""
    def adam_m_corrected_with_beta2(theta, g, state, t, lr, beta1, beta2, eps):
        m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
        v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
        m_hat, v_hat = m / (1 - beta2 ** t), v / (1 - beta2 ** t)
        return theta - lr * m_hat / (np.sqrt(v_hat) + eps)
    [got] = optimizers._rule_paths(adam_m_corrected_with_beta2, ADAM, A, C,
                                   [np.array([0.5, -0.2])], 6)
    [expected] = adam_paths()
    message = misconception(got, expected, derived_adam(), CLOSE, part=0)
    assert message == NAMES + derived.DERIVED_WHY + "`beta2` where `beta1` belongs, in one place", \
        message


def test_a_slip_in_a_vector_jacobian_product_as_the_notebook_writes_it_is_named():
    """dp's softmax sums along `axis`, a name no rule changes; 02's VJPs, as its notebook writes
    them (`forms`), sum along axis 1: a student's axis 0 is named."""
    from autograder.checks import matrix_autodiff as matrix_checks
    from autograder.references import matrix_autodiff
    rng = np.random.default_rng(2)
    a, upstream, program = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), [["softmax", 0]]
    right = matrix_autodiff.gradients([a], program, upstream)
    assert np.allclose(matrix_autodiff.gradients_written([a], program, upstream)[0], right[0])
    s = np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)
    got = s * (upstream - (upstream * s).sum(axis=0, keepdims=True))
    message = misconception(got, right[0], references.of("autograder.checks.matrix_autodiff")
                            .misconceptions.gradients([a], program, upstream),
                            lambda x, y: matrix_checks.same(x, y), part=0)
    assert message.startswith(NAMES + derived.DERIVED_WHY + "the axis changed"), message


def test_a_dropped_number_is_named_by_its_value_where_the_exercise_writes_it(monkeypatch):
    monkeypatch.setattr(derived, "_words", ["height = (y_i + y_(i+1)) / 2"])
    function = ast.parse("def f(y):\n    return (y[1:] + y[:-1]) / 2").body[0]
    assert derived._part(ast.Constant(2), function) == "`2`"
    assert derived._part(ast.Constant(7), function) is None
    assert derived._part(ast.Constant(True), function) is None


def test_a_division_by_a_number_dropped_is_named_as_the_factor_it_leaves_out():
    node = ast.parse("(a + b) / 2", mode="eval").body
    assert wording.reworded("the division dropped", node, node.left) == \
        "a factor 1/2 dropped: the division by 2 is missing"
    assert wording.reworded("the division dropped", ast.parse("a / 1", mode="eval").body,
                            None) == "the division dropped"


def _recurrent_case():
    rng = np.random.default_rng(12)
    x, h_init, dH = rng.normal(size=(4, 2, 3)), rng.normal(size=(2, 5)), rng.normal(size=(4, 2, 5))
    params = {"W_x": rng.normal(size=(3, 5)) / 2, "W_h": rng.normal(size=(5, 5)) / 3,
              "b": rng.normal(size=(1, 5))}
    return x, params, h_init, dH


def test_the_forms_of_10_and_12_compute_their_references_values():
    from autograder.references import optimisation_beyond_ml as catenary, recurrent_networks
    z = np.array([-0.1, -0.25, -0.2, -0.05])
    written, right = catenary.catenary_loss_written(z, 1.1), catenary.catenary_loss(z, 1.1)
    assert np.isclose(written[0], right[0]) and np.allclose(written[1], right[1])
    args = _recurrent_case()
    written, right = (recurrent_networks.unrolled_gradients_written(*args),
                      recurrent_networks.unrolled_gradients(*args))
    assert written.keys() == right.keys() and all(np.allclose(written[k], right[k]) for k in right)


def test_a_slip_in_backpropagation_through_time_as_the_notebook_writes_it_is_named():
    """dp's backprop of the unrolled graph sums a bias's gradient along the axes it was broadcast
    along, which no rule changes: 12's form (`forms`), BPTT in NumPy, sums it along axis 0, and
    a student's sum of everything is named."""
    from autograder.references import recurrent_networks
    x, params, h_init, dH = _recurrent_case()
    right = recurrent_networks.unrolled_gradients(x, params, h_init, dH)
    H, later, db = recurrent_networks.states(x, params, h_init), 0, np.zeros((1, 5))
    for t in reversed(range(len(x))):
        da = (dH[t] + later) * (1 - H[t] ** 2)
        db, later = db + da.sum(), da @ params["W_h"].T
    message = misconception(db, right["b"], references.of(
        "autograder.checks.recurrent_networks").misconceptions.unrolled_gradients(
        x, params, h_init, dH), CLOSE, part="b")
    assert message.startswith(NAMES + derived.DERIVED_WHY) and "the axis changed" in message, \
        message


def test_a_slip_in_the_catenarys_loss_as_the_exercise_writes_it_is_named():
    """10's reference takes the segments' mean heights by a cross-correlation with (1/2, 1/2):
    its form as the exercise writes them (`forms`), (y_i+1 + y_i) / 2, can have its sign flipped."""
    from autograder.checks.optimisation_beyond_ml import _same_loss
    z, length = np.array([-0.1, -0.25, -0.2, -0.05]), 1.1
    y = np.concatenate([[0.0], z, [0.0]])
    s = np.sqrt(np.diff(y) ** 2 + 1 / (len(z) + 1) ** 2)
    got = (s.sum() - length) ** 2 + (s * (y[1:] - y[:-1]) / 2).sum()
    catenary = references.of("autograder.checks.optimisation_beyond_ml")
    message = misconception(got, catenary.catenary_loss(z, length)[0],
                            catenary.misconceptions.catenary_loss(z, length), _same_loss, part=0)
    assert message.startswith(NAMES + derived.DERIVED_WHY) and "a sign flipped" in message, message


def test_a_step_skipped_reads_what_a_name_was_computed_from(monkeypatch):
    monkeypatch.setattr(derived, "_words", ["def f(x, weights): h = x; for W in weights: ..."])
    function = ast.parse("def f(x, weights):\n    hs, h = [], np.asarray(x)\n"
                         "    for W in weights:\n        h = np.tanh(h @ W)\n"
                         "    da = h * (1 - h)\n    return da @ W").body[0]
    sources = derived._sources(function)
    assert sources["h"] == ["x", "W"] and sources["da"] == ["h"]
    loop_line = function.body[1].body[0]
    assert [(why, ast.unparse(new)) for why, new in derived._skipped_step(loop_line, sources)] == [
        ("a step skipped: `x` used where `h`, computed from it, belongs", "h = np.tanh(x @ W)"),
        ("a step skipped: `W` used where `h`, computed from it, belongs", "h = np.tanh(W @ W)")]
    [(why, new)] = derived._skipped_step(function.body[-1], {"da": ["dz"]})
    assert why == wording.STEP_SKIPPED and wording.opaque(why)     # dz: not the exercise's


def test_a_mutant_that_gives_a_number_where_the_reference_gives_an_array_gives_a_0d_array(
        tmp_path, monkeypatch):
    """A sum over every axis: the checks read a mistake's shape as the reference's, and a number
    crosses from the child process as a Python float, which has none."""
    module = reference_module(tmp_path, monkeypatch, "summed_mutant", (
        "import numpy as np\n\n\n"
        "def totals(x):\n"
        "    return [x.sum(axis=0), 'rows']\n"))
    found = derived.derived(module, "totals", (np.arange(6.0).reshape(2, 3),), {})
    summed = [value[0] for _, why, value in found
              if "the axis changed" in why and np.size(value[0]) == 1]
    assert summed and all(isinstance(v, np.ndarray) and v.shape == () and v == 15.0
                          for v in summed), summed


def test_a_mutant_that_gives_a_string_where_the_reference_gives_numbers_is_no_mistake():
    expected = [np.ones(2), 3.0, {"w": np.zeros(1)}]
    assert derived._shaped_like(["add", 3.0, {"w": np.zeros(1)}], expected) is None
    assert derived._shaped_like([np.ones(2), 3.0, {"w": "mul"}], expected) is None
    kept = derived._shaped_like([2.0, 4.0, {"w": np.ones(3)}], expected)
    assert kept[0].shape == () and kept[1] == 4.0 and kept[2]["w"].shape == (3,)


def test_a_form_is_mutated_in_its_own_module_only():
    """04's plain binary cross-entropy runs dp's log, product and mean: their mutants are the
    reference's search's to make, not again each form's."""
    from autograder.references import activation_functions
    rng = np.random.default_rng(4)
    p, y = rng.uniform(0.02, 0.98, (6, 1)), (rng.random((6, 1)) < 0.5).astype(float)
    found = derived.mutants(activation_functions, "bce_written", (p, y), {})
    assert found and all("@autograder.references.activation_functions:" in id_
                         for id_, _, _ in found), [id_ for id_, _, _ in found]


# -- a change of lines is named by the lines, or is opaque -----------------------------------------
def _body_mutations(code: str, words: str) -> list:
    """[(why, rank)] of the lines of the function `code` left out or put in the other order, in
    an exercise whose text is `words`."""
    function = ast.parse(code).body[0]
    derived._words[0] = words
    try:
        return [derived._explained(function, [], function, new, why)
                for why, new in derived._body(function)]
    finally:
        derived._words[0] = ""


BODY = ("def f(x, n):\n"
        "    for k in range(n):\n"
        "        x = x * 2\n"
        "    if n > 2:\n"
        "        x = -x\n"
        "    y = x + 1\n"
        "    return y\n")


def test_lines_that_only_their_kinds_describe_put_in_the_other_order_or_left_out_are_opaque():
    """'two lines (an expression, an assignment) in the other order: an expression where the
    right computation has an expression' says nothing of which lines: never named."""
    found = _body_mutations(BODY, "def f(x, n)")
    assert found and all(rank == references.OPAQUE for _, rank in found), found
    assert not any("where the right computation has" in why for why, _ in found), found


def test_lines_the_exercise_has_names_for_are_named_when_put_in_the_other_order_or_left_out():
    code = "def f(x, n):\n    total = x * n\n    x = x + 1\n    mean = total / x\n    return mean\n"
    found = dict(_body_mutations(code, "total mean x"))
    assert found == {
        "the line that computes `total` left out (a value never written back)": 0,
        "two lines in the other order, the line that computes `x` before the line that computes "
        "`total` (a value read before it is updated)": 0,
        "the line that computes `x` left out (a value never written back)": 0,
        "two lines in the other order, the line that computes `mean` before the line that "
        "computes `x` (a value read before it is updated)": 0,
        "the line that computes `mean` left out (a value never written back)": 0}, found
    # a line whose name the exercise lacks (x): its changes are opaque
    assert [rank for why, rank in _body_mutations(code, "total mean")] == \
        [0, references.OPAQUE, references.OPAQUE, references.OPAQUE, 0]


def test_a_call_on_a_name_the_exercise_has_describes_its_line():
    code = "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n        x = x + 1\n" \
           "    return out\n"
    function = ast.parse(code).body[0]
    derived._words[0] = "out xs"
    try:
        assert derived._line(function.body[1].body[0]) == "the call of append() on `out`"
        assert derived._line(function.body[1]) is None
    finally:
        derived._words[0] = ""


@pytest.mark.parametrize("why, expected", [
    ("two lines (an assignment, an expression) in the other order (a value read before it is "
     "updated)", "other-order"),                    # not 'sign', inside 'assignment'
    ("the line that computes `state` left out (a value never written back)", "left-out"),
    ("the order not reversed", "reverse"),
    ("a sign flipped", "sign"),
    ("a transpose dropped", "transpose"),
])
def test_the_kind_of_a_change_is_read_from_whole_words_outside_quoted_names(why, expected):
    assert wording.kind(why) == expected


def test_an_accumulation_lost_is_named_by_its_line_or_is_opaque():
    """a += b -> a = b drops a term, the value accumulated so far: which accumulation is the
    mistake, as which term is for a term dropped."""
    function = ast.parse("def f(xs):\n    grads = {}\n    for x in xs:\n"
                         "        grads[x] += x * 2\n        live += x\n").body[0]
    loop = function.body[1]
    found = []
    for k, words in ((0, "grads"), (1, "grads")):
        old = loop.body[k]
        [(why, new)] = derived._augassign(old)
        derived._words[0] = words
        try:
            found.append(derived._explained(function, [("body", 1), ("body", k)], old, new, why))
        finally:
            derived._words[0] = ""
    assert found == [("in the line that computes `grads`: " + derived.ACCUMULATION_LOST, 0),
                     (derived.ACCUMULATION_LOST, references.OPAQUE)], found


def test_a_slip_the_exercise_form_places_is_named_there_not_by_dps_unplaced_form():
    """01's sigmoid 1 / 1 + e^-a: dp's e^min(a, 0) / (1 + e^-|a|) gives that value with its
    quotient's operands swapped, which says only kinds; 01's form, which the student writes,
    says which line, and that the parentheses are lost (a regrouping, as common as a swap)."""
    scalar = references.of("autograder.checks.scalar_autodiff")
    x = 1.3
    value = 1 + math.exp(-x)
    message = misconception(value, scalar.unary("sigmoid", x)[0],
                            scalar.misconceptions.unary("sigmoid", x), scalar_checks.CLOSE, part=0)
    assert "in the line that computes `value`: " + derived.PRECEDENCE in message, message
    assert "the two operands swapped" not in message


def test_the_line_of_a_change_is_named_by_what_it_computes_in_the_order_written():
    """06's m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t): a change in v's half is in
    the line that computes `v_hat` (not whichever of the two names a set gives first)."""
    line = ast.parse("m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)").body[0]
    for k, name in enumerate(("m_hat", "v_hat")):
        part = line.value.elts[k]
        assert wording.role(line, [line, line.value, part], part.right, part.left, "the change",
                            "m_hat v_hat") == f"in the line that computes `{name}`: the change"
    both = ast.parse("a[k], b = f(x)").body[0]
    assert wording.role(both, [both], both.value, both.value.func, "the change", "a b k") == \
        "in the line that computes `a` and `b`: the change"


def test_swapping_the_operands_of_a_difference_is_said_to_flip_its_sign():
    line = ast.parse("s * (1 - s)").body[0].value
    old = line.right
    new = ast.BinOp(old.right, ast.Sub(), old.left)
    assert wording.reworded("the two operands swapped", old, new) == wording.DIFFERENCE_SWAPPED
    quotient = ast.parse("a / b").body[0].value
    assert wording.reworded("the two operands swapped", quotient, quotient) == \
        "the two operands swapped"
