"""Questions a student answers in words, graded by hand: `[[assignment.question]]` in course.toml,
the solution's answer cell `# %% [markdown] answer="<id>"` (its text is the rubric), built into
an nbgrader manually graded answer cell; `grade` reports them as to be graded by hand (never 0),
the class report and grades.csv show them apart, the gradebook marks them for manual grading,
and no rubric reaches exercises/ or the student bundle."""
from __future__ import annotations

import csv
import io
import json

import nbformat
import pytest

from autograder.authoring import build as b
from autograder.authoring import release
from autograder.course.config import CourseError, load_course
from autograder.grading import report
from autograder.grading.grade import Submission, bounded_total, ungraded
from autograder.reports import classreport
from tests import test_build as tb
from tests.grading import COURSE, ROOT

QUESTION_TOML = tb.COURSE_TOML.replace('''  title = "beta"
''', '''  title = "beta"

  [[assignment.question]]
  id = "why_beta"
  points = 2.5
  title = "why two"
''')
QUESTION = "# %% [markdown]\n# **Question.** Why does `value` return 2?\n\n"
RUBRIC = "Because the zebra crossing rubric phrase says so, every time."
ANSWER = f'# %% [markdown] answer="why_beta"\n# {RUBRIC}\n#\n# - 1 point: names the constant two\n'
BETA = tb.BETA + "\n" + QUESTION + ANSWER


def source_problems(tmp_path, beta=BETA, toml=QUESTION_TOML):
    root = tb.write_course(tmp_path, beta=beta, toml=toml)
    assignments = b._tasks_by_assignment(root)
    path = root / "solutions" / "02_beta" / "beta.py"
    return b._source_notebook(assignments[1], path, "beta.py", b.grade_ids(assignments))


# ----- course.toml -----------------------------------------------------------------------------

def test_questions_are_read_and_their_points_kept_apart(tmp_path):
    (tmp_path / "course.toml").write_text(QUESTION_TOML)
    beta = load_course(tmp_path / "course.toml").assignment("02_beta")
    assert [(q.id, q.points, q.title) for q in beta.questions] == [("why_beta", 2.5, "why two")]
    assert (beta.max_score, beta.hand_points) == (2.0, 2.5)
    repo = COURSE.assignment("01_scalar_autodiff")
    assert repo.hand_points == sum(q.points for q in repo.questions) > 0


@pytest.mark.parametrize("change, words", [
    ('  title = "why two"', ["course.toml", "'02_beta'", "question 'why_beta'", "'titel'"]),
    ('  points = 2.5', ["course.toml", "'02_beta'", "question 'why_beta'", "points"]),
    ('  id = "why_beta"', ["course.toml", "'02_beta'", "'add_task'", "already used"]),
])
def test_a_bad_question_is_refused_naming_file_assignment_and_key(tmp_path, change, words):
    bad = {'  title = "why two"': '  titel = "why two"', '  points = 2.5': '  points = -1',
           '  id = "why_beta"': '  id = "add_task"'}[change]
    (tmp_path / "course.toml").write_text(QUESTION_TOML.replace(change, bad))
    with pytest.raises(CourseError) as error:
        load_course(tmp_path / "course.toml")
    assert all(w in str(error.value) for w in words), str(error.value)


# ----- the build ---------------------------------------------------------------------------------

def test_the_answer_cell_becomes_a_manually_graded_cell_after_its_question(tmp_path):
    notebook, problems = source_problems(tmp_path)
    assert problems == []
    question, answer = notebook.cells[-2:]
    assert question.metadata.nbgrader["grade"] is False and question.metadata.nbgrader["locked"]
    assert answer.cell_type == "markdown" and answer.id == "why_beta"
    assert "answer" not in answer.metadata       # the marker is the build's, not nbgrader's
    assert answer.metadata.nbgrader == {"grade": True, "solution": True, "locked": False,
                                        "grade_id": "why_beta", "points": 2.5, "schema_version": 3}


