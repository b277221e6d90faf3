"""What the instructor sees cannot be forged by what a student controls (issue 31, item 7).

One hostile class of assignment 01, graded by `grade`, summed up by `report` and `similarity`,
and two of its students (one honest, one hostile) taken through nbgrader's own autograde and
generate_feedback (autograder.platforms.nbgrader_plugin). Every page is then opened in headless
Chromium, as tests/test_browser.py does:

  * mallory's markdown cell holds a <script>, an <img onerror>, an <svg onload>, a javascript:
    link (markdown and HTML), an <iframe srcdoc>, an SVG attachment with onload; her code cell
    an SVG and an HTML output with script, and tags made to break out of a class attribute;
    her code redefines numerical_gradient to raise a message with bidi controls, HTML and a
    5,000-character line, and a cell raises another such error. Nothing of it may run.
  * look-alike names: "аlice" (Cyrillic а), "alice " (a trailing space), "alice⠀" (U+2800)
    beside the real alice: every page that shows two of them marks both.
  * a name with bidi controls ("eve" U+202E U+2066), and bidi controls in every text above:
    none reaches a page.
  * loose notebooks: dave.ipynb and, beside it, dave-scalar_autodiff.ipynb (a stub): dave keeps
    his grade, the other is graded apart and both rows say so.
  * honest rows: alice, José, Zoë, 王芳 and dave keep 10/10 and their names as they are.
"""
import base64
import csv
import json
import re
import time

import nbformat
import pytest

from autograder.authoring import build
from autograder.grading import names, report
from autograder.platforms.gradebook import open_gradebook
from tests.ecosystem import answered, jupyter, once_per_run
from tests.grading import ROOT
from tests.test_browser import browser  # noqa: F401  (the fixture: headless Chromium)
from tests.test_nbgrader import autograde_environment, run

A, NOTEBOOK = "01_scalar_autodiff", "scalar_autodiff.ipynb"
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
LONG = 5000
# Each payload records itself in window.pwned: after a page has loaded, it must be undefined.
MARKUP = "\n\n".join([
    "<script>window.pwned = 'script'</script>",
    "<img src=x onerror=\"window.pwned = 'img onerror'\">",
    "<svg onload=\"window.pwned = 'svg onload'\"><circle r=5></circle></svg>",
    "[a markdown link](javascript:window.pwned='markdown link')",
    "[a reference link][evil]\n\n[evil]: &#106;avascript:window.pwned='reference link'",
    "<a href=\"javascript:window.pwned = 'a href'\">an HTML link</a>",
    "<iframe srcdoc=\"<script>parent.pwned = 'iframe'</script>\"></iframe>",
    "<details open ontoggle=\"window.pwned = 'ontoggle'\"><summary>details</summary></details>",
    "![an attachment](attachment:evil.svg)",
    "\u202eThis cell says: score 01/01\u202c",
])
SVG = "<svg xmlns='http://www.w3.org/2000/svg' onload=\"window.pwned = 'svg'\"><circle r='5'/></svg>"
HOSTILE_CODE = f"""
def numerical_gradient(f, x, eps=1e-6):
    raise ValueError("\u202e01/01 :erocs\u202c <script>window.pwned = 'message'</script> " + "B" * {LONG})

print("<script>window.pwned = 'printed'</script> \u2066" + "D" * {LONG})
raise RuntimeError("\u2066score: 10/10\u2069 <img src=x onerror=\\"window.pwned = 'cell error'\\"> " + "C" * {LONG})
"""
# name as found (folder or file) -> (its notebook, points it earns: None for a stub's few)
HONEST = ("alice", "José", "Zoë", "王芳")
CYRILLIC, SPACE, BLANK, EVE = "\u0430lice", "alice ", "alice\u2800", "eve\u202e\u2066"
LOOKALIKES = ("alice", CYRILLIC, SPACE, BLANK)


def mallory():
    notebook = answered(A)
    markdown = nbformat.v4.new_markdown_cell(MARKUP, attachments={"evil.svg": {
        "image/svg+xml": base64.b64encode(SVG.encode()).decode()}})
    code = nbformat.v4.new_code_cell(HOSTILE_CODE, metadata={
        "tags": ["x\" onmouseover=\"window.pwned = 'tag'", "ok"]})
    code.outputs = [nbformat.v4.new_output("display_data", data={
        "image/svg+xml": SVG, "text/html": "<script>window.pwned = 'html output'</script>",
        "application/javascript": "window.pwned = 'javascript output'"})]
    notebook.cells += [markdown, code]
    return notebook


