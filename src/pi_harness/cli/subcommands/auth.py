"""``pi auth check|print-api-key|print-bearer-token`` as Pi 1.4.0 has them, and pi-harness's
``pi auth login|logout <provider>`` (``auth_login.py``).

``check`` prints ``ready``, ``not_ready`` or ``invalid`` (exit 0, 1, 2), or with ``--json`` one
object: ``{"status", "provider", "authType"}`` when ready, ``{"status", "provider", "reason"}``
otherwise (``provider_not_found``, ``credentials_not_configured``, ``credential_not_available``,
``invalid_state``); ``--credentials`` prints the credential instead of ``ready`` (or adds it as
``credentials``). An expired OAuth sign-in is refreshed first unless ``--no-refresh``. In text
mode a ``not_ready`` also says on stderr how to fix it (stdout stays the one word).

The print commands write the credential requests would use, or ``Error: <why>`` with exit 1.
Credentials are resolved in ModelRuntime's order - auth.json (API key, then OAuth token),
models.json ``apiKey``, environment - and every ``!command`` runs at most once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TextIO

from pi_harness.cli.subcommands.auth_args import (
    AuthCommand,
    AuthCommandError,
    AuthTarget,
    UnknownOption,
    auth_target,
    is_help,
    parse_auth_command,
)
from pi_harness.cli.subcommands.auth_credentials import (
    known_provider,
    missing_settings,
    not_ready_message,
    resolve_credential,
)

if TYPE_CHECKING:
    from pi_harness.coding.model_runtime import ModelRuntime

AuthState = Literal["ready", "not_ready", "invalid"]
EXIT_CODES: dict[AuthState, int] = {"ready": 0, "not_ready": 1, "invalid": 2}
LOGIN_ACTIONS = ("login", "logout")
BEARER_MIN_EXPIRY_MS = 30 * 60_000

USAGE = """Usage:
  pi auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]
  pi auth print-api-key [--provider <provider>] [--model <model>]
  pi auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  pi auth login|logout <provider>

check tells whether the provider (of --model, else --provider) has a usable credential: it
prints ready, not_ready or invalid and exits 0, 1 or 2; --json prints one object instead,
--credentials the credential itself. An expired sign-in is refreshed first unless --no-refresh.
The print commands write the API key or OAuth bearer token requests would use (the bearer token
is refreshed when it expires within --min-expiry, 30m by default). Each needs --provider or
--model. login signs in and stores the credential in auth.json; logout removes it.
"""


@dataclass
class AuthCheck:
    status: AuthState
    provider: str | None
    auth_type: str | None = None  # "api_key" or "oauth", when ready
    reason: str | None = None  # why not, otherwise
    hint: str | None = None  # for a person: what to do about it (stderr, text mode only)

    def to_json(self, credential: str | None) -> dict[str, object]:
        data: dict[str, object] = {"status": self.status}
        if self.provider is not None:
            data["provider"] = self.provider
        if self.auth_type is not None:
            data["authType"] = self.auth_type
        if self.reason is not None:
            data["reason"] = self.reason
        if credential:
            data["credentials"] = credential
        return data


def _resolve_model_provider(runtime: ModelRuntime, target: AuthTarget) -> str:
    """The provider of ``--model`` (within ``--provider``), as ``pi --model`` resolves it."""
    from pi_harness.coding.model_resolver import resolve_cli_model

    assert target.model is not None
    result = resolve_cli_model(
        runtime.get_all(), target.model, provider=target.provider, has_credentials=runtime.has_credentials
    )
    if result.model is None:
        raise AuthCommandError(result.error or f'Unable to resolve model "{target.model}"')
    return result.model["provider"]


def check_auth(runtime: ModelRuntime, target: AuthTarget, *, refresh: bool = True) -> AuthCheck:
    """Whether requests to the target's provider would have a credential."""
    try:
        provider = _resolve_model_provider(runtime, target) if target.model else target.provider
    except AuthCommandError as error:
        return AuthCheck("invalid", target.provider or target.model, reason="invalid_state", hint=str(error))
    assert provider is not None
    if runtime.errors:
        return AuthCheck("invalid", provider, reason="invalid_state", hint=runtime.errors[0])
    if not known_provider(runtime, provider):
        return AuthCheck("not_ready", provider, reason="provider_not_found", hint=f'Unknown provider "{provider}"')
    entry = runtime.auth.get(provider)
    oauth = entry is not None and entry.get("type") == "oauth"
    not_configured = AuthCheck(
        "not_ready", provider, reason="credentials_not_configured", hint=not_ready_message(runtime, provider)
    )
    missing = missing_settings(runtime, provider)
    if missing:
        not_configured.hint = (
            f"No usable credentials for {provider}: set {', '.join(missing)} "
            "(environment, or the env object of its auth.json entry)."
        )
        return not_configured
    if oauth and not refresh:
        return AuthCheck("ready", provider, auth_type="oauth")
    if resolve_credential(runtime, provider).value is None:
        return not_configured
    return AuthCheck("ready", provider, auth_type="oauth" if oauth else "api_key")


