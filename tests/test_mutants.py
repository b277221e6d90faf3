"""Every mutant loses the points of its own task, and only those."""
import pytest

from tests.grading import COURSE, explain, grade_source, points
from tests.mutants import all_mutants

MUTANTS = all_mutants()


@pytest.mark.parametrize("mutant", MUTANTS, ids=repr)
def test_mutant_is_caught_by_its_task_only(mutant, tmp_path):
    result = grade_source(mutant.source(), mutant.assignment, tmp_path)
    full = {t.id: t.points for t in COURSE.assignment(mutant.assignment).tasks}
    got = points(result)
    assert got[mutant.task] < full[mutant.task], (
        f"mutant {mutant!r} ({mutant.why}) escaped: task {mutant.task} kept its points\n{explain(result)}")
    others = {t: p for t, p in got.items() if t != mutant.task}
    assert others == {t: p for t, p in full.items() if t != mutant.task}, (
        f"mutant {mutant!r} cost points outside its task {mutant.task}\n{explain(result)}")


def test_the_corpus_covers_every_assignment_with_a_mutant():
    covered = {m.assignment for m in MUTANTS}
    graded = {a.id for a in COURSE.assignments}
    assert graded <= covered, f"assignments without mutants: {sorted(graded - covered)}"
