"""``run_interactive(parsed)``: the interactive mode of ``pi``.

The session starts through the shared sequence (``cli/startup.py``) with ``InteractiveStartup``:
when trust or the session to resume needs the user (``--resume``, an untrusted project with
protected resources) a short screen asks first. Then the header lists what was loaded, the
screen starts *before* extensions are bound (so ``session_start`` handlers can open dialogs)
and the command line's messages are sent as the first prompts. Returns the exit code (0 when
the user quits).
"""

from __future__ import annotations

from collections.abc import Callable

from pi_harness.cli.args import ParsedArgs
from pi_harness.cli.crash_log import announce_previous_crash
from pi_harness.cli.modes.interactive.mode import InteractiveMode
from pi_harness.cli.modes.interactive.shell import Terminal
from pi_harness.cli.modes.interactive.startup import InteractiveStartup, adopt_session_look, build_header
from pi_harness.cli.modes.interactive.startup_changelog import changelog_notice, changelog_since_last_start
from pi_harness.cli.modes.interactive.tmux_keys import warn_about_tmux_keys
from pi_harness.cli.startup import start_session
from pi_harness.coding.system_prompt import default_docs_dir

NO_MODEL_NOTICE = "No model is available. Store an API key with /login <provider>, then pick a model with /model."


async def run_interactive(
    parsed: ParsedArgs,
    *,
    terminal: Terminal | None = None,
    observer: Callable[[InteractiveMode], None] | None = None,
) -> int:
    """Run the interactive mode. ``terminal`` replaces the process's terminal (tests, embedding);
    ``observer`` receives the mode once the session runs."""
    startup = InteractiveStartup(parsed, terminal)
    launched = await start_session(parsed, startup)
    if isinstance(launched, int):
        return launched
    shell, started, runtime = startup.shell, launched.started, launched.runtime
    session = runtime.session
    registry = adopt_session_look(shell, parsed, session)
    crash = announce_previous_crash()
    header = build_header(shell, session, registry, [*startup.notes, *started.diagnostics], trusted=launched.trusted)
    mode = InteractiveMode(shell, runtime, themes=registry, agent_dir=launched.boot.agent_dir, header=header)
    shell.transcript.add_component(header)
    if crash:
        shell.notice("warning", crash)
    mode.controller.load_conversation(shell.transcript, session)
    mode.controller.seed_history(session)
    if started.model_fallback_message:
        shell.notice("warning", started.model_fallback_message)
    if session.model is None:
        shell.notice("warning", NO_MODEL_NOTICE)
    update = changelog_since_last_start(
        session.settings, default_docs_dir(), has_messages=bool(session.agent.state.messages)
    )
    if update is not None:
        shell.notice("info", changelog_notice(*update, collapsed=session.settings.values.collapse_changelog))
    mode.spawn(warn_about_tmux_keys(mode))
    if observer is not None:
        observer(mode)
    return await mode.run(launched.prompts)
