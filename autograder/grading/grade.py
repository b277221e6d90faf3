"""Grade submissions: find them, grade each in its own sandbox, write the reports.

    load course -> read & scan notebook -> run it in a sandbox -> pytest checks -> report

`grade_one` is pure with respect to the output directory (it returns the result); only
`grade_all`, in the main process, writes, so results are written once and atomically, and an
interrupted run resumes with what is missing.
"""
from __future__ import annotations

import base64
import datetime
import functools
import hashlib
import json
import re
import sys
import time
from pathlib import Path

from . import executors, late, names, public_cases, report
from . import secret as grading_secret
from ..sandbox import seal
from ..course.config import ROOT, CourseError, load_course
from ..course.roster import known_as
from .judge import preflight, run_checks
from ..course.notebook import (NotebookError, cell_labels, code_cells, grade_ids, line_key,
                       read_notebook, scan_imports, scan_library_use, source_of)
from ..sandbox.process import ProbeError, Sandbox

GRADER_VERSION = "1"
# Seconds past a submission's time limit (which its notebook and probes share) for the grader's
# checks of its last replies: their deadline (and a CPU budget, grader_cpu_limit; judge.run_checks)
CHECKS_GRACE = 5.0


UNIDENTIFIED = "unidentified"      # the assignment of a loose notebook that cannot be told
COPY = re.compile(r"-Copy\d+$")    # JupyterLab's "Duplicate": name-Copy1.ipynb


class Submission:
    """A notebook to grade: where it is, whose it is, for which assignment. `flags`: what
    discovery noticed (other notebooks in the folder, ignored trees). `status`: "graded", or
    "missing" / "error" for a row that is not graded (`message` says why; `path` may be None)."""

    def __init__(self, path, student, assignment_id, flags=(), status="graded", message=""):
        self.path, self.student, self.assignment_id = path and Path(path), student, assignment_id
        self.flags, self.status, self.message = list(flags), status, message

    def __repr__(self):
        return f"Submission({self.student!r}, {self.assignment_id!r}, {str(self.path)!r})"


def real_assignment(notebook, course):
    """The assignment a notebook says it belongs to: its autograder metadata (unless its grade
    cells say otherwise), or the one assignment whose task ids its grade cells name; or None."""
    meta = notebook.get("metadata", {}).get("autograder", {}).get("assignment")
    found = grade_ids(notebook)
    by_tasks = [a.id for a in course.assignments if {t.id for t in a.tasks} & found]
    if isinstance(meta, str) and meta in {a.id for a in course.assignments} and (not by_tasks or meta in by_tasks):
        return meta
    return by_tasks[0] if len(by_tasks) == 1 else None


def _name_of(path: Path, course) -> str:
    """The student's name in a loose notebook's file name, as found (report.student_name not
    applied): its stem without a -CopyN and the assignment's id or notebook name."""
    stem = COPY.sub("", path.stem)
    for a in course.assignments:
        for suffix in (a.id, a.notebook):
            stem = stem.replace(f"_{suffix}", "").replace(f"-{suffix}", "")
    if not stem.strip("."):        # "...ipynb": not results/../ (a folder name, not a student's)
        stem = f"unnamed{stem}"
    return stem


def _student_of(path: Path, course) -> str:
    return report.student_name(_name_of(path, course))


def _renamed(found: str, student: str) -> list:
    """A flag that says the name as found, where report.student_name wrote it otherwise."""
    return [] if found == student else [
        f"the name as found, {names.spelled(found)}, is written {student}"]


