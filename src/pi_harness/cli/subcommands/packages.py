"""``pi install|remove|uninstall|update|list``: Pi's package commands (docs/packages.md).

Usage lines, messages and exit codes are Pi 1.4.0's: success prints ``Installed <source>``
(``Removed``, ``Updated``) and exits 0; bad arguments, an untrusted project for ``-l``, a source
with no match and a failed npm/git/pip run print one line on stderr and exit 1. ``pi update``
without a target would update Pi itself; pi-harness is updated with pip, so that part says so
and exits 1 (``--extensions`` updates the packages).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pi_harness.coding.packages import PackageManager

Command = Literal["install", "remove", "update", "list"]
UpdateTarget = Literal["self", "extensions", "models", "all"]

_COMMANDS: dict[str, Command] = {
    "install": "install",
    "remove": "remove",
    "uninstall": "remove",
    "update": "update",
    "list": "list",
}

_USAGE: dict[Command, str] = {
    "install": "pi install <source> [-l] [--approve|--no-approve]",
    "remove": "pi remove <source> [-l] [--approve|--no-approve]",
    "update": "pi update [source|self|pi] [--self|--extensions|--models|--all] [--extension <source>] "
    "[--approve|--no-approve] [--force]",
    "list": "pi list [--approve|--no-approve]",
}

_TRUST_OPTIONS = """  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command
"""

_HELP: dict[Command, str] = {
    "install": f"""Install a package and record it in settings.

Options:
  -l, --local       Install for this project (.pi/settings.json)
{_TRUST_OPTIONS}
Sources:
  pi install npm:@scope/name[@version]
  pi install git:github.com/user/repo[@ref]
  pi install git:git@github.com:user/repo
  pi install https://github.com/user/repo
  pi install ssh://git@github.com/user/repo
  pi install git:file:///path/to/repo.git
  pi install pip:name[==version]
  pi install ./local/path
""",
    "remove": f"""Remove a package and its entry in settings.
Alias: pi uninstall <source> [-l]

Options:
  -l, --local       Remove from this project's settings (.pi/settings.json)
{_TRUST_OPTIONS}""",
    "update": f"""Update installed packages (pi-harness itself is updated with pip).

Options:
  --self                  Update pi-harness only (the default without a target)
  --extensions            Update installed packages only
  --models                Refresh model catalogs only
  --all                   Update pi-harness and installed packages
  --extension <source>    Update one package only
{_TRUST_OPTIONS.replace("     ", "           ", 2)}  --force                 Reinstall even when up to date

Pinned npm and pip versions are never changed; a git package with a ref stays on that ref.
""",
    "list": f"""List the packages in the global and project settings.

