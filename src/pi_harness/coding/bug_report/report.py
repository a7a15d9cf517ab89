"""Building the bug report (Markdown) and writing it to ``<agentDir>/bug-reports/``.

Pi's ``/bug`` uploads a report to its developers; pi-harness has no upload service, so the report
is a local file the user reads and attaches to an issue themselves. The builder takes plain data
(messages, settings dicts, paths, strings) rather than a session, so any front end can use it.
Settings appear as keys only: their values may hold paths, commands or credentials.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pi_harness.__about__ import __version__
from pi_harness.coding.bug_report.excerpt import (
    DEFAULT_EXCERPT_MESSAGES,
    MAX_MESSAGE_CHARS,
    Scrub,
    clip,
    failed_responses,
    transcript_excerpt,
)
from pi_harness.coding.crash_records import CrashSummary

BUG_REPORTS_DIR = "bug-reports"
PRODUCT_NAME = "pi-harness"


@dataclass(frozen=True)
class TerminalInfo:
    term: str | None = None
    program: str | None = None  # TERM_PROGRAM (and its version)
    colorterm: str | None = None
    columns: int | None = None
    rows: int | None = None
    multiplexer: str | None = None  # tmux / screen: they change key and colour handling


def terminal_info(env: Mapping[str, str], size: tuple[int, int] | None = None) -> TerminalInfo:
    """The terminal as the environment describes it; ``size`` is (columns, rows)."""
    program = env.get("TERM_PROGRAM")
    if program and env.get("TERM_PROGRAM_VERSION"):
        program = f"{program} {env['TERM_PROGRAM_VERSION']}"
    multiplexer = "tmux" if env.get("TMUX") else ("screen" if env.get("STY") else None)
    columns, rows = size if size is not None else (None, None)
    return TerminalInfo(env.get("TERM"), program, env.get("COLORTERM"), columns, rows, multiplexer)


@dataclass(frozen=True)
class BugReportInputs:
    """What goes into a report. ``transcript`` is ``None`` when the user left it out."""

    description: str = ""
    mode: str = "interactive"
    model: str | None = None  # "provider/id"
    thinking_level: str | None = None
    terminal: TerminalInfo | None = None
    global_settings: Mapping[str, object] | None = None  # the file's content; None: no (readable) file
    project_settings: Mapping[str, object] | None = None
    project_trusted: bool = True
    extensions: Sequence[str] = ()  # paths (or builtin:<name>) of the loaded extensions
    extension_errors: Sequence[str] = ()
    crashes: Sequence[CrashSummary] = ()
    messages: Sequence[Mapping[str, object]] = ()  # the session's messages, for error diagnostics
    transcript: Sequence[Mapping[str, object]] | None = None
    excerpt_messages: int = DEFAULT_EXCERPT_MESSAGES
    max_message_chars: int = MAX_MESSAGE_CHARS
    created: datetime = field(default_factory=lambda: datetime.now(UTC))


def read_settings_file(path: Path | None) -> dict[str, object] | None:
    """A settings.json as a dict; ``None`` when it is missing or not a JSON object."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def settings_keys(data: Mapping[str, object], prefix: str = "") -> list[str]:
    """Dotted keys of the leaves (``compaction.enabled``); lists count as leaves."""
    keys: list[str] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            keys += settings_keys(value, f"{dotted}.")
        else:
            keys.append(dotted)
    return keys


def _settings_lines(label: str, data: Mapping[str, object] | None, scrub: Scrub, note: str = "") -> list[str]:
    if data is None:
        return [f"- {label}: no settings file{note}"]
    keys = settings_keys(data)
    shown = ", ".join(f"`{scrub(key)}`" for key in keys) if keys else "(empty)"
    return [f"- {label}{note}: {shown}"]


