"""The nbgrader plugin's name in course folders made before the grader's packages (2026-11):
their nbgrader_config.py imports `autograder.nbgrader_plugin`, so that name keeps working. The
plugin is autograder.platforms.nbgrader_plugin; `nbgrader-course DIR` writes that name."""
from .platforms.nbgrader_plugin import SandboxGrade, autograde_preprocessors  # noqa: F401
