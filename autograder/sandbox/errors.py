"""What can go wrong while the grader talks to a submission.

Its own module, with no imports, so that the student bundle's `check()` (autograder.grading.selfcheck)
and the checks can name these errors without importing the sandbox and its isolation code.
"""


class ProbeError(Exception):
    """The student's code raised (or replied with something unusable) during a probe."""


class SubmissionTimeout(ProbeError):
    """The submission used up its wall time."""


class SubmissionCrashed(ProbeError):
    """The submission process died or broke the channel."""


class ProbeTimeout(SubmissionTimeout):
    """One probe call used up its own time budget (probe_time_limit): it fails alone, and the
    grader runs the notebook again, in a fresh process, for the probes after it."""



# What a check says of a probe call stopped by its budget (ProbeTimeout): grading's words, and
# the self-check's (which measures the call in the notebook's own process, on the student's
# machine, against the grader's budget).
_TOO_SLOW = ("code that gives the right values far too slowly does this, e.g. a backward pass that "
             "costs as much as numerical differentiation, entry by entry, where reverse mode costs "
             "about one forward pass")
PROBE_TIMEOUT = ("probe {name!r} took longer than its {budget:g} s (probe_time_limit, the time "
                 "of one probe call) and was stopped: " + _TOO_SLOW + ". This check gets no "
                 "points; the other tasks are graded on a fresh run of your notebook")
SELF_CHECK_TIMEOUT = ("probe {name!r} ran longer here than the {budget:g} s that grading gives "
                      "one probe call (probe_time_limit): graded, this check would get no points. "
                      + _TOO_SLOW[0].upper() + _TOO_SLOW[1:])


def where_raised(tb, theirs, label) -> str:
    """Where the student's code raised, said after an error's text: " (<label>)" of the innermost
    frame of the traceback `tb` whose file name `theirs` accepts (label(file name, function,
    line)), and ", raised inside <package>" when the error came from a library that line called
    (NumPy, dp: its own line would point the student at code that is not theirs to fix). "" when
    no frame is the student's."""
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    own = [i for i, (frame, _) in enumerate(frames) if theirs(frame.f_code.co_filename)]
    if not own:
        return ""
    frame, line = frames[own[-1]]
    where = label(frame.f_code.co_filename, frame.f_code.co_name, line)
    if own[-1] < len(frames) - 1:
        module = frames[-1][0].f_globals.get("__name__")
        where += f", raised inside {module.split('.')[0] if isinstance(module, str) else 'a library'}"
    return f" ({where})"
