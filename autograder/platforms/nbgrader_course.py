"""`python -m autograder nbgrader-course DIR`: this course as an nbgrader course directory.

    DIR/nbgrader_config.py                  course id, gradebook, exchange, the kernel's setup
    DIR/source/<assignment>/<notebook>.ipynb nbgrader source notebooks (made by autograder.authoring.build)
    DIR/release/<assignment>/<notebook>.ipynb made by the real `nbgrader generate_assignment`
    DIR/gradebook.db                         the assignments, their grade cells, the students
    DIR/exchange/                            a local exchange for release_assignment/collect

In DIR, nbgrader works as usual: `nbgrader autograde <assignment>`, `generate_feedback`, `export`,
and formgrader (`jupyter lab` or `jupyter server` started in DIR).

Each grade cell is `check("<task id>")`, worth the task's points in course.toml. For students
it is the self-check. `nbgrader autograde` does not run it: the course's configuration replaces
nbgrader's kernel execution with autograder.platforms.nbgrader_plugin.SandboxGrade, which grades the
submitted notebook as `python -m autograder grade` does (sandbox, hidden per-student seed,
checks in the grader) and writes each task's points into its grade cell, so nbgrader's totals
are this grader's totals, and a notebook that redefines `check` gains nothing.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat

from ..authoring import build
from ..course.config import ROOT, load_course

DEFAULT_STUDENTS = ("alice", "bob", "carol")

# Appended to the build's configuration (autograder.authoring.build.NBGRADER_CONFIG), which fixes how
# notebooks are generated; this part makes the folder a working course for nbgrader's other
# commands. Paths follow this file, so the folder can be moved.
COURSE_CONFIG = '''
# ---- the course directory: written by `python -m autograder nbgrader-course` ----------------
import os
here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.Exchange.root = os.path.join(here, "exchange")   # a local exchange: no /srv/nbgrader needed
c.Exchange.path_includes_course = True

# Grading: `nbgrader autograde` does not run the notebook in a kernel. In the student's kernel,
# `check` is whatever the student's earlier cells made it (`check = lambda *a: None` would get
# full marks), so autograde's Execute preprocessor is replaced by the autograder's SandboxGrade
# (autograder/platforms/nbgrader_plugin.py): it grades each submitted notebook as `python -m autograder
# grade` does (the notebook in the sandbox, the checks in the grader, the grading seed of the
# nbgrader student id) and writes each task's verdict into its grade cell, so nbgrader's
# SaveAutoGrades records the grader's points. Running the grade cells in a kernel instead
# (nbgrader's default list, with nbgrader.preprocessors.Execute) lets any student score
# anything: do it only for notebooks you trust.
#
# nbgrader ignores a configuration file that raises (it logs the error and goes on with its
# defaults, which grade in the kernel), so nothing below may raise: when the plugin cannot be
# loaded, autograde refuses to grade instead, and says why.
repository = {repository!r}
try:
    import sys
    if repository not in sys.path:
        sys.path.insert(0, repository)
    from autograder.platforms.nbgrader_plugin import autograde_preprocessors
    c.Autograde.autograde_preprocessors = autograde_preprocessors()
    c.SandboxGrade.course_file = os.path.join(repository, "course.toml")
except Exception as error:  # noqa: BLE001
    from nbgrader.preprocessors import NbGraderPreprocessor

    class CannotGradeInTheSandbox(NbGraderPreprocessor):
        problem = f"{{type(error).__name__}}: {{error}}"

        def preprocess(self, nb, resources):
            raise RuntimeError(
                "autograde refused: the autograder's sandbox grading (autograder.platforms.nbgrader_plugin in "
                + repository + ") could not be loaded (" + self.problem + "); grading in the "
                "kernel instead would let a notebook redefine check(). See docs/INSTRUCTORS.md.")

    c.Autograde.autograde_preprocessors = [CannotGradeInTheSandbox]

# Kernels (`nbgrader validate`, the students' self-checks in formgrader's notebooks): this
# Python ("python3") with the course repository on the path (autograder, dp, course.toml), and
# not in grading mode, since AUTOGRADER_GRADING makes check() do nothing (the sandbox sets it).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [repository] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
os.environ.pop("AUTOGRADER_GRADING", None)
c.Execute.timeout = {timeout}          # seconds per cell: the longest time_limit of course.toml
c.Execute.interrupt_on_timeout = True
'''


def source_notebook(assignment, root: Path = ROOT):
    """The nbgrader source notebook of `assignment`, exactly as `python -m autograder build`
    makes it (a thin wrapper of autograder.authoring.build's private function: one logic, not two)."""
    course = load_course(Path(root) / "course.toml")
    task_owner = build.grade_ids(course.assignments)
    path = assignment.solution_path(root)
    rel = path.relative_to(root).as_posix()
    if not path.is_file():
        raise build.BuildError(f"{rel}: missing (the source of assignment {assignment.id!r} in course.toml)")
    notebook, problems = build._source_notebook(assignment, path, rel, task_owner)
    if problems:
        raise build.BuildError("\n".join(problems))
    return notebook


def config_text(directory: Path, course, root: Path = ROOT) -> str:
    """nbgrader_config.py: the build's configuration (how notebooks are generated, as for
    exercises/), then what the course directory needs for nbgrader's other commands."""
    base = build.NBGRADER_CONFIG.format(
        root=str(directory), course_id=build.COURSE_ID,
        db_url=f"sqlite:///{directory / 'gradebook.db'}", code_stub=build.CODE_STUB,
        text_stub=build.TEXT_STUB,
        begin=build.BEGIN_SOLUTION, end=build.END_SOLUTION,
        begin_hidden=build.BEGIN_HIDDEN, end_hidden=build.END_HIDDEN)
    timeout = max(int(a.limits.time_limit) for a in course.assignments)
    header = ("# nbgrader configuration of this course directory, written by\n"
              "# `python -m autograder nbgrader-course`. First, how notebooks are generated: the\n"
              "# same configuration as the build of exercises/ (autograder/authoring/build.py).\n")
    base = "\n".join(line for line in base.splitlines()[2:])   # the build's own header
    return header + base + "\n" + COURSE_CONFIG.format(repository=str(Path(root).resolve()),
                                                        timeout=timeout)


def make_course(directory, students=DEFAULT_STUDENTS, assignments=None, root: Path = ROOT,
                log=print) -> Path:
    """Write (or update) the nbgrader course directory; returns its path.

    Running it again on the same folder regenerates source/ and release/, updates the
    gradebook's assignments and adds students; submissions and grades already there are kept.
    """
    from .gradebook import open_gradebook

    directory = Path(directory).resolve()
    course = load_course(Path(root) / "course.toml")
    chosen = [course.assignment(a) for a in assignments] if assignments else list(course.assignments)
    directory.mkdir(parents=True, exist_ok=True)
    for assignment in chosen:
        folder = directory / "source" / assignment.id
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(assignment, root), str(folder / f"{assignment.notebook}.ipynb"))
    # the build's own nbgrader run (the same configuration as exercises/): it writes its
    # config, which is then completed for the course's other commands
    build._run_nbgrader(directory, [a.id for a in chosen])
    (directory / "nbgrader_config.py").write_text(config_text(directory, course, root), encoding="utf-8")
    leftover = directory / ".jupyter"         # the build's private Jupyter configuration folder
    if leftover.is_dir() and {p.name for p in leftover.iterdir()} <= {"migrated"}:
        shutil.rmtree(leftover)
    exchange = directory / "exchange"
    exchange.mkdir(exist_ok=True)
    exchange.chmod(0o777)      # nbgrader's exchange is shared by the instructor and the students
    for name in ("submitted", "autograded", "feedback"):
        (directory / name).mkdir(exist_ok=True)
    with open_gradebook(f"sqlite:///{directory / 'gradebook.db'}", build.COURSE_ID) as gb:
        for student in students:
            gb.update_or_create_student(student)
        released = sorted(a.name for a in gb.assignments)
    log(f"nbgrader course in {directory}: {len(chosen)} assignment(s) released "
        f"({', '.join(a.id for a in chosen)}); gradebook: {len(released)} assignment(s), "
        f"students {', '.join(students)}")
    return directory


def main(args) -> int:
    """The `nbgrader-course` subcommand (arguments parsed by autograder.__main__)."""
    students = [s.strip() for s in args.students.split(",") if s.strip()]
    try:
        make_course(args.directory, students=students, assignments=args.assignment or None)
    except build.BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"next: put submissions in {Path(args.directory) / 'submitted'}/<student>/<assignment>/, "
          f"then run `nbgrader autograde <assignment>` in {args.directory}")
    return 0
