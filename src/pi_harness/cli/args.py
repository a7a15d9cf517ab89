"""Parsing ``pi [options] [--] [@files...] [messages...]``.

Pi's rules, which matter more than any parser library's conventions:

* Long flags are ``--name`` (``--name=value`` is accepted too); short aliases may be several
  letters (``-ne``, ``-nbt``) and are matched whole, never as bundles. Unknown short options are
  errors.
* A value flag takes the next argument whatever it looks like (``--append-system-prompt -x``);
  only when there is no next argument is the value missing (an error). ``--mode``,
  ``--tui-mode`` and ``--use-theme`` do not take one that starts with ``-``.
* ``--tools`` is plain names or ``+name``/``-name`` changes, not both, and a change names one
  tool exactly (``tool_list.tool_list_error``).
* ``--list-models`` takes the next argument as its search only if it starts with neither ``-``
  nor ``@``.
* ``@path`` is a file for the first message; everything else that is not a flag is a message;
  ``--`` ends option parsing (``@path`` still names a file after it).
* Unknown ``--flags`` are kept aside in a first pass: extensions may register them. Once the
  extensions are loaded, ``apply_extension_flags`` parses again with their definitions; flags
  nobody registered are then errors.
* An invalid ``--thinking`` level is only a warning.

Parsing never prints: every problem is a ``Diagnostic`` on the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from pi_harness.cli.diagnostics import Diagnostic
from pi_harness.cli.flags import FLAGS_BY_LONG, FLAGS_BY_SHORT, THINKING_LEVEL_NAMES, FlagSpec
from pi_harness.coding.tools.tool_list import tool_list_error

ExtensionFlagType = Literal["boolean", "string"]
ModeName = Literal["text", "json", "rpc"]

API_KEY_REQUIRES_MODEL = "--api-key requires a model to be specified via --model, --provider/--model, or --models"
RPC_FILE_ARGS_ERROR = "@file arguments are not supported in RPC mode"


@dataclass
class ParsedArgs:
    """Everything the command line says. Field names follow the long flag names."""

    argv: tuple[str, ...] = ()
    help: bool = False
    version: bool = False
    mode: ModeName | None = None
    print: bool = False
    verbose: bool = False
    offline: bool = False
    # sessions
    continue_session: bool = False
    resume: bool = False
    session: str | None = None
    fork: str | None = None
    session_id: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    name: str | None = None
    export: str | None = None
    # models
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    models: list[str] | None = None
    thinking: str | None = None
    list_models: bool = False
    list_models_search: str | None = None
    # prompt
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    no_context_files: bool = False
    # tools: raw tokens, ``+name``/``-name`` included; the tools layer resolves them
    tools: list[str] | None = None
    exclude_tools: list[str] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    # resources
    extensions: list[str] = field(default_factory=list)
    no_extensions: bool = False
    no_mcp: bool = False
    skills: list[str] = field(default_factory=list)
    no_skills: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    themes: list[str] = field(default_factory=list)
    no_themes: bool = False
    use_theme: str | None = None
    tui_mode: Literal["regular", "fullscreen"] | None = None
    # trust: True = --approve, False = --no-approve, None = neither (last one wins)
    approve: bool | None = None
    # positional arguments
    messages: list[str] = field(default_factory=list)
    file_args: list[str] = field(default_factory=list)
    # first pass: unknown ``--flags`` as written; second pass: values of extension flags
    unknown_flags: list[str] = field(default_factory=list)
    extension_flags: dict[str, bool | str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Not a flag: runtime settings (``agent.maxTurns``...) set by a program that starts a run,
    # such as ``pi batch``'s worker; applied over the settings files, never persisted.
    settings_overrides: dict[str, object] = field(default_factory=dict)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "warning"]

    def export_paths(self) -> tuple[str, str | None] | None:
        """``--export <file> [out]``: the session file and the output path (first message)."""
        if self.export is None:
            return None
        return self.export, (self.messages[0] if self.messages else None)


class ExtensionFlag(Protocol):
    """What ``apply_extension_flags`` needs of an extension's flag (``FlagDefinition`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