def _identify(path: Path, course, assignment_hint=None) -> Submission:
    """A notebook given by itself or found in a folder of loose notebooks. The instructor named
    it, so the nbgrader layout counts in its own path (…/submitted/<student>/<assignment>/x)."""
    parts = path.resolve().parts
    ids = [a.id for a in course.assignments]
    if len(parts) >= 4 and parts[-4] == "submitted" and parts[-2] in ids:
        student = report.student_name(parts[-3])
        return Submission(path, student, parts[-2], _renamed(parts[-3], student))
    assignment = assignment_hint
    if assignment is None:
        try:
            assignment = real_assignment(read_notebook(path), course)
        except NotebookError:
            assignment = None
    if assignment is None:   # from names: the file or its folder
        assignment = next((a.id for a in course.assignments
                           for name in (path.parent.name, path.stem)
                           if name == a.id or a.notebook in name), None)
    if assignment is None:
        return Submission(path, _student_of(path, course), UNIDENTIFIED, status="error", message=(
            f"{path.name}: cannot tell which assignment this notebook is for (no autograder "
            "metadata, no check() cell of a course task, no assignment in its name or folder); "
            "pass --assignment, or put it in submitted/<student>/<assignment>/"))
    student = _student_of(path, course)
    return Submission(path, student, assignment, _renamed(_name_of(path, course), student))


def _notebooks(folder: Path, recursive: bool) -> list:
    """The notebooks in `folder`. Links are not followed, here and in _folders: a link in a
    student's folder would make another student's notebook (or any file) look like theirs."""
    found = folder.rglob("*.ipynb") if recursive else folder.glob("*.ipynb")
    return sorted(p for p in found if ".ipynb_checkpoints" not in p.parts and p.is_file()
                  and not p.is_symlink())


def _folders(folder: Path) -> list:
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.is_symlink() and not p.name.startswith("."))


def _tree(path: Path, notebooks: dict):
    """(the submitted/ folder, [its student folders], the assignment folder named or None) when
    `path` is an nbgrader tree: submitted/ itself, a folder holding it, one of its student
    folders or one of their assignment folders; or a folder of that shape whatever its name
    (`_class_shaped`: a copy in spring2026/; `_student_shaped`). `notebooks`: {assignment id:
    its notebook's name}. None for a folder of loose notebooks."""
    names = path.resolve().parts
    if names[-1:] == ("submitted",):
        return path, _folders(path), None
    if names[-2:-1] == ("submitted",):
        return path.parent, [path], None
    if names[-3:-2] == ("submitted",):
        return path.parent.parent, [path.parent], path.name
    if (path / "submitted").is_dir():
        return path / "submitted", _folders(path / "submitted"), None
    if path.name not in notebooks and _class_shaped(path, notebooks):
        return path, _folders(path), None
    if _student_shaped(path, notebooks):
        return path.parent, [path], None
    return None


def _student_shaped(folder: Path, notebooks: dict) -> bool:
    """Whether `folder` is one student's <assignment>/<notebook>.ipynb: a folder in it is named
    after an assignment and holds that assignment's notebook by its own name (a folder of
    notebooks named after students, sorted by assignment, is not)."""
    return any(sub.name in notebooks and (sub / f"{notebooks[sub.name]}.ipynb").is_file()
               for sub in _folders(folder))


def _class_shaped(folder: Path, notebooks: dict) -> bool:
    """Whether `folder` holds <student>/<assignment>/<notebook>.ipynb: some folder in it holds a
    folder named after an assignment of the course, with a notebook in it."""
    return any(sub.name in notebooks and _notebooks(sub, recursive=False)
               for student in _folders(folder) for sub in _folders(student))


def _ignored(paths, folder: Path) -> list:
    return [f"ignored {folder.name}/{p.relative_to(folder)}: only {folder.name}/<student>/<assignment>/"
            "<notebook>.ipynb is graded" for p in paths]


def _from_tree(submitted: Path, students, only, course, hint) -> tuple:
    """({(student, assignment): ([notebooks], [flags])}, {student: [flags]}) of an nbgrader tree,
    at the documented depth only: submitted/<student>/<assignment>/<notebook>.ipynb. Notebooks
    elsewhere in a student's folder (a submitted/<other>/... tree inside it, a folder that is no
    assignment) are not graded, and said on the student's rows."""
    ids = {a.id for a in course.assignments}
    found, student_flags = {}, {}
    for folder in students:
        student = report.student_name(folder.name)
        student_flags[student] = _renamed(folder.name, student)
        for sub in ([folder / only] if only else _folders(folder)):
            if sub.name in ids and hint in (None, sub.name):
                deeper = [p for p in _notebooks(sub, recursive=True) if p.parent != sub]
                found[student, sub.name] = (_notebooks(sub, recursive=False), _ignored(deeper, submitted))
        if only is None:
            student_flags[student] += _ignored([p for p in _notebooks(folder, recursive=True)
                                               if p.relative_to(folder).parts[0] not in ids], submitted)
    return found, student_flags


