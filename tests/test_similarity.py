"""`python -m autograder similarity SUBMISSIONS ASSIGNMENT` on a synthetic class of 01 (see
autograder/authoring/demo_students.py): honest students in their own styles, two planted copies
(renamed variables, reordered functions and cells, added comments), and the exercise handed in as it
was released. No notebook is run: the comparison reads code cells only."""
import csv
import subprocess
import sys
from html.parser import HTMLParser

import nbformat
import pytest

from autograder.reports import similarity
from autograder.authoring.demo_students import A, PLANTED, make_class
from tests.grading import COURSE, ROOT
from tests import similarity_class

pytest.importorskip("pygments")


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    root = tmp_path_factory.mktemp("similarity")
    notebooks = make_class(root / "submitted")
    run = subprocess.run([sys.executable, "-m", "autograder", "similarity", root / "submitted",
                          A.id, "--out", root / "graded", "--top", "5"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    with open(root / "graded" / f"similarity-{A.id}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, root / "graded" / f"similarity-{A.id}.html", notebooks, run.stdout


def _pair(row):
    return frozenset((row["student_a"], row["student_b"]))


def test_every_planted_copy_ranks_above_every_honest_pair(ranked):
    rows, _, notebooks, stdout = ranked
    planted = {frozenset(p) for p in PLANTED.items()}
    assert {_pair(r) for r in rows[:len(planted)]} == planted, rows[:4]
    honest = [float(r["similarity"]) for r in rows if _pair(r) not in planted
              and not _pair(r) & {"cleo"}]
    copies = [float(r["similarity"]) for r in rows if _pair(r) in planted]
    assert min(copies) > 0.8 and max(honest) < 0.6, (copies, max(honest))
    assert len(notebooks) == 11 and len(rows) == 11 * 10 // 2         # every pair, once
    assert "1. ivan   pat" in stdout or "1. jun    quinn" in stdout, stdout


def test_the_exercise_handed_in_as_released_scores_zero_with_everyone(ranked):
    rows, page, _, _ = ranked
    assert all(float(r["similarity"]) == 0 for r in rows if "cleo" in _pair(r))
    assert "cleo: no code of their own" in page.read_text()


def test_the_provided_code_is_removed_before_comparing(ranked):
    """The exercise as released has no fingerprints of its own; a solution keeps only those of
    what the student wrote; and two honest solutions in different styles, alike once the
    provided class, docstrings and plots are counted, are not alike without them."""
    _, _, notebooks, _ = ranked
    boilerplate = similarity.exercise_fingerprints(A)
    stub = nbformat.read(str(A.exercise_path()), as_version=4)
    assert similarity.fingerprint("cleo", similarity.submission_code(stub), boilerplate).starts == {}
    ivan, jun = (similarity.fingerprint(s, similarity.submission_code(notebooks[s]), boilerplate)
                 for s in ("ivan", "jun"))
    own = "".join(ivan.text[start:end] for start, end in zip(*ivan.passages(ivan.starts)))
    assert "children[id(parent)] -= 1" in own and "inv = 1.0 / other.value" in own
    assert "class Scalar" not in own and "plt.subplots" not in own
    whole = [similarity.fingerprint(s, similarity.submission_code(notebooks[s]))
             for s in ("ivan", "jun")]
    assert similarity.compare(ivan, jun).similarity < 0.3
    assert similarity.compare(*whole).similarity > 0.4    # K = 15 tokens: 0.45 (copydetect > 0.5)


@pytest.mark.parametrize("assignment_id", sorted(similarity_class.CLASSES))
def test_the_planted_class_ranks_every_copy_above_every_honest_pair(assignment_id, tmp_path):
    """tests/similarity_class.py: 12 honest students, 9 copiers (renamed, reordered, a helper
    inlined or extracted, loops as comprehensions, dead code, all at once, a chain of three).
    Measured: margins 0.29 (01) and 0.18 (06) between the lowest copy and the best honest pair."""
    planted = similarity_class.CLASSES[assignment_id]
    similarity_class.make_class(planted, tmp_path / "submitted")
    codes, unreadable = similarity.collect([tmp_path / "submitted"], planted.assignment, COURSE)
    assert len(codes) == 21 and not unreadable
    ranking = [(p.a.student, p.b.student, p.similarity) for p in similarity.rank(codes)]
    found = similarity_class.standing(planted, ranking)
    assert found.ranks == list(range(1, 11)) and found.margin > 0.15, str(found)


class _Marks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.depth, self.sections, self.marked = 0, [], {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs["id"])
        if tag == "mark":
            self.depth += 1

    def handle_endtag(self, tag):
        self.depth -= tag == "mark"

    def handle_data(self, data):
        if self.depth and self.sections:
            self.marked[self.sections[-1]] = self.marked.get(self.sections[-1], "") + data


def test_the_page_shows_the_top_pairs_side_by_side_with_the_shared_passages_marked(ranked):
    rows, page, _, _ = ranked
    parser = _Marks()
    parser.feed(page.read_text())
    assert parser.sections == [f"pair-{i}" for i in range(1, 6)]
    # the planted copy of ivan's Kahn-style backward pass is marked, renamed as pat renamed it
    first = parser.marked["pair-1" if _pair(rows[0]) == {"ivan", "pat"} else "pair-2"]
    assert "children[id(parent)] -= 1" in first and "n_children[id(parent)] -= 1" in first
    assert "NotImplementedError" not in page.read_text()
    # the exercise's own code (its plots, its check cells) is left out of the sides, as "…"
    assert "…" in page.read_text() and "plt.subplots" not in page.read_text()


def test_an_assignment_with_fewer_than_two_notebooks_says_so(tmp_path):
    make_class(tmp_path / "submitted", copies=False)
    run = subprocess.run([sys.executable, "-m", "autograder", "similarity", tmp_path / "submitted",
                          "02_matrix_autodiff", "--out", tmp_path / "graded"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "at least two are needed" in run.stderr, run.stderr


def test_grades_output_instead_of_the_notebooks_says_what_to_pass(tmp_path):
    (tmp_path / "graded" / "results" / "ivan").mkdir(parents=True)
    run = subprocess.run([sys.executable, "-m", "autograder", "similarity", tmp_path / "graded",
                          A.id, "--out", tmp_path / "out"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2 and "pass the submissions it graded" in run.stderr, run.stderr
