"""Which shell commands plan mode lets through: read-only programs only, checked per segment.

A command is split into segments at ``|``, ``;``, ``&&``, ``||``, ``&`` and newlines; every
segment must start with an allowlisted program (after ``NAME=value`` assignments), and some
programs only with read-only arguments (``git log`` yes, ``git commit`` no; ``find`` without
``-delete``/``-exec``). Output redirection is allowed only to ``/dev/null`` or another file
descriptor. Anything the check cannot read with confidence - unbalanced quotes, ``$(...)``,
backticks, process substitution - is refused: when in doubt, the gate stays closed.

This is a guard against mistakes, not a sandbox (an allowlisted program with a bug or a clever
argument can still write); for isolation see the ``sandbox`` example.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence

SEPARATORS = frozenset({"|", "||", "&&", ";", "&", ";;", "|&"})
OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
INPUT_REDIRECTS = frozenset({"<", "<<", "<<<"})
UNREADABLE = ("$(", "`", "<(", ">(")

# Programs that only read, whatever their arguments.
# fmt: off
READ_ONLY_PROGRAMS = frozenset({
    # files and text
    "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "wc", "diff", "cmp",
    "comm", "cut", "tr", "nl", "column", "tac", "rev", "fold", "fmt", "join", "paste", "expand",
    "unexpand", "jq", "yq", "xxd", "hexdump", "od", "strings", "bat", "md5sum", "sha1sum", "sha256sum",
    "cksum",
    # directories and paths
    "ls", "tree", "pwd", "cd", "file", "stat", "du", "df", "fd", "exa", "eza", "basename", "dirname",
    "realpath", "readlink",
    # the system
    "which", "whereis", "type", "printenv", "uname", "whoami", "id", "groups", "uptime",
    "ps", "free", "lsof",
    # shell odds and ends
    "echo", "printf", "true", "false", "test", "[", "seq",
})
GIT_READ_ONLY = frozenset({
    "status", "log", "diff", "show", "blame", "grep", "describe", "shortlog", "rev-parse", "rev-list",
    "ls-files", "ls-tree", "ls-remote", "cat-file", "for-each-ref", "merge-base", "reflog",
    "whatchanged", "count-objects",
})
# fmt: on
VERSION_FLAGS = frozenset({"--version", "-V", "version"})
VERSION_ONLY = frozenset({"python", "python3", "node", "npm", "pip", "pip3", "cargo", "go", "rustc", "ruby", "java"})


def _positional(args: Sequence[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _git(args: Sequence[str]) -> bool:
    rest = list(args)
    while rest and rest[0].startswith("-"):  # global options: --no-pager, -C <dir>, -c k=v
        option = rest.pop(0)
        if option in ("-C", "-c") and rest:
            rest.pop(0)
    if not rest:
        return True
    command, options = rest[0], rest[1:]
    if command in GIT_READ_ONLY:
        return True
    if command == "branch":
        return not any(o in ("-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy") for o in options) and (
            not _positional(options) or "--list" in options or "-l" in options
        )
    if command == "tag":
        return not options or options[0] in ("-l", "--list")
    if command == "remote":
        return not options or options[0] in ("-v", "show", "get-url")
    if command == "config":
        return bool(options) and options[0] in ("--get", "--get-all", "--list", "-l", "--get-regexp")
    if command == "stash":
        return bool(options) and options[0] in ("list", "show")
    return False


def _find(args: Sequence[str]) -> bool:
    writing = ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls")
    return not any(a in writing for a in args)


def _sed(args: Sequence[str]) -> bool:
    return "-n" in args and not any(a == "-i" or a.startswith(("-i", "--in-place")) for a in args)


def _sort(args: Sequence[str]) -> bool:
    return not any(a == "-o" or a.startswith(("-o", "--output")) for a in args)


def _uniq(args: Sequence[str]) -> bool:
    return len(_positional(args)) <= 1  # a second name is an output file


def _curl(args: Sequence[str]) -> bool:
    writing = ("-o", "-O", "--output", "--remote-name", "--remote-name-all", "-T", "--upload-file", "-K", "--config")
    return not any(a in writing or (a.startswith("-o") and a != "-o") for a in args)


def _wget(args: Sequence[str]) -> bool:
    joined = " ".join(args)
    return "-O -" in joined or "-O-" in joined or "-qO-" in joined or "-qO -" in joined


def _npm(args: Sequence[str]) -> bool:
    return bool(args) and args[0] in ("list", "ls", "view", "info", "outdated", "search", "explain", "why")


def _pip(args: Sequence[str]) -> bool:
    return bool(args) and args[0] in ("list", "show", "freeze", "check")


def _date(args: Sequence[str]) -> bool:
    return not any(a == "-s" or a.startswith("--set") for a in args)


def _env(args: Sequence[str]) -> bool:
    return not args  # "env cmd" would run cmd


ARGUMENT_RULES: dict[str, Callable[[Sequence[str]], bool]] = {
    "git": _git,
    "find": _find,
    "sed": _sed,
    "sort": _sort,
    "uniq": _uniq,
    "curl": _curl,
    "wget": _wget,
    "npm": _npm,
    "pip": _pip,
    "pip3": _pip,
    "date": _date,
    "env": _env,
}


def _tokens(command: str) -> list[str] | None:
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes
        return None


def _segments(tokens: list[str]) -> list[list[str]] | None:
    """Split at separators, dropping allowed redirections; ``None`` for a writing redirection."""
    segments: list[list[str]] = [[]]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in SEPARATORS:
            segments.append([])
        elif token in OUTPUT_REDIRECTS or token in INPUT_REDIRECTS:
            if segments[-1] and segments[-1][-1].isdigit():
                segments[-1].pop()  # the descriptor in "2>" belongs to the redirection
            target = tokens[index + 1] if index + 1 < len(tokens) else ""
            if token in OUTPUT_REDIRECTS and not (target == "/dev/null" or target.isdigit() or target == "-"):
                return None
            index += 1  # skip the target
        else:
            segments[-1].append(token)
        index += 1
    return [s for s in segments if s]


def _allowed(segment: list[str]) -> bool:
    words = list(segment)
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words.pop(0)  # LC_ALL=C sort
    if not words:
        return True
    program, args = os.path.basename(words[0]), words[1:]
    if program in VERSION_ONLY and args and all(a in VERSION_FLAGS for a in args):
        return True
    rule = ARGUMENT_RULES.get(program)
    if rule is not None:
        return rule(args)
    return program in READ_ONLY_PROGRAMS


def is_read_only_command(command: str) -> bool:
    if not command.strip() or any(marker in command for marker in UNREADABLE):
        return False
    tokens = _tokens(command)
    if tokens is None:
        return False
    segments = _segments(tokens)
    return segments is not None and all(_allowed(segment) for segment in segments)