def _choose(student, assignment, notebooks, flags, course) -> Submission:
    """The one notebook to grade among those in one student's assignment folder."""
    if not notebooks:
        return Submission(None, student, assignment, flags, "missing", "no notebook was submitted")
    name = course.assignment(assignment).notebook
    chosen = [p for p in notebooks if p.stem == name] or [p for p in notebooks if not COPY.search(p.stem)]
    if len(notebooks) > 1 and len(chosen) != 1:
        return Submission(None, student, assignment, flags, "error", (
            f"{len(notebooks)} notebooks for one assignment ({', '.join(p.name for p in notebooks)}) "
            f"and none is named {name}.ipynb: keep only the one to grade"))
    others = [p.name for p in notebooks if p != chosen[0]]
    if others:
        flags = [f"graded {chosen[0].name}; other notebooks in the folder not graded: "
                 + ", ".join(others)] + flags
    return Submission(chosen[0], student, assignment, flags)


def _settled(key, notebooks) -> list:
    """[((student, assignment), notebook, [flags])] of the loose notebooks whose names claim the
    same student and assignment (`key`). A loose notebook's name is all that says whose it is,
    and anyone can name a file, so no name may take away another student's grade: of several
    (Copy leftovers aside, which _choose sets aside), the one named exactly as the student
    ("alice.ipynb") stays theirs, and every other ("alice-scalar_autodiff.ipynb") is graded apart,
    as a student named by the whole file name; the rows of both say so."""
    student, assignment = key
    originals = [p for p in notebooks if not COPY.search(p.stem)]
    if len(originals) < 2:
        return [(key, p, []) for p in notebooks]
    exact = [p for p in originals if report.student_name(p.stem) == student]
    kept = exact[0] if len(exact) == 1 else None
    stems = [p.stem for p in originals]
    settled, apart = [], []
    for p in notebooks:
        if p == kept or (kept and p not in originals):
            settled.append((key, p, []))
            continue
        if stems.count(p.stem) > 1:     # one file name in several folders: each folder's own
            own = report.student_name(p.parent.name)
            flag = (f"{stems.count(p.stem)} notebooks are named {p.name}, in different folders: "
                    f"the one in {p.parent.name}/ is graded apart, as {own} (a class is read as "
                    "<student>/<assignment>/<notebook>.ipynb: give the folder that holds the students')")
        else:
            own = report.student_name(p.stem)
            why = (f"{kept.name} is {student}'s" if kept else f"no notebook is named {student}.ipynb")
            flag = f"{p.name} is named like {student}'s notebook and {why}: graded apart, as {own}"
        settled.append(((own, assignment), p, [flag]))
        apart.append(f"{p.name} (graded apart, as {own})")
    if kept:
        settled = [(k, p, [f"other notebooks named like {student}'s, not graded as theirs: "
                           + ", ".join(apart)] if p == kept else f) for k, p, f in settled]
    return settled


