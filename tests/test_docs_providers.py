"""docs/models.md lists every catalogue provider with its credential, as the code reads it.

The table between the ``providers-table`` markers is generated from the catalogue and
``pi_harness.ai.env_keys``; when a provider or variable changes, regenerate it with
``python tests/test_docs_providers.py`` and review the diff.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from pi_harness.ai.env_keys import ENV_API_KEYS, PROVIDER_SETTINGS
from pi_harness.ai.models import get_models, get_providers
from pi_harness.coding.system_prompt import default_docs_dir

DOC = default_docs_dir() / "models.md"
START, END = "<!-- providers-table:start -->", "<!-- providers-table:end -->"
# Providers whose credential is not one variable.
SPECIAL = {
    "amazon-bedrock": "AWS credentials: `AWS_PROFILE`, `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY`, "
    "`AWS_BEARER_TOKEN_BEDROCK`, ECS or web-identity variables",
    "google-vertex": "`GOOGLE_CLOUD_API_KEY`, or application default credentials with `GOOGLE_CLOUD_PROJECT` "
    "and `GOOGLE_CLOUD_LOCATION`",
    "openai-codex": "OAuth sign-in only (stored in `auth.json`)",
}


def _code(names: tuple[str, ...]) -> str:
    return ", then ".join(f"`{n}`" for n in names)


def table_lines() -> list[str]:
    lines = ["| Provider | Models | APIs | Credential | Also needs |", "|---|---|---|---|---|"]
    for provider in get_providers():
        models = get_models(provider)
        apis = ", ".join(f"`{api}`" for api, _ in Counter(m["api"] for m in models).most_common())
        credential = SPECIAL.get(provider) or _code(ENV_API_KEYS[provider])
        settings = ", ".join(f"`{n}`" for n in PROVIDER_SETTINGS.get(provider, ())) or "-"
        lines.append(f"| `{provider}` | {len(models)} | {apis} | {credential} | {settings} |")
    return lines


def documented_lines(text: str) -> list[str]:
    match = re.search(re.escape(START) + r"\n(.*?)\n" + re.escape(END), text, re.S)
    assert match, f"{DOC.name} has no {START} ... {END} section"
    return match.group(1).splitlines()


def test_the_providers_table_matches_the_catalogue() -> None:
    assert documented_lines(DOC.read_text(encoding="utf-8")) == table_lines()


def test_every_catalogue_provider_is_in_the_table() -> None:
    rows = documented_lines(DOC.read_text(encoding="utf-8"))[2:]
    assert [row.split("`")[1] for row in rows] == get_providers()


def regenerate(path: Path = DOC) -> None:
    text = path.read_text(encoding="utf-8")
    body = "\n".join(table_lines())
    new = re.sub(re.escape(START) + r"\n.*?\n" + re.escape(END), lambda _: f"{START}\n{body}\n{END}", text, flags=re.S)
    path.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    regenerate(Path(sys.argv[1]) if len(sys.argv) > 1 else DOC)
