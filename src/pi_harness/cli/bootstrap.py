"""The steps of startup that build the session (``cli/startup.py`` runs them in order): from
parsed arguments to a running ``AgentSessionRuntime``.

Fail fast: argument errors, extension load failures (with the ``pi -ne`` hint), an unknown
``--session``, a bad ``--model`` and "no usable model" outside interactive mode stop with exit 1
(``StartupError``). Fail soft: a broken settings file, models.json or optional resource becomes a
printed diagnostic.

Local model servers (``builtin:llama.cpp``) are probed in ``start_runtime`` before ``--model`` is
resolved and the default model is picked, in every mode, so a local model can be named on the
command line or be the default; the extension reuses that discovery at ``session_start``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pi_harness.cli import timing
from pi_harness.cli.args import API_KEY_REQUIRES_MODEL, ParsedArgs, api_key_error, apply_extension_flags
from pi_harness.cli.session_selection import (
    ABORTED,
    FORK_QUESTION,
    NO_SESSION_FOUND,
    SESSION_ID_EXISTS,
    confirms,
    resolve_session_dir,
    select_session_action,
)

if TYPE_CHECKING:
    from pi_harness.ai.types import Model
    from pi_harness.coding.agent_session.agent_session import AgentSession
    from pi_harness.coding.agent_session.tool_filter import ToolFilter
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.config.trust import TrustDecision
    from pi_harness.coding.extensions.api import ExtensionAPI
    from pi_harness.coding.extensions.runner import ExtensionRunner
    from pi_harness.coding.model_runtime import ModelRuntime
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime
    from pi_harness.coding.session_store import SessionManager
    from pi_harness.extensions_builtin.local_models import DiscoveryCache

EXTENSION_HINT = 'Hint: Start without extensions using "pi -ne".'


class StartupError(Exception):
    """Startup cannot continue: ``str()`` goes to stderr and the process exits with ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Boot:
    """Everything decided before the session exists (the interactive mode may still ask trust)."""

    parsed: ParsedArgs
    mode: str
    cwd: Path
    agent_dir: Path
    global_settings: SettingsManager
    trust: TrustDecision
    session_dir: str | None
    pre_runner: ExtensionRunner | None = None
    warnings: list[str] = field(default_factory=list)


def _ask_yes_no(question: str) -> bool:
    """Ask on the terminal (``/dev/tty``); without one the answer is no."""
    try:
        with open("/dev/tty", "r+", encoding="utf-8") as tty:
            tty.write(f"{question} [y/N] ")
            tty.flush()
            return confirms(tty.readline())
    except OSError:
        return False


def _extension_packages(parsed: ParsedArgs) -> list[str]:
    """The ``-e`` arguments that name packages (``npm:…``, ``git:…``) rather than files."""
    if not parsed.extensions:
        return []  # without importing the source parser
    from pi_harness.coding.packages.sources import is_package_source

    return [p for p in parsed.extensions if is_package_source(p)]


def _extension_files(parsed: ParsedArgs) -> list[str]:
    """The ``-e`` arguments that are extension files or directories."""
    packages = _extension_packages(parsed)
    return [p for p in parsed.extensions if p not in packages]


def enabled_builtins(parsed: ParsedArgs, settings: SettingsManager) -> list[str]:
    """Built-in extension names to load: the defaults, minus ``--no-mcp`` and ``!builtin:x`` or
    ``-builtin:x`` settings entries (Pi documents the ``-`` form), plus ``+builtin:x`` entries."""
    from pi_harness.extensions_builtin import BUILTIN_EXTENSIONS, DEFAULT_ENABLED

    entries = [v for v, _base, _scope in settings.path_entries("extensions")]
    names = [name for name in BUILTIN_EXTENSIONS if name in DEFAULT_ENABLED]
    for entry in entries:
        if entry.startswith(("!builtin:", "-builtin:")) and entry[1:] in names:
            names.remove(entry[1:])
        elif entry.startswith(("+builtin:", "builtin:")):
            name = entry.lstrip("+")
            if name in BUILTIN_EXTENSIONS and name not in names:
                names.append(name)
    if parsed.no_mcp and "builtin:mcp" in names:
        names.remove("builtin:mcp")
    return names


