"""The self-check's time per task, with the references (the repository, as before issue 15) and
replaying the public cases (the student bundle): `check(task)` on the solution, in-process, the
median of a few runs. Prints one line per task.

    .venv/bin/python benchmarks/self_check.py [ASSIGNMENT ...]
"""
import contextlib
import io
import statistics
import sys
import time

from autograder.grading import public_cases
from autograder import references
from autograder.course.config import load_course
from autograder.grading.selfcheck import check

RUNS = 3


def timed(task, namespace) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            check(task, namespace=namespace)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(ids):
    course = load_course()
    for assignment in (course.assignment(i) for i in ids):
        namespace = public_cases.solution_namespace(assignment)
        cases = public_cases.record(assignment, course.public_seed)
        for task in assignment.tasks:
            real = timed(task.id, namespace)
            with references.replay({assignment.notebook: cases}):
                replayed = timed(task.id, namespace)
            print(f"{assignment.id:26} {task.id:22} references {real:6.3f} s   "
                  f"public cases {replayed:6.3f} s")


if __name__ == "__main__":
    main(sys.argv[1:] or ["01_scalar_autodiff", "02_matrix_autodiff", "04_activation_functions"])
