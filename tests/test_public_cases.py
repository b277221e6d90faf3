"""The self-check in the student bundle (issue 15): its checks find their reference values in the
public cases recorded when the bundle is built, not in the reference modules, which the bundle
does not have. Replayed, the checks give the verdicts and the messages that they give with the
references, for the solution, the stub and the mutants that cost several tasks (the other
mutants: tests/test_mutants.py checks that their calls are all among the public cases, so that a
replay returns what the references compute); a reference value that is not among the public cases leaves its check "unchecked", which the self-check prints with ⚠
and does not count as a failure.

Each notebook runs once, in this process (as `release` runs the solution), and its checks twice
with the public seed: with the references, then replaying the cases recorded on the solution.
Assignments whose checks have no references module yet are skipped, saying so.
"""
from __future__ import annotations

import importlib

import pytest

from autograder.grading import public_cases
from autograder import references
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import CheckFailed, LocalSubmission, check
from tests.grading import COURSE, mutate, solution_source, stub_source
from tests.test_answers import ANSWERS

_recorded: dict = {}     # {assignment id: (solution namespace, cases, results with the references)}
# notebooks whose self-check makes no reference call by design, and why
# The assignments whose references declare that the checks call them only when grading
# (PUBLIC_CASES = False: a release records nothing for them without running the solution); the
# test below runs each solution anyway and checks the declaration (09: the grader's forward pass
# on the student's trained parameters; the self-check takes the network's own).
WITHOUT_PUBLIC_CASES = {a.id for a in COURSE.assignments
                        if public_cases.has_references(a) and not public_cases.needs_recording(a)}


def mutants_of(assignment) -> list:
    """The mutants of `assignment` that cost other tasks too (tests/mutants' CASCADES). The
    others are graded by tests/test_mutants.py, which also checks that their self-check's
    reference calls are all among the public cases (so that a replay gives what the references
    give): running each of them here again would double the suite's longest part."""
    module = importlib.import_module(f"tests.mutants.{assignment.notebook}")
    return [m for m, _ in getattr(module, "CASCADES", [])]


def programs() -> list:
    params = []
    for assignment in COURSE.assignments:
        skip = () if public_cases.has_references(assignment) else pytest.mark.skip(
            reason=f"the checks of {assignment.id} have no references module yet "
                   f"(autograder/references/{assignment.notebook}.py): nothing is replayed")
        names = ["solution", "stub"] + [m.name for m in mutants_of(assignment)]
        params += [pytest.param(assignment.id, name, marks=skip, id=f"{assignment.id[:2]}-{name}")
                   for name in names]
    return params


def recorded(assignment):
    """(the solution's namespace, its public cases, its results with the references), once."""
    if assignment.id not in _recorded:
        namespace = public_cases.solution_namespace(assignment)
        cases, results = public_cases.record_from(namespace, assignment, COURSE.public_seed)
        _recorded[assignment.id] = namespace, cases, results
    return _recorded[assignment.id]


def outcomes(results) -> dict:
    """{(task, check): (status, message)} of run_checks results."""
    return {(r["id"], c["name"]): (c["status"], c["message"]) for r in results for c in r["checks"]}


def self_check(namespace, assignment, cases=None):
    """run_checks as `check()` runs it (public seed, in-process); replaying `cases` if given."""
    run = lambda: run_checks(LocalSubmission(namespace, assignment), assignment,  # noqa: E731
                             seed=COURSE.public_seed, public=True)
    if cases is None:
        return run()
    with references.replay({assignment.notebook: cases}):
        return run()


