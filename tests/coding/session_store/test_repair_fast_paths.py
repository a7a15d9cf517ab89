"""The fast paths of session repair decide exactly as the full checks do.

Opening a session checks every content block and searches for parent cycles; both have a fast
path for the common, undamaged case. Random entries (well-typed or not) and random parent graphs
(cycles, duplicates, forward and missing parents) must come out as the full checks make them.
"""

from __future__ import annotations

from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_harness.coding.session_store.entries import SessionEntry
from pi_harness.coding.session_store.repair import _cut_cycles, _repaired_blocks, _repaired_blocks_slow, repair_entries

values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.just({}), st.just([1]))
block_types = st.sampled_from(["text", "thinking", "image", "toolCall", "other", 3, None])
field_names = st.sampled_from(["text", "thinking", "data", "mimeType", "id", "name", "arguments"])


@st.composite
def blocks(draw: st.DrawFn) -> object:
    if draw(st.integers(0, 9)) == 0:
        return draw(values)
    block: dict[str, object] = {}
    if draw(st.integers(0, 5)):
        block["type"] = draw(block_types)
    for name in draw(st.lists(field_names, max_size=4)):
        block[name] = draw(st.one_of(values, st.text(max_size=3)))
    return block


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    content = draw(st.one_of(values, st.lists(blocks(), max_size=3)))
    if draw(st.booleans()):
        role = draw(st.sampled_from(["user", "assistant", "toolResult", "custom", "system", "bashExecution", 5]))
        return {"type": "message", "id": "e", "message": {"role": role, "content": content}}
    return {"type": draw(st.sampled_from(["custom_message", "label"])), "id": "e", "content": content}


@settings(max_examples=400, deadline=None)
@given(entries())
def test_block_fast_path_agrees_with_the_full_check(entry: dict[str, Any]) -> None:
    typed = cast(SessionEntry, entry)
    assert _repaired_blocks(typed) == _repaired_blocks_slow(typed)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.one_of(st.none(), st.integers(0, 9))), min_size=1, max_size=12))
def test_skipping_the_cycle_search_never_leaves_a_cycle(shape: list[tuple[int, int | None]]) -> None:
    # Ids 0-7 (repeats make duplicates), parents 0-9 (8 and 9 never exist: missing parents).
    raw = [
        {"type": "label", "id": f"i{i}", "parentId": None if p is None else f"i{p}", "timestamp": "t"} for i, p in shape
    ]
    repaired = repair_entries(cast(list[SessionEntry], raw)).entries
    again = [dict(e) for e in repaired]
    # The full search finds nothing left to cut, whichever path repair_entries took.
    assert _cut_cycles(cast(list[SessionEntry], again), {e["id"]: i for i, e in enumerate(again)}) == 0
    by_id = {e["id"]: e for e in repaired}
    for entry in repaired:
        seen: set[str] = set()
        current: str | None = entry["id"]
        while current is not None and current in by_id:
            assert current not in seen
            seen.add(current)
            parent = by_id[current].get("parentId")
            current = parent if isinstance(parent, str) else None
