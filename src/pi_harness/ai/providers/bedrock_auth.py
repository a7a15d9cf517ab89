"""Where a Bedrock request goes and how it is authenticated.

Region: the region inside an inference-profile ARN, else ``region`` / ``AWS_REGION`` /
``AWS_DEFAULT_REGION``, else the region of the model's standard ``bedrock-runtime`` URL when that
URL is used, else ``us-east-1`` (with ``AWS_PROFILE`` set, the profile's own region).

Endpoint: a model ``baseUrl`` that is not a standard ``bedrock-runtime.<region>.amazonaws.com``
URL (a VPC endpoint, a proxy) is always used; a standard one only when neither a region nor
``AWS_PROFILE`` is configured; otherwise ``https://bedrock-runtime.<region>.amazonaws.com``.

Authentication: a bearer token (``AWS_BEARER_TOKEN_BEDROCK`` or a real key given as the API key)
as ``Authorization: Bearer``; otherwise SigV4 (service ``bedrock``) with credentials from
botocore's chain (environment, ``AWS_PROFILE``/config files, SSO, container and instance roles);
``AWS_BEDROCK_SKIP_AUTH=1`` signs with dummy keys for proxies that need none. botocore is the
optional extra ``bedrock``; the credential chain and signing run in a worker thread because
botocore is synchronous and may fetch credentials over the network.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from pi_harness.ai.env_keys import AUTHENTICATED
from pi_harness.ai.types import Model
from pi_harness.optional_deps import MissingDependencyError

SERVICE = "bedrock"
DEFAULT_REGION = "us-east-1"
FEATURE = "Amazon Bedrock with AWS credentials"
NO_CREDENTIALS = "Unable to locate AWS credentials (set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)"
_ARN_REGION = re.compile(r"^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):")
_STANDARD_HOST = re.compile(r"^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")

_lock = threading.Lock()
_sessions: dict[str | None, Any] = {}  # profile -> botocore session


def _botocore() -> Any:
    try:
        import botocore.auth
        import botocore.awsrequest
        import botocore.credentials
        import botocore.session
    except ModuleNotFoundError as error:
        if (error.name or "").startswith("botocore"):
            raise MissingDependencyError("botocore", FEATURE, "bedrock") from None
        raise
    return botocore


def configured_region(explicit: str | None = None) -> str | None:
    return explicit or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None


def standard_endpoint_region(base_url: str | None) -> str | None:
    if not base_url:
        return None
    match = _STANDARD_HOST.match((urlsplit(base_url).hostname or "").lower())
    return match.group(1) if match else None


def uses_model_endpoint(base_url: str | None, region: str | None) -> bool:
    if not base_url:
        return False
    if standard_endpoint_region(base_url) is None:
        return True
    return not region and not os.environ.get("AWS_PROFILE")


def resolve_region(model: Model, explicit: str | None = None) -> str | None:
    """The signing region; ``None`` means "the profile's region" (looked up with botocore)."""
    arn = _ARN_REGION.match(model["id"])
    if arn:
        return arn.group(1)
    region = configured_region(explicit)
    if region:
        return region
    base_url = model.get("baseUrl")
    endpoint_region = standard_endpoint_region(base_url)
    if endpoint_region and uses_model_endpoint(base_url, None):
        return endpoint_region
    return None if os.environ.get("AWS_PROFILE") else DEFAULT_REGION


def request_url(model: Model, region: str, explicit_region: str | None = None) -> str:
    base_url = model.get("baseUrl")
    if base_url and uses_model_endpoint(base_url, configured_region(explicit_region)):
        root = base_url.rstrip("/")
    else:
        root = f"https://bedrock-runtime.{region}.amazonaws.com"
    return f"{root}/model/{quote(model['id'], safe='')}/converse-stream"


def bearer_token(api_key: str | None, explicit: str | None = None) -> str | None:
    if os.environ.get("AWS_BEDROCK_SKIP_AUTH") == "1":
        return None
    key = api_key if api_key and api_key != AUTHENTICATED else None
    return explicit or key or os.environ.get("AWS_BEARER_TOKEN_BEDROCK") or None


def _session(profile: str | None) -> Any:
    botocore = _botocore()
    with _lock:
        session = _sessions.get(profile)
        if session is None:
            session = botocore.session.Session(profile=profile) if profile else botocore.session.Session()
            _sessions[profile] = session
    return session


def _sign_now(
    url: str, body: bytes, headers: Mapping[str, str], region: str | None, profile: str | None
) -> tuple[dict[str, str], str]:
    botocore = _botocore()
    session = _session(profile)
    region = region or session.get_config_variable("region") or DEFAULT_REGION
    if os.environ.get("AWS_BEDROCK_SKIP_AUTH") == "1":
        credentials = botocore.credentials.Credentials("dummy-access-key", "dummy-secret-key")
    else:
        found = session.get_credentials()
        if found is None:
            raise PermissionError(NO_CREDENTIALS)
        credentials = found.get_frozen_credentials()
    request = botocore.awsrequest.AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    botocore.auth.SigV4Auth(credentials, SERVICE, region).add_auth(request)
    return {name: str(value) for name, value in request.headers.items()}, region


async def sign(
    url: str, body: bytes, headers: Mapping[str, str], region: str | None, profile: str | None
) -> tuple[dict[str, str], str]:
    """``headers`` plus ``X-Amz-Date``, ``X-Amz-Security-Token`` (temporary keys) and the SigV4
    ``Authorization``; and the region signed for."""
    _botocore()  # a missing package is reported before any thread starts
    return await asyncio.to_thread(_sign_now, url, body, headers, region, profile)


def profile_region(profile: str | None) -> str:
    """The region of ``profile`` (or the default profile) from the AWS config files."""
    region = _session(profile).get_config_variable("region")
    return str(region) if region else DEFAULT_REGION


def forget_sessions() -> None:
    with _lock:
        _sessions.clear()
