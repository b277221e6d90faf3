"""JupyterLab and the HTML feedback in a real browser: headless Chromium, driven by Selenium.

As a student: open an exercise in JupyterLab, Run > Run All Cells, and read the verdicts that
the `check(...)` cells print. As an instructor: `make lab` opens the jupytext sources as
notebooks, and a graded submission's feedback page shows verdicts, messages, measured numbers
and the student's plot.

Chromium and its driver come from Debian's packages (`apt-get install chromium
chromium-driver`); the first test installs them when they are missing and the tests run as
root. Without apt or root the tests are skipped, except in CI (CI set), where they must run.
"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time

import nbformat
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.ecosystem import answered, get, jupyter
from tests.grading import COURSE, ROOT, mutate, notebook_from_source, solution_source

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("DP_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("DP_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,1000")
ASSIGNMENT = COURSE.assignment("01_scalar_autodiff")
WAIT = 240   # seconds for anything the page does; generous, for a loaded machine

# Every cell of the open notebook: its kind, input prompt ("[3]:", "[*]:"), and output text.
CELLS_JS = """return Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')).map(cell => ({
  code: cell.classList.contains('jp-CodeCell'),
  prompt: (cell.querySelector('.jp-InputPrompt') || {}).textContent || '',
  input: (cell.querySelector('.jp-InputArea-editor') || {}).textContent || '',
  markdown: (cell.querySelector('.jp-RenderedMarkdown') || {}).textContent || '',
  output: Array.from(cell.querySelectorAll('.jp-OutputArea-output'))
               .map(o => o.textContent).join('\\n'),
  images: Array.from(cell.querySelectorAll('.jp-OutputArea-output img'))
               .map(i => i.naturalWidth)}))"""


def install_chromium():
    """Chromium and chromedriver from Debian's packages, once (a lock serialises workers)."""
    if os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER):
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        message = (f"{CHROMIUM} or {CHROMEDRIVER} is missing and cannot be installed here (needs "
                   f"root and apt-get): apt-get install chromium chromium-driver")
        if os.environ.get("CI"):
            pytest.fail(message + " -- CI must run the browser tests")
        pytest.skip(message)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    apt = ["apt-get", "-o", "DPkg::Lock::Timeout=600", "-q"]
    with open("/tmp/dp-courseware-chromium.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for command in ([*apt, "update"], [*apt, "install", "-y", "chromium", "chromium-driver"]):
            if os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER):
                break
            result = subprocess.run(command, env=env, capture_output=True, text=True,
                                    timeout=1200, stdin=subprocess.DEVNULL)
            assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), "apt-get did not install Chromium"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    install_chromium()
    os.environ["SE_OFFLINE"] = "true"     # Selenium Manager: never download a driver or browser
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a folder with the exercise as released (stub.ipynb) and as a student
    who solved it hands it in (solution.ipynb)."""
    folder = tmp_path_factory.mktemp("lab")
    shutil.copyfile(ASSIGNMENT.exercise_path(), folder / "stub.ipynb")
    nbformat.write(answered(ASSIGNMENT.id), str(folder / "solution.ipynb"))
    with jupyter(folder, folder / ".home") as (url, token, log):
        yield url, token, log


def wait_for(condition, what, driver, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}; the page says:\n"
                         f"{driver.find_element(By.TAG_NAME, 'body').text[-3000:]}")


def kernels_idle(url, token) -> bool:
    sessions = get(f"{url}/api/sessions", token)
    return bool(sessions) and all(s["kernel"]["execution_state"] == "idle" for s in sessions)


CURRENT_TAB_JS = """return (document.querySelector(
    '.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel') || {}).textContent"""


def open_notebook(driver, url, token, path):
    """Open `path` in JupyterLab, alone (`reset`: no tabs restored from an earlier visit)."""
    driver.get(f"{url}/lab/tree/{path}?reset&token={token}")
    wait_for(lambda: driver.execute_script(CURRENT_TAB_JS) == path.split("/")[-1]
             and len(driver.execute_script(CELLS_JS)) > 10, f"{path} to open", driver)
    wait_for(lambda: kernels_idle(url, token), "the kernel to start", driver)
    return len(driver.execute_script(CELLS_JS))


def click_menu(driver, menu, item):
    driver.find_element(By.XPATH, f"//div[contains(@class, 'lm-MenuBar-itemLabel') and text()='{menu}']").click()
    driver.find_element(By.XPATH, f"//div[contains(@class, 'lm-Menu-itemLabel') and text()='{item}']").click()


def executed(cell) -> bool:
    return not cell["code"] or re.fullmatch(r"\s*\[\d+\]:\s*", cell["prompt"]) is not None


def verdicts(cells) -> dict:
    """{task id: the verdict text} printed by the check(...) cells."""
    found = {}
    for cell in cells:
        call = re.fullmatch(r'\s*check\("([\w-]+)"\)\s*', cell["input"])
        if call:
            found[call[1]] = cell["output"]
    return found


def test_solution_passes_every_check_after_run_all_cells(browser, lab):
    url, token, _ = lab
    open_notebook(browser, url, token, "solution.ipynb")
    click_menu(browser, "Run", "Run All Cells")
    cells = wait_for(lambda: (c := browser.execute_script(CELLS_JS)) and all(map(executed, c))
                     and kernels_idle(url, token) and c, "Run All Cells to finish", browser)
    found = verdicts(cells)
    assert sorted(found) == sorted(t.id for t in ASSIGNMENT.tasks)
    for task in ASSIGNMENT.tasks:
        points = f"{task.points:g} point{'' if task.points == 1 else 's'}"
        assert re.match(rf"✔ {task.id}: (all \d+ checks|its 1 check) passed \({points} when graded\)",
                        found[task.id]), found[task.id]
    assert not [c["output"] for c in cells if "Traceback" in c["output"] or "Error" in c["output"]]
    assert any(width > 0 for c in cells for width in c["images"]), "the notebook's plot is missing"


def test_stub_fails_each_check_with_a_readable_message(browser, lab):
    url, token, _ = lab
    count = open_notebook(browser, url, token, "stub.ipynb")
    for attempt in range(3):   # a menu click can be lost while the page is still settling
        click_menu(browser, "Run", "Run All Cells")     # stops at the first cell that raises
        try:
            stopped = wait_for(lambda: (c := browser.execute_script(CELLS_JS))
                               and any("NotImplementedError" in x["output"] for x in c)
                               and kernels_idle(url, token) and c, "Run All Cells to stop", browser,
                               timeout=WAIT / 2)
            break
        except AssertionError:
            if attempt == 2:
                raise
    assert "NotImplementedError" in next(c["output"] for c in stopped if c["output"])
    # then cell by cell, as a student does: Shift+Enter, waiting for each cell to finish
    browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")[0].click()
    for i in range(count):
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
        wait_for(lambda: executed(browser.execute_script(CELLS_JS)[i]) and kernels_idle(url, token),
                 f"cell {i + 1} to run", browser)
    found = verdicts(browser.execute_script(CELLS_JS))
    assert sorted(found) == sorted(t.id for t in ASSIGNMENT.tasks)
    for task in ASSIGNMENT.tasks:
        text = found[task.id]
        assert re.match(rf"✘ {task.id}: 0 of \d+ checks? passed\n", text), text
        assert "your code raised NotImplementedError: this part is not implemented yet" in text, text
        assert "CheckFailed" in text       # raised, so that nbgrader gives the cell no points
        assert "your code raised" not in text.partition("CheckFailed")[2], text  # report shown once


def test_make_lab_opens_the_jupytext_sources_as_notebooks(browser, tmp_path):
    source = ASSIGNMENT.solution_path()
    before = source.read_bytes()
    with jupyter(ROOT, tmp_path / "home", make_lab=True) as (url, token, _):
        open_notebook(browser, url, token, source.relative_to(ROOT).as_posix())
        cells = browser.execute_script(CELLS_JS)
        assert "01 — Scalar automatic differentiation" in cells[0]["markdown"]
        assert any('check("scalar_arithmetic")' in c["input"] for c in cells)
    assert source.read_bytes() == before


def test_feedback_page_shows_verdicts_messages_numbers_and_the_plot(browser, tmp_path):
    # a realistic bug: d(a*b)/db returned as b instead of a
    source = mutate(solution_source(ASSIGNMENT.id), "(other, self.value)))", "(other, other.value)))")
    submitted = tmp_path / "submitted" / "mallory" / ASSIGNMENT.id
    submitted.mkdir(parents=True)
    notebook_from_source(source, submitted / f"{ASSIGNMENT.notebook}.ipynb")
    out = tmp_path / "graded"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", tmp_path / "submitted",
                          "--out", out, "--quiet", "--jobs", "1"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads((out / "results" / "mallory" / f"{ASSIGNMENT.id}.json").read_text())
    browser.get((out / "feedback" / "mallory" / f"{ASSIGNMENT.id}.html").as_uri())
    assert browser.find_element(By.ID, "score").text == f"{result['score']:g} / 10"
    rows = {row.find_element(By.CSS_SELECTOR, "td").text.split("\n")[0]: row.text
            for row in browser.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert sorted(rows) == sorted([t.id for t in ASSIGNMENT.tasks] +
                                  [q.id for q in ASSIGNMENT.questions])
    assert all("graded by hand" in rows[q.id] for q in ASSIGNMENT.questions)
    assert "✘ failed" in rows["scalar_arithmetic"] and "0 / 3" in rows["scalar_arithmetic"]
    assert re.search(r"d\(a \* b\)/db .*expected .*received", rows["scalar_arithmetic"]), rows["scalar_arithmetic"]
    assert re.search(r"max_rel_error = \d", rows["scalar_arithmetic"])
    assert "✔ passed" in rows["scalar_functions"] and "3 / 3" in rows["scalar_functions"]
    widths = browser.execute_script(
        "return Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
    assert widths and all(w > 0 for w in widths), widths
