"""tic-tac-toe: you against the model, and why some tools must run one after another.

You play X with ``/tic-tac-toe``: a board appears, the arrow keys move your cursor, Enter puts
your X (Escape leaves without playing). Then the model is told it is its turn and plays O with
the ``tic_tac_toe`` tool. The tool takes one small action per call (``move_up``,
``move_down``, ``move_left``, ``move_right`` to move the model's cursor, ``play`` to put an O
under it, ``show`` to see the board), so reaching a cell takes several calls in one response.
Moves take a moment; run in parallel, ``play`` could finish before the moves that should come
first and the O would land elsewhere. The tool is declared with
``execution_mode="sequential"``, so calls of one response run in order.

The game is kept in the session (``pi.append_entry``), so it survives a restart.

Load it with ``pi -e examples/extensions/tic_tac_toe.py`` and type ``/tic-tac-toe``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

ENTRY = "tic-tac-toe"
MOVE_DELAY = 0.05  # seconds; long enough that unordered calls would overtake each other
LINES = [[(r, c) for c in range(3)] for r in range(3)] + [[(r, c) for r in range(3)] for c in range(3)]
LINES += [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]
ACTIONS = ("move_up", "move_down", "move_left", "move_right", "play", "show")


class Game:
    def __init__(self) -> None:
        self.board: list[list[str]] = []
        self.agent_cursor = (1, 1)
        self.reset()

    def reset(self) -> None:
        self.board = [[" "] * 3 for _ in range(3)]
        self.agent_cursor = (1, 1)

    def winner(self) -> str | None:
        for line in LINES:
            marks = {self.board[r][c] for r, c in line}
            if len(marks) == 1 and (mark := marks.pop()) != " ":
                return mark
        return "draw" if all(cell != " " for row in self.board for cell in row) else None

    def text(self) -> str:
        rows = [" " + " │ ".join(row) for row in self.board]
        r, c = self.agent_cursor
        return "\n───┼───┼───\n".join(rows) + f"\n(your cursor: row {r}, column {c})"

    def state(self) -> dict[str, Any]:
        return {"board": [row[:] for row in self.board], "cursor": list(self.agent_cursor)}

    def load(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("board"), list):
            self.board = [list(row) for row in data["board"]]
            row, column = data.get("cursor", (1, 1))
            self.agent_cursor = (int(row), int(column))


class Board:
    """The user's turn: move with the arrows, Enter plays."""

    def __init__(self, game: Game, theme: Any, done: Any) -> None:
        self.game, self.theme, self.done = game, theme, done
        self.cursor = (1, 1)

    def handle_input(self, key: str) -> None:
        r, c = self.cursor
        moves = {"up": (r - 1, c), "down": (r + 1, c), "left": (r, c - 1), "right": (r, c + 1)}
        if key in moves:
            nr, nc = moves[key]
            self.cursor = (min(2, max(0, nr)), min(2, max(0, nc)))
        elif key == "enter" and self.game.board[r][c] == " ":
            self.done(self.cursor)
        elif key in ("escape", "q"):
            self.done(None)

    def render(self, width: int) -> list[str]:
        rows = [self.theme.fg("accent", " Tic-tac-toe: you are X")]
        for r in range(3):
            cells = []
            for c in range(3):
                mark = f" {self.game.board[r][c]} "
                cells.append(self.theme.style(mark, "accent", bold=True) if (r, c) == self.cursor else mark)
            rows.append(" " + "│".join(cells))
            if r < 2:
                rows.append(" ───┼───┼───")
        rows.append(self.theme.fg("muted", " arrows: move · enter: play · esc: leave"))
        return rows


def extension(pi: ExtensionAPI) -> None:
    game = Game()

    def save() -> None:
        pi.append_entry(ENTRY, game.state())

    @pi.on("session_start")
    async def restore(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        for entry in ctx.session_manager.get_entries():
            if entry.get("customType") == ENTRY:
                game.load(entry.get("data"))

    @pi.command("tic-tac-toe", description="Play tic-tac-toe against the model")
    async def play(args: str, ctx: ExtensionCommandContext) -> None:
        if args.strip() == "new" or game.winner():
            game.reset()
        cell = await ctx.ui.custom(lambda context, done: Board(game, context.theme, done))
        if cell is None:
            return
        r, c = cell
        game.board[r][c] = "X"
        save()
        result = game.winner()
        if result:
            ctx.ui.notify("Draw!" if result == "draw" else f"{result} wins!", "info")
            return
        await pi.send_user_message(f"I played X at row {r}, column {c}. Your turn: play O with the tic_tac_toe tool.")

    @pi.tool(
        name="tic_tac_toe",
        label="Tic-tac-toe",
        description="Play O in the user's tic-tac-toe game. One action per call: move_up, move_down, "
        "move_left, move_right (move your cursor), play (put O under the cursor) or show (see the board). "
        "Rows and columns count from 0, row 0 at the top.",
        parameters={
            "type": "object",
            "properties": {"action": {"type": "string", "enum": list(ACTIONS)}},
            "required": ["action"],
        },
        execution_mode="sequential",
    )
    async def tool(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: ExtensionContext) -> Any:
        action = str(params.get("action"))
        r, c = game.agent_cursor
        steps = {"move_up": (r - 1, c), "move_down": (r + 1, c), "move_left": (r, c - 1), "move_right": (r, c + 1)}
        if action in steps:
            await asyncio.sleep(MOVE_DELAY)
            nr, nc = steps[action]
            game.agent_cursor = (min(2, max(0, nr)), min(2, max(0, nc)))
            text = f"Cursor at row {game.agent_cursor[0]}, column {game.agent_cursor[1]}"
        elif action == "play":
            if game.board[r][c] != " ":
                return {
                    "content": [{"type": "text", "text": f"Cell ({r}, {c}) is taken\n{game.text()}"}],
                    "isError": True,
                }
            game.board[r][c] = "O"
            save()
            result = game.winner()
            text = f"O played at row {r}, column {c}\n{game.text()}"
            if result:
                text += "\nDraw!" if result == "draw" else f"\n{result} wins!"
        elif action == "show":
            text = game.text()
        else:
            return {"content": [{"type": "text", "text": f"Unknown action {action!r}"}], "isError": True}
        return {"content": [{"type": "text", "text": text}], "details": game.state()}
