"""The changelog shown once after an update, as Pi does at startup.

A new session (no messages yet) compares the changelog's ``## [x.y.z]`` sections with
``lastChangelogVersion``: the first start only records the running version; a later start shows
the sections newer than the recorded one and records the running version again.
``collapseChangelog`` replaces the sections by one line naming the newest version.
"""

from __future__ import annotations

import re
from pathlib import Path

from pi_harness.__about__ import __version__
from pi_harness.cli.modes.interactive.cmd_changelog import find_changelog
from pi_harness.coding.config.settings import SettingsManager

_HEADING = re.compile(r"^##\s+\[?(\d+)\.(\d+)\.(\d+)\]?", re.MULTILINE)
Version = tuple[int, int, int]


def parse_version(text: str) -> Version | None:
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", text.strip())
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def changelog_sections(text: str) -> list[tuple[Version, str]]:
    """Each ``## [x.y.z]`` section with its version, in the file's order (newest first)."""
    heads = list(_HEADING.finditer(text))
    return [
        ((int(h[1]), int(h[2]), int(h[3])), text[h.start() : nxt.start() if nxt else len(text)].strip())
        for h, nxt in zip(heads, [*heads[1:], None], strict=True)
    ]


def changelog_since_last_start(
    settings: SettingsManager, docs_dir: Path, *, has_messages: bool, version: str = __version__
) -> tuple[str, str] | None:
    """``(newest version, sections)`` to show now, or ``None``; records ``version`` as seen."""
    if has_messages:
        return None  # a resumed conversation shows no changelog (Pi)
    last = settings.values.last_changelog_version
    if not last:
        settings.set("lastChangelogVersion", version)
        return None
    seen = parse_version(last)
    path = find_changelog(docs_dir)
    if seen is None or path is None:
        return None
    newer = [(v, body) for v, body in changelog_sections(path.read_text(encoding="utf-8")) if v > seen]
    if not newer:
        return None
    settings.set("lastChangelogVersion", version)
    newest = max(v for v, _ in newer)
    return ".".join(map(str, newest)), "\n\n".join(body for _, body in newer)


def changelog_notice(newest: str, sections: str, *, collapsed: bool) -> str:
    if collapsed:
        return f"Updated to v{newest}; /changelog shows what changed."
    return f"What's new\n\n{sections}"