async def prepare_boot(parsed: ParsedArgs, mode: str) -> Boot:
    """Global settings, user/CLI extensions for ``session_directory``/``project_trust``, trust."""
    from pi_harness.coding.config.paths import SETTINGS_FILE, agent_dir
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.config.trust import TrustStore, decide_project_trust
    from pi_harness.coding.extensions.runner import ExtensionRunner
    from pi_harness.coding.session_runtime.project_trust import user_extension_paths

    cwd = Path(os.getcwd()).resolve()
    directory = agent_dir()
    global_settings = SettingsManager(directory / SETTINGS_FILE, None, project_trusted=False)
    proxy = global_settings.values.http_proxy
    if proxy:
        os.environ.setdefault("HTTPS_PROXY", proxy)
        os.environ.setdefault("HTTP_PROXY", proxy)
    timing.mark("settings")

    user_paths = [] if parsed.no_extensions else user_extension_paths(directory, global_settings)
    # ``-e npm:...`` (a package for this run) loads with the session's resources, not here.
    cli_paths = [str((cwd / p).resolve()) for p in _extension_files(parsed)]
    pre_runner: ExtensionRunner | None = None
    if user_paths or cli_paths:
        pre_runner = ExtensionRunner(handler_timeout_ms=global_settings.values.extension_handler_timeout_ms)
        pre_runner.on_error(lambda r: print(f"Extension error ({r.extension_path}): {r.error}", file=sys.stderr))
        failures = await pre_runner.load_paths([*cli_paths, *user_paths])
        if failures:
            lines = "\n".join(f"Error: {f.describe()}" for f in failures)
            raise StartupError(f"{lines}\n{EXTENSION_HINT}")
    timing.mark("user extensions")

    session_dir = parsed.session_dir
    if session_dir is None and pre_runner is not None and pre_runner.has_handlers("session_directory"):
        session_dir = await pre_runner.emit_session_directory(str(cwd))
    setting_dir = global_settings.resolve_path_setting("sessionDir")
    resolved_dir = resolve_session_dir(session_dir, str(setting_dir) if setting_dir else None, cwd=str(cwd))

    ask = pre_runner.emit_project_trust if pre_runner is not None and pre_runner.has_handlers("project_trust") else None
    trust = await decide_project_trust(
        cwd,
        store=TrustStore(directory),
        cli_approve=parsed.approve,
        default=global_settings.values.default_project_trust,
        ask_extensions=ask,
    )
    timing.mark("trust")
    return Boot(
        parsed, mode, cwd, directory, global_settings, trust, str(resolved_dir) if resolved_dir else None, pre_runner
    )


def open_session_manager(boot: Boot, settings: SettingsManager) -> SessionManager:
    """The session file to use, as ``select_session_action`` decides from the flags (``--no-session``,
    ``--fork``, ``--session``, ``--continue``, ``--session-id``, else a new one); a locked or
    invalid file stops startup."""
    from pi_harness.coding.session_store import InvalidSessionFileError, SessionLockedError

    try:
        return _open_session_manager(boot, settings)
    except (SessionLockedError, InvalidSessionFileError) as exc:
        raise StartupError(str(exc)) from exc


