"""What students and instructors read: the messages of issue 16 (a missing function, where an
error happened, the feedback page), each on the notebook that provokes it."""
import pytest

from autograder.grading import report
from tests.grading import (COURSE, grade_source, mutate, notebook_from_source, run_in_process,
                           solution_source)

A = "01_scalar_autodiff"
RENAMED = ("def numerical_gradient(f, x: float, eps: float = 1e-6) -> float:",
           "def numeric_gradient(f, x: float, eps: float = 1e-6) -> float:")
MISSING = ("the notebook defines no function `numerical_gradient`; the exercise asks for it in "
           "section “Part 4: numerical gradient” (keep the name and the signature that the "
           "exercise gives: the checks call it)")


@pytest.fixture(scope="module")
def renamed(tmp_path_factory):
    """01's solution with numerical_gradient renamed, graded as `grade` does."""
    return grade_source(mutate(solution_source(A), *RENAMED), A, tmp_path_factory.mktemp("renamed"))


def test_a_renamed_function_is_named_with_its_section_when_graded(renamed):
    task = {t["id"]: t for t in renamed["tasks"]}["numerical_gradient"]
    assert task["status"] == "error" and task["points"] == 0
    assert task["message"].startswith(MISSING), task["message"]
    assert "KeyError" not in task["message"]


def test_a_renamed_function_is_named_with_its_section_by_the_self_check(tmp_path, monkeypatch, capsys):
    path = notebook_from_source(mutate(solution_source(A), *RENAMED), tmp_path / "renamed.ipynb")
    error, printed = run_in_process(path, monkeypatch, capsys)["tasks"]["numerical_gradient"]
    assert error is not None and MISSING in printed, printed
    assert "KeyError" not in printed


def test_a_key_error_of_the_students_own_code_is_still_theirs():
    """Only a probe's failed lookup of a name that the exercise defines is rewritten."""
    from autograder.grading.judge import _message
    from autograder.sandbox.errors import ProbeError

    class Info:
        def __init__(self, error):
            self.value = error
    assignment = COURSE.assignment(A)
    for text in ("KeyError: 'numerical_gradient' (cell 9, line 3)", "KeyError: 'W1'",
                 "KeyError: 'not_in_the_exercise'"):
        assert _message(Info(ProbeError(text)), assignment) == ("error", f"your code raised {text}")
    assert _message(Info(ProbeError("KeyError: 'Scalar', computing a + b")), assignment)[1] == (
        "the notebook defines no class `Scalar`; the exercise asks for it in section “Part 1: "
        "arithmetic” (keep the name and the signature that the exercise gives: the checks call "
        "it), computing a + b")


# -- where an error happened: as JupyterLab shows the cell (item 5) ----------------------------
BROKEN_CELL = "\n# %% [markdown]\n# Some text.\n\n# %%\nvalues = [1, 2]\nratio = values[0] / 0\n"
# raised inside NumPy, called from the student's line 3: the line is theirs, not NumPy's
PROBED_RAISE = ("def numerical_gradient(f, x: float, eps: float = 1e-6) -> float:",
                "def numerical_gradient(f, x: float, eps: float = 1e-6) -> float:\n"
                "    if x is not None:\n        np.stack([np.zeros(2), np.zeros(3)])")
STACKED = "ValueError: all input arrays must have the same shape"


def test_errors_name_the_cell_by_its_first_line_not_a_number_counting_markdown(tmp_path):
    source = mutate(solution_source(A), *PROBED_RAISE) + BROKEN_CELL
    result = grade_source(source, A, tmp_path)
    [error] = [e for e in result["cell_errors"] if e["error"].startswith("ZeroDivisionError")]
    assert error["where"] == "the cell that begins “values = [1, 2]”" and error["line"] == 2, error
    assert report.cell_place(error) == "the cell that begins “values = [1, 2]”, line 2"
    task = {t["id"]: t for t in result["tasks"]}["numerical_gradient"]
    assert (STACKED + " (the cell that begins “def numerical_gradient(f, x: float, eps: float "
            "= 1e-6) -> float:”, line 3, raised inside numpy)") in task["message"], task["message"]
    assert "(cell " not in task["message"]
    page = report.feedback_html(result)
    assert "the cell that begins “values = [1, 2]”, line 2: <code>ZeroDivisionError" in page


def test_the_self_check_says_the_students_line_not_the_librarys(tmp_path, monkeypatch, capsys):
    """As grading does: the innermost line of the notebook's code, and the library it called."""
    path = notebook_from_source(mutate(solution_source(A), *PROBED_RAISE), tmp_path / "nb.ipynb")
    error, printed = run_in_process(path, monkeypatch, capsys)["tasks"]["numerical_gradient"]
    assert error is not None
    assert f"{STACKED} (in numerical_gradient, line 3, raised inside numpy)" in printed, printed


