"""The conformance scenarios (format: ``_scenario``). Each one has goldens recorded from Pi 1.4.0
under tests/fixtures/conformance/<name>/ and an entry in known_differences.py.

Names start with the mode (``json_``, ``rpc_``, ``print_``) and end with the wire API:
``_oc`` openai-completions, ``_am`` anthropic-messages, ``_or`` openai-responses, ``_gg`` google.
"""

from __future__ import annotations

from typing import Any

from _scenario import Run, Scenario, Send, Wait, ask, command, prompt, response, rpc, settled

OC = "openai-completions"
AM = "anthropic-messages"
OR = "openai-responses"
GG = "google-generative-ai"
WIRE = {OC: "oc", AM: "am", OR: "or", GG: "gg"}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"steps": [{"text": value}], **extra}


def tool(name: str, arguments: dict[str, Any], call_id: str, **step: Any) -> dict[str, Any]:
    return {"toolCall": {"name": name, "arguments": arguments, "id": call_id, **step}}


def calls(*steps: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"steps": list(steps), **extra}


def json_run(*args: str, **extra: Any) -> Run:
    return Run(mode="json", args=args, **extra)


def print_run(*args: str, **extra: Any) -> Run:
    return Run(mode="print", args=args, **extra)


def per_wire(base: str, description: str, apis: tuple[str, ...], **fields: Any) -> list[Scenario]:
    return [Scenario(name=f"{base}_{WIRE[api]}", description=description, api=api, **fields) for api in apis]


SCENARIOS: list[Scenario] = []
add = SCENARIOS.extend

# --- plain answers, every wire ----------------------------------------------------------------
add(
    per_wire(
        "json_plain",
        "one prompt, one streamed text answer",
        (OC, AM, OR, GG),
        runs=(json_run("Say hello"),),
        responses=(text("Hello there! How can I help?", usage={"input": 120, "output": 9}),),
    )
)

# --- tool turns -------------------------------------------------------------------------------
add(
    per_wire(
        "json_tool_read",
        "a read tool call on a project file, then the answer",
        (OC, AM, OR, GG),
        files={"notes.txt": "alpha\nbeta\n"},
        runs=(json_run("What is in notes.txt?"),),
        responses=(
            calls({"text": "Let me read it."}, tool("read", {"path": "notes.txt"}, "call_read_1")),
            text("It lists alpha and beta."),
        ),
    )
)
add(
    per_wire(
        "json_tool_parallel",
        "two tool calls in one response (a parallel batch), then the answer",
        (OC, AM),
        files={"a.txt": "first\n", "b.txt": "second\n"},
        runs=(json_run("Read a.txt and b.txt"),),
        responses=(
            calls(tool("read", {"path": "a.txt"}, "call_a"), tool("read", {"path": "b.txt"}, "call_b")),
            text("a.txt says first, b.txt says second."),
        ),
    )
)
add(
    per_wire(
        "json_tool_failing",
        "a read of a missing file and a call of an unknown tool: error results, then the answer",
        (OC, AM),
        runs=(json_run("Read missing.txt"),),
        responses=(
            calls(tool("read", {"path": "missing.txt"}, "call_missing"), tool("frobnicate", {"x": 1}, "call_unknown")),
            text("The file does not exist."),
        ),
    )
)
add(
    per_wire(
        "json_tool_bash",
        "a bash tool call that prints two lines (tool_execution_update events), then the answer",
        (AM,),
        runs=(json_run("Run the greeting"),),
        responses=(
            calls(tool("bash", {"command": "echo one; echo two"}, "call_bash_1")),
            text("It printed one and two."),
        ),
    )
)
# Line counts of truncated output: a trailing newline ends the last line (2501 lines, not 2502).
# (No bash here: how many streaming updates it sends, and when, depends on pipe chunking.)
add(
    per_wire(
        "json_tool_truncated",
        "a read whose output passes the 2000-line limit, then the answer",
        (OC,),
        files={"long.txt": "".join(f"{n}\n" for n in range(1, 2502))},
        runs=(json_run("Read the long file"),),
        responses=(
            calls(tool("read", {"path": "long.txt"}, "call_read_1")),
            text("It was long."),
        ),
    )
)
add(
    per_wire(
        "json_tool_write_edit",
        "write a file, then edit it, then answer",
        (OC,),
        runs=(json_run("Create and fix greeting.txt"),),
        responses=(
            calls(tool("write", {"path": "greeting.txt", "content": "helo world\n"}, "call_write")),
            calls(
                tool("edit", {"path": "greeting.txt", "edits": [{"oldText": "helo", "newText": "hello"}]}, "call_edit")
            ),
            text("Done."),
        ),
    )
)

