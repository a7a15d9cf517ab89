"""OSC 9;4 progress: on while a turn or a compaction runs, renewed every second, then cleared."""

from __future__ import annotations

from pi_harness.cli.modes.interactive.terminal_progress import ACTIVE, CLEAR, TerminalProgress


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_follows_turns_and_compactions_and_the_setting() -> None:
    written: list[str] = []
    enabled = [True]
    clock = Clock()
    progress = TerminalProgress(written.append, lambda: enabled[0], clock)
    progress.handle({"type": "turn_start"})
    assert written == [ACTIVE]
    clock.now = 0.5
    progress.tick()
    clock.now = 1.2
    progress.tick()
    assert written == [ACTIVE, ACTIVE]  # renewed after a second
    progress.handle({"type": "agent_end"})
    progress.handle({"type": "agent_end"})
    assert written == [ACTIVE, ACTIVE, CLEAR]  # cleared once
    progress.handle({"type": "auto_compaction_start"})
    enabled[0] = False
    progress.tick()
    assert written[-2:] == [ACTIVE, CLEAR]  # turned off meanwhile: cleared at the next tick
    progress.handle({"type": "turn_start"})
    assert written[-1] == CLEAR and not progress.active  # off: nothing is sent
