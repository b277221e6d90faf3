"""How much of the corpus of mutants (tests/mutants) the feedback names (issue 19), and how much of
the blind corpus of student mistakes (tests/blind_mistakes) it names or locates (issue 30).

tests/test_mutants.py grades every mutant once; it asserts that the feedback of each mutant of
the written-from part names the known mistake that tests/mutants/<notebook>.py says (NAMED), and
writes what every mutant's feedback named to build/misconception_coverage/. This script reads
those outcomes and prints the coverage, per notebook, of the two parts of the corpus: the
written-from part (the catalogue was written from it) and the held-out part (HELD_OUT: measured
here, never asserted). A mutant is nameable unless UNNAMEABLE says why not (its bug is no wrong
value: a plot's labels, an exception, a side effect).

    python -m pytest -n 2 tests/test_mutants.py      # grades the corpus, writes the outcomes
    python -m tests.misconception_coverage           # prints the table

The blind corpus was written without the catalogue or the mutants in view. Each of its mistakes
is graded by the self-check with the public seed (tests.blind_mistakes.self_check);
tests/test_blind_mistakes.py writes each outcome to build/misconception_coverage/blind/, and this
script grades those it does not find (all of them with --regrade: an outcome is as old as the run
that wrote it). Of the mistakes that give a wrong value, per notebook, each is counted once:
  named          the message names a mistake (after NAMES, as catalogue names are; derived names
                 are to read the same) and a name contains one of the mistake's `expect` phrases;
  named wrongly  it names mistakes, none of which contains an `expect` phrase;
  located        not named, but a sentence locates the first difference (LOCATED), or the
                 message is an error of their code with the line of their code that raised it
                 (RAISED_AT; counted apart too);
  neither        the rest.
"""
from __future__ import annotations

import json
import re
import sys

from autograder import references
from autograder.grading.checking import NAMES, OR_NAMES
from autograder.references.derived import DERIVED_WHY
from autograder.course.config import ROOT, load_course

OUTCOMES = ROOT / "build" / "misconception_coverage"
BLIND_OUTCOMES = OUTCOMES / "blind"
# A message locates the mistake when a sentence of it begins "The first difference" or it says
# what "first differs": the form the locating sentence of the feedback ends with (issue 30, 3).
LOCATED = re.compile(r"(?:^|[.!?;:]\s+)The first difference|\bfirst differs\b", re.M)
# An error is located when the message says the line of the student's code that raised it
# ("your code raised ValueError: ... (in softmax, line 6)", the innermost frame of their code,
# not NumPy's or dp's): on the message's first line, which is the task's first failing check.
RAISED_AT = re.compile(r"^your code raised .*\(in [^()]*, line \d+", re.M)
VERDICTS = ("named", "named wrongly", "located", "neither")


def names(message: str) -> list:
    """The texts of the mistakes `message` names (each from its name to the next, or to the end)."""
    return message.split(NAMES, 1)[1].split(OR_NAMES) if NAMES in message else []


def named_in(message: str, assignment_id: str) -> list:
    """The ids of the known mistakes of `assignment_id` that `message` names, and
    'derived: <why>' for each mistake derived from the reference's code that it names."""
    named = names(message)
    if not named:
        return []
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


def verdict(mistake, message: str) -> str:
    """One of VERDICTS for the feedback `message` of a blind `mistake` (see the docstring)."""
    named = names(message)
    if named:
        return "named" if any(mistake.names_it(text) for text in named) else "named wrongly"
    return "located" if LOCATED.search(message) or raised_at(message) else "neither"


def raised_at(message: str) -> bool:
    """The message's first line is an error of the student's code, with the line that raised it."""
    return bool(RAISED_AT.match(message.split("\n", 1)[0]))


def record_blind(mistake, result: dict) -> None:
    """Write the outcome of a blind `mistake`: its task's `result` (tests.blind_mistakes.outcome)."""
    BLIND_OUTCOMES.mkdir(parents=True, exist_ok=True)
    (BLIND_OUTCOMES / f"{mistake!r}.json").write_text(json.dumps(
        {"mistake": repr(mistake), "status": result["status"], "message": result["message"]}),
        encoding="utf-8")


def blind_outcomes(regrade: bool = False) -> dict:
    """{repr of a blind mistake: its outcome}: those written, and the others graded now."""
    from tests.blind_mistakes import corpus, outcome
    found = {}
    for mistake in corpus():
        path = BLIND_OUTCOMES / f"{mistake!r}.json"
        if regrade or not path.exists():
            print(f"grading {mistake!r}", file=sys.stderr, flush=True)
            record_blind(mistake, outcome(mistake))
        found[repr(mistake)] = json.loads(path.read_text(encoding="utf-8"))
    return found


