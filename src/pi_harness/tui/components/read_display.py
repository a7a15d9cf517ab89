"""How a ``read`` call is titled while tool output is collapsed.

Collapsed, a read shows no output at all (its content is for the model; ``app.tools.expand``
shows it), and reads of files the agent reads for itself rather than for the task get a compact
title that says what they are, as in Pi 1.4.0: a skill (``[skill] <skill dir>``), a context file
(``read resource AGENTS.md``) or pi-harness's own documentation (``read docs docs/sdk.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pi_harness.coding.system_prompt import default_docs_dir, examples_dir
from pi_harness.coding.tools.paths import resolve_to_cwd
from pi_harness.tui.components.base import RenderContext

# Pi's list: the context files a session loads by itself.
RESOURCE_FILE_NAMES = frozenset({"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"})


@dataclass(frozen=True)
class CompactRead:
    kind: Literal["skill", "docs", "resource"]
    label: str


def _within(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` in ``/`` form, or None when it is not below ``root``."""
    relative = os.path.relpath(path, root)
    if relative in (os.curdir, os.pardir) or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


def _docs_label(path: str) -> str | None:
    """The label Pi gives its own documentation: ``README.md``, ``docs/…`` or ``examples/…``."""
    docs = default_docs_dir()
    inside = _within(path, str(docs))
    if inside is not None:
        return inside if inside == "README.md" else f"docs/{inside}"
    example = _within(path, str(examples_dir(docs)))
    return f"examples/{example}" if example is not None else None


def classify_read(path: str | None, cwd: str | None) -> CompactRead | None:
    """What the file at ``path`` is, when it is one the compact title is for."""
    if not path:
        return None
    cwd = cwd or os.getcwd()
    absolute = resolve_to_cwd(path, cwd)
    name = os.path.basename(absolute)
    if name == "SKILL.md":
        return CompactRead("skill", os.path.basename(os.path.dirname(absolute)) or name)
    docs = _docs_label(absolute)
    if docs is not None:
        return CompactRead("docs", docs)
    if name in RESOURCE_FILE_NAMES:
        relative = _within(absolute, cwd)
        return CompactRead("resource", relative if relative is not None else absolute)
    return None


def compact_read_title(compact: CompactRead, line_range: str, context: RenderContext) -> str:
    theme = context.theme
    hint = theme.fg("dim", f" ({context.key('app.tools.expand')} to expand)")
    if compact.kind == "skill":
        label = theme.fg("customMessageLabel", "\x1b[1m[skill]\x1b[22m ") + theme.fg("customMessageText", compact.label)
        return label + line_range + hint
    title = theme.style(f"read {compact.kind}", "toolTitle", bold=True) + " " + theme.fg("accent", compact.label)
    return title + line_range + hint


def read_path(args: Mapping[str, object]) -> str | None:
    """The path argument (``file_path`` is the name some models use)."""
    for key in ("path", "file_path"):
        value = args.get(key)
        if isinstance(value, str):
            return value
    return None
