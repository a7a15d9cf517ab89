"""Which model ``pi -p`` talks to for a given command line, and what it says on the way: the
cases where the real Pi 1.4.0 was run side by side and the two differed before (custom ids on a
known provider, ``--provider`` alone, patterns that match nothing, ``--session-id``, an
extension path that does not exist). Each answer comes from the fake server, so the model id is
the one in the request body."""

from __future__ import annotations

from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep


def _answers(pi_env: PiEnv, count: int = 1) -> None:
    pi_env.server.push(*(ScriptedResponse(steps=[TextStep("ok")]) for _ in range(count)))


def _model_sent(pi_env: PiEnv) -> list[object]:
    return [request.json.get("model") for request in pi_env.server.requests]


def test_an_id_the_catalog_lacks_is_used_on_a_known_provider_with_a_warning(pi_env: PiEnv) -> None:
    _answers(pi_env)
    result = pi_env.run("--model", "fake/fake-next:high", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stderr == 'Warning: Model "fake-next" not found for provider "fake". Using custom model id.\n'
    assert _model_sent(pi_env) == ["fake-next"]
    assert pi_env.server.requests[0].json.get("reasoning_effort") == "high"


def test_a_provider_and_an_unknown_id(pi_env: PiEnv) -> None:
    _answers(pi_env)
    result = pi_env.run("--provider", "fake", "--model", "fake-next", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert "Using custom model id." in result.stderr
    assert _model_sent(pi_env) == ["fake-next"]


def test_fuzzy_matches_prefer_the_alias_that_sorts_last(pi_env: PiEnv) -> None:
    pi_env.configure(extra=["fake-coder-1", "fake-coder-2", "fake-coder-2-20250101"])
    _answers(pi_env)
    result = pi_env.run("--model", "coder", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert _model_sent(pi_env) == ["fake-coder-2"]


def test_provider_without_model_and_unknown_provider_stop_the_run(pi_env: PiEnv) -> None:
    alone = pi_env.run("--provider", "fake", "-p", "hi")
    assert alone.returncode == 1
    assert alone.stderr == "Error: --provider requires --model (for example: --provider fake --model <pattern>)\n"
    unknown = pi_env.run("--provider", "nope", "--model", "x", "-p", "hi")
    assert unknown.returncode == 1
    assert unknown.stderr == 'Error: Unknown provider "nope". Use --list-models to see available providers/models.\n'
    missing = pi_env.run("--model", "zzz", "-p", "hi")
    assert missing.returncode == 1
    assert missing.stderr == 'Error: Model "zzz" not found. Use --list-models to see available models.\n'
    assert pi_env.server.requests == []


def test_a_scope_pattern_that_matches_nothing_is_a_warning(pi_env: PiEnv) -> None:
    _answers(pi_env)
    result = pi_env.run("--models", "zzz,fake-model", "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stderr == 'Warning: No models match pattern "zzz"\n'
    assert _model_sent(pi_env) == ["fake-model"]


def test_the_scope_starts_with_the_default_model_when_it_has_it(pi_env: PiEnv) -> None:
    _answers(pi_env, 2)
    pi_env.configure(extra=["fake-other"], settings={"enabledModels": ["fake-other", "fake-model"]})
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert _model_sent(pi_env) == ["fake-model"]
    pi_env.configure(extra=["fake-other"], settings={"enabledModels": ["fake-other"]})
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert _model_sent(pi_env)[-1] == "fake-other"


def test_a_new_session_id_is_announced(pi_env: PiEnv) -> None:
    _answers(pi_env, 2)
    session_id = "0198a0a0-0000-7000-8000-000000000001"
    result = pi_env.run("--session-id", session_id, "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"Warning: No project session found with id '{session_id}'; creating a new session with that id.\n"
    )
    assert [path.name.endswith(f"_{session_id}.jsonl") for path in pi_env.sessions()] == [True]
    again = pi_env.run("--session-id", session_id, "-p", "again")
    assert again.returncode == 0 and again.stderr == ""


def test_an_extension_path_that_does_not_exist(pi_env: PiEnv) -> None:
    result = pi_env.run("-e", "nope.py", "-p", "hi")
    assert result.returncode == 1
    path = pi_env.cwd / "nope.py"
    assert result.stderr == (
        f'Error: Failed to load extension "{path}": Extension path does not exist: {path}\n'
        'Hint: Start without extensions using "pi -ne".\n'
    )
    assert pi_env.server.requests == []
