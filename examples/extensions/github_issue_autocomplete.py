"""github-issue-autocomplete: ``#`` in the editor completes the repository's open GitHub issues.

Type ``#`` (at the start of the input or after a space) and the editor suggests open issues as
``#1234  [open] Crash when the config is empty``; keep typing digits to narrow by number, or words
to search the titles. The issues (the 100 most recent open ones) are fetched once per session, in
the background when the session starts, with the GitHub CLI: ``gh issue list``. Everything else
you type is completed as before.

Needs ``gh`` (logged in) and a checkout whose ``git remote -v`` names a github.com repository; if
not, you are told once why there are no issue completions.

What it shows: ``ctx.ui.add_autocomplete_provider(factory)``: the factory receives the editor's
current provider and returns one that answers for ``#...`` and hands everything else to it;
``pi.exec`` with ``cwd`` and ``timeout``; loading data once, lazily, and sharing the result.

Load it with ``pi -e examples/extensions/github_issue_autocomplete.py``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

MAX_ISSUES = 100
MAX_SUGGESTIONS = 20
TIMEOUT_MS = 5_000
ISSUE_TOKEN = re.compile(r"(?:^|[ \t])#([^\s#]*)$")
GITHUB_REMOTE = (
    re.compile(r"^git@github\.com:([^/]+/[^/]+?)(?:\.git)?$"),
    re.compile(r"^https?://github\.com/([^/]+/[^/]+?)(?:\.git)?/?$"),
)

Issue = Mapping[str, Any]  # {"number", "title", "state"} as gh prints them


def issue_token(text_before_cursor: str) -> str | None:
    """What follows ``#`` in the word at the cursor (``""`` right after ``#``), or ``None``."""
    match = ISSUE_TOKEN.search(text_before_cursor)
    return match.group(1) if match else None


def github_repo(remote_url: str) -> str | None:
    for pattern in GITHUB_REMOTE:
        match = pattern.match(remote_url)
        if match:
            return match.group(1)
    return None


def is_subsequence(query: str, text: str) -> bool:
    letters = iter(text)
    return all(char in letters for char in query)


def matching_issues(issues: Sequence[Issue], query: str) -> list[dict[str, str]]:
    if not query:
        chosen = list(issues)
    elif query.isdigit() and any(str(i["number"]).startswith(query) for i in issues):
        chosen = [i for i in issues if str(i["number"]).startswith(query)]
    else:
        words = query.lower()
        chosen = [i for i in issues if is_subsequence(words, f"{i['number']} {i['title']}".lower())]
    return [
        {
            "value": f"#{i['number']}",
            "label": f"#{i['number']}",
            "description": f"[{str(i['state']).lower()}] {i['title']}",
        }
        for i in chosen[:MAX_SUGGESTIONS]
    ]


class IssueCompletions:
    """An autocomplete provider that answers for ``#...`` and defers everything else to ``base``."""

    def __init__(self, base: Any, load: Callable[[], Awaitable[Sequence[Issue] | None]]) -> None:
        self.base = base
        self.load = load

    async def get_suggestions(self, lines: list[str], cursor_line: int, cursor_col: int, options: Any) -> Any:
        token = issue_token((lines[cursor_line] if cursor_line < len(lines) else "")[:cursor_col])
        if token is not None:
            issues = await self.load()
            signal = options.get("signal") if isinstance(options, Mapping) else getattr(options, "signal", None)
            aborted = bool(getattr(signal, "aborted", False))
            suggestions = [] if aborted else matching_issues(issues or [], token)
            if suggestions:
                return {"items": suggestions, "prefix": f"#{token}"}
        return await self.base.get_suggestions(lines, cursor_line, cursor_col, options)

    def apply_completion(self, lines: list[str], cursor_line: int, cursor_col: int, item: Any, prefix: str) -> Any:
        return self.base.apply_completion(lines, cursor_line, cursor_col, item, prefix)

    def should_trigger_file_completion(self, lines: list[str], cursor_line: int, cursor_col: int) -> bool:
        check = getattr(self.base, "should_trigger_file_completion", None)
        return bool(check(lines, cursor_line, cursor_col)) if check is not None else True


def extension(pi: ExtensionAPI) -> None:
    async def find_repo(cwd: str) -> tuple[str | None, str]:
        result = await pi.exec("git", ["remote", "-v"], cwd=cwd, timeout=TIMEOUT_MS)
        if result["code"] != 0:
            return None, "github-issue-autocomplete: this directory is not a git repository"
        for line in result["stdout"].splitlines():
            columns = line.split()
            repo = github_repo(columns[1]) if len(columns) > 1 else None
            if repo:
                return repo, ""
        return None, "github-issue-autocomplete: no GitHub remote in this repository"

    def issue_loader(repo: str, ctx: ExtensionContext) -> Callable[[], Awaitable[Sequence[Issue] | None]]:
        pending: list[asyncio.Task[Sequence[Issue] | None]] = []

        async def fetch() -> Sequence[Issue] | None:
            args = ["issue", "list", "--repo", repo, "--state", "open", "--limit", str(MAX_ISSUES)]
            result = await pi.exec("gh", [*args, "--json", "number,title,state"], cwd=ctx.cwd, timeout=TIMEOUT_MS)
            if result["code"] != 0:
                reason = result["stderr"].strip() or f"exit code {result['code']}"
                ctx.ui.notify(f"github-issue-autocomplete: could not list the issues: {reason}", "error")
                return None
            try:
                issues = json.loads(result["stdout"])
            except ValueError:
                ctx.ui.notify("github-issue-autocomplete: gh printed something that is not JSON", "error")
                return None
            return issues if isinstance(issues, list) else None

        async def load() -> Sequence[Issue] | None:
            if not pending:  # one fetch per session, shared by every completion request
                pending.append(asyncio.get_running_loop().create_task(fetch()))
            return await pending[0]

        return load

    @pi.on("session_start")
    async def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        repo, problem = await find_repo(ctx.cwd)
        if repo is None:
            ctx.ui.notify(problem, "error")
            return
        load = issue_loader(repo, ctx)
        asyncio.get_running_loop().create_task(load())  # warm up while the user starts typing
        ctx.ui.add_autocomplete_provider(lambda current: IssueCompletions(current, load))
