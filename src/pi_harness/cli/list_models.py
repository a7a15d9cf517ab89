"""``pi --list-models [search]``: a table of the models that have credentials.

Columns ``provider  model  context  max-out  thinking  images``, two spaces apart, sorted by
provider then id. The optional search is fuzzy over ``"<provider> <id>"``: every space-separated
token must match as an in-order subsequence (case-insensitive); ``gpt4`` also matches ``4gpt``-style
swaps of a letters/digits token.

The models are those ``pi -p`` could use: the catalogue, ``models.json`` and the local model
servers that answer now (``load_listing_runtime``). Without any, the same guidance as ``pi -p``
is the listing (standard output, exit code 0, as Pi does); a search without matches is not an
error either.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

if TYPE_CHECKING:
    from pi_harness.ai.types import Model
    from pi_harness.cli.args import ParsedArgs
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.model_runtime import ModelRuntime

T = TypeVar("T")

NO_MATCH = 'No models matching "{search}"'
_HEADERS = ("provider", "model", "context", "max-out", "thinking", "images")
_LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")
_DIGITS_LETTERS = re.compile(r"^([0-9]+)([a-z]+)$")


def format_token_count(count: int) -> str:
    """``200000`` -> ``200K``, ``1000000`` -> ``1M``, ``1048576`` -> ``1.0M``."""
    for size, suffix in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            value = count / size
            return f"{int(value)}{suffix}" if value.is_integer() else f"{value:.1f}{suffix}"
    return str(count)


def _subsequence(query: str, text: str) -> bool:
    position = 0
    for char in query:
        position = text.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


def fuzzy_matches(query: str, text: str) -> bool:
    """Whether ``query`` appears in ``text`` in order, allowing gaps (case-insensitive)."""
    query, text = query.lower(), text.lower()
    if _subsequence(query, text):
        return True
    swapped = _LETTERS_DIGITS.match(query) or _DIGITS_LETTERS.match(query)
    return swapped is not None and _subsequence(swapped.group(2) + swapped.group(1), text)


def fuzzy_filter(items: Sequence[T], query: str, key: Callable[[T], str]) -> list[T]:
    tokens = query.split()
    if not tokens:
        return list(items)
    return [item for item in items if all(fuzzy_matches(token, key(item)) for token in tokens)]


# ASCII punctuation in the order of the Unicode root collation, all before digits and letters.
_PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _collation_key(text: str) -> tuple[list[tuple[int, int | str]], str]:
    """Close to JavaScript's ``localeCompare``, which Pi sorts with: punctuation before digits
    before letters, case-insensitive first, then lower case before upper case."""
    primary: list[tuple[int, int | str]] = []
    for char in text:
        if char.isalnum():
            primary.append((1, char.casefold()))
        else:
            rank = _PUNCTUATION.find(char)
            primary.append((0, rank if rank >= 0 else len(_PUNCTUATION) + ord(char)))
    return primary, text.swapcase()


def format_models_table(models: Sequence[Model]) -> list[str]:
    ordered = sorted(models, key=lambda m: (_collation_key(m["provider"]), _collation_key(m["id"])))
    rows = [
        (
            m["provider"],
            m["id"],
            format_token_count(m["contextWindow"]),
            format_token_count(m["maxTokens"]),
            "yes" if m.get("reasoning") else "no",
            "yes" if "image" in m.get("input", []) else "no",
        )
        for m in ordered
    ]
    widths = [max(len(header), *(len(row[i]) for row in rows)) for i, header in enumerate(_HEADERS)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in [_HEADERS, *rows]]


async def load_listing_runtime(parsed: ParsedArgs, *, on_warning: Callable[[str], None]) -> ModelRuntime:
    """The model runtime of a print-mode startup, local model servers included.

    Settings are read as ``pi -p`` would read them here: the project's only when it is trusted
    without asking (saved decision, ``--approve``, ``defaultProjectTrust``), since a listing never
    prompts.
    """
    from pi_harness.cli.bootstrap import register_local_models
    from pi_harness.coding.config.paths import agent_dir
    from pi_harness.coding.config.settings import SettingsManager
    from pi_harness.coding.config.trust import TrustStore, decide_project_trust
    from pi_harness.coding.model_runtime import ModelRuntime

    directory = agent_dir()
    runtime = ModelRuntime.create(directory)
    for error in [*runtime.errors, *runtime.warnings]:
        on_warning(f"Warning: {error}")
    cwd = Path.cwd().resolve()
    settings = SettingsManager.create(cwd, directory, project_trusted=False)
    trust = await decide_project_trust(
        cwd,
        store=TrustStore(directory),
        cli_approve=parsed.approve,
        default=settings.values.default_project_trust,
    )
    settings.set_project_trusted(trust.effective(interactive=False))
    await register_local_models(parsed, settings, directory, runtime, on_warning=on_warning)
    await _register_extension_models(parsed, settings, directory, runtime, on_warning=on_warning)
    return runtime


async def _register_extension_models(
    parsed: ParsedArgs,
    settings: SettingsManager,
    directory: Path,
    runtime: ModelRuntime,
    *,
    on_warning: Callable[[str], None],
) -> None:
    """Providers and virtual models of user and ``-e`` extensions, as a startup would see them."""
    from pi_harness.coding.agent_session.extension_binding import provider_applier
    from pi_harness.coding.extensions.runner import ExtensionRunner
    from pi_harness.coding.session_runtime.project_trust import user_extension_paths

    user_paths = [] if parsed.no_extensions else user_extension_paths(directory, settings)
    from pi_harness.coding.packages.sources import is_package_source

    paths = [str((Path.cwd() / p).resolve()) for p in parsed.extensions if not is_package_source(p)] + user_paths
    if not paths:
        return
    runner = ExtensionRunner(handler_timeout_ms=settings.values.extension_handler_timeout_ms)
    for failure in await runner.load_paths(paths):
        on_warning(f"Warning: {failure.path}: {failure.error}")
    apply = provider_applier(runtime)
    for action in runner.pending_provider_actions():
        try:
            apply(action)
        except (ValueError, TypeError) as exc:
            on_warning(f"Warning: Extension error ({action.extension_path}): {exc}")


def list_models(
    runtime: ModelRuntime, search: str | None = None, out: TextIO | None = None
) -> int:
    """Print the table and return 0. With no usable model the listing is what ``pi -p`` says
    about it, on standard output and still with 0, as in Pi: an empty list is an answer."""
    from pi_harness.cli.bootstrap import describe_no_model

    stream = out if out is not None else sys.stdout
    models = runtime.get_available()
    if not models:
        print(describe_no_model(), file=stream)
        return 0
    if search:
        models = fuzzy_filter(models, search, lambda m: f"{m['provider']} {m['id']}")
        if not models:
            print(NO_MATCH.format(search=search), file=stream)
            return 0
    for line in format_models_table(models):
        print(line, file=stream)
    return 0
