"""OpenAI's error ``type`` and default ``code`` per HTTP status, shared by both OpenAI dialects.

Chat Completions and Responses render ``{"error": {"message", "type", "param", "code"}}`` by their
own rules (which script ``type`` becomes the ``code``, when ``context_length_exceeded`` is
inferred); the status table and its fallback are the same for both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

# (error type, default code)
ErrorKind: TypeAlias = tuple[str, str | None]

ERROR_KINDS: dict[int, ErrorKind] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
    529: ("server_error", "overloaded"),
}


def error_kind(status: int, kinds: Mapping[int, ErrorKind] = ERROR_KINDS) -> ErrorKind:
    """The kind of ``status``; unlisted statuses are server errors from 500 up, else invalid requests."""
    return kinds.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
