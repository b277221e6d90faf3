"""`python -m autograder.demo`: make a small sample class and grade it, as an instructor would.

The class, in nbgrader's layout (demo/submitted/<student>/<assignment>/<notebook>.ipynb):
  ada     the reference solutions of every assignment
  ben     partial work: every assignment with its last exercise left undone
  cleo    the released stubs, untouched
  dmitri  a notebook that was damaged (half of its JSON is missing)
  eve     a stub that tries to cheat: it patches NumPy, pytest and the probes
and, for 01_scalar_autodiff only (autograder/authoring/demo_students.py), six students who solved it in
their own styles (hana, ivan, jun, kim, lena, omar), two more with a known mistake that their
feedback names (rui: d(a - b)/db = +1; sam: sigma(-x)), and two who copied one of them,
disguised: pat (ivan's) and quinn (jun's). Then the class at a glance (graded/class-report.html,
with the known mistakes named per task) and the
pairs of 01's submissions ranked by similarity (graded/similarity-01_scalar_autodiff.html).
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

import jupytext
import nbformat

from .reports import classreport, similarity
from .authoring import demo_students
from .grading import report
from .course.config import ROOT, load_course
from .grading.grade import grade_all

CHEAT = '''\
# Trying to fool the grader from inside the notebook: none of this reaches it.
import numpy, pytest, sys
numpy.allclose = lambda *a, **k: True
numpy.testing.assert_allclose = lambda *a, **k: None
pytest.approx = lambda expected, *a, **k: expected
for name, module in list(sys.modules.items()):
    if name.startswith("autograder.probes."):
        for attr in dir(module):
            if not attr.startswith("_") and callable(getattr(module, attr)):
                setattr(module, attr, lambda ns, *a, **k: 1.0)
'''


def _last_solution_undone(source: str) -> str:
    blocks = list(re.finditer(r"(?m)^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION\n", source, re.S))
    if not blocks:
        return source
    last = blocks[-1]
    return source[:last.start()] + f"{last[1]}raise NotImplementedError()\n" + source[last.end():]


def make_class(folder: Path, course) -> Path:
    submitted = folder / "submitted"
    shutil.rmtree(folder, ignore_errors=True)
    for assignment in course.assignments:
        source = assignment.solution_path().read_text(encoding="utf-8")
        stub = nbformat.read(str(assignment.exercise_path()), as_version=4)
        notebooks = {
            "ada": jupytext.reads(source, fmt="py:percent"),
            "ben": jupytext.reads(_last_solution_undone(source), fmt="py:percent"),
            "cleo": stub,
        }
        cheat = nbformat.read(str(assignment.exercise_path()), as_version=4)
        cheat.cells.append(nbformat.v4.new_code_cell(CHEAT))
        notebooks["eve"] = cheat
        for student, notebook in notebooks.items():
            path = submitted / student / assignment.id / f"{assignment.notebook}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, str(path))
    first = course.assignments[0]
    broken = submitted / "dmitri" / first.id / f"{first.notebook}.ipynb"
    broken.parent.mkdir(parents=True, exist_ok=True)
    text = first.exercise_path().read_text(encoding="utf-8")
    broken.write_text(text[: len(text) // 2], encoding="utf-8")
    demo_students.make_class(submitted, untouched=None)      # cleo has the stubs already
    return submitted


def summary(results, seconds: float) -> str:
    """The table of what was handed in, and how many notebooks that is: a student's assignment
    with no notebook is a row of grades.csv, not a notebook graded."""
    handed_in = [r for r in results if report.status(r) != "missing"]
    missing = len(results) - len(handed_in)
    return (report.table(handed_in) + f"\n\ngraded {len(handed_in)} notebooks in {seconds:.0f} s"
            + (f"; {missing} {'assignment' if missing == 1 else 'assignments'} of these students "
               "not handed in (rows of grades.csv)" if missing else ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", default=str(ROOT / "demo"), help="where to put the class (default: demo/)")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    course = load_course()
    folder = Path(args.folder)
    submitted = make_class(folder, course)
    count = len(list(submitted.rglob("*.ipynb")))
    print(f"A sample class of {count} notebooks in {submitted}/ (see python -m autograder.demo --help)")
    start = time.perf_counter()
    results = grade_all([submitted], folder / "graded", jobs=args.jobs)
    seconds = time.perf_counter() - start
    print()
    print(summary(results, seconds))
    print(f"grades:   {folder / 'graded' / 'grades.csv'}")
    print(f"feedback: {folder / 'graded' / 'feedback'}/<student>/<assignment>.html")
    page, _ = classreport.write_report(folder / "graded", course)
    print(f"the class at a glance: {page}\n")
    assignment = demo_students.A
    codes, unreadable = similarity.collect([submitted], assignment, course)
    pairs = similarity.rank(codes)
    page, _ = similarity.write(folder / "graded", assignment, pairs, codes, unreadable, top=10)
    print(f"the most similar submissions of {assignment.id} (ada and ben both hand in the "
          "reference solution; pat copied ivan, quinn copied jun):")
    for p in pairs[:4]:
        print(f"  {p.a.student:<6} {p.b.student:<6} {100 * p.similarity:3.0f} %")
    print(f"side by side: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
