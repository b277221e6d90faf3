"""Copies found: `python -m autograder similarity SUBMISSIONS ASSIGNMENT`.

Compares the code cells of every pair of submitted notebooks of one assignment and writes

  OUT/similarity-<assignment>.html   the pairs ranked by similarity, and the top pairs' code side
                                     by side with the shared passages marked
  OUT/similarity-<assignment>.csv    rank, the two students, the similarities, shared characters

The comparison (the k-gram fingerprints of MOSS and Dolos, on normalised tokens):

- Each submission's code cells (grade cells excluded) are cut into tokens with Pygments; every
  name becomes V (an attribute after `.` keeps its name: `.value`, `np.sqrt` are the exercise's
  API, not the student's choice), every string S; comments, docstrings and layout go. Renamed
  variables, added comments and reformatting change nothing.
- Its fingerprints are the set of its k-grams, K = 15 consecutive tokens (hashed with BLAKE2b,
  the same in every run). A set: reordered functions, cells and statements change only the
  k-grams across the seams.
- The exercise is subtracted at the fingerprint level: the k-grams of the released notebook's
  code (the stubs' signatures and docstrings, the provided helpers, plots and check cells) are
  removed from every submission's set. What is left is the student's own code; a notebook
  handed in as released has none.
- A pair's similarity is the mean of its two sides, |A ∩ B| / |A| and |A ∩ B| / |B|: the
  share of each one's own fingerprints found in the other. The mean ranks a short submission,
  most of whose few k-grams any solution has, below a pair that shares most of both.

K = 15 was chosen by measuring on the planted class of tests/similarity_class.py (12 honest
students and 10 planted pairs for each of 01 and 06; benchmarks/similarity.py --planted): every
planted pair first, with the margins given in docs/INSTRUCTORS.md. Similar code is a reason to
look, never proof: the page shows what is shared.
"""
from __future__ import annotations

import hashlib
import html
import itertools
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..grading import names, report
from ..course.notebook import NotebookError, code_cells, read_notebook

K = 15                   # tokens per k-gram: shorter matches are what any solution has in common
TABLE_ROWS = 500         # pairs listed in the page's ranking (all of them are in the CSV)


@dataclass
class Code:
    """One submission's code cells, its tokens' (start, end) in `text`, and the fingerprints of
    its own code: {k-gram hash: [the index of its first token, at each occurrence]}."""
    student: str
    text: str
    starts: dict = field(repr=False)
    tokens: list = field(repr=False, default_factory=list)

    @property
    def hashes(self) -> frozenset:
        return frozenset(self.starts)

    def covered(self, hashes) -> int:
        """Characters of the tokens that the k-grams `hashes` cover (runs of token indices
        merged, then measured with the tokens' cumulative lengths)."""
        total, run = 0, None
        for i in sorted(i for h in hashes for i in self.starts[h]):
            if run and i <= run[1]:
                run[1] = i + K
                continue
            total += self._length(*run) if run else 0
            run = [i, i + K]
        return total + (self._length(*run) if run else 0)

    def _length(self, first: int, stop: int) -> int:
        return sum(end - start for start, end in self.tokens[first:stop])

    def passages(self, hashes) -> tuple:
        """(starts, ends) of the text that the k-grams `hashes` cover: their tokens, those with
        only blanks between them joined (a comment or docstring between them is not covered)."""
        covered = sorted({i + j for h in hashes for i in self.starts[h] for j in range(K)})
        starts, ends = [], []
        for i in covered:
            start, end = self.tokens[i]
            if ends and not self.text[ends[-1]:start].strip():
                ends[-1] = end
            else:
                starts.append(start)
                ends.append(end)
        return starts, ends


@dataclass
class Pair:
    a: Code
    b: Code
    similarity: float            # the mean of the two sides
    sides: tuple                 # (share of a's fingerprints found in b, share of b's found in a)
    shared: int                  # characters of a's tokens in shared k-grams

    @property
    def slices(self) -> tuple:
        """((starts, ends) of the shared passages in a's text, in b's)."""
        common = self.a.starts.keys() & self.b.starts.keys()
        return self.a.passages(common), self.b.passages(common)


def provided_cells(assignment) -> list:
    """The code cells of the released exercise notebook, as a student receives them."""
    return [code for _, code in code_cells(read_notebook(assignment.exercise_path()))]


def tokens(text: str) -> list:
    """[(token, start, end)] of `text`, normalised: names V (attributes after `.` as written),
    strings S (one S for adjacent parts), comments, docstrings and whitespace left out."""
    from pygments.lexers import PythonLexer
    from pygments.token import Comment, Name, String, Text, Whitespace
    out, previous = [], None
    for start, kind, value in PythonLexer().get_tokens_unprocessed(text):
        if kind in Comment or kind in Whitespace or kind in String.Doc or not value.strip():
            continue
        if kind in String:
            token = "S"
        elif kind in Name and previous != ".":
            token = "V"
        else:
            token = value.strip()
        previous = value.strip()
        if token == "S" and out and out[-1][0] == "S":
            out[-1] = ("S", out[-1][1], start + len(value))     # "a" "b", f-string parts: one S
            continue
        out.append((token, start, start + len(value)))
    return out


