"""prompt-customizer: adapt one section of the system prompt to the tools and skills at hand.

Before every run this extension writes a ``tool_guidance`` section with one hint per active
built-in tool (``read``, ``bash``, ``edit``, ``write``) and, when skills are installed, a line
naming them. With none of those the section is removed, so the prompt never carries hints about
tools the model does not have.

What it shows: editing the system prompt through ``event.sections`` (add, replace, delete a
section) instead of rewriting the rendered prompt text, reading the tools of this run from
``event.tools`` and the skills from ``pi.get_commands()`` (``source == "skill"``).

Load it with ``pi -e examples/extensions/prompt_customizer.py``.
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_harness.coding.extensions import ExtensionAPI, ExtensionEvent

SECTION = "tool_guidance"
HINTS: dict[str, tuple[str, ...]] = {
    "read": (
        "- Open files with `read`; it shows text and images.",
        "- Page through long files with `offset` and `limit` instead of reading them whole.",
    ),
    "bash": ("- `bash` is there for listing, searching and running programs (`ls`, `rg`, tests).",),
    "edit": ("- Change existing files with `edit`; the old text must match the file exactly.",),
    "write": ("- Use `write` for new files or to replace a file from scratch.",),
}


def guidance(tools: Iterable[str], skills: list[str]) -> str:
    active = set(tools)
    lines = [hint for name, hints in HINTS.items() if name in active for hint in hints]
    if skills:
        lines.append(f"- Skills you can load: {', '.join(skills)}.")
    return "\n".join(lines)


def extension(pi: ExtensionAPI) -> None:
    @pi.on("before_agent_start")
    def customize(event: ExtensionEvent) -> None:
        sections, tools = event.sections, event.tools
        if not isinstance(sections, dict) or not isinstance(tools, list):
            return
        skills = [
            str(command["name"]).removeprefix("skill:")
            for command in pi.get_commands()
            if command.get("source") == "skill"
        ]
        text = guidance(tools, skills)
        if text:
            sections[SECTION] = text
        else:
            sections.pop(SECTION, None)