def _environment_lines(inputs: BugReportInputs, scrub: Scrub) -> list[str]:
    lines = [
        f"- {PRODUCT_NAME}: {__version__}",
        f"- OS: {platform.platform()} ({sys.platform}, {platform.machine() or 'unknown machine'})",
        f"- Python: {platform.python_version()} ({platform.python_implementation()})",
        f"- Mode: {inputs.mode}",
    ]
    terminal = inputs.terminal
    if terminal is not None:
        size = f"{terminal.columns}x{terminal.rows}" if terminal.columns and terminal.rows else "unknown size"
        parts = [f"TERM={terminal.term or '(unset)'}", size]
        parts += [f"{name} {value}" for name, value in (("program", terminal.program),
                  ("COLORTERM", terminal.colorterm), ("inside", terminal.multiplexer)) if value]  # fmt: skip
        lines.append(f"- Terminal: {scrub(', '.join(parts))}")
    model = scrub(inputs.model) if inputs.model else "(none)"
    thinking = f", thinking {inputs.thinking_level}" if inputs.thinking_level else ""
    lines.append(f"- Model: {model}{thinking}")
    return lines


def _crash_lines(crashes: Sequence[CrashSummary], scrub: Scrub) -> list[str]:
    if not crashes:
        return ["No crash records."]
    lines: list[str] = []
    for crash in crashes:
        lines += [
            *([""] if lines else []),
            f"- {crash.timestamp}, {PRODUCT_NAME} {crash.version}, Python {crash.python} on {crash.platform}: "
            f"{scrub(crash.error)}",
            "",
            "  ~~~text",
            *(f"  {line}" for line in scrub(crash.stack_tail).replace("~~~", "~ ~ ~").splitlines()),
            "  ~~~",
        ]
    return lines


def build_bug_report(inputs: BugReportInputs, scrub: Scrub) -> str:
    """The report as Markdown; every piece of free text goes through ``scrub``."""
    created = inputs.created.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    description = clip(scrub(inputs.description.strip()), 4000) if inputs.description.strip() else "(none given)"
    trust_note = "" if inputs.project_trusted else " (project not trusted: not loaded)"
    lines = [
        f"# {PRODUCT_NAME} bug report",
        "",
        f"Written {created}. This file stays on this computer ({PRODUCT_NAME} has no upload service): read it, "
        "then attach it to your bug report. Credentials found in auth.json, models.json and the environment, "
        "and text shaped like API keys, are replaced by [redacted].",
        "",
        "## Description",
        "",
        description,
        "",
        "## Environment",
        "",
        *_environment_lines(inputs, scrub),
        "",
        "## Settings (keys only)",
        "",
        *_settings_lines("Global settings.json", inputs.global_settings, scrub),
        *_settings_lines("Project .pi/settings.json", inputs.project_settings, scrub, trust_note),
        "",
        "## Extensions",
        "",
        *([f"- {scrub(path)}" for path in inputs.extensions] or ["None loaded."]),
        *[f"- failed: {scrub(error)}" for error in inputs.extension_errors],
        "",
        "## Recent crashes",
        "",
        *_crash_lines(inputs.crashes, scrub),
        "",
        "## Failed model responses in this session",
        "",
        *(failed_responses(inputs.messages, scrub) or ["None."]),
        "",
        "## Session excerpt",
        "",
    ]
    if inputs.transcript is None:
        lines.append("Left out by the user.")
    elif not inputs.transcript:
        lines.append("The session has no messages.")
    else:
        shown = min(len(inputs.transcript), inputs.excerpt_messages)
        lines += [
            f"The last {shown} of {len(inputs.transcript)} messages, each cut to "
            f"{inputs.max_message_chars} characters. Read them before sharing the report.",
            "",
            *transcript_excerpt(
                inputs.transcript, scrub, count=inputs.excerpt_messages, max_chars=inputs.max_message_chars
            ),
        ]
    # A last pass over the whole text catches what the parts above did not scrub themselves.
    return scrub("\n".join(lines).rstrip() + "\n")


def write_bug_report(text: str, agent_directory: Path, *, now: datetime | None = None) -> Path:
    """Write ``text`` to a new ``<agentDir>/bug-reports/bug-<time>.md``: directory 0700, file 0600
    (the excerpt is the user's conversation). An existing report is never overwritten."""
    directory = agent_directory / BUG_REPORTS_DIR
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(directory, 0o700)  # mkdir's mode is reduced by the umask and ignored for an existing dir
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    for attempt in range(1, 1000):
        path = directory / (f"bug-{stamp}.md" if attempt == 1 else f"bug-{stamp}-{attempt}.md")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path
    raise FileExistsError(f"too many bug reports for {stamp} in {directory}")