Options:
{_TRUST_OPTIONS}""",
}

_SELF_UPDATE = (
    "error: pi cannot self-update this installation.\n"
    "pi-harness is a Python package: update it with the tool that installed it, "
    "for example `pip install --upgrade pi-harness`."
)


@dataclass
class _Options:
    command: Command
    source: str | None = None
    local: bool = False
    approve: bool | None = None
    help: bool = False
    error: str | None = None
    usage_hint: bool = False  # print "Use pi --help ..." rather than "Usage: ..."
    target: UpdateTarget = "self"
    skipped_note: bool = False


def _parse(command: Command, argv: Sequence[str]) -> _Options:
    opts = _Options(command)
    flags: set[str] = set()
    extension: str | None = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg in ("-h", "--help"):
            opts.help = True
        elif arg in ("-l", "--local") and command in ("install", "remove"):
            opts.local = True
        elif arg in ("-a", "--approve"):
            opts.approve = True
        elif arg in ("-na", "--no-approve"):
            opts.approve = False
        elif command == "update" and arg in ("--self", "--extensions", "--models", "--all", "--force"):
            flags.add(arg)
        elif command == "update" and arg == "--extension":
            value = argv[index] if index < len(argv) else ""
            if not value or value.startswith("-"):
                opts.error = opts.error or f"Missing value for {arg}."
            elif extension is not None:
                opts.error = opts.error or "--extension can only be provided once"
                index += 1
            else:
                extension = value
                index += 1
        elif arg.startswith("-"):
            if opts.error is None:
                opts.error, opts.usage_hint = f'Unknown option {arg} for "{command}".', True
        elif opts.source is None:
            opts.source = arg
        else:
            opts.error = opts.error or f"Unexpected argument {arg}."
    if command == "update" and opts.error is None:
        _update_target(opts, flags, extension)
    return opts


def _update_target(opts: _Options, flags: set[str], extension: str | None) -> None:
    source = opts.source
    if "--all" in flags and (flags & {"--self", "--extensions", "--models"} or extension):
        opts.error = "--all cannot be combined with --self, --extensions, --models, or --extension"
    elif "--all" in flags and source:
        opts.error = "--all cannot be combined with a positional source"
    elif "--models" in flags:
        if flags & {"--self", "--extensions"} or extension:
            opts.error = "--models cannot be combined with --self, --extensions, --all, or --extension"
        elif source:
            opts.error = "--models cannot be combined with a positional source"
        opts.target = "models"
    elif extension is not None:
        if flags & {"--self", "--extensions"}:
            opts.error = "--extension cannot be combined with --self, --extensions, or --all"
        elif source:
            opts.error = "--extension cannot be combined with a positional source"
        opts.target, opts.source = "extensions", extension
    elif source in ("self", "pi"):
        opts.target, opts.source = ("all" if "--extensions" in flags else "self"), None
    elif source:
        if flags & {"--self", "--extensions"}:
            opts.error = "positional update targets cannot be combined with --self, --extensions, or --all"
        opts.target = "extensions"
    elif "--all" in flags or {"--self", "--extensions"} <= flags:
        opts.target = "all"
    elif "--extensions" in flags:
        opts.target = "extensions"
    else:
        opts.skipped_note = "--self" not in flags


def _fail(message: str, hint: str | None = None) -> int:
    print(message, file=sys.stderr)
    if hint:
        print(hint, file=sys.stderr)
    return 1


def run_package_command(name: str, argv: Sequence[str]) -> int:
    command = _COMMANDS.get(name)
    if command is None:
        return _fail(f"Unknown package command {name}.")
    opts = _parse(command, argv)
    usage = _USAGE[command]
    if opts.help:
        print(f"Usage:\n  {usage}\n\n{_HELP[command]}", end="")
        return 0
    if opts.error is not None:
        hint = f'Use "pi --help" or "{usage}".' if opts.usage_hint else f"Usage: {usage}"
        return _fail(opts.error, hint)
    if command in ("install", "remove") and not opts.source:
        return _fail(f"Missing {command} source.", f"Usage: {usage}")
    if command == "update" and opts.target == "models":
        return _fail(
            "Error: pi-harness has no remote model catalogs to refresh; models come from its catalogue and models.json."
        )
    return _run(opts)


def _trusted(cwd: Path, agent_directory: Path, opts: _Options) -> bool:
    if opts.approve is not None:
        return opts.approve
    from pi_harness.coding.config.trust import TrustStore

    if opts.command == "update":
        return TrustStore(agent_directory).get(cwd) is True
    import asyncio

    from pi_harness.coding.session_runtime.project_trust import resolve_project_trust

    def warn(record: object) -> None:
        print(f"Warning: {getattr(record, 'error', record)}", file=sys.stderr)

    decision = asyncio.run(resolve_project_trust(cwd, agent_dir=agent_directory, on_error=warn))
    return decision.effective(interactive=False)


def _run(opts: _Options) -> int:
    from pi_harness.coding.config.paths import agent_dir
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.packages import PackageError, PackageManager, SourceError
    from pi_harness.coding.packages.process import child_output

    cwd = Path(os.getcwd()).resolve()
    directory = agent_dir()
    trusted = _trusted(cwd, directory, opts)
    if opts.local and not trusted:
        return _fail("Project is not trusted. Use --approve to modify local package config.")
    settings = SettingsManager.create(cwd, directory, project_trusted=trusted)
    for diagnostic in settings.diagnostics:
        print(f"Warning (package command): {diagnostic}", file=sys.stderr)
    manager = PackageManager(cwd, directory, settings, on_progress=lambda line: print(line, flush=True))
    source = opts.source or ""
    try:
        with child_output(sys.stdout):
            return _dispatch(manager, opts, source)
    except (PackageError, SourceError, RuntimeError) as exc:
        return _fail(f"Error: {exc}")


def _dispatch(manager: PackageManager, opts: _Options, source: str) -> int:
    if opts.command == "install":
        manager.install(source, local=opts.local)
        print(f"Installed {source}")
    elif opts.command == "remove":
        if not manager.remove(source, local=opts.local):
            return _fail(f"No matching package found for {source}")
        print(f"Removed {source}")
    elif opts.command == "list":
        _print_list(manager)
    else:
        return _update(manager, opts)
    return 0


def _update(manager: PackageManager, opts: _Options) -> int:
    if opts.skipped_note:
        print("Extensions are skipped. Run pi update --extensions to update extensions.")
    if opts.target in ("extensions", "all"):
        manager.update(opts.source)
        print(f"Updated {opts.source}" if opts.source else "Updated packages")
    if opts.target in ("self", "all"):
        return _fail(_SELF_UPDATE)
    return 0


def _print_list(manager: PackageManager) -> None:
    packages = manager.list_configured()
    if not packages:
        print("No packages installed.")
        return
    for scope, title in (("user", "User packages:"), ("project", "Project packages:")):
        chosen = [p for p in packages if p.scope == scope]
        if not chosen:
            continue
        if scope == "project" and any(p.scope == "user" for p in packages):
            print()
        print(title)
        for package in chosen:
            print(f"  {package.source} (filtered)" if package.filtered else f"  {package.source}")
            if package.installed_path:
                print(f"    {package.installed_path}")


__all__ = ["run_package_command"]
