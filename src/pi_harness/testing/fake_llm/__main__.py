"""``python -m pi_harness.testing.fake_llm --script FILE --port N``: serve a script from the shell.

Without ``--script`` (or once the script is used up) every request is answered by echoing the
last user message, which is enough to try ``pi`` offline against a models.json provider.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pi_harness.ai.json_values import JsonValue, as_list
from pi_harness.testing.fake_llm.script import RecordedRequest, ScriptedResponse, TextStep
from pi_harness.testing.fake_llm.script_file import load_script
from pi_harness.testing.fake_llm.server import PROTOCOL_MODULES, FakeLLMServer


def _last_user_text(body: JsonValue) -> str:
    """The last user text of any protocol's request (``messages``, ``input``, ``contents``, or
    pi-messages' ``context.messages``)."""
    if not isinstance(body, dict):
        return ""
    context = body.get("context")
    nested = context.get("messages") if isinstance(context, dict) else None
    messages = body.get("messages") or body.get("input") or body.get("contents") or nested
    for message in reversed(as_list(messages)):
        if not isinstance(message, dict) or message.get("role") not in ("user", None):
            continue
        content = message.get("content", message.get("parts"))
        if isinstance(content, str):
            return content
        for part in content or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                return str(part["text"])
    return ""


def echo(request: RecordedRequest) -> ScriptedResponse:
    text = _last_user_text(request.body)
    return ScriptedResponse(steps=[TextStep(f"You said: {text}" if text else "Hello from the fake LLM server.")])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi_harness.testing.fake_llm", description=__doc__)
    parser.add_argument("--script", type=Path, help='JSON script: {"responses": [...]}')
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--model", action="append", dest="models", help="model id listed by GET /v1/models")
    args = parser.parse_args(argv)
    responses = []
    if args.script is not None:
        try:
            responses = load_script(json.loads(args.script.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            print(f"fake_llm: cannot load script {args.script}: {exc}", file=sys.stderr)
            return 1
    server = FakeLLMServer(responses, host=args.host, port=args.port, default=echo, models=args.models)
    server.start()
    print(f"fake LLM server listening on {server.url}", flush=True)
    for api in PROTOCOL_MODULES:
        print(f"  {api}: baseUrl {server.base_url(api)}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
