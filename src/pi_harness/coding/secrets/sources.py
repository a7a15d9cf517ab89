"""Which values are secrets, and under which name each is masked.

A secret is a value configured as a credential, with the name shown in its place:

* environment variables whose names say they hold one (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``,
  ``*_PASSWORD``, ..., and the variables Pi reads keys from): the variable's name;
* ``auth.json``: the key, access and refresh tokens of each entry: the entry's name (provider);
* ``--api-key`` keys, and the ``apiKey`` and header values of models.json and of extension
  providers: the provider's name. ``$VAR`` values are looked up in the environment; ``!command``
  values count with what the command printed when this process last ran it (it is never run just
  to learn the value).

Values shorter than ``MIN_SECRET_LENGTH`` are ignored: they are not credentials, and masking
``true`` or a provider id everywhere would garble ordinary output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from pi_harness.ai.env_keys import ENV_API_KEYS
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.values import last_command_output
from pi_harness.coding.model_runtime import ModelRuntime

MIN_SECRET_LENGTH = 8

# The last word(s) of the name: ``OPENAI_API_KEY``, ``GH_TOKEN``, ``AWS_SECRET_ACCESS_KEY``,
# ``DB_PASSWORD``; not ``TOKENIZERS_PARALLELISM``, ``KEYBOARD`` or ``AWS_WEB_IDENTITY_TOKEN_FILE``
# (a path).
_SECRET_ENV_NAME = re.compile(
    r"(?:^|_)(?:API_?KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY|PRIVATE_KEY|PASSWORD|PASSWD)$", re.I
)
_KNOWN_ENV_NAMES = frozenset(name for names in ENV_API_KEYS.values() for name in names)
_ENV_REFERENCE = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
_BARE_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
# Fields of an auth.json entry that hold credentials (compared in lower case).
_AUTH_FIELDS = frozenset({"key", "access", "refresh", "token", "apikey", "secret", "password"})


@dataclass(frozen=True)
class NamedSecret:
    name: str
    value: str


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential."""
    return name in _KNOWN_ENV_NAMES or _SECRET_ENV_NAME.search(name) is not None


def resolved_values(value: str, env: Mapping[str, str]) -> list[str]:
    """What a configured value stands for, without running anything: the literal, the variable
    of ``$NAME`` / ``${NAME}`` / a bare upper-case name, or the last output of ``!command``."""
    text = value.strip()
    if text.startswith("!"):
        output = last_command_output(text[1:])
        return [output] if output else []
    match = _ENV_REFERENCE.match(text)
    if match:
        found = env.get(match.group(1))
        return [found] if found else []
    if _BARE_ENV_NAME.match(text) and env.get(text):
        return [env[text]]
    return [text]


def _auth_secrets(auth: AuthStorage, env: Mapping[str, str]) -> Iterator[NamedSecret]:
    for provider, entry in auth.read_all().items():
        if not isinstance(entry, dict):
            continue
        for field, value in entry.items():
            if str(field).lower() in _AUTH_FIELDS and isinstance(value, str):
                for resolved in resolved_values(value, env):
                    yield NamedSecret(str(provider), resolved)


def collect_secrets(
    runtime: ModelRuntime | None, env: Mapping[str, str], extra: Iterable[NamedSecret] = ()
) -> tuple[NamedSecret, ...]:
    """Every secret known now, one name per value (environment names first, then auth.json, then
    configured keys), longest value first so that a key containing another is masked whole."""
    found: list[NamedSecret] = [NamedSecret(name, value) for name, value in env.items() if is_secret_env_name(name)]
    if runtime is not None:
        found += _auth_secrets(runtime.auth, env)
        for provider, raw in runtime.configured_credentials():
            found += (NamedSecret(provider, value) for value in resolved_values(raw, env))
    found += extra
    named: dict[str, str] = {}
    for secret in found:
        value = secret.value.strip()
        if len(value) >= MIN_SECRET_LENGTH and value not in named:
            named[value] = secret.name
    return tuple(
        NamedSecret(name, value) for value, name in sorted(named.items(), key=lambda item: (-len(item[0]), item[0]))
    )


__all__ = ["MIN_SECRET_LENGTH", "NamedSecret", "collect_secrets", "is_secret_env_name", "resolved_values"]
