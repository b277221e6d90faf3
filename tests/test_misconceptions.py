"""Known mistakes named in feedback (issue 19): the catalogue registered beside the references
(autograder/references/__init__.py: `misconception`), computed on the check's own inputs when
grading, recorded and replayed like any reference value in the bundle, and named by one helper
(autograder/grading/checking.py: `misconception`) only when a reply equals a mistake's value.

The coverage of the corpus of mutants: tests/test_mutants.py (asserted on the written-from part)
and tests/misconception_coverage.py (measured on the held-out part)."""
import sys
import types

import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import NAMES, OR_NAMES, misconception, within
from autograder.grading.judge import run_checks
from autograder.grading.public_cases import has_references, solution_namespace
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import COURSE, grade_source, solution_source


@pytest.fixture
def toy(monkeypatch):
    """A reference module `toy`: double(x, how), and two known mistakes of it, one of which
    applies to how="times" only."""
    module = types.ModuleType("autograder.references.toy")
    module.computed = []

    def double(x, how="times"):
        return np.asarray(x) * 2

    def doubled_twice(x, how="times"):
        module.computed.append("doubled_twice")
        return np.asarray(x) * 4

    def squared(x, how="times"):
        module.computed.append("squared")
        return np.asarray(x) ** 2

    module.double = double
    exec("from autograder.references import misconception\n"
         "misconception('double', 'doubled twice')(doubled_twice)\n"
         "misconception('double', 'squared, not doubled', how='times')(squared)",
         {"__name__": "autograder.references.toy", "doubled_twice": doubled_twice,
          "squared": squared})
    monkeypatch.setitem(sys.modules, "autograder.references.toy", module)
    yield module
    references._catalogue.pop("toy", None)


def test_known_mistakes_are_computed_only_when_a_message_reads_them(toy):
    ref = references.of("autograder.checks.toy")
    mistakes = ref.misconceptions.double(np.arange(3.0))
    assert toy.computed == [], "grading a right reply computes no mistake"
    assert [(m, why) for m, why, _ in mistakes] == [("doubled_twice", "doubled twice"),
                                                    ("squared", "squared, not doubled")]
    assert np.array_equal(list(mistakes)[1][2], [0.0, 1.0, 4.0])


def test_a_mistake_applies_where_its_arguments_say(toy):
    ref = references.of("autograder.checks.toy")
    assert [m for m, _, _ in ref.misconceptions.double(np.arange(3.0), how="plus")] == \
        ["doubled_twice"]


def test_known_mistakes_are_recorded_and_replayed_like_hints(toy):
    ref = references.of("autograder.checks.toy")
    x = np.linspace(1, 2, 4)
    with references.record() as cases:
        recorded = ref.misconceptions.double(x)
    assert toy.computed == ["doubled_twice", "squared"], "recording computes every mistake"
    with references.replay(cases):
        replayed = ref.misconceptions.double(x.copy())
        assert toy.computed == ["doubled_twice", "squared"], "a replay computes nothing"
        assert ref.misconceptions.double(x + 1) == [], "an unrecorded case names nothing"
    assert [(m, why) for m, why, _ in replayed] == [(m, why) for m, why, _ in recorded]
    assert all(np.array_equal(a[2], b[2]) for a, b in zip(replayed, recorded))


def test_a_reply_is_named_only_when_it_equals_a_mistake_within_the_tolerance():
    expected, mistakes = np.array([2.0, 4.0]), [["twice", "doubled twice", np.array([4.0, 8.0])]]
    close = within(1e-8)
    assert misconception(np.array([4.0, 8.0]), expected, mistakes, close) == NAMES + "doubled twice"
    # not named, then located instead (tests/test_derived_mistakes.py), by its values or shape
    assert misconception(np.array([4.0, 8.0 + 1e-6]), expected, mistakes, close) == \
        ". The first difference: every received value is 2 times the expected one."
    assert misconception(np.array([4.0, 8.0, 0.0]), expected, mistakes, close) == \
        ". The first difference is in the shape, along axis 0 only: 3 entries, expected 2 (one " \
        "too many, off by one)."
    assert misconception(np.array([4.0, 8.0]), expected, [], close) == \
        ". The first difference: every received value is 2 times the expected one."


def test_every_mistake_that_gives_the_reply_is_named():
    mistakes = [["a", "one", np.array([3.0])], ["b", "other", np.array([3.0])],
                ["c", "third", np.array([5.0])], ["d", "one", np.array([3.0])]]
    assert misconception(np.array([3.0]), np.array([2.0]), mistakes, within(1e-8)) == \
        NAMES + "one" + OR_NAMES + "other"


