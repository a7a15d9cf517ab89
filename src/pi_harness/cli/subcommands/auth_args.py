"""The command line of ``pi auth check|print-api-key|print-bearer-token``, read as Pi 1.4.0
reads it: the options of one action only, the rest through the main parser (so ``--provider``
and ``--model`` take values as everywhere else), and a target that must be named."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

AuthKind = Literal["check", "api_key", "bearer_token"]
KINDS: dict[str, AuthKind] = {"check": "check", "print-api-key": "api_key", "print-bearer-token": "bearer_token"}
NAMES: dict[AuthKind, str] = {
    "check": "auth check",
    "api_key": "auth print-api-key",
    "bearer_token": "auth print-bearer-token",
}
USAGES: dict[AuthKind, str] = {
    "check": "pi auth check --provider <provider> [--json] [--credentials] [--no-refresh]",
    "api_key": "pi auth print-api-key --provider <provider> [--model <model>]",
    "bearer_token": "pi auth print-bearer-token --provider <provider> [--model <model>] [--min-expiry <duration>]",
}
CHECK_SWITCHES = ("--json", "--credentials", "--no-refresh")
_DURATION = re.compile(r"(\d+)(ms|s|m|h)", re.IGNORECASE)
_UNIT_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000}


class AuthCommandError(Exception):
    """A refused ``pi auth`` command line; printed as ``Error: <message>``."""


@dataclass
class AuthCommand:
    kind: AuthKind
    args: list[str]  # what the main parser reads: --provider, --model (and whatever else was given)
    json: bool = False
    credentials: bool = False
    no_refresh: bool = False
    min_expiry_ms: int | None = None


def is_help(argv: Sequence[str]) -> bool:
    """``pi auth``, ``pi auth help``, or any ``--help``/``-h``: the usage, exit 0."""
    return not argv or argv[0] == "help" or "--help" in argv or "-h" in argv


def parse_auth_command(argv: Sequence[str]) -> AuthCommand:
    """``argv`` after ``auth``. Raises ``AuthCommandError`` for an unknown action or an option
    the action does not take."""
    kind = KINDS.get(argv[0]) if argv else None
    if kind is None:
        raise AuthCommandError(
            f'Unknown auth command "{argv[0] if argv else ""}". Use "pi auth print-api-key", '
            '"pi auth print-bearer-token", or "pi auth check".'
        )
    command = AuthCommand(kind, [])
    rest = list(argv[1:])
    index = 0
    while index < len(rest):
        arg = rest[index]
        index += 1
        if arg == "--min-expiry":
            if kind != "bearer_token":
                raise AuthCommandError("--min-expiry is only supported by print-bearer-token")
            value = rest[index] if index < len(rest) else ""
            index += 1
            match = _DURATION.fullmatch(value)
            if match is None:
                raise AuthCommandError("--min-expiry must use a duration such as 30m or 1h")
            command.min_expiry_ms = int(match.group(1)) * _UNIT_MS[match.group(2).lower()]
            continue
        if arg in CHECK_SWITCHES:
            if kind != "check":
                raise AuthCommandError(f"{arg} is only supported by auth check")
            command.json = command.json or arg == "--json"
            command.credentials = command.credentials or arg == "--credentials"
            command.no_refresh = command.no_refresh or arg == "--no-refresh"
            continue
        command.args.append(arg)
    return command


@dataclass(frozen=True)
class AuthTarget:
    provider: str | None
    model: str | None


def unknown_option_lines(command: AuthCommand, flag: str) -> str:
    name = flag.lstrip("-").partition("=")[0]
    return f'Unknown option --{name} for "{NAMES[command.kind]}".\nUse "pi --help" or "{USAGES[command.kind]}".'


def auth_target(command: AuthCommand) -> AuthTarget:
    """``--provider``/``--model`` from the command's arguments. Raises ``AuthCommandError`` when
    they are missing, or when anything but options was given (an ``UnknownOption`` for a flag
    the main parser does not know)."""
    from pi_harness.cli.args import parse_args

    parsed = parse_args(command.args)
    if parsed.unknown_flags:
        raise UnknownOption(unknown_option_lines(command, parsed.unknown_flags[0]))
    if parsed.errors:
        raise AuthCommandError("\n".join(diagnostic.message for diagnostic in parsed.errors))
    if parsed.api_key is not None or parsed.messages or parsed.file_args:
        raise AuthCommandError("Auth commands only accept --provider and --model")
    provider = (parsed.provider or "").strip() or None
    model = (parsed.model or "").strip() or None
    if provider is None and model is None:
        if command.kind == "check":
            raise AuthCommandError("Auth checks require --provider <provider> or --model <model>")
        raise AuthCommandError("Credential printing requires --provider <provider> or --model <model>")
    return AuthTarget(provider, model)


class UnknownOption(Exception):
    """An option the main parser does not know: printed as is (two lines), exit 1."""