def _open_session_manager(boot: Boot, settings: SettingsManager) -> SessionManager:
    from pi_harness.coding.session_store import SessionManager

    parsed = boot.parsed
    action = select_session_action(parsed)
    cwd = str(boot.cwd)
    fsync, lock = settings.values.sessions.fsync, settings.values.sessions.lock
    if action.kind == "in_memory":
        return SessionManager.in_memory(cwd)
    if action.kind == "continue":
        return SessionManager.continue_recent(cwd, boot.session_dir, fsync=fsync, lock=lock)
    if action.kind == "resume":
        raise StartupError("--resume needs the interactive session picker; use --session <id|path> instead")
    if action.kind in ("open", "fork"):
        assert action.target is not None
        if action.target_is_path:
            source = Path(action.target).expanduser()
            source = source if source.is_absolute() else boot.cwd / source
            if action.kind == "open":
                return SessionManager.open(source, boot.session_dir, fsync=fsync, lock=lock)
            if not source.exists():
                raise StartupError(NO_SESSION_FOUND.format(arg=action.target))
            return _fork(source, boot, action.session_id, fsync, lock)
        match = SessionManager.find_by_id(action.target, cwd, boot.session_dir)
        if match is None:
            raise StartupError(NO_SESSION_FOUND.format(arg=action.target))
        if action.kind == "fork":
            return _fork(Path(match.path), boot, action.session_id, fsync, lock)
        if not match.local:
            if not _ask_yes_no(FORK_QUESTION):
                raise StartupError(ABORTED, code=0)
            return _fork(Path(match.path), boot, None, fsync, lock)
        return SessionManager.open(match.path, boot.session_dir, fsync=fsync, lock=lock)
    if action.kind == "open_or_create_id":
        assert action.session_id is not None
        existing = SessionManager.find_by_id(action.session_id, cwd, boot.session_dir)
        if existing is not None and existing.local and existing.id == action.session_id:
            return SessionManager.open(existing.path, boot.session_dir, fsync=fsync, lock=lock)
        print(
            f"Warning: No project session found with id '{action.session_id}'; creating a new session with that id.",
            file=sys.stderr,
        )
        return SessionManager.create(cwd, boot.session_dir, session_id=action.session_id, fsync=fsync, lock=lock)
    return SessionManager.create(cwd, boot.session_dir, fsync=fsync, lock=lock)


def _fork(source: Path, boot: Boot, session_id: str | None, fsync: bool, lock: bool) -> SessionManager:
    from pi_harness.coding.session_store import SessionManager

    if session_id is not None and SessionManager.find_by_id(session_id, str(boot.cwd), boot.session_dir):
        raise StartupError(SESSION_ID_EXISTS.format(id=session_id))
    return SessionManager.fork_from(
        source, str(boot.cwd), boot.session_dir, session_id=session_id, fsync=fsync, lock=lock
    )


async def register_local_models(
    parsed: ParsedArgs,
    settings: SettingsManager,
    agent_directory: Path,
    runtime: ModelRuntime,
    *,
    on_warning: Callable[[str], None],
) -> DiscoveryCache | None:
    """Probe the local model servers and register those that answer in ``runtime``.

    ``None`` when ``builtin:llama.cpp`` is disabled: then nothing is probed at all. The probes run
    concurrently and are capped (``localModels.timeoutMs``); a refused port costs nothing, and
    only servers on this machine are asked unless configured otherwise (``PI_OFFLINE``: always).
    """
    from pi_harness.extensions_builtin import LOCAL_MODELS

    if LOCAL_MODELS not in enabled_builtins(parsed, settings):
        return None
    from pi_harness.extensions_builtin.local_models import (
        DiscoveryCache,
        LocalModelsOptions,
        register_discovered,
        run_discovery,
    )

    options = LocalModelsOptions(settings=settings.values.local_models, agent_dir=agent_directory)
    discovery = await run_discovery(options.load())
    discovery.reported = True  # the host shows the configuration problems, not each session
    for problem in [*discovery.config.errors, *register_discovered(runtime, discovery)]:
        on_warning(f"Warning: Local models: {problem}")
    return DiscoveryCache(discovery)


def _local_models_extension(
    settings: SettingsManager, agent_directory: Path, cache: DiscoveryCache
) -> Callable[[ExtensionAPI], None]:
    """``builtin:llama.cpp`` fed with the startup discovery, so its ``session_start`` reuses it."""
    from pi_harness.extensions_builtin.local_models import LocalModelsOptions, create_local_models_extension

    return create_local_models_extension(
        LocalModelsOptions(settings=settings.values.local_models, agent_dir=agent_directory, cache=cache)
    )


