"""The tasks file of ``pi batch``: one JSON object per line, checked before anything runs.

A bad file is refused as a whole, with one line per problem naming the line number, so a run of
hundreds of tasks never stops halfway because of a typo in task 173.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from pi_harness.ai.types import THINKING_LEVELS

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
KNOWN_KEYS = frozenset(
    {
        "id",
        "prompt",
        "template",
        "args",
        "cwd",
        "repo",
        "ref",
        "isolation",
        "model",
        "tools",
        "thinking",
        "budgets",
        "check",
        "checkTimeout",
        "timeout",
        "cpus",
        "env",
    }
)
BUDGET_KEYS = {"turns": "maxTurns", "tokens": "maxTotalTokens", "cost": "maxCost"}


class TaskFileError(ValueError):
    """The tasks file cannot be run; ``problems`` has one line per defect."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Budgets:
    turns: int | None = None
    tokens: int | None = None
    cost: float | None = None

    def settings(self) -> dict[str, object]:
        """The ``agent.*`` run limits (beyond Pi) these budgets set."""
        values = {"turns": self.turns, "tokens": self.tokens, "cost": self.cost}
        return {f"agent.{BUDGET_KEYS[k]}": v for k, v in values.items() if v is not None}

    def merged_over(self, defaults: Budgets) -> Budgets:
        return Budgets(
            self.turns if self.turns is not None else defaults.turns,
            self.tokens if self.tokens is not None else defaults.tokens,
            self.cost if self.cost is not None else defaults.cost,
        )


@dataclass(frozen=True)
class Task:
    """One unit of work: a prompt run in its own headless session and working directory."""

    id: str
    prompt: str | None = None
    template: str | None = None
    args: tuple[str, ...] = ()
    cwd: str | None = None  # used as it is (tasks sharing it share the files)
    repo: str | None = None  # copied or checked out into a working directory of the task's own
    ref: str | None = None
    isolation: str = "auto"  # auto | worktree | copy
    model: str | None = None
    tools: tuple[str, ...] | None = None
    thinking: str | None = None
    budgets: Budgets = field(default_factory=Budgets)
    check: str | None = None
    check_timeout: float | None = None
    timeout: float | None = None
    cpus: float | None = None  # Ray resource request
    env: Mapping[str, str] = field(default_factory=dict)
    line: int = 0

    def prompt_text(self) -> str:
        """What is sent: the prompt, or ``/template args`` expanded by the session like a typed command."""
        if self.prompt is not None:
            return self.prompt
        assert self.template is not None
        return " ".join([f"/{self.template}", *(_quote(a) for a in self.args)])

    def to_json(self) -> dict[str, object]:
        """The task as it appears in a tasks file (also how it travels to a Ray worker)."""
        data: dict[str, object] = {"id": self.id}
        for key, value in (
            ("prompt", self.prompt),
            ("template", self.template),
            ("cwd", self.cwd),
            ("repo", self.repo),
            ("ref", self.ref),
            ("model", self.model),
            ("thinking", self.thinking),
            ("check", self.check),
            ("checkTimeout", self.check_timeout),
            ("timeout", self.timeout),
            ("cpus", self.cpus),
        ):
            if value is not None:
                data[key] = value
        if self.args:
            data["args"] = list(self.args)
        if self.isolation != "auto":
            data["isolation"] = self.isolation
        if self.tools is not None:
            data["tools"] = list(self.tools)
        budgets = {k: v for k, v in vars(self.budgets).items() if v is not None}
        if budgets:
            data["budgets"] = budgets
        if self.env:
            data["env"] = dict(self.env)
        return data


def _quote(arg: str) -> str:
    # The template argument splitter groups quoted words and has no escapes.
    if arg and not any(c in arg for c in " \t'\""):
        return arg
    return f"'{arg}'" if '"' in arg else f'"{arg}"'


