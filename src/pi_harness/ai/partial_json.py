"""Best-effort parsing of streamed tool-call arguments, so previews can show them while they stream.

``parse_streaming_json(buffer)`` never fails and always returns a dict: strict JSON when the
buffer is complete, otherwise the buffer repaired by closing open strings and containers and
dropping an incomplete trailing key or literal.

``StreamingJsonParser`` does the same incrementally: each ``feed`` scans only the new text, so a
long argument streamed in thousands of fragments costs O(n) scanning plus one C-speed parse of the
repaired buffer per fragment, instead of a Python re-scan of the whole buffer every time.
"""

from __future__ import annotations

import json
import re

import orjson

from pi_harness.ai.json_values import JsonObject

# Phases of the innermost open container.
_EXPECT_KEY = 0  # after "{" or ",": a key or "}" may follow
_IN_KEY = 1
_AFTER_KEY = 2  # expecting ":"
_EXPECT_VALUE = 3  # after ":" in an object, after "[" or "," in an array
_IN_STRING_VALUE = 4
_IN_SCALAR = 5  # number or literal
_AFTER_VALUE = 6  # a complete member; "," or the closer may follow

_STRING_BODY = re.compile(r'[^"\\]+')
_SCALAR_CHARS = re.compile(r"[-+0-9.eEtrufalsn]+")
_NUMBER_TAIL = re.compile(r"[-+.eE]+$")
# orjson turns integers beyond 64 bits into floats; such documents go to the exact stdlib parser.
_LONG_DIGITS = re.compile(r"\d{20}")
_THROTTLE_FROM = 8192  # below this size every fragment is parsed
_HEX = frozenset("0123456789abcdefABCDEF")


class _Frame:
    __slots__ = ("closer", "phase", "safe", "value_start")

    def __init__(self, closer: str, safe: int, phase: int) -> None:
        self.closer = closer
        self.safe = safe  # buffer[:safe] + closers is a valid document
        self.phase = phase
        self.value_start = safe