def make_class(tmp):
    """The class graded by `grade`, `report`, `similarity`; alice and mallory through nbgrader."""
    notebooks = {name: answered(A) for name in (*HONEST, CYRILLIC)}
    notebooks.update({name: answered(A, 0) for name in (SPACE, BLANK, EVE)})
    notebooks["mallory"] = mallory()
    for name, notebook in notebooks.items():
        path = tmp / "class" / "submitted" / name / A / NOTEBOOK
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, str(path))
    loose = tmp / "class" / "loose"
    loose.mkdir()
    nbformat.write(answered(A), str(loose / "dave.ipynb"))
    nbformat.write(answered(A, 0), str(loose / "dave-scalar_autodiff.ipynb"))
    out = tmp / "graded"
    for command in (("grade", tmp / "class", "--out", out, "--jobs", "2", "--quiet"),
                    ("report", out), ("similarity", tmp / "class", A, "--out", out)):
        run("-m", "autograder", *command, cwd=ROOT)
    course = tmp / "course"
    run("-m", "autograder", "nbgrader-course", course, "--assignment", A,
        "--students", "alice,mallory", cwd=ROOT)
    for name in ("alice", "mallory"):
        path = course / "submitted" / name / A / NOTEBOOK
        path.parent.mkdir(parents=True)
        nbformat.write(notebooks[name], str(path))
    env = autograde_environment()
    run("-m", "nbgrader", "autograde", A, cwd=course, env=env)
    run("-m", "nbgrader", "generate_feedback", A, cwd=course, env=env)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = once_per_run(tmp_path_factory, "instructor-view", make_class)
    return tmp / "graded", tmp / "course"


