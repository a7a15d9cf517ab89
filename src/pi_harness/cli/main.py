"""The ``pi`` command: process setup, subcommands, argument checks, then the session run.

Startup order, the part that needs no agent session:

1. ``setup_process``: process markers, quiet warnings, offline environment.
2. Subcommands (``auth``, ``config``; package commands are not supported yet) - nothing else runs.
3. Parse; error diagnostics exit 1, warnings are printed. ``--version`` and ``--help`` print and
   exit 0.
4. Argument combinations: ``--fork``/``--session-id`` conflicts, RPC with ``@file`` (exit 1).
5. ``--list-models [search]`` prints the table (exit 0), or what ``pi -p`` says when no model is
   usable (exit 1).
6. Everything else: ``pi_harness.cli.run.run_session(parsed)`` (mode selection, stdout takeover,
   services, session, dispatch).

Imports are lazy so that ``pi --version`` and ``pi --help`` load no provider, TUI or session
code. An uncaught exception is recorded in ``<agentDir>/crashes.json`` and exits 1.
"""

from __future__ import annotations

import os
import sys

from pi_harness.cli import timing

TYPE_CHECKING = False  # as in pi_harness/__init__.py: typing stays unimported for --version

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pi_harness.cli.args import ParsedArgs
    from pi_harness.cli.diagnostics import Diagnostic
    from pi_harness.coding.extensions.types import FlagDefinition

OFFLINE_ENV = "PI_OFFLINE"
SKIP_VERSION_CHECK_ENV = "PI_SKIP_VERSION_CHECK"
PACKAGE_COMMANDS = ("install", "remove", "uninstall", "update", "list")


def _options_part(argv: Sequence[str]) -> Sequence[str]:
    return argv[: list(argv).index("--")] if "--" in argv else argv


def setup_process(argv: Sequence[str] = (), *, quiet_warnings: bool = True) -> None:
    """Pi's ``setupCli`` plus step 1 of ``main``.

    Sets the process markers ``PI_CODING_AGENT=true`` and ``AI_AGENT=pi`` (inherited by tools),
    hides Python warnings unless the user asked for them (``-W``/``PYTHONWARNINGS``), and with
    ``--offline`` or a truthy ``PI_OFFLINE`` sets ``PI_OFFLINE=1`` and ``PI_SKIP_VERSION_CHECK=1``.
    """
    os.environ["PI_CODING_AGENT"] = "true"
    os.environ["AI_AGENT"] = "pi"
    if quiet_warnings and not sys.warnoptions:
        import warnings

        warnings.simplefilter("ignore")
    offline_env = os.environ.get(OFFLINE_ENV, "").strip().lower() in ("1", "true", "yes")
    if "--offline" in _options_part(argv) or offline_env:
        os.environ[OFFLINE_ENV] = "1"
        os.environ[SKIP_VERSION_CHECK_ENV] = "1"


def dispatch_subcommand(argv: Sequence[str]) -> int | None:
    """Run a subcommand named by the first argument; ``None`` when there is none."""
    if not argv:
        return None
    command, rest = argv[0], list(argv[1:])
    if command == "auth":
        from pi_harness.cli.subcommands.auth import run_auth_command

        return run_auth_command(rest)
    if command == "config":
        from pi_harness.cli.subcommands.config import run_config_command

        return run_config_command(rest)
    if command == "batch":
        from pi_harness.cli.subcommands.batch import run_batch_command

        return run_batch_command(rest)
    if command == "mcp":
        from pi_harness.cli.subcommands.mcp import run_mcp_command

        return run_mcp_command(rest)
    if command in PACKAGE_COMMANDS:
        from pi_harness.cli.subcommands.packages import run_package_command

        return run_package_command(command, rest)
    return None


def invocation_errors(parsed: ParsedArgs) -> list[Diagnostic]:
    """Step 4: combinations that are argument errors (exit 1)."""
    from pi_harness.cli.args import rpc_file_args_error
    from pi_harness.cli.session_selection import session_flag_conflicts, session_id_error

    problems = session_flag_conflicts(parsed)
    id_error = session_id_error(parsed) if not problems else None
    if id_error is not None:
        problems.append(id_error)
    rpc_error = rpc_file_args_error(parsed)
    if rpc_error is not None:
        problems.append(rpc_error)
    return problems


def _version() -> str:
    from pi_harness.__about__ import __version__

    return __version__


def _list_models(parsed: ParsedArgs) -> int:
    from pi_harness.cli.lazy_ssl import import_asyncio

    asyncio = import_asyncio()  # without loading OpenSSL until a connection needs TLS
    from pi_harness.cli.list_models import list_models, load_listing_runtime

    # The same models as a session would have, so local model servers are probed first.
    runtime = asyncio.run(load_listing_runtime(parsed, on_warning=lambda line: print(line, file=sys.stderr)))
    return list_models(runtime, parsed.list_models_search)


