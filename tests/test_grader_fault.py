"""A fault of the grader's own checks that shows only while grading (issue 33, item 3): the
task's status is the grader's `error`, its message says whose fault it is, and the run counts it
apart (report.grader_faults), instead of a student's 'failed' with 'unexpected result'."""
from autograder.grading import report
from autograder.grading.judge import GRADER_FAULT, run_checks
from autograder.grading.selfcheck import LocalSubmission
from autograder.references import scalar_autodiff as reference
from tests.grading import COURSE, notebook_fixture

A = "01_scalar_autodiff"
namespace = notebook_fixture(A)


def test_a_check_whose_reference_raises_is_the_graders_error_counted_apart(namespace, monkeypatch):
    def broken(function, x, eps=None):
        raise KeyError(function)        # e.g. a function a hidden seed draws, the reference lacks
    monkeypatch.setattr(reference, "derivative", broken)
    assignment = COURSE.assignment(A)
    tasks = {t["id"]: t for t in run_checks(LocalSubmission(namespace, assignment), assignment,
                                            COURSE.grading_seed)}
    faulty = tasks["numerical_gradient"]
    assert faulty["status"] == "error" and faulty["points"] == 0 and faulty["grader_fault"] is True
    assert GRADER_FAULT.split("{")[0] in faulty["message"] and "KeyError" in faulty["message"]
    assert "unexpected result" not in faulty["message"]
    others = [t for id_, t in tasks.items() if id_ != "numerical_gradient"]
    assert all(t["status"] == "passed" and "grader_fault" not in t for t in others), others
    results = [report.bounded({"student": "ana", "assignment": A, "tasks": list(tasks.values())})]
    assert report.grader_faults(results) == [f"ana, {A}: numerical_gradient"]


def test_a_students_error_is_no_grader_fault(namespace):
    """The student's code raising is the student's error, never counted as the grader's."""
    assignment = COURSE.assignment(A)
    broken = dict(namespace)

    def numerical_gradient(f, x, eps=1e-6):
        raise ValueError("not yet")
    broken["numerical_gradient"] = numerical_gradient
    tasks = {t["id"]: t for t in run_checks(LocalSubmission(broken, assignment), assignment,
                                            COURSE.grading_seed)}
    assert tasks["numerical_gradient"]["status"] == "error"
    assert "grader_fault" not in tasks["numerical_gradient"]
    assert report.grader_faults([{"student": "b", "assignment": A, "tasks": list(tasks.values())}]) == []


def test_a_failed_check_costs_no_traceback_formatting(namespace, monkeypatch):
    """The judge reads a failed check's message from its exception: pytest's own traceback of it
    (each entry's source found by parsing the checks module, 70 % of the grader's work on a
    submission that fails many checks) is never made. The failure is still a failure, with its
    message."""
    import _pytest.nodes
    formatted, original = [], _pytest.nodes.Node._repr_failure_py

    def counted(self, *args, **kwargs):
        formatted.append(self.name)
        return original(self, *args, **kwargs)
    monkeypatch.setattr(_pytest.nodes.Node, "_repr_failure_py", counted)
    assignment = COURSE.assignment(A)
    broken = dict(namespace, numerical_gradient=lambda f, x, eps=1e-6: 0.0)
    tasks = {t["id"]: t for t in run_checks(LocalSubmission(broken, assignment), assignment,
                                            COURSE.grading_seed)}
    monkeypatch.undo()
    failed = tasks["numerical_gradient"]
    assert failed["status"] == "failed" and failed["points"] == 0 and failed["message"], failed
    assert formatted == [], f"pytest formatted the tracebacks of {formatted}"
