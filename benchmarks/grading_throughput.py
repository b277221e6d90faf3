"""Throughput of grading a whole class: submissions per minute for nbgrader (serial), our
grader on one core, on all cores, and on a Dask LocalCluster.

    python benchmarks/grading_throughput.py                    # 100 students: about 25 min on 2 cores
    python benchmarks/grading_throughput.py --students 20      # a quick run, about 5 min

The class: --students submissions of --assignment (default 04, activation functions: a
10-layer network trained briefly and the vanishing-gradient plot), taking turns through the
solution, the untouched stub, a partial solution and each mutant of tests/mutants/, all in
nbgrader's format (see grading_classes.py). Every way grades the same files, each into a fresh
output folder from the command line, as an instructor runs it:

  nbgrader     the real `nbgrader autograde` (serial; no parallel mode), on the first
               --nbgrader-students of the class: its rate is extrapolated to the class
  --jobs 1     python -m autograder grade ... --jobs 1
  --jobs N     python -m autograder grade ... --jobs N       (N: all cores, or --cores)
  dask         python -m autograder grade ... --executor dask --jobs N   (a LocalCluster of N
               single-threaded workers, its start-up included)

The scores of every way are compared: ours must agree with each other exactly (whole result
files), and with nbgrader's totals on the submissions it graded.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from common import machine
from grading_classes import NbgraderCourse, OtherLoad, grade, make_class


def results(out: Path) -> dict:
    """Each student's result, without its `seconds` (how long it took: a timing, not a result)."""
    found = {p.parent.name: json.loads(p.read_text()) for p in sorted((out / "results").glob("*/*.json"))}
    for result in found.values():
        result.pop("seconds", None)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=100, help="class size (default 100)")
    parser.add_argument("--assignment", default="04_activation_functions")
    parser.add_argument("--cores", type=int, default=os.cpu_count(), help="N for --jobs N and Dask")
    parser.add_argument("--nbgrader-students", type=int, default=10,
                        help="how many of the class nbgrader grades (default 10; 0: skip nbgrader)")
    parser.add_argument("--skip", action="append", default=[], choices=["jobs1", "jobsN", "dask"],
                        help="leave out one of our ways (repeatable)")
    args = parser.parse_args(argv)
    print(f"Grading throughput: {args.students} submissions of {args.assignment}; {machine()}\n")
    rows, graded = [], {}
    with tempfile.TemporaryDirectory(prefix="grading-throughput-") as tmp, OtherLoad() as load:
        tmp = Path(tmp)
        submitted = make_class(tmp / "class", args.assignment, args.students)
        kinds = sorted({p.name.split("_", 1)[1] for p in submitted.iterdir()})
        print(f"class: {args.students} students, {len(kinds)} kinds of submission ({', '.join(kinds)})")
        if args.nbgrader_students:
            course = NbgraderCourse(tmp / "nbgrader", args.assignment)
            students = course.submit(submitted, args.nbgrader_students)
            seconds = course.autograde()
            nbgrader_scores = course.scores()
            rows.append(("nbgrader autograde (serial)", 1, len(students), seconds,
                         f"extrapolated from {len(students)}: {seconds / len(students) * args.students / 60:.1f} "
                         f"min for the class"))
        ways = {"jobs1": ("--jobs 1", 1, ["--jobs", "1"]),
                "jobsN": (f"--jobs {args.cores}", args.cores, ["--jobs", args.cores]),
                "dask": (f"--executor dask --jobs {args.cores}", args.cores,
                         ["--executor", "dask", "--jobs", args.cores])}
        for key, (label, workers, options) in ways.items():
            if key in args.skip:
                continue
            start = time.perf_counter()
            seconds = grade(submitted, tmp / key, *options)
            graded[label] = results(tmp / key)
            rows.append((f"autograder {label}", workers, args.students, seconds, ""))
            print(f"  {label}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    base = next((r[3] / r[2] for r in rows if r[0] == "autograder --jobs 1"), None)
    print(f"\n{'':<40}{'workers':>8}{'graded':>8}{'seconds':>9}{'per min':>9}{'speed-up':>10}"
          f"{'CPU s/sub':>11}{'busy cores':>12}")
    for label, workers, count, seconds, note in rows:
        speedup = f"{base / (seconds / count):>9.2f}x" if base else ""
        print(f"{label:<40}{workers:>8}{count:>8}{seconds:>9.1f}{60 * count / seconds:>9.1f}{speedup:>10}"
              f"{seconds.cpu / count:>11.2f}{seconds.cpu / seconds:>12.2f}" + (f"   {note}" if note else ""))
    print("speed-up: against our --jobs 1, per submission; CPU s/sub: the machine's busy CPU seconds "
          "during the run (grader, workers, sandboxes or kernels) per submission; busy cores: their "
          "mean over the run")
    if len(graded) > 1:
        first, *others = graded.values()
        same = all(other == first for other in others)
        print(f"our results identical in every way: {'yes' if same else 'NO'} ({', '.join(graded)})")
    if args.nbgrader_students and graded:
        ours = next(iter(graded.values()))
        differ = {s: (nbgrader_scores[s], ours[s]["score"]) for s in nbgrader_scores
                  if abs(nbgrader_scores[s] - ours[s]["score"]) > 1e-9}
        print(f"nbgrader's totals equal ours on its {len(nbgrader_scores)} submissions: "
              f"{'yes' if not differ else 'no, (nbgrader, ours) ' + str(differ)}")
        if differ:      # plain nbgrader runs each grade cell's check() in the kernel, in its turn
            print("  (plain nbgrader scores each grade cell's check() in the student's kernel, when the "
                  "cell runs and on the public inputs; ours grades the notebook as it ends, on the "
                  "student's hidden inputs: a mutant that changes the networks in a later cell, or "
                  "that is wrong on some inputs only, can score more there)")
    print(load.warning())
    return 0


if __name__ == "__main__":
    sys.exit(main())
