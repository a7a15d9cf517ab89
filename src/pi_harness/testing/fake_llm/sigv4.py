"""AWS Signature Version 4, recomputed from a recorded request (how AWS checks a signature).

Used by the fake Bedrock endpoint for access keys whose secret it has been told
(``bedrock.KNOWN_SECRET_KEYS``), so a signing mistake (a wrong body hash, a header signed but
changed, the wrong region) fails a test the way AWS would fail the request.
"""

from __future__ import annotations

import hashlib
import hmac
import posixpath
from urllib.parse import parse_qsl, quote

from pi_harness.testing.fake_llm.script import RecordedRequest

ALGORITHM = "AWS4-HMAC-SHA256"


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def canonical_request(request: RecordedRequest, signed_headers: list[str]) -> str:
    path = posixpath.normpath(request.path) if request.path else "/"
    if request.path.endswith("/") and not path.endswith("/"):
        path += "/"
    # AWS encodes the (already encoded) path once more for every service but S3.
    uri = quote(path, safe="/~")
    pairs = sorted(parse_qsl(request.query, keep_blank_values=True))
    query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in pairs)
    headers = "".join(f"{name}:{' '.join(request.headers.get(name, '').split())}\n" for name in signed_headers)
    payload = request.headers.get("x-amz-content-sha256") or hashlib.sha256(request.raw_body).hexdigest()
    return "\n".join([request.method.upper(), uri, query, headers, ";".join(signed_headers), payload])


def signature(request: RecordedRequest, secret: str, scope: str, signed_headers: list[str]) -> str:
    """The signature of ``request`` for ``scope`` (``<yyyymmdd>/<region>/<service>/aws4_request``)."""
    amz_date = request.headers.get("x-amz-date", "")
    digest = hashlib.sha256(canonical_request(request, signed_headers).encode("utf-8")).hexdigest()
    string_to_sign = "\n".join([ALGORITHM, amz_date, scope, digest])
    date, region, service, terminator = scope.split("/")
    key = _hmac(("AWS4" + secret).encode("utf-8"), date)
    for part in (region, service, terminator):
        key = _hmac(key, part)
    return hmac.new(key, string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
