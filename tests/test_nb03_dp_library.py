"""Notebook 03, a DP library: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise, the training loop is graded
on the grader's own model (the probe's scripted model only records the loop's steps), and the
student writes what teaches (grad, Layer, train) while the Model's plumbing is given."""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder.probes import dp_library as probes
from tests.grading import (COURSE, STUBS_FAIL_EVERYWHERE, assert_full_marks, exercise_path,
                           forbidden_imports_of_probes, grade_notebook, load_checks,
                           notebook_tests, notebooks_fixture)

ASSIGNMENT = "03_dp_library"
TARGET = COURSE.assignment(ASSIGNMENT).thresholds["toy_loss"]
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["named_leaves"]["max_rel_error"] < 1e-8, metrics
    assert metrics["model_layers"]["max_rel_error"] < 1e-8, metrics
    # measured by the grader from the parameters the loop left, with a margin below the target
    assert metrics["training_loop"]["final_loss"] < 0.5 * TARGET, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **STUBS_FAIL_EVERYWHERE)


# -- the grader's own model for train() ---------------------------------------------------------

def test_toy_gradients_are_central_differences():
    rng = np.random.default_rng(3)
    x, y, params = checks.toy_problem(rng)
    params = {name: value + rng.normal(0, 0.3, value.shape) for name, value in params.items()}
    grads = checks.toy_gradients(params, x, y)
    for name, value in params.items():
        def loss(v, name=name):
            return checks.toy_loss({**params, name: v}, x, y)
        numerical = dp.numerical_gradient(loss, value.copy())
        np.testing.assert_allclose(grads[name], numerical, rtol=1e-6, atol=1e-9)


def scripted(params, gradients, losses, steps, lr):
    """The probe's scripted model after `steps` steps of plain gradient descent with `lr`, as
    the notebook's train() takes them."""
    data = np.zeros((2, 1))
    model = probes._ScriptedModel(params, gradients, losses, data, data)
    returned = []
    for _ in range(steps):
        grads, loss = model.get_grad(None, None)
        current = model.get_param()
        model.set_param({name: current[name] - lr * grads[name] for name in current})
        returned.append(loss)
    history = {name: np.array(values) for name, values in model.history.items()}
    return {"params": model.get_param(), "losses": returned, "history": history}


def test_the_steps_of_the_loop_are_found_from_the_record():
    rng = np.random.default_rng(4)
    x, y, params = checks.toy_problem(rng)
    gradients = [{n: rng.normal(size=v.shape) for n, v in params.items()} for _ in range(3)]
    received = scripted(params, gradients, [1.0, 2.0, 3.0], steps=7, lr=0.05)
    assert received["losses"] == [1.0, 2.0, 3.0] * 2 + [1.0]
    steps = checks.loop_steps(received, gradients, params)
    assert len(steps) == 7 and all(lr == pytest.approx(0.05, rel=1e-9)
                                   for lrs in steps for lr in lrs.values())
    momentum = received["params"]["h1_b"] - 0.5 * (received["history"]["h1_b"][-1]
                                                    - received["history"]["h1_b"][-2])
    moved = dict(received, params={**received["params"], "h1_b": momentum})
    with pytest.raises(AssertionError, match="The first difference is at step 7, in 'h1_b': it moved, but not along that step's "
                       "gradient"):
        checks.loop_steps(moved, gradients, params)


def train_in_place(net, x, y, steps=1000, lr=0.05):
    losses = []
    for _ in range(steps):
        grads, loss = net.get_grad(x, y)
        param = net.get_param()
        for name in grads:
            param[name] -= lr * grads[name]
        net.set_param(param)
        losses.append(loss)
    return np.array(losses)


def train_decaying(net, x, y, steps=1200, lr=0.1):
    losses = []
    for step in range(steps):
        grads, loss = net.get_grad(x, y)
        rate = lr / (1 + step / 300)
        net.set_param({name: value - rate * grads[name] for name, value in net.get_param().items()})
        losses.append(loss)
    return losses


def train_with_momentum(net, x, y, steps=1000, lr=0.05):
    velocity, losses = {}, []
    for _ in range(steps):
        grads, loss = net.get_grad(x, y)
        param = net.get_param()
        velocity = {n: 0.9 * velocity.get(n, 0) + grads[n] for n in grads}
        net.set_param({n: param[n] - lr * velocity[n] for n in param})
        losses.append(loss)
    return losses


def graded_loop(train, seed=6):
    """(initial loss, final loss, the losses returned) of `train` as the training_loop checks see
    it (in-process)."""
    rng = np.random.default_rng(seed)
    x, y, params = checks.toy_problem(rng)
    gradients = [{n: rng.normal(size=v.shape) for n, v in params.items()} for _ in range(checks.SCRIPTED)]
    losses = [checks.toy_loss(params, x, y)] + list(rng.uniform(0.1, 1, checks.SCRIPTED - 1))
    reply = probes.train({"train": train}, params, gradients, losses, x, y)
    steps = checks.loop_steps(reply, gradients, params)
    return losses[0], checks.toy_loss(checks.trained(params, x, y, steps), x, y), reply["losses"]


