"""The grading secret: what the hidden inputs of every student are derived from (with
seed_policy "per-student", autograder.grading.grade.grading_seed). Nobody who has only public
data (the repository, course.toml, the student bundle) may compute it.

Where it comes from, first that applies:
  1. AUTOGRADER_SECRET, if set (e.g. the same secret on every machine that grades);
  2. course.toml's `grading_seed`, only where the course says so explicitly
     (`secret_from_grading_seed = true` in [course]), with a warning: anyone who has course.toml
     can compute every student's hidden inputs;
  3. the secret file (`location`): AUTOGRADER_SECRET_FILE, else
     $XDG_CONFIG_HOME/dp-courseware/secret (~/.config/dp-courseware/secret). The first grading
     without one makes it: 32 random bytes (hex), mode 0600 (the instructor's only), and says
     where; later gradings on this machine use it, so results stay reproducible here.
Gradescope's and PrairieLearn's autograders carry a fresh secret file of their own
(`write_new`, root only, beside course.toml), which their scripts name in AUTOGRADER_SECRET_FILE.
"""
from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

from ..course.config import CourseError

ENV = "AUTOGRADER_SECRET"
FILE_ENV = "AUTOGRADER_SECRET_FILE"
MODE = 0o600
BYTES = 32
PUBLIC_WARNING = ("warning: the hidden inputs are derived from course.toml's grading_seed "
                  "(secret_from_grading_seed = true): anyone who has course.toml can compute "
                  "every student's; remove that key to use a secret of this machine, or set "
                  f"{ENV}")
_warned = set()


def location() -> Path:
    """Where the secret file of this machine is (whether or not it exists yet)."""
    if os.environ.get(FILE_ENV):
        return Path(os.environ[FILE_ENV])
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "dp-courseware" / "secret"


def get(course) -> str:
    """The secret for `course` (see the module's docstring for where it comes from)."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    if getattr(course, "secret_from_grading_seed", False):
        _say_once(PUBLIC_WARNING)
        return str(course.grading_seed)
    path = location()
    if not path.exists() and write_new(path):
        _say_once(f"autograder: no {ENV} set, so a random grading secret was made in {path} "
                  f"(mode 0600). Every later grading on this machine uses it: keep it, and copy "
                  f"it (or set {ENV}) to grade elsewhere with the same hidden inputs.")
    elif path.exists() and path.stat().st_mode & 0o077:
        _say_once(f"warning: the grading secret {path} is readable by others than its owner: "
                  f"chmod 600 {path}")
    return read(path)


def read(path: Path) -> str:
    """The secret in `path`; CourseError (the instructor's to fix) naming the file where it is empty or unreadable."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise CourseError(f"the grading secret {path} cannot be read: {error}") from None
    if not text:
        raise CourseError(f"the grading secret {path} is empty: remove it to make a new one, "
                         f"or set {ENV}")
    return text


def write_new(path: Path) -> bool:
    """Make a fresh random secret in `path`, mode 0600, unless one is there already (another
    process may have made it meanwhile: it is never replaced). True if this call made it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, MODE)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(BYTES) + "\n")
        os.link(partial, path)            # atomic, and never over an existing secret
        return True
    except FileExistsError:
        return False
    finally:
        partial.unlink(missing_ok=True)


def _say_once(message):
    if message not in _warned:
        _warned.add(message)
        print(message, file=sys.stderr, flush=True)
