"""Build (or check) the package's model catalogue from an installed Pi ``pi-ai`` package.

Usage:
    python scripts/build_catalog.py [PI_AI_PACKAGE_DIR] [--check]

``PI_AI_PACKAGE_DIR`` is the ``@earendil-works/pi-ai`` directory of a Pi install (default: the
reference install under ``/work/pi-ref``). Each ``dist/providers/<name>.models.js`` names the data
file it flattens (``import ... from "./data/<name>.json"``); those files group models by API, and
the chat models (``"type": "chat"``) go to ``catalog.json``, the catalogue ``--list-models`` and
``/model`` show; image and classifier models go to ``media_catalog.json``
(``{"image": {provider: [...]}, "classifier": {provider: [...]}}``), which only the typed lookups
of ``pi_harness.ai.model_types`` read, as Pi keeps them out of its chat lists.

Only the fields of a model descriptor (``FIELDS``) are kept, and providers and models are sorted
by id, so a refresh for a later Pi version gives a readable diff of
``src/pi_harness/ai/catalog.json`` and ``media_catalog.json``. ``--check`` exits 1 when a package
file differs from what the source would produce. Tests never run this script: the catalogue is committed.

After a refresh, also record what the new Pi prints for ``--list-models`` with every provider's
credential set (``tests/fixtures/pi_list_models_all.txt``, see
``tests/cli/test_list_models.py::test_every_catalogue_provider_is_listed_with_its_credential``)
and regenerate the providers table of ``docs/models.md`` (``python tests/test_docs_providers.py``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "pi_harness" / "ai" / "catalog.json"
MEDIA_TARGET = ROOT / "src" / "pi_harness" / "ai" / "media_catalog.json"
DEFAULT_SOURCE = Path("/work/pi-ref/pi/node_modules/@earendil-works/pi-ai")
FIELDS = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
    "headers",
    "compat",
    "thinkingLevelMap",
    "inputLimits",
    "promptCache",
    "samplingParams",
    "samplingParamsByThinkingLevel",
)
REQUIRED = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
)
# Image and classifier descriptors: no context/output limits or thinking; ``output`` says what an
# image model returns. ``type`` is kept so a descriptor says what it is on its own.
MEDIA_FIELDS: dict[str, tuple[str, ...]] = {
    "image": ("type", "id", "name", "api", "provider", "baseUrl", "input", "output", "cost", "inputLimits", "headers"),
    "classifier": ("type", "id", "name", "api", "provider", "baseUrl", "input", "cost", "contextWindow", "compat"),
}
MEDIA_REQUIRED = ("type", "id", "name", "api", "provider", "baseUrl", "input", "cost")
_DATA_IMPORT = re.compile(r"""import\s+\w+\s+from\s+["'](\./data/[^"']+\.json)["']""")


def catalogue_files(package: Path) -> list[Path]:
    """The data files named by the package's ``providers/*.models.js`` modules."""
    providers = package / "dist" / "providers"
    modules = sorted(providers.glob("*.models.js"))
    if not modules:
        raise SystemExit(f"{providers}: no *.models.js catalogue modules")
    files: list[Path] = []
    for module in modules:
        found = _DATA_IMPORT.findall(module.read_text(encoding="utf-8"))
        if not found:
            raise SystemExit(f"{module}: no data import found")
        files.extend((providers / rel).resolve() for rel in found)
    return files


def models_of_type(data_file: Path, kind: str) -> list[dict[str, object]]:
    groups = json.loads(data_file.read_text(encoding="utf-8"))
    return [model for group in groups.values() for model in group.values() if model.get("type") == kind]


def chat_models(data_file: Path) -> list[dict[str, object]]:
    return models_of_type(data_file, "chat")


def _sorted(by_provider: dict[str, dict[str, dict[str, object]]]) -> dict[str, list[dict[str, object]]]:
    return {p: [by_provider[p][i] for i in sorted(by_provider[p])] for p in sorted(by_provider)}


def build_media(package: Path) -> str:
    out: dict[str, dict[str, list[dict[str, object]]]] = {}
    for kind, fields in MEDIA_FIELDS.items():
        by_provider: dict[str, dict[str, dict[str, object]]] = {}
        for data_file in catalogue_files(package):
            for model in models_of_type(data_file, kind):
                missing = [f for f in MEDIA_REQUIRED if f not in model]
                if missing:
                    raise SystemExit(f"{data_file.name}/{model.get('id')}: missing {', '.join(missing)}")
                provider = str(model["provider"])
                by_provider.setdefault(provider, {})[str(model["id"])] = {f: model[f] for f in fields if f in model}
        out[kind] = _sorted(by_provider)
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n"


def build(package: Path) -> str:
    by_provider: dict[str, dict[str, dict[str, object]]] = {}
    for data_file in catalogue_files(package):
        for model in chat_models(data_file):
            missing = [f for f in REQUIRED if f not in model]
            if missing:
                raise SystemExit(f"{data_file.name}/{model.get('id')}: missing {', '.join(missing)}")
            provider = str(model["provider"])
            by_provider.setdefault(provider, {})[str(model["id"])] = {f: model[f] for f in FIELDS if f in model}
    out = _sorted(by_provider)
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if not a.startswith("--")]
    source = Path(args[0]) if args else DEFAULT_SOURCE
    outputs = {TARGET: build(source), MEDIA_TARGET: build_media(source)}
    if check:
        stale = [t for t, text in outputs.items() if (t.read_text(encoding="utf-8") if t.exists() else "") != text]
        for target in stale:
            print(f"{target} is out of date; run scripts/build_catalog.py", file=sys.stderr)
        if stale:
            return 1
        print("catalogue up to date")
        return 0
    for target, text in outputs.items():
        target.write_text(text, encoding="utf-8")
    chat = json.loads(outputs[TARGET])
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(chat)} providers, {sum(len(v) for v in chat.values())} models")
    media = json.loads(outputs[MEDIA_TARGET])
    counts = ", ".join(f"{sum(len(v) for v in media[k].values())} {k}" for k in media)
    print(f"wrote {MEDIA_TARGET.relative_to(ROOT)}: {counts} models")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
