"""How much of the corpus of mutants (tests/mutants) the feedback names (issue 19).

tests/test_mutants.py grades every mutant once; it asserts that the feedback of each mutant of
the written-from part names the known mistake that tests/mutants/<notebook>.py says (NAMED), and
writes what every mutant's feedback named to build/misconception_coverage/. This script reads
those outcomes and prints the coverage, per notebook, of the two parts of the corpus: the
written-from part (the catalogue was written from it) and the held-out part (HELD_OUT: measured
here, never asserted). A mutant is nameable unless UNNAMEABLE says why not (its bug is no wrong
value: a plot's labels, an exception, a side effect).

    python -m pytest -n 2 tests/test_mutants.py      # grades the corpus, writes the outcomes
    python -m tests.misconception_coverage           # prints the table
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from autograder import references
from autograder.grading.checking import NAMES, OR_NAMES
from autograder.references.derived import DERIVED_WHY
from autograder.course.config import ROOT, load_course

OUTCOMES = ROOT / "build" / "misconception_coverage"
def named_in(message: str, assignment_id: str) -> list:
    """The ids of the known mistakes of `assignment_id` that `message` names, and
    'derived: <why>' for each mistake derived from the reference's code that it names."""
    if NAMES not in message:
        return []
    named = message.split(NAMES, 1)[1].split(OR_NAMES)
    notebook = load_course().assignment(assignment_id).notebook
    return [m.id for m in references.catalogue(notebook)
            if any(text.startswith(m.why) for text in named)] + \
        [f"derived: {text}" for text in named if text.startswith(DERIVED_WHY)]


def record(mutant, result: dict) -> list:
    """Write what the feedback of `mutant` (its task's message in the graded `result`) names;
    returns those ids."""
    [task] = [t for t in result["tasks"] if t["id"] == mutant.task]
    named = named_in(task["message"], mutant.assignment)
    OUTCOMES.mkdir(parents=True, exist_ok=True)
    (OUTCOMES / f"{mutant!r}.json").write_text(json.dumps(
        {"mutant": repr(mutant), "why": mutant.why, "message": task["message"], "named": named}),
        encoding="utf-8")
    return named


def coverage(outcomes: dict) -> dict:
    """{notebook: {part: [nameable, named]}} for part in ("written-from", "held-out"), and the
    lists of what went wrong, from {repr of a mutant: its outcome}."""
    from tests.mutants import all_mutants, held_out, naming
    expected, unnameable = naming()
    table, missing, surprises = {}, [], []
    for mutant in all_mutants():
        name = repr(mutant)
        part = "held-out" if held_out(mutant) else "written-from"
        row = table.setdefault(mutant.assignment, {"written-from": [0, 0], "held-out": [0, 0]})
        outcome = outcomes.get(name)
        if outcome is None:
            missing.append(name)
            continue
        if name in unnameable:
            if outcome["named"]:
                surprises.append(f"{name} (not nameable: {unnameable[name]}) is named "
                                 f"{outcome['named']}")
            continue
        row[part][0] += 1
        right = expected.get(name) in outcome["named"] if part == "written-from" else \
            bool(outcome["named"])
        row[part][1] += right
    return {"table": table, "missing": missing, "surprises": surprises}


def main() -> int:
    outcomes = {}
    for path in sorted(OUTCOMES.glob("*.json")):
        outcome = json.loads(path.read_text(encoding="utf-8"))
        outcomes[outcome["mutant"]] = outcome
    if not outcomes:
        print(f"no outcomes in {OUTCOMES}: run python -m pytest tests/test_mutants.py first")
        return 1
    found = coverage(outcomes)
    total = {"written-from": [0, 0], "held-out": [0, 0]}
    print(f"{'notebook':<28}{'written-from':>20}{'held-out':>18}")
    for notebook, row in sorted(found["table"].items()):
        cells = []
        for part in total:
            total[part][0] += row[part][0]
            total[part][1] += row[part][1]
            cells.append(f"{row[part][1]} / {row[part][0]}")
        print(f"{notebook:<28}{cells[0]:>20}{cells[1]:>18}")
    print(f"{'total':<28}" + "".join(f"{f'{n} / {d}':>{w}}" for (d, n), w in
                                     zip(total.values(), (20, 18))))
    from tests.mutants import HELD_OUT, all_mutants, naming
    unnameable = naming()[1]
    held = sorted(repr(m) for m in all_mutants() if repr(m) in HELD_OUT)
    print(f"(named / nameable; the corpus: {len(all_mutants())} mutants, "
          f"{len(all_mutants()) - len(held)} written-from and {len(held)} held out, of which "
          f"{len(unnameable)} give no wrong value to name)")
    print("\nheld-out mutants (what their feedback names):")
    for name in held:
        outcome = outcomes.get(name)
        if name in unnameable:
            print(f"  {name}: not nameable, {unnameable[name]}")
        elif outcome is not None:
            print(f"  {name}: {', '.join(outcome['named']) or '-'}  ({outcome['why']})")
    for title in ("missing", "surprises"):
        if found[title]:
            print(f"\n{title}:\n  " + "\n  ".join(found[title]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
