"""``append_memo.extends``: when a pass may resume from the previous request's list."""

from __future__ import annotations

from pi_harness.ai.append_memo import Lineage, extends, issue


def test_a_list_of_the_same_lineage_extends_the_saved_one_without_comparing() -> None:
    lineage = Lineage()
    first, second = object(), object()
    saved = issue([first], lineage)
    assert extends(issue([first, second], lineage), lineage, saved)
    assert not extends(issue([second, first], Lineage()), lineage, saved)  # another lineage: compared


def test_a_saved_list_changed_in_place_is_not_trusted_by_its_length() -> None:
    """The agent loop appends to the context list it was given: a memo that kept that very list
    must not take its new length for what it had converted."""
    lineage = Lineage()
    first, streamed, later = object(), object(), object()
    saved = issue([first], lineage)
    saved.append(streamed)  # in place, after it was saved
    assert not extends(issue([first, later, streamed], lineage), lineage, saved)
