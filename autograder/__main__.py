"""python -m autograder {build, grade, check, nbgrader-course, release, report, similarity,
gradescope, prairielearn, classroom}: see --help of each."""
from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path


def _grade(args):
    from .course.roster import read_roster
    from .grading import late, report
    from .grading.grade import grade_all
    if args.export:
        from .course.config import CourseError
        from .platforms import lms
        if not args.roster:
            raise CourseError("--export needs --roster FILE: the students' names and the ids "
                              "the LMS matches them by (docs/INSTRUCTORS.md, Grades into Canvas "
                              "or Moodle)")
        for kind in args.export:          # a bad roster stops here, before hours of grading
            lms.check_identity(kind, lms.read_roster(args.roster), args.roster)
        from .course.config import load_course
        lms.parse_canvas_ids(args.canvas_assignment, load_course(args.course))
    results = grade_all(args.paths, args.out, jobs=args.jobs, assignment=args.assignment,
                        course_path=args.course, progress=not args.quiet,
                        executor=args.executor, scheduler=args.scheduler,
                        isolation=not args.no_isolation, wide=args.wide,
                        times=late.read_times(args.times) if args.times else None,
                        use_mtime=args.times_from_mtime,
                        roster=read_roster(args.roster) if args.roster else None)
    print(report.table(results))
    if args.no_isolation:
        print(f"\n{NO_ISOLATION_WARNING}")
    for layer in _missing_cgroups(results):
        print(f"\nnote: {layer}")
    faults = report.grader_faults(results)
    if faults:
        print(f"\nwarning: {len(faults)} task(s) stopped by a fault of the grader's own checks, "
              "not of the students' code (their points are 0 until graded again): "
              + "; ".join(faults[:5]) + (f"; and {len(faults) - 5} more" if len(faults) > 5 else "")
              + ". Fix the check, then delete those results and run grade again", file=sys.stderr)
    print(f"\ngrades:   {Path(args.out) / 'grades.csv'}\nfeedback: {Path(args.out) / 'feedback'}/")
    if args.gradebook:
        from .course.config import load_course
        from .platforms.gradebook import write_grades
        count = write_grades(results, args.gradebook, load_course(args.course))
        skipped = f" ({len(results) - count} row(s) without a submission skipped)" \
            if count < len(results) else ""
        print(f"gradebook: {count} submission(s) written to {args.gradebook}{skipped}")
    for kind in args.export or []:
        from .course.config import load_course
        course = load_course(args.course)
        path, strangers = lms.export(kind, args.out, course, args.roster, args.missing,
                                     lms.parse_canvas_ids(args.canvas_assignment, course))
        print(f"{kind}:   {path}")
        if strangers:
            print(f"warning: not on the roster, so not in {path.name}: {', '.join(strangers)}",
                  file=sys.stderr)
    return 0


NO_ISOLATION_WARNING = ("warning: graded with --no-isolation: the submissions ran with the "
                        "grader's rights and could read and change what it can; use this only "
                        "for trusted work")


def _missing_cgroups(results) -> list:
    """The cgroups (CPU share, memory) that no sandbox of this run had, as its results say."""
    from .sandbox.cpushare import UNAVAILABLE
    return sorted({layer for result in results for layer in result.get("isolation") or []
                   if UNAVAILABLE in layer})


def _add_isolation_option(parser):
    parser.add_argument("--no-isolation", action="store_true",
                        help="grade without the sealed sandbox, where it cannot be had (trusted "
                             "work only: every result says so)")


def _check(args):
    import json
    import tempfile
    from .grading import report
    from .grading.grade import grade_all
    with tempfile.TemporaryDirectory() as out:
        [result] = grade_all([args.notebook], out, jobs=1, assignment=args.assignment,
                             course_path=args.course, progress=False,
                             isolation=not args.no_isolation)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['assignment']} — {result['student']}: {result['score']:g} / {result['max_score']:g}")
    for task in result["tasks"]:
        mark = report.STATUS_MARK.get(task["status"], "?")
        metrics = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                            for k, v in task["metrics"].items())
        print(f"  {mark} {task['id']:<24} {task['points']:>4g}/{task['max_points']:<4g} "
              f"{task['status']:<8} {task['message'][:200]}{'  [' + metrics + ']' if metrics else ''}")
    for question in result.get("questions", []):
        mark = report.STATUS_MARK.get(question["status"], "?")
        print(f"  {mark} {question['id']:<24} {'–':>4}/{question['max_points']:<4g} "
              f"{question['status']:<8} {question['message'][:200]}")
    for error in result["cell_errors"]:
        print(f"  error in {report.cell_place(error)}: {error['error'][:200]}")
    for flag in result["flags"]:
        print(f"  flag: {flag}")
    print(f"\n{report.LEGEND}")
    return 0


