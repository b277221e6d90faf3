"""The words of a task's verdict (autograder/grading/feedback.py): plurals, and one line per
distinct mistake with its count of checks, in the self-check and in nbgrader's grade cells."""
from autograder.grading.checking import NAMES
from autograder.grading.feedback import all_passed, failed_lines, some_passed
from autograder.platforms.nbgrader_plugin import task_report

SUB = "d(a - b)/db = +1, as if it were a + b"


def failed(name, message):
    return {"name": f"test_{name}", "status": "failed", "message": message}


def test_plurals():
    assert all_passed(1) == "its 1 check passed"
    assert all_passed(13) == "all 13 checks passed"
    assert some_passed(0, 1) == "0 of 1 check passed"
    assert some_passed(12, 13) == "12 of 13 checks passed"


def test_one_known_mistake_that_fails_three_checks_is_said_once():
    checks = [failed(f"sub[{k}]", f"d(a - b)/db at a={k}, b=2: expected -1, received 1{NAMES}{SUB}")
              for k in range(3)]
    checks.insert(1, {"name": "test_add", "status": "passed", "message": ""})
    checks.append(failed("mul", "d(a * b)/db at a=1, b=2: expected 1, received 2"))
    lines = failed_lines(checks)
    assert lines == [f"  - 3 checks: it matches a known mistake: {SUB}",
                     "      sub[0]: d(a - b)/db at a=0, b=2: expected -1, received 1",
                     "      also sub[1], sub[2]",
                     "  - mul: d(a * b)/db at a=1, b=2: expected 1, received 2"]
    assert "\n".join(lines).count(SUB) == 1


def test_the_same_error_of_many_checks_is_said_once_with_their_names():
    stub = "your code raised NotImplementedError: this part is not implemented yet"
    checks = [failed(f"check_{k}", stub) for k in range(9)]
    assert failed_lines(checks) == [
        f"  - 9 checks: {stub}",
        "      check 0, check 1, check 2, check 3, check 4, check 5 and 3 more"]


def test_a_single_failure_and_unchecked_ones_read_as_before():
    checks = [failed("two", "differs"),
              {"name": "test_three", "status": "unchecked", "message": "not checked here"}]
    assert failed_lines(checks) == ["  - two: differs"]


def test_nbgrader_grade_cells_group_too():
    why = f"{NAMES}{SUB}"
    task = {"id": "scalar_arithmetic", "points": 1.0, "max_points": 3.0, "status": "failed",
            "checks": [failed("a", "x: expected -1, received 1" + why),
                       failed("b", "y: expected -1, received 1" + why),
                       {"name": "test_c", "status": "passed", "message": ""}]}
    assert task_report(task).splitlines() == [
        "✘ scalar_arithmetic: 1 of 3 checks passed (1 of 3 points)",
        f"  - 2 checks: it matches a known mistake: {SUB}",
        "      a: x: expected -1, received 1", "      also b"]
    one = dict(task, points=3.0, status="passed", checks=[task["checks"][2]])
    assert task_report(one) == "✔ scalar_arithmetic: its 1 check passed (3 of 3 points)"