def discover(paths, course, assignment=None, say=None) -> list:
    """One Submission per student and assignment of the input (notebooks, or folders: nbgrader's
    submitted/ tree, or loose notebooks): every student of the input gets a row for every
    assignment of the input, `missing` where there is no notebook, `error` where there is no
    telling which notebook or assignment (the row's message says why). `say(text)`: told what
    was assumed where a folder's layout was recognised by its shape, not its name."""
    found = {}     # (student, assignment) -> ([notebooks], [flags])
    claims = {}    # (student, assignment) -> [loose notebooks whose names say so]
    folders = set()    # a class's student folders: each gets its rows, with a notebook or not
    student_flags, errors = {}, []
    notebook_names = {a.id: a.notebook for a in course.assignments}
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or folder")
        tree = _tree(path, notebook_names) if path.is_dir() else None
        if tree is not None and "submitted" not in (path.name, path.parent.name, tree[0].name) and say:
            say(f"read {path}/ as a class: <student>/<assignment>/<notebook>.ipynb (nbgrader's "
                f"layout), its {len(tree[1])} folders as students; notebooks elsewhere in it are "
                "not graded, and said on their student's rows" if tree[0] == path else
                f"read {path}/ as the student {report.student_name(path.name)}'s folder: "
                "<assignment>/<notebook>.ipynb")
        if tree is not None:
            rows, flags = _from_tree(*tree, course, assignment)
            for key, (notebooks, ignored) in rows.items():
                old = found.setdefault(key, ([], []))
                old[0].extend(p for p in notebooks if p not in old[0])
                old[1].extend(f for f in ignored if f not in old[1])
            for student, ignored in flags.items():
                student_flags.setdefault(student, []).extend(ignored)
            folders.update(flags)
        loose = [path] if path.is_file() else [] if tree is not None and tree[0] != path / "submitted" \
            else [p for p in _notebooks(path, recursive=True)
                  if "submitted" not in p.relative_to(path).parts[:-1]]
        for notebook in loose:
            submission = _identify(notebook, course, assignment)
            if submission.status == "error":
                errors.append(submission)
            else:
                claims.setdefault((submission.student, submission.assignment_id), []).append(notebook)
                said = student_flags.setdefault(submission.student, [])
                said[:0] = [f for f in submission.flags if f not in said]
    for key, notebooks in claims.items():
        for owner, notebook, flags in _settled(key, notebooks):
            old = found.setdefault(owner, ([], []))
            old[0].extend([notebook] if notebook not in old[0] else [])
            old[1].extend(flags)
    students = {s for s, _ in found} | folders | {s for s, said in student_flags.items() if said}
    order = [a.id for a in course.assignments if any(a.id == k[1] for k in found)]
    for student in students:
        for a in order:
            found.setdefault((student, a), ([], []))[1].extend(student_flags.get(student, []))
    return [_choose(s, a, *found[s, a], course) for s, a in sorted(found)] + errors


def grading_seed(course, student, assignment_id) -> int:
    """The seed of the hidden inputs: with seed_policy "per-student", derived from the secret,
    `student` and the assignment, so the same submission regraded gets the same inputs. Where a
    student can resubmit and read each attempt's feedback (Gradescope, PrairieLearn), `student`
    names the attempt too (platforms.gradescope.grading_key, platforms.prairielearn.grading_key):
    expected values named in one attempt's feedback are of other inputs than the next one's."""
    if course.seed_policy == "fixed":
        return course.grading_seed
    secret = grading_secret.get(course)    # never from public data unless the course says so
    digest = hashlib.sha256(f"{secret}:{student}:{assignment_id}".encode()).hexdigest()
    return int(digest[:12], 16)


def _questions(assignment, status="manual", message=report.BY_HAND):
    """The questions of `assignment`, graded by hand: `grade` never awards or withholds their
    points (`points` is None; `status` "manual", or why there is nothing to grade by hand)."""
    return [{"id": q.id, "title": q.title, "points": None, "max_points": q.points,
             "status": status, "message": message} for q in assignment.questions]


def _all_tasks(assignment, status, message):
    return [{"id": t.id, "title": t.title, "points": 0.0, "max_points": t.points,
             "status": status, "message": message, "metrics": {}, "checks": []}
            for t in assignment.tasks]


def _instructors_error(error) -> bool:
    """A broken course or check stops the run: it is the instructor's to fix, not a student's."""
    return isinstance(error, CourseError) or (
        type(error) is RuntimeError and str(error).startswith("the checks of "))


def ungraded(submission: Submission, course, status=None, message=None) -> dict:
    """The result of a submission that is not graded: missing, or an error said by `message`."""
    known = submission.assignment_id in {a.id for a in course.assignments}
    assignment = course.assignment(submission.assignment_id) if known else None
    status, message = status or submission.status, message or submission.message
    try:        # known, a rerun need not grade it again (see _up_to_date)
        digest = hashlib.sha256(submission.path.read_bytes()).hexdigest() if submission.path else ""
    except OSError:
        digest = ""
    return bounded_total({
        "student": submission.student, "assignment": submission.assignment_id,
        "title": assignment.title if assignment else "", "status": status, "message": message,
        "notebook": submission.path.name if submission.path else "", "notebook_sha256": digest,
        "flags": list(submission.flags), "cell_errors": [], "output": "",
        "tasks": _all_tasks(assignment, status, message) if assignment else [],
        "questions": _questions(assignment, status, message) if assignment else []})