def _build(args):
    from .authoring.build import main as build_main
    return build_main(["--check"] if args.check else [])


def _nbgrader_course(args):
    from .platforms.nbgrader_course import main as course_main
    return course_main(args)


def _release(args):
    from .authoring.release import main as release_main
    return release_main(args)


def _classroom(args):
    from .platforms.classroom import cli
    return cli(args)


def _report(args):
    from .reports.classreport import write_report
    from .course.config import load_course
    from .course.roster import read_roster
    html_path, csv_path = write_report(args.directory, load_course(args.course),
                                       read_roster(args.roster) if args.roster else None)
    print(f"the class at a glance: {html_path}\nthe same numbers:      {csv_path}")
    return 0


def _similarity(args):
    from .course.config import load_course
    from .reports.similarity import main as similarity_main
    return similarity_main(args, load_course(args.course))


def _gradescope(args):
    from .platforms.gradescope import cli
    return cli(args)


def _prairielearn(args):
    from .platforms.prairielearn import cli
    return cli(args)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    parser.add_argument("--course", help="course.toml to use (default: the repository's)")
    commands = parser.add_subparsers(dest="command", required=True)

    grade = commands.add_parser("grade", help="grade notebooks or an nbgrader submitted/ tree")
    grade.add_argument("paths", nargs="+", help="notebooks or folders")
    grade.add_argument("--out", default="graded", help="output folder (default: graded)")
    grade.add_argument("--jobs", type=int, default=None, help="parallel submissions (default: all cores)")
    grade.add_argument("--assignment", help="assignment id, when it cannot be told from the files")
    grade.add_argument("--quiet", action="store_true", help="no progress bar")
    grade.add_argument("--wide", action="store_true",
                       help="write grades.csv wide, as LMS imports expect: one row per student, "
                            "one column per assignment (its score; empty when not submitted)")
    grade.add_argument("--executor", choices=["local", "dask"], default="local",
                       help="local processes (default), or Dask: a LocalCluster of --jobs workers, "
                            "or the cluster at --scheduler (see docs/SCALING.md)")
    grade.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address, e.g. tcp://host:8786")
    grade.add_argument("--gradebook", metavar="URL",
                       help="also write the grades into this nbgrader gradebook (sqlite:///path/gradebook.db)")
    grade.add_argument("--export", action="append", choices=["canvas", "moodle"],
                       help="also write OUT/canvas.csv or OUT/moodle.csv, the LMS's grade import "
                            "(repeatable; needs --roster)")
    grade.add_argument("--roster", metavar="FILE",
                       help="the class list, whose students without a submission get missing rows: "
                            "CSV of student (as in the class folder), name, email, canvas_id, "
                            "sis_user_id, sis_login_id, section, id_number; or Canvas's gradebook "
                            "export or Moodle's grade export as they come")
    grade.add_argument("--missing", choices=["blank", "zero"], default="blank",
                       help="a roster student without a submission: blank cell (default) or 0")
    grade.add_argument("--canvas-assignment", action="append", metavar="ASSIGNMENT=NUMBER",
                       help="the Canvas assignment that an assignment's column updates "
                            "(repeatable; default: the Canvas assignment of its title, or a "
                            "new one)")
    grade.add_argument("--times", metavar="FILE",
                       help="CSV of submission times (columns student, submitted_at and optionally "
                            "assignment), for submissions without nbgrader's timestamp.txt")
    grade.add_argument("--times-from-mtime", action="store_true",
                       help="the notebooks' modification times are their submission times (not "
                            "after a copy: cp -r and unzipping set them to the moment of the copy)")
    _add_isolation_option(grade)
    grade.set_defaults(run=_grade)

    check = commands.add_parser("check", help="grade one notebook and print the per-task table")
    check.add_argument("notebook")
    check.add_argument("--assignment")
    check.add_argument("--json", action="store_true", help="print the result JSON")
    _add_isolation_option(check)
    check.set_defaults(run=_check)

    build = commands.add_parser("build", help="regenerate exercises/ from solutions/ with nbgrader")
    build.add_argument("--check", action="store_true", help="fail if exercises/ is stale")
    build.set_defaults(run=_build)

    course = commands.add_parser(
        "nbgrader-course", help="write an nbgrader course directory (config, source, release, gradebook)")
    course.add_argument("directory", type=Path, help="the course directory to write (or update)")
    course.add_argument("--students", default="alice,bob,carol",
                        help="comma-separated student ids for the gradebook (default: %(default)s)")
    course.add_argument("--assignment", action="append",
                        help="only this assignment (repeatable; default: every one in course.toml)")
    course.set_defaults(run=_nbgrader_course)

    release = commands.add_parser(
        "release", help="write the student bundle: dp, exercises, public checks, README")
    release.add_argument("directory", type=Path, nargs="?",
                         help="the bundle folder to write (must be new or empty)")
    which = release.add_mutually_exclusive_group()
    which.add_argument("--until", metavar="ASSIGNMENT",
                       help="the course up to this assignment, in due-date order "
                            "(default: by due date, what is past due and the one open now)")
    which.add_argument("--assignment", action="append",
                       help="exactly this assignment's exercise (repeatable)")
    which.add_argument("--all", action="store_true",
                       help="every assignment, with a warning listing the provided code that "
                            "reveals solutions not yet due (refused otherwise)")
    release.add_argument("--date", metavar="WHEN",
                         help="release as of this date (2026-10-06: the start of that day) or time "
                              "(2026-10-06T09:00, in the course's time zone; or with +01:00); "
                              "default: now")
    release.add_argument("--dry-run", action="store_true",
                         help="say what would be released and what it would reveal; write nothing")
    release.add_argument("--force", action="store_true", help="replace the folder if it exists")
    release.set_defaults(run=_release)

    classroom = commands.add_parser(
        "classroom", help="a GitHub Classroom template repository for one assignment: its "
                          "bundle and a self-check workflow (formative, never the grade)")
    classroom.add_argument("assignment", help="the assignment id, e.g. 01_scalar_autodiff")
    classroom.add_argument("directory", type=Path, help="the template folder to write (new or empty)")
    classroom.add_argument("--date", help="when 'now' is, for what may be handed out (as release --date)")
    classroom.add_argument("--all", action="store_true",
                           help="write it even where its provided code reveals an answer not yet due")
    classroom.add_argument("--force", action="store_true", help="replace the folder's contents")
    classroom.set_defaults(run=_classroom)

    class_report = commands.add_parser(
        "report", help="the class at a glance: one HTML page and a CSV from grade's results")
    class_report.add_argument("directory", type=Path,
                              help="the folder `grade --out` wrote (default there: graded)")
    class_report.add_argument("--roster", metavar="FILE",
                              help="the class list (as for grade --roster, or Canvas's or "
                                   "Moodle's export): who handed in nothing counts as missing")
    class_report.set_defaults(run=_report)

    similarity = commands.add_parser(
        "similarity", help="pairs of submissions ranked by code similarity, provided code removed")
    similarity.add_argument("submissions", type=Path,
                            help="the submissions, as `grade` takes them (an nbgrader submitted/ "
                                 "tree, or a folder of notebooks)")
    similarity.add_argument("assignment", help="the assignment id, e.g. 01_scalar_autodiff")
    similarity.add_argument("--out", type=Path, default=Path("graded"),
                            help="folder for similarity-<assignment>.html and .csv "
                                 "(default: graded)")
    similarity.add_argument("--top", type=int, default=20,
                            help="pairs shown side by side in the page (default: %(default)s)")
    similarity.set_defaults(run=_similarity)

    gradescope = commands.add_parser(
        "gradescope", help="write the autograder zip for Gradescope's Zip file upload")
    gradescope.add_argument("assignment", help="assignment id (course.toml)")
    gradescope.add_argument("directory", type=Path, help="where to write gradescope-ASSIGNMENT.zip")
    gradescope.set_defaults(run=_gradescope)

    prairielearn = commands.add_parser(
        "prairielearn", help="write a PrairieLearn question and its external grader")
    prairielearn.add_argument("assignment", help="assignment id (course.toml)")
    prairielearn.add_argument("directory", type=Path, help="the PrairieLearn course folder")
    prairielearn.add_argument("--image", required=True,
                              help="the grader's Docker image, built from the Dockerfile written "
                                   "into serverFilesCourse/dp_autograder/ (e.g. yourorg/dp-grader)")
    prairielearn.set_defaults(run=_prairielearn)

    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)   # like Ctrl-C: stop cleanly
    from .course.config import CourseError
    from .grading.executors import ExecutorError
    from .course.notebook import NotebookError
    from .sandbox.seal import IsolationUnavailable
    from .grading.late import TimestampError
    try:
        return args.run(args)
    except (CourseError, NotebookError, FileNotFoundError, ExecutorError, IsolationUnavailable,
            TimestampError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept; run again to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
