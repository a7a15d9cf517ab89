"""``pi auth check|print-api-key|print-bearer-token [--provider P] [--model M] [--json]`` (1.4.0),
and ``pi auth login|logout <provider>`` (``auth_login.py``).

Exit codes: 0 ready, 1 not_ready (no usable credential), 2 invalid (bad arguments, unknown
provider or model, a models.json that fails to load).

The target is the model of ``--model`` (optionally restricted by ``--provider``), else the provider
of ``--provider``, else the ``defaultProvider``/``defaultModel`` settings; with none of them,
``check`` asks whether any model at all has credentials. Credentials are resolved in ModelRuntime's
order - auth.json (API key, then OAuth token), environment, models.json ``apiKey`` - and every
``!command`` runs at most once.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from pi_harness.cli.subcommands.common import UsageError, load_settings, parse_command_args

if TYPE_CHECKING:
    from pi_harness.ai.types import Model
    from pi_harness.coding.model_runtime import ModelRuntime

AuthState = Literal["ready", "not_ready", "invalid"]
EXIT_CODES: dict[AuthState, int] = {"ready": 0, "not_ready": 1, "invalid": 2}
ACTIONS = ("check", "print-api-key", "print-bearer-token")
LOGIN_ACTIONS = ("login", "logout")

USAGE = """Usage: pi auth <action> [--provider <name>] [--model <pattern>] [--json]
       pi auth login|logout <provider>

Actions:
  check                Is a credential available? Exit 0 ready, 1 not ready, 2 invalid
  print-api-key        Print the API key that requests would use
  print-bearer-token   Print the token sent as "Authorization: Bearer"
  login <provider>     Sign in (browser or device code) and store the credential in auth.json
  logout <provider>    Remove the provider's stored credential

Options:
  --provider <name>    Provider to check (restricts --model lookup)
  --model <pattern>    Model whose provider to check ("provider/id", id or fuzzy name)
  --json               One JSON object on stdout
