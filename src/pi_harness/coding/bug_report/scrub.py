"""Keeping credentials out of a bug report.

Two nets, both applied to every piece of text that goes into a report:

* the *known* secrets: values stored in ``auth.json``, ``apiKey`` and header values of
  ``models.json``, and environment variables whose names say they hold a credential
  (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ...), each replaced wherever it occurs;
* *shapes* of credentials nobody configured here: ``sk-...`` keys, GitHub, Google, AWS, Slack and
  Hugging Face tokens, JWTs, ``Bearer <token>``, ``api_key=<value>`` style assignments, URL
  passwords and secret query parameters.

``!command`` values are never run to learn what they produce: writing a report must not prompt a
password manager or have side effects; the shape patterns still catch most keys they yield.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from pi_harness.ai.env_keys import ENV_API_KEYS

REDACTED = "[redacted]"
# Shorter values are not credentials, and replacing them everywhere ("1", "true", a provider id)
# would make the report unreadable.
MIN_SECRET_LENGTH = 6

_SECRET_ENV_NAME = re.compile(r"(?:^|_)(?:API_?KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD|PASSWD)$", re.I)
_KNOWN_ENV_NAMES = frozenset(name for names in ENV_API_KEYS.values() for name in names)
_ENV_REFERENCE = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
_BARE_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
# Fields of models.json whose values are credentials (compared in lower case).
_SECRET_FIELDS = frozenset({"apikey", "api_key", "key", "token", "accesstoken", "secret", "password"})

# (pattern, replacement): the replacement keeps the label so the reader sees what was removed.
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), REDACTED),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"), REDACTED),
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), REDACTED),
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{8,}=*"), rf"\1{REDACTED}"),
    (
        re.compile(
            r"(?i)\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret|"
            r"password|passwd|token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]{8,}"
        ),
        rf"\1{REDACTED}",
    ),
    (
        re.compile(r"(?i)([?&](?:key|api[_-]?key|token|access_token|secret|sig|signature)=)[^&#\s\"']+"),
        rf"\1{REDACTED}",
    ),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), rf"\1{REDACTED}@"),
)


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential."""
    return name in _KNOWN_ENV_NAMES or _SECRET_ENV_NAME.search(name) is not None


def _read_json(path: Path | None) -> object:
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _with_reference(value: str, env: Mapping[str, str]) -> list[str]:
    """``value`` and, for ``$NAME`` / ``${NAME}`` / a bare upper-case name, the variable's value."""
    found = [value]
    text = value.strip()
    match = _ENV_REFERENCE.match(text)
    name = match.group(1) if match else (text if _BARE_ENV_NAME.match(text) else None)
    if name is not None and env.get(name):
        found.append(env[name])
    return found


def _strings_of(node: object) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings_of(value)


def _models_json_secrets(node: object) -> Iterable[str]:
    """``apiKey`` (and similar) values and every header value, at any depth."""
    if isinstance(node, list):
        for item in node:
            yield from _models_json_secrets(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            lowered = str(key).lower()
            if lowered in _SECRET_FIELDS or lowered == "headers":
                yield from _strings_of(value)
            else:
                yield from _models_json_secrets(value)


def _auth_json_secrets(data: object) -> Iterable[str]:
    """Every string of every credential except its ``type`` (keys, OAuth access and refresh tokens)."""
    if not isinstance(data, dict):
        return
    for entry in data.values():
        if isinstance(entry, dict):
            for field, value in entry.items():
                if field != "type":
                    yield from _strings_of(value)
        else:
            yield from _strings_of(entry)


def collect_secrets(
    *,
    auth_file: Path | None,
    models_file: Path | None,
    env: Mapping[str, str],
    extra: Iterable[str] = (),
) -> list[str]:
    """The configured credential values, longest first (so a key containing another goes whole)."""
    raw = [
        *_auth_json_secrets(_read_json(auth_file)),
        *_models_json_secrets(_read_json(models_file)),
        *extra,
    ]
    values: set[str] = set()
    for value in raw:
        values.update(_with_reference(value, env))
    values.update(value for name, value in env.items() if is_secret_env_name(name))
    found: set[str] = set()
    for value in (v.strip() for v in values):
        if len(value) < MIN_SECRET_LENGTH:
            continue
        found.add(value)
        escaped = json.dumps(value)[1:-1]  # as it appears inside JSON-encoded tool arguments
        if escaped != value:
            found.add(escaped)
    return sorted(found, key=lambda value: (-len(value), value))


class Scrubber:
    """Replaces known secrets and credential-shaped text with ``[redacted]``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=lambda s: (-len(s), s))

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        for pattern, replacement in _SHAPES:
            text = pattern.sub(replacement, text)
        return text