def one_result(grade):
    """One submission, one result: whatever goes wrong while grading it (but the instructor's
    errors) becomes its `error` result; and every result is sanitized and capped."""
    @functools.wraps(grade)
    def one(submission, course_path=None, *args, **kwargs):
        try:
            result, figures = grade(submission, course_path, *args, **kwargs)
        except Exception as error:
            if _instructors_error(error):
                raise
            result = ungraded(submission, load_course(course_path), "error", (
                f"the grader could not grade this notebook: {type(error).__name__}: {error}"))
            return dict(result, notebook_sha256=""), []      # a rerun tries again
        return bounded_total(result), report.bounded_figures(figures)
    return one


@one_result
def grade_one(submission: Submission, course_path=None, protect=(), seed=None, sealed=True) -> tuple:
    """Grade one submission; returns (result dict, list of PNG figures as bytes). The paths in
    `protect` (e.g. the output folder) are hidden from the submission. `seed`: the grading
    seed, when the caller has derived it already (default: `grading_seed`)."""
    course = load_course(course_path)
    assignment = course.assignment(submission.assignment_id)
    result = {"student": submission.student, "assignment": assignment.id, "title": assignment.title,
              "status": "graded", "message": "", "notebook": submission.path.name,
              "flags": list(submission.flags), "cell_errors": [], "output": "",
              "questions": _questions(assignment)}
    figures = []
    try:
        raw = submission.path.read_bytes()
        result["notebook_sha256"] = hashlib.sha256(raw).hexdigest()
        notebook = read_notebook(submission.path)
    except (NotebookError, OSError) as error:
        result.setdefault("notebook_sha256", "")
        result["tasks"] = _all_tasks(assignment, "error", f"{error}")
        result["questions"] = _questions(assignment, "error", f"{error}")
        result["flags"].append("unreadable notebook")
        result["status"], result["message"] = "error", (
            f"unreadable notebook: {error}. Download it again from JupyterLab (File > Download) "
            "and submit that file")
        return _total(result), figures
    real = real_assignment(notebook, course)
    if real not in (None, assignment.id):    # not graded: its grade would be meaningless
        return ungraded(submission, course, "error", f"this is the notebook of {real}, filed under "
                        f"{assignment.id}: submit it as {real}, and {assignment.id}'s notebook here"), []
    cells, labels = code_cells(notebook), cell_labels(notebook)
    result["flags"] += scan_imports(cells, assignment.forbidden_imports, labels) \
        + notebook_flags(notebook, assignment)
    provided = _provided_lines(assignment.exercise_path()) if assignment.library_answers else None
    if provided is not None:
        result["flags"] += scan_library_use(cells, assignment.library_answers, provided, labels)
    if not sealed:
        result["flags"].append("graded without isolation (--no-isolation): trusted work only")
        protect = [*protect, grading_secret.location()]   # for the guards: a hint only
    sandbox = Sandbox(cells, assignment, protect, sealed=sealed)
    start = time.monotonic()
    try:
        sandbox.start()
        errors = [e for e in sandbox.report.get("errors", [])[:50] if isinstance(e, dict)]
        result["cell_errors"] = [dict(e, where=labels.get(e.get("cell"), f"cell {e.get('cell')}"))
                                 for e in errors]
        result["isolation"] = sandbox.layers
        if seed is None:
            seed = grading_seed(course, submission.student, assignment.id)
        checked = run_checks(sandbox, assignment, seed, deadline=sandbox.deadline + CHECKS_GRACE,
                             takeover=executors.takeover)
        result["tasks"] = [_located(task, labels) for task in checked]
        try:    # not after a timeout: a probe stopped by the budget leaves its reply unread
            figures = [] if any(t["status"] == "timeout" for t in checked) else \
                [base64.b64decode(p) for p in sandbox.probe("__figures__")[:10] if isinstance(p, str)]
        except (ProbeError, ValueError, TypeError):
            figures = []
    except ProbeError as error:     # the notebook did not even finish running
        status = "timeout" if "time limit" in str(error) else "error"
        result["tasks"] = _all_tasks(assignment, status, str(error))
    finally:
        sandbox.close()
        # what it tried, in the first run of its notebook and in any run again after a probe
        # that ran past its budget (Sandbox._restart)
        result["flags"] += [f"attempted: {a}" for a in sandbox.reported("attempts")]
        if sandbox.reported("tampered"):
            result["flags"].append("tampering: replaced " + ", ".join(sandbox.reported("tampered")[:10]))
        # Wall time of running the notebook and its checks: for the class report's slowest
        # notebooks. The one field that differs when the same submission is graded twice.
        result["seconds"] = round(time.monotonic() - start, 2)
        result["output"] = sandbox.captured_output       # its end is kept (report.CAPS)
        if sandbox.lost:
            result["lost"] = sandbox.lost     # not the submission's doing: _grade_job grades again
    return _total(result), figures


