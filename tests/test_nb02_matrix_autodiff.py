"""Notebook 02, matrix autodiff: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise, and grading runs the
checks on other shapes than the self-check does."""
from __future__ import annotations

from autograder.grading.grade import grading_seed
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import (COURSE, STUBS_FAIL_EVERYWHERE, assert_full_marks, explain,
                           forbidden_imports_of_probes, grade_notebook, notebook_tests,
                           notebooks_fixture, run_in_process)

ASSIGNMENT = "02_matrix_autodiff"

notebooks = notebooks_fixture(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    assert all(t["metrics"]["max_rel_error"] < 1e-8 for t in result["tasks"]), explain(result)


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(
    ASSIGNMENT, check_says=["with a of shape"], **STUBS_FAIL_EVERYWHERE)


class RecordingSubmission(LocalSubmission):
    """The notebook's namespace, probed in-process; remembers the shapes of every probe's
    input matrices."""

    def __init__(self, namespace, assignment):
        super().__init__(namespace, assignment)
        self.shapes = set()

    def probe(self, name, **kwargs):
        self.shapes.update(tuple(x.shape) for x in kwargs.get("inputs", []))
        return super().probe(name, **kwargs)


def test_grading_uses_other_shapes_than_the_self_check(notebooks, monkeypatch, capsys):
    namespace = run_in_process(notebooks["solution"], monkeypatch, capsys)["namespace"]
    assignment = COURSE.assignment(ASSIGNMENT)
    runs = {}
    for student in (None, "alice", "bob"):
        submission = RecordingSubmission(namespace, assignment)
        seed = COURSE.public_seed if student is None else grading_seed(COURSE, student, ASSIGNMENT)
        results = run_checks(submission, assignment, seed, public=student is None)
        assert all(r["status"] == "passed" for r in results), results
        runs[student] = submission.shapes
    public = runs.pop(None)
    assert len(public) >= 5, public
    for student, shapes in runs.items():
        # a 1x1 matrix (a broadcast number) is the only shape both may use
        assert shapes & public <= {(1, 1)}, (student, sorted(shapes & public))
    assert runs["alice"] != runs["bob"], "two students were graded on the same shapes"


def test_probes_do_not_import_dp():
    assert not forbidden_imports_of_probes(ASSIGNMENT)
