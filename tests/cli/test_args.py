from __future__ import annotations

from dataclasses import dataclass

import pytest

from pi_harness.ai.types import THINKING_LEVELS
from pi_harness.cli.args import (
    API_KEY_REQUIRES_MODEL,
    ParsedArgs,
    api_key_error,
    apply_extension_flags,
    parse_args,
    rpc_file_args_error,
)
from pi_harness.cli.flags import FLAGS, THINKING_LEVEL_NAMES


def messages_of(parsed: ParsedArgs) -> list[str]:
    return [d.format() for d in parsed.diagnostics]


def test_no_arguments_is_an_empty_interactive_request() -> None:
    parsed = parse_args([])
    assert parsed.messages == [] and parsed.file_args == [] and parsed.diagnostics == []
    assert parsed.mode is None and not parsed.print


@pytest.mark.parametrize(
    ("argv", "attribute", "value"),
    [
        (["-h"], "help", True),
        (["--help"], "help", True),
        (["-v"], "version", True),
        (["--version"], "version", True),
        (["-p"], "print", True),
        (["--print"], "print", True),
        (["-c"], "continue_session", True),
        (["--continue"], "continue_session", True),
        (["-r"], "resume", True),
        (["--resume"], "resume", True),
        (["--no-session"], "no_session", True),
        (["--verbose"], "verbose", True),
        (["--offline"], "offline", True),
        (["-ne"], "no_extensions", True),
        (["--no-extensions"], "no_extensions", True),
        (["-ns"], "no_skills", True),
        (["--no-skills"], "no_skills", True),
        (["-np"], "no_prompt_templates", True),
        (["--no-prompt-templates"], "no_prompt_templates", True),
        (["--no-themes"], "no_themes", True),
        (["-nc"], "no_context_files", True),
        (["--no-context-files"], "no_context_files", True),
        (["--no-mcp"], "no_mcp", True),
        (["-nt"], "no_tools", True),
        (["--no-tools"], "no_tools", True),
        (["-nbt"], "no_builtin_tools", True),
        (["--no-builtin-tools"], "no_builtin_tools", True),
        (["-a"], "approve", True),
        (["--approve"], "approve", True),
        (["-na"], "approve", False),
        (["--no-approve"], "approve", False),
    ],
)
def test_switches_in_long_and_short_form(argv: list[str], attribute: str, value: object) -> None:
    parsed = parse_args(argv)
    assert parsed.diagnostics == []
    assert getattr(parsed, attribute) == value


@pytest.mark.parametrize(
    ("flag", "attribute"),
    [
        ("--session", "session"),
        ("--fork", "fork"),
        ("--session-id", "session_id"),
        ("--session-dir", "session_dir"),
        ("--name", "name"),
        ("-n", "name"),
        ("--export", "export"),
        ("--provider", "provider"),
        ("--model", "model"),
        ("--api-key", "api_key"),
        ("--system-prompt", "system_prompt"),
        ("--use-theme", "use_theme"),
    ],
)
def test_value_flags_take_the_next_argument(flag: str, attribute: str) -> None:
    parsed = parse_args([flag, "the-value", "a message"])
    assert getattr(parsed, attribute) == "the-value"
    assert parsed.messages == ["a message"]


def test_a_value_may_look_like_a_flag_and_the_last_occurrence_wins() -> None:
    parsed = parse_args(["--model", "a", "--system-prompt", "--print", "--model", "b"])
    assert parsed.system_prompt == "--print"
    assert not parsed.print
    assert parsed.model == "b"


def test_inline_values_with_equals() -> None:
    parsed = parse_args(["--model=openai/gpt-4o:high", "--tools=read,grep", "--list-models=son"])
    assert parsed.model == "openai/gpt-4o:high"
    assert parsed.tools == ["read", "grep"]
    assert parsed.list_models and parsed.list_models_search == "son"


def test_missing_value_is_an_error() -> None:
    parsed = parse_args(["hello", "--model"])
    assert messages_of(parsed) == ["Error: Missing value for --model"]
    assert parsed.model is None and parsed.messages == ["hello"]


def test_switch_with_inline_value_is_an_error() -> None:
    assert messages_of(parse_args(["--print=yes"])) == ["Error: Option --print does not take a value"]


