"""``ShutdownGuard`` (cli/modes/common.py): its watchdog thread starts with the first signal or
EOF, so a run that is never interrupted has none."""

from __future__ import annotations

import _thread
import asyncio
import time

from pi_harness.cli.modes.common import ShutdownGuard


async def threads_become(count: int) -> int:
    """``_thread._count()`` once it is ``count`` (a new thread counts once it runs), else after 5 s."""
    deadline = time.monotonic() + 5
    while _thread._count() != count and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return _thread._count()


async def test_the_watchdog_starts_when_the_guard_is_armed() -> None:
    guard = ShutdownGuard(lambda _code: None)
    before = _thread._count()
    guard.install()
    try:
        await asyncio.sleep(0.3)
        assert _thread._count() == before  # installed: signal handlers only
        guard.arm(143)
        guard.arm(143)  # once
        assert await threads_become(before + 1) == before + 1
        await asyncio.sleep(0.3)
        assert _thread._count() == before + 1
    finally:
        guard.uninstall()
    assert await threads_become(before) == before  # it ends within a round after uninstall


async def test_a_guard_armed_before_install_starts_its_watchdog_there() -> None:
    guard = ShutdownGuard(lambda _code: None)
    before = _thread._count()
    guard.arm(0)
    assert _thread._count() == before
    guard.install()
    try:
        assert await threads_become(before + 1) == before + 1
    finally:
        guard.uninstall()
    assert await threads_become(before) == before
