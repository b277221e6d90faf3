"""The reference proxy (autograder/references): the same values whether computed or replayed,
calls matched by their arguments, and nothing answered in the bundle that was not recorded."""
import sys
import types

import numpy as np
import pytest

from autograder import references


@pytest.fixture
def toy(monkeypatch):
    """A reference module `toy` with one answer and one hint function."""
    module = types.ModuleType("autograder.references.toy")
    module.calls = []

    def double(x, scale=1.0):
        module.calls.append(x)
        return (np.asarray(x) * 2 * scale, "twice")

    module.double = double
    module.negate = lambda x: -np.asarray(x)
    monkeypatch.setitem(sys.modules, "autograder.references.toy", module)
    return module


def test_a_call_is_computed_and_returns_what_a_replay_would(toy):
    ref = references.of("autograder.checks.toy")
    value, word = ref.double(np.arange(3.0), scale=0.5)
    assert word == "twice" and np.array_equal(value, [0.0, 1.0, 2.0])
    assert len(toy.calls) == 1


def test_replay_answers_recorded_calls_only(toy):
    ref = references.of("autograder.checks.toy")
    x = np.linspace(0, 1, 5)
    with references.record() as cases:
        expected = ref.double(x)
        ref.hint.negate(x)
    assert set(cases) == {"toy"} and len(cases["toy"]) == 2
    with references.replay(cases):
        got = ref.double(x.copy())
        assert np.array_equal(got[0], expected[0]) and got[1] == expected[1]
        assert len(toy.calls) == 1, "a replayed call must not run the reference"
        assert ref.hint.negate(x + 1) is None, "an unrecorded hint is None in the bundle"
        with pytest.raises(references.NotPublic, match="toy.double"):
            ref.double(x + 1)
        with pytest.raises(references.NotPublic):
            ref.double(x, scale=2.0)


def test_arguments_match_across_last_bit_differences_but_not_beyond(toy):
    x = np.random.default_rng(0).normal(size=(4, 3))
    nudged = np.nextafter(x, np.inf)
    assert references.key("f", (x,), {}) == references.key("f", (nudged,), {})
    assert references.key("f", (x,), {}) != references.key("f", (x * (1 + 1e-6),), {})
    assert references.key("f", (x,), {}) != references.key("g", (x,), {})
    assert references.key("f", (x,), {}) != references.key("f", (x.T,), {})
    assert references.key("f", (1,), {}) != references.key("f", (True,), {})
    assert references.key("f", ({"a": 1, "b": 2},), {}) == references.key("f", ({"b": 2, "a": 1},), {})


def test_only_plain_data_is_a_reference_argument(toy):
    with pytest.raises(TypeError, match="function"):
        references.key("f", (lambda: 0,), {})
    with pytest.raises(TypeError, match="dtype object"):
        references.key("f", (np.array([None]),), {})