# --- thinking ---------------------------------------------------------------------------------
add(
    per_wire(
        "json_thinking",
        "a reasoning model at --thinking high: thinking then text",
        (AM, OC, OR, GG),
        model={"reasoning": True},
        runs=(json_run("--thinking", "high", "Think, then answer"),),
        responses=(
            {
                "steps": [{"thinking": "The user wants a short answer.", "signature": "sig-1"}, {"text": "42."}],
                "usage": {"input": 50, "output": 20, "reasoning": 12},
            },
        ),
    )
)

# --- errors, retries, stop reasons ------------------------------------------------------------
add(
    per_wire(
        "json_retry_5xx",
        "a 500 (retried after a short delay), then the answer",
        (OC, AM),
        runs=(json_run("Hello"),),
        responses=({"httpError": {"status": 500, "message": "Internal failure"}}, text("Recovered.")),
    )
)
add(
    per_wire(
        "json_overloaded_stream_error",
        "an overloaded error in the middle of the stream (retried), then the answer",
        (AM,),
        runs=(json_run("Hello"),),
        responses=(
            {"steps": [{"text": "Partial"}], "streamError": {"status": 529, "message": "Overloaded"}},
            text("Second try worked."),
        ),
    )
)
add(
    per_wire(
        "json_rate_limit_429",
        "a 429 rate limit with retry-after 0 (retried), then the answer",
        (AM,),
        runs=(json_run("Hello"),),
        responses=(
            {"httpError": {"status": 429, "message": "Rate limited", "headers": {"retry-after": "0"}}},
            text("After the rate limit."),
        ),
    )
)
add(
    per_wire(
        "json_quota_429",
        "a 429 insufficient_quota: not retried, the run ends with an error message",
        (OC,),
        runs=(json_run("Hello"),),
        responses=(
            {
                "httpError": {
                    "status": 429,
                    "message": "You exceeded your current quota, please check your plan and billing details.",
                    "type": "insufficient_quota",
                }
            },
        ),
    )
)
add(
    per_wire(
        "json_http_400",
        "a 400 invalid request: not retried, the run ends with an error message",
        (OC, AM),
        runs=(json_run("Hello"),),
        responses=({"httpError": {"status": 400, "message": "Invalid value for 'max_tokens'"}},),
    )
)
add(
    per_wire(
        "json_length_stop",
        "an answer cut by the output limit (stop reason length)",
        (OC, AM),
        runs=(json_run("Write a long essay"),),
        responses=(text("This essay begins and then", stopReason="length"),),
    )
)
# Keeps the last user message and what follows it: the short answers stay under 10 tokens and the
# long last prompt goes over, so the cut point is at a user message (no split-turn summary).
SMALL_KEEP = {"compaction": {"keepRecentTokens": 10}}
LONG_PROMPT = "Second task: explain every file in detail, with its name, its size, its purpose and its owner"
add(
    per_wire(
        "json_overflow",
        "a json run, then a --continue run whose request overflows the context: compaction (reason "
        "overflow, with a split-turn summary: two summary requests), then the prompt is retried",
        (OC,),
        settings=SMALL_KEEP,
        runs=(json_run("Look at the project"), json_run("--continue", LONG_PROMPT)),
        responses=(
            text("Empty."),
            {
                "httpError": {
                    "status": 400,
                    "message": "This model's maximum context length is 128000 tokens. However, your messages "
                    "resulted in 130000 tokens. Please reduce the length of the messages.",
                    "type": "context_length_exceeded",
                }
            },
            text("## Goal\nSummarize.\n\n## Progress\nNothing yet."),
            text("## Turn context\nThe user asked for an explanation of every file."),
            text("Here is the summary you asked for."),
        ),
    )
)

