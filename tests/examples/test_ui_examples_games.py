"""The game and panel examples as components: keys in, rows out (no terminal, no timing)."""

from __future__ import annotations

import random
from typing import Any

from _examples_support import load_example
from _ui_support import context, plain


class Done:
    """The ``done`` callback of ``ctx.ui.custom``: remembers the value."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def __call__(self, value: Any) -> None:
        self.values.append(value)


def keys(component: Any, *names: str) -> None:
    for name in names:
        component.handle_input(name)


def test_snake_eats_grows_and_crashes_into_the_wall() -> None:
    snake = load_example("snake")
    done = Done()
    game = snake.SnakeGame(context().theme, done, rng=random.Random(1))
    head = game.body[0]
    game.food = (head[0] + 1, head[1])  # right in front
    game.step()
    assert game.score == 1 and len(game.body) == 4
    screen = plain(game.render(80))
    assert "score 1" in screen[0]
    keys(game, "left")  # turning back into itself is ignored
    assert game.next_direction == (1, 0)
    keys(game, "up")
    for _ in range(snake.HEIGHT):
        game.step()
    assert game.over
    assert "Game over!" in plain(game.render(80))[-1]
    keys(game, "r")
    assert not game.over and game.score == 0
    keys(game, "q")
    assert done.values == [1]  # the best score so far


def test_snake_pause_stops_the_snake_and_tick_reports_it() -> None:
    snake = load_example("snake")
    game = snake.SnakeGame(context().theme, Done(), rng=random.Random(2))
    head = game.body[0]
    assert game.tick() is False and game.tick() is True  # one move every second tick
    assert game.body[0] == (head[0] + 1, head[1])
    keys(game, "space")
    before = list(game.body)
    assert [game.tick(), game.tick()] == [False, False] and list(game.body) == before
    assert "Paused" in plain(game.render(80))[-1]


def test_snake_best_score_comes_from_session_entries() -> None:
    snake = load_example("snake")
    entries = [{"type": "custom", "customType": "snake-best", "data": {"best": 4}},
               {"type": "custom", "customType": "other", "data": {"best": 99}}]  # fmt: skip
    assert snake.best_score(entries) == 4


def test_space_invaders_shots_hit_and_the_cannon_moves() -> None:
    invaders = load_example("space_invaders")
    done = Done()
    game = invaders.InvadersGame(context().theme, done, rng=random.Random(3))
    start = game.cannon
    keys(game, "left", "left")
    assert game.cannon == start - 2
    target = next(iter(sorted(game.invaders, key=lambda p: -p[1])))
    game.invaders = {target}
    game.cannon = target[0]
    game.rng = random.Random(0)
    keys(game, "space")
    for _ in range(invaders.HEIGHT):
        game.heading = 0  # hold the last invader still so the shot meets it
        game.step()
        if game.state != "playing":
            break
    assert game.state == "won" and game.score == 10
    assert "saved the planet" in plain(game.render(80))[-1]
    keys(game, "q")
    assert done.values == [10]


def test_space_invaders_landing_loses() -> None:
    invaders = load_example("space_invaders")
    game = invaders.InvadersGame(context().theme, Done(), rng=random.Random(4))
    game.invaders = {(5, invaders.HEIGHT - 2)}
    game.bombs = []
    game.clock = game.march_every - 1
    game.heading = 1
    game.invaders = {(invaders.WIDTH - 1, invaders.HEIGHT - 2)}  # at the edge: the next march steps down
    game.step()
    assert game.state == "lost"


def test_maze_walks_to_the_exit() -> None:
    doom = load_example("doom_overlay")
    done = Done()
    view = doom.MazeView(context().theme, done)
    first = plain(view.render(60))
    assert len(first) == doom.VIEW_ROWS + 1 and any("█" in row or "▓" in row for row in first)
    view.x, view.y, view.angle = 8.5, 7.5, 1.5707963267948966  # facing the exit, one step away
    keys(view, "w", "w")
    assert view.escaped
    assert "You found the exit!" in plain(view.render(60))[0]
    keys(view, "q")
    assert done.values == [True]


def test_maze_walls_block_and_the_map_shows_the_player() -> None:
    doom = load_example("doom_overlay")
    view = doom.MazeView(context().theme, Done())
    view.angle = 3.14159  # facing the wall on the left
    keys(view, "w", "w", "w")
    assert (int(view.x), int(view.y)) == (1, 1)
    keys(view, "m")
    assert any("@" in row for row in plain(view.render(60)))


def test_question_panel_picks_an_option_or_takes_typed_text() -> None:
    question = load_example("question")
    done = Done()
    options = [{"label": "PostgreSQL", "description": "relational"}, {"label": "SQLite"}]
    panel = question.QuestionPanel("Which database?", options, context().theme, done)
    rows = plain(panel.render(80))
    assert rows[0].strip() == "Which database?" and "→ 1. PostgreSQL" in rows[2] and "relational" in rows[3]
    keys(panel, "down", "enter")
    assert done.values == [{"answer": "SQLite", "custom": False}]
    keys(panel, "down", "enter")  # "Type something…"
    assert panel.typing == ""
    keys(panel, "D", "u", "c", "k", "space", "D", "B", "escape")  # Escape goes back to the options
    assert panel.typing is None
    keys(panel, "enter", "x", "enter")
    assert done.values[-1] == {"answer": "x", "custom": True}
    keys(panel, "escape", "escape")
    assert done.values[-1] is None


def test_questionnaire_tabs_answers_and_submits() -> None:
    questionnaire = load_example("questionnaire")
    done = Done()
    questions = [
        {"id": "lang", "label": "Language", "prompt": "Which language?",
         "options": [{"value": "py", "label": "Python"}, {"value": "rs", "label": "Rust"}]},
        {"id": "tests", "prompt": "Write tests?", "options": [{"value": "yes", "label": "Yes"}], "allow_other": False},
    ]  # fmt: skip
    panel = questionnaire.Questionnaire(questions, context().theme, done)
    assert "Language" in plain(panel.render(80))[0] and "Submit" in plain(panel.render(80))[0]
    keys(panel, "down", "enter")  # Rust, then on to the next question
    assert panel.tab == 1 and "✓ Language" in plain(panel.render(80))[0]
    assert "Type something" not in "\n".join(plain(panel.render(80)))  # allow_other false
    keys(panel, "right")
    assert "1 still to answer" in "\n".join(plain(panel.render(80)))
    keys(panel, "enter")
    assert done.values == []
    keys(panel, "left", "enter", "enter")
    assert done.values == [{"lang": "rs", "tests": "yes"}]


def test_overlay_test_menu_fields_and_toggle() -> None:
    overlay = load_example("overlay_test")
    done = Done()
    menu = overlay.OverlayMenu(context().theme, done)
    keys(menu, "A", "d", "a", "down", "backspace", "backspace", "backspace", "backspace", "r", "e", "d")
    keys(menu, "down", "space", "down", "enter")
    assert done.values == [{"name": "Ada", "colour": "red", "verbose": True}]
    rows = plain(menu.render(40))
    assert rows[0].startswith("┌") and rows[-1].startswith("└") and any("漢字" in row for row in rows)


def test_tic_tac_toe_board_and_winner() -> None:
    ttt = load_example("tic_tac_toe")
    game = ttt.Game()
    done = Done()
    board = ttt.Board(game, context().theme, done)
    keys(board, "up", "left", "enter")
    assert done.values == [(0, 0)]
    game.board = [["X", "X", "X"], [" ", "O", " "], ["O", " ", " "]]
    assert game.winner() == "X"
    game.load(game.state())
    assert game.board[0] == ["X", "X", "X"]