def test_a_mistake_that_gives_the_right_answer_is_never_named():
    """Where a mistake's value is the right one (sigmoid(-x) at x = 0), a reply that equals it is
    right too: nothing is named, whatever else the message says."""
    expected = np.array([0.5])
    assert misconception(expected, expected, [["flip", "sigmoid(-x)", np.array([0.5])]],
                         within(1e-8)) == ""


def test_the_part_of_a_mistake_compared_is_the_part_the_check_compares():
    mistakes = [["m", "a mistake of the gradient only", {"value": 1.0, "grad": np.array([3.0])}]]
    got, expected = np.array([3.0]), np.array([2.0])
    assert misconception(got, expected, mistakes, within(1e-8), part="grad")
    assert not misconception(1.0, 1.0, mistakes, within(1e-8), part="value")
    assert misconception(got, expected, mistakes, within(1e-8), part=lambda v: v["grad"])


# -- the catalogue ------------------------------------------------------------------------------
CATALOGUED = [a for a in COURSE.assignments if references.catalogue(a.notebook)]


@pytest.mark.parametrize("assignment", CATALOGUED, ids=lambda a: a.id)
def test_the_catalogue_explains_every_mistake_in_one_line_of_its_own(assignment):
    import importlib
    entries = references.catalogue(assignment.notebook)
    whys = [m.why for m in entries]
    assert len(set(whys)) == len(whys), "two mistakes with the same explanation"
    for m in entries:
        assert m.why.strip() and "\n" not in m.why and len(m.why) <= 200, m
        if m.of == references.BEHAVIOUR:     # a check recognises it by what the code does
            assert m.kind == "checks" and m.compute() is None, m
            continue
        module = importlib.import_module(f"autograder.{m.kind}.{assignment.notebook}")
        assert callable(getattr(module, m.of, None)), f"{m.id}: {m.of} is not a function of {module}"


def test_every_notebook_with_references_has_known_mistakes():
    assert {a.id for a in COURSE.assignments if has_references(a)} <= {a.id for a in CATALOGUED}


@pytest.mark.parametrize("assignment", [a for a in CATALOGUED if a.id != "09_mnist"],
                         ids=lambda a: a.id)
def test_a_correct_solution_is_never_told_it_has_a_misconception(assignment):
    """The solution, graded on hidden inputs of two seeds, passes every check: no message at
    all, so none that names a mistake. (09's solution trains for minutes: test_nb09 grades it.)"""
    namespace = solution_namespace(assignment)
    for seed in (101, 202):
        results = run_checks(LocalSubmission(namespace, assignment), assignment, seed=seed)
        messages = [c["message"] for r in results for c in r["checks"]]
        assert all(r["status"] == "passed" for r in results), messages
        assert not any(NAMES in m for m in messages), messages


# -- named on the inputs of the grading, not on others -------------------------------------------
class Forger(LocalSubmission):
    """Replies recorded from a submission's run with the public seed, given back in the same
    order (per probe and named function) whatever the grader asks: the replies of a student who
    hard-codes what the self-check showed (a known mistake's values on the public inputs)."""

    def __init__(self, namespace, assignment):
        super().__init__(namespace, assignment)
        self.recorded, self.replaying = {}, None

    def probe(self, name, **kwargs):
        kind = (name, *sorted((k, v) for k, v in kwargs.items() if isinstance(v, str)))
        if self.replaying is None:
            reply = super().probe(name, **kwargs)
            self.recorded.setdefault(kind, []).append(reply)
            return reply
        return self.replaying[kind].pop(0)


def test_a_known_mistake_is_named_on_the_hidden_inputs_only():
    """The sigmoid of 01 computing sigma(-x): with the public seed, its feedback names the
    mistake. Its replies to the public inputs, given back when grading with another seed (the
    same kinds of replies, valid, but the values of other inputs), fail without being named:
    the mistake's values on the hidden inputs are other ones."""
    from tests.mutants.scalar_autodiff import MUTANTS
    from autograder.grading.public_cases import notebook_namespace
    assignment = COURSE.assignment("01_scalar_autodiff")
    mutant = next(m for m in MUTANTS if m.name == "sigmoid_of_minus_x")
    forger = Forger(notebook_namespace(mutant.source(), mutant.name), assignment)
    [public] = run_checks(forger, assignment, COURSE.public_seed, public=True,
                          tasks=["scalar_functions"])
    assert public["status"] == "failed" and NAMES + "sigma(-x)" in public["message"], public
    forger.replaying = forger.recorded
    [hidden] = run_checks(forger, assignment, seed=4321, tasks=["scalar_functions"])
    [sigmoid] = [c for c in hidden["checks"] if "sigmoid" in c["name"]]
    assert sigmoid["status"] == "failed" and "value of sigmoid(x)" in sigmoid["message"], sigmoid
    assert all(NAMES not in c["message"] for c in hidden["checks"]), hidden["checks"]


