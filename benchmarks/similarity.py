"""Time `python -m autograder similarity` on a class of 300 submissions of 01_scalar_autodiff:
reading and fingerprinting the notebooks, then comparing all 44,850 pairs. The class is the
synthetic one of autograder/authoring/demo_students.py (with its planted copies), made larger
with every combination of its styles in turn, each student with an experiment cell of their own.
Only the time is measured here: the many students with the same combination are near copies of
each other, so the ranking of this class says nothing.

With --planted, the ranking instead: the planted classes of tests/similarity_class.py (01 and
06; 12 honest students, 10 planted pairs each), ranked by `similarity`, and by copydetect (its
defaults, the provided lines removed as `similarity` did before) when it is installed: the
planted pairs' ranks, the lowest planted score, the best honest one and the margin; and, for
another notebook (04), the honest pairs' best and mean scores.

    .venv/bin/python benchmarks/similarity.py [--students 300] [--planted]
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
from autograder.course.notebook import code_cells, line_key  # noqa: E402
from tests import similarity_class  # noqa: E402


def copydetect_ranking(notebooks: dict, assignment) -> list:
    """[(student, student, score)] by copydetect 0.5 (k = 25 characters, window 6), the lines of
    the exercise removed first and its fingerprints subtracted: `similarity` before tokens."""
    import io
    from copydetect import CodeFingerprint, compare_files
    provided = similarity.provided_cells(assignment)
    given = {line_key(line) for code in provided for line in code.splitlines()}

    def prints(name, text, boilerplate=frozenset()):
        code = CodeFingerprint(name, 25, 6, language="python", fp=io.StringIO(text))
        code.hashes = code.hashes - boilerplate
        code.hash_idx = {h: i for h, i in code.hash_idx.items() if h not in boilerplate}
        return code
    boilerplate = frozenset(prints("provided", "\n\n".join(provided)).hashes)
    codes = {s: prints(s, "\n\n".join("\n".join(line for line in code.splitlines()
                                                  if line_key(line) not in given)
                                        for _, code in code_cells(nb)), boilerplate)
             for s, nb in notebooks.items()}
    ranking = []
    for a, b in itertools.combinations(sorted(codes), 2):
        score = 0.0
        if codes[a].hashes & codes[b].hashes:
            sides = compare_files(codes[a], codes[b])[1]
            score = sum(min(float(x), 1.0) for x in sides) / 2
        ranking.append((a, b, score))
    return sorted(ranking, key=lambda r: -r[2])


def rankings(cls, course, engines) -> dict:
    """{engine: [(student, student, score)]} of the class `cls`."""
    with tempfile.TemporaryDirectory() as folder:
        notebooks = similarity_class.make_class(cls, Path(folder) / "submitted")
        codes, _ = similarity.collect([Path(folder) / "submitted"], cls.assignment, course)
        ranked = {"similarity": [(p.a.student, p.b.student, p.similarity)
                                 for p in similarity.rank(codes)]}
        if "copydetect" in engines:
            ranked["copydetect"] = copydetect_ranking(notebooks, cls.assignment)
    return ranked


def planted(course):
    try:
        import copydetect  # noqa: F401
        engines = ("similarity", "copydetect")
    except ImportError:
        engines = ("similarity",)
        print("(copydetect is not installed: pip install 'copydetect>=0.5,<0.6' to compare)")
    for assignment_id, cls in similarity_class.CLASSES.items():
        for engine, ranking in rankings(cls, course, engines).items():
            print(f"{assignment_id} {engine:>10}: {similarity_class.standing(cls, ranking)}")
    for assignment_id, cls in similarity_class.HONEST_ONLY.items():
        for engine, ranking in rankings(cls, course, engines).items():
            scores = [score for _, _, score in ranking]
            print(f"{assignment_id} {engine:>10}: {len(scores)} honest pairs, best "
                  f"{max(scores):.2f}, mean {sum(scores) / len(scores):.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--planted", action="store_true", help="rank the planted classes")
    args = parser.parse_args()
    course = load_course()
    if args.planted:
        return planted(course)
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
