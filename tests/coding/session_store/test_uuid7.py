"""UUIDv7 session ids: the RFC 9562 layout, and strict ordering within a process."""

from __future__ import annotations

import time
import uuid

from pi_harness.coding.session_store.ids import new_session_id
from pi_harness.coding.session_store.uuid7 import Uuid7Generator, uuid7_timestamp_ms


def test_layout_version_variant_and_timestamp() -> None:
    generate = Uuid7Generator()
    value = generate(0x0123_4567_89AB)
    assert value.version == 7
    assert value.variant == uuid.RFC_4122
    assert uuid7_timestamp_ms(value) == 0x0123_4567_89AB
    assert str(value).startswith("01234567-89ab-7")
    assert str(value)[19] in "89ab"  # the variant bits 10 in the first hex digit of the 4th group


def test_session_ids_are_v7_and_carry_the_current_time() -> None:
    before = time.time_ns() // 1_000_000
    value = uuid.UUID(new_session_id())
    after = time.time_ns() // 1_000_000
    assert value.version == 7
    assert before <= uuid7_timestamp_ms(value) <= after


def test_ids_increase_within_one_millisecond_and_across_a_clock_step_back() -> None:
    generate = Uuid7Generator()
    same_ms = [generate(1_000) for _ in range(500)]
    assert len(set(same_ms)) == 500
    assert same_ms == sorted(same_ms, key=lambda u: u.int)
    assert {uuid7_timestamp_ms(u) for u in same_ms} == {1_000}
    stepped_back = generate(900)  # the clock went back: still after the previous id
    assert stepped_back.int > same_ms[-1].int
    later = generate(2_000)
    assert later.int > stepped_back.int and uuid7_timestamp_ms(later) == 2_000


def test_text_order_is_creation_order() -> None:
    # Session files are named after their ids; sorting the names sorts by creation.
    generate = Uuid7Generator()
    ids = [str(generate(ms)) for ms in (5, 5, 6, 1_000_000, 1_000_000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_counter_overflow_moves_to_the_next_millisecond() -> None:
    generate = Uuid7Generator()
    first = generate(10)
    generate._counter = (1 << 42) - 1  # as if the counter were exhausted within this millisecond
    second = generate(10)
    assert uuid7_timestamp_ms(second) == 11
    assert second.int > first.int
