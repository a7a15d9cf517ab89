"""The session's system prompt: sections, extension changes, and their record in the transcript.

The prompt is built from named sections (``pi_harness.coding.system_prompt``): the loaded
resources, the active tools, plus what ``before_agent_start`` handlers did on the latest prompt
(extension sections, changed built-in sections, extra guideline bullets). A handler that returns
a whole ``systemPrompt`` replaces the prompt for that run only.

The transcript records it in ``system`` messages (see sessions.md): the first request of a
session persists the full section map (tagged, ``content`` empty) and tool set, later runs and
turns persist only patches. Requests are projected from the transcript, so the prompt a request
carries is the one recorded on the active branch, whichever program recorded it: a session
written by Pi gets our sections patched over Pi's, by name, so the prompt is sent once.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence

from pi_harness.agent.types import AgentTool, SystemMessage
from pi_harness.ai.types import ImageContent, Tool
from pi_harness.coding.resources.loader import ResourceLoader
from pi_harness.coding.resources.system_files import text_or_file
from pi_harness.coding.session_store.system_messages import SystemState, system_message_patch
from pi_harness.coding.system_prompt import (
    SECTION_ORDER,
    SystemPromptInputs,
    build_system_prompt_sections,
    render_system_prompt,
    tagged_sections,
)


class SystemPromptState:
    def __init__(
        self,
        *,
        cwd: str,
        loader: ResourceLoader,
        tools: Callable[[], Sequence[AgentTool]],
        hidden_tools: Callable[[], Iterable[str]] = frozenset,
        system_prompt: str | None = None,
        append_system_prompt: Sequence[str] = (),
    ) -> None:
        self.cwd = cwd
        self.loader = loader
        self._tools = tools
        self._hidden_tools = hidden_tools
        self._custom = text_or_file(system_prompt, cwd) if system_prompt is not None else None
        self._append = [t for t in (text_or_file(v, cwd) for v in append_system_prompt) if t]
        # What the latest ``before_agent_start`` handlers made of the prompt.
        self.extension_sections: dict[str, str] = {}
        self.section_overrides: dict[str, str | None] = {}
        self.guidelines: list[str] = []
        # A whole prompt returned by ``before_agent_start``: this run only.
        self.run_override: str | None = None
        # The last ``sections()``: its inputs and overrides, and the result (the sections are a
        # function of those alone, and every turn asks for them).
        self._last_sections: tuple[SystemPromptInputs, dict[str, str | None], dict[str, str]] | None = None
        # What the last ``patch`` that found nothing to change was given (see ``patch``).
        self._unchanged: tuple[object, tuple[AgentTool, ...], dict[str, str], dict[str, Tool]] | None = None

    # -- building ------------------------------------------------------------------------------

    def _inputs(self, guidelines: Sequence[str], extension_sections: dict[str, str]) -> SystemPromptInputs:
        loader = self.loader
        return SystemPromptInputs(
            cwd=self.cwd,
            tools=list(self._tools()),
            hidden_tools=frozenset(self._hidden_tools()),
            custom_prompt=self._custom if self._custom is not None else loader.get_system_prompt(),
            append=self._append or loader.get_append_system_prompt(),
            context_files=loader.get_agents_files(),
            skills=loader.get_skills(),
            extra_guidelines=list(guidelines),
            extension_sections=extension_sections,
        )

    def build_options(self) -> dict[str, object]:
        """``getSystemPromptOptions``: what the base prompt is built from, with Pi's keys."""
        inputs = self._inputs((), {})
        return {
            "cwd": inputs.cwd,
            "selectedTools": [tool.name for tool in inputs.tools],
            "customPrompt": inputs.custom_prompt,
            "appendSystemPrompt": "\n\n".join(inputs.append) or None,
            "toolSnippets": {t.name: t.prompt_snippet for t in inputs.tools if t.prompt_snippet},
            "toolGuidelines": {t.name: list(t.prompt_guidelines) for t in inputs.tools if t.prompt_guidelines},
            "contextFiles": [{"path": f.path, "content": f.content} for f in inputs.context_files],
            "skills": list(inputs.skills),
        }

    def base_sections(self) -> dict[str, str]:
        """The sections from resources and active tools only (what handlers start from)."""
        return build_system_prompt_sections(self._inputs((), {}))

    def sections(self) -> dict[str, str]:
        """The current section map, extension changes included."""
        inputs = self._inputs(self.guidelines, self.extension_sections)
        last = self._last_sections
        if last is not None and last[0] == inputs and last[1] == self.section_overrides:
            return dict(last[2])
        sections = build_system_prompt_sections(inputs)
        for name, text in self.section_overrides.items():
            if text is None:
                sections.pop(name, None)
            else:
                sections[name] = text
        # Copies: the caller may change the map it gets, or these inputs' containers later.
        saved = dataclasses.replace(
            inputs,
            tools=list(inputs.tools),
            extra_guidelines=list(inputs.extra_guidelines),
            extension_sections=dict(inputs.extension_sections),
        )
        self._last_sections = (saved, dict(self.section_overrides), dict(sections))
        return sections

    def render(self) -> str:
        return render_system_prompt(self.sections())

    def effective_prompt(self) -> str:
        """``getSystemPrompt``: this run's replacement if any, else the current sections."""
        return self.run_override if self.run_override is not None else self.render()

    def declared_tools(self) -> list[Tool]:
        return [tool.to_tool() for tool in self._tools()]

    # -- the transcript --------------------------------------------------------------------------

    def patch(self, previous: SystemState) -> SystemMessage | None:
        """The system message that brings the transcript's record up to date (``None``: no change).

        Asked before every turn, and almost always answered ``None``: while the sections (the
        same ``sections()`` result), the tools (the same objects) and the record (equal) are
        those of the last ``None``, the answer is ``None`` again without building the patch."""
        sections = self.sections()
        tools = tuple(self._tools())
        unchanged = self._unchanged
        if (
            unchanged is not None
            and unchanged[0] is self._last_sections
            and len(unchanged[1]) == len(tools)
            and all(map(operator.is_, unchanged[1], tools))
            and unchanged[2] == previous.sections
            and unchanged[3] == previous.tools
        ):
            return None
        patch = system_message_patch(previous, tagged_sections(sections), [tool.to_tool() for tool in tools])
        self._unchanged = (
            None if patch is not None else (self._last_sections, tools, dict(previous.sections), dict(previous.tools))
        )
        return patch

    def request_prompt(self, recorded: SystemState) -> str:
        """The prompt of a request: this run's replacement, else the one recorded on the branch."""
        if self.run_override is not None:
            return self.run_override
        if recorded.declared:
            return recorded.render()
        return self.render()

    # -- before_agent_start ----------------------------------------------------------------------

    def before_agent_start_payload(
        self, prompt: str, images: list[ImageContent] | None, active_tools: list[str]
    ) -> dict[str, object]:
        """The mutable event payload: handlers may edit ``sections``, ``tools`` and ``guidelines``."""
        base = self.base_sections()
        payload: dict[str, object] = {
            "prompt": prompt,
            "systemPrompt": render_system_prompt(base),
            "sections": dict(base),
            "tools": list(active_tools),
            "guidelines": [],
        }
        if images:
            payload["images"] = images
        return payload

    def apply_before_agent_start(self, payload: Mapping[str, object], system_prompt: str | None) -> None:
        """Keep what the handlers did to the sections and guidelines; ``system_prompt`` is this run's."""
        base = self.base_sections()
        edited = payload.get("sections")
        extension: dict[str, str] = {}
        overrides: dict[str, str | None] = {}
        if isinstance(edited, dict):
            for name, text in edited.items():
                if not isinstance(name, str) or not isinstance(text, str):
                    continue
                if name in SECTION_ORDER:
                    if base.get(name) != text:
                        overrides[name] = text
                else:
                    extension[name] = text
            for name in base:
                if name not in edited:
                    overrides[name] = None
        guidelines = payload.get("guidelines")
        self.extension_sections = extension
        self.section_overrides = overrides
        self.guidelines = [g for g in guidelines if isinstance(g, str)] if isinstance(guidelines, list) else []
        self.run_override = system_prompt

    def reset_run(self) -> None:
        self.run_override = None


__all__ = ["SystemPromptState"]
