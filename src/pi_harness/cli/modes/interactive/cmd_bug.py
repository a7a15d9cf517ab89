"""``/bug [description]``: write a local bug report (``pi_harness.coding.bug_report``).

The only question is whether the last messages of the session go in; Escape cancels. The
report is built from plain data taken from the session here, so the builder needs no UI.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pi_harness.coding.bug_report import BugReportInputs, create_bug_report, read_settings_file, terminal_info
from pi_harness.coding.bug_report.excerpt import DEFAULT_EXCERPT_MESSAGES
from pi_harness.coding.crash_records import recent_crashes

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext
    from pi_harness.coding.model_runtime import ModelRuntime

INCLUDE = "Yes, include them (credentials are redacted)"
LEAVE_OUT = "No, leave the conversation out"


def transcript_question(count: int) -> str:
    return (
        f"Add the last {count} messages of this session to the bug report? They can hold file contents "
        "and command output; the report stays on this computer."
    )


def _extension_provider_secrets(runtime: ModelRuntime) -> Iterator[str]:
    """Keys and headers that extensions registered for their providers (not in any file)."""
    for name in runtime.get_providers():
        provider = runtime.extension_provider(name)
        if provider is None:
            continue
        if provider.api_key:
            yield provider.api_key
        yield from provider.headers.values()


async def report_bug(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    session = mode.session
    messages: list[Any] = list(session.get_messages())
    transcript: list[Any] | None = messages  # an empty session has nothing to ask about
    if messages:
        count = min(len(messages), DEFAULT_EXCERPT_MESSAGES)
        choice = await shell.ask_select(transcript_question(count), [INCLUDE, LEAVE_OUT])
        if choice is None:
            shell.notice("info", "Bug report cancelled")
            return
        transcript = messages if choice == INCLUDE else None
    settings = session.settings
    model = session.model
    runner = session.extensions
    inputs = BugReportInputs(
        description=args,
        mode="interactive",
        model=f"{model['provider']}/{model['id']}" if model else None,
        thinking_level=session.thinking_level,
        terminal=terminal_info(os.environ, shell.view.size()),
        global_settings=read_settings_file(settings.global_path),
        project_settings=read_settings_file(settings.project_path) if settings.project_trusted else None,
        project_trusted=settings.project_trusted,
        extensions=[extension.path for extension in runner.extensions],
        extension_errors=[f"{failure.path}: {failure.error}" for failure in runner.load_failures],
        crashes=recent_crashes(mode.agent_dir),
        messages=messages,
        transcript=transcript,
    )
    path = create_bug_report(
        inputs,
        mode.agent_dir,
        models_file=session.model_runtime.models_json_path,
        extra_secrets=_extension_provider_secrets(session.model_runtime),
    )
    shell.notice("success", f"Bug report written to {path} (nothing was uploaded: read it, then attach it to "
                            "your report)")  # fmt: skip
