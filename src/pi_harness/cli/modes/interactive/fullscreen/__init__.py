"""Fullscreen mode of the interactive UI: the transcript scrolls inside the application."""

from pi_harness.cli.modes.interactive.fullscreen.actions import fullscreen_handlers
from pi_harness.cli.modes.interactive.fullscreen.view import FullscreenOptions, FullscreenView

__all__ = ["FullscreenOptions", "FullscreenView", "fullscreen_handlers"]
