"""``copy_with`` gives what ``dataclasses.replace`` gives, for the option classes and any other."""

from __future__ import annotations

import dataclasses

import pytest

from pi_harness.agent.copy_with import copy_with
from pi_harness.agent.options import AgentOptions
from pi_harness.ai.options import SimpleStreamOptions


def test_the_copy_of_an_options_object_is_replace_s() -> None:
    base = SimpleStreamOptions(api_key="k", headers={"a": "b"})
    copied = copy_with(base, api_key="other", reasoning="high")
    assert copied == dataclasses.replace(base, api_key="other", reasoning="high")
    assert copied is not base and base.api_key == "k"  # the original is left as it was
    assert copied.headers is base.headers  # a shallow copy, as replace makes
    agent = AgentOptions()
    assert copy_with(agent, stream_options=base) == dataclasses.replace(agent, stream_options=base)


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError):
        copy_with(SimpleStreamOptions(), api_kee="typo")


@dataclasses.dataclass
class Derived:
    value: int
    double: int = dataclasses.field(init=False, default=0)

    def __post_init__(self) -> None:
        self.double = self.value * 2


def test_a_class_with_its_own_initialisation_goes_through_replace() -> None:
    assert copy_with(Derived(1), value=4).double == 8
