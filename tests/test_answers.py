"""Questions graded automatically (autograder/grading/answers.py): a task whose answer is a
notebook variable, a choice or a number, judged against a key in the notebook's references. A
right answer earns the task's points, a wrong one loses them with the key's explanation, a
malformed one is named in the self-check too; the self-check never reads the key, so neither the
public cases of the student bundle nor the exercise hold it."""
from __future__ import annotations

import json

import pytest

from autograder import references
from autograder.authoring import release
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import COURSE, ROOT, exercise_path

# (assignment, task, variable, the key's function, a right answer, a wrong answer, words of why)
ANSWERS = [
    ("04_activation_functions", "sigmoid_slope", "answer_sigmoid_slope", "sigmoid_slope_answer",
     0.25, 1.0, "too large: sigma'(z) = sigma(z) (1 - sigma(z)) is largest where"),
    ("07_dropout", "forgot_eval", "answer_forgot_eval", "forgot_eval_answer",
     "(B)", "a", "not the right choice: the mean of each unit is preserved, but"),
    ("14_convolutional_networks", "receptive_field", "answer_receptive_field",
     "receptive_field_answer", 10, 8, "too small: follow the distance between"),
]
IDS = [a[1] for a in ANSWERS]


def judged(assignment_id, task, namespace, public=False, seed=5):
    assignment = COURSE.assignment(assignment_id)
    [result] = run_checks(LocalSubmission(namespace, assignment), assignment, seed=seed,
                          public=public, tasks=[task])
    return result


@pytest.mark.parametrize("assignment_id, task, name, key, right, wrong, why", ANSWERS, ids=IDS)
def test_a_right_answer_earns_the_points_a_wrong_one_loses_them_and_says_why(
        assignment_id, task, name, key, right, wrong, why):
    points = COURSE.assignment(assignment_id).task(task).points
    good = judged(assignment_id, task, {name: right})
    assert (good["status"], good["points"]) == ("passed", points), good["message"]
    bad = judged(assignment_id, task, {name: wrong})
    assert (bad["status"], bad["points"]) == ("failed", 0), bad
    assert bad["message"].startswith(f"`{name}` = ") and why in bad["message"], bad["message"]


@pytest.mark.parametrize("assignment_id, task, name, key, right, wrong, why", ANSWERS, ids=IDS)
@pytest.mark.parametrize("public", [False, True])
def test_an_answer_of_the_wrong_form_is_named_in_both_modes(assignment_id, task, name, key, right,
                                                              wrong, why, public):
    malformed = "d" if isinstance(right, str) else "ten"
    result = judged(assignment_id, task, {name: malformed}, public=public)
    assert (result["status"], result["points"]) == ("failed", 0), result
    expected = "one of 'a', 'b', 'c'" if isinstance(right, str) else "a finite number"
    assert f"`{name}` must be {expected}; it is {malformed!r}" in result["message"], result
    listed = judged(assignment_id, task, {name: [right]}, public=public)
    assert "it is a list" in listed["message"], listed


@pytest.mark.parametrize("assignment_id, task, name, key, right, wrong, why", ANSWERS, ids=IDS)
def test_the_self_check_never_reads_the_key(assignment_id, task, name, key, right, wrong, why):
    """In the self-check (public), right and wrong answers alike are "checked when graded", and
    the key is never called: recording the public cases, as a release does, records no key."""
    notebook = COURSE.assignment(assignment_id).notebook
    with references.record() as recorded:
        verdicts = [judged(assignment_id, task, {name: answer}, public=True)
                    for answer in (right, wrong)]
    assert [v["status"] for v in verdicts] == ["unchecked", "unchecked"], verdicts
    assert "grading checks it" in verdicts[0]["message"]
    assert references.key(key, (), {}) not in recorded.get(notebook, {})


@pytest.mark.parametrize("assignment_id, task, name, key, right, wrong, why", ANSWERS, ids=IDS)
def test_the_exercise_and_the_bundle_hold_no_key(assignment_id, task, name, key, right, wrong, why):
    assignment = COURSE.assignment(assignment_id)
    exercise = exercise_path(assignment_id).read_text(encoding="utf-8")
    solution = assignment.solution_path(ROOT).read_text(encoding="utf-8")
    [line] = [line for line in solution.splitlines() if line.startswith(f"{name} = ")]
    assert json.dumps(line)[1:-1] not in exercise and f"# {name} = ..." in exercise
    assert f'check(\\"{task}\\")' in exercise
    shipped = set(release.needed_modules(ROOT, [assignment.notebook]))
    assert "autograder/grading/answers.py" in shipped
    assert not any(p.startswith("autograder/references/") and not p.endswith("__init__.py")
                   for p in shipped), shipped
    cases = release_cases(assignment)
    assert references.key(key, (), {}) not in cases


def release_cases(assignment) -> dict:
    """The public cases a release ships for `assignment` (recorded from its solution, or kept)."""
    from autograder.grading import public_cases
    return json.loads(json.dumps(public_cases.record(assignment, COURSE.public_seed, ROOT)))