def test_where_an_error_was_raised_is_the_innermost_frame_of_the_students_code():
    import json

    import numpy as np

    from autograder.sandbox.errors import where_raised
    cell = {"np": np, "json": json}
    exec(compile("def own():\n    raise ValueError\n"
                 "def stacked():\n    np.stack([np.zeros(2), np.zeros(3)])\n"
                 "def parsed():\n    json.loads('{')\n", "<cell 4>", "exec"), cell)

    def where(function):
        try:
            function()
        except Exception as error:  # noqa: BLE001
            return where_raised(error.__traceback__, lambda file: file.startswith("<cell"),
                                lambda file, name, line: f"{file[1:-1]}, {name}, line {line}")
    assert where(cell["own"]) == " (cell 4, own, line 2)"
    assert where(cell["stacked"]) == " (cell 4, stacked, line 4, raised inside numpy)"
    assert where(cell["parsed"]) == " (cell 4, parsed, line 6, raised inside json)"
    assert where(lambda: np.stack([np.zeros(2), np.zeros(3)])) == ""     # no line of theirs


def test_a_cell_label_quotes_the_first_line_and_the_execution_count():
    from autograder.course.notebook import cell_labels
    notebook = {"cells": [{"cell_type": "markdown", "source": "# Title"},
                          {"cell_type": "code", "source": ["\n", "import torch  # why not\n"],
                           "execution_count": 7},
                          {"cell_type": "code", "source": "x = '" + "a" * 80 + "'"},
                          {"cell_type": "code", "source": ""}]}
    assert cell_labels(notebook) == {2: "the cell [7] that begins “import torch  # why not”",
                                     3: "the cell that begins “x = '" + "a" * 74 + "…”",
                                     4: "the empty code cell"}


# -- the feedback page and the table (item 10) --------------------------------------------------
def test_the_feedback_page_is_headed_by_the_assignment_title(renamed):
    page = report.feedback_html(renamed)
    title = COURSE.assignment(A).title
    assert f"<h1>{title}</h1>" in page and f"<title>{title}: feedback for student</title>" in page
    assert report.LEGEND in page


def test_the_table_says_what_to_do_with_a_broken_notebook_and_has_a_legend():
    broken = {"student": "dmitri", "assignment": A, "score": 0.0, "max_score": 10.0,
              "status": "error", "tasks": [],
              "message": "unreadable notebook: the notebook is not valid JSON (line 80: Expecting "
                         "',' delimiter). Download it again from JupyterLab (File > Download) and "
                         "submit that file"}
    lines = report.table([broken]).splitlines()
    assert lines[1].endswith("⚠ " + broken["message"]) and lines[-1] == report.LEGEND


def _red(png: bytes):
    """The pixels of a PNG that are red: where the test's red line or label is drawn."""
    import io
    import matplotlib.image
    pixels = matplotlib.image.imread(io.BytesIO(png))
    return (pixels[..., 0] > 0.8) & (pixels[..., 1] < 0.3) & (pixels[..., 2] < 0.3)


def test_figures_for_the_feedback_keep_an_axis_label_past_the_figures_edge():
    """The loss plot of 04 and 09 is 6 x 3 inches: saved at its own size, its x label was cut."""
    import base64
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from autograder.probes.common import figure_pngs
    plt.close("all")
    figure = plt.figure(figsize=(4, 1.2))
    plt.plot([3, 2, 1])
    plt.xlabel("SGD step", color="red", fontsize=14)
    try:
        [png] = figure_pngs()
    finally:
        plt.close(figure)
    red = _red(base64.b64decode(png))
    rows = red.any(axis=1).nonzero()[0]
    assert rows.size and rows.max() < red.shape[0] - 1, "the x label is missing or cut"


def test_a_figure_within_its_edges_is_drawn_once_and_cropped_as_savefig_crops_it():
    """figure_pngs draws a figure once and crops it (savefig's tight crop draws it twice): the
    same picture as savefig(bbox_inches="tight") gives, to a pixel of rounding at each edge."""
    import base64
    import io
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from autograder.probes.common import figure_pngs
    plt.close("all")
    figure, axes = plt.subplots(figsize=(6, 3), dpi=100)
    axes.loglog([1e-9, 1e-1], [1e-3, 1e2], color="red")
    axes.set_xlabel("eps")
    figure.tight_layout()     # within its edges (without it, this x label reaches past the bottom)
    draws = []
    figure.canvas.mpl_connect("draw_event", draws.append)
    try:
        [png] = figure_pngs()
        assert len(draws) == 1
        saved = io.BytesIO()
        figure.savefig(saved, format="png", dpi=80, bbox_inches="tight")
        assert figure.dpi == 100, "the figure's own dpi is restored"
    finally:
        plt.close(figure)
    ours, theirs = _red(base64.b64decode(png)), _red(saved.getvalue())
    assert abs(ours.shape[0] - theirs.shape[0]) <= 2 and abs(ours.shape[1] - theirs.shape[1]) <= 2
    assert abs(int(ours.sum()) - int(theirs.sum())) < 0.05 * theirs.sum()
    (rows, columns), (their_rows, their_columns) = ours.nonzero(), theirs.nonzero()
    assert abs(rows.min() - their_rows.min()) <= 1 and abs(columns.max() - their_columns.max()) <= 1


