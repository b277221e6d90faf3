"""Notebook 04, activation functions: the solution earns every point, the stub none, a made-up
plot loses the plot, and bugs that change the networks' gradients cost exactly the tasks they
must. The grader's NumPy reference agrees with dp, and the plot's thresholds have a margin."""
import importlib.util
import os
import re
import warnings

import numpy as np
import pytest

from autograder.course import PACKAGE
from tests.grading import (COURSE, exercise_path, explain, grade_notebook, grade_source, mutate,
                           points, solution_source)
from tests.mutants.activation_functions import CASCADES

A = "04_activation_functions"
FULL = {t.id: t.points for t in COURSE.assignment(A).tasks}


def _load_checks():
    path = PACKAGE / "checks" / "activation_functions.py"
    spec = importlib.util.spec_from_file_location("nb04_checks", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():   # the `task` mark is registered by the grader, not here
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(module)
    return module


checks = _load_checks()


def stub_source(source: str) -> str:
    """The solution with each `### BEGIN SOLUTION ... ### END SOLUTION` block replaced by
    `raise NotImplementedError()` at the block's indentation, as nbgrader does."""
    block = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION\n", re.M | re.S)
    return block.sub(lambda m: f"{m[1]}raise NotImplementedError()\n", source)


def test_solution_gets_full_marks(tmp_path):
    result = grade_source(solution_source(A), A, tmp_path)
    assert points(result) == FULL, explain(result)
    assert result["cell_errors"] == [], explain(result)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}["vanishing_plot"]
    assert metrics["sigmoid_decay"] < 1e-4 and metrics["relu_decay"] > 0.1, metrics


def test_stub_gets_zero_on_every_task(tmp_path):
    path = exercise_path(A)
    if path.exists():
        result = grade_notebook(path, A)
    else:
        result = grade_source(stub_source(solution_source(A)), A, tmp_path)
    assert points(result) == {task: 0 for task in FULL}, explain(result)


def test_made_up_plot_that_still_decays_loses_the_plot_only(tmp_path):
    fake = mutate(solution_source(A), "gradient_sums(net, x_plot, y_plot), marker",
                  'np.logspace({"sigmoid": -5, "tanh": -0.5, "relu": -1}[name], 0, 10), marker')
    result = grade_source(fake, A, tmp_path)
    assert points(result) == {**FULL, "vanishing_plot": 0}, explain(result)
    [plot] = [t for t in result["tasks"] if t["id"] == "vanishing_plot"]
    assert "differs from the true gradient sum" in plot["message"], explain(result)


@pytest.mark.parametrize("mutant, costs", CASCADES, ids=[repr(m) for m, _ in CASCADES])
def test_bug_in_the_networks_gradients_costs_its_task_and_the_plot(mutant, costs, tmp_path):
    result = grade_source(mutant.source(), A, tmp_path)
    assert points(result) == {t: 0 if t in costs else p for t, p in FULL.items()}, (
        f"{mutant!r} ({mutant.why})\n{explain(result)}")


# -- the grader's reference -----------------------------------------------------------------------
@pytest.mark.parametrize("activation", checks.ACTIVATIONS)
def test_reference_backpropagation_agrees_with_dp(activation):
    from autograder.probes.activation_functions import ReferenceNetwork
    rng = np.random.default_rng(4)
    params = checks.random_params(rng)
    x, y = checks.random_batch(rng, public=False)
    net = ReferenceNetwork(activation, params)
    grads, loss = net.get_grad(x, y)
    expected = [(grads[f"layer{l}_W"], grads[f"layer{l}_b"]) for l in range(1, 11)]
    for (gw, gb), (rw, rb) in zip(expected, checks.reference_gradients(activation, params, x, y)):
        assert checks.rel_error(rw, gw) < 1e-10 and checks.rel_error(rb, gb) < 1e-10
    p = checks._sigmoid(checks.reference_forward(activation, params, x)[1])
    assert checks.rel_error(p, net.forward(x).value) < 1e-12
    assert np.isclose(checks.reference_bce(p, y)[0], loss, rtol=1e-12)


# -- the notebook, run in-process as Jupyter runs it ----------------------------------------------
@pytest.fixture(scope="module")
def notebook():
    """The solution's namespace, its cells run one by one, each `check` cell for real, and all
    figures closed after every cell, as Jupyter's inline backend does."""
    import jupytext
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    saved = os.environ.pop("AUTOGRADER_GRADING", None)
    namespace = {"__name__": "__main__"}
    try:
        for cell in jupytext.reads(solution_source(A), fmt="py:percent").cells:
            if cell.cell_type == "code":
                exec(compile(cell.source, "<cell>", "exec"), namespace)
                plt.close("all")
    finally:
        if saved is not None:
            os.environ["AUTOGRADER_GRADING"] = saved
    return namespace


def test_self_checks_pass_in_the_notebook_although_jupyter_closed_the_figures(notebook):
    assert set(notebook["nets"]) == set(checks.ACTIVATIONS)   # every check cell ran and passed


def test_decay_thresholds_hold_with_a_margin_for_other_initialisations(notebook):
    import dp
    x, y = notebook["x_train"], notebook["y_train"]
    ratios = {name: [] for name in checks.ACTIVATIONS}
    for seed in range(40):
        dp.seed(seed)
        for name in checks.ACTIVATIONS:
            sums = checks.reference_sums(name, notebook["DeepNetwork"](name).get_param(), x, y)
            ratios[name].append(sums[0] / sums[-1])
    assert max(ratios["sigmoid"]) < checks.SIGMOID_DECAY / 10, ratios["sigmoid"]
    assert min(ratios["tanh"] + ratios["relu"]) > checks.OTHER_DECAY * 5, ratios
