"""The words of one task's verdict, for the self-check and for nbgrader's grade cells alike: how
many of its checks passed (plurals right), and the failed checks, each distinct mistake said once.

Grouping. A failed check's message says what differed ("d(a - b)/db at a=0.5, b=2: expected -1,
received 1") and may end with the explanation of a known mistake (`checking.NAMES`: "; it matches
a known mistake: <why>"). One mistake usually fails several checks: a wrong d(a - b)/db fails
every check of a subtraction, a stub fails every check with the same NotImplementedError. The
same explanation printed eight times hides the one thing to fix, so the failed checks are grouped
by their explanation (the part from NAMES on; without one, the whole message, when several checks
give it word for word), in the order each group first failed. A group of one is the check's line
as before; a larger group is one line with its count of checks and the explanation, then its
first check in full (without the explanation) and the names of the others.
"""
from __future__ import annotations

from .checking import NAMES

MAX_NAMES = 6   # the names of a group's other checks, at most; then "and N more"
# A question answered in words: graded by hand, never scored (or counted as 0) by the grader
BY_HAND, BY_HAND_MARK = "to be graded by hand", "✍"


def count(n: int, word: str) -> str:
    """'1 check', '2 checks'."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def all_passed(total: int) -> str:
    """'all 13 checks passed'; 'its 1 check passed' (not 'all 1 checks')."""
    return "its 1 check passed" if total == 1 else f"all {total} checks passed"


def some_passed(passed: int, total: int) -> str:
    """'12 of 13 checks passed', '0 of 1 check passed'."""
    return f"{passed} of {count(total, 'check')} passed"


def name(check: dict) -> str:
    """A check's name as a student reads it: 'test_reused_node[x*x]' -> 'reused node[x*x]'."""
    return str(check.get("name", "")).removeprefix("test_").replace("_", " ")


def failed_lines(checks: list, indent: str = "  ") -> list:
    """One line per failed check, or per group of failed checks with the same explanation
    (module docstring). `checks`: dicts with "name", "status" and "message"; those with status
    "passed" or "unchecked" are left out."""
    groups: dict = {}
    for check in checks:
        if check.get("status") in ("passed", "unchecked"):
            continue
        message = str(check.get("message", ""))
        at = message.find(NAMES)
        key = message[at:] if at >= 0 else message
        groups.setdefault(key, []).append((name(check), message[:at] if at >= 0 else ""))
    lines = []
    for key, members in groups.items():
        first, said = members[0]
        if len(members) == 1:
            lines.append(f"{indent}- {first}: {said}{key}")
            continue
        lines.append(f"{indent}- {count(len(members), 'check')}: {key.removeprefix(NAMES[:2])}")
        others = [member for member, _ in members]
        if said:                       # the explanation of a known mistake: its first case
            lines.append(f"{indent}    {first}: {said}")
            others = others[1:]
        shown = ", ".join(others[:MAX_NAMES])
        more = f" and {len(others) - MAX_NAMES} more" if len(others) > MAX_NAMES else ""
        lines.append(f"{indent}    {'also ' if said else ''}{shown}{more}")
    return lines
