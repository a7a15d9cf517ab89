"""``compaction.modelOverrides``: token values for one exact ``provider/modelId``, used by
``/compact`` and by the automatic threshold (each value independently, ``enabled`` stays global)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import Recorder, Router, make_session

from pi_harness.coding.compaction import CompactionError
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

# Keeps every message verbatim: with it alone there is nothing to compact.
KEEP_ALL = 1_000_000


def long_answers() -> list[ScriptedResponse]:
    return [ScriptedResponse(steps=[TextStep(f"answer {n} " * 50)]) for n in ("one", "two")]


def with_override(entry: dict[str, Any], key: str = "fake/big-model") -> dict[str, Any]:
    return {"compaction": {"keepRecentTokens": KEEP_ALL, "reserveTokens": 16384, "modelOverrides": {key: entry}}}


async def test_manual_compaction_keeps_the_model_s_recent_tokens(server: FakeLLMServer, project: Path) -> None:
    server.push(*long_answers(), ScriptedResponse(steps=[TextStep("## Goal\nsummary")]))
    big = server.model("openai-completions", model_id="big-model")
    result = await make_session(server, project, model=big, settings=with_override({"keepRecentTokens": 139}))
    session = result.session
    settings = session.compaction.settings_for(big)
    assert (settings.keep_recent_tokens, settings.reserve_tokens) == (139, 16384)  # reserveTokens falls back
    await session.prompt("one")
    await session.prompt("two")
    compacted = await session.compact()
    assert compacted["summary"].startswith("## Goal\nsummary")
    await result.runtime.shutdown()


async def test_another_model_uses_the_ordinary_values(server: FakeLLMServer, project: Path) -> None:
    server.push(*long_answers())
    other = server.model("openai-completions", model_id="other-model")
    result = await make_session(server, project, model=other, settings=with_override({"keepRecentTokens": 139}))
    session = result.session
    assert session.compaction.settings_for(other).keep_recent_tokens == KEEP_ALL
    await session.prompt("one")
    await session.prompt("two")
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await session.compact()
    await result.runtime.shutdown()


async def test_the_model_s_reserve_starts_automatic_compaction(server: FakeLLMServer, project: Path) -> None:
    server.default = Router(
        [
            ScriptedResponse(steps=[TextStep("big answer")], usage={"input": 1600, "output": 10}),
            ScriptedResponse(steps=[TextStep("after")]),
        ],
        summary=ScriptedResponse(steps=[TextStep("## Goal\nthreshold summary")]),
    )
    big = server.model("openai-completions", model_id="big-model", contextWindow=2000)
    # 1610 tokens of a 2000-token window: the ordinary reserve (10) waits, the model's (500) compacts.
    settings = {"compaction": {"reserveTokens": 10, "keepRecentTokens": 1, "modelOverrides": {
        "fake/big-model": {"reserveTokens": 500}, "fake/BIG-MODEL": {"reserveTokens": 0}}}}  # fmt: skip
    result = await make_session(server, project, model=big, settings=settings)
    session = result.session
    recorder = Recorder(session)
    await session.prompt("one")
    assert "compaction_start:threshold" in recorder.trace()
    await result.runtime.shutdown()