def _run_session(parsed: ParsedArgs) -> int:
    import importlib
    import inspect

    from pi_harness.cli.lazy_ssl import import_asyncio

    asyncio = import_asyncio()  # without loading OpenSSL until a connection needs TLS

    try:
        # Looked up by name: the session runner is a separate module that may be absent.
        run_session = importlib.import_module("pi_harness.cli.run").run_session
    except ModuleNotFoundError as exc:
        if exc.name != "pi_harness.cli.run":
            raise
        print("Error: running a session is not available in this build of pi-harness", file=sys.stderr)
        return 1
    from pi_harness.cli import gc_pause

    gc_pause.pause()  # while the session's modules load; startup switches it on again
    try:
        result: object = run_session(parsed)
        if inspect.isawaitable(result):
            pending = result

            async def wait() -> object:
                return await pending

            result = asyncio.run(wait())
    finally:
        gc_pause.resume()
    return int(result) if isinstance(result, int) else 0


def _crash(error: BaseException) -> int:
    import traceback

    from pi_harness.optional_deps import MissingDependencyError

    if isinstance(error, MissingDependencyError):
        # Not a crash: an optional package is missing, and the message says which one to install.
        print(f"Error: {error}", file=sys.stderr)
        return 1

    from pi_harness.cli.crash_log import record_crash

    path = record_crash(error)
    traceback.print_exception(error, file=sys.stderr)
    where = f" (recorded in {path})" if path is not None else ""
    print(f"pi-harness crashed: {type(error).__name__}: {error}{where}", file=sys.stderr)
    return 1


def _extension_help_flags(parsed: ParsedArgs) -> list[FlagDefinition]:
    """Flags of the ``-e`` extensions, so ``pi -e x.py --help`` lists them (others stay unloaded)."""
    if not parsed.extensions:
        return []
    import asyncio

    from pi_harness.coding.extensions.runner import ExtensionRunner

    async def collect() -> list[FlagDefinition]:
        runner = ExtensionRunner()
        await runner.load_paths([os.path.abspath(path) for path in parsed.extensions])
        return [flag for flag, _path in runner.flags()[0]]

    try:
        return asyncio.run(collect())
    except Exception:
        return []


VERSION_ONLY = (["--version"], ["-v"])


def run(argv: Sequence[str], settings_overrides: Mapping[str, object] | None = None) -> int:
    if list(argv) in VERSION_ONLY and not timing.enabled():
        # The whole command line is the version flag: nothing else can change the answer, so the
        # argument parser (and what it imports) is not loaded.
        print(_version())
        return 0
    from pi_harness.cli import compile_cache

    compile_cache.install()  # before the first module with dataclasses is imported
    from pi_harness.cli.args import parse_args
    from pi_harness.cli.diagnostics import report_diagnostics

    timing.start()
    if settings_overrides is None:  # a command line run, not an embedding host's
        from pi_harness.cli.early_request.replay import begin

        try:
            begin(argv)
        except Exception:  # a shortcut only: whatever goes wrong in it, the run goes the usual way
            pass
    setup_process(argv)
    timing.mark("setupCli")
    code = dispatch_subcommand(argv)
    if code is not None:
        return code
    parsed = parse_args(argv)
    parsed.settings_overrides = dict(settings_overrides or {})
    timing.mark("parseArgs")
    if report_diagnostics(parsed.diagnostics):
        return 1
    if parsed.version:
        print(_version())
        return 0
    if parsed.help:
        from pi_harness.cli.help import format_help

        sys.stdout.write(format_help(_version(), _extension_help_flags(parsed)))
        return 0
    if report_diagnostics(invocation_errors(parsed)):
        return 1
    if parsed.list_models:
        code = _list_models(parsed)
        timing.mark("listModels")
        return code
    return _run_session(parsed)


def main(argv: Sequence[str] | None = None, settings_overrides: Mapping[str, object] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return run(args, settings_overrides)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (``pi config | head``): exit 1, no crash report.
        _silence_stdout()
        return 1
    except Exception as error:
        return _crash(error)
    finally:
        _end_early_request()
        timing.print_timings()
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            _silence_stdout()


def _end_early_request() -> None:
    """A run that ended before its first request: the recorded one sent ahead is closed, the
    trace of startup ends."""
    replay = sys.modules.get("pi_harness.cli.early_request.replay")
    if replay is not None:
        replay.stop_tracing()
    exchange = sys.modules.get("pi_harness.early_exchange")
    if exchange is not None:
        exchange.discard()


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's own flush at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


if __name__ == "__main__":
    raise SystemExit(main())
