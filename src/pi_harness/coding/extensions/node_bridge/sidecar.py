"""The Node sidecar process and its JSON-lines channel.

The process is a plain ``subprocess.Popen`` read by a thread, so that it does not belong to one
event loop: messages are handed to the loop that started it with ``call_soon_threadsafe``.
stderr goes to our stderr (extension logs). When the process ends, ``on_exit`` runs on the loop.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import subprocess
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

import orjson

JS_DIR = Path(__file__).parent / "js"
NODE_FLAGS = ("--disable-warning=ExperimentalWarning", "--no-deprecation")

Message = dict[str, object]
_live: weakref.WeakSet[Sidecar] = weakref.WeakSet()


def _json_default(value: object) -> object:
    # Payloads are Pi's JSON data; anything else (paths, signals, objects) travels as text or not.
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, tuple, frozenset)):
        return list(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return None


def encode(message: Message) -> bytes:
    return orjson.dumps(message, default=_json_default, option=orjson.OPT_NON_STR_KEYS) + b"\n"


class Sidecar:
    def __init__(
        self,
        node: str,
        loop: asyncio.AbstractEventLoop,
        on_message: Callable[[Message], None],
        on_exit: Callable[[], None],
    ) -> None:
        self._loop = loop
        self._on_message = on_message
        self._on_exit = on_exit
        self._lock = threading.Lock()
        self.process = subprocess.Popen(
            [node, *NODE_FLAGS, str(JS_DIR / "host.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,
            # Extensions read process.cwd() while loading (Pi runs in the project directory).
            cwd=os.getcwd(),
        )
        self.ready = loop.create_future()
        _live.add(self)
        self._reader = threading.Thread(target=self._read, name="pi-node-bridge", daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _deliver(self, message: Message) -> None:
        if message.get("t") == "ready" and not self.ready.done():
            self.ready.set_result(None)
            return
        self._on_message(message)

    def _exited(self) -> None:
        if not self.ready.done():
            self.ready.set_exception(RuntimeError("the Node sidecar exited while starting"))
        self._on_exit()

    def _post(self, callback: Callable[..., None], *args: object) -> None:
        try:
            self._loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:
            pass  # the loop is closed: nobody is waiting any more

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for line in stdout:
            try:
                message = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(message, dict):
                self._post(self._deliver, message)
        self.process.wait()
        self._post(self._exited)

    def send(self, message: Message) -> None:
        data = encode(message)
        with self._lock:
            stdin = self.process.stdin
            if stdin is None or not self.alive:
                raise BrokenPipeError("the Node sidecar is not running")
            stdin.write(data)
            stdin.flush()

    def close(self) -> None:
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()


@atexit.register
def _close_all() -> None:
    for sidecar in list(_live):
        sidecar.close()