def test_check_prints_the_table_the_cell_errors_and_the_legend(tmp_path):
    import subprocess
    import sys
    path = notebook_from_source(mutate(solution_source(A), *RENAMED), tmp_path / "renamed.ipynb")
    run = subprocess.run([sys.executable, "-m", "autograder", "check", path], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert lines[0] == f"{A} — renamed: 9 / 10"
    assert any(line.startswith("  ⚠ numerical_gradient") and MISSING[:60] in line for line in lines)
    assert any(line.startswith("  error in the cell that begins “") and "NameError: name "
               "'numerical_gradient' is not defined" in line for line in lines), run.stdout
    assert lines[-1] == report.LEGEND


def test_the_demo_counts_notebooks_not_rows():
    """make demo: 'graded N notebooks' counts what was handed in; a student's assignment with no
    notebook stays out of the printed table (it is a row of grades.csv)."""
    from autograder.demo import summary
    task = {"id": "t", "status": "passed", "points": 1.0, "max_points": 1.0}
    results = [{"student": "ada", "assignment": "01_a", "score": 1.0, "max_score": 1.0, "tasks": [task]},
               {"student": "ada", "assignment": "02_b", "score": 0.0, "max_score": 1.0, "tasks": [],
                "status": "missing", "message": "no notebook was submitted"},
               {"student": "bob", "assignment": "01_a", "score": 0.0, "max_score": 1.0, "tasks": [],
                "status": "error", "message": "not a notebook"}]
    text = summary(results, 12.3)
    assert "graded 2 notebooks in 12 s; 1 assignment of these students not handed in" in text
    assert "no notebook was submitted" not in text and "02_b" not in text
    assert "not a notebook" in text and "01_a" in text


def test_a_wrong_value_outranks_the_errors_it_causes_further_on():
    """Issue 33: a forgotten transpose in dot's gradient gave the task '⚠ error' (the legend says
    the code raised), and the shape message of the checks where it did raise was not shown. The
    task failed: its message is the wrong value's, then what another check raised."""
    from tests.blind_mistakes import self_check
    from tests.grading import solution_source
    a = "02_matrix_autodiff"
    source = solution_source(a).replace("(other, lambda g: a.T @ g)", "(other, lambda g: g.T @ a)")
    assert source != solution_source(a)
    result = self_check(source, a, ["matrix_dot_transpose"])["matrix_dot_transpose"]
    statuses = {c["status"] for c in result["checks"]}
    assert {"failed", "error"} <= statuses, statuses          # both kinds among its checks
    assert result["status"] == "failed" and result["points"] < result["max_points"]
    first, _, other = result["message"].partition("\n(another check: ")
    assert "expected" in first and "received" in first, result["message"]
    assert other.startswith("your code raised ValueError") and "shape" in other, result["message"]


def test_the_benchmark_prints_targets_only_for_one_thread(capsys):
    """Issue 33: `make bench` printed MISSED for the 2-thread run, whose targets are for one."""
    import re
    import sys
    import numpy
    from tests.grading import ROOT
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import mnist_mlp
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    per_step = {"dp": [0.010], "numpy": [0.009], "torch": [0.008], "floor": [0.005]}
    mnist_mlp.print_table(numpy.float64, per_step, threads=2)
    two = capsys.readouterr().out
    assert "MISSED" not in two and "ok" not in two and "no target on 2 threads" in two
    assert re.search(r"dp/torch\s+1\.250\s+1\.125", two) and re.search(r"dp/floor\s+2\.000\s+1\.800", two)
    mnist_mlp.print_table(numpy.float64, per_step, threads=1)
    assert re.search(r"dp/torch\s+1\.250\s+<= 0\.85\s+MISSED", capsys.readouterr().out)


def test_make_train_says_its_loss_is_a_sum(capsys):
    """Issue 33: `make train` printed a loss without saying whether it is a sum or a mean."""
    from dp import demo
    demo.main(["--steps", "2", "--batch-size", "16"])
    out = capsys.readouterr().out
    assert "(the model's loss: a sum over the batch's 16 digits," in out and "per digit)" in out


def test_a_reply_of_another_shape_says_how_its_shape_departs():
    """The reply schema's shape message adds checking.shape_located where the spec fixes every
    axis (a bias as a column, a row one too short), and nothing where an axis is free."""
    import numpy as np

    from autograder.grading.replies import MalformedReply, validate
    from autograder.probes.schema import Array

    def message(value, shape) -> str:
        with pytest.raises(MalformedReply) as failed:
            validate({"b": value}, {"b": Array(shape)}, "reply to probe 'p'")
        return str(failed.value)
    assert message(np.zeros((5, 1)), (1, 5)).endswith(
        "has shape (5, 1), expected an array of floats of shape (1, 5). The first difference is "
        "in the shape: the received shape is the expected one transposed.")
    assert "one too few, off by one" in message(np.zeros((2, 8)), (2, 9))
    assert message(np.zeros((5, 1)), (None, 5)).endswith("of shape (any, 5)")