def kgrams(stream: list) -> dict:
    """{hash of each k-gram of the `stream` of tokens: [index of its first token, each time]}."""
    found = {}
    for i in range(len(stream) - K + 1):
        key = hashlib.blake2b("\x1f".join(t for t, _, _ in stream[i:i + K]).encode(),
                              digest_size=8).digest()
        found.setdefault(key, []).append(i)
    return found


def exercise_fingerprints(assignment) -> frozenset:
    """The hashes of the k-grams of the released exercise's code cells."""
    return frozenset(kgrams(tokens("\n\n".join(provided_cells(assignment)))))


def fingerprint(student: str, text: str, boilerplate: frozenset = frozenset()) -> Code:
    """`text` fingerprinted, without the fingerprints in `boilerplate` (the exercise's)."""
    text = names.BIDI.sub("\ufffd", text)      # shown side by side, code must read as it runs
    stream = tokens(text)
    return Code(student, text, {h: i for h, i in kgrams(stream).items() if h not in boilerplate},
                [(start, end) for _, start, end in stream])


def compare(a: Code, b: Code) -> Pair:
    common = a.starts.keys() & b.starts.keys()
    if not common:
        return Pair(a, b, 0.0, (0.0, 0.0), 0)
    sides = (len(common) / len(a.starts), len(common) / len(b.starts))
    return Pair(a, b, sum(sides) / 2, sides, a.covered(common))


def rank(codes: list) -> list:
    """Every pair of `codes`, the most similar first (ties: by the students' names)."""
    pairs = [compare(a, b) for a, b in itertools.combinations(codes, 2)]
    return sorted(pairs, key=lambda p: (-p.similarity, p.a.student, p.b.student))


def submission_code(notebook: dict) -> str:
    """The notebook's code cells (grade cells excluded), one after the other."""
    return "\n\n".join(code for _, code in code_cells(notebook))


def collect(paths, assignment, course) -> tuple:
    """([Code] of each submitted notebook of `assignment` under `paths`, found as `grade` finds
    them, [(student, why)] of those that could not be read)."""
    from ..grading.grade import discover
    boilerplate = exercise_fingerprints(assignment)
    codes, unreadable = [], []
    for submission in discover(paths, course, assignment.id):
        if submission.status != "graded" or submission.assignment_id != assignment.id:
            continue
        try:
            notebook = read_notebook(submission.path)
            codes.append(fingerprint(submission.student, submission_code(notebook), boilerplate))
        except NotebookError as error:
            unreadable.append((submission.student, report.clean_text(str(error), 1000)))
        except Exception as error:      # one notebook never stops the comparison of the others
            unreadable.append((submission.student, report.clean_text(f"{type(error).__name__}: {error}", 1000)))
    return codes, unreadable


# -- the page and the CSV ----------------------------------------------------------------------
def _clipped(spans, start: int, end: int) -> list:
    """The parts of the character `spans` ((start, end), sorted) within [start, end)."""
    return [(max(s, start), min(e, end)) for s, e in spans if s < end and e > start]


def _marked(text: str, spans) -> str:
    """`text` escaped for HTML, with the character `spans` ((start, end), sorted) in <mark>."""
    out, at = [], 0
    for start, end in spans:
        start = max(start, at)
        if end <= start:
            continue
        out += [html.escape(text[at:start]), f"<mark>{html.escape(text[start:end])}</mark>"]
        at = end
    return "".join(out + [html.escape(text[at:])])


def _own_lines(code: Code, slices) -> str:
    """The lines of `code` that hold its own fingerprints, the shared passages (`slices`:
    (starts, ends)) marked; a run of other lines (the exercise's code) shows as one "…"."""
    own = list(zip(*code.passages(code.starts)))
    shared = sorted(zip(*slices))
    out, at, skipped = [], 0, False
    for line in code.text.splitlines(keepends=True):
        start, end = at, at + len(line)
        at = end
        if _clipped(own, start, end):
            out.append(_marked(line, [(s - start, e - start)
                                      for s, e in _clipped(shared, start, end)]))
            skipped = False
        elif not skipped:
            out.append("…\n")
            skipped = True
    return "".join(out)


def _side(code: Code, share: float, slices, similar) -> str:
    return (f"<div><h3>{html.escape(names.marked(code.student, similar))} ({100 * share:.0f} % of it shared)</h3>"
            f"<pre>{_own_lines(code, slices)}</pre></div>\n")


def _link(rank: int) -> str:
    return f"<a href='#pair-{rank}'>side by side</a>"