@pytest.mark.parametrize("assignment_id, program", programs())
def test_replayed_public_cases_give_the_verdicts_and_messages_of_the_references(assignment_id,
                                                                                program):
    assignment = COURSE.assignment(assignment_id)
    solution, cases, solution_results = recorded(assignment)
    assert bool(cases) != (assignment_id in WITHOUT_PUBLIC_CASES), (
        f"the checks of {assignment_id} made {len(cases)} reference calls on the solution")
    if program == "solution":
        namespace, real = solution, solution_results
        # a question graded automatically is "checked when graded": its key is never public; so
        # is what a notebook without public cases checks against its references (09's sweep)
        answers = {task for a, task, *_ in ANSWERS if a == assignment_id}
        assert all(r["status"] == "passed" or r["status"] == "unchecked" and (
            r["id"] in answers or assignment_id in WITHOUT_PUBLIC_CASES) for r in real), outcomes(real)
    else:
        source = stub_source(solution_source(assignment_id)) if program == "stub" else \
            next(m for m in mutants_of(assignment) if m.name == program).source()
        namespace = public_cases.notebook_namespace(source, program, stop_at_errors=False)
        real = self_check(namespace, assignment)
        assert any(r["status"] != "passed" for r in real), f"{program} passes every check"
    replayed = self_check(namespace, assignment, cases)
    real, replayed = outcomes(real), outcomes(replayed)
    assert set(real) == set(replayed)
    differences = {name: (real[name], replayed[name]) for name in real if real[name] != replayed[name]}
    assert not differences, "\n".join(f"{task} {check}:\n  with the references: {a}\n  replayed: {b}"
                                      for (task, check), (a, b) in differences.items())


# -- what the self-check prints when a reference value is not public ------------------------------
A = "04_activation_functions"


def test_a_check_without_its_public_case_is_unchecked_not_failed(capsys):
    """With no public cases at all, 04's deep_network keeps its one check that needs no
    reference (the parameters' names and shapes) and prints the others as checked when graded;
    the cell does not fail."""
    assignment = COURSE.assignment(A)
    namespace = recorded(assignment)[0]
    with references.replay({assignment.notebook: {}}):
        check("deep_network", namespace=namespace)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "⚠ deep_network: 1 of 4 checks passed; 3 not checked here (checked when graded)"
    assert printed[1:] == [f"  ⚠ forward gives the probabilities of the specified network[{name}]: "
                           f"not checked here: this check needs the grader's reference (grading "
                           f"checks it)" for name in ("sigmoid", "tanh", "relu")]


def test_a_failure_still_fails_beside_an_unchecked_check(capsys):
    """A network with a layer too many fails the parameters' check, which needs no reference;
    its forward checks, which do, stay unchecked; the cell fails, listing both."""
    assignment = COURSE.assignment(A)
    line = '        self.linear = [self.Linear_Layer(sizes[l - 1], sizes[l], f"layer{l}") for l in range(1, 11)]'
    source = mutate(solution_source(A), line, line + '\n        self.extra = [self.Linear_Layer(1, 1, "extra")]')
    namespace = public_cases.notebook_namespace(source, "one layer too many", stop_at_errors=False)
    with references.replay({assignment.notebook: {}}), pytest.raises(CheckFailed) as failed:
        check("deep_network", namespace=namespace)
    report = str(failed.value)
    assert report.startswith("✘ deep_network: 0 of 4 checks passed; 3 not checked here (checked "
                             "when graded)\n  - parameters are named and "
                             "shaped as specified: DeepNetwork('sigmoid') has parameters that the "
                             "network does not specify: extra_W, extra_b"), report
    assert report.count("\n  ⚠ forward gives the probabilities") == 3, report
    assert capsys.readouterr().out.strip() == report


def test_the_cases_fingerprint_covers_the_probe_modules_a_probe_module_imports(monkeypatch):
    """14's probes import dp_common: a change there may change the cases, so it must change the
    fingerprint under which a release keeps them."""
    assignment = COURSE.assignment("14_convolutional_networks")
    before = public_cases._fingerprint(assignment, 0, public_cases.ROOT)
    read_bytes = public_cases.Path.read_bytes
    monkeypatch.setattr(public_cases.Path, "read_bytes", lambda path: read_bytes(path) + (
        b"# changed" if path.name == "dp_common.py" else b""))
    assert public_cases._fingerprint(assignment, 0, public_cases.ROOT) != before
