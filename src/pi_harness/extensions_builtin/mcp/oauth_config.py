"""Validation of an HTTP server's ``oauth`` object (the fields and limits Pi 1.4.0 accepts).

The object is checked when mcp.json is read, so a mistake in it is reported the same way Pi reports
it; ``oauth.py`` and ``signin.py`` use the values when the server asks for a sign-in.
"""

from __future__ import annotations

from urllib.parse import urlsplit

_LOOPBACK = ("localhost", "127.0.0.1", "[::1]")


def _host(url: str) -> str:
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    if netloc.startswith("["):
        return netloc[: netloc.find("]") + 1]
    return netloc.split(":", 1)[0].lower()


def is_loopback_redirect(value: object) -> bool:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme == "http" and _host(value) in _LOOPBACK and not parts.query and not parts.fragment


def _port(url: str) -> int | None:
    try:
        return urlsplit(url).port
    except ValueError:
        return None


def validate_oauth(value: object) -> str | None:
    """``None`` when valid, else the problem in one line."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "oauth must be an object"
    for key in ("clientId", "clientSecret", "scope"):
        if key in value and not isinstance(value[key], str):
            return f"oauth.{key} must be a string"
    port = value.get("callbackPort")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        return "oauth.callbackPort must be a port number"
    callback = value.get("callbackUrl")
    if callback is not None:
        if not is_loopback_redirect(callback):
            return "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment"
        assert isinstance(callback, str)
        url_port = _port(callback)
        if url_port is not None and port is not None and url_port != port:
            return "oauth.callbackUrl and oauth.callbackPort name different ports"
    name = value.get("clientName")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return "oauth.clientName must be a non-empty string"
    registration = value.get("clientRegistration")
    if registration is not None and registration != "dcr":
        if registration != "cimd":
            return 'oauth.clientRegistration must be "dcr" or "cimd"'
        if "clientId" in value or "clientName" in value:
            return 'oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName'
        if isinstance(callback, str) and (_host(callback) == "[::1]" or urlsplit(callback).path != "/callback"):
            return (
                'oauth.clientRegistration "cimd" requires oauth.callbackUrl on localhost or 127.0.0.1 '
                "with path /callback"
            )
    metadata = value.get("authServerMetadataUrl")
    if metadata is not None:
        scheme = urlsplit(metadata).scheme if isinstance(metadata, str) else ""
        ok = scheme == "https" or (scheme == "http" and isinstance(metadata, str) and _host(metadata) in _LOOPBACK)
        if not ok:
            return "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]"
    return None
