"""``searchTools()``, ``describeTool()`` and ``describeNamespace()`` over the tools a script may call.

Search ranks by BM25 over each tool's name (split at ``_``, ``-`` and case changes) and description;
namespaces are MCP servers (``mcp__<server>``), looked up by ``mcp__dev-radius``, ``mcp__dev_radius``,
``dev-radius`` or ``dev_radius``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from pi_harness.extensions_builtin.codemode.declarations import identifier, sample

DEFAULT_LIMIT = 8
_WORD = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w.lower() for w in _WORD.findall(spaced)]


def namespace_of(name: str) -> str | None:
    if not name.startswith("mcp__"):
        return None
    server, sep, _tool = name[5:].partition("__")
    return f"mcp__{server}" if sep and server else None


def _same_namespace(namespace: str, query: str) -> bool:
    bare = namespace[5:] if namespace.startswith("mcp__") else namespace
    wanted = identifier(query)
    return any(identifier(candidate) == wanted for candidate in (namespace, bare))


def search(
    tools: Sequence[Mapping[str, object]], query: str, limit: int, namespace: str | None
) -> list[dict[str, str]]:
    pool = [
        t
        for t in tools
        if namespace is None or ((_ns := namespace_of(str(t["name"]))) and _same_namespace(_ns, namespace))
    ]
    docs = [_words(str(t["name"])) + _words(str(t.get("description", ""))) for t in pool]
    terms = _words(query)
    if not pool or not terms:
        return [{"name": str(t["name"]), "description": str(t.get("description", ""))} for t in pool[:limit]]
    average = sum(len(d) for d in docs) / len(docs) or 1.0
    frequency = Counter(term for d in docs for term in set(d))
    scored: list[tuple[float, int]] = []
    for index, doc in enumerate(docs):
        counts = Counter(doc)
        score = 0.0
        for term in terms:
            if not counts[term]:
                continue
            idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            tf = counts[term] * 2.2 / (counts[term] + 1.2 * (0.25 + 0.75 * len(doc) / average))
            score += idf * tf
        if score > 0:
            scored.append((score, index))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [
        {"name": str(pool[i]["name"]), "description": str(pool[i].get("description", ""))} for _s, i in scored[:limit]
    ]


def describe_tool(tools: Sequence[Mapping[str, object]], name: str) -> dict[str, str] | None:
    for tool in tools:
        tool_name = str(tool["name"])
        if name in (tool_name, identifier(tool_name)):
            description = str(tool.get("description", ""))
            declaration = sample(tool_name, description, tool.get("parameters"), tool.get("output_schema"))
            return {"name": tool_name, "description": description, "declaration": declaration}
    return None


def _namespace(tool: Mapping[str, object]) -> Mapping[str, object] | None:
    """The tool's namespace as the session reports it, else ``mcp__<server>`` from its name."""
    value = tool.get("namespace")
    if isinstance(value, Mapping) and isinstance(value.get("name"), str):
        return value
    derived = namespace_of(str(tool["name"]))
    return {"name": derived} if derived else None


def _names_namespace(namespace: Mapping[str, object], query: str) -> bool:
    aliases = namespace.get("aliases")
    names = (
        [str(namespace["name"]), *(str(a) for a in aliases if isinstance(a, str))]
        if isinstance(aliases, (list, tuple))
        else [str(namespace["name"])]
    )
    return any(_same_namespace(candidate, query) for candidate in names)


def describe_namespace(tools: Sequence[Mapping[str, object]], name: str) -> dict[str, object] | None:
    """``{name, description?, instructions?, tools}`` (tools as script identifiers), or None."""
    found: Mapping[str, object] | None = None
    members: list[str] = []
    for tool in tools:
        namespace = _namespace(tool)
        if namespace is None or not _names_namespace(namespace, name):
            continue
        found = found or namespace
        members.append(identifier(str(tool["name"])))
    if found is None:
        return None
    out: dict[str, object] = {"name": found["name"]}
    for key in ("description", "instructions"):
        value = found.get(key)
        if isinstance(value, str) and value:
            out[key] = value
    out["tools"] = members
    return out
