"""What a user may paste back on a machine whose browser cannot reach the loopback server:
the final redirect URL, a ``code=...`` query string, or the bare code."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit


def code_from_paste(text: str) -> str | None:
    value = text.strip()
    if not value:
        return None
    if "://" in value:
        codes = parse_qs(urlsplit(value).query).get("code")
        return codes[0] if codes else None
    if "code=" in value:
        codes = parse_qs(value.lstrip("?")).get("code")
        return codes[0] if codes else None
    return value
