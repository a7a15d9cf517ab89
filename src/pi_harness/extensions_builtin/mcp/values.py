"""Values of ``env`` and ``headers`` entries, resolved when a server connects (as Pi does).

A value that starts with ``!`` is a shell command run at connect time; its trimmed output is the
value. Any other value is a template: ``${NAME}`` and ``$NAME`` read environment variables, ``$$``
and ``$!`` stand for ``$`` and ``!``, the rest is literal. A variable that is unset or empty, or a
command that fails or prints nothing, fails the connection with a message naming what was missing:
a server started without its credential would only fail later, less clearly.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping

COMMAND_TIMEOUT_S = 10.0
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class UnresolvedValue(ValueError):
    pass


def _template(value: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    out: list[str] = []
    missing: list[str] = []
    index = 0

    def variable(name: str) -> None:
        found = env.get(name)
        if found:
            out.append(found)
        elif name not in missing:
            missing.append(name)

    while index < len(value):
        dollar = value.find("$", index)
        if dollar < 0:
            out.append(value[index:])
            break
        out.append(value[index:dollar])
        following = value[dollar + 1 : dollar + 2]
        if following in ("$", "!"):
            out.append(following)
            index = dollar + 2
            continue
        if following == "{":
            end = value.find("}", dollar + 2)
            if end < 0:
                out.append("$")
                index = dollar + 1
                continue
            name = value[dollar + 2 : end]
            if _NAME.fullmatch(name):
                variable(name)
            else:
                out.append(value[dollar : end + 1])
            index = end + 1
            continue
        match = _NAME.match(value, dollar + 1)
        if match:
            variable(match.group(0))
            index = match.end()
            continue
        out.append("$")
        index = dollar + 1
    return "".join(out), missing


def resolve_value(value: str, description: str, env: Mapping[str, str] | None = None) -> str:
    """The value to use, or ``UnresolvedValue`` saying what is missing."""
    if value.startswith("!"):
        try:
            done = subprocess.run(
                value[1:], shell=True, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            done = None
        output = done.stdout.strip() if done is not None and done.returncode == 0 else ""
        if not output:
            raise UnresolvedValue(f"Failed to resolve {description} from shell command: {value[1:]}")
        return output
    resolved, missing = _template(value, os.environ if env is None else env)
    if len(missing) == 1:
        raise UnresolvedValue(f"Failed to resolve {description} from environment variable: {missing[0]}")
    if missing:
        raise UnresolvedValue(f"Failed to resolve {description} from environment variables: {', '.join(missing)}")
    return resolved


def resolve_map(values: Mapping[str, str], description: str, kind: str) -> dict[str, str]:
    return {key: resolve_value(value, f'{description} {kind} "{key}"') for key, value in values.items()}