"""


@dataclass
class AuthReport:
    status: AuthState
    message: str
    provider: str | None = None
    model: str | None = None
    # "auth.json", "auth.json (oauth)", "environment", "models.json", "none required"
    source: str | None = None
    env_vars: list[str] = field(default_factory=list)
    credential: str | None = None  # never printed by ``check``

    def to_json(self, include_credential: str | None = None) -> dict[str, object]:
        data: dict[str, object] = {"status": self.status}
        if self.provider is not None:
            data["provider"] = self.provider
        if self.model is not None:
            data["model"] = self.model
        if self.source is not None:
            data["source"] = self.source
        if self.env_vars:
            data["envVars"] = self.env_vars
        data["error" if self.status == "invalid" else "message"] = self.message
        if include_credential and self.credential:
            data[include_credential] = self.credential
        return data


@dataclass(frozen=True)
class Credential:
    value: str | None  # None: nothing usable; "": usable without a key (ambient or keyless)
    source: str | None


def resolve_credential(runtime: ModelRuntime, provider: str) -> Credential:
    """The credential requests to ``provider`` would use, and where it comes from."""
    from pi_harness.ai.env_keys import AUTHENTICATED, env_var_names, get_env_api_key
    from pi_harness.coding.config.models_json import ModelsJsonError, load_models_json
    from pi_harness.coding.config.values import resolve_config_value

    entry = runtime.auth.get(provider)
    if entry is not None:
        from pi_harness.coding.auth_flows import fresh_api_key

        stored = fresh_api_key(runtime.auth, provider)
        if stored:
            return Credential(stored, "auth.json (oauth)" if entry.get("type") == "oauth" else "auth.json")
    configured: str | None = None
    if runtime.models_json_path is not None:
        try:
            configs = load_models_json(runtime.models_json_path)
        except ModelsJsonError:
            configs = []
        configured = next((c.api_key for c in configs if c.name == provider and c.api_key), None)
    # models.json's apiKey comes before the environment, as in Pi 1.4.
    value = resolve_config_value(configured) if configured and entry is None else None
    if value:
        return Credential(value, "models.json")
    env = get_env_api_key(provider)
    if env:
        if env == AUTHENTICATED:
            return Credential("", "environment (ambient credentials)")
        name = next((n for n in env_var_names(provider) if os.environ.get(n)), None)
        return Credential(env, f"environment ({name})" if name else "environment")
    if runtime.get_api_key(provider) == "":
        return Credential("", "none required")
    return Credential(None, None)


def _known_provider(runtime: ModelRuntime, provider: str) -> bool:
    from pi_harness.ai.env_keys import ENV_API_KEYS

    return provider in runtime.get_providers() or provider in ENV_API_KEYS or runtime.auth.has(provider)


def _not_ready_message(runtime: ModelRuntime, provider: str) -> str:
    from pi_harness.ai.env_keys import env_var_names

    entry = runtime.auth.get(provider)
    auth_path = runtime.auth.path
    if entry is not None:
        kind = "OAuth token has expired" if entry.get("type") == "oauth" else "API key did not resolve to a value"
        return f"No usable credentials for {provider}: the auth.json {kind}."
    hints = [f"set {' or '.join(env_var_names(provider))}"] if env_var_names(provider) else []
    hints.append(f"add a key to {auth_path}" if auth_path is not None else "add a key to auth.json")
    hints.append("run /login in interactive mode")
    return f"No credentials for {provider}. To fix: {', '.join(hints)}."


def _missing_settings(runtime: ModelRuntime, provider: str) -> list[str]:
    """Settings the provider needs besides a key (Cloudflare's ids) that are set nowhere."""
    from pi_harness.ai.env_keys import PROVIDER_SETTINGS

    stored = runtime.auth.get_env(provider)
    return [name for name in PROVIDER_SETTINGS.get(provider, ()) if not (stored.get(name) or os.environ.get(name))]


def _resolve_target(
    runtime: ModelRuntime, provider: str | None, model_pattern: str | None, cwd: Path | None
) -> tuple[str | None, Model | None]:
    """``(provider, model)``; ``(None, None)`` means "any provider". Raises ``UsageError``."""
    from pi_harness.coding.model_resolver import ModelResolutionError, resolve_model_pattern

    if model_pattern is None and provider is None:
        settings, _ = load_settings(cwd)
        provider = settings.values.default_provider
        model_pattern = settings.values.default_model
    if model_pattern:
        if provider and not _known_provider(runtime, provider):
            raise UsageError(f'Unknown provider "{provider}"')
        # An id offered by several providers (gpt-4o: openai, azure, ...) means the one that has
        # credentials, if any does.
        try:
            match = resolve_model_pattern(runtime.get_available(), model_pattern, provider or None)
        except ModelResolutionError:
            try:
                match = resolve_model_pattern(runtime.get_all(), model_pattern, provider or None)
            except ModelResolutionError as exc:
                raise UsageError(str(exc)) from exc
        return match.model["provider"], match.model
    if provider:
        if not _known_provider(runtime, provider):
            raise UsageError(f'Unknown provider "{provider}"')
        return provider, None
    return None, None


def check_auth(
    runtime: ModelRuntime,
    *,
    provider: str | None = None,
    model: str | None = None,
    cwd: Path | None = None,
) -> AuthReport:
    from pi_harness.ai.env_keys import env_var_names

    if runtime.errors:
        return AuthReport("invalid", runtime.errors[0])
    try:
        target_provider, target_model = _resolve_target(runtime, provider, model, cwd)
    except UsageError as exc:
        return AuthReport("invalid", str(exc), provider=provider)
    model_id = target_model["id"] if target_model is not None else None
    if target_provider is None:
        available = runtime.get_available()
        providers = sorted({m["provider"] for m in available})
        if providers:
            return AuthReport("ready", f"Credentials found for: {', '.join(providers)}")
        return AuthReport("not_ready", "No models available. Set an API key (e.g. OPENAI_API_KEY) or add auth.json.")
    env_vars = list(env_var_names(target_provider))
    credential = resolve_credential(runtime, target_provider)
    missing = _missing_settings(runtime, target_provider)
    if credential.value is not None and missing:
        message = (
            f"No usable credentials for {target_provider}: set {', '.join(missing)} "
            "(environment, or the env object of its auth.json entry)."
        )
        return AuthReport("not_ready", message, target_provider, model_id, env_vars=env_vars)
    if credential.value is None:
        return AuthReport(
            "not_ready", _not_ready_message(runtime, target_provider), target_provider, model_id, env_vars=env_vars
        )
    return AuthReport(
        "ready",
        f"Credentials for {target_provider} from {credential.source}",
        target_provider,
        model_id,
        credential.source,
        env_vars,
        credential.value,
    )


def _print_text(report: AuthReport, out: TextIO, err: TextIO) -> None:
    label = report.provider + (f"/{report.model}" if report.model else "") if report.provider else None
    if report.status == "ready":
        print(f"ready: {label} ({report.source})" if label else f"ready: {report.message}", file=out)
    elif report.status == "not_ready":
        print(f"not_ready: {report.message}", file=out)
    else:
        print(f"invalid: {report.message}", file=err)


def run_auth_command(
    argv: Sequence[str], *, runtime: ModelRuntime | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """``argv`` is everything after ``auth``; returns the exit code."""
    stdout = out if out is not None else sys.stdout
    stderr = err if err is not None else sys.stderr
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="", file=stdout if argv else stderr)
        return 0 if argv else EXIT_CODES["invalid"]
    action = argv[0]
    if action in LOGIN_ACTIONS:
        from pi_harness.cli.subcommands.auth_login import run_login_command

        return run_login_command(action, argv[1:], out=stdout, err=stderr)
    try:
        if action not in ACTIONS:
            known = ", ".join((*ACTIONS, *LOGIN_ACTIONS))
            raise UsageError(f'Unknown auth action "{action}". Use one of: {known}')
        args = parse_command_args(
            "auth", argv[1:], value_options=("--provider", "--model"), switches=("--json", "--help", "-h")
        )
        if args.positionals:
            raise UsageError(f"Unexpected argument: {args.positionals[0]}")
    except UsageError as exc:
        print(f"Error: {exc}", file=stderr)
        return EXIT_CODES["invalid"]
    if args.switches & {"--help", "-h"}:
        print(USAGE, end="", file=stdout)
        return 0
    if runtime is None:
        from pi_harness.coding.config.paths import agent_dir
        from pi_harness.coding.model_runtime import ModelRuntime

        runtime = ModelRuntime.create(agent_dir())
    report = check_auth(runtime, provider=args.values.get("--provider"), model=args.values.get("--model"))
    as_json = "--json" in args.switches
    if action == "check":
        if as_json:
            print(json.dumps(report.to_json(), ensure_ascii=False, separators=(",", ":")), file=stdout)
        else:
            _print_text(report, stdout, stderr)
        return EXIT_CODES[report.status]
    return _print_credential(action, report, as_json, stdout, stderr)


def _print_credential(action: str, report: AuthReport, as_json: bool, out: TextIO, err: TextIO) -> int:
    field_name = "apiKey" if action == "print-api-key" else "token"
    if report.status == "ready" and report.provider is None:
        report = AuthReport("invalid", "Name a provider with --provider or a model with --model")
    elif report.status == "ready" and not report.credential:
        report = AuthReport(
            "not_ready",
            f"{report.provider} uses no API key ({report.source})",
            report.provider,
            report.model,
            report.source,
            report.env_vars,
        )
    if as_json:
        print(
            json.dumps(report.to_json(include_credential=field_name), ensure_ascii=False, separators=(",", ":")),
            file=out,
        )
    elif report.status == "ready":
        print(report.credential, file=out)
    else:
        print(f"{report.status}: {report.message}", file=err)
    return EXIT_CODES[report.status]
