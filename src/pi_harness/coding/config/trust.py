"""Project trust: a gate on loading project resources.

Trust never changes what tools may do; it decides whether ``.pi/`` configuration, extensions,
skills, prompts, themes, SYSTEM.md files and project ``.agents/skills`` are loaded. Decision
order: ``--approve``/``--no-approve`` > ``project_trust`` extension handlers > the saved decision
in ``trust.json`` > the ``defaultProjectTrust`` setting (default ``ask``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pi_harness.coding.config.file_lock import atomic_write, locked
from pi_harness.coding.config.paths import TRUST_FILE, find_git_root, project_dir

PROTECTED_PROJECT_ENTRIES = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)

TrustSetting = Literal["ask", "always", "never"]
DecisionSource = Literal["cli", "extension", "saved", "default", "none", "sdk", "prompt"]


@dataclass(frozen=True)
class TrustDecision:
    """``trusted`` is None when the answer is still "ask" (interactive mode prompts)."""

    trusted: bool | None
    source: DecisionSource
    resources: tuple[str, ...] = ()

    @property
    def needs_prompt(self) -> bool:
        return self.trusted is None and bool(self.resources)

    def effective(self, interactive: bool) -> bool:
        """Whether protected resources load now; non-interactive "ask" means skip."""
        if self.trusted is not None:
            return self.trusted
        return not self.resources and not interactive


def project_agents_skill_dirs(cwd: str | Path) -> list[Path]:
    """``.agents/skills`` in cwd and its ancestors up to the git root (or ``/``), minus ``~``'s."""
    start = Path(cwd).resolve()
    stop = find_git_root(start)
    home_skills = (Path.home() / ".agents" / "skills").resolve()
    dirs: list[Path] = []
    for candidate in (start, *start.parents):
        skills = candidate / ".agents" / "skills"
        if skills.resolve() != home_skills:
            dirs.append(skills)
        if stop is not None and candidate == stop:
            break
    return dirs


def find_protected_resources(cwd: str | Path) -> list[str]:
    """Absolute paths of the protected project resources that exist."""
    found: list[str] = []
    base = project_dir(cwd)
    for name in PROTECTED_PROJECT_ENTRIES:
        path = base / name
        if path.exists():
            found.append(str(path.resolve()))
    for skills in project_agents_skill_dirs(cwd):
        if skills.is_dir():
            found.append(str(skills.resolve()))
    return found


class TrustStore:
    """``<agentDir>/trust.json``: ``{"version":1,"decisions":{<realpath>:{trusted, decidedAt}}}``."""

    def __init__(self, agent_directory: Path) -> None:
        self.path = agent_directory / TRUST_FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"version": 1, "decisions": {}}
        if not isinstance(data, dict) or not isinstance(data.get("decisions"), dict):
            return {"version": 1, "decisions": {}}
        return data

    def get(self, cwd: str | Path) -> bool | None:
        record = self._read()["decisions"].get(_key(cwd))
        if isinstance(record, dict) and isinstance(record.get("trusted"), bool):
            return bool(record["trusted"])
        return None

    def save(self, cwd: str | Path, trusted: bool) -> None:
        with locked(self.path):
            data = self._read()
            data["version"] = 1
            data["decisions"][_key(cwd)] = {
                "trusted": trusted,
                "decidedAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            }
            atomic_write(self.path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=0o600)


def _key(cwd: str | Path) -> str:
    return os.path.realpath(cwd)


ExtensionTrustHandler = Callable[[str, list[str]], Awaitable["bool | None"]]


async def decide_project_trust(
    cwd: str | Path,
    *,
    store: TrustStore,
    cli_approve: bool | None = None,
    default: str = "ask",
    ask_extensions: ExtensionTrustHandler | None = None,
) -> TrustDecision:
    """Run the decision order. ``ask_extensions(cwd, resources)`` returns the first yes/no."""
    resources = tuple(find_protected_resources(cwd))
    if not resources:
        return TrustDecision(True, "none", resources)
    if cli_approve is not None:
        return TrustDecision(cli_approve, "cli", resources)
    if ask_extensions is not None:
        answer = await ask_extensions(str(Path(cwd).resolve()), list(resources))
        if answer is not None:
            return TrustDecision(answer, "extension", resources)
    saved = store.get(cwd)
    if saved is not None:
        return TrustDecision(saved, "saved", resources)
    if default == "always":
        return TrustDecision(True, "default", resources)
    if default == "never":
        return TrustDecision(False, "default", resources)
    return TrustDecision(None, "default", resources)
