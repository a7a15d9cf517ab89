"""claude-rules: tell the model about the rule files in ``.claude/rules/``.

Projects set up for Claude Code often keep topic-sized instruction files in ``.claude/rules/``
(``testing.md``, ``frontend/components.md``, ...). When the session starts, this extension finds
every ``.md`` file there (sub-directories included, sorted), says how many it found, and before
each run adds a ``project_rules`` section to the system prompt listing their paths. The files
are not pasted into the prompt: the model reads the ones that matter for the task with ``read``.

What it shows: scanning the project in ``session_start``, and adding a section of our own to the
system prompt through ``event.sections`` in ``before_agent_start`` (rendered as
``<project_rules>...</project_rules>``).

Load it with ``pi -e examples/extensions/claude_rules.py`` in a project with ``.claude/rules/``.
"""

from __future__ import annotations

from pathlib import Path

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

RULES_DIR = Path(".claude") / "rules"
SECTION = "project_rules"


def find_rule_files(cwd: str | Path) -> list[str]:
    """Markdown files under ``<cwd>/.claude/rules``, as ``/``-separated paths relative to it."""
    root = Path(cwd) / RULES_DIR
    if not root.is_dir():
        return []
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*.md") if path.is_file())


def rules_section(files: list[str]) -> str:
    listing = "\n".join(f"- {RULES_DIR.as_posix()}/{name}" for name in files)
    return (
        "This project keeps its rules in separate files:\n"
        f"{listing}\n"
        "Before working on something one of them covers, read that file with the read tool and follow it."
    )


def extension(pi: ExtensionAPI) -> None:
    found: list[str] = []

    @pi.on("session_start")
    def scan(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        found[:] = find_rule_files(ctx.cwd)
        if found:
            ctx.ui.notify(f"{len(found)} rule file(s) found in {RULES_DIR.as_posix()}/")

    @pi.on("before_agent_start")
    def list_rules(event: ExtensionEvent) -> None:
        sections = event.sections
        if found and isinstance(sections, dict):
            sections[SECTION] = rules_section(found)