def rows(out):
    return {r["student"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}


def result(out, student):
    return json.loads(report.result_path(out, student, A).read_text(encoding="utf-8"))


# -- grading, the CSVs and nbgrader's notebook: no browser needed ------------------------------
def test_honest_rows_keep_their_names_and_full_marks(graded):
    found = rows(graded[0])
    for name in (*HONEST, "dave"):
        assert found[name]["score"] == "10", (name, found[name])
        assert result(graded[0], name)["student"] == name
    for name in ("José", "Zoë", "王芳"):
        assert found[name]["flags"] == "", found[name]


def test_look_alike_names_are_normalised_kept_apart_and_flagged_on_every_row(graded):
    found = rows(graded[0])
    shown = {name: report.student_name(name) for name in LOOKALIKES}
    assert shown["alice"] == "alice" and shown[CYRILLIC] == CYRILLIC
    assert re.fullmatch(r"alice~[0-9a-f]{12}", shown[SPACE]) and re.fullmatch(r"alice~[0-9a-f]{12}", shown[BLANK])
    assert len(set(shown.values())) == 4          # four students, never merged
    for name in shown.values():
        assert found[name]["flags"].startswith(names.MARK), found[name]
        others = set(shown.values()) - {name}
        assert all(names.spelled(o) in found[name]["flags"] for o in others), found[name]["flags"]
    assert "U+0430 CYRILLIC SMALL LETTER A" in found[CYRILLIC]["flags"]
    assert f"the name as found, 'alice\u2800' (U+2800 BRAILLE PATTERN BLANK), is written {shown[BLANK]}" \
        in found[shown[BLANK]]["flags"]
    assert f"the name as found, 'alice ' (U+0020 SPACE), is written {shown[SPACE]}" in found[shown[SPACE]]["flags"]


def test_no_bidi_control_in_any_file_written(graded):
    out, course = graded
    files = [p for p in out.rglob("*") if p.is_file()]
    files += list((course / "autograded").rglob("*.ipynb")) + list((course / "feedback").rglob("*.html"))
    assert len(files) > 20
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix in (".json", ".ipynb"):      # "\u202e" as written, too
            text = json.dumps(json.loads(text), ensure_ascii=False)
        assert not BIDI.search(text), path
        assert not BIDI.search(str(path.relative_to(out if path.is_relative_to(out) else course))), path
    eve = [r for r in rows(out) if r.startswith("eve")]
    assert len(eve) == 1 and re.fullmatch(r"eve~[0-9a-f]{12}", eve[0])


def test_a_notebook_named_after_another_student_takes_nothing_from_them(graded):
    found = rows(graded[0])
    assert found["dave"]["score"] == "10" and found["dave"]["status"] == "graded"
    assert "dave-scalar_autodiff.ipynb (graded apart, as dave-scalar_autodiff)" in found["dave"]["flags"]
    apart = found["dave-scalar_autodiff"]
    assert apart["score"] == "0" and "is named like dave's notebook and dave.ipynb is dave's" in apart["flags"]


def test_similarity_marks_the_look_alike_pair(graded):
    pairs = list(csv.DictReader((graded[0] / f"similarity-{A}.csv").open(encoding="utf-8")))
    [pair] = [p for p in pairs if {p["student_a"], p["student_b"]}
              == {f"{CYRILLIC} [{names.MARK}]", f"alice [{names.MARK}]"}]
    assert float(pair["similarity"]) == 1.0
    assert not any(names.MARK in p["student_a"] for p in pairs if p["student_a"] in ("José", "Zoë", "王芳"))


def test_nbgrader_stores_an_inert_notebook_and_the_same_points(graded):
    out, course = graded
    text = (course / "autograded" / "mallory" / A / NOTEBOOK).read_text(encoding="utf-8")
    notebook = nbformat.reads(text, as_version=4)
    markdown = next(c for c in notebook.cells if "a markdown link" in c.source)
    for active in ("<script", "<img src=x onerror", "<svg", "javascript:", "<iframe", "ontoggle"):
        assert active not in markdown.source, (active, markdown.source)
    assert "&lt;script&gt;" in markdown.source          # shown as the text it is
    assert not markdown.get("attachments")
    code = next(c for c in notebook.cells if "def numerical_gradient(f, x, eps=1e-6):\n    raise" in c.source)
    assert all(re.fullmatch(r"[\w.-]+", tag) for tag in code.metadata.get("tags", []))
    assert not any("image/svg+xml" in o.get("data", {}) for c in notebook.cells for o in c.get("outputs", []))
    with open_gradebook(f"sqlite:///{course / 'gradebook.db'}", build.COURSE_ID) as gb:
        for student in ("alice", "mallory"):
            assert gb.find_submission(A, student).score == result(out, student)["score"], student
    assert result(out, "alice")["score"] == 10 and result(out, "mallory")["score"] < 10


# -- every page in headless Chromium -------------------------------------------------------------
# What a page does that it must not: a payload that ran, a handler or a javascript: URL left in
# the DOM, a frame; and how far it is wider than the window.
AUDIT_JS = """
const bad = [];
if (window.pwned !== undefined) bad.push('ran: ' + window.pwned);
for (const el of document.querySelectorAll('*')) {
  if (['IFRAME', 'OBJECT', 'EMBED', 'FRAME'].includes(el.tagName)) bad.push('a frame: ' + el.tagName);
  if (el.tagName === 'SCRIPT' && el.textContent.includes('pwned')) bad.push('a script of the student');
  for (const at of el.attributes) {
    const value = at.value.replace(/[\\s\\x00-\\x20]/g, '').toLowerCase();
    if (at.name.startsWith('on') && at.value.includes('pwned')) bad.push(el.tagName + ' ' + at.name);
    if (/^(javascript|vbscript|data:text\\/html)/.test(value)) bad.push(el.tagName + ' ' + at.name + '=' + value);
  }
}
return {bad: bad, text: document.documentElement.textContent + document.title,
        overflow: document.documentElement.scrollWidth - window.innerWidth};
"""


def audit(driver, url):
    """What the page at `url` shows, once nothing of it ran and no bidi control is in it."""
    driver.get(url)
    time.sleep(0.5)                     # a handler that fires late (onload of an image) has fired
    found = driver.execute_script(AUDIT_JS)
    assert found["bad"] == [], (url, found["bad"])
    assert not BIDI.search(found["text"]), (url, BIDI.search(found["text"]))
    return found


def shown_names(driver, selector) -> list:
    return driver.execute_script(
        f"return Array.from(document.querySelectorAll({json.dumps(selector)})).map(e => e.textContent.trim())")


def assert_marked(names_shown, where):
    """No two names shown are confusable unless both carry the marker."""
    plain = {n.replace(f" [{names.MARK}]", ""): n for n in names_shown if n}
    for name, others in names.lookalikes(plain).items():
        assert names.MARK in plain[name], f"{where}: {name!r} looks like {others} and is not marked"


@pytest.fixture(scope="module")
def pages(graded):
    out, course = graded
    ours = [report.feedback_path(out, report.student_name(n), A) for n in (*HONEST, CYRILLIC, SPACE, BLANK, EVE, "mallory", "dave")]
    ours += [out / "class-report.html", out / f"similarity-{A}.html"]
    nbgrader = [course / "feedback" / s / A / NOTEBOOK.replace(".ipynb", ".html") for s in ("alice", "mallory")]
    return [p.as_uri() for p in ours], [p.as_uri() for p in nbgrader]


@pytest.mark.browser
def test_nothing_runs_no_bidi_and_nothing_wider_than_the_window_in_our_pages(browser, pages):  # noqa: F811
    for url in pages[0]:
        assert audit(browser, url)["overflow"] <= 0, url


@pytest.mark.browser
def test_nothing_runs_and_no_bidi_in_nbgrader_feedback(browser, pages):  # noqa: F811
    for url in pages[1]:
        found = audit(browser, url)
        if "/mallory/" in url:                  # her markup, shown as the text it is
            assert "<script>window.pwned = 'script'</script>" in found["text"], found["text"][-3000:]


@pytest.mark.browser
def test_nothing_runs_in_formgrader(browser, graded, tmp_path):  # noqa: F811
    course = graded[1]
    with open_gradebook(f"sqlite:///{course / 'gradebook.db'}", build.COURSE_ID) as gb:
        submission = gb.find_submission_notebook(NOTEBOOK.removesuffix(".ipynb"), A, "mallory").id
    with jupyter(course, tmp_path / "home", app="server") as (url, token, _):
        found = audit(browser, f"{url}/formgrader/submissions/{submission}/?token={token}")
        assert "a markdown link" in found["text"], found["text"][-2000:]


@pytest.mark.browser
def test_every_look_alike_name_is_marked_where_it_is_shown(browser, graded):  # noqa: F811
    out = graded[0]
    feedback = []
    for name in LOOKALIKES + ("José",):
        browser.get(report.feedback_path(out, report.student_name(name), A).as_uri())
        feedback += shown_names(browser, "#student")
    assert_marked(feedback, "feedback pages")
    assert "José" in feedback
    browser.get((out / "class-report.html").as_uri())
    assert_marked(shown_names(browser, "#flags td:first-child"), "the class report's flags")
    assert_marked(shown_names(browser, "#slowest td:first-child"), "the class report's slowest")
    browser.get((out / f"similarity-{A}.html").as_uri())
    shown = shown_names(browser, "#pairs td:nth-child(2), #pairs td:nth-child(3)")
    assert_marked(shown, "the similarity ranking")
    assert f"{CYRILLIC} [{names.MARK}]" in shown


# -- the pieces, quickly -----------------------------------------------------------------------
@pytest.mark.parametrize("markdown", [
    "[x](javascript:alert(1))", "[x](<javascript:alert(1)>)", "[x](  JAVASCRIPT:alert(1))",
    "[x](&#106;avascript:alert(1))", "[x](java\\script:alert(1))", "[r][1]\n\n[1]: javascript:alert(1)",
    "[x](data:text/html,<script>alert(1)</script>)", "<javascript:alert(1)>",
    "<a href='javascript:alert(1)'>x</a>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>",
    "<script\nsrc=x>", "<details open ontoggle=alert(1)>", "![a](x\"onerror=\"alert(1))"])
def test_markdown_renders_inert_in_nbconvert(markdown):
    from nbconvert.filters.markdown_mistune import markdown2html_mistune
    from autograder.platforms.inert import safe_markdown
    page = markdown2html_mistune(safe_markdown(markdown)).lower()
    assert not re.search(r"""(href|src)=["']?(javascript|data:text)|<script|<svg|<[^>]*\son\w+=""", page), page


@pytest.mark.parametrize("markdown", ["**bold** and [a link](https://example.org)", "$a<b$ and $x < y$",
                                      "<b>bold</b>, <sub>i</sub> and <img src=\"attachment:plot.png\">"])
def test_ordinary_markdown_is_kept(markdown):
    from autograder.platforms.inert import safe_markdown
    assert safe_markdown(markdown, {"plot.png"}) == markdown


def test_skeletons_find_look_alikes_and_leave_ordinary_names_alone():
    found = names.lookalikes(["alice", "\u0430lice", "alice~a06bd73250e9", "Alice", "José", "Zoë", "王芳", "rn", "m"])
    assert found == {"alice": ["alice~a06bd73250e9", "\u0430lice"],
                     "alice~a06bd73250e9": ["alice", "\u0430lice"],
                     "\u0430lice": ["alice", "alice~a06bd73250e9"], "m": ["rn"], "rn": ["m"]}
    for name in ("José", "Zoë", "王芳", "Mary Ann"):
        assert report.student_name(name) == name
