"""question: a tool the model uses to ask you one question with choices.

What it shows: a tool whose ``execute`` opens a custom component (``ctx.ui.custom``) and
returns what you picked, so the model can continue with your answer. The options come from
the model (``label`` and an optional ``description``); a last option, "Type something…",
turns the panel into a text field for your own answer (Enter sends it, Escape goes back to
the options). Up/down choose, Enter picks, Escape in the list cancels: the tool then tells the
model you declined to answer. Without a UI the tool fails with a clear error, so the model
knows it has to decide alone. ``render_call`` / ``render_result`` draw the question and the
answer compactly in the transcript.

Load it with ``pi -e examples/extensions/question.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext

OTHER = "Type something…"
PARAMETERS = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "description": "The question to ask the user"},
        "options": {
            "type": "array",
            "description": "Options for the user to choose from",
            "items": {"type": "object", "required": ["label"], "properties": {
                "label": {"type": "string", "description": "What the option says"},
                "description": {"type": "string", "description": "A line under the label"}}},
        },
    },
    "required": ["question", "options"],
}  # fmt: skip


class QuestionPanel:
    def __init__(self, question: str, options: list[dict[str, Any]], theme: Any, done: Any) -> None:
        self.question, self.theme, self.done = question, theme, done
        self.options = [*options, {"label": OTHER, "other": True}]
        self.selected = 0
        self.typing: str | None = None  # the text field's content while it is open

    def handle_input(self, key: str) -> None:
        if self.typing is not None:
            if key == "escape":
                self.typing = None
            elif key == "enter" and self.typing.strip():
                self.done({"answer": self.typing.strip(), "custom": True})
            elif key == "backspace":
                self.typing = self.typing[:-1]
            elif key == "space":
                self.typing += " "
            elif len(key) == 1:
                self.typing += key
            return
        if key == "escape":
            self.done(None)
        elif key in ("up", "down"):
            self.selected = (self.selected + (1 if key == "down" else -1)) % len(self.options)
        elif key == "enter":
            option = self.options[self.selected]
            if option.get("other"):
                self.typing = ""
            else:
                self.done({"answer": option["label"], "custom": False})

    def render(self, width: int) -> list[str]:
        theme = self.theme
        rows = [theme.style(" " + self.question, "accent", bold=True), ""]
        for index, option in enumerate(self.options):
            chosen = index == self.selected
            label = ("→ " if chosen else "  ") + f"{index + 1}. {option['label']}"
            rows.append(" " + (theme.style(label, "accent", bold=True) if chosen else label))
            if option.get("description"):
                rows.append("      " + theme.fg("muted", str(option["description"])))
        if self.typing is not None:
            rows += ["", " > " + self.typing + "▏", theme.fg("muted", " enter: send · esc: back to the options")]
        else:
            rows += ["", theme.fg("muted", " ↑/↓ choose · enter: pick · esc: cancel")]
        return rows


def render_call(args: dict[str, Any], context: Any) -> list[str]:
    return [context.theme.style("question ", "accent", bold=True) + str(args.get("question", ""))]


def render_result(result: dict[str, Any], is_error: bool, context: Any) -> list[str]:
    text = "".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
    return [context.theme.fg("error" if is_error else "success", text)]


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(
        name="question",
        label="Question",
        description="Ask the user a question and let them pick from options. Use it when you need the "
        "user's decision to go on.",
        parameters=PARAMETERS,
        render_call=render_call,
        render_result=render_result,
    )
    async def ask(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext) -> Any:
        if not ctx.has_ui or ctx.mode not in ("tui", "interactive"):
            return {"content": [{"type": "text", "text": "Error: no interactive UI to ask the user"}], "isError": True}
        question, options = str(params["question"]), list(params.get("options") or [])
        answer = await ctx.ui.custom(lambda context, done: QuestionPanel(question, options, context.theme, done))
        if answer is None:
            return {"content": [{"type": "text", "text": "The user declined to answer"}], "details": {"answer": None}}
        kind = "wrote" if answer["custom"] else "chose"
        return {"content": [{"type": "text", "text": f"The user {kind}: {answer['answer']}"}], "details": answer}
