"""llama-server's own endpoints, for ``FakeLLMServer(llama=LlamaServer(...))``.

The bodies are the ones a real ``llama-server`` (llama.cpp, the build in
``/work/shared/tools/localllm``) sends, recorded from it:

* single-model mode: ``GET /health`` ``{"status":"ok"}`` (503 ``Loading model`` while loading),
  ``GET /props`` with ``default_generation_settings.n_ctx``, ``modalities`` and
  ``chat_template_caps``, ``GET /v1/models`` with the model's ``meta`` (``n_ctx``...);
* router mode (``--models-dir``, no ``--model``): ``GET /models`` lists every model with its
  ``status`` (``unloaded``, ``loading``, ``loaded``, ``sleeping``; the ``args`` it is started
  with; ``failed``/``exit_code`` after a failed start) and, once loaded, ``meta.n_ctx``, ``POST /models/load`` and
  ``POST /models/unload`` answer ``{"success":true}``, ``GET /props`` says ``"role":"router"``
  and ``models_autoload``; a chat request for a model that is not loaded is refused with
  ``model is not loaded``.

``load_steps`` is how many ``GET /models`` a load stays ``loading`` for (0: loaded at once), so a
client's polling is exercised without any clock. ``context_exceeded`` is the 400 a request
larger than the context gets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs

import orjson

from pi_harness.ai.json_values import JsonObject, JsonValue
from pi_harness.testing.fake_llm.script import HTTPErrorSpec

JSON_UTF8 = "application/json; charset=utf-8"
Answer = tuple[int, dict[str, str], bytes]


def context_exceeded(n_prompt_tokens: int, n_ctx: int) -> HTTPErrorSpec:
    """llama-server's answer to a prompt longer than its context (the fake's Chat Completions
    dialect renders ``exceed_context_size_error`` as llama.cpp's body, byte for byte)."""
    message = (
        f"request ({n_prompt_tokens} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it"
    )
    return HTTPErrorSpec(400, message, type="exceed_context_size_error")


def _error(code: int, message: str, kind: str) -> bytes:
    return orjson.dumps({"error": {"code": code, "message": message, "type": kind}})


LOADING = b'{"error":{"message":"Loading model","type":"unavailable_error","code":503}}'
NOT_LOADED = _error(400, "model is not loaded", "invalid_request_error")
NOT_FOUND = _error(400, "model is not found", "invalid_request_error")
FILE_NOT_FOUND = b'{"error":{"message":"File Not Found","type":"not_found_error","code":404}}'


@dataclass
class RouterModel:
    id: str
    status: str = "unloaded"
    n_ctx: int = 4096
    n_ctx_train: int = 32768
    vision: bool = False
    failed: bool = False
    source: str = "models_dir"
    loading_left: int = 0

    def entry(self) -> JsonObject:
        # The real router lists the arguments a model is (or would be) started with, loaded or not.
        status: JsonObject = {
            "value": self.status,
            "args": ["llama-server", "--alias", self.id, "--ctx-size", str(self.n_ctx), "--port", "0"],
        }
        if self.failed:
            status["failed"] = True
            status["exit_code"] = 1
        inputs: list[JsonValue] = ["text", "image"] if self.vision else ["text"]
        entry: JsonObject = {
            "id": self.id,
            "aliases": [],
            "tags": [],
            "object": "model",
            "owned_by": "llamacpp",
            "created": 1796173850,
            "status": status,
            "architecture": {"input_modalities": inputs, "output_modalities": ["text"]},
            "source": self.source,
            "can_remove": False,
        }
        if self.status == "loaded":
            entry["meta"] = {"n_ctx": self.n_ctx, "n_ctx_train": self.n_ctx_train, "ftype": "Q4_K - Medium"}
        return entry


