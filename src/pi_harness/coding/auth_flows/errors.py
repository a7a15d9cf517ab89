"""The one error type of the sign-in flows: its text is shown to the user as is."""

from __future__ import annotations


class LoginError(Exception):
    pass
