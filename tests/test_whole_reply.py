"""A mistake derived from the reference's code is named only when it explains the whole reply
(issue 30, "never name a mistake wrongly"): checking.on_the_whole, for checks that compare a reply
of several parts (named leaves' gradients, a network's nodes) one part at a time."""
import numpy as np

from autograder.grading.checking import LOCATED, NAMES, misconception, on_the_whole, within
from autograder.references import DERIVED

CLOSE = within(1e-9)
EXPECTED = {"a": np.array([1.0, 2.0]), "b": np.array([5.0, 6.0])}
REPLY = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}     # b wrong, a right


def derived(name, value):
    return [f"{DERIVED}f@m:1#0.{name}", f"the computation with one change: {name}", value]


def named(mistakes, part="b") -> str:
    return misconception(REPLY[part], EXPECTED[part], on_the_whole(mistakes, REPLY, CLOSE),
                         CLOSE, part)


def test_a_derived_mistake_that_gives_every_part_of_the_reply_is_named():
    mistakes = [derived("whole", {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])})]
    assert named(mistakes) == NAMES + "the computation with one change: whole"


def test_one_that_gives_the_failing_part_but_not_another_is_not_named_and_the_message_locates():
    """Its b is the reply's, by a coincidence of these inputs; its a is not: the student's
    program is not that one."""
    mistakes = [derived("coincidence", {"a": np.array([7.0, 2.0]), "b": np.array([3.0, 4.0])})]
    message = named(mistakes)
    assert NAMES not in message and message.startswith(LOCATED), message
    # the same list, read part by part without the rule, names it: the rule is what holds it back
    assert misconception(REPLY["b"], EXPECTED["b"], mistakes, CLOSE, "b").startswith(NAMES)


def test_a_derived_mistake_of_another_structure_is_not_named():
    mistakes = [derived("no_a", {"b": np.array([3.0, 4.0])}),
                derived("shape", {"a": np.array([1.0, 2.0, 0.0]), "b": np.array([3.0, 4.0])})]
    assert NAMES not in named(mistakes)


def test_the_catalogue_keeps_its_mistakes_of_one_part():
    """A hand-written mistake may be one of two in a reply: it is still named."""
    mistakes = [["b_sign", "b's sign flipped", {"a": np.array([7.0, 2.0]),
                                                 "b": np.array([3.0, 4.0])}]]
    assert named(mistakes) == NAMES + "b's sign flipped"


def test_the_parts_are_read_where_the_caller_says_and_each_compared_once():
    calls = []

    def value_of(value, key):
        calls.append(key)
        return value["values"][key]
    value = {"values": {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}}
    mistakes = on_the_whole([derived("nested", value)], REPLY, CLOSE, value_of)
    for part in ("a", "b"):
        list(mistakes)
    assert misconception(REPLY["b"], EXPECTED["b"], mistakes, CLOSE,
                         lambda v: v["values"]["b"]).startswith(NAMES)
    assert calls == ["a", "b"]


def test_a_value_that_unrelated_changes_give_stays_unnamed_when_only_one_explains_the_whole():
    """b all zeros: three lines give it by changes of different kinds, and only one of them
    gives a too. A zero that many unrelated changes give says nothing about which one the
    student made; leaving out those that explain only b must not make the one left look sure."""
    reply = {"a": np.array([1.0, 2.0]), "b": np.zeros(2)}

    def at(line, kind, a):
        return [f"{DERIVED}f@m:{line}#0.{kind}", f"the computation with one change: {kind}",
                {"a": np.array(a), "b": np.zeros(2)}]
    mistakes = [at(1, "sign", [1.0, 2.0]), at(2, "order", [0.0, 0.0]), at(3, "axis", [3.0, 3.0])]
    message = misconception(reply["b"], EXPECTED["b"], on_the_whole(mistakes, reply, CLOSE),
                            CLOSE, "b")
    assert NAMES not in message and message.startswith(LOCATED), message
    # with the two others giving another b, the one that explains the whole reply is named
    alone = [mistakes[0]] + [[id_, why, {**value, "b": np.ones(2)}] for id_, why, value in
                             mistakes[1:]]
    assert misconception(reply["b"], EXPECTED["b"], on_the_whole(alone, reply, CLOSE), CLOSE,
                         "b") == NAMES + "the computation with one change: sign"


def test_a_derived_mistake_a_check_cannot_compare_is_skipped_not_a_grader_fault():
    """A mutant's value of another kind (a number where the check's comparison reads .shape)
    is no mistake of this reply: skipped, and the message locates the difference."""
    def close(a, b) -> bool:
        return a.shape == b.shape and bool(np.allclose(a, b))
    mistakes = [derived("number", 3.0)]
    message = misconception(np.array([3.0]), np.array([5.0]), mistakes, close)
    assert NAMES not in message and message.startswith(LOCATED), message