def _check_credential(runtime: ModelRuntime, provider: str, *, refresh: bool) -> str | None:
    """What ``--credentials`` prints: the stored sign-in's token as stored under
    ``--no-refresh``, else the credential requests would send."""
    entry = runtime.auth.get(provider)
    if not refresh and entry is not None and entry.get("type") == "oauth":
        access = entry.get("access")
        return access if isinstance(access, str) and access else None
    return resolve_credential(runtime, provider).value or None


def _stored_types(runtime: ModelRuntime) -> dict[str, str]:
    """auth.json's providers and the type of each one's credential."""
    return {name: str(entry.get("type")) for name, entry in runtime.auth.read_all().items() if isinstance(entry, dict)}


def credential_for_print(runtime: ModelRuntime, command: AuthCommand, target: AuthTarget) -> str:
    """The one API key (``print-api-key``) or OAuth bearer token (``print-bearer-token``) of the
    target. Raises ``AuthCommandError`` with the reason there is none, or several."""
    from pi_harness.coding.model_reference import resolve_model_reference
    from pi_harness.coding.model_resolver import not_found_message, resolve_cli_model

    stored = _stored_types(runtime)
    providers: list[str] = []
    if target.provider:
        if not known_provider(runtime, target.provider):
            hint = "Use --list-models to see available providers."
            raise AuthCommandError(f'Unknown provider "{target.provider}". {hint}')
        if target.model:
            result = resolve_cli_model(
                runtime.get_all(), target.model, provider=target.provider, has_credentials=runtime.has_credentials
            )
            if result.model is None:
                raise AuthCommandError(result.error or "Unable to resolve the requested provider/model")
        providers.append(target.provider)
    else:
        assert target.model is not None
        models = runtime.get_all()
        for provider in runtime.get_providers():
            if provider in stored:
                found = resolve_model_reference(target.model, models, provider=provider, suffix="strict")
                if found.status == "resolved":
                    providers.append(provider)
        if not providers:
            raise AuthCommandError(not_found_message(target.model))
    bearer = command.kind == "bearer_token"
    margin = command.min_expiry_ms if command.min_expiry_ms is not None else BEARER_MIN_EXPIRY_MS
    found_values: list[tuple[str, str]] = []
    for provider in providers:
        kind = stored.get(provider)
        if (kind == "oauth") != bearer:
            continue  # an API key is not a bearer token, and the other way round
        value = resolve_credential(runtime, provider, min_validity_ms=margin if bearer else 0).value
        if value:
            found_values.append((provider, value))
    if len(found_values) == 1:
        return found_values[0][1]
    if not found_values:
        first = providers[0] if providers else None
        kind = stored.get(first) if first else None
        if target.provider and not bearer and kind == "oauth":
            raise AuthCommandError(f'Provider "{first}" is configured with OAuth, not an API key')
        if target.provider and bearer and kind != "oauth":
            raise AuthCommandError(f'Provider "{first}" is not configured with an OAuth bearer token')
        raise AuthCommandError(f"No usable {'OAuth bearer token' if bearer else 'API key'} is configured")
    names = ", ".join(provider for provider, _value in found_values)
    raise AuthCommandError(f"Multiple configured providers matched ({names}). Specify --provider.")


def run_auth_command(
    argv: Sequence[str], *, runtime: ModelRuntime | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """``argv`` is everything after ``auth``; returns the exit code."""
    stdout = out if out is not None else sys.stdout
    stderr = err if err is not None else sys.stderr
    if argv and argv[0] in LOGIN_ACTIONS:
        from pi_harness.cli.subcommands.auth_login import run_login_command

        return run_login_command(argv[0], argv[1:], out=stdout, err=stderr)
    if is_help(argv):
        print(USAGE, end="", file=stdout)
        return 0
    try:
        command = parse_auth_command(argv)
    except AuthCommandError as error:
        print(f"Error: {error}", file=stderr)
        return 1
    failure_code = EXIT_CODES["invalid"] if command.kind == "check" else 1
    try:
        target = auth_target(command)
        if runtime is None:
            from pi_harness.coding.config.paths import agent_dir
            from pi_harness.coding.model_runtime import ModelRuntime

            runtime = ModelRuntime.create(agent_dir())
        if command.kind != "check":
            print(credential_for_print(runtime, command, target), file=stdout)
            return 0
    except UnknownOption as error:
        print(error, file=stderr)
        return 1
    except AuthCommandError as error:
        print(f"Error: {error}", file=stderr)
        return failure_code
    refresh = not command.no_refresh
    result = check_auth(runtime, target, refresh=refresh)
    credential = None
    if command.credentials and result.status == "ready" and result.provider is not None:
        credential = _check_credential(runtime, result.provider, refresh=refresh)
        if credential is None:
            result = AuthCheck("not_ready", result.provider, reason="credential_not_available")
    if command.json:
        print(json.dumps(result.to_json(credential), ensure_ascii=False, separators=(",", ":")), file=stdout)
    else:
        print(credential or result.status, file=stdout)
        if result.hint and result.status != "ready":
            print(result.hint, file=stderr)
    return EXIT_CODES[result.status]
