"""Questions graded automatically: an answer that is a choice or a number.

Such a question is a task of course.toml like any other (its points, its `check("<id>")` cell),
whose answer the student writes in a code cell as a variable: `answer_<...> = "b"` (one of the
letters offered) or `answer_<...> = 0.25`. Its check (autograder/checks/<notebook>.py) hands this
module the variable's name and a function of the notebook's references that gives the key:

    @pytest.mark.task("sigmoid_factor")
    def test_sigmoid_factor(submission, public):
        answers.judge(submission, public, "answer_sigmoid_factor", ref.sigmoid_factor_answer)

The key is plain data, on the grader's side only (autograder/references/<notebook>.py): for a
choice `{"right": "b", "why": {"a": "why (a) is wrong", ...}}`, for a number `{"value": 0.25,
"tolerance": 1e-3, "hint": "what a wrong number missed"}`. It is read only when grading. The
self-check in the notebook checks the form of the answer (one of the letters, a finite number)
and then says "checked when graded" (`NotPublic`): it never calls the reference, so the public
cases of the student bundle, recorded by the same self-check, hold no key.
"""
from __future__ import annotations

import math
import re

from ..references import NotPublic


def _letter(value) -> str | None:
    """"b", "(b)", " B) " -> "b"; anything else None."""
    found = re.fullmatch(r"\s*\(?\s*([A-Za-z])\s*\)?\s*", value) if isinstance(value, str) else None
    return found[1].lower() if found else None


def _given(reply: dict, name: str, choices: str | None):
    """The student's answer in its checked form: a letter of `choices`, or a finite number."""
    value = reply["value"]
    shown = repr(value) if value is not None else f"a {reply['type']}"
    if choices:
        letter = _letter(value)
        assert letter is not None and letter in choices, (
            f"`{name}` must be one of {', '.join(repr(c) for c in choices)}; it is {shown}")
        return letter
    assert isinstance(value, float) and math.isfinite(value), (
        f"`{name}` must be a finite number; it is {shown}")
    return value


def judge(submission, public: bool, name: str, key, choices: str | None = None) -> None:
    """Check the answer held in the notebook's variable `name`: one of the letters `choices`
    (e.g. "abc"), or a number when `choices` is None; `key()` gives its key (see above),
    called only when grading."""
    given = _given(submission.probe("answer", variable=name), name, choices)
    if public:
        raise NotPublic(f"`{name}` is recorded; it is graded when you hand in the notebook")
    expected = key()
    if choices:
        assert given == expected["right"], (
            f"`{name}` = {given!r} is not the right choice"
            + (f": {expected['why'][given]}" if expected["why"].get(given) else ""))
        return
    assert abs(given - expected["value"]) <= expected["tolerance"], (
        f"`{name}` = {given:.6g} is too {'large' if given > expected['value'] else 'small'}"
        + (f": {expected['hint']}" if expected["hint"] else ""))