add(
    per_wire(
        "json_length_stop_tool",
        "an answer cut by the output limit in the middle of a tool call: the call is not run (an "
        "error result says why), the model is asked again and answers",
        (OC,),
        runs=(json_run("Write the essay to essay.md"),),
        responses=(
            calls({"text": "Writing it."}, tool("write", {"path": "essay.md"}, "call_cut_1"), stopReason="length"),
            text("I could not finish the essay."),
        ),
    )
)
add(
    per_wire(
        "json_overflow_first",
        "the first prompt of a session overflows the context: the attempt is hidden, nothing is "
        "left to summarise, so no compaction and no retry",
        (OC,),
        runs=(json_run("Explain everything"),),
        responses=(
            {
                "httpError": {
                    "status": 400,
                    "message": "This model's maximum context length is 128000 tokens. However, your messages "
                    "resulted in 130000 tokens. Please reduce the length of the messages.",
                    "type": "context_length_exceeded",
                }
            },
        ),
    )
)
# A large reserve: the second answer reports more tokens than the window minus the reserve,
# so a threshold compaction follows the run. The long answer alone is over the keep budget, so the cut splits the last turn (the history and the turn prefix are summarised).
add(
    per_wire(
        "json_threshold",
        "a --continue run whose answer crosses the compaction threshold: threshold compaction "
        "after the run (split turn: two summary requests), no retry",
        (OC, AM, OR, GG),
        model={"contextWindow": 20000},
        settings={"compaction": {"keepRecentTokens": 10, "reserveTokens": 18500}},
        runs=(json_run("Look at the project"), json_run("--continue", LONG_PROMPT)),
        responses=(
            text("Empty.", usage={"input": 100, "output": 5}),
            text(
                "Here is every file, with its name, its size, its purpose and its owner, in detail.",
                usage={"input": 1700, "output": 20},
            ),
            text("## Goal\nSummarize.\n\n## Progress\nNothing yet."),
            text("## Original Request\nAn explanation of every file."),
        ),
    )
)

add(
    per_wire(
        "json_length_stop_continue",
        "a --continue run whose answer is cut by the output limit: the attempt is hidden, the "
        "history and the prompt are summarised (split turn), then the prompt is retried",
        (OC,),
        settings=SMALL_KEEP,
        runs=(json_run("Look at the project"), json_run("--continue", LONG_PROMPT)),
        responses=(
            text("Empty."),
            text("Here is every file: the first one is", stopReason="length"),
            text("## Goal\nSummarize.\n\n## Progress\nNothing yet."),
            text("## Original Request\nAn explanation of every file."),
            text("Here is the explanation, shorter."),
        ),
    )
)
add(
    per_wire(
        "json_threshold_fail",
        "a threshold compaction whose summary request fails: compaction_end without a result, with the error text",
        (OC,),
        model={"contextWindow": 20000},
        settings={"compaction": {"keepRecentTokens": 10, "reserveTokens": 18500}},
        runs=(json_run("Look at the project"), json_run("--continue", LONG_PROMPT)),
        responses=(
            text("Empty.", usage={"input": 100, "output": 5}),
            text(
                "Here is every file, in detail, with all that is known about it.", usage={"input": 1700, "output": 20}
            ),
            {"httpError": {"status": 400, "message": "Invalid value for 'max_tokens'"}},
        ),
    )
)
add(
    per_wire(
        "json_threshold_retry",
        "a threshold compaction whose first summary request meets a server error: the summary "
        "request is retried (summarization_retry_* events), then the compaction completes",
        (OC,),
        model={"contextWindow": 20000},
        settings={"compaction": {"keepRecentTokens": 10, "reserveTokens": 18500}},
        runs=(json_run("Look at the project"), json_run("--continue", LONG_PROMPT)),
        responses=(
            text("Empty.", usage={"input": 100, "output": 5}),
            text(
                "Here is every file, in detail, with all that is known about it.", usage={"input": 1700, "output": 20}
            ),
            {"httpError": {"status": 500, "message": "The server had an error while processing your request."}},
            text("## Goal\nSummarize.\n\n## Progress\nNothing yet."),
            text("## Original Request\nAn explanation of every file."),
        ),
    )
)
add(
    per_wire(
        "json_overflow_fail",
        "overflow recovery whose summary request fails: the attempt stays hidden, compaction_end "
        "without a result says why, no retry",
        (OC,),
        settings=SMALL_KEEP,
        runs=(json_run("Look at the project"), json_run("--continue", LONG_PROMPT)),
        responses=(
            text("Empty."),
            {
                "httpError": {
                    "status": 400,
                    "message": "This model's maximum context length is 128000 tokens. However, your messages "
                    "resulted in 130000 tokens. Please reduce the length of the messages.",
                    "type": "context_length_exceeded",
                }
            },
            {"httpError": {"status": 400, "message": "Invalid value for 'max_tokens'"}},
        ),
    )
)

