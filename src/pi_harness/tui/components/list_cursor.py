"""Moving the highlighted row of a filtered list: up/down wrap around, page keys stop at the ends."""

from __future__ import annotations

__all__ = ["centred_rows", "moved_index"]


def moved_index(action: str, index: int, count: int, page: int) -> int | None:
    """The new index for a ``tui.select.*`` movement, or None when ``action`` is not one
    (or the list is empty, where nothing can move)."""
    if not count:
        return None
    if action == "tui.select.up":
        return (index - 1) % count
    if action == "tui.select.down":
        return (index + 1) % count
    if action == "tui.select.pageUp":
        return max(0, index - page)
    if action == "tui.select.pageDown":
        return min(count - 1, index + page)
    return None


def centred_rows(index: int, count: int, visible: int) -> range:
    """The positions of at most ``visible`` rows around ``index`` (the selection kept centred,
    the window held inside the list), as Pi's selectors scroll."""
    start = max(0, min(index - visible // 2, count - visible))
    return range(start, min(start + visible, count))
