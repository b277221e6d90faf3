"""The blind corpus of student mistakes (issue 30): the yardstick the feedback's naming and locating
of mistakes is measured with.

Each module here, named after a notebook (`scalar_autodiff.py`, ...), holds `MISTAKES`, a list of
`Mistake`: one realistic bug planted in the solution source (`old` -> `new`, like the mutants), the
task it must cost, what a TA would say about it (`why`), and `expect`, the words any correct naming
of it would contain (see `names_it`). The corpus was written blind: from what students get wrong,
without the catalogue of known mistakes or the project's mutants in view, and nothing in the
grader may be tuned to it.

`self_check(source, assignment_id, tasks)` grades a source the cheap way, in this process: the
notebook's code cells run up to the last check cell of `tasks` (`check` doing nothing meanwhile,
as when grading), then the grader's checks of `tasks` run on that namespace with the public seed,
exactly as the notebook's own `check("...")` cell runs them (autograder/grading/selfcheck.py).
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import re
import warnings

import jupytext

from autograder.course.notebook import is_check_call_only
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import COURSE, Mutant, exercise_path, threadpool_limits

NOTEBOOKS = tuple(a.notebook for a in COURSE.assignments)


class Mistake(Mutant):
    """A realistic bug planted in a solution (`old` -> `new`), which must cost `task`.

    `expect`: words or phrases, any one of which a correct naming of this bug would contain
    (lower case, matched case-insensitively; a tuple of alternatives, each a string or a tuple of
    strings that must all occur). `wrong_value`: False for a bug that gives no wrong value on any
    input (a slowdown, say): such a mistake is kept in the corpus but left out of every rate."""

    def __init__(self, assignment: str, task: str, name: str, old: str, new: str, why: str,
                 expect: tuple, wrong_value: bool = True, slow: bool = False):
        super().__init__(assignment, task, name, old, new, why, slow)
        if not why or not expect:
            raise ValueError(f"{assignment}:{name}: every mistake needs `why` and `expect`")
        self.expect, self.wrong_value = tuple(expect), wrong_value

    def names_it(self, message: str) -> bool:
        """`message` contains one of `expect`'s alternatives (all of its words, if a tuple)."""
        text = message.lower()
        return any(all(w in text for w in ((a,) if isinstance(a, str) else a)) for a in self.expect)


def corpus(notebook: str | None = None) -> list:
    """The mistakes of `notebook` (all notebooks' when None), in corpus order."""
    names = NOTEBOOKS if notebook is None else (notebook,)
    return [m for name in names for m in importlib.import_module(f"{__name__}.{name}").MISTAKES]


ROUND = re.compile(r"^\s*# Round (\d+) ", re.M)    # "# Round 2 (date), written blind ..." in a module


def round_of(mistake: Mistake) -> int:
    """The round of the corpus that `mistake` was written in: 1, or the number of the last
    "# Round N" line of its module before it (each round was written blind to the rules that
    the rounds before it may have been used to tune)."""
    module = importlib.import_module(f"{__name__}.{COURSE.assignment(mistake.assignment).notebook}")
    text = inspect.getsource(module)
    at = text.find(f'"{mistake.name}"')
    if at < 0:
        raise ValueError(f"{mistake!r}: its name is not written in {module.__name__}")
    rounds = [int(m[1]) for m in ROUND.finditer(text) if m.start() < at]
    return rounds[-1] if rounds else 1


def _check_task(source: str) -> str | None:
    """The task id of a cell that only calls `check("...")`, else None."""
    if not is_check_call_only(source):
        return None
    [task] = re.findall(r'check\("([\w-]+)"\)', source)
    return task


def self_check(source: str, assignment_id: str, tasks) -> dict:
    """{task id: its result (judge.run_checks)} for `tasks` of the jupytext percent `source`, run
    in this process as described in the module's docstring. A cell that raises does not stop the
    run (the next cells run, as nbgrader runs a notebook); the checks report what is missing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    assignment = COURSE.assignment(assignment_id)
    cells = [c.source for c in jupytext.reads(source, fmt="py:percent").cells if c.cell_type == "code"]
    last = max(i for i, c in enumerate(cells) if _check_task(c) in set(tasks))
    folder = exercise_path(assignment_id).parent
    namespace = {"__name__": "__main__"}
    saved, cwd = os.environ.get("AUTOGRADER_GRADING"), os.getcwd()
    os.environ["AUTOGRADER_GRADING"] = "1"          # check() does nothing while the cells run
    try:
        os.chdir(folder)
        with threadpool_limits(1), warnings.catch_warnings(), open(os.devnull, "w") as devnull, \
                contextlib.redirect_stdout(devnull):
            warnings.simplefilter("ignore")
            for cell in cells[:last + 1]:
                try:
                    exec(compile(cell, "<cell>", "exec"), namespace)
                except Exception:  # noqa: BLE001 - a student's cell error: the checks report it
                    pass
                plt.close("all")
    finally:
        os.chdir(cwd)
        if saved is None:
            del os.environ["AUTOGRADER_GRADING"]
        else:
            os.environ["AUTOGRADER_GRADING"] = saved
    results = run_checks(LocalSubmission(namespace, assignment), assignment,
                         seed=COURSE.public_seed, public=True, tasks=list(tasks))
    return {r["id"]: r for r in results}


def outcome(mistake: Mistake) -> dict:
    """The self-check's result of `mistake`'s task on the solution with `mistake` planted."""
    return self_check(mistake.source(), mistake.assignment, [mistake.task])[mistake.task]


