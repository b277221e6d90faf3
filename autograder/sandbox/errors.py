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
