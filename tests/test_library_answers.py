"""`library_answers`: the student's own code that uses dp's version of what the assignment asks
for is flagged; the exercise's own uses of it (to compare, to train) and the solutions are not."""
import json

import jupytext
import nbformat
import pytest

from autograder.course.config import CourseError, load_course
from autograder.grading.grade import Submission, _provided_lines, grade_one
from autograder.course.notebook import cell_labels, code_cells, scan_library_use
from tests.grading import COURSE, ROOT, notebook_from_source, solution_source

DELEGATES = "\n# %%\ndef adam_update(theta, g, state, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-8):\n" \
            "    return dp.Adam(None, lr=lr, beta1=beta1, beta2=beta2, epsilon=eps).update(theta, g, state)\n"


def _flags(assignment, source):
    notebook = json.loads(nbformat.writes(jupytext.reads(source, fmt="py:percent")))
    return scan_library_use(code_cells(notebook), assignment.library_answers,
                            _provided_lines(assignment.exercise_path()), cell_labels(notebook))


@pytest.mark.parametrize("assignment", [a for a in COURSE.assignments if a.library_answers],
                         ids=lambda a: a.id)
def test_no_solution_is_flagged(assignment):
    assert _flags(assignment, solution_source(assignment.id)) == []


@pytest.mark.parametrize("line, flagged", [
    ("from dp import Adam as A", True), ("import dp.optim\nx = dp.optim.Adam", True),
    ("opt = dp.RMS_Prop(None)", True), ("class Adam:\n    pass\nAdam()", False),
    ('dp.Adam(net, x_train, y_train, lr=3e-3, batch_size=None)', True)])
def test_what_is_flagged(line, flagged):
    found = _flags(COURSE.assignment("06_optimizers"), solution_source("06_optimizers")
                   + "\n# %%\nimport dp\n" + line + "\n")
    assert bool(found) == flagged, found


def test_a_rule_that_calls_dp_is_graded_and_flagged(tmp_path):
    path = notebook_from_source(solution_source("06_optimizers") + DELEGATES, tmp_path / "optimizers.ipynb")
    result, _ = grade_one(Submission(path, "mallory", "06_optimizers"))
    flag = ("uses dp's own Adam (the cell that begins “def adam_update(theta, g, state, lr=0.001, "
            "beta1=0.9, beta2=0.999, eps=1e-8):”), which this assignment asks students to write")
    assert flag in result["flags"], result["flags"]


def test_the_course_names_dp_names_only(tmp_path):
    text = (ROOT / "course.toml").read_text().replace(
        'library_answers = ["Dropout", "Dropout_Layer"]', 'library_answers = ["dp.Dropout()"]')
    (tmp_path / "course.toml").write_text(text)
    with pytest.raises(CourseError, match="library_answers: expected a list of dp's names"):
        load_course(tmp_path / "course.toml")
