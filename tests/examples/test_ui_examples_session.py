"""UI examples in the real interactive mode against the fake LLM server: what the screen shows."""

from __future__ import annotations

import json
from pathlib import Path

from _ui_support import project_fixture, screen_lines, server_fixture, ui_pi  # noqa: F401  (fixtures)

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ThinkingStep, ToolCallStep
from pi_harness.tui.ansi import strip_ansi


async def test_status_line_follows_the_turns(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(ScriptedResponse([TextStep("done")]))
    async with ui_pi(agent_dir, "status_line") as pi:
        await pi.wait_for(lambda: "agent ready" in pi.screen(), "the ready status")
        await pi.submit("go")
        await pi.idle()
        await pi.wait_for(lambda: "✓ turn 1 done" in pi.screen(), "the finished turn")


async def test_widgets_above_and_below_the_editor(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "widget_placement") as pi:
        await pi.wait_for(lambda: "Widget below the editor" in pi.screen(), "both widgets")
        lines = screen_lines(pi)
        above = lines.index("Widget above the editor")
        below = lines.index("Widget below the editor")
        rules = [i for i, line in enumerate(lines) if line.startswith("────")]
        assert above < rules[0] and rules[1] < below  # the editor's two rules lie between them
        await pi.submit("/widgets off")
        await pi.wait_for(lambda: "Widget above the editor" not in pi.screen(), "widgets removed")
        assert "Widget below the editor" not in pi.screen()


async def test_working_indicator_styles(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "working_indicator") as pi:
        working = pi.mode.shell.working
        await pi.submit("/working-indicator dot")
        await pi.wait_for(lambda: "Working indicator set to dot" in pi.screen(), "the confirmation")
        assert strip_ansi(working.render(80)[0]).startswith(" ● Working…")
        working.tick(1.0)
        assert strip_ansi(working.render(80)[0]).startswith(" ● ")  # one frame does not animate
        await pi.submit("/working-indicator none")
        await pi.wait_for(lambda: "set to none" in pi.screen(), "the second style")
        assert strip_ansi(working.render(80)[0]).startswith(" Working…")
        await pi.submit("/working-indicator reset")
        await pi.wait_for(lambda: "set to reset" in pi.screen(), "the reset")
        assert strip_ansi(working.render(80)[0]).startswith(" ⠋ Working…")
        await pi.submit("/working-indicator sparkle")
        await pi.wait_for(lambda: "Unknown style 'sparkle'" in pi.screen(), "the error")


async def test_working_message_lasts_across_runs(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(ScriptedResponse([TextStep("one")]), ScriptedResponse([TextStep("two")]))
    async with ui_pi(agent_dir, "working_message_test") as pi:
        for prompt in ("first", "second"):
            await pi.submit(prompt)
            await pi.idle()
            row = strip_ansi(pi.mode.shell.working.render(80)[0])
            assert row.startswith(" ● Working... (custom)"), row


async def test_hidden_thinking_label(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(ScriptedResponse([ThinkingStep("secret reasoning"), TextStep("The answer.")]))
    async with ui_pi(agent_dir, "hidden_thinking_label") as pi:
        await pi.press("ctrl+t")  # hide thinking blocks
        await pi.submit("think")
        await pi.wait_for(lambda: "The answer." in pi.scrollback(), "the answer")
        assert "Pondering quietly…" in pi.scrollback() and "secret reasoning" not in pi.scrollback()
        await pi.submit("/thinking-label")
        await pi.wait_for(lambda: "Hidden thinking label restored" in pi.screen(), "the reset")
        assert pi.mode.shell.context.hidden_thinking_label is None


async def test_model_status_names_the_model_and_announces_changes(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    async with ui_pi(agent_dir, "model_status") as pi:
        await pi.wait_for(lambda: "🤖 fake/fake-model" in pi.screen(), "the restored model")
        await pi.submit("/model fake/other-model")
        await pi.wait_for(lambda: "🤖 fake/other-model" in pi.screen(), "the new model")
        assert pi.screen_has("Model changed: fake/fake-model → fake/other-model (set)")


async def test_titlebar_spinner_spins_then_restores(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(ScriptedResponse([TextStep("hi")]))
    async with ui_pi(agent_dir, "titlebar_spinner") as pi:
        await pi.submit("go")
        await pi.idle()
        await pi.wait_for(lambda: pi.buffer.getvalue().endswith("") and "\x1b]2;pi - project\x07" in pi.buffer.getvalue(),
                          "the restored title")  # fmt: skip
        raw = pi.buffer.getvalue()
        assert "\x1b]2;⠋ pi - project\x07" in raw
        assert raw.rindex("\x1b]2;pi - project\x07") > raw.rindex("\x1b]2;⠋ pi - project\x07")


async def test_message_renderer_draws_status_messages(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "message_renderer") as pi:
        await pi.submit("/status warning disk almost full")
        await pi.wait_for(lambda: "● [WARNING] disk almost full" in pi.scrollback(), "the rendered message")
        assert "[status-update]" not in pi.scrollback()  # not the default look
        assert "sent at" not in pi.scrollback()
        await pi.press("ctrl+o")
        await pi.wait_for(lambda: "level warning" in pi.scrollback(), "the expanded details")


async def test_entry_renderer_draws_cards_not_sent_to_the_model(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    server.push(ScriptedResponse([TextStep("ok")]))
    async with ui_pi(agent_dir, "entry_renderer") as pi:
        await pi.submit("/status-card deploy finished")
        await pi.wait_for(lambda: "│ deploy finished" in pi.scrollback(), "the card")
        card = [line for line in pi.scrollback().splitlines() if "╭" in line or "╰" in line]
        assert len(card) == 2
        await pi.submit("hello")
        await pi.idle()
        assert "deploy finished" not in json.dumps(server.requests[-1].json)


async def test_built_in_tool_renderer_draws_compact_calls(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    (project / "notes.txt").write_text("one\ntwo\nthree\n")
    server.push(
        ScriptedResponse([ToolCallStep("read", {"path": "notes.txt"}), ToolCallStep("bash", {"command": "echo hi"})]),
        ScriptedResponse([TextStep("Read it.")]),
    )
    async with ui_pi(agent_dir, "built_in_tool_renderer") as pi:
        await pi.submit("read it")
        await pi.wait_for(lambda: "Read it." in pi.scrollback(), "the answer")
        history = pi.scrollback()
        assert "read notes.txt" in history and "3 lines" in history
        assert "$ echo hi" in history and "ok · hi" in history
        assert "two" not in history  # the file's text is not drawn
        sent = json.dumps(server.requests[1].json)
        assert "one\\ntwo\\nthree" in sent  # the model got the whole file


async def test_minimal_mode_hides_output_until_expanded(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    server.push(
        ScriptedResponse([ToolCallStep("bash", {"command": "echo first-line; echo second-line"})]),
        ScriptedResponse([TextStep("Ran it.")]),
    )
    async with ui_pi(agent_dir, "minimal_mode") as pi:
        await pi.submit("run")
        await pi.wait_for(lambda: "Ran it." in pi.scrollback(), "the answer")
        assert "$ echo first-line; echo second-line" in pi.scrollback()
        assert "\nfirst-line" not in "\n" + "\n".join(line.strip() for line in pi.scrollback().splitlines())
        await pi.press("ctrl+o")
        await pi.wait_for(lambda: any(line.strip() == "second-line" for line in pi.scrollback().splitlines()),
                          "the output after expanding")  # fmt: skip


async def test_mac_system_theme_follows_the_appearance_command(
    server: FakeLLMServer, project: Path, agent_dir: Path, monkeypatch: object
) -> None:
    (project / "appearance.txt").write_text("Light\n")
    monkeypatch.setenv("PI_APPEARANCE_COMMAND", "cat appearance.txt")  # type: ignore[attr-defined]
    async with ui_pi(agent_dir, "mac_system_theme") as pi:
        await pi.wait_for(lambda: pi.mode.shell.theme.name == "light", "the light theme")


async def test_qna_puts_the_extracted_questions_into_the_editor(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    server.push(
        ScriptedResponse([TextStep("Which database do you want? And should I add tests?")]),
        ScriptedResponse([TextStep("Q: Which database do you want?\nA: \n\nQ: Should I add tests?\nA: ")]),
    )
    async with ui_pi(agent_dir, "qna") as pi:
        await pi.submit("plan it")
        await pi.idle()
        await pi.submit("/qna")
        await pi.wait_for(lambda: pi.mode.shell.editor.text.startswith("Q: Which database"), "the form in the editor")
        assert "Q: Should I add tests?\nA:" in pi.mode.shell.editor.text
        extraction = server.requests[-1].json
        assert "Which database do you want? And should I add tests?" in json.dumps(extraction)


async def test_question_tool_asks_the_user(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    options = [{"label": "Blue"}, {"label": "Green"}]
    server.push(
        ScriptedResponse([ToolCallStep("question", {"question": "Favourite colour?", "options": options})]),
        ScriptedResponse([TextStep("Green it is.")]),
    )
    async with ui_pi(agent_dir, "question") as pi:
        await pi.submit("ask me")
        await pi.wait_for(lambda: "Favourite colour?" in pi.screen() and "2. Green" in pi.screen(), "the panel")
        await pi.press("down", "enter")
        await pi.wait_for(lambda: "Green it is." in pi.scrollback(), "the answer")
        assert "The user chose: Green" in json.dumps(server.requests[1].json)


async def test_questionnaire_tool_returns_every_answer(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    questions = [{"id": "size", "prompt": "Size?", "options": [{"value": "s", "label": "Small"}]},
                 {"id": "tea", "prompt": "Tea?", "options": [{"value": "yes", "label": "Yes"}]}]  # fmt: skip
    server.push(
        ScriptedResponse([ToolCallStep("questionnaire", {"questions": questions})]),
        ScriptedResponse([TextStep("Noted.")]),
    )
    async with ui_pi(agent_dir, "questionnaire") as pi:
        await pi.submit("survey")
        # The selected option, not the question: the tool call's arguments on screen hold the
        # question text too, before the questionnaire is shown and takes the keys.
        await pi.wait_for(lambda: "→ Small" in pi.selected_row(), "the first question")
        await pi.press("enter")
        await pi.wait_for(lambda: "→ Yes" in pi.selected_row(), "the second question")
        await pi.press("enter")
        await pi.wait_for(lambda: "Submit" in pi.screen() and "Size?: s" in pi.screen(), "the summary")
        await pi.press("enter")
        await pi.wait_for(lambda: "Noted." in pi.scrollback(), "the answer")
        assert "size: s\\ntea: yes" in json.dumps(server.requests[1].json)


async def test_tic_tac_toe_sequential_moves_land_on_the_intended_cell(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    moves = [ToolCallStep("tic_tac_toe", {"action": a}) for a in ("move_up", "move_right", "play")]
    server.push(ScriptedResponse(moves), ScriptedResponse([TextStep("Your move.")]))
    async with ui_pi(agent_dir, "tic_tac_toe") as pi:
        await pi.submit("/tic-tac-toe")
        await pi.wait_for(lambda: "you are X" in pi.screen(), "the board")
        await pi.press("enter")  # X in the centre
        await pi.wait_for(lambda: "Your move." in pi.scrollback(), "the model's turn")
        first_prompt = json.dumps(server.requests[0].json)
        assert "I played X at row 1, column 1" in first_prompt
        assert "O played at row 0, column 2" in json.dumps(server.requests[1].json)
        entries = pi.mode.session.session_manager.get_entries()
        saved = [e["data"] for e in entries if e.get("customType") == "tic-tac-toe"][-1]
        assert saved["board"] == [[" ", " ", "O"], [" ", "X", " "], [" ", " ", " "]]


async def test_games_open_and_close_from_their_commands(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "snake", "space_invaders", "doom_overlay") as pi:
        await pi.submit("/snake")
        await pi.wait_for(lambda: "SNAKE  score 0" in pi.screen(), "the snake board")
        assert not any(line.startswith("────") for line in screen_lines(pi))  # the editor made room
        pi.type("q")
        await pi.wait_for(lambda: "SNAKE" not in pi.screen(), "the game closed")
        await pi.submit("/invaders")
        await pi.wait_for(lambda: "SPACE INVADERS" in pi.screen(), "the invaders")
        await pi.press("escape")
        await pi.wait_for(lambda: "Space invaders score: 0" in pi.screen(), "the score notice")
        await pi.submit("/doom-overlay")
        await pi.wait_for(lambda: "w/s walk" in pi.screen(), "the maze")
        row = next(line for line in screen_lines(pi) if "w/s walk" in line)
        assert row.startswith(" " * 12)  # 80 % wide and centred: a margin on the left
        pi.type("q")
        await pi.wait_for(lambda: "Maze left unfinished" in pi.screen(), "the maze closed")


async def test_overlay_examples_place_and_toggle(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    async with ui_pi(agent_dir, "overlay_test", "overlay_qa_tests") as pi:
        await pi.submit("/overlay-test")
        await pi.wait_for(lambda: "Name:" in pi.screen(), "the menu")
        row = next(line for line in screen_lines(pi) if "Name:" in line)
        assert row.index("│") == 120 - 48 - 2  # anchored right, 48 wide, 2 cells of margin
        pi.type("Ada")
        await pi.press("escape")
        await pi.wait_for(lambda: "Overlay cancelled" in pi.screen(), "the cancelled overlay")

        await pi.submit("/overlay-anchors")
        await pi.wait_for(lambda: "anchor: center" in pi.screen(), "the centred panel")
        pi.type("\x1b[D")  # left arrow
        await pi.wait_for(lambda: "anchor: left" in pi.screen(), "the panel moved left")
        assert next(line for line in screen_lines(pi) if "anchor: left" in line).startswith("│anchor")
        pi.type("q")

        await pi.submit("/overlay-toggle")
        await pi.wait_for(lambda: "space: hide" in pi.screen(), "the toggle panel")
        pi.type(" ")
        await pi.wait_for(lambda: "space: hide" not in pi.screen(), "the hidden overlay")
        assert any(line.startswith("────") for line in screen_lines(pi))  # the editor is back
        pi.type(" ")
        await pi.wait_for(lambda: "space: hide" in pi.screen(), "the overlay shown again")
        pi.type("q")
        await pi.wait_for(lambda: "space: hide" not in pi.screen(), "closed")

        await pi.submit("/overlay-maxheight")
        await pi.wait_for(lambda: "row 1 of 40" in pi.screen(), "the tall panel")
        assert "row 7 of 40" in pi.screen() and "row 8 of 40" not in pi.screen()  # 8 rows with the frame
        pi.type("q")


async def test_interactive_shell_runs_the_command_with_the_terminal(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    async with ui_pi(agent_dir, "interactive_shell") as pi:
        await pi.submit("!i echo handed-over > out.txt")
        await pi.wait_for((project / "out.txt").exists, "the command run")
        assert (project / "out.txt").read_text() == "handed-over\n"
        await pi.wait_for(lambda: pi.scrollback_has("(ran interactively: echo handed-over > out.txt, exit code 0)"),
                          "the record in the transcript")  # fmt: skip
        await pi.submit("!echo plain")
        await pi.wait_for(lambda: any(line.strip() == "plain" for line in pi.scrollback().splitlines()), "ordinary")


async def test_entry_cards_come_back_in_place_when_the_session_is_resumed(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    server.push(ScriptedResponse([TextStep("first answer")]), ScriptedResponse([TextStep("second answer")]))
    async with ui_pi(agent_dir, "entry_renderer") as pi:
        await pi.submit("one")
        await pi.wait_for(lambda: "first answer" in pi.scrollback(), "the first answer")
        await pi.idle()
        await pi.submit("/status-card between the answers")
        await pi.wait_for(lambda: "between the answers" in pi.scrollback(), "the card")
        await pi.submit("two")
        await pi.wait_for(lambda: "second answer" in pi.scrollback(), "the second answer")
        await pi.idle()
    async with ui_pi(agent_dir, args=("--continue",)) as pi:
        await pi.wait_for(lambda: "second answer" in pi.scrollback(), "the resumed conversation")
        history = pi.scrollback()
        assert history.index("first answer") < history.index("between the answers") < history.index("second answer")
