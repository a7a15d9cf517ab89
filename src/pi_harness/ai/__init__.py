"""``pi_harness.ai``: one streaming API over LLM providers (Pi's ``pi-ai``).

Importing this package is cheap: each name below is imported from its module on first use
(PEP 562 ``__getattr__``), so a program that needs one submodule does not pay for all of them;
provider modules, the model catalogue and ``jsonschema`` are loaded on first use too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# ``stream`` is also the name of a submodule (``ai/stream.py``): importing that submodule binds
# the package attribute to the module, so the function is bound here, after ``ai.api`` (which
# imports the submodule), as the package always did; ``__getattr__`` would never be asked.
from pi_harness.ai.api import stream
from pi_harness.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pi_harness.ai.abort import AbortController, AbortError, AbortSignal
    from pi_harness.ai.api import complete, complete_simple, stream, stream_simple
    from pi_harness.ai.cost import calculate_cost
    from pi_harness.ai.env_keys import AUTHENTICATED, get_env_api_key
    from pi_harness.ai.events import AssistantMessageEvent
    from pi_harness.ai.images import (
        ImageGenerationContext,
        ImageGenerationOptions,
        ImageGenerationResult,
        generate_images,
        register_images_api_provider,
        unregister_images_api_providers,
    )
    from pi_harness.ai.message_builder import MessageBuilder
    from pi_harness.ai.model_types import (
        MediaModel,
        get_image_model,
        get_image_models,
        get_model_of_type,
        get_models_of_type,
        get_providers_of_type,
    )
    from pi_harness.ai.models import get_model, get_models, get_providers, models_are_equal, supports_xhigh
    from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
    from pi_harness.ai.overflow import (
        get_overflow_patterns,
        is_context_overflow,
        register_overflow_pattern,
        unregister_overflow_pattern,
    )
    from pi_harness.ai.partial_json import parse_streaming_json
    from pi_harness.ai.provider_stream import run_provider_stream
    from pi_harness.ai.registry import (
        ApiProvider,
        clear_api_providers,
        get_api_provider,
        register_api_provider,
        unregister_api_providers,
    )
    from pi_harness.ai.retry import is_retryable_error, is_retryable_error_message
    from pi_harness.ai.stream import AssistantMessageEventStream, create_assistant_message_event_stream
    from pi_harness.ai.transform import transform_messages
    from pi_harness.ai.types import (
        AssistantMessage,
        Context,
        ImageContent,
        Message,
        Model,
        StopReason,
        TextContent,
        ThinkingContent,
        ThinkingLevel,
        Tool,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserMessage,
        empty_usage,
    )
    from pi_harness.ai.validation import ToolValidationError, validate_tool_arguments, validate_tool_call

# Each public name and the submodule of ``pi_harness.ai`` it comes from.
_SOURCES: dict[str, str] = {
    "AbortController": "abort",
    "AbortError": "abort",
    "AbortSignal": "abort",
    "complete": "api",
    "complete_simple": "api",
    "stream_simple": "api",
    "calculate_cost": "cost",
    "AUTHENTICATED": "env_keys",
    "get_env_api_key": "env_keys",
    "AssistantMessageEvent": "events",
    "ImageGenerationContext": "images",
    "ImageGenerationOptions": "images",
    "ImageGenerationResult": "images",
    "generate_images": "images",
    "register_images_api_provider": "images",
    "unregister_images_api_providers": "images",
    "MessageBuilder": "message_builder",
    "MediaModel": "model_types",
    "get_image_model": "model_types",
    "get_image_models": "model_types",
    "get_model_of_type": "model_types",
    "get_models_of_type": "model_types",
    "get_providers_of_type": "model_types",
    "get_model": "models",
    "get_models": "models",
    "get_providers": "models",
    "models_are_equal": "models",
    "supports_xhigh": "models",
    "SimpleStreamOptions": "options",
    "StreamOptions": "options",
    "get_overflow_patterns": "overflow",
    "is_context_overflow": "overflow",
    "register_overflow_pattern": "overflow",
    "unregister_overflow_pattern": "overflow",
    "parse_streaming_json": "partial_json",
    "run_provider_stream": "provider_stream",
    "ApiProvider": "registry",
    "clear_api_providers": "registry",
    "get_api_provider": "registry",
    "register_api_provider": "registry",
    "unregister_api_providers": "registry",
    "is_retryable_error": "retry",
    "is_retryable_error_message": "retry",
    "AssistantMessageEventStream": "stream",
    "create_assistant_message_event_stream": "stream",
    "transform_messages": "transform",
    "AssistantMessage": "types",
    "Context": "types",
    "ImageContent": "types",
    "Message": "types",
    "Model": "types",
    "StopReason": "types",
    "TextContent": "types",
    "ThinkingContent": "types",
    "ThinkingLevel": "types",
    "Tool": "types",
    "ToolCall": "types",
    "ToolResultMessage": "types",
    "Usage": "types",
    "UserMessage": "types",
    "empty_usage": "types",
    "ToolValidationError": "validation",
    "validate_tool_arguments": "validation",
    "validate_tool_call": "validation",
}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _SOURCES)


__all__ = [
    "AUTHENTICATED",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "ApiProvider",
    "AssistantMessage",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "Context",
    "ImageContent",
    "ImageGenerationContext",
    "ImageGenerationOptions",
    "ImageGenerationResult",
    "MediaModel",
    "Message",
    "MessageBuilder",
    "Model",
    "SimpleStreamOptions",
    "StopReason",
    "StreamOptions",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevel",
    "Tool",
    "ToolCall",
    "ToolResultMessage",
    "ToolValidationError",
    "Usage",
    "UserMessage",
    "calculate_cost",
    "clear_api_providers",
    "complete",
    "complete_simple",
    "create_assistant_message_event_stream",
    "empty_usage",
    "generate_images",
    "get_api_provider",
    "get_env_api_key",
    "get_image_model",
    "get_image_models",
    "get_model",
    "get_model_of_type",
    "get_models",
    "get_models_of_type",
    "get_overflow_patterns",
    "get_providers",
    "get_providers_of_type",
    "is_context_overflow",
    "is_retryable_error",
    "is_retryable_error_message",
    "models_are_equal",
    "parse_streaming_json",
    "register_api_provider",
    "register_images_api_provider",
    "register_overflow_pattern",
    "run_provider_stream",
    "stream",
    "stream_simple",
    "supports_xhigh",
    "transform_messages",
    "unregister_api_providers",
    "unregister_images_api_providers",
    "unregister_overflow_pattern",
    "validate_tool_arguments",
    "validate_tool_call",
]
