"""The per-connection read timeout (``ReadDeadline``): one timer, the semantics of ``asyncio.timeout``."""

from __future__ import annotations

import asyncio

import pytest

from pi_harness.ai.read_deadline import ReadDeadline


async def test_a_read_that_gets_nothing_times_out() -> None:
    reader = asyncio.StreamReader()
    deadline = ReadDeadline()
    with pytest.raises(TimeoutError):
        await deadline.run(reader.read(10), 0.05)
    # The task is usable afterwards: its own cancellation count is back to zero.
    current = asyncio.current_task()
    assert current is not None and current.cancelling() == 0
    reader.feed_data(b"late")
    assert await deadline.run(reader.read(10), 5) == b"late"


async def test_reads_that_keep_getting_data_do_not_time_out() -> None:
    reader = asyncio.StreamReader()
    deadline = ReadDeadline()
    loop = asyncio.get_running_loop()
    for index in range(200):
        loop.call_soon(reader.feed_data, b"%d;" % index)  # each read waits for the next loop turn
        assert await deadline.run(reader.read(100), 5) == b"%d;" % index
    assert await deadline.run(asyncio.sleep(0, "no limit"), None) == "no limit"
    deadline.close()


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    reader = asyncio.StreamReader()
    deadline = ReadDeadline()
    task = asyncio.ensure_future(deadline.run(reader.read(10), 5))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline.close()