def test_the_student_bundle_ships_no_known_mistake():
    """The self-check imports the checks and the reference proxy, never a reference module, where
    the references' mistakes are (their values on the public inputs are in the public cases; the
    release's scan for reference code, tests/test_release.py, looks for their code too)."""
    from autograder.authoring.release import needed_modules
    shipped = set(needed_modules())
    assert "autograder/references/__init__.py" in shipped
    assert not {p for p in shipped if p.startswith("autograder/references/")} - \
        {"autograder/references/__init__.py"}, shipped
    for assignment in CATALOGUED:
        mine = [m for m in references.catalogue(assignment.notebook) if m.kind == "references"]
        assert all(m.compute.__module__ == f"autograder.references.{assignment.notebook}"
                   for m in mine), [m.id for m in mine]


def test_the_demo_class_students_with_a_known_mistake_are_told_its_name(tmp_path):
    """`make demo`'s rui (d(a - b)/db = +1) and sam (sigma(-x)), graded in the sandbox as the
    demo grades them: the task of the mistake names it, and only that task fails."""
    from autograder.authoring.demo_students import MISTAKEN, make_class
    from tests.grading import grade_notebook
    make_class(tmp_path, copies=False, untouched=None)
    whys = {m.id: m.why for m in references.catalogue("scalar_autodiff")}
    for student, task, mistake in (("rui", "scalar_arithmetic", "sub_gradient_sign"),
                                   ("sam", "scalar_functions", "sigmoid_of_minus_x")):
        assert student in MISTAKEN
        path = tmp_path / student / "01_scalar_autodiff" / "scalar_autodiff.ipynb"
        result = grade_notebook(path, "01_scalar_autodiff", student)
        failed = {t["id"]: t["message"] for t in result["tasks"] if t["status"] != "passed"}
        assert list(failed) == [task], failed
        assert NAMES + whys[mistake] in failed[task], failed[task]


def test_deriving_mistakes_registers_nothing_in_the_catalogue():
    """Mutants are compiled from the reference module's source without its decorators: running
    them adds no known mistake (06 registers its rules' mistakes with a decorator)."""
    from autograder.references import derived, optimizers
    before = [(m.id, m.why) for m in references.catalogue("optimizers")]
    A = np.array([[2.0, 0.3], [0.3, 1.0]])
    found = derived.mutants(optimizers, "paths", ("momentum_update", {"lr": 0.1, "beta": 0.9}, A,
                                                  np.ones(2), [np.zeros(2)], 4), {})
    assert found, "momentum's paths have mutants"
    assert [(m.id, m.why) for m in references.catalogue("optimizers")] == before


def test_a_mistake_a_check_recognises_by_behaviour_is_named_as_the_catalogues_are(tmp_path):
    """07's mask drawn once and reused: the check's message names it in the catalogue's form,
    and the class report, which ranks the catalogue's mistakes, counts it."""
    from autograder.checks import dropout
    from autograder.reports.classreport import named_mistakes
    [entry] = [m for m in references.catalogue("dropout") if m.id == "mask_reused"]
    assert dropout.MASK_REUSED == NAMES + entry.why
    source = solution_source("07_dropout").replace(
        "keep = self.rng.random(shape) >= self.p",
        "if getattr(self, 'keep', None) is None or self.keep.shape != shape:\n"
        "            self.keep = self.rng.random(shape) >= self.p\n"
        "        keep = self.keep", 1)
    result = grade_source(source, "07_dropout", tmp_path)
    [task] = [t for t in result["tasks"] if t["id"] == "dropout_forward"]
    assert task["status"] == "failed" and NAMES + entry.why in task["message"], task["message"]
    known = references.catalogue("dropout")
    assert named_mistakes(task["message"], [m.why for m in known]) == [entry.why]
