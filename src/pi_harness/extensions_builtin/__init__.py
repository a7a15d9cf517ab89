"""Built-in extensions, written only against the public extension API (docs/extensions.md).

``BUILTIN_EXTENSIONS`` maps the settings names to factories with default options, for
``ExtensionRunner(builtin_factories=...)``. A host that knows more (project trust, effective
settings) builds the registry with ``builtin_extensions(...)`` instead. ``DEFAULT_ENABLED`` lists
the built-ins that load unless disabled (``--no-mcp``, or ``"extensions": ["!builtin:mcp"]``).

* ``builtin:mcp`` — MCP servers from ``<agentDir>/mcp.json`` and, for a trusted project,
  ``.pi/mcp.json``, as tools named ``<server>__<tool>``; ``pi mcp list`` is ``mcp.mcp_list``.
* ``builtin:tool-search`` — the ``tool_search`` tool, which finds and loads tools not declared to
  the model (MCP tools with ``deferred`` exposure).
* ``builtin:codemode`` — the ``codemode`` tool (JavaScript in a QuickJS sandbox calling the other
  tools), registered inactive; ``builtin:mcp`` turns it on for servers with ``codemode`` exposure.
* ``builtin:llama.cpp`` — local OpenAI-compatible servers (llama.cpp, Ollama, LM Studio, vLLM)
  registered as providers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pi_harness.coding.extensions import ExtensionFactory
from pi_harness.extensions_builtin.codemode import CodemodeOptions, create_codemode_extension
from pi_harness.extensions_builtin.local_models import LocalModelsOptions, create_local_models_extension
from pi_harness.extensions_builtin.local_models.extension import SettingsSource
from pi_harness.extensions_builtin.mcp.front import create_mcp_extension
from pi_harness.extensions_builtin.mcp.options import McpOptions
from pi_harness.extensions_builtin.tool_search import create_tool_search_extension

MCP = "builtin:mcp"
LOCAL_MODELS = "builtin:llama.cpp"
TOOL_SEARCH = "builtin:tool-search"
CODEMODE = "builtin:codemode"
DEFAULT_ENABLED: frozenset[str] = frozenset({MCP, LOCAL_MODELS, TOOL_SEARCH, CODEMODE})


def builtin_extensions(
    *,
    project_trusted: bool | Callable[[], bool] = False,
    local_models_settings: SettingsSource = None,
    agent_dir: Path | None = None,
    codemode_settings: Callable[[], object] | None = None,
) -> dict[str, ExtensionFactory]:
    """The built-in factories configured by the host (trust decision, effective settings)."""
    return {
        MCP: create_mcp_extension(McpOptions(agent_dir=agent_dir, project_trusted=project_trusted)),
        LOCAL_MODELS: create_local_models_extension(
            LocalModelsOptions(settings=local_models_settings, agent_dir=agent_dir)
        ),
        TOOL_SEARCH: create_tool_search_extension(),
        CODEMODE: create_codemode_extension(CodemodeOptions(settings=codemode_settings)),
    }


# Defaults: global configuration only (a project's .pi/mcp.json needs the host's trust decision).
BUILTIN_EXTENSIONS: dict[str, ExtensionFactory] = builtin_extensions()

__all__ = [
    "BUILTIN_EXTENSIONS",
    "CODEMODE",
    "DEFAULT_ENABLED",
    "LOCAL_MODELS",
    "MCP",
    "TOOL_SEARCH",
    "builtin_extensions",
]