class StreamingJsonParser:
    """Incremental tolerant parser for one tool call's argument buffer."""

    __slots__ = (
        "_buffer",
        "_done_top",
        "_escape",
        "_last",
        "_parsed_len",
        "_pos",
        "_stack",
        "_started",
        "_throttle",
        "_top_end",
    )

    def __init__(self, *, throttle: bool = False) -> None:
        """``throttle``: on long buffers re-parse only after ~6% growth (streaming previews)."""
        self._buffer = ""
        self._pos = 0
        self._stack: list[_Frame] = []
        self._escape = -1  # index of an unfinished backslash escape inside a string, or -1
        self._started = False
        self._done_top = False
        self._top_end = 0  # end of the complete top-level document once it has closed
        self._last: JsonObject = {}
        self._throttle = throttle
        self._parsed_len = 0

    @property
    def buffer(self) -> str:
        return self._buffer

    def feed(self, delta: str) -> JsonObject:
        """Append ``delta`` and return the best-effort arguments so far."""
        if delta:
            # Detach the string first so CPython can grow it in place instead of copying it.
            buffer = self._buffer
            self._buffer = ""
            buffer += delta
            self._buffer = buffer
            self._scan()
        if (
            self._throttle
            and len(self._buffer) > _THROTTLE_FROM
            and (len(self._buffer) - self._parsed_len < len(self._buffer) // 16)
        ):
            return self._last
        self._parsed_len = len(self._buffer)
        value = self._repair_and_parse()
        if isinstance(value, dict):
            self._last = value
        return self._last

    # -- scanning ----------------------------------------------------------------------------

    def _scan(self) -> None:
        buf = self._buffer
        n = len(buf)
        i = self._pos
        stack = self._stack
        self._escape = -1
        while i < n:
            frame = stack[-1] if stack else None
            if frame is not None and frame.phase in (_IN_KEY, _IN_STRING_VALUE):
                nxt = self._scan_string(buf, i, n, frame)
                if nxt < 0:
                    i = self._escape  # rescan the unfinished escape when more text arrives
                    break
                i = nxt
                continue
            if frame is not None and frame.phase == _IN_SCALAR:
                m = _SCALAR_CHARS.match(buf, i)
                if m:
                    i = m.end()
                    if i >= n:
                        break
                frame.phase = _AFTER_VALUE
                frame.safe = i
                continue
            ch = buf[i]
            if ch in " \t\r\n":
                i += 1
                continue
            if frame is None:
                if self._done_top:
                    i += 1  # trailing garbage after a complete document is ignored
                    continue
                if ch == "{":
                    stack.append(_Frame("}", i + 1, _EXPECT_KEY))
                    self._started = True
                elif ch == "[":
                    stack.append(_Frame("]", i + 1, _EXPECT_VALUE))
                    self._started = True
                i += 1
                continue
            phase = frame.phase
            if phase == _EXPECT_KEY:
                if ch == '"':
                    frame.phase = _IN_KEY
                elif ch == "}":
                    self._close(i + 1)
                i += 1
            elif phase == _AFTER_KEY:
                if ch == ":":
                    frame.phase = _EXPECT_VALUE
                i += 1
            elif phase == _EXPECT_VALUE:
                if ch == "]" and frame.closer == "]":
                    self._close(i + 1)
                    i += 1
                    continue
                frame.value_start = i
                if ch == '"':
                    frame.phase = _IN_STRING_VALUE
                    i += 1
                elif ch == "{":
                    stack.append(_Frame("}", i + 1, _EXPECT_KEY))
                    i += 1
                elif ch == "[":
                    stack.append(_Frame("]", i + 1, _EXPECT_VALUE))
                    i += 1
                else:
                    frame.phase = _IN_SCALAR
            elif phase == _AFTER_VALUE:
                if ch == ",":
                    frame.phase = _EXPECT_KEY if frame.closer == "}" else _EXPECT_VALUE
                elif ch == frame.closer:
                    self._close(i + 1)
                i += 1
            else:  # pragma: no cover - all phases handled above
                i += 1
        self._pos = i

    def _scan_string(self, buf: str, i: int, n: int, frame: _Frame) -> int:
        """Advance through a string; return the new index, or -1 if it stops inside an escape."""
        while i < n:
            m = _STRING_BODY.match(buf, i)
            if m:
                i = m.end()
                continue
            if buf[i] == "\\":
                need = 6 if i + 1 < n and buf[i + 1] == "u" else 2
                if i + need > n:
                    self._escape = i
                    return -1
                i += need
                continue
            i += 1  # the closing quote
            if frame.phase == _IN_KEY:
                frame.phase = _AFTER_KEY
            else:
                frame.phase = _AFTER_VALUE
                frame.safe = i
            return i
        return i

    def _close(self, end: int) -> None:
        self._stack.pop()
        if self._stack:
            parent = self._stack[-1]
            parent.phase = _AFTER_VALUE
            parent.safe = end
        else:
            self._done_top = True
            self._top_end = end

    # -- repair ------------------------------------------------------------------------------

    def _repaired_text(self) -> str | None:
        buf = self._buffer
        stack = self._stack
        if not stack:
            # Text after the first complete document (a second object, garbage) is ignored.
            return buf[: self._top_end] if self._started else None
        top = stack[-1]
        if top.phase == _IN_STRING_VALUE:
            end = self._escape if self._escape >= 0 else len(buf)
            head = _without_pending_high_surrogate(buf[:end]) + '"'
        elif top.phase == _IN_SCALAR:
            scalar = buf[top.value_start :].strip()
            trimmed = _NUMBER_TAIL.sub("", scalar)
            if scalar in ("true", "false", "null"):
                head = buf[: top.value_start] + scalar
            elif trimmed and trimmed[-1].isdigit() and trimmed[0] in "-0123456789":
                head = buf[: top.value_start] + trimmed
            else:
                head = buf[: top.safe]
        elif top.phase == _AFTER_VALUE:
            head = buf[: top.safe]
        else:
            head = buf[: top.safe]
        closers = "".join(frame.closer for frame in reversed(stack))
        return head + closers

    def _repair_and_parse(self) -> object:
        text = self._repaired_text()
        if text is None or not text.strip():
            return {}
        return _loads(text)


def _without_pending_high_surrogate(head: str) -> str:
    """Drop a complete high-surrogate escape (``\\uD800``-``\\uDBFF``) ending a cut string.

    Its low half has not arrived yet; decoding it alone would put a lone surrogate into the
    arguments, so it is held back until the next fragment completes the pair.
    """
    n = len(head)
    if n < 6 or head[n - 6] != "\\" or head[n - 5] != "u" or head[n - 4] not in "dD" or head[n - 3] not in "89abAB":
        return head
    if head[n - 2] not in _HEX or head[n - 1] not in _HEX:
        return head
    backslashes = 0
    i = n - 6
    while i >= 0 and head[i] == "\\":
        backslashes += 1
        i -= 1
    # an even run is escaped backslashes followed by plain text "uD8xx"
    return head[: n - 6] if backslashes % 2 == 1 else head


def _loads(text: str) -> object:
    """Strict parse (``None`` when invalid): orjson, or the stdlib where orjson would lose data."""
    if not _LONG_DIGITS.search(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(text)  # also tolerates lone surrogate escapes that orjson rejects
    except ValueError:
        return None


def parse_streaming_json(buffer: str | None) -> JsonObject:
    """Parse a possibly incomplete JSON object; never raises, never returns ``None``."""
    if not buffer or not buffer.strip():
        return {}
    value = _loads(buffer)
    if value is not None:
        return value if isinstance(value, dict) else {}
    parser = StreamingJsonParser()
    return parser.feed(buffer)


_VALID_ESCAPES = frozenset('"\\/bfnrtu')


def _repair_string_literals(text: str) -> str:
    """Escape raw control characters inside strings and double a backslash that starts no valid
    escape: the mistakes models make in otherwise complete JSON."""
    out: list[str] = []
    in_string = False
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if not in_string:
            out.append(char)
            in_string = char == '"'
        elif char == '"':
            out.append(char)
            in_string = False
        elif char == "\\":
            following = text[i + 1] if i + 1 < n else ""
            if following == "u" and len(text) >= i + 6 and all(c in _HEX for c in text[i + 2 : i + 6]):
                out.append(text[i : i + 6])
                i += 6
                continue
            if following and following != "u" and following in _VALID_ESCAPES:
                out.append(text[i : i + 2])
                i += 2
                continue
            out.append("\\\\")
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
        i += 1
    return "".join(out)


def parse_tool_call_arguments(text: str | None) -> tuple[JsonObject, str | None]:
    """The arguments of a *finished* tool call, and the problem when they are not a JSON object.

    Unlike ``parse_streaming_json`` nothing incomplete is kept: a call whose final text does not
    parse (after repairing string literals) gets ``{}`` and an error naming the raw text, so the
    call is refused instead of run with a guessed prefix of what the model meant.
    """
    if not text or not text.strip():
        return {}, None
    try:
        try:
            value: object = json.loads(text)
        except ValueError:
            repaired = _repair_string_literals(text)
            if repaired == text:
                raise
            value = json.loads(repaired)
        if not isinstance(value, dict):
            raise ValueError("Tool arguments must be a JSON object")
    except ValueError as error:
        return {}, f"{error}\n\nReceived arguments:\n{text}"
    return value, None