@pytest.mark.parametrize("beta, expected", [
    (tb.BETA, "question 'why_beta' of assignment '02_beta' (course.toml) has no answer cell"),
    (BETA + "\n" + QUESTION + ANSWER, "question 'why_beta' has 2 answer cells"),
    (BETA.replace('answer="why_beta"', 'answer="add_task"'), "(it belongs to '01_alpha')"),
    (tb.BETA + "\n" + ANSWER, "needs the question before it"),
    (tb.BETA + "\n" + QUESTION + '# %% answer="why_beta"\nx = 1\n', "on a code cell"),
    (BETA + "# ### BEGIN SOLUTION\n", "solution markers in the answer cell"),
])
def test_answer_cells_and_course_toml_must_agree(tmp_path, beta, expected):
    notebook, problems = source_problems(tmp_path, beta=beta)
    assert notebook is None and any(expected in p for p in problems), problems


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The fixture course of test_build with a question in 02_beta, built with the real nbgrader."""
    root = tb.write_course(tmp_path_factory.mktemp("course"), beta=BETA, toml=QUESTION_TOML)
    assert b.build(root, log=lambda _: None) == []
    return root, (root / tb.BETA_NB).read_bytes()


def test_students_get_the_question_and_an_empty_answer_cell_never_the_rubric(built):
    root, data = built
    cells = nbformat.reads(data.decode(), as_version=4).cells
    answer = next(c for c in cells if c.id == "why_beta")
    assert answer.source == b.TEXT_STUB and answer.metadata.nbgrader["points"] == 2.5
    assert "Why does `value` return 2?" in cells[cells.index(answer) - 1].source
    assert "zebra" not in data.decode() and "names the constant" not in data.decode()
    assert b.build(root, check=True, log=lambda _: None) == []


def test_the_check_names_a_leaked_rubric_and_points_that_disagree(built):
    root, data = built
    notebook = json.loads(data)
    answer = next(c for c in notebook["cells"] if c["id"] == "why_beta")
    answer["source"], answer["metadata"]["nbgrader"]["points"] = RUBRIC, 3
    a = b._tasks_by_assignment(root)[1]
    problems = b._exercise_problems(a, "beta.ipynb", json.dumps(notebook).encode())
    assert any("worth 3 points in the notebook but 2.5 in course.toml" in p for p in problems)
    assert any("holding only 'YOUR ANSWER HERE' (no rubric)" in p for p in problems)
    notebook["cells"].remove(answer)
    problems = b._exercise_problems(a, "beta.ipynb", json.dumps(notebook).encode())
    assert problems == ["beta.ipynb: question 'why_beta' has 0 answer cells; expected 1"]


def test_every_question_of_the_repository_has_its_answer_cell_in_its_exercise():
    for a in COURSE.assignments:
        cells = nbformat.read(str(a.exercise_path()), as_version=4).cells
        answers = {c.id: c for c in cells if c.cell_type == "markdown"
                   and c.metadata.get("nbgrader", {}).get("grade")}
        assert sorted(answers) == sorted(q.id for q in a.questions), a.id
        for q in a.questions:
            assert answers[q.id].source == b.TEXT_STUB
            assert answers[q.id].metadata.nbgrader["points"] == q.points


# ----- no rubric in what students get ------------------------------------------------------------

def test_the_release_scan_finds_a_rubric_line_and_the_exercises_hold_none(tmp_path):
    rubrics = release.rubric_lines(ROOT)
    assert {where.split(":")[0] for where in rubrics.values()} >= {
        f"solutions/{a.id}/{a.notebook}.py" for a in COURSE.assignments if a.questions}
    assert release.find_solution_text(ROOT / "exercises", ROOT) == []
    line, where = next(iter(rubrics.items()))
    (tmp_path / "notes.md").write_text(f"# notes\n\n- {line}\n")
    [found] = release.find_solution_text(tmp_path, ROOT)
    assert found.startswith(f"notes.md: line 3 is rubric line {where}: - ")


# ----- grade's results, grades.csv, feedback, the class report -----------------------------------

def graded(student, points, status="graded"):
    """A result as grade_one makes it for 01 (tasks scored `points` each), questions included."""
    a = COURSE.assignment("01_scalar_autodiff")
    result = ungraded(Submission(None, student, a.id), COURSE, "error", "x")
    result.update(status=status, message="", tasks=[
        dict(t, points=min(points, t["max_points"]), status="passed") for t in result["tasks"]],
        questions=[dict(q, status="manual", message=report.BY_HAND) for q in result["questions"]])
    return bounded_total(result)


def test_questions_are_to_be_graded_by_hand_never_zero():
    a = COURSE.assignment("01_scalar_autodiff")
    result = graded("ann", 100)
    assert (result["score"], result["max_score"], result["max_by_hand"]) == (
        a.max_score, a.max_score, a.hand_points)
    assert [(q["id"], q["points"], q["status"]) for q in result["questions"]] == [
        (q.id, None, "manual") for q in a.questions]
    missing = ungraded(Submission(None, "bob", a.id), COURSE, "missing", "not submitted")
    assert {q["status"] for q in missing["questions"]} == {"missing"}
    forged = bounded_total(dict(result, questions=[dict(q, points=99) for q in result["questions"]]))
    assert forged["score"] == a.max_score and all(q["points"] is None for q in forged["questions"])


def test_grades_csv_feedback_and_table_show_the_questions_apart(tmp_path):
    a = COURSE.assignment("01_scalar_autodiff")
    result = graded("ann", 1)
    rows = list(csv.DictReader(io.StringIO(report.write_grades_csv(tmp_path, [result], COURSE)
                                           .read_text())))
    assert rows[0]["score"] == "4" and rows[0]["max_by_hand"] == f"{a.hand_points:g}"
    assert {rows[0][q.id] for q in a.questions} == {"manual"}
    page = report.feedback_html(result)
    assert f"{report.BY_HAND_MARK} manual" in page and f"– / {a.questions[0].points:g}" in page
    assert f"the questions' {a.hand_points:g} points, {report.BY_HAND}" in page
    assert f"{report.BY_HAND_MARK}{a.questions[0].id}" in report.table([result])
    assert report.BY_HAND in report.LEGEND


def test_the_class_report_counts_the_answers_to_grade_not_their_points():
    a = COURSE.assignment("01_scalar_autodiff")
    summary = classreport.summarize([graded("ann", 100), graded("bob", 0)], COURSE)
    [row] = summary["assignments"]
    assert row["scores"] == [a.max_score, 0.0] and row["max_by_hand"] == a.hand_points
    assert [(q["id"], q["to_grade"], q["max_points"]) for q in row["questions"]] == [
        (q.id, 2, q.points) for q in a.questions]
    csv_rows = classreport.report_rows(summary)
    assert ("question", a.id, a.questions[0].id, "", "to_grade", 2) in csv_rows
    assert ("score", a.id, "", "", "max_by_hand", a.hand_points) in csv_rows
    assert f"{report.BY_HAND}</td><td>2 to grade" in classreport.report_html(summary)


def test_check_of_a_question_says_it_is_graded_by_hand(capsys):
    from autograder.grading.selfcheck import check
    question = COURSE.assignment("01_scalar_autodiff").questions[0].id
    assert check(question, namespace={}) is None
    assert capsys.readouterr().out == (f"{report.BY_HAND_MARK} {question}: a question "
                                       f"{report.BY_HAND}; check() has nothing to check\n")


def test_the_gradebook_leaves_the_questions_to_manual_grading(tmp_path):
    from autograder.platforms.gradebook import open_gradebook, write_grades
    a = COURSE.assignment("01_scalar_autodiff")
    url = f"sqlite:///{tmp_path / 'new.db'}"
    assert write_grades([graded("dana", 100)], url, COURSE) == 1
    with open_gradebook(url) as gb:
        found = gb.find_submission(a.id, "dana")
        assert (found.score, found.max_score) == (a.max_score, a.max_score + a.hand_points)
        grades = {g.name: g for nb in found.notebooks for g in nb.grades}
        assert {q.id: (grades[q.id].needs_manual_grade, grades[q.id].max_score,
                       grades[q.id].cell.cell_type) for q in a.questions} == {
            q.id: (True, q.points, "markdown") for q in a.questions}
        assert not any(grades[t.id].needs_manual_grade for t in a.tasks)
