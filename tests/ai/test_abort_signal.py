"""The AbortController/AbortSignal pair shared by ai, agent and tools."""

from __future__ import annotations

import asyncio

import pytest

from pi_harness.ai.abort import AbortController, AbortError, AbortSignal


def test_fresh_signal_is_not_aborted() -> None:
    signal = AbortController().signal
    assert not signal.aborted
    assert signal.reason is None
    signal.throw_if_aborted()


def test_abort_sets_reason_and_calls_listeners_once() -> None:
    controller = AbortController()
    calls: list[object] = []
    controller.signal.add_listener(calls.append)
    controller.abort("user pressed escape")
    controller.abort("second time")
    assert controller.signal.aborted
    assert controller.signal.reason == "user pressed escape"
    assert calls == ["user pressed escape"]


def test_default_reason() -> None:
    controller = AbortController()
    controller.abort()
    assert controller.signal.reason == "Operation aborted"


def test_listener_added_after_abort_runs_immediately() -> None:
    signal = AbortSignal.aborted_signal("late")
    calls: list[object] = []
    signal.add_listener(calls.append)
    assert calls == ["late"]


def test_removed_listener_is_not_called() -> None:
    controller = AbortController()
    calls: list[object] = []
    controller.signal.add_listener(calls.append)
    controller.signal.remove_listener(calls.append)
    controller.signal.remove_listener(calls.append)  # removing twice is harmless
    controller.abort()
    assert calls == []


def test_a_failing_listener_does_not_stop_the_others() -> None:
    controller = AbortController()
    calls: list[object] = []

    def broken(_reason: object) -> None:
        raise RuntimeError("listener bug")

    controller.signal.add_listener(broken)
    controller.signal.add_listener(calls.append)
    controller.abort("x")
    assert calls == ["x"]


def test_throw_if_aborted() -> None:
    controller = AbortController()
    controller.abort("stop now")
    with pytest.raises(AbortError, match="stop now"):
        controller.signal.throw_if_aborted()
    other = AbortController()
    other.abort(ValueError("not a string"))
    with pytest.raises(AbortError, match="Operation aborted"):
        other.signal.throw_if_aborted()


async def test_wait_returns_once_aborted() -> None:
    controller = AbortController()
    waiter = asyncio.ensure_future(controller.signal.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    controller.abort()
    await asyncio.wait_for(waiter, 5)
    await controller.signal.wait()  # already aborted: returns at once


async def test_sleep_is_cut_short_by_abort() -> None:
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.02, controller.abort)
    completed = await asyncio.wait_for(controller.signal.sleep(30), 5)
    assert completed is False


async def test_sleep_runs_to_the_end_without_abort() -> None:
    assert await AbortController().signal.sleep(0.01) is True
    assert await AbortSignal.aborted_signal().sleep(30) is False


def test_any_fires_when_one_input_fires() -> None:
    a, b = AbortController(), AbortController()
    combined = AbortSignal.any([a.signal, None, b.signal])
    assert not combined.aborted
    b.abort("from b")
    assert combined.aborted
    assert combined.reason == "from b"


def test_any_of_an_already_aborted_signal_is_aborted() -> None:
    assert AbortSignal.any([AbortSignal.aborted_signal("early")]).reason == "early"
