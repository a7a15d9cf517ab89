"""The fake LLM server: a scripted loopback server for every wire protocol (part of the product).

with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
    model = server.model("anthropic-messages")
    ...
    assert server.requests[0].json["messages"]
"""

from pi_harness.testing.fake_llm.llama_server import LlamaServer, RouterModel, context_exceeded
from pi_harness.testing.fake_llm.script import (
    HTTPErrorSpec,
    RecordedRequest,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from pi_harness.testing.fake_llm.script_file import load_script, response_from_dict
from pi_harness.testing.fake_llm.server import NO_RESPONSE_LEFT, FakeLLMServer

__all__ = [
    "NO_RESPONSE_LEFT",
    "FakeLLMServer",
    "HTTPErrorSpec",
    "LlamaServer",
    "RecordedRequest",
    "RouterModel",
    "ScriptedResponse",
    "TextStep",
    "ThinkingStep",
    "ToolCallStep",
    "context_exceeded",
    "load_script",
    "response_from_dict",
]
