"""Build (or check) the package's model catalogue from an installed Pi ``pi-ai`` package.

Usage:
    python scripts/build_catalog.py [PI_AI_PACKAGE_DIR] [--check]

``PI_AI_PACKAGE_DIR`` is the ``@earendil-works/pi-ai`` directory of a Pi install (default: the
reference install under ``/work/pi-ref``). Each ``dist/providers/<name>.models.js`` names the data
file it flattens (``import ... from "./data/<name>.json"``); those files group models by API, and
we keep the chat models (``"type": "chat"``), as Pi's chat catalogue does. Image and classifier
models are left out: pi-harness has no use for them yet.

Only the fields of a model descriptor (``FIELDS``) are kept, and providers and models are sorted
by id, so a refresh for a later Pi version gives a readable diff of
``src/pi_harness/ai/catalog.json``. ``--check`` exits 1 when the package file differs from what
the source would produce. Tests never run this script: the catalogue is committed.

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


def chat_models(data_file: Path) -> list[dict[str, object]]:
    groups = json.loads(data_file.read_text(encoding="utf-8"))
    return [model for group in groups.values() for model in group.values() if model.get("type") == "chat"]


def build(package: Path) -> str:
    by_provider: dict[str, dict[str, dict[str, object]]] = {}
    for data_file in catalogue_files(package):
        for model in chat_models(data_file):
            missing = [f for f in REQUIRED if f not in model]
            if missing:
                raise SystemExit(f"{data_file.name}/{model.get('id')}: missing {', '.join(missing)}")
            provider = str(model["provider"])
            by_provider.setdefault(provider, {})[str(model["id"])] = {f: model[f] for f in FIELDS if f in model}
    out = {p: [by_provider[p][i] for i in sorted(by_provider[p])] for p in sorted(by_provider)}
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if not a.startswith("--")]
    source = Path(args[0]) if args else DEFAULT_SOURCE
    text = build(source)
    if check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date; run scripts/build_catalog.py", file=sys.stderr)
            return 1
        print("catalogue up to date")
        return 0
    TARGET.write_text(text, encoding="utf-8")
    data = json.loads(text)
    count = sum(len(v) for v in data.values())
    print(f"wrote {TARGET.relative_to(ROOT)}: {len(data)} providers, {count} models")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