class _Parser:
    def __init__(self, argv: Sequence[str], extension_flags: Mapping[str, str] | None) -> None:
        self.argv = list(argv)
        self.extension_flags = extension_flags
        self.result = ParsedArgs(argv=tuple(argv))
        self.index = 0

    def error(self, message: str) -> None:
        self.result.diagnostics.append(Diagnostic.error(message))

    def warning(self, message: str) -> None:
        self.result.diagnostics.append(Diagnostic.warning(message))

    def next_value(self, flag: str, spec: FlagSpec | None = None) -> str | None:
        """The argument after the flag, consumed; ``None`` (and an error) when there is none, or
        when the flag refuses one that starts with ``-`` (which is then parsed as a flag)."""
        if self.index + 1 < len(self.argv):
            value = self.argv[self.index + 1]
            if not (spec is not None and spec.refuses_dash and value.startswith("-")):
                self.index += 1
                return value
        self.error(spec.missing if spec is not None and spec.missing else f"Missing value for {flag}")
        return None

    def run(self) -> ParsedArgs:
        options_ended = False
        while self.index < len(self.argv):
            arg = self.argv[self.index]
            if options_ended:
                self.positional(arg)
            elif arg == "--":
                options_ended = True
            elif arg.startswith("--"):
                self.long_flag(arg)
            elif arg.startswith("-") and len(arg) > 1:
                self.short_flag(arg)
            else:
                self.positional(arg)
            self.index += 1
        return self.result

    def positional(self, arg: str) -> None:
        if arg.startswith("@") and len(arg) > 1:
            self.result.file_args.append(arg[1:])
        else:
            self.result.messages.append(arg)

    def long_flag(self, arg: str) -> None:
        name, has_inline, inline = arg[2:].partition("=")
        spec = FLAGS_BY_LONG.get(name)
        if spec is not None:
            self.apply(spec, f"--{name}", inline if has_inline else None)
        elif self.extension_flags is not None and name in self.extension_flags:
            self.extension_flag(name, self.extension_flags[name], inline if has_inline else None)
        elif self.extension_flags is not None:
            self.error(f"Unknown option: --{name}")
        else:
            self.result.unknown_flags.append(arg)

    def short_flag(self, arg: str) -> None:
        spec = FLAGS_BY_SHORT.get(arg[1:])
        if spec is None:
            self.error(f"Unknown option: {arg}")
            return
        self.apply(spec, arg, None)

    def apply(self, spec: FlagSpec, written: str, inline: str | None) -> None:
        result = self.result
        if spec.kind == "switch":
            if inline is not None:
                self.error(f"Option {written} does not take a value")
                return
            setattr(result, spec.dest, spec.const)
            return
        if spec.kind == "optional":
            result.list_models = True
            if inline is not None:
                result.list_models_search = inline or None
            elif self.index + 1 < len(self.argv) and not self.argv[self.index + 1].startswith(("-", "@")):
                self.index += 1
                result.list_models_search = self.argv[self.index]
            return
        value = inline if inline is not None else self.next_value(written, spec)
        if value is None:
            return
        if spec.kind == "append":
            getattr(result, spec.dest).append(value)
        elif spec.kind == "list":
            entries = _split_list(value)
            problem = tool_list_error(entries) if spec.dest == "tools" else None
            if problem is not None:
                self.error(f"{written}: {problem}")
            else:
                setattr(result, spec.dest, entries)
        elif spec.kind == "choice":
            if value in spec.choices:
                setattr(result, spec.dest, value)
            elif spec.invalid is not None:
                self.error(spec.invalid.format(value=value))
            else:
                self.error(f'Invalid value for --{spec.long}: "{value}". Valid values: {", ".join(spec.choices)}')
        elif spec.dest == "thinking":
            if value in THINKING_LEVEL_NAMES:
                result.thinking = value
            else:
                self.warning(f'Invalid thinking level "{value}". Valid values: {", ".join(THINKING_LEVEL_NAMES)}')
        else:
            setattr(result, spec.dest, value)

    def extension_flag(self, name: str, flag_type: str, inline: str | None) -> None:
        if flag_type == "boolean":
            if inline is None or inline == "true":
                self.result.extension_flags[name] = True
            elif inline == "false":
                self.result.extension_flags[name] = False
            else:
                self.error(f'Invalid value for --{name}: "{inline}". Expected true or false')
            return
        value = inline if inline is not None else self.next_value(f"--{name}")
        if value is not None:
            self.result.extension_flags[name] = value


def parse_args(argv: Sequence[str], extension_flags: Mapping[str, str] | None = None) -> ParsedArgs:
    """Parse ``argv`` (without the program name).

    ``extension_flags`` maps flag names (without dashes) to ``"boolean"`` or ``"string"``. Without
    it (the first pass) unknown ``--flags`` are collected in ``unknown_flags``; with it (the
    second pass) registered flags land in ``extension_flags`` and any other unknown flag is an
    error.
    """
    return _Parser(argv, extension_flags).run()


def apply_extension_flags(parsed: ParsedArgs, flag_definitions: Iterable[ExtensionFlag]) -> ParsedArgs:
    """The second parsing pass, once extensions have registered their flags.

    Returns a new ``ParsedArgs``: a string flag's value may have been taken for a message in the
    first pass, so the whole command line is parsed again. Flags of unsupported types are
    reported as errors; unknown ``--flags`` become ``Unknown option: --<name>`` errors.
    """
    table: dict[str, str] = {}
    type_errors: list[Diagnostic] = []
    for flag in flag_definitions:
        name = flag.name.lstrip("-")
        if flag.type not in ("boolean", "string"):
            type_errors.append(Diagnostic.error(f'Flag "--{name}" has unsupported type "{flag.type}"'))
            continue
        table.setdefault(name, flag.type)
    second = parse_args(parsed.argv, table)
    return replace(second, diagnostics=[*second.diagnostics, *type_errors])


def api_key_error(parsed: ParsedArgs) -> Diagnostic | None:
    """``--api-key`` needs a model to apply to (checked once models are resolved, exit 1)."""
    if parsed.api_key is not None and not parsed.model and not parsed.models:
        return Diagnostic.error(API_KEY_REQUIRES_MODEL)
    return None


def rpc_file_args_error(parsed: ParsedArgs) -> Diagnostic | None:
    """RPC reads commands from stdin and cannot take ``@file`` arguments."""
    if parsed.mode == "rpc" and parsed.file_args:
        return Diagnostic.error(RPC_FILE_ARGS_ERROR)
    return None
