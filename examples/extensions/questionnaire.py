"""questionnaire: a tool that asks you one or several questions in one panel.

What it shows: a richer custom component behind a tool. The model sends ``questions``, each
with an ``id``, a short ``label`` for the tab, the ``prompt`` and ``options`` (``value`` +
``label``); ``allow_other`` (default true) adds a "Type something…" option with a text field.

* One question: a plain list; Enter answers and closes.
* Several: a tab bar on top (``← →`` or Tab move between questions, answered ones get a ✓);
  Enter answers and goes to the next question; the last tab, "Submit", sends every answer once
  all are answered.

Escape cancels the whole questionnaire (the model is told so). The tool returns one line per
question, ``id: answer``, and the answers as ``details``.

Load it with ``pi -e examples/extensions/questionnaire.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext

OTHER = "Type something…"
PARAMETERS = {
    "type": "object",
    "required": ["questions"],
    "properties": {"questions": {"type": "array", "description": "Questions to ask the user", "items": {
        "type": "object", "required": ["id", "prompt", "options"], "properties": {
            "id": {"type": "string", "description": "Unique identifier of the question"},
            "label": {"type": "string", "description": "Short name for the tab (defaults to Q1, Q2 …)"},
            "prompt": {"type": "string", "description": "The full question"},
            "options": {"type": "array", "items": {"type": "object", "required": ["value", "label"],
                        "properties": {"value": {"type": "string"}, "label": {"type": "string"},
                                       "description": {"type": "string"}}}},
            "allow_other": {"type": "boolean", "description": "Offer a free-text answer (default true)"}}}}},
}  # fmt: skip


class Questionnaire:
    def __init__(self, questions: list[dict[str, Any]], theme: Any, done: Any) -> None:
        self.questions, self.theme, self.done = questions, theme, done
        self.tab = 0
        self.selected = [0] * len(questions)
        self.answers: dict[str, str] = {}
        self.typing: str | None = None

    @property
    def single(self) -> bool:
        return len(self.questions) == 1

    def options(self, index: int) -> list[dict[str, Any]]:
        question = self.questions[index]
        extra = [{"value": None, "label": OTHER}] if question.get("allow_other", True) else []
        return [*question.get("options", []), *extra]

    def answer(self, value: str) -> None:
        self.answers[str(self.questions[self.tab]["id"])] = value
        self.typing = None
        if self.single:
            self.done(dict(self.answers))
        else:
            self.tab += 1  # the next question, or the submit tab

    def handle_input(self, key: str) -> None:
        if self.typing is not None:
            if key == "escape":
                self.typing = None
            elif key == "enter" and self.typing.strip():
                self.answer(self.typing.strip())
            elif key == "backspace":
                self.typing = self.typing[:-1]
            elif len(key) == 1 or key == "space":
                self.typing += " " if key == "space" else key
            return
        tabs = len(self.questions) + (0 if self.single else 1)
        if key == "escape":
            self.done(None)
        elif key in ("right", "tab") and not self.single:
            self.tab = (self.tab + 1) % tabs
        elif key in ("left", "shift+tab") and not self.single:
            self.tab = (self.tab - 1) % tabs
        elif self.tab == len(self.questions):
            if key == "enter" and len(self.answers) == len(self.questions):
                self.done(dict(self.answers))
        elif key in ("up", "down"):
            count = len(self.options(self.tab))
            self.selected[self.tab] = (self.selected[self.tab] + (1 if key == "down" else -1)) % count
        elif key == "enter":
            option = self.options(self.tab)[self.selected[self.tab]]
            if option["value"] is None:
                self.typing = ""
            else:
                self.answer(str(option["value"]))

    def tab_bar(self) -> str:
        names = []
        for index, question in enumerate(self.questions):
            done = "✓ " if str(question["id"]) in self.answers else ""
            name = f" {done}{question.get('label') or f'Q{index + 1}'} "
            names.append(self.theme.style(name, "accent", bold=True) if index == self.tab else name)
        submit = " Submit "
        names.append(self.theme.style(submit, "accent", bold=True) if self.tab == len(self.questions) else submit)
        return "│".join(names)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        rows = [] if self.single else [self.tab_bar(), ""]
        if self.tab == len(self.questions):
            for question in self.questions:
                answer = self.answers.get(str(question["id"]), theme.fg("warning", "(not answered)"))
                rows.append(f" {question['prompt']}: {answer}")
            missing = len(self.questions) - len(self.answers)
            rows += ["", theme.fg("muted", " enter: submit" if not missing else f" {missing} still to answer")]
            return rows
        question = self.questions[self.tab]
        rows.append(theme.style(" " + str(question["prompt"]), "accent", bold=True))
        for index, option in enumerate(self.options(self.tab)):
            chosen = index == self.selected[self.tab]
            label = ("→ " if chosen else "  ") + str(option["label"])
            rows.append(" " + (theme.style(label, "accent", bold=True) if chosen else label))
        if self.typing is not None:
            rows += [" > " + self.typing + "▏"]
        hint = " ↑/↓ choose · enter: answer · esc: cancel" + ("" if self.single else " · ←/→ questions")
        return [*rows, "", theme.fg("muted", hint)]


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(
        name="questionnaire",
        label="Questionnaire",
        description="Ask the user one or more multiple-choice questions at once and get every answer back.",
        parameters=PARAMETERS,
    )
    async def ask(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext) -> Any:
        questions = [q for q in params.get("questions") or [] if isinstance(q, dict)]
        if not questions:
            return {"content": [{"type": "text", "text": "Error: no questions given"}], "isError": True}
        if not ctx.has_ui or ctx.mode not in ("tui", "interactive"):
            return {"content": [{"type": "text", "text": "Error: no interactive UI to ask the user"}], "isError": True}
        answers = await ctx.ui.custom(lambda context, done: Questionnaire(questions, context.theme, done))
        if answers is None:
            return {"content": [{"type": "text", "text": "The user cancelled the questionnaire"}], "details": None}
        text = "\n".join(f"{q['id']}: {answers.get(str(q['id']), '')}" for q in questions)
        return {"content": [{"type": "text", "text": text}], "details": answers}
