"""PKCE (RFC 7636) with the S256 method: a random verifier and its SHA-256 challenge."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass


@dataclass(frozen=True)
class PkcePair:
    verifier: str
    challenge: str


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def new_pkce() -> PkcePair:
    # 32 random bytes give a 43-character verifier, the RFC's minimum length.
    verifier = secrets.token_urlsafe(32)
    return PkcePair(verifier, s256(verifier))
