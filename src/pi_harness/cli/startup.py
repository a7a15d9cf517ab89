"""The one startup sequence of every mode: from parsed arguments to a running session and its first prompts.

1. ``prepare_boot``: global settings, user extensions, the session directory, the trust decision;
2. trust: the mode settles it (the interactive mode may ask, and lets the user pick the session
   to resume first);
3. ``start_runtime``: settings, the session file, models, resources and extensions;
4. diagnostics: extension load failures and ``Error:`` lines stop the run with exit 1;
5. the mode's own checks (print, JSON and RPC stop without a usable model);
6. the initial input: piped stdin, ``@file`` arguments and the command line's messages.

A mode supplies a ``ModeStartup`` with only what it does differently; ``start_session`` returns a
``Launched`` session, or the exit code when startup ended the run.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pi_harness.cli import gc_pause
from pi_harness.cli.bootstrap import (
    Boot,
    Started,
    StartupError,
    fatal_diagnostics,
    is_load_failure,
    prepare_boot,
    start_runtime,
)
from pi_harness.cli.initial_input import FileArgumentError, PromptInput, prepare_initial_input

if TYPE_CHECKING:
    from pi_harness.cli.args import ParsedArgs
    from pi_harness.cli.mode import AppMode
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime

YOUNG_GENERATION_THRESHOLD = 10_000  # CPython's default is 700 allocations


def print_error(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def startup_collection_paused() -> Iterator[None]:
    """No cyclic garbage collection while the session is loaded, then freeze what is alive.

    Startup creates long-lived objects in bulk (a 50k-entry session file is millions of dicts and
    strings): every collection during the load traverses all of them again, which doubled the
    time to the first request. Afterwards they are moved out of the collector's sight
    (``gc.freeze``), so later collections only look at new objects; reference counting still
    frees everything as usual. The youngest generation is also collected less often: building
    one request for a long session allocates hundreds of thousands of short-lived containers.
    """
    enabled = gc.isenabled() or gc_pause.take()  # off since the modules loaded (``cli/gc_pause.py``)
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        threshold, *older = gc.get_threshold()
        gc.set_threshold(max(threshold, YOUNG_GENERATION_THRESHOLD), *older)
        if enabled:
            gc.enable()


class ModeStartup(Protocol):
    """What a mode does its own way during the shared startup sequence."""

    @property
    def mode(self) -> AppMode: ...

    @property
    def pauses_collection(self) -> bool:
        """Load the session with the garbage collector paused (``startup_collection_paused``)."""
        ...

    @property
    def diagnostics_to_stderr(self) -> bool:
        """Print every startup diagnostic on stderr; otherwise only when they stop the run."""
        ...

    @property
    def reads_initial_input(self) -> bool:
        """Turn the command line's messages and ``@file`` arguments into prompts (not RPC)."""
        ...

    @property
    def reads_piped_stdin(self) -> bool: ...

    async def decide_trust(self, boot: Boot) -> bool | None:
        """Whether the project is trusted; ``None`` ends the run with exit 0 (the user cancelled)."""
        ...

    def warn(self, message: str) -> None:
        """A warning while the session is built (a local model server, an unknown tool …)."""
        ...

    def accept(self, started: Started) -> bool:
        """The mode's own checks of the started session; ``False`` ends the run with exit 1."""
        ...


@dataclass
class Launched:
    """A session that started, ready for its mode."""

    boot: Boot
    started: Started
    trusted: bool
    prompts: list[PromptInput]

    @property
    def runtime(self) -> AgentSessionRuntime:
        return self.started.runtime


async def start_session(parsed: ParsedArgs, startup: ModeStartup) -> Launched | int:
    """Run the startup sequence for ``startup``'s mode: the launched session, or an exit code."""
    if not startup.pauses_collection:
        gc_pause.resume()
    paused = startup_collection_paused() if startup.pauses_collection else contextlib.nullcontext()
    try:
        with paused:
            boot = await prepare_boot(parsed, startup.mode)
            trusted = await startup.decide_trust(boot)
            if trusted is None:
                return 0
            started = await start_runtime(boot, trusted, on_warning=startup.warn)
    except StartupError as error:
        if str(error):
            print_error(str(error))
        return error.code
    runtime = started.runtime
    fatal = fatal_diagnostics(started.diagnostics)
    failed = fatal is not None or any(line.startswith("Error:") for line in started.diagnostics)
    if startup.diagnostics_to_stderr or failed:
        for line in started.diagnostics:
            if fatal is None or not is_load_failure(line):  # those come with ``fatal``, once
                print_error(line)
    if failed or not startup.accept(started):
        if fatal is not None:
            print_error(fatal)
        await runtime.shutdown()
        return 1
    prompts: list[PromptInput] = []
    if startup.reads_initial_input:
        # From the second parsing pass: a string flag of an extension is not taken for a message.
        try:
            initial = prepare_initial_input(
                started.parsed.messages,
                started.parsed.file_args,
                read_stdin=startup.reads_piped_stdin,
                auto_resize=runtime.session.settings.values.images.auto_resize,
                cwd=str(boot.cwd),
            )
        except FileArgumentError as error:
            print_error(f"Error: {error}")
            await runtime.shutdown()
            return 1
        prompts = initial.prompts()
    return Launched(boot, started, trusted, prompts)
