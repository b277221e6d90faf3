"""`grade ... --gradebook URL`: this grader's results written into an nbgrader gradebook.

Each result becomes nbgrader's submission of that student and assignment: one grade per task,
the task's points as the cell's automatic score (the grade cells are named by the task ids,
as in the notebooks). Formgrader and `nbgrader export` then show these grades. A question's
answer cell (a markdown grade cell) is left to the instructor: it needs manual grading. An
assignment that nbgrader has not seen (no `generate_assignment` into this gradebook) is added
from course.toml: a notebook with one code grade cell per task and one markdown grade cell per
question.
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from pathlib import Path

from ..course.config import CourseError

COURSE_ID = "dp-courseware"   # the nbgrader course id of autograder.authoring.build and nbgrader-course


@contextlib.contextmanager
def open_gradebook(url: str, course_id: str = COURSE_ID):
    """nbgrader's Gradebook at `url`. A new gradebook records its schema version by running
    the `alembic` script, which is installed next to this Python but may not be on PATH."""
    from nbgrader.api import Gradebook
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), saved])
    try:
        with warnings.catch_warnings(), Gradebook(url, course_id=course_id) as gb:
            # nbgrader's own add_submission trips SQLAlchemy 2's autoflush warnings: harmless
            warnings.filterwarnings("ignore", module="sqlalchemy")
            warnings.filterwarnings("ignore", message=".*not in session.*")
            yield gb
    finally:
        os.environ["PATH"] = saved


def _assignment_in(gb, assignment):
    """Make sure the gradebook has `assignment` with a grade cell per task, worth the same."""
    from nbgrader.api import MissingEntry
    try:
        notebook = gb.find_notebook(assignment.notebook, assignment.id)
    except MissingEntry:
        gb.update_or_create_assignment(assignment.id)
        gb.update_or_create_notebook(assignment.notebook, assignment.id)
        for cells, cell_type in ((assignment.tasks, "code"), (assignment.questions, "markdown")):
            for cell in cells:
                gb.update_or_create_grade_cell(cell.id, assignment.notebook, assignment.id,
                                               max_score=cell.points, cell_type=cell_type)
        return
    cells = {cell.name: cell.max_score for cell in notebook.grade_cells}
    wanted = {item.id: item.points for item in (*assignment.tasks, *assignment.questions)}
    if cells != wanted:
        raise CourseError(f"the gradebook's {assignment.id}/{assignment.notebook} has grade cells "
                          f"{cells}, course.toml has {wanted}: regenerate it "
                          f"(python -m autograder nbgrader-course)")


def submitted(result, course) -> bool:
    """Whether `result` is a submission of a course assignment: not a `missing` row (nothing was
    submitted: nbgrader has no submission either) nor a notebook whose assignment could not be
    told. A notebook that could not be graded (status `error`) is a submission, worth 0."""
    return (result.get("status", "graded") != "missing"
            and result["assignment"] in {a.id for a in course.assignments})


def write_grades(results, url: str, course, course_id: str = COURSE_ID) -> int:
    """Write `results` (as `grade_all` returns them) into the gradebook at `url`; returns how
    many submissions were written (the `submitted` ones: others are skipped). Existing grades
    of the same tasks are replaced; a grade that an instructor set by hand (manual score) is
    kept, as nbgrader does."""
    count = 0
    with open_gradebook(url, course_id) as gb:
        for result in (r for r in results if submitted(r, course)):
            assignment = course.assignment(result["assignment"])
            _assignment_in(gb, assignment)
            gb.update_or_create_student(result["student"])
            gb.update_or_create_submission(assignment.id, result["student"])
            for task in result["tasks"]:
                grade = gb.find_grade(task["id"], assignment.notebook, assignment.id,
                                      result["student"])
                grade.auto_score = float(task["points"])
                grade.needs_manual_grade = False
            for question in assignment.questions:     # nbgrader's SaveAutoGrades does the same
                grade = gb.find_grade(question.id, assignment.notebook, assignment.id,
                                      result["student"])
                if grade.manual_score is None:
                    grade.needs_manual_grade = True
            gb.db.commit()
            count += 1
    return count
