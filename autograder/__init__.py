"""The autograder: grades notebook submissions with pytest checks; student code runs isolated.

Pipeline: course (course.toml) -> notebook (read, scan) -> sandbox/runner (execute, probe)
-> judge (pytest checks) -> report (JSON, CSV, HTML). In a notebook: ``check("task_id")``.
"""


def check(task_id: str) -> None:
    """Self-check one task of the notebook you are working on (see autograder.selfcheck)."""
    import sys
    from .selfcheck import check as run
    return run(task_id, namespace=sys._getframe(1).f_globals)


__all__ = ["check"]
