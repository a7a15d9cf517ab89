"""Deciding project trust before a session starts, asking extension handlers too.

The stored decisions and their order live in ``pi_harness.coding.config.trust``; this module
adds the ``project_trust`` extension event (see security.md and extensions.md).

Order: ``--approve``/``--no-approve`` > ``project_trust`` handlers > the saved decision >
``defaultProjectTrust``. Only user-level extensions (``<agentDir>/extensions``, the global
``extensions`` setting and global packages) and CLI/SDK extensions may answer: project extensions are themselves
behind the gate. They are imported only when a decision is actually needed, into a runner that is
discarded afterwards; a failing handler is reported and skipped.

The SDK has no trust step of its own (``project_trusted`` defaults to true, as in Pi); hosts that
want the CLI's semantics call this first and pass ``decision.effective(interactive)`` on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from pi_harness.coding.config.paths import SETTINGS_FILE
from pi_harness.coding.config.paths import agent_dir as resolve_agent_dir
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.config.trust import TrustDecision, TrustStore, decide_project_trust
from pi_harness.coding.extensions.loader import SCRIPT_SUFFIXES
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.coding.packages.resolved import has_configured_packages
from pi_harness.coding.resources.loader import apply_path_filters, discover_extension_entries
from pi_harness.coding.session_runtime.services import ExtensionFactoryEntry, factory_path


def user_extension_paths(agent_directory: Path, settings: SettingsManager, cwd: Path | None = None) -> list[str]:
    """``<agentDir>/extensions`` entries, the global ``extensions`` setting and the extensions of
    global packages (never the project's)."""
    discovered = discover_extension_entries(agent_directory / "extensions", [])
    patterns = [(value, base) for value, base, scope in settings.path_entries("extensions") if scope == "global"]
    kept, added = apply_path_filters(discovered, patterns)
    # Python extensions of global packages; TypeScript ones are left to the session's loader
    # (this pass treats a load failure as fatal).
    resources = []
    if has_configured_packages(settings, with_project=False):
        from pi_harness.coding.packages.manager import PackageManager
        from pi_harness.coding.packages.resolve import resolve_packages

        manager = PackageManager(cwd or Path.cwd(), agent_directory, settings)
        resources = resolve_packages(manager, with_project=False).resources
    packaged = [
        r.path
        for r in resources
        if r.scope == "user" and r.enabled and r.kind == "extensions" and not r.path.endswith(SCRIPT_SUFFIXES)
    ]
    paths: list[str] = []
    for path in [*added, *kept, *packaged]:
        text = str(path)
        if text not in paths:
            paths.append(text)
    return paths


async def resolve_project_trust(
    cwd: str | os.PathLike[str],
    *,
    agent_dir: str | os.PathLike[str] | None = None,
    approve: bool | None = None,
    extension_paths: Sequence[str] = (),
    extension_factories: Sequence[ExtensionFactoryEntry] = (),
    settings: SettingsManager | None = None,
    no_extensions: bool = False,
    on_error: Callable[[ExtensionErrorRecord], None] | None = None,
) -> TrustDecision:
    """Decide whether the project's protected resources may load.

    ``approve`` is ``--approve`` (True) / ``--no-approve`` (False). The result's ``trusted`` is
    ``None`` when the answer is still "ask"; ``decision.effective(interactive)`` gives what a
    mode without a prompt must do (only an explicit yes loads).
    """
    directory = resolve_agent_dir(agent_dir)
    if settings is None:
        settings = SettingsManager(directory / SETTINGS_FILE, None, project_trusted=False)
    cwd_path = Path(cwd).resolve()

    async def ask_extensions(project: str, resources: list[str]) -> bool | None:
        runner = ExtensionRunner()
        if on_error is not None:
            runner.on_error(on_error)
        for index, entry in enumerate(extension_factories):
            path, factory = factory_path(entry, index)
            try:
                await runner.load_factory(factory, path)
            except Exception as error:
                runner.report(path, "project_trust", error)
        paths = [str((cwd_path / p).resolve()) for p in extension_paths]
        if not no_extensions:
            paths += user_extension_paths(directory, settings, cwd_path)
        for failure in await runner.load_paths(paths):
            runner.report(failure.path, "project_trust", failure.error)
        return await runner.emit_project_trust(project, resources)

    return await decide_project_trust(
        cwd_path,
        store=TrustStore(directory),
        cli_approve=approve,
        default=settings.values.default_project_trust,
        ask_extensions=ask_extensions,
    )


__all__ = ["resolve_project_trust", "user_extension_paths"]
