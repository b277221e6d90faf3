"""Students' names as the instructor reads them: invisible characters, and names that look alike.

A name comes from a folder or a file that a student (or their LMS) chose, so it can be made to
read as a classmate's: a Cyrillic "а" or a Greek "Α" for a Latin one, a fullwidth "ａ", a
trailing space, or a blank-looking character (U+2800 BRAILLE PATTERN BLANK, U+3164 HANGUL
FILLER) that no page shows. Two tools:

  * `INVISIBLE`: characters that show as nothing or move the text around them (Unicode's
    Default_Ignorable_Code_Point set, the bidi controls among them, other format and
    separator characters, and the blank-looking letters above). report.clean_text neutralises
    the bidi controls in every text of a submission; report.student_name lets no name keep any.
  * `lookalikes`: the names of a class whose confusable skeletons are the same. The skeleton
    is Unicode Technical Standard #39's (section 4): skeleton(X) = NFD(prototype(NFD(X))), each
    character replaced by its prototype from the standard's confusables.txt (confusables.json
    beside this file: the table, with Unicode's notice), with invisible characters, blanks and
    the grader's "~hash" suffix (report.student_name) left out first. Two names are confusable
    when their skeletons are equal: "alice", "аlice" (Cyrillic а) and "alice " are; "José",
    "Zoë" and "王芳" are like no other name and stay as they are.

Reports mark every name that has a look-alike (`marked`) and flag its rows (`flag`), so the
instructor is told, next to the name, that it is not the name it looks like.
"""
from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), which holds the bidi
# controls U+061C, U+200E-200F, U+202A-202E, U+2066-2069; plus the other format characters
# (category Cf), line and paragraph separators, and U+2800, which shows as a blank.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff\u0600-\u0605\u06dd\u070f\u08e2\U000110bd\U000110cd]")
# The bidi controls, which reorder the text around them ("score: 10/10" from "01/01 :erocs")
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
MARK = "⚠ look-alike"      # shown next to a name that has a look-alike in the class
HASHED = re.compile(r"~[0-9a-f]{12}$")    # report.student_name's suffix of a changed name


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict:
    table = Path(__file__).with_name("confusables.json")
    return json.loads(table.read_text(encoding="utf-8"))["prototypes"]


def skeleton(name: str) -> str:
    """UTS #39's skeleton of `name` (see the module's docstring), after leaving out the grader's
    "~hash" suffix, invisible characters and white space, and NFKC (as names are normalised)."""
    text = unicodedata.normalize("NFKC", HASHED.sub("", name))
    text = "".join(c for c in INVISIBLE.sub("", text) if not c.isspace())
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def lookalikes(names) -> dict:
    """{name: [the other names of `names` with the same skeleton]}, for the names that have one."""
    groups = {}
    for name in sorted(set(names)):
        groups.setdefault(skeleton(name), []).append(name)
    return {name: [other for other in group if other != name]
            for group in groups.values() if len(group) > 1 for name in group}


def spelled(name: str) -> str:
    """`name` with every character that is not printable ASCII named: "alicе" ->
    "alicе (е U+0435 CYRILLIC SMALL LETTER IE)"; blanks and invisible characters by code only."""
    odd = [c for c in dict.fromkeys(name) if not (" " < c < "\x7f")]
    if not odd:
        return repr(name)
    said = [f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() if INVISIBLE.match(c) or c.isspace()
            else f"{c} U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() for c in odd]
    return f"{name!r} ({', '.join(said)})"


def flag(name: str, others) -> str:
    """The flag of a name that looks like `others`' names."""
    return (f"{MARK}: the name {spelled(name)} looks like " + ", ".join(map(spelled, others))
            + "; check which student is which before entering grades")


def marked(name: str, found: dict) -> str:
    """`name`, and MARK after it when `found` (of `lookalikes`) says it has a look-alike."""
    return f"{name} [{MARK}]" if name in found else name
