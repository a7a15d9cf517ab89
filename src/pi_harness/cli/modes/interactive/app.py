"""``run_interactive(parsed, …)``: the interactive mode of ``pi`` (modes-and-cli.md section 9).

Startup: the bootstrap decides trust and the session; when that needs the user (``--resume``,
an untrusted project with protected resources) a short screen asks first. Then the session
starts, the header lists what was loaded, the screen starts *before* extensions are bound (so
``session_start`` handlers can open dialogs) and the command line's messages are sent as the
first prompts. Returns the exit code (0 when the user quits).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from pi_harness.cli.modes.interactive.hooks import (
    Bootstrap,
    CrashLog,
    InitialInputModule,
    InteractiveArgs,
    StartedLike,
    exit_code,
)
from pi_harness.cli.modes.interactive.mode import InteractiveMode
from pi_harness.cli.modes.interactive.shell import Terminal
from pi_harness.cli.modes.interactive.startup import (
    adopt_session_look,
    ask_trust,
    build_header,
    create_shell,
    pick_session_to_resume,
)
from pi_harness.cli.modes.interactive.submit import PromptInput

NO_SESSION_SELECTED = "No session selected"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


async def run_interactive(
    parsed: InteractiveArgs,
    *,
    bootstrap: Bootstrap,
    initial_input: InitialInputModule,
    crash_log: CrashLog | None = None,
    terminal: Terminal | None = None,
    observer: Callable[[InteractiveMode], None] | None = None,
) -> int:
    """Run the interactive mode. ``terminal`` replaces the process's terminal (tests, embedding);
    ``observer`` receives the mode once the session runs."""
    try:
        boot = await bootstrap.prepare_boot(parsed, "interactive")
    except bootstrap.StartupError as error:
        if str(error):
            _stderr(str(error))
        return exit_code(error)
    shell, registry = create_shell(boot, parsed, terminal)
    trusted = boot.trust.effective(interactive=True)

    async def before_session() -> bool:
        nonlocal trusted
        if parsed.resume:
            path = await pick_session_to_resume(shell, boot)
            if path is None:
                return False
            parsed.session = path
        if boot.trust.needs_prompt:
            trusted = await ask_trust(shell, boot)
        return True

    if (parsed.resume or boot.trust.needs_prompt) and not await shell.run_until(before_session()):
        print(NO_SESSION_SELECTED, flush=True)
        return 0

    notes: list[str] = list(boot.warnings)
    try:
        started: StartedLike = await bootstrap.start_runtime(boot, trusted, on_warning=notes.append)
    except bootstrap.StartupError as error:
        if str(error):
            _stderr(str(error))
        return exit_code(error)
    runtime = started.runtime
    fatal = bootstrap.fatal_diagnostics(started.diagnostics)
    if fatal is not None or any(d.startswith("Error:") for d in started.diagnostics):
        for line in started.diagnostics:
            _stderr(line)
        if fatal is not None:
            _stderr(fatal)
        await runtime.shutdown()
        return 1
    session = runtime.session
    try:
        initial = initial_input.prepare_initial_input(
            list(parsed.messages),
            list(parsed.file_args),
            read_stdin=False,
            auto_resize=session.settings.get("images.autoResize", True) is not False,
            cwd=str(boot.cwd),
        )
    except initial_input.FileArgumentError as error:
        _stderr(f"Error: {error}")
        await runtime.shutdown()
        return 1
    prompts = [PromptInput(initial.message, list(initial.images))] if initial.message else []
    prompts += [PromptInput(text) for text in initial.messages]

    registry = adopt_session_look(shell, parsed, session)
    crash = crash_log.announce_previous_crash() if crash_log is not None else None
    header = build_header(shell, session, registry, [*notes, *started.diagnostics], trusted=trusted)
    mode = InteractiveMode(shell, runtime, themes=registry, agent_dir=boot.agent_dir, header=header)
    shell.transcript.add_component(header)
    if crash:
        shell.notice("warning", crash)
    shell.transcript.load_messages(session.get_messages())
    mode.controller.seed_history(session)
    if started.model_fallback_message:
        shell.notice("warning", started.model_fallback_message)
    if session.model is None:
        shell.notice("warning", "No model is available. Store an API key with /login <provider>, then pick a model "
                                "with /model.")  # fmt: skip
    if observer is not None:
        observer(mode)
    return await mode.run(prompts)
