"""Copies found: `python -m autograder similarity SUBMISSIONS ASSIGNMENT`.

Compares the code cells of every pair of submitted notebooks of one assignment and writes

  OUT/similarity-<assignment>.html   the pairs ranked by similarity, and the top pairs' code side
                                     by side with the shared passages marked
  OUT/similarity-<assignment>.csv    rank, the two students, the similarities, shared characters

The comparison is copydetect's (MIT; the winnowing fingerprints of MOSS): each submission's code
is tokenized with Pygments, names become V/F/O, strings S, comments and whitespace go, so
renamed variables and added comments change nothing; fingerprints are sets, so reordered
functions and cells change little. What the exercise itself provides is removed first: every
line of a submission that is a line of the released notebook's code cells (the stubs'
signatures and docstrings, the provided helpers, plots and check cells) is left out, and so are
the fingerprints of the exercise's code, should a student have reformatted it.

A pair's similarity is the mean of its two sides: the share of each submission's own code
(after the provided code is removed) that is found in the other. The mean ranks a short
submission, most of whose few lines any solution has, below a pair that shares most of both.
Similar code is a reason to look, never proof: the page shows what is shared.
"""
from __future__ import annotations

import html
import io
import itertools
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..grading import names, report
from ..course.notebook import NotebookError, code_cells, line_key, read_notebook

# copydetect's defaults: k-grams of 25 characters of the filtered code (shorter matches are
# noise), and every shared passage of 30 or more characters is found (the winnowing window).
NOISE, GUARANTEE = 25, 30
WINDOW = GUARANTEE - NOISE + 1
TABLE_ROWS = 500         # pairs listed in the page's ranking (all of them are in the CSV)


@dataclass
class Code:
    """One submission's own code, and its fingerprints (copydetect's CodeFingerprint)."""
    student: str
    text: str
    fingerprint: object = field(repr=False)


@dataclass
class Pair:
    a: Code
    b: Code
    similarity: float            # the mean of the two sides
    sides: tuple                 # (share of a's code found in b, share of b's found in a)
    shared: int                  # characters of a's filtered code in shared passages
    slices: tuple = field(repr=False, default=((), ()))  # (starts, ends) in a.text and b.text


def provided_cells(assignment) -> list:
    """The code cells of the released exercise notebook, as a student receives them."""
    return [code for _, code in code_cells(read_notebook(assignment.exercise_path()))]


def own_code(notebook: dict, provided: list) -> str:
    """The notebook's code cells (grade cells excluded) without the exercise's code: the lines
    that are also lines of the exercise (`provided`; whitespace aside) are left out, so what is
    left of a stub is the body the student wrote, and of an unchanged cell nothing. Bidi
    controls are U+FFFD (names.BIDI): shown side by side, code must read as it runs."""
    given = {line_key(line) for code in provided for line in code.splitlines()}
    cells = ["\n".join(line for line in code.splitlines() if line_key(line) not in given)
             for _, code in code_cells(notebook)]
    return names.BIDI.sub("\ufffd", "\n\n".join(cell for cell in cells if cell.strip()))


def fingerprint(student: str, text: str, boilerplate: frozenset = frozenset()) -> Code:
    """`text` fingerprinted, without the fingerprints in `boilerplate`. They are removed here
    rather than by copydetect's `boilerplate` argument, whose np.intersect1d(assume_unique=True)
    is wrong when a fingerprint occurs twice in a file."""
    from copydetect import CodeFingerprint
    from copydetect.utils import get_token_coverage
    code = CodeFingerprint(f"{student}.py", NOISE, WINDOW, language="python", fp=io.StringIO(text))
    if boilerplate:
        code.hashes = code.hashes - boilerplate
        code.hash_idx = {h: i for h, i in code.hash_idx.items() if h not in boilerplate}
        code.token_coverage = get_token_coverage(code.hash_idx, NOISE, len(code.filtered_code))
    return Code(student, text, code)


def compare(a: Code, b: Code) -> Pair:
    from copydetect import compare_files
    if not (a.fingerprint.hashes & b.fingerprint.hashes):
        return Pair(a, b, 0.0, (0.0, 0.0), 0)
    shared, sides, slices = compare_files(a.fingerprint, b.fingerprint)
    sides = tuple(min(float(s), 1.0) for s in sides)
    return Pair(a, b, sum(sides) / 2, sides, int(shared), slices)


def rank(codes: list) -> list:
    """Every pair of `codes`, the most similar first (ties: by the students' names)."""
    pairs = [compare(a, b) for a, b in itertools.combinations(codes, 2)]
    return sorted(pairs, key=lambda p: (-p.similarity, p.a.student, p.b.student))


def collect(paths, assignment, course) -> tuple:
    """([Code] of each submitted notebook of `assignment` under `paths`, found as `grade` finds
    them, [(student, why)] of those that could not be read)."""
    from ..grading.grade import discover
    provided = provided_cells(assignment)
    boilerplate = frozenset(fingerprint("provided", "\n\n".join(provided)).fingerprint.hashes)
    codes, unreadable = [], []
    for submission in discover(paths, course, assignment.id):
        if submission.status != "graded" or submission.assignment_id != assignment.id:
            continue
        try:
            notebook = read_notebook(submission.path)
            codes.append(fingerprint(submission.student, own_code(notebook, provided), boilerplate))
        except NotebookError as error:
            unreadable.append((submission.student, report.clean_text(str(error), 1000)))
        except Exception as error:      # one notebook never stops the comparison of the others
            unreadable.append((submission.student, report.clean_text(f"{type(error).__name__}: {error}", 1000)))
    return codes, unreadable


# -- the page and the CSV ----------------------------------------------------------------------
def _marked(text: str, slices) -> str:
    """`text` escaped for HTML, with the passages in `slices` ((starts, ends)) in <mark>."""
    spans = sorted(zip(*(list(map(int, s)) for s in slices))) if len(slices[0]) else []
    out, at = [], 0
    for start, end in spans:
        start = max(start, at)
        if end <= start:
            continue
        out += [html.escape(text[at:start]), f"<mark>{html.escape(text[start:end])}</mark>"]
        at = end
    return "".join(out + [html.escape(text[at:])])


def _side(code: Code, share: float, slices, similar) -> str:
    return (f"<div><h3>{html.escape(names.marked(code.student, similar))} ({100 * share:.0f} % of it shared)</h3>"
            f"<pre>{_marked(code.text, slices)}</pre></div>\n")


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
{_side(p.a, p.sides[0], p.slices[0], similar)}{_side(p.b, p.sides[1], p.slices[1], similar)}
</div></section>""" for i, p in enumerate(shown, start=1))
    empty = [c.student for c in codes if not c.fingerprint.hashes]
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
<p>{len(codes)} submissions, {len(pairs)} pairs compared by copydetect, after removing the code
the exercise provides. Similarity: the mean of the shares of each one's own code found in the
other (both shares are given). Marked: the shared passages. Similar code is a reason to look,
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
        import copydetect  # noqa: F401
    except ImportError:
        print("error: the similarity check needs copydetect: pip install -e '.[similarity]'",
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
