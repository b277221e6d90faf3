"""Time `python -m autograder similarity` on a class of 300 submissions of 01_scalar_autodiff:
reading and fingerprinting the notebooks, then comparing all 44,850 pairs. The class is the
synthetic one of tests/similarity_class.py (with its planted copies), made larger with every
combination of its styles in turn, each student with an experiment cell of their own. Only the
time is measured here: the many students with the same combination are near copies of each
other, so the ranking of this class says nothing (tests/test_similarity.py checks the ranking).

    .venv/bin/python benchmarks/similarity.py [--students 300]
"""
import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder.reports import similarity  # noqa: E402
from autograder.course.config import load_course  # noqa: E402
from autograder.authoring.demo_students import A, STYLES, make_class, notebook  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--students", type=int, default=300)
    args = parser.parse_args()
    course = load_course()
    with tempfile.TemporaryDirectory() as folder:
        submitted = Path(folder) / "submitted"
        make_class(submitted)
        combos = itertools.cycle(itertools.product(STYLES, repeat=3))
        count = len(list(submitted.iterdir()))
        while count < args.students:
            styles = next(combos)
            nb = notebook(styles, f"x = Scalar({count}.5)\nprint(x * {count} + x.exp())")
            path = submitted / f"s{count:03d}" / A.id / f"{A.notebook}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(nb, str(path))
            count += 1
        start = time.perf_counter()
        codes, _ = similarity.collect([submitted], A, course)
        read = time.perf_counter() - start
        start = time.perf_counter()
        pairs = similarity.rank(codes)
        compared = time.perf_counter() - start
    print(f"{len(codes)} submissions of {A.id}: read and fingerprinted in {read:.1f} s, "
          f"{len(pairs)} pairs compared in {compared:.1f} s")


if __name__ == "__main__":
    main()