def load_tasks(path: Path) -> list[Task]:
    """Every task of a tasks file, or ``TaskFileError`` listing every problem found."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TaskFileError([f"{path}: cannot read the tasks file: {error}"]) from error
    return parse_tasks(text.splitlines(), source=str(path))


def parse_tasks(lines: Sequence[str], *, source: str = "tasks") -> list[Task]:
    tasks: list[Task] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith("//"):
            continue
        where = f"{source}:{number}"
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as error:
            problems.append(f"{where}: not valid JSON ({error})")
            continue
        if not isinstance(data, dict):
            problems.append(f"{where}: a task must be a JSON object")
            continue
        errors: list[str] = []
        task = _task_from(data, number, errors)
        problems.extend(f"{where}: {e}" for e in errors)
        if task is None:
            continue
        if task.id in seen:
            problems.append(f"{where}: duplicate id {task.id!r} (first on line {seen[task.id]})")
            continue
        seen[task.id] = number
        tasks.append(task)
    if problems:
        raise TaskFileError(problems)
    if not tasks:
        raise TaskFileError([f"{source}: no tasks"])
    return tasks


def _task_from(data: Mapping[str, object], line: int, errors: list[str]) -> Task | None:
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        errors.append(f"unknown key(s) {', '.join(unknown)}")
    task_id = data.get("id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        task_id = str(task_id)
    if not isinstance(task_id, str) or not _ID.match(task_id):
        errors.append('"id" must be a name of letters, digits, ".", "_" or "-" (at most 128)')
        return None
    prompt = _opt_str(data, "prompt", errors)
    template = _opt_str(data, "template", errors)
    if (prompt is None) == (template is None):
        errors.append('give exactly one of "prompt" or "template"')
    args = _str_list(data, "args", errors) or ()
    if args and template is None:
        errors.append('"args" needs "template"')
    cwd, repo = _opt_str(data, "cwd", errors), _opt_str(data, "repo", errors)
    if cwd is not None and repo is not None:
        errors.append('give "cwd" or "repo", not both')
    isolation = _opt_str(data, "isolation", errors) or "auto"
    if isolation not in ("auto", "worktree", "copy"):
        errors.append('"isolation" must be "auto", "worktree" or "copy"')
    if repo is None and (data.get("ref") is not None or "isolation" in data):
        errors.append('"ref" and "isolation" need "repo"')
    thinking = _opt_str(data, "thinking", errors)
    if thinking is not None and thinking not in THINKING_LEVELS:
        errors.append(f'"thinking" must be one of {", ".join(THINKING_LEVELS)}')
    tools_raw = data.get("tools")
    tools: tuple[str, ...] | None = None
    if isinstance(tools_raw, str):
        tools = tuple(t.strip() for t in tools_raw.split(",") if t.strip())
    elif tools_raw is not None:
        tools = _str_list(data, "tools", errors)
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        errors.append('"env" must be an object of strings')
        env = {}
    task = Task(
        id=task_id,
        prompt=prompt,
        template=template,
        args=args,
        cwd=cwd,
        repo=repo,
        ref=_opt_str(data, "ref", errors),
        isolation=isolation,
        model=_opt_str(data, "model", errors),
        tools=tools,
        thinking=thinking,
        budgets=_budgets(data.get("budgets"), errors),
        check=_opt_str(data, "check", errors),
        check_timeout=_opt_seconds(data, "checkTimeout", errors),
        timeout=_opt_seconds(data, "timeout", errors),
        cpus=_opt_seconds(data, "cpus", errors),
        env={str(k): str(v) for k, v in env.items()},
        line=line,
    )
    return None if errors else task


def _opt_str(data: Mapping[str, object], key: str, errors: list[str]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        errors.append(f'"{key}" must be a non-empty string')
        return None
    return value


def _str_list(data: Mapping[str, object], key: str, errors: list[str]) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        errors.append(f'"{key}" must be a list of strings')
        return None
    return tuple(value)


def _opt_seconds(data: Mapping[str, object], key: str, errors: list[str]) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        errors.append(f'"{key}" must be a positive number')
        return None
    return float(value)


def _budgets(raw: object, errors: list[str]) -> Budgets:
    if raw is None:
        return Budgets()
    if not isinstance(raw, dict):
        errors.append('"budgets" must be an object with "turns", "tokens" and/or "cost"')
        return Budgets()
    unknown = sorted(set(raw) - set(BUDGET_KEYS))
    if unknown:
        errors.append(f"unknown budget(s) {', '.join(unknown)} (known: turns, tokens, cost)")
    turns, tokens, cost = raw.get("turns"), raw.get("tokens"), raw.get("cost")
    for name, value, integral in (("turns", turns, True), ("tokens", tokens, True), ("cost", cost, False)):
        if value is None:
            continue
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or (integral and not isinstance(number, int)) or number <= 0:
            errors.append(f'budget "{name}" must be a positive {"integer" if integral else "number"}')
    if any(e.startswith("budget") for e in errors):
        return Budgets()
    return Budgets(
        int(turns) if isinstance(turns, int) else None,
        int(tokens) if isinstance(tokens, int) else None,
        float(cost) if isinstance(cost, int | float) else None,
    )
