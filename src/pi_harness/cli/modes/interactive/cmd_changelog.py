"""``/changelog``: pi-harness's own changelog (Pi's command shows Pi's).

The changelog is ``CHANGELOG.md`` beside the user docs in the package, or at the root of a source
checkout. None is shipped yet, so the command says so instead of making anything up.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_harness.__about__ import __version__
from pi_harness.cli.modes.interactive.builtin import Builtin
from pi_harness.coding.system_prompt import default_docs_dir

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

CHANGELOG_FILE = "CHANGELOG.md"


def find_changelog(docs_dir: Path) -> Path | None:
    """The installed package's changelog, else the source checkout's (``src/pi_harness/docs``)."""
    for candidate in (docs_dir / CHANGELOG_FILE, docs_dir.parent.parent.parent / CHANGELOG_FILE):
        if candidate.is_file():
            return candidate
    return None


def changelog_text(docs_dir: Path) -> str:
    path = find_changelog(docs_dir)
    if path is None:
        return f"pi-harness {__version__} has no changelog yet (no {CHANGELOG_FILE} in the package)"
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        return f"Cannot read {path}: {error}"
    return text or f"{path} is empty"


async def changelog(mode: ModeContext, args: str) -> None:
    mode.shell.notice("info", changelog_text(default_docs_dir()))


COMMANDS = [Builtin("changelog", "Show the pi-harness changelog", changelog)]