# --- print mode -------------------------------------------------------------------------------
add(
    per_wire(
        "print_plain",
        "pi -p: the answer on stdout, exit code 0",
        (OC,),
        runs=(print_run("Say hello"),),
        responses=(text("Hello from print mode."),),
    )
)
add(
    per_wire(
        "print_tool",
        "pi -p with a tool turn: only the last answer is printed",
        (AM,),
        files={"notes.txt": "alpha\n"},
        runs=(print_run("Read notes.txt"),),
        responses=(calls({"text": "Reading."}, tool("read", {"path": "notes.txt"}, "call_r")), text("It says alpha.")),
    )
)
add(
    per_wire(
        "print_error_exit",
        "pi -p when the provider refuses (401): exit code 1, the error on stderr",
        (OC,),
        runs=(print_run("Say hello"),),
        responses=({"httpError": {"status": 401, "message": "Invalid API key"}},),
    )
)
add(
    per_wire(
        "print_quota_exit",
        "pi -p on a quota error (429 insufficient_quota): exit code 1, the error on stderr",
        (AM,),
        runs=(print_run("Say hello"),),
        responses=(
            {"httpError": {"status": 429, "message": "Your credit balance is too low", "type": "insufficient_quota"}},
        ),
    )
)

# --- sessions across invocations --------------------------------------------------------------
add(
    per_wire(
        "json_continue",
        "a json run, then a second json run with --continue in the same session",
        (OC,),
        runs=(json_run("Remember the word mango"), json_run("--continue", "What was the word?")),
        responses=(text("I will remember mango."), text("The word was mango.")),
    )
)
add(
    per_wire(
        "print_session_path",
        "a print run, then a second print run with --session <first session file>",
        (AM,),
        runs=(print_run("First question"), print_run("--session", "{session:1}", "Second question")),
        responses=(text("First answer."), text("Second answer.")),
    )
)

# --- prompt resources: context files, system prompt files, skills, templates, tool subsets -----
CONTEXT_FILES = {
    "AGENTS.md": "# Project rules\n\nAlways answer in English.\n",
    "sub/README.md": "nested\n",
}
add(
    per_wire(
        "json_context_files",
        "AGENTS.md in the project and the agent dir, APPEND_SYSTEM.md in the agent dir",
        (OC, AM),
        files=CONTEXT_FILES,
        agent_files={
            "AGENTS.md": "# Global rules\n\nBe brief.\n",
            "APPEND_SYSTEM.md": "Extra appended instructions.\n",
        },
        runs=(json_run("Hello"),),
        responses=(text("Hello, briefly."),),
    )
)
add(
    per_wire(
        "json_system_md",
        "SYSTEM.md in the agent dir replaces the default system prompt",
        (AM,),
        agent_files={"SYSTEM.md": "You are a terse assistant.\n"},
        runs=(json_run("Hello"),),
        responses=(text("Hi."),),
    )
)
SKILL = (
    "---\nname: greeting\ndescription: How to greet people politely. Use when asked to greet someone.\n---\n\n"
    "# Greeting\n\nSay hello and the person's name.\n"
)
TEMPLATE = "---\ndescription: Review a file for bugs\n---\nReview $1 carefully and list the bugs.\n"
add(
    per_wire(
        "rpc_skills_templates",
        "a skill and a prompt template in the agent dir: get_commands, then /review and /skill:greeting",
        (OC,),
        agent_files={"skills/greeting/SKILL.md": SKILL, "prompts/review.md": TEMPLATE},
        runs=(
            rpc(
                *ask("cmds", "get_commands"),
                prompt("p1", "/review main.py"),
                settled(),
                prompt("p2", "/skill:greeting Ada"),
                settled(),
            ),
        ),
        responses=(text("No bugs found."), text("Hello, Ada!")),
    )
)
add(
    per_wire(
        "json_tools_subset",
        "--tools read,grep: only those tools are offered",
        (OC, AM),
        runs=(json_run("--tools", "read,grep", "Hello"),),
        responses=(text("Hello."),),
    )
)
# Reopening a session whose system messages record a tool set: which tools the first request
# after --session declares (the recorded patch, or the tools of this start).
add(
    per_wire(
        "json_resume_tools",
        "a run with --tools read,grep, then --session <its file> without --tools, then with --tools bash",
        (OC,),
        runs=(
            json_run("--tools", "read,grep", "Hello"),
            json_run("--session", "{session:1}", "Again"),
            json_run("--session", "{session:1}", "--tools", "bash", "Once more"),
        ),
        responses=(text("Hello."), text("Again."), text("Once more.")),
    )
)
add(
    per_wire(
        "json_resume_no_tools",
        "a run with --no-tools, then --session <its file> without options",
        (OC,),
        runs=(json_run("--no-tools", "Hello"), json_run("--session", "{session:1}", "Again")),
        responses=(text("Hello."), text("Again.")),
    )
)
add(
    per_wire(
        "json_no_tools",
        "--no-tools: no tools are offered",
        (OC,),
        runs=(json_run("--no-tools", "Hello"),),
        responses=(text("Hello without tools."),),
    )
)