@dataclass
class LlamaServer:
    """The state of a fake llama-server: one model (``router=False``) or a router's catalogue."""

    models: list[RouterModel] = field(default_factory=lambda: [RouterModel("qwen2.5-coder-1.5b-instruct", "loaded")])
    router: bool = False
    autoload: bool = False
    loading: bool = False  # single-model mode: still loading its model (503 everywhere)
    load_steps: int = 0
    fail_loads: frozenset[str] = frozenset()
    chat_template: str = "{{ messages }}"
    actions: list[str] = field(default_factory=list)  # "load <id>", "unload <id>" in order

    def find(self, model_id: str) -> RouterModel | None:
        return next((m for m in self.models if m.id == model_id), None)

    def respond(self, method: str, path: str, query: str, body: bytes) -> Answer | None:
        """The answer to a llama-server endpoint, or None for the LLM routes (and unknown ones)."""
        if self.loading and path in ("/health", "/v1/health", "/props", "/models", "/v1/models"):
            return 503, {"content-type": JSON_UTF8}, LOADING
        if method == "GET" and path in ("/health", "/v1/health"):
            return 200, {"content-type": JSON_UTF8}, b'{"status":"ok"}'
        if method == "GET" and path == "/props":
            return 200, {"content-type": JSON_UTF8}, orjson.dumps(self._props(parse_qs(query)))
        if method == "GET" and path in ("/models", "/v1/models"):
            return 200, {"content-type": JSON_UTF8}, orjson.dumps(self._catalogue())
        if method == "POST" and path in ("/models/load", "/models/unload"):
            return self._manage(path.rsplit("/", 1)[1], body)
        return None

    def refuse_chat(self, body: JsonValue) -> Answer | None:
        """A router refuses a chat request for a model that is not loaded (it autoloads if told)."""
        if self.loading:
            return 503, {"content-type": JSON_UTF8}, LOADING
        if not self.router:
            return None
        model_id = body.get("model") if isinstance(body, dict) else None
        model = self.find(model_id) if isinstance(model_id, str) else None
        if model is None:
            return 400, {"content-type": JSON_UTF8}, NOT_FOUND
        if model.status == "unloaded" and self.autoload:
            model.status = "loaded"
        if model.status == "sleeping":
            model.status = "loaded"
        return None if model.status == "loaded" else (400, {"content-type": JSON_UTF8}, NOT_LOADED)

    def _props(self, query: dict[str, list[str]]) -> JsonObject:
        wanted = query.get("model", [None])[0]
        model = self.find(wanted) if wanted else (None if self.router else self.models[0])
        if model is None:
            return {
                "role": "router",
                "max_instances": 4,
                "models_autoload": self.autoload,
                "model_alias": "llama-server",
                "model_path": "none",
                "default_generation_settings": {"params": None, "n_ctx": 0},
                "ui_settings": {},
                "build_info": "b0-unknown",
                "cors_proxy_enabled": False,
            }
        return {
            "default_generation_settings": {"n_ctx": model.n_ctx, "params": {"temperature": 0.8}},
            "total_slots": 1,
            "model_alias": model.id,
            "model_path": f"/models/{model.id}.gguf",
            "modalities": {"vision": model.vision, "video": False, "audio": False},
            "chat_template": self.chat_template,
            "chat_template_caps": {"supports_tools": True, "supports_tool_calls": True},
            "build_info": "b0-unknown",
            "is_sleeping": model.status == "sleeping",
        }

    def _catalogue(self) -> JsonObject:
        for model in self.models:
            if model.status == "loading":
                if model.loading_left > 0:
                    model.loading_left -= 1
                elif model.id in self.fail_loads:
                    model.status, model.failed = "unloaded", True
                else:
                    model.status = "loaded"
        if not self.router:
            model = self.models[0]
            meta: JsonObject = {"n_ctx": model.n_ctx, "n_ctx_train": model.n_ctx_train}
            data: list[JsonValue] = [{"id": model.id, "object": "model", "owned_by": "llamacpp", "meta": meta}]
            return {"object": "list", "data": data}
        return {"data": [m.entry() for m in self.models], "object": "list"}

    def _manage(self, action: str, body: bytes) -> Answer:
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            request = None
        model_id = request.get("model") if isinstance(request, dict) else None
        model = self.find(model_id) if isinstance(model_id, str) else None
        if not self.router:
            return 404, {"content-type": JSON_UTF8}, FILE_NOT_FOUND
        if model is None:
            return 400, {"content-type": JSON_UTF8}, NOT_FOUND if action == "unload" else FILE_NOT_FOUND
        self.actions.append(f"{action} {model.id}")
        if action == "load":
            model.failed = False
            model.status, model.loading_left = "loading", self.load_steps
        else:
            model.status = "unloaded"
        return 200, {"content-type": JSON_UTF8}, b'{"success":true}'
