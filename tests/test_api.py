"""The stable API: every name listed in dp.api.STABLE_API exists with exactly that signature."""
import inspect

import pytest

import dp
from dp.api import HYPERPARAMETERS, STABLE_API


def resolve(dotted):
    obj = dp
    for part in dotted.split("."):
        obj = getattr(obj, part)   # on a class: a property stays a property (Node.grad: the method)
    return obj


@pytest.mark.parametrize("name", sorted(STABLE_API))
def test_public_name_keeps_its_signature(name):
    obj = resolve(name)
    expected = STABLE_API[name]
    if expected is not None:
        assert str(inspect.signature(obj)) == expected, f"dp.{name} changed its signature"


@pytest.mark.parametrize("name", sorted(HYPERPARAMETERS))
def test_optimizer_hyperparameters_keep_their_names_and_defaults(name):
    assert getattr(dp, name).defaults == HYPERPARAMETERS[name]


def test_every_exported_name_is_listed():
    listed = {name.split(".")[0] for name in STABLE_API}
    unlisted = [name for name in dp.__all__
                if name not in listed and name not in ("init", "data")]
    assert unlisted == [], f"add these to dp/api.py: {unlisted}"


def test_2019_spellings_are_aliases():
    assert dp.RMS_Prop is dp.RMSProp
    assert dp.Model.ReLu_Layer is dp.Model.ReLU_Layer
