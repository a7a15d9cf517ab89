"""Structural comparison of a scenario's output with its golden.

``compare(golden, ours)`` returns the differences as sorted one-line strings. Each line starts
with where it was found (``run 1``, ``run 1 response p1``, ``session 1``, ``request 2``), so the
same difference always gives the same line: the known-differences file lists these lines.

What is compared (both sides normalised, see _normalize):

* each run: the exit code, stderr (exactly), stdout of print runs (exactly), the client's errors
  (timeouts waiting for an event, no exit);
* json and rpc runs, the events:
  - their order, as a sequence of labels: the event type, with the message role for
    ``message_*`` events and the assistant event type for ``message_update``. Runs of the same
    ``message_update`` label count as one, and ``tool_execution_update`` is left out of the order:
    how many of them come, and where, depends on timing. RPC responses are left out too (they are
    compared by id, below): where they fall among the events depends on timing as well;
  - per label, the set of field paths seen in any event with that label, with the kind of value
    at each path (see :func:`shape`);
* rpc runs, the responses, by command id: whether one came, its ``command`` and ``success``,
  and its field paths;
* session files: how many; per file, the order of entries (type, message role, and the parent
  when it is not the entry just before) and the field paths per entry label;
* requests: how many; per request, the endpoint, the conversation (roles or item types, with
  the types of their content blocks), the request parameters (every top-level value that is not
  the conversation or the tools, compared exactly), the tools (names in order, each one's
  parameter schema without descriptions), where ``cache_control`` markers are, and the field
  paths of the conversation items.

Timing: the partial assistant message in ``message_start`` is compared without the fields that
fill in while it streams (content, usage, response id), and the running ``usage`` of
``message_update`` only for being there: what they hold depends on how far the stream had got.

Kinds of value (:func:`kind`): the values of ``DISCRIMINATORS`` (types, roles, stop reasons,
queue modes, flags) and of ``EXACT`` (error texts) are compared as they are; other strings by kind
(``str``, ``""``, a placeholder such as ``<uuid-v7>``, an XML-tagged block ``str<tools>…</tools>``),
numbers as ``number``, empty lists and objects apart from full ones.

Grouping: complete messages are taken out of the records that carry them and compared once per
role (:func:`split_record`); a difference found in three or more event types of a run is one line
(``run 1 all events but [...]: ...``); an order difference that repeats is one line listing the
places.

Not compared: wording of prompts, tool descriptions, tool output and other free text (ours is
written in our own words), token counts, costs and sizes (by kind only) and the count of the
timing-dependent events named above.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from typing import Any

# Keys whose values are compared exactly: they say what kind of thing a record is or how it ended.
DISCRIMINATORS = {
    "type",
    "role",
    "stopReason",
    "command",
    "success",
    "isError",
    "willRetry",
    "aborted",
    "reason",
    "disposition",
    "source",
    "scope",
    "origin",
    "toolName",
    "api",
    "provider",
    "thinkingLevel",
    "cancelled",
    "customType",
    "finish_reason",
    # session state as get_state reports it
    "steeringMode",
    "followUpMode",
    "isStreaming",
    "isCompacting",
    "autoCompactionEnabled",
    "autoRetryEnabled",
    "levels",
    "exitCode",
    "truncated",
}
# Keys whose (normalised) string values are compared exactly: user-visible error text.
EXACT = {"errorMessage", "finalError", "error"}
# A whole string that is a placeholder of _normalize: its kind is the placeholder's name.
PLACEHOLDER_RE = re.compile(r"^<([a-z-]+?)(?:-v\d)?(?:#\d+|:\d+)?>$")
UUID_KIND_RE = re.compile(r"^<uuid-v(\d)#\d+>$")
TAGGED_RE = re.compile(r"^<([a-z_][a-z0-9_-]*)>\n")  # an XML-tagged block: "<tools>\n…</tools>"
MAX_SHOWN = 160
# Fields of an assistant message that fill in while it streams: left out of message_start.
STREAMING_FIELDS = {"content", "usage", "responseId", "responseModel"}


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def kind(value: Any, key: str | None) -> str:
    """The signature of a leaf: its value for discriminators and exact keys, else its kind."""
    if key in DISCRIMINATORS and (isinstance(value, str | bool | int) or value is None):
        return json.dumps(value)
    if key in EXACT and isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        if value == "":
            return '""'
        uuid = UUID_KIND_RE.match(value)
        if uuid:
            return f"<uuid-v{uuid.group(1)}>"
        placeholder = PLACEHOLDER_RE.match(value)
        if placeholder:
            return f"<{placeholder.group(1)}>"
        tagged = TAGGED_RE.match(value)
        if tagged and value.rstrip().endswith(f"</{tagged.group(1)}>"):
            return f"str<{tagged.group(1)}>…</{tagged.group(1)}>"
        return "str"
    if isinstance(value, list):
        return "[]" if not value else "list"
    if isinstance(value, dict):
        return "{}" if not value else "object"
    return type(value).__name__


def _element(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("type", "role"):
            if isinstance(item.get(key), str):
                return f"[{item[key]}]"
    return "[]"


def shape(
    value: Any, prefix: str = "", key: str | None = None, out: dict[str, set[str]] | None = None
) -> dict[str, set[str]]:
    """Every field path of ``value`` with the kinds of value found there.

    Paths are dotted keys; list elements are ``[]``, or ``[T]`` for objects whose ``type`` (or
    ``role``) is ``T``, so that the fields of a text block and of a tool-call block stay apart:
    ``message.content[toolCall].arguments.path``.
    """
    out = {} if out is None else out
    out.setdefault(prefix or "<root>", set()).add(kind(value, key))
    if isinstance(value, dict):
        for child_key, child in value.items():
            shape(child, f"{prefix}.{child_key}" if prefix else child_key, child_key, out)
    elif isinstance(value, list):
        for item in value:
            shape(item, f"{prefix}{_element(item)}", key, out)
    return out


def _merge(target: dict[str, set[str]], source: dict[str, set[str]]) -> None:
    for path, kinds in source.items():
        target.setdefault(path, set()).update(kinds)


def _topmost(paths: Iterable[str]) -> list[tuple[str, int]]:
    """Collapse paths to those whose parent is not in the set, with the count of sub-paths."""
    chosen = sorted(set(paths))
    result: list[tuple[str, int]] = []
    for path in chosen:
        if result and (path.startswith(result[-1][0] + ".") or path.startswith(result[-1][0] + "[")):
            result[-1] = (result[-1][0], result[-1][1] + 1)
        else:
            result.append((path, 0))
    return result


def compare_shapes(where: str, golden: dict[str, set[str]], ours: dict[str, set[str]]) -> list[str]:
    diffs: list[str] = []
    for path, sub in _topmost(p for p in golden if p not in ours):
        more = f" (+{sub} below)" if sub else ""
        diffs.append(f"{where}: missing {path}{more}: {'|'.join(sorted(golden[path]))}")
    for path, sub in _topmost(p for p in ours if p not in golden):
        more = f" (+{sub} below)" if sub else ""
        diffs.append(f"{where}: extra {path}{more}: {'|'.join(sorted(ours[path]))}")
    for path in sorted(set(golden) & set(ours)):
        if golden[path] != ours[path]:
            g = _short("|".join(sorted(golden[path])))
            o = _short("|".join(sorted(ours[path])))
            diffs.append(f"{where}: {path}: Pi {g}, ours {o}")
    return diffs


def compare_sequences(where: str, golden: list[str], ours: list[str]) -> list[str]:
    """Order differences, one line per kind of change, listing the places where it happens."""
    if golden == ours:
        return []
    places: dict[str, list[str]] = {}
    matcher = difflib.SequenceMatcher(a=golden, b=ours, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            change = f"missing {golden[i1:i2]}"
        elif tag == "insert":
            change = f"extra {ours[j1:j2]}"
        else:
            change = f"Pi {golden[i1:i2]}, ours {ours[j1:j2]}"
        places.setdefault(change, []).append(f"#{i1} {golden[i1 - 1]}" if i1 > 0 else "the start")
    return [f"{where}: {change} after {', '.join(after)}" for change, after in places.items()]


# --- events -------------------------------------------------------------------------------------


def event_label(record: Any) -> str:
    if not isinstance(record, dict):
        return "<not an object>"
    if "__non_json__" in record:
        return "<non-JSON line>"
    kind_ = str(record.get("type"))
    if kind_ in ("message_start", "message_end") and isinstance(record.get("message"), dict):
        return f"{kind_}({record['message'].get('role')})"
    if kind_ == "message_update" and isinstance(record.get("assistantMessageEvent"), dict):
        return f"message_update({record['assistantMessageEvent'].get('type')})"
    return kind_


def _role_of(message: Any) -> str:
    return str(message.get("role")) if isinstance(message, dict) else type(message).__name__


def _stub(message: Any) -> dict[str, str]:
    return {"role": _role_of(message)}


def entry_parts(entry: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """A session entry with its message taken out: (the entry with a stub, [("message(ROLE)", m)])."""
    if isinstance(entry, dict) and entry.get("type") == "message" and isinstance(entry.get("message"), dict):
        return {**entry, "message": _stub(entry["message"])}, [
            (f"message({_role_of(entry['message'])})", entry["message"])
        ]
    return entry, []


def _tree_parts(nodes: list[Any], parts: list[tuple[str, Any]]) -> None:
    """The nodes of a ``get_tree`` answer: each node (its entry as a stub, its children as a
    count) is a part ``tree node``, its entry a part ``entry LABEL``; ``tree_order`` compares the
    shape of the tree itself."""
    for node in nodes:
        if not isinstance(node, dict):
            parts.append(("tree node", node))
            continue
        stub = dict(node)
        if "entry" in node:
            envelope, inner = entry_parts(node["entry"])
            parts.append((f"entry {entry_label(node['entry'])}", envelope))
            parts.extend(inner)
            stub["entry"] = {"type": node["entry"].get("type") if isinstance(node["entry"], dict) else None}
        if isinstance(node.get("children"), list):
            stub["children"] = "<children>" if node["children"] else []
            _tree_parts(node["children"], parts)
        parts.append(("tree node", stub))


def tree_order(nodes: Any) -> list[str]:
    """A tree as its entries in depth-first order, labelled as in ``entry_order``."""
    entries: list[Any] = []

    def walk(level: Any) -> None:
        for node in level if isinstance(level, list) else []:
            if isinstance(node, dict):
                entries.append(node.get("entry"))
                walk(node.get("children"))

    walk(nodes)
    return entry_order(entries)


def _response_parts(record: dict[str, Any]) -> list[tuple[str, Any]]:
    data = record.get("data")
    parts: list[tuple[str, Any]] = []
    if isinstance(data, dict):
        data = dict(data)
        if record.get("command") == "get_messages" and isinstance(data.get("messages"), list):
            parts += [(f"message({_role_of(m)})", m) for m in data["messages"]]
            data["messages"] = [_stub(m) for m in data["messages"]]
        if isinstance(data.get("entries"), list):
            stubs = []
            for entry in data["entries"]:
                envelope, inner = entry_parts(entry)
                parts.append((f"entry {entry_label(entry)}", envelope))
                parts += inner
                stubs.append({"type": entry.get("type") if isinstance(entry, dict) else None})
            data["entries"] = stubs
        if isinstance(data.get("tree"), list):
            _tree_parts(data["tree"], parts)
            data["tree"] = "<tree>"
        record = {**record, "data": data}
    return [(f"response {record['id']}", record), *parts]


def split_record(record: Any) -> list[tuple[str, Any]]:
    """A record cut into the parts whose field paths are compared.

    The complete messages a record carries (``message_end``, ``message_start`` but for the
    partial assistant message, ``turn_end`` and its tool results, ``agent_end``, and in RPC
    responses ``get_messages``, ``get_entries`` and ``get_tree``) are taken out and grouped by role
    as ``message(ROLE)``, so that one field missing from assistant messages is one difference,
    not one per record that carries them; in the record a message is left as ``{"role": ...}``.
    Session entries in responses are grouped as ``entry LABEL`` likewise. An RPC response is a
    part of its own, compared by id (``response ID``).
    """
    if not isinstance(record, dict):
        return [(event_label(record), record)]
    kind_ = record.get("type")
    if kind_ == "response" and "id" in record:
        return _response_parts(record)
    parts: list[tuple[str, Any]] = []
    envelope = dict(record)
    message = record.get("message")
    carries_final = kind_ in ("message_end", "turn_end") or (
        kind_ == "message_start" and _role_of(message) != "assistant"
    )
    if carries_final and isinstance(message, dict):
        parts.append((f"message({_role_of(message)})", message))
        envelope["message"] = _stub(message)
    if kind_ == "turn_end" and isinstance(record.get("toolResults"), list):
        parts += [(f"message({_role_of(m)})", m) for m in record["toolResults"]]
        envelope["toolResults"] = [_stub(m) for m in record["toolResults"]]
    if kind_ == "agent_end" and isinstance(record.get("messages"), list):
        parts += [(f"message({_role_of(m)})", m) for m in record["messages"]]
        envelope["messages"] = [_stub(m) for m in record["messages"]]
    # Snapshots of a message still streaming: what they hold depends on how far the stream got.
    if kind_ == "message_update" and "usage" in envelope:
        envelope["usage"] = "<usage so far>"
    if kind_ == "message_start" and _role_of(message) == "assistant" and isinstance(message, dict):
        envelope["message"] = {k: v for k, v in message.items() if k not in STREAMING_FIELDS}
    return [(event_label(record), envelope), *parts]


def event_order(records: list[Any]) -> list[str]:
    order: list[str] = []
    for record in records:
        if isinstance(record, dict) and record.get("type") in ("response", "tool_execution_update"):
            continue
        label = event_label(record)
        if order and label == order[-1] and label.startswith("message_update("):
            continue
        order.append(label)
    return order


def compare_run(where: str, golden: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    if golden["exit_code"] != ours["exit_code"]:
        diffs.append(f"{where}: exit code: Pi {golden['exit_code']}, ours {ours['exit_code']}")
    if golden["stderr"] != ours["stderr"]:
        diffs.append(f"{where}: stderr: Pi {_short(golden['stderr'])!r}, ours {_short(ours['stderr'])!r}")
    for error in ours["errors"]:
        if error not in golden["errors"]:
            diffs.append(f"{where}: client: {error}")
    if golden["mode"] == "print":
        if golden["stdout"] != ours.get("stdout"):
            diffs.append(f"{where}: stdout: Pi {_short(golden['stdout'])!r}, ours {_short(ours.get('stdout', ''))!r}")
        return diffs
    golden_records, our_records = golden["records"], ours.get("records", [])
    diffs += compare_sequences(f"{where} event order", event_order(golden_records), event_order(our_records))
    groups_golden: dict[str, dict[str, set[str]]] = {}
    groups_ours: dict[str, dict[str, set[str]]] = {}
    for records, groups in ((golden_records, groups_golden), (our_records, groups_ours)):
        for record in records:
            for label, part in split_record(record):
                _merge(groups.setdefault(label, {}), shape(part))
    per_event: dict[str, list[str]] = {}
    for label in sorted(set(groups_golden) | set(groups_ours)):
        if label not in groups_ours:
            if label == "tool_execution_update" or label.startswith(("message(", "entry ")):  # not in the order
                diffs.append(f"{where} {label}: none (Pi has some)")
            continue
        if label not in groups_golden:
            if label == "tool_execution_update" or label.startswith(("message(", "entry ")):
                diffs.append(f"{where} {label}: some (Pi has none)")
            continue
        if label.startswith("response "):
            place = f"{label}({_responses(golden_records)[label[9:]].get('command')})"
            diffs += compare_shapes(f"{where} {place}", groups_golden[label], groups_ours[label])
        elif label.startswith(("message(", "entry ")):
            diffs += compare_shapes(f"{where} {label}", groups_golden[label], groups_ours[label])
        else:
            for line in compare_shapes("", groups_golden[label], groups_ours[label]):
                per_event.setdefault(line[2:], []).append(label)
    envelopes = sorted(set(groups_golden) & set(groups_ours) - {k for k in groups_golden if not _is_event(k)})
    for change, labels in per_event.items():
        if len(labels) < 3:
            diffs += [f"{where} {label}: {change}" for label in labels]
            continue
        others = [label for label in envelopes if label not in labels]
        which = f"all events but {others}" if len(others) < len(labels) else f"events {sorted(labels)}"
        diffs.append(f"{where} {which}: {change}")
    if golden["mode"] == "rpc":
        diffs += compare_responses(where, golden_records, our_records)
    return diffs


def _is_event(label: str) -> bool:
    return not label.startswith(("message(", "entry ", "response "))


def _responses(records: list[Any]) -> dict[str, dict[str, Any]]:
    return {str(r["id"]): r for r in records if isinstance(r, dict) and r.get("type") == "response" and "id" in r}


def lookup_tree(record: dict[str, Any]) -> Any:
    data = record.get("data")
    return data.get("tree") if isinstance(data, dict) else None


def compare_responses(where: str, golden_records: list[Any], our_records: list[Any]) -> list[str]:
    diffs: list[str] = []
    golden, ours = _responses(golden_records), _responses(our_records)
    for request_id, expected in golden.items():
        place = f"{where} response {request_id}({expected.get('command')})"
        if request_id not in ours:
            diffs.append(f"{place}: none")
            continue
        g_tree, o_tree = lookup_tree(expected), lookup_tree(ours[request_id])
        if g_tree is not None or o_tree is not None:
            diffs += compare_sequences(f"{place} tree order", tree_order(g_tree), tree_order(o_tree))
    for request_id in ours:
        if request_id not in golden:
            diffs.append(f"{where} response {request_id}({ours[request_id].get('command')}): Pi gave none")
    return diffs


# --- session files ------------------------------------------------------------------------------


def entry_label(entry: Any) -> str:
    if not isinstance(entry, dict):
        return "<not an object>"
    if "__non_json__" in entry:
        return "<non-JSON line>"
    label = str(entry.get("type"))
    if label == "message" and isinstance(entry.get("message"), dict):
        label += f"({entry['message'].get('role')})"
    return label


def entry_order(entries: list[Any]) -> list[str]:
    index_of: dict[Any, int] = {}
    order: list[str] = []
    for index, entry in enumerate(entries):
        label = entry_label(entry)
        if isinstance(entry, dict) and "parentId" in entry:
            parent = entry["parentId"]
            if parent is None:
                label += "^root"
            elif index_of.get(parent) != index - 1:
                label += f"^#{index_of[parent]}" if parent in index_of else "^?"
        if isinstance(entry, dict) and "id" in entry:
            index_of[entry["id"]] = index
        order.append(label)
    return order


def compare_sessions(golden: list[list[Any]], ours: list[list[Any]]) -> list[str]:
    diffs: list[str] = []
    if len(golden) != len(ours):
        diffs.append(f"sessions: Pi wrote {len(golden)} file(s), ours {len(ours)}")
    for number, (expected, actual) in enumerate(zip(golden, ours, strict=False), 1):
        where = f"session {number}"
        diffs += compare_sequences(f"{where} entry order", entry_order(expected), entry_order(actual))
        groups_golden: dict[str, dict[str, set[str]]] = {}
        groups_ours: dict[str, dict[str, set[str]]] = {}
        for entries, groups in ((expected, groups_golden), (actual, groups_ours)):
            for entry in entries:
                envelope, parts = entry_parts(entry)
                _merge(groups.setdefault(entry_label(entry), {}), shape(envelope))
                for label, part in parts:
                    _merge(groups.setdefault(label, {}), shape(part))
        for label in sorted(set(groups_golden) & set(groups_ours)):
            diffs += compare_shapes(f"{where} {label}", groups_golden[label], groups_ours[label])
    return diffs


# --- requests -----------------------------------------------------------------------------------

CONVERSATION_KEYS = ("messages", "input", "contents")
SYSTEM_KEYS = ("system", "systemInstruction", "instructions")
NOT_PARAMS = {*CONVERSATION_KEYS, *SYSTEM_KEYS, "tools"}
GOOGLE_PART_META = {"thoughtSignature", "thought"}


def _content_types(content: Any) -> str:
    if isinstance(content, str):
        return '""' if content == "" else "str"
    if isinstance(content, list):
        names = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("type"), str):
                names.append(block["type"])
            elif isinstance(block, dict):  # a Gemini part: named by its payload key
                keys = [k for k in block if k not in GOOGLE_PART_META]
                names.append("+".join(keys) + ("(thought)" if block.get("thought") else ""))
            else:
                names.append(type(block).__name__)
        return "[" + ",".join(names) + "]"
    if content is None:
        return "null"
    return "object" if isinstance(content, dict) else type(content).__name__


def item_head(item: Any) -> str:
    if not isinstance(item, dict):
        return type(item).__name__
    if "role" in item and item.get("type") in (None, "message"):
        return str(item["role"])
    return str(item.get("type") or item.get("role") or "?")


def item_label(item: Any) -> str:
    if not isinstance(item, dict):
        return type(item).__name__
    label = item_head(item)
    for key in ("content", "parts"):
        if key in item:
            types = _content_types(item[key])
            label += types if types.startswith("[") else f":{types}"
    if item.get("tool_calls"):
        label += f"+tool_calls×{len(item['tool_calls'])}"
    return label


def conversation(body: dict[str, Any]) -> list[str]:
    labels: list[str] = []
    for key in SYSTEM_KEYS:
        if key in body:
            value = body[key]
            inner = value.get("parts") if isinstance(value, dict) and "parts" in value else value
            types = _content_types(inner)
            labels.append(f"{key}{types}" if types.startswith("[") else f"{key}:{types}")
    for key in CONVERSATION_KEYS:
        if isinstance(body.get(key), list):
            labels += [item_label(item) for item in body[key]]
    return labels


def schema_shape(schema: Any) -> Any:
    """A JSON schema without its prose; ``required`` and ``enum`` lists become objects so that
    their members show up as paths (``required.path``)."""
    if isinstance(schema, dict):
        result: dict[str, Any] = {}
        for k, v in sorted(schema.items()):
            if k in ("description", "title", "examples"):
                continue
            if k == "properties" and isinstance(v, dict):
                result[k] = {name: schema_shape(sub) for name, sub in v.items()}
            elif k in ("required", "enum") and isinstance(v, list):
                result[k] = {str(member): "member" for member in v}
            else:
                result[k] = schema_shape(v)
        return result
    if isinstance(schema, list):
        return [schema_shape(v) for v in schema]
    return schema


def tool_list(body: dict[str, Any]) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for entry in body.get("tools") or []:
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("functionDeclarations"), list):
            tools += [t for t in entry["functionDeclarations"] if isinstance(t, dict)]
        elif isinstance(entry.get("function"), dict):
            tools.append({**entry["function"], **{k: v for k, v in entry.items() if k != "function"}})
        else:
            tools.append(entry)
    return tools


def _schema_of(tool: dict[str, Any]) -> Any:
    for key in ("parameters", "input_schema", "parametersJsonSchema"):
        if key in tool:
            return schema_shape(tool[key])
    return None


def cache_markers(value: Any, path: str = "") -> list[str]:
    found: list[str] = []
    if isinstance(value, dict):
        for key, child in value.items():
            if key == "cache_control":
                found.append(f"{path or '<root>'}={json.dumps(child, sort_keys=True)}")
            else:
                found += cache_markers(child, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += cache_markers(child, f"{path}[{index}]")
    return found


def compare_request(where: str, golden: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    if golden["path"] != ours["path"]:
        diffs.append(f"{where}: endpoint: Pi {golden['path']}, ours {ours['path']}")
    g_body = golden["body"] if isinstance(golden["body"], dict) else {}
    o_body = ours["body"] if isinstance(ours["body"], dict) else {}
    diffs += compare_sequences(f"{where} conversation", conversation(g_body), conversation(o_body))
    for key in sorted((set(g_body) | set(o_body)) - NOT_PARAMS):
        if key not in o_body:
            diffs.append(f"{where} param {key}: missing (Pi: {_short(g_body[key])})")
        elif key not in g_body:
            diffs.append(f"{where} param {key}: extra (ours: {_short(o_body[key])})")
        elif g_body[key] != o_body[key]:
            diffs.append(f"{where} param {key}: Pi {_short(g_body[key])}, ours {_short(o_body[key])}")
    g_tools, o_tools = tool_list(g_body), tool_list(o_body)
    g_names = [str(t.get("name")) for t in g_tools]
    o_names = [str(t.get("name")) for t in o_tools]
    if g_names != o_names:
        diffs.append(f"{where} tools: Pi {g_names}, ours {o_names}")
    o_by_name = {str(t.get("name")): t for t in o_tools}
    for tool in g_tools:
        name = str(tool.get("name"))
        if name not in o_by_name:
            continue
        other = o_by_name[name]
        diffs += compare_shapes(f"{where} tool {name} schema", shape(_schema_of(tool)), shape(_schema_of(other)))
        g_keys = sorted(k for k in tool if k not in ("parameters", "input_schema", "parametersJsonSchema"))
        o_keys = sorted(k for k in other if k not in ("parameters", "input_schema", "parametersJsonSchema"))
        if g_keys != o_keys:
            diffs.append(f"{where} tool {name} keys: Pi {g_keys}, ours {o_keys}")
        for key in sorted(set(g_keys) & set(o_keys) - {"name", "description"}):
            if tool[key] != other[key]:
                diffs.append(f"{where} tool {name} {key}: Pi {_short(tool[key])}, ours {_short(other[key])}")
    g_cache, o_cache = cache_markers(g_body), cache_markers(o_body)
    if g_cache != o_cache:
        diffs.append(f"{where} cache markers: Pi {g_cache}, ours {o_cache}")
    for key in CONVERSATION_KEYS:
        groups_golden: dict[str, dict[str, set[str]]] = {}
        groups_ours: dict[str, dict[str, set[str]]] = {}
        for body, groups in ((g_body, groups_golden), (o_body, groups_ours)):
            for item in body.get(key) or []:
                _merge(groups.setdefault(item_head(item), {}), shape(item))
        for head in sorted(set(groups_golden) & set(groups_ours)):
            diffs += compare_shapes(f"{where} {key}[{head}]", groups_golden[head], groups_ours[head])
    for key in SYSTEM_KEYS:
        if key in g_body and key in o_body:
            diffs += compare_shapes(f"{where} {key}", shape(g_body[key]), shape(o_body[key]))
    return diffs


def compare_requests(golden: list[dict[str, Any]], ours: list[dict[str, Any]]) -> list[str]:
    diffs: list[str] = []
    if len(golden) != len(ours):
        diffs.append(f"requests: Pi sent {len(golden)}, ours {len(ours)}")
    for number, (expected, actual) in enumerate(zip(golden, ours, strict=False), 1):
        diffs += compare_request(f"request {number}", expected, actual)
    return diffs


# --- everything ---------------------------------------------------------------------------------


def compare(golden: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    if len(golden["runs"]) != len(ours["runs"]):
        diffs.append(f"runs: Pi {len(golden['runs'])}, ours {len(ours['runs'])}")
    for number, (expected, actual) in enumerate(zip(golden["runs"], ours["runs"], strict=False), 1):
        diffs += compare_run(f"run {number}", expected, actual)
    diffs += compare_sessions(golden["sessions"], ours["sessions"])
    diffs += compare_requests(golden["requests"], ours["requests"])
    return sorted(set(diffs))
