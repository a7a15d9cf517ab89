"""custom-compaction: a different model writes the summary; every failure falls back to the default."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import UIClient, load_example, sdk_session

from pi_harness.ai.providers.faux import FauxProvider, FauxResponse, faux_error, faux_text
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

custom_compaction = load_example("custom_compaction")
SETTINGS = {"compaction": {"keepRecentTokens": 1}}  # keep only the last turn verbatim


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


async def session_with_history(server: FakeLLMServer, cwd: Path, model_spec: str, client: UIClient | None) -> Any:
    server.push(
        ScriptedResponse(steps=[TextStep("The parser lives in src/parse.py and fails on empty input.")]),
        ScriptedResponse(steps=[TextStep("I fixed the empty input case.")]),
    )
    result = await sdk_session(
        server,
        cwd,
        client=client,
        settings=SETTINGS,
        extension_factories=[custom_compaction.create_extension(model_spec)],
    )
    await result.session.prompt("Where is the parser and what is wrong with it?")
    await result.session.prompt("Fix it please")
    return result


def compaction_entries(session: Any) -> list[dict[str, Any]]:
    return [e for e in session.session_manager.get_entries() if e["type"] == "compaction"]


async def test_the_other_model_writes_the_summary(server: FakeLLMServer, tmp_path: Path) -> None:
    cheap = FauxProvider([faux_text("## Goal\nFix the parser")], provider="cheap", model_id="summarizer")
    try:
        result = await session_with_history(server, tmp_path, "cheap/summarizer", None)
        result.session.model_runtime.add_model(cheap.model)
        requests_before = len(server.requests)

        outcome = await result.session.compact()

        assert outcome["summary"] == "## Goal\nFix the parser"
        assert len(server.requests) == requests_before  # the session's own model was not asked
        request = cheap.requests[0]
        prompt = request.context["messages"][0]["content"][0]["text"]
        assert "[User]: Where is the parser and what is wrong with it?" in prompt
        assert "src/parse.py" in prompt
        assert request.options is not None and request.options.signal is not None  # honours the abort signal
        entry = compaction_entries(result.session)[0]
        assert entry["summary"] == "## Goal\nFix the parser" and entry["fromHook"] is True
        assert entry["details"]["model"] == "cheap/summarizer"
        await result.runtime.shutdown()
    finally:
        cheap.close()


@pytest.mark.parametrize("failure", ["unknown model", "no key", "error", "empty"])
async def test_failures_fall_back_to_the_default_compaction(
    server: FakeLLMServer, tmp_path: Path, failure: str
) -> None:
    responses: dict[str, FauxResponse] = {"error": faux_error("provider exploded"), "empty": faux_text("   ")}
    cheap = FauxProvider([responses.get(failure, faux_text("unused"))], provider="cheap", model_id="summarizer")
    spec = {"unknown model": "cheap/missing", "no key": "keyed/summarizer"}.get(failure, "cheap/summarizer")
    client = UIClient()
    try:
        result = await session_with_history(server, tmp_path, spec, client)
        runtime = result.session.model_runtime
        runtime.add_model(cheap.model)
        runtime.add_model(server.model("openai-completions", "summarizer", provider="keyed"))  # needs a key
        # The default path may also summarise a split turn's prefix: answer both requests alike.
        server.push(*[ScriptedResponse(steps=[TextStep("## Goal\nDefault summary")])] * 2)

        outcome = await result.session.compact()

        assert outcome["summary"].startswith("## Goal\nDefault summary")
        assert not compaction_entries(result.session)[0].get("fromHook")
        warning = client.notifications[-1]
        assert warning[1] == "warning" and warning[0].endswith("; using the default compaction")
        await result.runtime.shutdown()
    finally:
        cheap.close()


def test_model_spec_and_prompt() -> None:
    assert custom_compaction.parse_model_spec("openai/gpt-4.1-mini") == ("openai", "gpt-4.1-mini")
    with pytest.raises(ValueError):
        custom_compaction.parse_model_spec("no-slash")
    prompt = custom_compaction.summary_prompt("[User]: hi", "## Goal\nold", "the parser")
    assert prompt.startswith("<conversation>\n[User]: hi\n</conversation>")
    assert "<previous-summary>\n## Goal\nold\n</previous-summary>" in prompt
    assert prompt.endswith("Pay special attention to: the parser")