_CELL = re.compile(r"\(cell (\d+), line (\d+)")     # where the runner says the student's code raised


def _located(task, labels) -> dict:
    """`task` with "(cell 4, line 21)" in its messages (the runner's cell numbers, which count
    markdown cells) said as the student finds it: "(the cell that begins “…”, line 21)"."""
    def say(text):
        return _CELL.sub(lambda m: f"({labels.get(int(m[1]), f'cell {m[1]}')}, line {m[2]}", text)
    return dict(task, message=say(task["message"]),
                checks=[dict(c, message=say(c["message"])) for c in task["checks"]])


def notebook_flags(notebook, assignment) -> list:
    """What is odd about the notebook itself: grading goes on regardless, from course.toml."""
    flags = []
    cells = [c for c in notebook["cells"] if isinstance(c, dict)]
    if not any(c.get("cell_type") == "code" and source_of(c).strip() for c in cells):
        flags.append("the notebook has no code")
    mentioned = [m for c in cells if c.get("cell_type") == "code"     # text may name a check
                 for m in re.findall(r"""check\(\s*["']([\w-]+)["']""", source_of(c))]
    for task in assignment.tasks:
        count = mentioned.count(task.id)
        if count != 1:
            flags.append(f"grade cell check({task.id!r}) appears {count} times (graded anyway)")
    kernel = notebook.get("metadata", {}).get("kernelspec", {})
    name = kernel.get("name") if isinstance(kernel, dict) else None
    if name not in (None, "python3", "python"):
        flags.append(f"kernel {name!r} is not Python 3; graded as Python")
    return flags


@functools.lru_cache(maxsize=None)
def _provided_lines(exercise: Path):
    """The lines of code of the exercise notebook, whitespace aside (what every student was
    given), or None where the exercise is not at hand (a platform's image without it)."""
    try:
        cells = code_cells(read_notebook(exercise))
    except NotebookError:
        return None
    return frozenset(line_key(line) for _, code in cells for line in code.splitlines())


def bounded_total(result):
    return _total(report.bounded(result))


def _total(result):
    """The points earned: `score`, and `raw_score` too until a late penalty (late.apply, in
    grade_all) takes its share off `score`; `max_score` of the tasks. The questions' points are
    `max_by_hand`, in neither: they are graded by hand."""
    result["score"] = result["raw_score"] = sum(t["points"] for t in result["tasks"])
    result["max_score"] = sum(t["max_points"] for t in result["tasks"])
    result["max_by_hand"] = sum(q["max_points"] for q in result.get("questions", []))
    result["grader"] = GRADER_VERSION
    return result


