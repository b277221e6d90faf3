"""The worked example of docs/INSTRUCTORS.md "Adding an exercise" works as written (issue 33, 3):
its blocks, each added to the file that its first line names, make a course that `grade`
accepts (the preflight runs every check on the new solution with the public seed), and grading
a class of three gives the solution full marks, the stub 0 and a known mistake by its name."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.grading import ROOT, notebook_from_source, stub_source

DOC = ROOT / "docs" / "INSTRUCTORS.md"
# a fenced block whose first line is "# file: <path>" (", appended": added to the end of it)
BLOCK = re.compile(r"^```\w+\n# file: (?P<path>\S+)(?P<appended> \(appended\))?\n(?P<text>.*?)^```$",
                   re.M | re.S)


def worked_example() -> dict:
    """{path: (text, appended)} of the blocks of the worked example in "Adding an exercise"."""
    section = DOC.read_text(encoding="utf-8").split("## Adding an exercise", 1)[1].split("\n## ", 1)[0]
    return {m["path"]: (m["text"], bool(m["appended"])) for m in BLOCK.finditer(section)}


def test_the_worked_example_has_every_file_of_an_exercise():
    files = worked_example()
    assert set(files) == {"course.toml", "solutions/15_softplus/softplus.py",
                          "autograder/probes/softplus.py", "autograder/references/softplus.py",
                          "autograder/checks/softplus.py"}, sorted(files)
    assert files["course.toml"][1] and not any(appended for p, (_, appended) in files.items()
                                                if p != "course.toml")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("worked_example")
    copy = tmp / "course"
    for part in ("autograder", "dp", "solutions", "exercises"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "course.toml", copy / "course.toml")
    solution = None
    for path, (text, appended) in worked_example().items():
        target = copy / path
        target.parent.mkdir(parents=True, exist_ok=True)
        assert appended or not target.exists(), f"the worked example overwrites {path}"
        target.write_text((target.read_text() + "\n" if appended else "") + text)
        if path.startswith("solutions/"):
            solution = text
    A = "15_softplus"
    for student, source in (("honest", solution), ("stub", stub_source(solution)),
                            ("itself", solution.replace("return 1 / (1 + np.exp(-x))",
                                                        "return np.log(1 + np.exp(x))"))):
        assert source.count("softplus_grad") >= 2
        folder = tmp / "submitted" / student / A
        folder.mkdir(parents=True)
        notebook_from_source(source, folder / "softplus.ipynb")
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", tmp / "submitted",
                          "--out", tmp / "out", "--jobs", "1", "--quiet"], cwd=copy,
                         capture_output=True, text=True, timeout=900,
                         env={**os.environ, "PYTHONPATH": str(copy)})
    assert run.returncode == 0, run.stderr[-3000:]
    return {student: json.loads((tmp / "out" / "results" / student / f"{A}.json").read_text())
            for student in ("honest", "stub", "itself")}


def test_the_solution_of_the_worked_example_earns_full_marks(graded):
    assert graded["honest"]["score"] == graded["honest"]["max_score"] == 2, graded["honest"]


def test_its_stub_earns_nothing_and_is_told_it_is_not_implemented(graded):
    [task] = graded["stub"]["tasks"]
    assert graded["stub"]["score"] == 0 and "NotImplementedError" in task["message"], task


def test_a_known_mistake_of_the_worked_example_is_named(graded):
    [task] = graded["itself"]["tasks"]
    assert graded["itself"]["score"] == 0 and task["status"] == "failed", task
    assert "softplus_grad(x) for x = [" in task["message"] and "expected" in task["message"]
    assert "this is the softplus log(1 + e^x) itself, not its derivative" in task["message"], task


def test_expect_names_a_reply_that_is_no_number_and_shows_a_scalars_values():
    from autograder.grading.checking import expect
    metrics = {}
    with pytest.raises(AssertionError, match=r"^s\(2\) must be a number or an array of numbers, "
                                             r"not a str$"):
        expect("0.88", 0.88, "s(2)", metrics)
    with pytest.raises(AssertionError, match=r"^s\(2\) is 2.126928, expected 0.88079708 "):
        expect(2.126928, 0.8807970779778823, "s(2)", metrics)
    a, b = 2.126928, 0.8807970779778823
    assert metrics["max_rel_error"] == pytest.approx(abs(a - b) / (abs(a) + abs(b)))
    assert expect([0.5, 0.8807970779], [0.5, 0.8807970779778823], "s", {}) < 1e-6
