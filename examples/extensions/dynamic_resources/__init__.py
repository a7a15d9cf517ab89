"""dynamic-resources: an extension that brings a skill, a prompt template and a theme with it.

The files live next to this module, in no directory pi searches: ``SKILL.md`` (the skill
``dynamic-resources``), ``repo-overview.md`` (the prompt template ``/repo-overview``) and
``theme.json`` (a theme called ``dynamic-resources``, selectable with ``/settings`` or the
``theme`` setting). The extension hands their paths to pi when it asks for resources, at startup
and after ``/reload``, so they appear in the session like installed ones.

What it shows: the ``resources_discover`` event and its answer
``{"skillPaths": [...], "promptPaths": [...], "themePaths": [...]}``; the resources are listed by
``pi.get_commands()`` with the extension as their source.

Load it with ``pi -e examples/extensions/dynamic_resources``.
"""

from __future__ import annotations

from pathlib import Path

from pi_harness.coding.extensions import ExtensionAPI, ExtensionEvent

HERE = Path(__file__).resolve().parent


def extension(pi: ExtensionAPI) -> None:
    @pi.on("resources_discover")
    def discover(event: ExtensionEvent) -> dict[str, list[str]]:
        return {
            "skillPaths": [str(HERE / "SKILL.md")],
            "promptPaths": [str(HERE / "repo-overview.md")],
            "themePaths": [str(HERE / "theme.json")],
        }