@pytest.mark.parametrize(
    ("flag", "attribute"),
    [
        ("-e", "extensions"),
        ("--extension", "extensions"),
        ("--skill", "skills"),
        ("--prompt-template", "prompt_templates"),
        ("--theme", "themes"),
        ("--append-system-prompt", "append_system_prompt"),
    ],
)
def test_repeatable_flags_keep_every_value_in_order(flag: str, attribute: str) -> None:
    parsed = parse_args([flag, "one", "msg", flag, "two"])
    assert getattr(parsed, attribute) == ["one", "two"]
    assert parsed.messages == ["msg"]


def test_lists_are_split_on_commas_and_tool_tokens_stay_raw() -> None:
    parsed = parse_args(["--models", "anthropic/*, *sonnet*:high,,gpt", "-t", "+grep,-bash, +ls", "-xt", "write"])
    assert parsed.models == ["anthropic/*", "*sonnet*:high", "gpt"]
    assert parsed.tools == ["+grep", "-bash", "+ls"]
    assert parsed.exclude_tools == ["write"]
    assert parsed.diagnostics == []


@pytest.mark.parametrize("mode", ["text", "json", "rpc"])
def test_mode_values(mode: str) -> None:
    assert parse_args(["--mode", mode]).mode == mode


def test_invalid_mode_is_an_error() -> None:
    parsed = parse_args(["--mode", "yaml"])
    assert parsed.mode is None
    assert messages_of(parsed) == ['Error: Invalid mode "yaml". Valid values: text, json, rpc']


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mode"], "--mode requires text, json, or rpc"),
        (["--tui-mode"], "--tui-mode requires regular or fullscreen"),
        (["--tui-mode", "big"], 'Invalid TUI mode "big". Valid values: regular, fullscreen'),
        (["--use-theme"], "--use-theme requires a theme name"),
        (["--name"], "--name requires a value"),
        (["-n"], "--name requires a value"),
    ],
)
def test_pi_words_for_a_missing_or_invalid_value(argv: list[str], message: str) -> None:
    assert messages_of(parse_args(argv)) == [f"Error: {message}"]


@pytest.mark.parametrize("flag", ["--mode", "--tui-mode", "--use-theme"])
def test_some_flags_do_not_take_a_value_that_looks_like_a_flag(flag: str) -> None:
    # As in Pi: the value is missing and the next argument is parsed as the flag it is.
    parsed = parse_args([flag, "-p", "hi"])
    assert len(parsed.errors) == 1 and "requires" in parsed.errors[0].message
    assert parsed.print and parsed.messages == ["hi"]


def test_name_takes_whatever_follows() -> None:
    parsed = parse_args(["--name", "-p"])
    assert parsed.name == "-p" and not parsed.print and parsed.diagnostics == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tools", "+read,bash"], "--tools: tool names cannot be mixed with +name or -name entries"),
        (["-t", "read,-bash"], "-t: tool names cannot be mixed with +name or -name entries"),
        (["--tools", "+grep,-re*"], "--tools: +name and -name entries take exact tool names, not patterns: -re*"),
    ],
)
def test_tool_lists_that_pi_refuses(argv: list[str], message: str) -> None:
    parsed = parse_args([*argv, "-p", "hi"])
    assert messages_of(parsed) == [f"Error: {message}"]
    assert parsed.tools is None


def test_plain_tool_names_may_be_patterns() -> None:
    parsed = parse_args(["--tools", "read,mcp__*"])
    assert parsed.tools == ["read", "mcp__*"] and parsed.diagnostics == []


def test_tui_mode_values() -> None:
    assert parse_args(["--tui-mode", "fullscreen"]).tui_mode == "fullscreen"
    assert parse_args(["--tui-mode", "wide"]).errors


def test_invalid_thinking_level_is_only_a_warning() -> None:
    parsed = parse_args(["--thinking", "extreme", "-p", "hi"])
    assert parsed.thinking is None
    assert parsed.errors == []
    assert messages_of(parsed) == [
        'Warning: Invalid thinking level "extreme". Valid values: off, minimal, low, medium, high, xhigh, max'
    ]
    assert parse_args(["--thinking", "max"]).thinking == "max"


def test_thinking_level_names_match_the_ai_layer() -> None:
    assert THINKING_LEVEL_NAMES == THINKING_LEVELS


def test_list_models_takes_a_search_only_when_it_is_not_a_flag_or_file() -> None:
    parsed = parse_args(["--list-models", "sonnet"])
    assert parsed.list_models and parsed.list_models_search == "sonnet" and parsed.messages == []
    parsed = parse_args(["--list-models", "--verbose"])
    assert parsed.list_models and parsed.list_models_search is None and parsed.verbose
    parsed = parse_args(["--list-models", "@notes.md"])
    assert parsed.list_models_search is None and parsed.file_args == ["notes.md"]
    parsed = parse_args(["--list-models"])
    assert parsed.list_models and parsed.list_models_search is None