def _with_local_hint(error: StartupError, parsed: ParsedArgs, cache: DiscoveryCache | None) -> StartupError:
    """A ``--model llama.cpp/x`` that is not found says why when its local server did not answer."""
    from pi_harness.extensions_builtin.local_models import unreachable_hint

    if cache is None or cache.latest is None:
        return error
    wanted = parsed.provider or (parsed.model or "").partition("/")[0]
    hint = unreachable_hint(cache.latest, wanted) if wanted else None
    return StartupError(f"{error}\n{hint}", error.code) if hint else error


def apply_early_registrations(boot: Boot, runtime: ModelRuntime, *, on_warning: Callable[[str], None]) -> None:
    """Providers and virtual models that user/CLI extensions registered while loading, so the
    model is resolved against them (the session's own runner registers them again at bind)."""
    from pi_harness.coding.agent_session.extension_binding import provider_applier

    if boot.pre_runner is None:
        return
    apply = provider_applier(runtime)
    for action in boot.pre_runner.pending_provider_actions():
        try:
            apply(action)
        except (ValueError, TypeError) as exc:
            on_warning(f"Extension error ({action.extension_path}): {exc}")


def resolve_cli_model(
    parsed: ParsedArgs, runtime: ModelRuntime, *, on_warning: Callable[[str], None] = lambda _line: None
) -> tuple[Model | None, str | None]:
    """``--model``/``--provider`` (``:level`` suffix allowed) among every model of the catalog, as
    Pi 1.4.0 resolves them (``model_resolver.resolve_cli_model``); credentials only break ties."""
    from pi_harness.coding.model_resolver import provider_requires_model
    from pi_harness.coding.model_resolver import resolve_cli_model as resolve

    if parsed.model is None:
        if parsed.provider is not None:
            raise StartupError(f"Error: {provider_requires_model(parsed.provider)}")
        return None, None
    result = resolve(
        runtime.get_all(),
        parsed.model,
        provider=parsed.provider,
        thinking=parsed.thinking,
        inline_api_key=bool(parsed.api_key),
        has_credentials=runtime.has_credentials,
    )
    if result.warning:
        on_warning(f"Warning: {result.warning}")
    if result.error is not None:
        raise StartupError(f"Error: {result.error}")
    return result.model, result.thinking_level


def _scoped_start(scoped: list[tuple[Model, str | None]], settings: SettingsManager) -> tuple[Model, str | None] | None:
    """The scoped model a new session starts with: the settings' default model when in scope."""
    if not scoped:
        return None
    values = settings.values
    for entry in scoped:
        if (entry[0]["provider"], entry[0]["id"]) == (values.default_provider, values.default_model):
            return entry
    return scoped[0]


def _prepare_first_request(model: Model | None, settings: SettingsManager, runtime: ModelRuntime, mode: str) -> None:
    """Get the first request's connection ready while the rest of startup runs: the certificate
    store loads in a thread when it will most likely be HTTPS, and in print and JSON mode (which
    send it at once) the connection itself is opened. The model is the ``--model`` given, else
    the settings' default (a resumed session that restores another model only wastes this)."""
    from pi_harness.ai import tls

    values = settings.values
    if model is None and values.default_provider and values.default_model:
        model = runtime.find(values.default_provider, values.default_model)
    base_url = str(model.get("baseUrl") or "") if model is not None else ""
    if not base_url or tls.needs_tls(base_url):
        tls.prewarm()
    if base_url and mode in ("print", "json"):
        from pi_harness.ai.http_transport import preconnect

        preconnect(base_url)


@dataclass
class Started:
    runtime: AgentSessionRuntime
    diagnostics: list[str]
    model_fallback_message: str | None
    # The command line parsed again with the extensions' flags: a string flag's value is no
    # longer mistaken for a message, so the initial input must come from here.
    parsed: ParsedArgs


