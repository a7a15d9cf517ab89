"""custom-provider-gitlab-duo: GitLab Duo's Claude and GPT models through GitLab's AI gateway.

What it shows:

* a provider whose ``streamSimple`` does not speak an API itself but wraps two of pi-harness's
  (Anthropic Messages and OpenAI Responses): each model says which one its backend needs, and
  the request goes to that backend's proxy URL on the gateway;
* a credential exchanged at request time: the GitLab token (``$GITLAB_TOKEN``, the provider's
  ``apiKey``) buys a short-lived gateway token from GitLab (kept for 25 minutes), which is sent
  with the headers GitLab returns alongside it;
* errors of that exchange (for example Duo not enabled: HTTP 403) ending the message as an
  ``error`` with a clear text, like any provider failure.

Use a personal access token with the ``api`` scope: ``GITLAB_TOKEN=glpat-... pi -e
examples/extensions/custom_provider_gitlab_duo --model gitlab-duo/claude-sonnet-4-5-20250929``.
``GITLAB_URL`` and ``GITLAB_AI_GATEWAY_URL`` point it at a self-managed instance. Pi's
example also offers ``/login gitlab-duo`` through an OAuth application registered for Pi; this
one does not.
"""

from __future__ import annotations

from pi_harness.coding.extensions.api import ExtensionAPI

from .gateway import API, MODELS, PROVIDER, gateway_url, stream_gitlab_duo


def extension(pi: ExtensionAPI) -> None:
    pi.register_provider(
        PROVIDER,
        {
            "baseUrl": gateway_url(),
            "apiKey": "$GITLAB_TOKEN",
            "api": API,
            "streamSimple": stream_gitlab_duo,
            "models": [{k: v for k, v in model.items() if k != "backend"} for model in MODELS],
        },
    )
