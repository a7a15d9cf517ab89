"""Full control: every service supplied by the host.

* settings in memory (no files read or written): automatic compaction off, one retry;
* a model runtime with a runtime API key (like ``--api-key``) - no auth.json, no environment;
* a resource loader of our own: no context files, skills or extensions from disk, a fixed
  system prompt;
* an in-memory session.

    python examples/sdk/full_control.py [provider/model] [api-key]
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pi_harness import create_agent_session
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.paths import agent_dir
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.resources.context_files import ContextFile
from pi_harness.coding.resources.diagnostics import ResourceDiagnostic
from pi_harness.coding.resources.skills import Skill
from pi_harness.coding.resources.source_info import SourceInfo
from pi_harness.coding.resources.templates import PromptTemplate
from pi_harness.coding.session_store import SessionManager


class FixedResources:
    """A ``ResourceLoader``: only what this program decides."""

    def __init__(self, system_prompt: str) -> None:
        self.diagnostics: list[ResourceDiagnostic] = []
        self._system_prompt = system_prompt

    def reload(self) -> None:
        return None

    def get_extension_paths(self) -> list[str]:
        return []

    def get_skills(self) -> list[Skill]:
        return []

    def get_prompts(self) -> list[PromptTemplate]:
        return []

    def get_theme_paths(self) -> list[str]:
        return []

    def get_agents_files(self) -> list[ContextFile]:
        return [ContextFile(path="/virtual/AGENTS.md", content="Answer in at most two sentences.")]

    def get_system_prompt(self) -> str | None:
        return self._system_prompt

    def get_append_system_prompt(self) -> list[str]:
        return []

    def extend_resources(
        self,
        skill_paths: Sequence[str] = (),
        prompt_paths: Sequence[str] = (),
        theme_paths: Sequence[str] = (),
        *,
        origins: Mapping[str, str] | None = None,
    ) -> None:
        return None

    def source_info(self, path: str) -> SourceInfo:
        return {"path": path, "source": "sdk", "scope": "temporary", "origin": "top-level"}


async def main(model: str | None = None, api_key: str | None = None, provider: str | None = None) -> str | None:
    settings = SettingsManager.in_memory({"compaction": {"enabled": False}, "retry": {"maxRetries": 1}})
    models = ModelRuntime(AuthStorage.in_memory(), Path(agent_dir()) / "models.json")
    if api_key is not None and model is not None:
        models.set_runtime_api_key(provider or model.split("/", 1)[0], api_key)
    result = await create_agent_session(
        model=model,
        settings_manager=settings,
        model_runtime=models,
        resource_loader=FixedResources("You are a terse assistant embedded in a build tool."),
        session_manager=SessionManager.in_memory(),
        tools=["read"],
        thinking_level="off",
    )
    session = result.session
    try:
        await session.prompt("What does a build tool do?")
        return session.get_last_assistant_text()
    finally:
        await result.runtime.shutdown()


if __name__ == "__main__":
    arguments = sys.argv[1:]
    print(asyncio.run(main(arguments[0] if arguments else None, arguments[1] if len(arguments) > 1 else None)))