def similarity_html(assignment, pairs: list, codes: list, unreadable: list, top: int) -> str:
    e = html.escape
    similar = names.lookalikes([c.student for c in codes] + [s for s, _ in unreadable])
    who = {s: e(names.marked(s, similar)) for s in similar.keys() | {c.student for c in codes}
           | {s for s, _ in unreadable}}
    shown = [p for p in pairs[:top] if p.similarity > 0]
    rows = "".join(
        f"<tr><td>{i}</td><td>{who[p.a.student]}</td><td>{who[p.b.student]}</td>"
        f"<td class='score'>{100 * p.similarity:.0f} %</td>"
        f"<td>{100 * p.sides[0]:.0f} % / {100 * p.sides[1]:.0f} %</td><td>{p.shared}</td>"
        f"<td>{_link(i) if i <= len(shown) else ''}</td></tr>"
        for i, p in enumerate(pairs[:TABLE_ROWS], start=1) if p.similarity > 0)
    sides = "".join(
        f"""<section class="pair" id="pair-{i}"><h2>{i}. {who[p.a.student]} and {who[p.b.student]}:
{100 * p.similarity:.0f} %</h2><div class="side-by-side">
{''.join(_side(c, share, where, similar) for c, share, where in zip((p.a, p.b), p.sides, p.slices))}
</div></section>""" for i, p in enumerate(shown, start=1))
    empty = [c.student for c in codes if not c.starts]
    notes = "".join(f"<li>{who[s]}: not compared: {e(why)}</li>" for s, why in unreadable) + "".join(
        f"<li>{who[s]}: no code of their own (the exercise's code only)</li>" for s in empty) + "".join(
        f"<li>{e(names.flag(s, others))}</li>" for s, others in similar.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{e(assignment.id)}: similar submissions</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 90em;
       color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .3em .6em; }}
.side-by-side {{ display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }}
pre {{ background: #f7f7f7; padding: .6em; font-size: .8em; white-space: pre-wrap;
       overflow-wrap: anywhere; }} td, li {{ overflow-wrap: anywhere; }}
mark {{ background: #ffd966; }} .score {{ font-weight: bold; }}
</style></head><body>
<h1>{e(assignment.id)} — similar submissions</h1>
<p>{len(codes)} submissions, {len(pairs)} pairs compared by their fingerprints (runs of {K}
tokens, names and strings normalised), after removing those of the code the exercise provides.
Similarity: the mean of the shares of each one's own fingerprints found in the other (both
shares are given). Marked: the shared passages. Similar code is a reason to look,
not proof of copying.</p>
{f"<ul id='notes'>{notes}</ul>" if notes else ""}
<table id="pairs"><thead><tr><th>rank</th><th>student</th><th>student</th><th>similarity</th>
<th>shares</th><th>shared characters</th><th></th></tr></thead><tbody>{rows}</tbody></table>
{sides}
</body></html>
"""


def similarity_csv(pairs: list) -> str:
    similar = names.lookalikes(s for p in pairs for s in (p.a.student, p.b.student))
    return report.csv_text([["rank", "student_a", "student_b", "similarity", "similarity_a",
                             "similarity_b", "shared_characters"]]
                           + [[i, names.marked(p.a.student, similar), names.marked(p.b.student, similar),
                               f"{p.similarity:.4f}",
                               f"{p.sides[0]:.4f}", f"{p.sides[1]:.4f}", p.shared]
                              for i, p in enumerate(pairs, start=1)])


def write(out: Path, assignment, pairs: list, codes: list, unreadable: list, top: int) -> tuple:
    out = Path(out)
    html_path = out / f"similarity-{assignment.id}.html"
    csv_path = out / f"similarity-{assignment.id}.csv"
    report.atomic_write(html_path, similarity_html(assignment, pairs, codes, unreadable, top))
    report.atomic_write(csv_path, similarity_csv(pairs))
    return html_path, csv_path


def main(args, course) -> int:
    try:
        import pygments  # noqa: F401
    except ImportError:
        print("error: the similarity check needs pygments: pip install -e '.[similarity]'",
              file=sys.stderr)
        return 2
    assignment = course.assignment(args.assignment)
    codes, unreadable = collect([args.submissions], assignment, course)
    if len(codes) < 2:
        hint = (": this is what `grade` wrote; pass the submissions it graded (the notebooks)"
                if (Path(args.submissions) / "results").is_dir() else "")
        raise FileNotFoundError(f"{args.submissions}: {len(codes)} readable notebook(s) of "
                                f"{assignment.id}; at least two are needed to compare{hint}")
    pairs = rank(codes)
    html_path, csv_path = write(args.out, assignment, pairs, codes, unreadable, args.top)
    similar = names.lookalikes(c.student for c in codes)
    shown = {c.student: names.marked(c.student, similar) for c in codes}
    width = max(map(len, shown.values()))
    print(f"{len(codes)} submissions of {assignment.id}, {len(pairs)} pairs; the most similar:")
    for i, p in enumerate(pairs[:10], start=1):
        print(f"  {i:>2}. {shown[p.a.student]:<{width}}  {shown[p.b.student]:<{width}}  "
              f"{100 * p.similarity:3.0f} %")
    for student, why in unreadable:
        print(f"  not compared: {student}: {why}")
    print(f"\nside by side: {html_path}\nall pairs:    {csv_path}")
    return 0