def _up_to_date(out, submission, course_digest, submitted=None) -> bool:
    """Its result was made from this notebook, this course and (with a late policy) this
    submission time; a new timestamp.txt or mtime grades it again."""
    path = report.result_path(out, submission.student, submission.assignment_id)
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        digest = hashlib.sha256(submission.path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return False
    when = (old.get("late") or {}).get("submitted_at")
    try:
        when = datetime.datetime.fromisoformat(when) if when else None
    except (TypeError, ValueError):
        return False
    return old.get("notebook_sha256") == digest and old.get("course_sha256") == course_digest \
        and when == (submitted.at if submitted else None)


def _written(out, result) -> bool:
    """Its file holds `result` already: a rerun leaves it as it is."""
    try:
        old = json.loads(report.result_path(out, result["student"], result["assignment"])
                         .read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return old == json.loads(json.dumps(report.bounded(result)))


def course_digest(course) -> str:
    """Changes when course.toml or any check changes: results made before are then stale."""
    h = hashlib.sha256(Path(course.path).read_bytes())
    for a in course.assignments:
        h.update(a.checks_path.read_bytes() if a.checks_path.exists() else b"")
    return h.hexdigest()


def _grade_job(submission, course_path, out, seed, sealed=True):
    """The unit of work of every executor, here or on a Dask worker. The seed comes from the
    main process, so a worker needs neither AUTOGRADER_SECRET nor anything else but the
    repository, the course file and the submission (at the same paths)."""
    for attempt in (1, 2):
        result, figures = grade_one(submission, course_path, protect=[out], seed=seed, sealed=sealed)
        lost = result.pop("lost", None)
        if not lost:
            break
        if attempt == 2:        # graded as it ended: the submission may be doing it itself
            result["flags"].append(f"graded twice: {lost}, both times")
    return result, figures


def _lost_job(args, reason):
    """The answer for a `_grade_job(*args)` whose grading process died twice while grading it:
    an error result with the reason, which a rerun grades again."""
    submission, course_path = args[:2]
    result = ungraded(submission, load_course(course_path), "error",
                      f"{reason} while grading this notebook: run the grader again to grade it")
    return dict(result, notebook_sha256=""), []


def grade_all(paths, out, jobs=None, assignment=None, course_path=None, progress=True,
              executor="local", scheduler=None, isolation=True, wide=False, times=None,
              use_mtime=False, roster=None) -> list:
    """Grade every submission under `paths` into `out`; returns all results in `out`.
    `jobs`: submissions graded at once (default: all cores); `executor`: "local" (processes
    here) or "dask" (a Dask LocalCluster of `jobs` workers, or the cluster at `scheduler`).
    `isolation`: False only for trusted work (--no-isolation); otherwise submissions are
    sealed (autograder.sandbox.seal), and nothing is graded where they cannot be. `wide`: grades.csv
    with one row per student and a column per assignment (report.write_grades_csv). `times`:
    the instructor's submission times (late.read_times); `use_mtime`: the notebooks' modification
    times count as submission times (see grading.late); `roster`: the class list
    (course.roster.read_roster), whose students without a submission get `missing` rows."""
    from tqdm.auto import tqdm
    if isolation:
        seal.require()
        seal.training_data()     # made once here, shared by the workers forked below
    course = load_course(course_path)
    if assignment is not None:
        course.assignment(assignment)
    submissions = discover(paths, course, assignment,
                           say=lambda text: print(f"note: {text}", file=sys.stderr, flush=True))
    if submissions and all(s.assignment_id == UNIDENTIFIED for s in submissions):
        raise CourseError(submissions[0].message)     # nothing else to grade (`check x.ipynb`)
    _preflight(course, {s.assignment_id for s in submissions})
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(report.DIR_MODE)   # the grader's and its group's (the instructors): not the submissions'
    for stale in out.rglob(".*.tmp"):       # an interrupted run's unfinished write
        stale.unlink(missing_ok=True)
    submissions += [s for s in on_the_roster(submissions, roster or [])     # never over a result
                    if not report.result_path(out, s.student, s.assignment_id).exists()]
    keys = {(s.student, s.assignment_id) for s in submissions}
    digest = course_digest(course)
    submitted = {(s.student, s.assignment_id): late.submitted_for(
                     course, s.assignment_id, s.path, s.student, times, use_mtime, _in_layout(s))
                 for s in submissions if s.status != "missing"}
    todo = [s for s in submissions if s.status == "graded" and not _up_to_date(
        out, s, digest, submitted[s.student, s.assignment_id])]
    done = sum(s.status == "graded" for s in submissions) - len(todo)    # by an earlier run
    bar = _progress(tqdm, len(submissions), done, progress)

    similar = names.lookalikes(s.student for s in submissions)   # flagged on every row of theirs
    noticed = {(s.student, s.assignment_id):
               report.with_lookalike({"student": s.student, "flags": s.flags}, similar)
               for s in submissions}

    def finish(result, figures):
        result["course_sha256"] = digest       # and what discovery noticed, first:
        late.apply(result, course, submitted.get((result["student"], result["assignment"])))
        result["flags"] = list(dict.fromkeys(noticed.get((result["student"], result["assignment"]), [])
                                             + result["flags"]))
        report.write_feedback(out, result, figures)
        report.write_result(out, result)       # last: its presence means "done"
        bar.update(1)

    for submission in submissions:      # missing, or no telling which notebook: no need to run
        if submission.status != "graded":
            result = dict(ungraded(submission, course), course_sha256=digest)
            late.apply(result, course, submitted.get((submission.student, submission.assignment_id)))
            if _written(out, result):
                bar.update(1)
            else:
                finish(result, [])

    # Absolute paths and seeds derived here: the same call gives the same result on any worker.
    course_file = Path(course_path or ROOT / "course.toml").absolute()
    calls = [(Submission(s.path.absolute(), s.student, s.assignment_id), course_file, out.absolute(),
              grading_seed(course, s.student, s.assignment_id), isolation) for s in todo]
    same_files = [course_file] + [c[0].path for c in calls[:1]]
    with executors.completed(_grade_job, calls, executor, jobs, scheduler, same_files,
                             lost=_lost_job) as answers:
        for result, figures in answers:     # in the order they finish
            finish(result, figures)
    bar.close()
    results = [r for r in report.load_results(out)
               if (r["student"], r["assignment"]) in keys] if submissions else []
    report.write_grades_csv(out, report.load_results(out), course, wide=wide)
    for line in late.summary(course, results, submitted):
        print(line, file=sys.stderr, flush=True)
    return results


def on_the_roster(submissions, roster) -> list:
    """A `missing` Submission for every assignment of `submissions` and every person of the
    roster who handed in none of them (matched by any of their ids: course.roster.known_as)."""
    assignments = list(dict.fromkeys(s.assignment_id for s in submissions
                                     if s.assignment_id != UNIDENTIFIED))
    students = {s.student for s in submissions}
    return [Submission(None, report.student_name(person["student"]), a, [], "missing",
                       "no notebook was submitted (on the roster)")
            for person in roster if known_as(person, students) is None for a in assignments]


def _in_layout(submission) -> bool:
    """Whether a submission was found as <student>/<assignment>/<notebook>.ipynb, where an
    nbgrader timestamp.txt beside it is nbgrader's, not the student's own file."""
    path = submission.path
    return path is not None and path.parent.name == submission.assignment_id and \
        report.student_name(path.parent.parent.name) == submission.student


def _preflight(course, assignment_ids) -> None:
    """Stop before anyone is graded when the course cannot grade these assignments (a typo in
    course.toml or in the checks, or checks that fail their own solution with the public seed:
    public_cases.verify): the instructor's problem, not the students' zeros."""
    assignments = [a for a in course.assignments if a.id in assignment_ids]
    problems = preflight(assignments) or public_cases.verify(
        assignments, course.public_seed, log=lambda text: print(text, file=sys.stderr, flush=True))
    if problems:
        raise CourseError("\n".join(problems) + "\nnothing was graded: fix course.toml or the "
                          "checks, then run again (`python -m autograder build --check` finds the "
                          "same problems)")


class _Lines:
    """Progress for a log (stderr is not a terminal): a line at every tenth, no \\r frames."""

    def __init__(self, total, initial):
        self.total, self.done, self.said = total, initial, initial * 10 // max(total, 1)

    def update(self, count=1):
        self.done += count
        if self.done * 10 // max(self.total, 1) > self.said or self.done == self.total:
            self.said = self.done * 10 // max(self.total, 1)
            print(f"grading: {self.done}/{self.total} notebooks", file=sys.stderr, flush=True)

    def close(self):
        pass


def _progress(tqdm, total, initial, progress):
    if progress and not sys.stderr.isatty():
        return _Lines(total, initial)
    return tqdm(total=total, initial=initial, unit="notebook", desc="grading", disable=not progress)
