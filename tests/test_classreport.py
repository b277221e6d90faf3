"""`python -m autograder report graded/`: the class at a glance, built from result JSON written
the way `grade` writes it (report.write_result), for a synthetic class whose numbers are known:
its HTML parsed, its CSV read back, and one load of the page in headless Chromium, with a
screenshot kept as a test artifact (build/test-artifacts/, or $DP_TEST_ARTIFACTS)."""
import csv
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from selenium.webdriver.common.by import By

from autograder.grading import checking, report
from autograder.reports import classreport
from autograder.course.config import load_course
from tests.grading import ROOT
from tests.test_browser import browser  # noqa: F401 (the fixture: headless Chromium)

COURSE = load_course()
A = COURSE.assignment("01_scalar_autodiff")
B = COURSE.assignment("04_activation_functions")
ARTIFACTS = Path(os.environ.get("DP_TEST_ARTIFACTS", ROOT / "build" / "test-artifacts"))

# d(a*b)/db returned as b: the same mistake on each student's own hidden inputs
MUL = "d(a * b)/db at a={a}, b={b}: expected {a}, received {b}"
FLAG = "forbidden import: torch (the cell [3] that begins “import torch”)"
# 01's known mistakes (its catalogue), as checking.misconception ends a failure message with them
SUB = "d(a - b)/db = +1, as if it were a + b"
RSUB = "number - a computed as a - number: __rsub__ must return other - self"
NAMED = "d(a - b)/db at a={a}, b={b}: expected -1, received 1" + checking.NAMES + SUB
BOTH = "(2 - a) at a={a}: expected {b}, received {c}" + checking.NAMES + RSUB + \
    checking.OR_NAMES + SUB
# a message that quotes a submission's own text can say anything: only the catalogue counts
FORGED = "your code raised ValueError: x" + checking.NAMES + "nothing the course knows"


def _result(student, assignment, failed=None, status="graded", seconds=None, flags=(), message=""):
    """A result as `grade` writes it: every task passed but those in `failed` ({task: message})."""
    failed = failed or {}
    tasks = [{"id": t.id, "title": t.title, "max_points": t.points,
              "points": 0.0 if t.id in failed or status != "graded" else float(t.points),
              "status": ("failed" if t.id in failed else "passed") if status == "graded"
              else status,
              "message": failed.get(t.id, "") if status == "graded" else message,
              "metrics": {}, "checks": []} for t in assignment.tasks]
    result = {"student": student, "assignment": assignment.id, "title": assignment.title,
              "status": status, "message": message, "notebook": f"{assignment.notebook}.ipynb",
              "flags": list(flags), "cell_errors": [], "output": "", "tasks": tasks,
              "score": sum(t["points"] for t in tasks),
              "max_score": sum(t["max_points"] for t in tasks)}
    if seconds is not None:
        result["seconds"] = seconds
    return result


