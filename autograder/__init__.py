"""The autograder: grades notebook submissions with pytest checks; student code runs isolated.

Pipeline: course (course.toml) -> notebook (read, scan) -> sandbox/runner (execute, probe)
-> judge (pytest checks) -> report (JSON, CSV, HTML). In a notebook: ``check("task_id")``.
"""


def check(task_id: str) -> None:
    """Self-check one task of the notebook you are working on (see autograder.grading.selfcheck)."""
    import sys
    from .grading.selfcheck import check as run
    return run(task_id, namespace=sys._getframe(1).f_globals)


__all__ = ["check"]


def _no_command_line_in_the_bundle() -> None:
    """`python -m autograder ...` in the student bundle, which has the self-check but not the
    grader's command line (its __main__): say what to do instead of Python's "No module named
    autograder.__main__". (While `-m` looks for the module, sys.argv[0] is "-m".)"""
    import sys
    from pathlib import Path
    argv = list(getattr(sys, "orig_argv", []))
    asked = "-m" in argv and argv[argv.index("-m") + 1:argv.index("-m") + 2] == ["autograder"]
    if sys.argv[:1] == ["-m"] and asked and not Path(__file__).with_name("__main__.py").exists():
        sys.exit("python -m autograder: the grader's command line is the instructor's; this course "
                 "folder has the self-check only.\nCheck your work in the notebook: run its "
                 "check(\"<task id>\") cells (make lab opens JupyterLab on the exercises). See "
                 "README.md, \"Check your work\".")


_no_command_line_in_the_bundle()