@pytest.mark.parametrize("train", [train_in_place, train_decaying])
def test_correct_loops_written_otherwise_reach_the_target(train):
    initial, final, losses = graded_loop(train)
    assert final < TARGET < initial and losses[0] == initial


def test_a_loop_that_is_not_gradient_descent_is_told_so():
    with pytest.raises(AssertionError, match="The first difference is at step 2, in 'h1_W': it moved, but not"):
        graded_loop(train_with_momentum)


def train_ascending(net, x, y, steps=1000, lr=0.05):
    losses = []
    for _ in range(steps):
        grads, loss = net.get_grad(x, y)
        net.set_param({n: v + lr * grads[n] for n, v in net.get_param().items()})
        losses.append(loss)
    return losses


def train_returning_early(net, x, y, steps=1000, lr=0.05):
    for _ in range(steps):
        grads, loss = net.get_grad(x, y)
        net.set_param({n: v - lr * grads[n] for n, v in net.get_param().items()})
        return [loss]


@pytest.mark.parametrize("train, where", [
    (train_ascending, ". The first difference from gradient descent with train's defaults (1,000 "
                      "steps, lr 0.05) is at step 1, in 'h1_W': it moved by +0.05 x grad, not "
                      "-0.05 x grad"),
    (train_returning_early, ". The first difference from gradient descent with train's defaults: "
                            "the loop took 1 step, not 1,000"),
    (train_in_place, "")])
def test_a_loop_that_misses_the_target_is_told_where_it_departs_from_the_defaults(train, where):
    rng = np.random.default_rng(6)
    x, y, params = checks.toy_problem(rng)
    gradients = [{n: rng.normal(size=v.shape) for n, v in params.items()} for _ in range(checks.SCRIPTED)]
    losses = [checks.toy_loss(params, x, y)] + list(rng.uniform(0.1, 1, checks.SCRIPTED - 1))
    reply = probes.train({"train": train}, params, gradients, losses, x, y)
    assert checks._departure(checks.loop_steps(reply, gradients, params)) == where


def test_scripted_model_refuses_unknown_names_and_shapes():
    params = {"h1_W": np.ones((1, 2)), "h1_b": np.zeros((1, 2))}
    model = probes._ScriptedModel(params, [params], [1.0], np.zeros((2, 1)), np.ones((2, 1)))
    with pytest.raises(KeyError, match="no parameter 'h1_w'"):
        model.set_param({"h1_w": np.ones((1, 2))})
    with pytest.raises(ValueError, match="shape"):
        model.set_param({"h1_W": np.ones((2, 1))})


def test_toy_problems_need_training_and_can_be_solved():
    """Each toy problem starts at a loss of at least 1, and gradient descent with the
    notebook's defaults (1,000 steps, lr 0.05) reaches half the target on every one."""
    for seed in range(5):
        x, y, params = checks.toy_problem(np.random.default_rng(seed))
        assert checks.toy_loss(params, x, y) >= 1
        trained = checks.trained(params, x, y, [dict.fromkeys(params, 0.05)] * 1000)
        assert checks.toy_loss(trained, x, y) < 0.5 * TARGET, seed


def test_the_student_writes_grad_layer_and_train_and_reads_the_given_model():
    """The exercise stubs what teaches (grad, Layer's parameters and forward pass, train); the
    Model's plumbing (layer factories, parameters, get_param, set_param, get_grad) is given."""
    import ast
    import json
    cells = json.loads(exercise_path(ASSIGNMENT).read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    tree = ast.parse("\n".join(line for line in code.splitlines() if not line.startswith("%")))
    stubbed, given = set(), set()
    for scope in ast.walk(tree):
        if isinstance(scope, (ast.Module, ast.ClassDef)):
            prefix = f"{scope.name}." if isinstance(scope, ast.ClassDef) else ""
            for f in scope.body:
                if isinstance(f, ast.FunctionDef):
                    raises = any(isinstance(n, ast.Raise) and "NotImplementedError()" in
                                 ast.unparse(n) for n in ast.walk(f))
                    (stubbed if raises else given).add(prefix + f.name)
    assert stubbed == {"grad", "Layer.__init__", "Layer.__call__", "train"}, stubbed
    assert {"Model.Linear_Layer", "Model.ReLU_Layer", "Model.parameters", "Model.get_param",
            "Model.set_param", "Model.get_grad"} <= given, given


def test_probes_do_not_import_dp():
    assert not forbidden_imports_of_probes(ASSIGNMENT)


def test_scripted_model_records_the_first_call_not_given_trains_data():
    params = {"h1_W": np.ones((1, 2)), "h1_b": np.zeros((1, 2))}
    x, y = np.arange(4.0).reshape(2, 2), np.arange(4.0, 8.0).reshape(2, 2)
    model = probes._ScriptedModel(params, [params], [1.0], x, y)
    model.get_grad(x.copy(), y)                 # the same values: the data train received
    assert model.other_data is None
    model.get_grad(y, x)
    model.get_grad(x, x[:1])
    assert model.other_data == [1, "y", "x"]
    model = probes._ScriptedModel(params, [params], [1.0], x, y)
    model.get_grad(x, "not an array")
    assert model.other_data == [0, "x", "another array"]