async def start_runtime(boot: Boot, trusted: bool, *, on_warning: Callable[[str], None]) -> Started:
    """Build services and the session for the given trust decision (step 3 of ``cli/startup.py``)."""
    from pi_harness.ai.thinking import is_thinking_level
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.model_resolver import resolve_model_scope_with_warnings
    from pi_harness.coding.model_runtime import ModelRuntime
    from pi_harness.coding.resources.loader import ResourceOptions
    from pi_harness.coding.sdk import create_agent_session
    from pi_harness.coding.session_store.listing import normalize_session_name
    from pi_harness.coding.tools import available_tool_names, resolve_tool_selection
    from pi_harness.extensions_builtin import builtin_extensions

    parsed = boot.parsed
    settings = SettingsManager.create(boot.cwd, boot.agent_dir, project_trusted=trusted)
    for key, value in parsed.settings_overrides.items():
        settings.set_override(key, value)
    manager = open_session_manager(boot, settings)
    if parsed.name is not None:
        # Written before the session is built, so it is the first entry of a new session and
        # extensions see the name at session_start (as in Pi).
        if not normalize_session_name(parsed.name):
            raise StartupError("Error: --name requires a non-empty value")
        manager.append_session_info(parsed.name)
    timing.mark("session manager")
    model_runtime = ModelRuntime.create(boot.agent_dir)
    # Before the model is resolved: ``--model llama.cpp/<id>`` and the default-model choice (which
    # takes a local model when it is the only usable one) must see the local servers.
    local = await register_local_models(parsed, settings, boot.agent_dir, model_runtime, on_warning=on_warning)
    timing.mark("local models")
    apply_early_registrations(boot, model_runtime, on_warning=on_warning)
    try:
        model, suffix_level = resolve_cli_model(parsed, model_runtime, on_warning=on_warning)
    except StartupError as exc:
        raise _with_local_hint(exc, parsed, local) from None
    _prepare_first_request(model, settings, model_runtime, boot.mode)
    if parsed.api_key:
        problem = api_key_error(parsed)
        if problem is not None or model is None:
            raise StartupError(f"Error: {problem.message if problem is not None else API_KEY_REQUIRES_MODEL}")
        model_runtime.set_runtime_api_key(model["provider"], parsed.api_key)
    thinking = parsed.thinking if parsed.thinking and is_thinking_level(parsed.thinking) else suffix_level
    scoped_patterns = parsed.models
    if scoped_patterns is None:
        enabled = settings.values.enabled_models
        scoped_patterns = list(enabled) if enabled is not None else None
    scoped: list[tuple[Model, str | None]] = []
    if scoped_patterns:
        scope = resolve_model_scope_with_warnings(model_runtime.get_available(), scoped_patterns)
        for warning in scope.warnings:
            on_warning(f"Warning: {warning}")
        scoped = [(m.model, m.thinking_level) for m in scope.models]
    # Without --model, a new session starts with the default model when the scope has it, else
    # with the scope's first model; one with messages restores its own model (as in Pi).
    new_session_model = _scoped_start(scoped, settings) if model is None else None
    options = ResourceOptions(
        extension_paths=[],
        package_sources=_extension_packages(parsed),
        skill_paths=list(parsed.skills),
        prompt_template_paths=list(parsed.prompt_templates),
        theme_paths=list(parsed.themes),
        no_extensions=parsed.no_extensions,
        no_skills=parsed.no_skills,
        no_prompt_templates=parsed.no_prompt_templates,
        no_themes=parsed.no_themes,
        no_context_files=parsed.no_context_files,
        system_prompt=parsed.system_prompt,
        append_system_prompt=list(parsed.append_system_prompt),
    )
    builtins = builtin_extensions(
        project_trusted=trusted,
        local_models_settings=settings.values.local_models,
        agent_dir=boot.agent_dir,
        codemode_settings=lambda: settings.values.codemode,
    )
    if local is not None:
        from pi_harness.extensions_builtin import LOCAL_MODELS

        builtins[LOCAL_MODELS] = _local_models_extension(settings, boot.agent_dir, local)
    extension_paths = [str((boot.cwd / p).resolve()) for p in _extension_files(parsed)]
    extension_paths += [name for name in enabled_builtins(parsed, settings) if name in builtins]
    result = await create_agent_session(
        cwd=str(boot.cwd),
        agent_dir=boot.agent_dir,
        model=model,
        thinking_level=thinking,
        session_manager=manager,
        settings_manager=settings,
        model_runtime=model_runtime,
        extension_paths=extension_paths,
        builtin_extensions=builtins,
        project_trusted=trusted,
        mode=boot.mode,
        scoped_models=scoped,
        new_session_model=new_session_model,
        session_dir=boot.session_dir,
        resource_options=options,
    )
    timing.mark("session")
    session = result.session
    diagnostics = list(result.diagnostics)

    # Second parsing pass: flags registered by the loaded extensions.
    flag_defs = [flag for flag, _path in session.extensions.flags()[0]]
    reparsed = apply_extension_flags(parsed, flag_defs)
    for diagnostic in reparsed.diagnostics:
        if diagnostic.level == "error":
            diagnostics.append(diagnostic.format())
    session.extensions.flag_values.update(reparsed.extension_flags)

    if parsed.tools is not None or parsed.no_tools or parsed.exclude_tools or parsed.no_builtin_tools:
        # Extension tools join the registry now rather than when the mode binds the session, so
        # the selection can name the ones that start inactive (``tool_search``) and filter the others.
        session.tool_registry.refresh_extension_tools()
        builtin_names = set(available_tool_names())
        defaults = session.get_active_tool_names()
        if parsed.no_builtin_tools:
            defaults = [name for name in defaults if name not in builtin_names]
        selection = resolve_tool_selection(
            parsed.tools,
            no_tools=parsed.no_tools,
            exclude_tools=parsed.exclude_tools,
            default_tools=defaults,
            available=_tool_names(session),
        )
        for warning in selection.warnings:
            on_warning(warning)
        session.set_active_tools(list(selection.names))
        session.tool_registry.set_filter(_tool_filter(parsed))
    return Started(result.runtime, diagnostics, result.model_fallback_message, reparsed)