# --- rpc: state and inspection ----------------------------------------------------------------
add(
    per_wire(
        "rpc_inspect",
        "one prompt, then get_state, get_messages, get_session_stats, get_last_assistant_text, "
        "get_available_models, get_available_thinking_levels, get_entries",
        (OC, AM),
        runs=(
            rpc(
                *ask("state0", "get_state"),
                prompt("p1", "Hello"),
                settled(),
                *ask("state", "get_state"),
                *ask("messages", "get_messages"),
                *ask("stats", "get_session_stats"),
                *ask("last", "get_last_assistant_text"),
                *ask("models", "get_available_models"),
                *ask("levels", "get_available_thinking_levels"),
                *ask("entries", "get_entries"),
                *ask("commands", "get_commands"),
            ),
        ),
        responses=(text("Hello from rpc."),),
    )
)
add(
    per_wire(
        "rpc_settings_commands",
        "set_thinking_level, cycle_thinking_level, set_steering_mode, set_follow_up_mode, "
        "set_auto_compaction, set_auto_retry, set_session_name, set_model, cycle_model, a bad command",
        (OC,),
        model={"reasoning": True},
        runs=(
            rpc(
                *ask("think", "set_thinking_level", level="high"),
                *ask("cycle", "cycle_thinking_level"),
                *ask("steer_mode", "set_steering_mode", mode="all"),
                *ask("follow_mode", "set_follow_up_mode", mode="all"),
                *ask("auto_compact", "set_auto_compaction", enabled=False),
                *ask("auto_retry", "set_auto_retry", enabled=False),
                *ask("name", "set_session_name", name="conformance run"),
                *ask("model", "set_model", provider="fake", modelId="scripted"),
                *ask("cycle_model", "cycle_model"),
                *ask("bad_model", "set_model", provider="fake", modelId="does-not-exist"),
                *ask("unknown", "no_such_command"),
                Send({"id": "noprompt", "type": "prompt"}),
                response("noprompt"),
                *ask("state", "get_state"),
                prompt("p1", "Hello"),
                settled(),
            ),
        ),
        responses=(text("Hello."),),
    )
)
add(
    per_wire(
        "rpc_bash",
        "an rpc bash command (bash_execution_update), then a prompt that carries its output",
        (OC,),
        runs=(
            rpc(
                *ask("sh", "bash", command="echo from-bash"),
                prompt("p1", "What did the command print?"),
                settled(),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(text("It printed from-bash."),),
    )
)

# --- rpc: compaction, abort, queues -----------------------------------------------------------
add(
    per_wire(
        "rpc_compact",
        "two prompts, then a manual compact (the summary takes a model request), then get_messages",
        (OC, AM),
        settings=SMALL_KEEP,
        runs=(
            rpc(
                prompt("p1", "First task: list the files"),
                settled(),
                prompt("p2", LONG_PROMPT),
                settled(),
                *ask("compact", "compact", customInstructions="Keep it short"),
                *ask("messages", "get_messages"),
                prompt("p3", "Continue"),
                settled(),
            ),
        ),
        responses=(
            text("None."),
            text("Nothing."),
            text("## Goal\nList and explain files.\n\n## Progress\nNo files found."),
            text("Continuing after the compaction."),
        ),
    )
)
add(
    per_wire(
        "rpc_compact_fail",
        "compact on an empty session, then after one short exchange (all of it within the keep "
        "budget): nothing to compact either time, the command fails",
        (OC,),
        runs=(
            rpc(
                *ask("empty", "compact"),
                prompt("p1", "Hello"),
                settled(),
                *ask("after", "compact"),
            ),
        ),
        responses=(text("Hello there."),),
    )
)
SLOW_TEXT = {"steps": [{"text": "word " * 40, "chunks": 40}], "chunkDelayMs": 150}
add(
    per_wire(
        "rpc_abort",
        "abort while the answer streams, then a new prompt",
        (OC, AM),
        runs=(
            rpc(
                prompt("p1", "Write a long text"),
                Wait(event="message_update", where={"assistantMessageEvent.type": "text_delta"}),
                *ask("abort", "abort"),
                settled(),
                prompt("p2", "Short one please"),
                settled(),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(SLOW_TEXT, text("Short.")),
    )
)
# Aborting at other stages: before the first token, inside a streamed tool call and
# inside streamed thinking. The open block is closed (``*_end``) before the aborted message ends.
add(
    per_wire(
        "rpc_abort_waiting",
        "abort after the response started but before its first token, then a new prompt",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "Take your time"),
                Wait(event="message_start", where={"message.role": "assistant"}),
                *ask("abort", "abort"),
                settled(),
                prompt("p2", "Short one please"),
                settled(),
            ),
        ),
        responses=({**text("Too late."), "chunkDelayMs": 3000}, text("Short.")),
    )
)
add(
    per_wire(
        "rpc_abort_toolcall",
        "abort while a tool call's arguments stream: the call is not run",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "Write the file"),
                Wait(event="message_update", where={"assistantMessageEvent.type": "toolcall_delta"}),
                *ask("abort", "abort"),
                settled(),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(
            {
                "steps": [
                    {"text": "Writing."},
                    tool("write", {"path": "out.txt", "content": "x" * 400}, "call_slow_1", chunks=40),
                ],
                "chunkDelayMs": 150,
            },
        ),
    )
)
add(
    per_wire(
        "rpc_abort_thinking",
        "abort while a reasoning model's thinking streams",
        (OC,),
        model={"reasoning": True},
        runs=(
            rpc(
                prompt("p1", "Think hard"),
                Wait(event="message_update", where={"assistantMessageEvent.type": "thinking_delta"}),
                *ask("abort", "abort"),
                settled(),
                *ask("messages", "get_messages"),
                args=("--thinking", "high"),
            ),
        ),
        responses=({"steps": [{"thinking": "hmm " * 40, "chunks": 40}, {"text": "Done."}], "chunkDelayMs": 150},),
    )
)
SLOW_TOOL = calls(tool("bash", {"command": "sleep 1.5; echo done"}, "call_sleep"))
add(
    per_wire(
        "rpc_steer",
        "a steer message sent while a tool runs is delivered before the next model request",
        (OC, AM),
        runs=(
            rpc(
                prompt("p1", "Run the slow command"),
                Wait(event="tool_execution_start"),
                command("steer", "steer", message="Also mention the time"),
                response("steer"),
                settled(),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(SLOW_TOOL, text("Done, and it is late.")),
    )
)
add(
    per_wire(
        "rpc_follow_up",
        "a follow_up (and a prompt with streamingBehavior followUp) sent during a run are played after it",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "Run the slow command"),
                Wait(event="tool_execution_start"),
                command("fu", "follow_up", message="Then say goodbye"),
                response("fu"),
                prompt("p2", "And thank me", streamingBehavior="followUp"),
                response("p2"),
                Wait(event="agent_settled"),
                *ask("messages", "get_messages"),
            ),
        ),
        settings={"followUpMode": "all"},
        responses=(SLOW_TOOL, text("Done."), text("Goodbye, and thank you.")),
    )
)
add(
    per_wire(
        "rpc_clear_queue",
        "steer and follow_up during a run, clear_queue returns them, the run ends without them",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "Run the slow command"),
                Wait(event="tool_execution_start"),
                command("steer", "steer", message="Steer text"),
                response("steer"),
                command("fu", "follow_up", message="Follow-up text"),
                response("fu"),
                *ask("clear", "clear_queue"),
                settled(),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(SLOW_TOOL, text("Done.")),
    )
)
add(
    per_wire(
        "rpc_prompt_while_busy",
        "a prompt without streamingBehavior while a run is active is refused",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "Run the slow command"),
                Wait(event="tool_execution_start"),
                prompt("p2", "Another prompt"),
                response("p2"),
                settled(),
            ),
        ),
        responses=(SLOW_TOOL, text("Done.")),
    )
)

