"""No cyclic garbage collection while a session's modules are imported.

Importing the modules a session needs creates tens of thousands of long-lived objects
(functions, classes, their dictionaries); the collector's youngest generation fills every 700
allocations and each collection walks what is young at that moment, all of which survives.
That was some 7% of the CPU time before the first request. ``pause()`` is called just before
the session starts; the startup sequence takes the pause over (``cli/startup.py`` keeps the
collector off while the session file loads, then freezes what is alive), and ``resume()``
switches it back on wherever startup ends otherwise. Reference counting frees memory as usual
meanwhile: only reference cycles wait for the collector.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Switch the collector off until ``resume()`` or ``take()`` (no-op when it is off already)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def take() -> bool:
    """Whether ``pause()`` switched the collector off; the caller now switches it on again."""
    global _paused
    paused, _paused = _paused, False
    return paused


def resume() -> None:
    """Switch the collector on again if ``pause()`` switched it off."""
    if take():
        gc.enable()