CLASS = [
    _result("ada", A, seconds=3.2), _result("ada", B, seconds=41.0),
    _result("ben", A, {"scalar_arithmetic": MUL.format(a=0.31, b=-1.7)}, seconds=2.9),
    _result("ben", B, {"vanishing_plot": "sigmoid line: layer 1 value differs from the true "
                                         "gradient sum"}, seconds=38.5),
    _result("cleo", A, {"scalar_arithmetic": MUL.format(a=2.5, b=0.125),
                        "numerical_gradient": "your code raised NotImplementedError"},
            seconds=3.0),
    _result("dmitri", A, {"scalar_arithmetic": MUL.format(a=-4.0, b=1e-3),
                          "scalar_backprop": "a chain of 100000 nodes: RecursionError"},
            seconds=2.5, flags=[FLAG]),
    _result("fay", A, {"scalar_arithmetic": NAMED.format(a=0.5, b=2.0),
                       "scalar_functions": FORGED}),
    _result("gus", A, {"scalar_arithmetic": BOTH.format(a=0.25, b=1.75, c=-1.75)}),
    _result("hal", A, {"scalar_arithmetic": NAMED.format(a=-3.0, b=0.1)}),
    _result("dmitri", B, status="missing", message="no notebook was submitted"),
    _result("eve", A, status="error", message="unreadable notebook: not valid JSON",
            flags=["unreadable notebook"]),
    _result("eve", B, status="timeout", message="the time limit of 120 s was reached",
            seconds=120.4),
    _result("=2+3", A, seconds=1.0, flags=["<script>alert(1)</script>"]),
]
STUDENTS = sorted({r["student"] for r in CLASS})


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("graded")
    for result in CLASS:
        report.write_result(out, result)
    run = subprocess.run([sys.executable, "-m", "autograder", "report", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert str(out / classreport.HTML_NAME) in run.stdout
    return out


class _Page(HTMLParser):
    """The page's text by element id and class, its tables' rows, and its images."""

    def __init__(self):
        super().__init__()
        self.stack, self.text, self.rows, self.images = [], {}, {}, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
            return
        names = [attrs.get("id"), *(attrs.get("class") or "").split()]
        self.stack.append((tag, [n for n in names if n]))
        if tag == "tr":
            self.rows.setdefault(self._table(), []).append([])
        if tag == "td":
            self.rows[self._table()][-1].append("")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        for _, names in self.stack:
            for name in names:
                self.text[name] = self.text.get(name, "") + data
        if any(tag == "td" for tag, _ in self.stack):
            self.rows[self._table()][-1][-1] += data

    def _table(self):
        return next((names[0] for tag, names in reversed(self.stack) if tag == "table" and names),
                    None)


def _page(graded):
    page = _Page()
    page.feed((graded / classreport.HTML_NAME).read_text(encoding="utf-8"))
    return page


def _csv(graded):
    with open(graded / classreport.CSV_NAME, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_message_pattern_leaves_out_the_numbers_of_each_students_hidden_inputs():
    assert classreport.message_pattern(MUL.format(a=0.31, b=-1.7)) == \
        classreport.message_pattern(MUL.format(a=2.5, b=1e-3)) == \
        "d(a * b)/db at a=#, b=#: expected #, received #"
    assert classreport.message_pattern("expected [0.1, 2, -3e-4], got [1 2]") == \
        "expected [#…], got [#…]"
    assert classreport.message_pattern("layer 1 of 10") == "layer # of #"
    assert classreport.message_pattern("sigmoid(x) differs") == "sigmoid(x) differs"


def test_summary_counts_pass_rates_missing_students_and_ranks_failures():
    summary = classreport.summarize(CLASS, COURSE)
    first, fourth = summary["assignments"]
    assert first["id"] == A.id and fourth["id"] == B.id
    assert first["submitted"] == 9 and first["missing"] == []           # eve's unreadable counts
    assert first["not_graded"] == [("eve", "unreadable notebook: not valid JSON")]
    assert sorted(first["scores"]) == [0.0, 4.0, 4.0, 6.0, 7.0, 7.0, 7.0, 10.0, 10.0]
    tasks = {t["id"]: t for t in first["tasks"]}
    arithmetic = tasks["scalar_arithmetic"]
    assert (arithmetic["passed"], arithmetic["submitted"]) == (2, 9)
    assert arithmetic["pass_rate"] == pytest.approx(2 / 9)
    # the mistake without a name, the named one, then eve's and gus's
    assert [f["count"] for f in arithmetic["failures"]] == [3, 2, 1, 1]
    assert arithmetic["failures"][0]["example"] == MUL.format(a=0.31, b=-1.7)
    # known mistakes ranked: SUB named for fay, hal and gus, RSUB (an alternative) for gus
    assert arithmetic["misconceptions"] == [{"why": SUB, "count": 3}, {"why": RSUB, "count": 1}]
    assert tasks["scalar_functions"]["pass_rate"] == pytest.approx(7 / 9)
    assert tasks["scalar_functions"]["misconceptions"] == []           # FORGED names nothing
    # 04: dmitri did not submit; the students of 01 without a row for 04 have not either
    assert fourth["missing"] == sorted(["dmitri", "cleo", "=2+3", "fay", "gus", "hal"])
    assert fourth["submitted"] == 3 and sorted(fourth["scores"]) == [0.0, 7.0, 11.0]   # of 11
    assert [(s["student"], s["seconds"]) for s in summary["slowest"][:3]] == [
        ("eve", 120.4), ("ada", 41.0), ("ben", 38.5)]
    assert len(summary["slowest"]) == 8 < classreport.SLOWEST       # every result with a time
    assert {(f["student"], f["flag"]) for f in summary["flags"]} == {
        ("dmitri", FLAG), ("eve", "unreadable notebook"),
        ("=2+3", "<script>alert(1)</script>")}


def test_the_page_shows_each_assignment_task_missing_student_slow_notebook_and_flag(graded):
    page = _page(graded)
    assert sorted(n for n in page.text if n in (A.id, B.id)) == sorted([A.id, B.id])
    histograms = [i for i in page.images if "histogram" in i.get("class", "")]
    assert len(histograms) == 2 and all(i["src"].startswith("data:image/png;base64,iVBOR")
                                        for i in histograms)
    ids = [t.id for t in (*A.tasks, *B.tasks)]
    tasks = {next(i for i in ids if row[0].startswith(i)): row for row in page.rows["tasks"] if row}
    assert sorted(tasks) == sorted(ids)
    assert tasks["scalar_arithmetic"][1:3] == ["22 %", "2 / 9"]
    assert "3× " + MUL.format(a=0.31, b=-1.7) in tasks["scalar_arithmetic"][3]
    assert tasks["scalar_arithmetic"][4] == f"3× {SUB}1× {RSUB}"      # ranked, as text
    assert tasks["scalar_functions"][4] == ""
    assert tasks["vanishing_plot"][1] == "33 %"            # ben failed it, eve timed out
    assert "Not submitted (6): " in page.text[B.id] and "cleo" in page.text[B.id]
    slowest = page.rows["slowest"][1:]
    assert slowest[0] == ["eve", B.id, "120.4 s", "100 %"]
    flags = [row for row in page.rows["flags"][1:]]
    assert ["dmitri", A.id, FLAG] in flags
    assert ["=2+3", A.id, "<script>alert(1)</script>"] in flags   # as text
    assert "<script>" not in (graded / classreport.HTML_NAME).read_text()


def test_the_csv_holds_the_same_numbers(graded):
    rows = _csv(graded)
    assert list(rows[0]) == classreport.CSV_FIELDS
    summary = classreport.summarize(report.load_results(graded), COURSE)

    def value(section, assignment, task, item):
        [row] = [r for r in rows if (r["section"], r["assignment"], r["task"], r["item"])
                 == (section, assignment, task, item)]
        return row["value"]

    for a in summary["assignments"]:
        assert float(value("score", a["id"], "", "mean")) == pytest.approx(a["mean"])
        assert sum(int(r["value"]) for r in rows
                   if r["section"] == "histogram" and r["assignment"] == a["id"]) == a["submitted"]
        for t in a["tasks"]:
            rate = float(value("task", a["id"], t["id"], "pass_rate"))
            assert rate == pytest.approx(t["pass_rate"])
    assert value("failure", A.id, "scalar_arithmetic", MUL.format(a=0.31, b=-1.7)) == "3"
    assert sorted(r["student"] for r in rows if r["section"] == "missing") == sorted(
        ["dmitri", "cleo", "'=2+3", "fay", "gus", "hal"])  # no formula
    assert value("misconception", A.id, "scalar_arithmetic", SUB) == "3"
    assert value("misconception", A.id, "scalar_arithmetic", RSUB) == "1"
    assert not [r for r in rows if r["section"] == "misconception" and r["task"] != "scalar_arithmetic"]
    assert [r["student"] for r in rows if r["section"] == "slowest"][:2] == ["eve", "ada"]
    assert len([r for r in rows if r["section"] == "flag"]) == 3


def test_report_of_a_folder_without_results_says_so(tmp_path):
    run = subprocess.run([sys.executable, "-m", "autograder", "report", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "no results in" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.browser
def test_the_report_in_a_real_browser(graded, browser):
    """One page load in headless Chromium: the plots are decoded images, the tables are there,
    and a screenshot of the whole page is kept as a test artifact."""
    browser.get((graded / classreport.HTML_NAME).as_uri())
    widths = browser.execute_script(
        "return Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
    assert widths == [520, 520], widths          # 5.2 in at 100 dpi, one per assignment
    flags = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#flags tbody tr")]
    assert len(flags) == 3 and any("<script>alert(1)</script>" in f for f in flags), flags
    rate = browser.find_element(By.CSS_SELECTOR, f"section[id='{A.id}'] table.tasks td.rate")
    assert rate.text == "22 %"                   # scalar_arithmetic, the first task
    mistakes = browser.find_element(By.CSS_SELECTOR,
                                    f"section[id='{A.id}'] table.tasks ol.misconceptions")
    assert mistakes.text.splitlines() == [f"3× {SUB}", f"1× {RSUB}"]
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1400, min(height + 300, 8000))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "class-report.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000


def test_an_optional_assignment_lists_who_did_not_take_it_apart_from_the_missing(tmp_path):
    """course.toml's `optional = true` (10): its absent students are "optional, not taken", not
    missing, in the summary's rows and on the page; a required assignment's stay missing."""
    assert COURSE.assignment("10_optimisation_beyond_ml").optional and not B.optional
    toml = (ROOT / "course.toml").read_text(encoding="utf-8").replace(
        'id = "04_activation_functions"\n', 'id = "04_activation_functions"\noptional = true\n', 1)
    (tmp_path / "course.toml").write_text(toml, encoding="utf-8")
    course = load_course(tmp_path / "course.toml")
    for optional, absent in ((course, "not_taken"), (COURSE, "missing")):
        summary = classreport.summarize(CLASS, optional)
        rows = classreport.report_rows(summary)
        assert sorted(r[3] for r in rows if r[0] == absent and r[1] == B.id) == sorted(
            ["dmitri", "cleo", "=2+3", "fay", "gus", "hal"])
        page = classreport.report_html(summary)
        assert ("Optional, not taken (6)" in page) == (absent == "not_taken"), absent
    bad = toml.replace("optional = true", 'optional = "yes"', 1)
    (tmp_path / "course.toml").write_text(bad, encoding="utf-8")
    with pytest.raises(Exception, match="optional: expected true or false"):
        load_course(tmp_path / "course.toml")