# --- rpc: session tree ------------------------------------------------------------------------
add(
    per_wire(
        "rpc_fork",
        "two prompts, get_fork_messages, fork from the first prompt, prompt on the fork, get_tree",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "First question"),
                settled(),
                prompt("p2", "Second question"),
                settled(),
                *ask("forks", "get_fork_messages"),
                *ask("fork", "fork", entryId="$ref:forks:data.messages[0].entryId"),
                *ask("state", "get_state"),
                prompt("p3", "A different first question"),
                settled(),
                *ask("tree", "get_tree"),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(text("First answer."), text("Second answer."), text("Forked answer.")),
    )
)
add(
    per_wire(
        "rpc_clone_new_switch",
        "clone the session, new_session, then switch_session back to the first file",
        (AM,),
        runs=(
            rpc(
                prompt("p1", "Hello"),
                settled(),
                *ask("state1", "get_state"),
                *ask("clone", "clone"),
                *ask("state2", "get_state"),
                *ask("new", "new_session"),
                *ask("state3", "get_state"),
                *ask("switch", "switch_session", sessionPath="$ref:state1:data.sessionFile"),
                *ask("state4", "get_state"),
                *ask("messages", "get_messages"),
            ),
        ),
        responses=(text("Hello back."),),
    )
)
add(
    per_wire(
        "rpc_clone_cli_thinking",
        "pi --mode rpc --thinking high: clone before anything is saved (refused), then after a "
        "set_thinking_level; the clone and a new session start with the command line's level again",
        (OC,),
        model={"reasoning": True},
        runs=(
            rpc(
                *ask("early", "clone"),
                prompt("p1", "Hello"),
                settled(),
                *ask("low", "set_thinking_level", level="low"),
                *ask("clone", "clone"),
                *ask("cloned", "get_state"),
                *ask("new", "new_session"),
                *ask("fresh", "get_state"),
                args=("--thinking", "high"),
            ),
        ),
        responses=(text("Hello back."),),
    )
)
add(
    per_wire(
        "rpc_entries_cursor",
        "get_entries with a since cursor and with an unknown cursor, then get_tree",
        (OC,),
        runs=(
            rpc(
                prompt("p1", "One"),
                settled(),
                *ask("all", "get_entries"),
                prompt("p2", "Two"),
                settled(),
                *ask("since", "get_entries", since="$ref:all:data.leafId"),
                *ask("bad", "get_entries", since="nope0000"),
                *ask("tree", "get_tree"),
            ),
        ),
        responses=(text("First."), text("Second.")),
    )
)

# --- rpc: a json-mode-like run with a tool and the session name flag ---------------------------
add(
    per_wire(
        "rpc_tool_named",
        "pi --mode rpc --name: a tool turn over rpc, the session name in get_state and the file",
        (AM,),
        files={"notes.txt": "gamma\n"},
        runs=(
            rpc(
                prompt("p1", "Read notes.txt"),
                settled(),
                *ask("state", "get_state"),
                args=("--name", "named session"),
            ),
        ),
        responses=(calls(tool("read", {"path": "notes.txt"}, "call_n")), text("It says gamma.")),
    )
)

NAMES = [scenario.name for scenario in SCENARIOS]
assert len(NAMES) == len(set(NAMES)), "scenario names must be unique"
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
