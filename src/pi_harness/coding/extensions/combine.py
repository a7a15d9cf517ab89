"""How the results of one event's handlers combine: the four kinds of Pi's events.

* notify (``Notify``, ``Collect``): every handler sees the same event; results are ignored, or
  collected with the path of the extension that returned them;
* in-place mutation (``BeforeAgentStart``): every handler sees the same event, changed by the
  handlers before it; what they return accumulates;
* chained transform (``Chain``, ``InputChain``): each handler gets a fresh event holding the
  previous handler's output;
* gate (``Gate``): a handler's answer may decide, and the first final answer stops the rest.

A combiner never sees a handler that raised: ``dispatch`` reports it (or lets it propagate) and
the combiner goes on with what it had. Handler results are extension data: values are passed
on as they are, unchecked beyond the shape tests below, like Pi does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Generic, Literal, TypedDict, TypeVar, cast

from pi_harness.ai.types import ImageContent
from pi_harness.coding.extensions.events import ExtensionEvent

V = TypeVar("V")


def as_dict(result: object) -> dict[str, object] | None:
    """A handler result that is a dict with Pi's keys, else None."""
    return result if isinstance(result, dict) else None


class Notify:
    def __init__(self, event_type: str, payload: dict[str, object]) -> None:
        self.event_type = event_type
        self.event = ExtensionEvent(event_type, payload)

    def next_event(self) -> ExtensionEvent:
        return self.event

    def take(self, result: object, extension_path: str) -> bool:
        return False


class Collect(Notify):
    """``resources_discover``: every non-empty result, with its extension's path."""

    def __init__(self, event_type: str, payload: dict[str, object]) -> None:
        super().__init__(event_type, payload)
        self.results: list[tuple[str, object]] = []

    def take(self, result: object, extension_path: str) -> bool:
        if result is not None:
            self.results.append((extension_path, result))
        return False


class Gate(Notify, Generic[V]):
    """``pick`` reads a handler's answer (None: no answer); the last answer is kept, and one for
    which ``final`` holds stops the remaining handlers."""

    def __init__(
        self,
        event_type: str,
        payload: dict[str, object],
        pick: Callable[[object], V | None],
        final: Callable[[V], bool] = lambda _answer: True,
    ) -> None:
        super().__init__(event_type, payload)
        self._pick = pick
        self._final = final
        self.answer: V | None = None

    def take(self, result: object, extension_path: str) -> bool:
        answer = self._pick(result)
        if answer is None:
            return False
        self.answer = answer
        return self._final(answer)


class Chain:
    """Chained transform over ``keys`` of the payload: each handler gets a copy of the current
    values, and a dict result naming one of the keys replaces those values (``None`` values only
    with ``keep_none``). With ``bare_result_key`` a result without any of the keys is itself the
    new value of that key (Pi's ``before_provider_request`` returns the replacement body).
    ``changed`` holds only what handlers replaced."""

    def __init__(
        self,
        event_type: str,
        payload: Mapping[str, object],
        keys: tuple[str, ...],
        *,
        bare_result_key: str | None = None,
        keep_none: bool = False,
    ) -> None:
        self.event_type = event_type
        self._keys = keys
        self._bare_result_key = bare_result_key
        self._keep_none = keep_none
        self.current: dict[str, object] = dict(payload)
        self.changed: dict[str, object] = {}

    def next_event(self) -> ExtensionEvent:
        return ExtensionEvent(self.event_type, dict(self.current))

    def take(self, result: object, extension_path: str) -> bool:
        if result is None or isinstance(result, bool):
            return False
        values = as_dict(result)
        if values is not None and any(key in values for key in self._keys):
            for key in self._keys:
                if key in values and (self._keep_none or values[key] is not None):
                    self._set(key, values[key])
        elif self._bare_result_key is not None:
            self._set(self._bare_result_key, result)
        return False

    def _set(self, key: str, value: object) -> None:
        self.current[key] = value
        self.changed[key] = value


class InputOutcome(TypedDict):
    action: Literal["continue", "transform", "handled"]
    text: str
    images: list[ImageContent] | None


class InputChain:
    """``input``: each handler sees the text (and images) as the handlers before it left them;
    ``{action: "transform", text?, images?}`` changes them, the first ``{action: "handled"}``
    stops with the input consumed."""

    event_type = "input"

    def __init__(
        self, text: str, images: list[ImageContent] | None, source: str, streaming_behavior: str | None = None
    ) -> None:
        self._source = source
        self._streaming_behavior = streaming_behavior
        self.outcome: InputOutcome = {"action": "continue", "text": text, "images": images}

    def next_event(self) -> ExtensionEvent:
        payload: dict[str, object] = {"text": self.outcome["text"], "source": self._source}
        if self.outcome["images"]:
            payload["images"] = self.outcome["images"]
        if self._streaming_behavior is not None:
            payload["streamingBehavior"] = self._streaming_behavior  # only while a run streams, as Pi
        return ExtensionEvent(self.event_type, payload)

    def take(self, result: object, extension_path: str) -> bool:
        values = as_dict(result)
        if values is None:
            return False
        action = values.get("action")
        if action == "handled":
            self.outcome["action"] = "handled"
            return True
        if action == "transform":
            self.outcome["text"] = cast(str, values.get("text", self.outcome["text"]))
            if "images" in values:
                self.outcome["images"] = cast("list[ImageContent] | None", values["images"])
            self.outcome["action"] = "transform"
        return False


class BeforeAgentStartOutcome(TypedDict):
    messages: list[dict[str, object]]
    systemPrompt: str | None


class BeforeAgentStart(Notify):
    """``before_agent_start``: messages accumulate; a returned ``systemPrompt`` is written into
    the shared event, so later handlers build on it; sections, tools and guidelines of the event
    are changed in place by the handlers themselves."""

    def __init__(self, payload: dict[str, object]) -> None:
        super().__init__("before_agent_start", payload)
        self.outcome: BeforeAgentStartOutcome = {"messages": [], "systemPrompt": None}

    def take(self, result: object, extension_path: str) -> bool:
        values = as_dict(result)
        if values is None:
            return False
        message = as_dict(values.get("message"))
        if message is not None:
            self.outcome["messages"].append(message)
        system_prompt = values.get("systemPrompt")
        if isinstance(system_prompt, str):
            self.outcome["systemPrompt"] = system_prompt
            self.event["systemPrompt"] = system_prompt
        return False