def blind_coverage(outcomes: dict, rounds=None) -> dict:
    """{"table": {assignment: {verdict: count}} over the blind mistakes that give a wrong value,
    "wrongly": [(mistake, the names given)], "slowdowns named": [mistake]} from blind_outcomes();
    of the mistakes of `rounds` only (tests.blind_mistakes.round_of), when given."""
    from tests.blind_mistakes import corpus, round_of
    table, wrongly, slowdowns, raised = {}, [], [], 0
    for mistake in corpus():
        if rounds is not None and round_of(mistake) not in rounds:
            continue
        message = outcomes[repr(mistake)]["message"]
        if not mistake.wrong_value:
            if names(message):
                slowdowns.append(repr(mistake))
            continue
        found = verdict(mistake, message)
        table.setdefault(mistake.assignment, dict.fromkeys(VERDICTS, 0))[found] += 1
        if found == "named wrongly":
            wrongly.append((repr(mistake), names(message)))
        raised += found == "located" and not LOCATED.search(message)
    return {"table": table, "wrongly": wrongly, "slowdowns named": slowdowns, "raised": raised}


def print_blind(found: dict, held_out: dict) -> None:
    """The blind corpus's table, next to the mutants' held-out coverage (`held_out`:
    {assignment: [nameable, named]}, empty when the mutants' outcomes are missing)."""
    columns = ("held-out",) + VERDICTS + ("named or located",)
    print(f"{'blind corpus':<28}" + "".join(f"{c:>17}" for c in columns))
    total = dict.fromkeys(VERDICTS, 0)
    held_total = [0, 0]
    for assignment, row in sorted(found["table"].items()):
        n = sum(row.values())
        held = held_out.get(assignment)
        held_total = [a + b for a, b in zip(held_total, held or (0, 0))]
        cells = [f"{held[1]} / {held[0]}" if held else "-"]
        cells += [f"{row[v]} / {n}" for v in VERDICTS] + [f"{row['named'] + row['located']} / {n}"]
        print(f"{assignment:<28}" + "".join(f"{c:>17}" for c in cells))
        for v in VERDICTS:
            total[v] += row[v]
    n = sum(total.values())
    cells = [f"{held_total[1]} / {held_total[0]}" if held_out else "-"]
    cells += [f"{total[v]} / {n} ({total[v] / n:.0%})" for v in VERDICTS]
    cells += [f"{total['named'] + total['located']} / {n} "
              f"({(total['named'] + total['located']) / n:.0%})"]
    print(f"{'total':<28}" + "".join(f"{c:>17}" for c in cells))
    print("(blind: the mistakes that give a wrong value, graded by the self-check with the public "
          "seed; held-out: the mutants' named / nameable)")
    print(f"(located: {total['located'] - found['raised']} by the first difference, "
          f"{found['raised']} errors by the line of the student's code that raised them)")
    if found["wrongly"]:
        print("\nnamed wrongly:\n  " + "\n  ".join(f"{m}: {'; or: '.join(n)}"
                                                  for m, n in found["wrongly"]))
    if found["slowdowns named"]:
        print("\nnamed, though they give no wrong value:\n  " + "\n  ".join(found["slowdowns named"]))


def main(argv=None) -> int:
    """Print the mutants' coverage (when their outcomes are written), then the blind corpus's
    (graded now where no outcome is written; all of it with --regrade)."""
    argv = sys.argv[1:] if argv is None else argv
    outcomes = {}
    for path in sorted(OUTCOMES.glob("*.json")):
        outcome = json.loads(path.read_text(encoding="utf-8"))
        outcomes[outcome["mutant"]] = outcome
    held_out = {}
    if outcomes:
        held_out = {a: row["held-out"] for a, row in print_mutants(outcomes).items()}
    else:
        print(f"no outcomes in {OUTCOMES}: run python -m pytest tests/test_mutants.py first "
              f"for the mutants' coverage")
    print()
    found = blind_outcomes(regrade="--regrade" in argv)
    print_blind(blind_coverage(found), held_out)
    from tests.blind_mistakes import corpus, round_of
    for n in sorted({round_of(m) for m in corpus()}):
        print(f"\nround {n} of the blind corpus alone:")
        print_blind(blind_coverage(found, rounds={n}), held_out)
    return 0


def print_mutants(outcomes: dict) -> dict:
    """Print the mutants' coverage from their `outcomes`; returns its table (coverage())."""
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
    return found["table"]




if __name__ == "__main__":
    sys.exit(main())
