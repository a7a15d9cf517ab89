"""Agent definitions: markdown files with a YAML front matter.

::

    ---
    name: scout
    description: Fast, read-only reconnaissance of a codebase
    tools: read, grep, find, ls
    model: anthropic/claude-haiku-4-5
    ---
    You are a scout. Find the files relevant to the task and report them briefly.

``name`` and ``description`` are required; ``tools`` (a comma-separated string or a list) and
``model`` are optional; the body is appended to the child's system prompt. User agents live in
``<agentDir>/agents/``, project agents in the nearest ``.pi/agents/`` above the working directory.
Project agents come from the repository, so they are only used when asked for (``agentScope``
``"project"`` or ``"both"``, where a project agent replaces a user agent of the same name).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from pi_harness.coding.config.paths import agent_dir

AgentScope = Literal["user", "project", "both"]
AgentSource = Literal["user", "project"]


@dataclass(frozen=True)
class AgentConfig:
    name: str
    description: str
    system_prompt: str
    source: AgentSource
    file_path: str
    tools: tuple[str, ...] | None = None
    model: str | None = None


@dataclass(frozen=True)
class AgentDiscovery:
    agents: list[AgentConfig]
    project_agents_dir: str | None


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(metadata, body)``; text without a front matter has empty metadata."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n") == "---":
            try:
                metadata = yaml.safe_load("".join(lines[1:index])) or {}
            except yaml.YAMLError:
                return {}, text
            body = "".join(lines[index + 1 :])
            return (metadata if isinstance(metadata, dict) else {}), body
    return {}, text


def _tools(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
    elif isinstance(value, list):
        names = [str(part).strip() for part in value]
    else:
        return None
    return tuple(name for name in names if name) or None


def parse_agent(path: Path, source: AgentSource) -> AgentConfig | None:
    """The agent in ``path``, or ``None`` when it cannot be read or lacks name/description."""
    try:
        metadata, body = split_front_matter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    name, description = metadata.get("name"), metadata.get("description")
    if not isinstance(name, str) or not name.strip() or not isinstance(description, str):
        return None
    model = metadata.get("model")
    return AgentConfig(
        name=name.strip(),
        description=description.strip(),
        system_prompt=body.strip(),
        source=source,
        file_path=str(path),
        tools=_tools(metadata.get("tools")),
        model=model.strip() if isinstance(model, str) and model.strip() else None,
    )


def load_agents_from(directory: Path | None, source: AgentSource) -> list[AgentConfig]:
    if directory is None or not directory.is_dir():
        return []
    agents = (parse_agent(path, source) for path in sorted(directory.glob("*.md")) if path.is_file())
    return [agent for agent in agents if agent is not None]


def nearest_project_agents_dir(cwd: str) -> Path | None:
    current = Path(cwd).resolve()
    for directory in (current, *current.parents):
        candidate = directory / ".pi" / "agents"
        if candidate.is_dir():
            return candidate
    return None


def discover_agents(cwd: str, scope: AgentScope) -> AgentDiscovery:
    """The agents visible in ``scope``; with ``both`` a project agent replaces a user one."""
    project_dir = nearest_project_agents_dir(cwd)
    by_name: dict[str, AgentConfig] = {}
    if scope in ("user", "both"):
        for agent in load_agents_from(agent_dir() / "agents", "user"):
            by_name[agent.name] = agent
    if scope in ("project", "both"):
        for agent in load_agents_from(project_dir, "project"):
            by_name[agent.name] = agent
    return AgentDiscovery(list(by_name.values()), str(project_dir) if project_dir is not None else None)


def describe_agents(agents: list[AgentConfig]) -> str:
    if not agents:
        return "none"
    return ", ".join(f"{agent.name} ({agent.source})" for agent in agents)
