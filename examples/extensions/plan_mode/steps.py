"""Plan steps: finding the numbered list under ``Plan:`` and the ``[DONE:n]`` progress markers."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

MAX_STEP_CHARS = 60
MIN_STEP_CHARS = 4

_DECORATION = "#*_ \t"
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(?P<text>\S.*)$")
_SECTION_LABEL = re.compile(r"^[A-Za-z][^:\n]{0,40}:\s*$")  # "Notes:", "Risks:" end the plan
_DONE = re.compile(r"\[DONE:(\d+)\]", re.IGNORECASE)
_EMPHASIS = re.compile(r"(\*{1,2}|_{1,2}|`)(.+?)\1")


@dataclass
class Todo:
    step: int
    text: str
    completed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Todo | None:
        if not isinstance(data, dict) or not isinstance(data.get("step"), int) or not isinstance(data.get("text"), str):
            return None
        return cls(data["step"], data["text"], bool(data.get("completed")))


def _is_plan_header(line: str) -> bool:
    return line.strip(_DECORATION).rstrip(":").strip(_DECORATION).lower() == "plan" and (
        ":" in line or line.lstrip().startswith("#")
    )


def clean_step(text: str) -> str:
    """One line of plain text: emphasis and code marks removed, spaces collapsed, length capped."""
    plain = _EMPHASIS.sub(r"\2", text)
    plain = " ".join(plain.replace("**", "").split())
    if plain:
        plain = plain[0].upper() + plain[1:]
    if len(plain) > MAX_STEP_CHARS:
        plain = plain[: MAX_STEP_CHARS - 3].rstrip() + "..."
    return plain


def extract_steps(text: str) -> list[Todo]:
    """The numbered items after the last ``Plan:`` header, renumbered from 1.

    The list ends at the next markdown heading or section label (``Risks:``); lines that are not
    numbered items (explanations, sub-bullets) are skipped.
    """
    lines = text.splitlines()
    header = max((i for i, line in enumerate(lines) if _is_plan_header(line)), default=None)
    if header is None:
        return []
    todos: list[Todo] = []
    for line in lines[header + 1 :]:
        stripped = line.strip()
        if stripped.startswith("#") or (not line[:1].isspace() and _SECTION_LABEL.match(stripped)):
            break
        match = _NUMBERED.match(line)
        if match is None:
            continue
        step = clean_step(match.group("text"))
        if len(step) >= MIN_STEP_CHARS:
            todos.append(Todo(len(todos) + 1, step))
    return todos


def done_steps(text: str) -> list[int]:
    return [int(number) for number in _DONE.findall(text)]


def mark_done(text: str, todos: list[Todo]) -> int:
    """Mark the steps ``text`` reports with ``[DONE:n]``; returns how many were newly completed."""
    newly = 0
    by_step = {todo.step: todo for todo in todos}
    for step in done_steps(text):
        todo = by_step.get(step)
        if todo is not None and not todo.completed:
            todo.completed = True
            newly += 1
    return newly
