"""02's per-probe time budget against an honest backward pass and a numerical one.

For each case on large matrices that grading gives 02's gradient tasks
(autograder/checks/matrix_autodiff.py, LARGE_MATRICES), on the grader's operands for one student,
it times the `run` probe (the round trip from the grader, in the real sandbox) of:

  honest     the solution: reverse mode, one vector-Jacobian product per operation
  numerical  the solution whose backward passes are central differences of its own forward
             pass, entry by entry (tests/mutants/matrix_autodiff.py, NUMERICAL_EVERYWHERE)

and prints them beside the budget (course.toml's probe_time_limit of 02) with both margins:
budget / honest and numerical / budget (the target: 10 or more each). The numerical probe runs
to its end, outside the budget (a sandbox whose probe_time_limit is --numerical-limit), so its
time is measured, not extrapolated.

    python benchmarks/probe_budget.py                     # about 5 minutes on a quiet core
    python benchmarks/probe_budget.py --cases dot --repeats 9
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
import zlib
from pathlib import Path

import common

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.checks.matrix_autodiff import LARGE_MATRICES, large_case  # noqa: E402
from autograder.course.config import load_course                          # noqa: E402
from autograder.course.notebook import code_cells                         # noqa: E402
from autograder.grading.grade import grading_seed                         # noqa: E402
from autograder.sandbox.process import Sandbox                            # noqa: E402
from tests.grading import solution_source                                 # noqa: E402
from tests.mutants.matrix_autodiff import NUMERICAL_EVERYWHERE            # noqa: E402

A = "02_matrix_autodiff"


def cells(extra: str = "") -> list:
    import jupytext
    notebook = jupytext.reads(solution_source(A) + extra, fmt="py:percent")
    return code_cells(notebook)


def timed_probe(sandbox, inputs, program, upstream) -> float:
    start = time.perf_counter()
    reply = sandbox.probe("run", inputs=inputs, program=program, upstream=upstream)
    seconds = time.perf_counter() - start
    assert reply.get("grads") is not None, reply
    return seconds


def main() -> None:
    import numpy as np
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(LARGE_MATRICES),
                        help="which LARGE_MATRICES cases (comma-separated)")
    parser.add_argument("--repeats", type=int, default=5, help="honest probes per case (median)")
    parser.add_argument("--numerical-limit", type=float, default=900,
                        help="seconds the numerical probe may run (its sandbox's limits)")
    parser.add_argument("--student", default="alice", help="whose hidden operands")
    args = parser.parse_args()
    course = load_course()
    assignment = course.assignment(A)
    budget = assignment.limits.probe_time_limit
    unbounded = dataclasses.replace(assignment, limits=dataclasses.replace(
        assignment.limits, time_limit=args.numerical_limit * 2,
        probe_time_limit=args.numerical_limit))
    seed = grading_seed(course, args.student, A)
    print(common.machine())
    print(f"02's probe_time_limit: {budget:g} s; operands of student {args.student!r}\n")
    rows = []
    with common.OtherLoad() as load:
        for case in args.cases.split(","):
            # the check's own generator (autograder/grading/judge.py, the rng fixture)
            rng = np.random.default_rng([seed, zlib.crc32(f"test_large_matrices[{case}]".encode())])
            inputs, program = large_case(case, rng, public=False)
            with Sandbox(cells(), assignment) as honest:
                out = honest.probe("run", inputs=inputs, program=program, upstream=np.zeros((1, 1)))
                upstream = rng.normal(size=out["value"].shape)
                times = [timed_probe(honest, inputs, program, upstream)
                         for _ in range(args.repeats)]
            with Sandbox(cells("\n# %%\n" + NUMERICAL_EVERYWHERE), unbounded) as numerical:
                slow = timed_probe(numerical, inputs, program, upstream)
            rows.append((case, ", ".join(str(x.shape) for x in inputs), statistics.median(times),
                         max(times), slow))
            print(f"{case}: done ({slow:.1f} s numerical)", flush=True)
    print(f"\n{'case':<22}{'operands':<26}{'honest (median, max)':>22}{'budget':>9}"
          f"{'numerical':>11}{'budget/honest':>15}{'numerical/budget':>18}")
    for case, shapes, median, worst, slow in rows:
        print(f"{case:<22}{shapes:<26}{median * 1e3:>11.1f} ms{worst * 1e3:>6.0f} ms"
              f"{budget:>7g} s{slow:>9.1f} s{budget / worst:>14.0f}x{slow / budget:>17.1f}x")
    print(f"\nmargins (target >= 10x): budget / slowest honest probe "
          f"{min(budget / r[3] for r in rows):.0f}x, fastest numerical probe / budget "
          f"{min(r[4] for r in rows) / budget:.1f}x")
    print(load.warning())


if __name__ == "__main__":
    main()
