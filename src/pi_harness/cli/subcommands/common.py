"""Helpers shared by the subcommands: option parsing and settings with the trust gate applied."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_harness.coding.config.settings import SettingsManager


class UsageError(Exception):
    """Bad subcommand arguments; the message is printed as ``Error: <message>``."""


@dataclass
class CommandArgs:
    positionals: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    switches: set[str] = field(default_factory=set)


def parse_command_args(
    command: str,
    argv: Sequence[str],
    *,
    value_options: Sequence[str] = (),
    switches: Sequence[str] = (),
    aliases: dict[str, str] | None = None,
) -> CommandArgs:
    """Options named ``--x`` (values may also be written ``--x=v``); ``--`` ends options.

    Unknown options raise ``UsageError('Unknown option <opt> for "<command>".')`` (Pi's wording
    for its package commands).
    """
    names = dict(aliases or {})
    result = CommandArgs()
    index = 0
    options_ended = False
    while index < len(argv):
        arg = argv[index]
        index += 1
        if options_ended or not arg.startswith("-") or arg == "-":
            result.positionals.append(arg)
            continue
        if arg == "--":
            options_ended = True
            continue
        name, has_inline, inline = arg.partition("=")
        name = names.get(name, name)
        if name in value_options:
            if has_inline:
                result.values[name] = inline
            elif index < len(argv):
                result.values[name] = argv[index]
                index += 1
            else:
                raise UsageError(f"Missing value for {name}")
        elif name in switches and not has_inline:
            result.switches.add(name)
        else:
            raise UsageError(f'Unknown option {arg} for "{command}".')
    return result


@dataclass(frozen=True)
class ProjectTrust:
    trusted: bool
    reason: str  # "saved", "default", "no project settings"


def project_trust(cwd: Path, agent_directory: Path) -> ProjectTrust:
    """Whether project settings apply to a subcommand, which cannot ask.

    A saved decision in trust.json wins; otherwise only ``defaultProjectTrust: "always"`` trusts,
    as in the other non-interactive modes.
    """
    from pi_harness.coding.config.paths import SETTINGS_FILE, project_dir
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.config.trust import TrustStore

    if not (project_dir(cwd) / SETTINGS_FILE).exists():
        return ProjectTrust(False, "no project settings")
    saved = TrustStore(agent_directory).get(cwd)
    if saved is not None:
        return ProjectTrust(saved, "saved")
    global_only = SettingsManager(agent_directory / SETTINGS_FILE, None, project_trusted=False)
    return ProjectTrust(global_only.values.default_project_trust == "always", "default")


def load_settings(cwd: Path | None = None, agent_directory: Path | None = None) -> tuple[SettingsManager, ProjectTrust]:
    from pi_harness.coding.config.paths import agent_dir
    from pi_harness.coding.config.settings import SettingsManager

    base = Path(cwd) if cwd is not None else Path(os.getcwd())
    directory = agent_dir(agent_directory)
    trust = project_trust(base, directory)
    return SettingsManager.create(base, directory, project_trusted=trust.trusted), trust