def fatal_diagnostics(diagnostics: list[str]) -> str | None:
    """Diagnostics that stop startup (extension load failures), with the ``-ne`` hint."""
    failures = [d for d in diagnostics if is_load_failure(d)]
    if not failures:
        return None
    return "\n".join(d if d.startswith("Error:") else f"Error: {d}" for d in failures) + "\n" + EXTENSION_HINT


def is_load_failure(diagnostic: str) -> bool:
    return "Failed to load extension" in diagnostic or "valid factory function" in diagnostic


def describe_no_model() -> str:
    return (
        "No models available.\n"
        "Set an API key in the environment (for example ANTHROPIC_API_KEY or OPENAI_API_KEY), store one in "
        "~/.pi/agent/auth.json (or with /login in interactive mode), or add a provider in ~/.pi/agent/models.json.\n"
        "For a local model, start a llama.cpp server on 127.0.0.1:8080 or point LLAMA_BASE_URL at one."
    )


def _tool_filter(parsed: ParsedArgs) -> ToolFilter:
    """Pi's allowlist: a plain ``--tools`` list; ``--no-tools`` alone allows nothing, and with
    ``+name``/``-name`` entries only what they select. ``--no-builtin-tools`` sets none."""
    from pi_harness.coding.agent_session.tool_filter import ToolFilter

    entries = [part.strip() for item in parsed.tools or [] for part in item.split(",") if part.strip()]
    modifiers = [entry for entry in entries if entry.startswith(("+", "-"))]
    allowed: list[str] | None
    if entries and not modifiers:
        allowed = entries
    elif parsed.no_tools:
        allowed = []
        for entry in modifiers:
            name = entry[1:].strip()
            if entry.startswith("+") and name and name not in allowed:
                allowed.append(name)
            elif entry.startswith("-") and name in allowed:
                allowed.remove(name)
    else:
        allowed = None
    excluded = [part.strip() for item in parsed.exclude_tools or [] for part in item.split(",") if part.strip()]
    return ToolFilter(tuple(allowed) if allowed is not None else None, tuple(excluded))


def _tool_names(session: AgentSession) -> list[str]:
    """Every tool ``--tools`` may name: the session's and those extensions register (active from bind)."""
    names = [str(tool["name"]) for tool in session.get_all_tools()]
    extra = [definition.name for definition, _path in session.extensions.tool_definitions()]
    return list(dict.fromkeys([*names, *extra]))
