"""User-facing errors of the session layer, with Pi's exact texts where Pi has one."""

from __future__ import annotations

COMPACTION_IN_PROGRESS = "Cannot submit a prompt while compaction is in progress"
STREAMING_BEHAVIOR_REQUIRED = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)
NO_MODEL_SELECTED = (
    "No model selected.\n\n"
    "Add credentials for a provider (an API key environment variable, auth.json or models.json), "
    "then choose a model with --model or /model."
)
SESSION_NAME_EMPTY = "Session name cannot be empty"
NAVIGATION_WHILE_STREAMING = "Cannot navigate the session tree while the agent is processing"
NAVIGATION_WHILE_COMPACTING = "Cannot navigate the session tree while compaction is in progress"
NO_RUNTIME = "Session replacement needs an AgentSessionRuntime (create the session with create_agent_session)"
SESSION_DISPOSED = "This session was disposed (the runtime replaced or shut it down)"
CLONE_WITHOUT_LEAF = "Cannot clone session: no current entry selected"
NOT_SAVED_YET = "This session has not been saved yet. Send a message before cloning or forking it."


def no_api_key(provider: str, agent_dir: str | None = None) -> str:
    where = f" or in {agent_dir}/auth.json" if agent_dir else ""
    return (
        f"No API key found for {provider}.\n\n"
        f"Set the provider's API key environment variable, store a key with /login{where}, "
        "or configure an apiKey in models.json."
    )


def oauth_failed(provider: str) -> str:
    return (
        f'Authentication failed for "{provider}". Credentials may have expired or network is unavailable. '
        f"Run '/login {provider}' to re-authenticate."
    )


def command_cannot_be_queued(name: str) -> str:
    return f'Extension command "/{name}" cannot be queued. Use prompt() or execute the command when not streaming.'


class SessionError(RuntimeError):
    """A session operation was refused; the message is meant for the user."""


__all__ = [
    "COMPACTION_IN_PROGRESS",
    "NAVIGATION_WHILE_COMPACTING",
    "NAVIGATION_WHILE_STREAMING",
    "NO_MODEL_SELECTED",
    "NO_RUNTIME",
    "SESSION_DISPOSED",
    "SESSION_NAME_EMPTY",
    "STREAMING_BEHAVIOR_REQUIRED",
    "SessionError",
    "command_cannot_be_queued",
    "no_api_key",
    "oauth_failed",
]
