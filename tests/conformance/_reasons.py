"""Why our output differs from Pi 1.4.0's: the reason codes used by known_differences.py.

Each code has a one-line reason and the point of the conformance issue it belongs to. The points
named in the issue itself come first; the ones after "found by the suite" were not in the issue's
list and were found by comparing with the goldens.

``RULES`` assigns a code to a difference line (the first pattern that matches, searched in the
line); ``_known.py --update`` uses them for differences not yet listed. A line no rule matches
gets ``unclassified``, which the tests refuse: write a rule (and a reason) for it.
"""

from __future__ import annotations

import fnmatch
import re

# Points of the conformance issue.
ENTRY_APPENDED = "issue: entry_appended only for appendEntry/recovery entries"
RPC_DISPOSITION = "issue: rpc steer/follow_up disposition"
GET_COMMANDS = "issue: get_commands sourceInfo"
MESSAGE_FIELDS = "issue: message fields (durationMs, rawStopReason, usage.reasoning)"
ERROR_MESSAGES = "issue: error messages keep the provider's error object"
SESSION_IDS = "issue: UUIDv7 session ids"
# Found by the suite.
EVENT_FIELDS = "found: event fields"
REQUEST_SHAPE = "found: request parameters and message encoding"
STREAM_EVENTS = "found: streaming event order"
TOOL_RESULTS = "found: tool results"
SESSION_ENTRIES = "found: session entries"
RPC_ERRORS = "found: rpc error texts"

REASONS: dict[str, tuple[str, str]] = {
    # issue points
    "entry-appended": (
        "entry_appended is emitted after every session entry, Pi only for extension/recovery entries",
        ENTRY_APPENDED,
    ),
    "rpc-disposition": ('steer/follow_up responses lack data.disposition ("queued")', RPC_DISPOSITION),
    "get-commands-path": ("get_commands entries carry path/location instead of Pi's sourceInfo object", GET_COMMANDS),
    "assistant-duration": ("assistant messages lack durationMs", MESSAGE_FIELDS),
    "raw-stop-reason": ("assistant messages lack rawStopReason (the provider's own stop value)", MESSAGE_FIELDS),
    "tool-result-duration": ("tool-result messages lack durationMs", MESSAGE_FIELDS),
    "usage-reasoning": ("final usage lacks reasoning (the thinking tokens inside output)", MESSAGE_FIELDS),
    "error-object": (
        "provider errors are shortened to '<status> <message>'; Pi keeps '<status>: <error JSON>'",
        ERROR_MESSAGES,
    ),
    "uuid-v4": ("session ids (and ids derived from them) are UUIDv4; Pi uses UUIDv7", SESSION_IDS),
    # found by the suite
    "run-id": ("our events carry a runId field that Pi's do not", EVENT_FIELDS),
    "model-changed-event": ("set_model emits a model_changed event that Pi does not emit over rpc", EVENT_FIELDS),
    "or-system-content": (
        "openai-responses system/developer item content is a list of input_text; Pi sends a string",
        REQUEST_SHAPE,
    ),
    "gg-system-role": ('google systemInstruction lacks role "user"', REQUEST_SHAPE),
    "am-thinking-display": ('anthropic thinking config lacks display: "summarized"', REQUEST_SHAPE),
    "error-message-start": (
        "on an HTTP error Pi's message_start already holds the final error message; ours starts a pending one",
        STREAM_EVENTS,
    ),
    "block-end-order": (
        "text_end/thinking_end/toolcall_end come at other points of the stream than in Pi",
        STREAM_EVENTS,
    ),
    "abort-text": (
        "an aborted message says 'Request was aborted'; Pi says 'This operation was aborted'",
        STREAM_EVENTS,
    ),
    "structured-content": ("tool_execution_end results lack structuredContent", TOOL_RESULTS),
    "bash-first-update": ("Pi's first bash tool_execution_update has empty content; ours never does", TOOL_RESULTS),
    "set-model-entry": ("set_model to the current model writes no model_change entry; Pi writes one", SESSION_ENTRIES),
    "name-entry-order": (
        "with --name / set_session_name, session_info and model_change come in another order and tree position",
        SESSION_ENTRIES,
    ),
    "rpc-error-text": ("the error text of a failed rpc command differs", RPC_ERRORS),
    "rpc-validation-text": (
        "a malformed rpc command gets our validation message; Pi answers with the JavaScript TypeError it ran into (deliberate, see docs/compatibility.md)",
        RPC_ERRORS,
    ),
    # the RpcClient test
    "rpc-client-method": ("an RpcClient method gets an answer shaped unlike Pi's", RPC_DISPOSITION),
}

