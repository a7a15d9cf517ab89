"""Fullscreen mode of the interactive UI: the transcript scrolls inside the application.

``view`` is the screen (imported by the shell); ``actions`` the ``tui.altScreen.*`` key handlers
(imported by the key actions, kept apart so the shell does not depend on the mode's context).
"""