def test_export_output_path_is_the_first_message() -> None:
    assert parse_args(["--export", "s.jsonl", "out.html"]).export_paths() == ("s.jsonl", "out.html")
    assert parse_args(["--export", "s.jsonl"]).export_paths() == ("s.jsonl", None)
    assert parse_args([]).export_paths() is None


def test_files_messages_and_double_dash() -> None:
    parsed = parse_args(["@a.md", "first", "-p", "@b.png", "second", "--", "-starts with dash", "@c.txt", "--print"])
    assert parsed.file_args == ["a.md", "b.png", "c.txt"]
    assert parsed.messages == ["first", "second", "-starts with dash", "--print"]
    assert parsed.print  # only the -p before "--"


def test_lone_dash_and_lone_at_are_messages() -> None:
    assert parse_args(["-", "@"]).messages == ["-", "@"]


@pytest.mark.parametrize("arg", ["-x", "-pc", "-abc", "-5"])
def test_unknown_short_options_are_rejected(arg: str) -> None:
    assert messages_of(parse_args([arg])) == [f"Error: Unknown option: {arg}"]


def test_unknown_long_flags_are_kept_for_the_second_pass() -> None:
    parsed = parse_args(["--plan", "--out-file", "x.md", "do it"])
    assert parsed.diagnostics == []
    assert parsed.unknown_flags == ["--plan", "--out-file"]
    assert parsed.messages == ["x.md", "do it"]  # the first pass cannot know --out-file takes a value


@dataclass
class Flag:
    name: str
    type: str


def test_extension_flags_second_pass() -> None:
    first = parse_args(["--plan", "--out-file", "x.md", "do it", "--dry=false"])
    second = apply_extension_flags(first, [Flag("plan", "boolean"), Flag("out-file", "string"), Flag("dry", "boolean")])
    assert second.diagnostics == []
    assert second.extension_flags == {"plan": True, "out-file": "x.md", "dry": False}
    assert second.messages == ["do it"]
    assert second.unknown_flags == []


def test_extension_pass_reports_unknown_flags_and_bad_values() -> None:
    first = parse_args(["--plan=maybe", "--mystery", "--out-file"])
    second = apply_extension_flags(first, [Flag("plan", "boolean"), Flag("out-file", "string"), Flag("n", "number")])
    assert messages_of(second) == [
        'Error: Invalid value for --plan: "maybe". Expected true or false',
        "Error: Unknown option: --mystery",
        "Error: Missing value for --out-file",
        'Error: Flag "--n" has unsupported type "number"',
    ]


def test_built_in_flags_win_over_extension_flags_with_the_same_name() -> None:
    second = apply_extension_flags(parse_args(["--model", "x"]), [Flag("model", "string")])
    assert second.model == "x" and second.extension_flags == {}


def test_api_key_requires_a_model() -> None:
    error = api_key_error(parse_args(["--api-key", "k"]))
    assert error is not None and error.format() == f"Error: {API_KEY_REQUIRES_MODEL}"
    assert API_KEY_REQUIRES_MODEL == (
        "--api-key requires a model to be specified via --model, --provider/--model, or --models"
    )
    assert api_key_error(parse_args(["--api-key", "k", "--provider", "openai"])) is not None
    assert api_key_error(parse_args(["--api-key", "k", "--model", "gpt-4o"])) is None
    assert api_key_error(parse_args(["--api-key", "k", "--models", "gpt*"])) is None


def test_rpc_rejects_file_arguments() -> None:
    error = rpc_file_args_error(parse_args(["--mode", "rpc", "@x.md"]))
    assert error is not None and error.format() == "Error: @file arguments are not supported in RPC mode"
    assert rpc_file_args_error(parse_args(["--mode", "json", "@x.md"])) is None


def test_every_flag_in_the_table_parses() -> None:
    for flag in FLAGS:
        value = flag.choices[0] if flag.choices else "v"
        argv = [f"--{flag.long}"] + ([value] if flag.takes_value else [])
        assert parse_args(argv).errors == [], flag.long
        if flag.short:
            assert parse_args([f"-{flag.short}", *argv[1:]]).errors == [], flag.short