RULES: list[tuple[str, str]] = [
    (r"extra runId: str", "run-id"),
    (r"extra \['model_changed'\]", "model-changed-event"),
    (
        r"input\[(system|developer)\]|conversation: Pi \['(system|developer):str'\], ours \['(system|developer)\[input_text\]'\]",
        "or-system-content",
    ),
    (r"systemInstruction: missing role", "gg-system-role"),
    (r"param thinking: Pi \{.*\"display\": \"summarized\"", "am-thinking-display"),
    (r"uuid-v7.*ours <uuid-v4", "uuid-v4"),
    (r"event order: extra \['entry_appended'\]", "entry-appended"),
    (
        r"entry_appended: (extra entry\.|entry\.type: Pi \"context_edit\", ours \"context_edit\"\|\"message\"$)",
        "entry-appended",
    ),
    (r"response \w+\((steer|follow_up)\): missing data", "rpc-disposition"),
    (
        r"\(get_commands\): (extra data\.commands\[\]\.(path|location)|missing data\.commands\[\]\.sourceInfo)",
        "get-commands-path",
    ),
    (
        r"message_start\(assistant\): (message\.stopReason: Pi \"error\"|missing message\.errorMessage)",
        "error-message-start",
    ),
    (r"errorMessage: Pi \"This operation was aborted\", ours \"Request was aborted\"", "abort-text"),
    (r"(errorMessage|finalError|stderr): Pi ['\"]\d{3}: \{", "error-object"),
    (
        r"message\(assistant\): missing durationMs|message_start\(assistant\): missing message\.durationMs",
        "assistant-duration",
    ),
    (r"message\(assistant\): missing rawStopReason", "raw-stop-reason"),
    (r"message\(toolResult\): missing durationMs", "tool-result-duration"),
    (r"message\(assistant\): missing usage\.reasoning", "usage-reasoning"),
    (r"missing result\.structuredContent", "structured-content"),
    (r"tool_execution_update: partialResult\.content: Pi \[\]\|list, ours list", "bash-first-update"),
    (r"message_update\((text|thinking|toolcall)_end\)", "block-end-order"),
    (
        r"entry order: missing \['model_change'\]|model_change: parentId: Pi <id>\|null, ours null|entry model_change: none|entries\[model_change\]|tree order: missing \['model_change'\]",
        "set-model-entry",
    ),
    (r"session_info|model_change: parentId: Pi <id>, ours null", "name-entry-order"),
    (r"method (steer|followUp): threw .*disposition", "rpc-disposition"),
    (r"method getCommands: (extra \[\]\.(path|location)|missing \[\]\.sourceInfo)", "get-commands-path"),
    (r"response \w+\(\w+\): error: Pi \"Cannot read properties of ", "rpc-validation-text"),
    (r"response \w+\(\w+\): error: Pi ", "rpc-error-text"),
]

# Rules for one scenario (a shell pattern of scenario names), tried before RULES.
SCENARIO_RULES: list[tuple[str, str, str]] = []

_COMPILED = [(re.compile(pattern), code) for pattern, code in RULES]
_SCENARIO_COMPILED = [(scenarios, re.compile(pattern), code) for scenarios, pattern, code in SCENARIO_RULES]


def classify(line: str, scenario: str = "") -> str:
    for scenarios, pattern, code in _SCENARIO_COMPILED:
        if fnmatch.fnmatch(scenario, scenarios) and pattern.search(line):
            return code
    for pattern, code in _COMPILED:
        if pattern.search(line):
            return code
    return "unclassified"
