"""Real package sources for the package tests, all on this machine: an npm registry served on
loopback (packuments and tarballs made with ``npm pack``), bare git repositories behind
``file://`` URLs, and wheels made with ``pip wheel``. Nothing reaches the internet."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

SKILL = """---
name: {name}
description: {description}
---
# {name}

Follow these steps.
"""

TS_TOOL = """import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "shout",
    label: "Shout",
    description: "Upper-cases its text",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: params.text.toUpperCase() }], details: {} };
    },
  });
}
"""


def write_pi_package(root: Path, name: str, version: str, *, manifest: bool = True, tag: str = "") -> Path:
    """A Pi package: a skill, a prompt template and a TypeScript tool (``tag`` marks the files
    of one version so tests can tell versions apart)."""
    root.mkdir(parents=True, exist_ok=True)
    data: dict[str, object] = {
        "name": name,
        "version": version,
        "keywords": ["pi-package"],
        "peerDependencies": {"@earendil-works/pi-coding-agent": "*", "typebox": "*"},
        # A lifecycle script that must not run unless allowPackageScripts is true.
        "scripts": {"postinstall": "node -e \"require('fs').writeFileSync('POSTINSTALL_RAN','')\""},
    }
    if manifest:
        data["pi"] = {
            "extensions": ["./src/tool.ts"],
            "skills": ["./resources/skills"],
            "prompts": ["./resources/prompts/*.md"],
        }
        skills, prompts, tool = root / "resources" / "skills", root / "resources" / "prompts", root / "src"
    else:
        skills, prompts, tool = root / "skills", root / "prompts", root / "extensions"
    (root / "package.json").write_text(json.dumps(data, indent=2))
    (skills / "release-notes").mkdir(parents=True, exist_ok=True)
    (skills / "release-notes" / "SKILL.md").write_text(
        SKILL.format(name="release-notes", description=f"Write release notes{tag}")
    )
    prompts.mkdir(parents=True, exist_ok=True)
    (prompts / "review.md").write_text(f"---\ndescription: Review a change\n---\nReview $1 carefully{tag}.\n")
    (prompts / "draft.md").write_text("Draft a plan for $@.\n")
    tool.mkdir(parents=True, exist_ok=True)
    (tool / "tool.ts").write_text(TS_TOOL)
    return root


def npm_pack(package_dir: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        ["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", str(out_dir)],
        cwd=package_dir,
        capture_output=True,
        text=True,
        check=True,
        env=npm_env(out_dir.parent / "npm-pack-cache"),
    )
    return out_dir / json.loads(result.stdout)[0]["filename"]


def npm_env(cache: Path, registry: str | None = None) -> dict[str, str]:
    env = {
        "npm_config_cache": str(cache),
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
        "npm_config_prefer_online": "true",
        "npm_config_loglevel": "error",
    }
    if registry:
        env["npm_config_registry"] = registry
    return env


class LocalRegistry:
    """An npm registry of packuments and tarballs on 127.0.0.1 (a free port)."""

    def __init__(self) -> None:
        self.packages: dict[str, dict[str, bytes]] = {}  # name -> version -> tarball
        self.requests: list[str] = []
        registry = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:
                registry.requests.append(self.path)
                body, kind = registry.serve(unquote(self.path.split("?", 1)[0]))
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Cache-Control", "no-store")
                payload = body if body is not None else b'{"error":"Not found"}'
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    def publish(self, tarball: Path, name: str, version: str) -> None:
        self.packages.setdefault(name, {})[version] = tarball.read_bytes()

    def _tarball_url(self, name: str, version: str) -> str:
        return f"{self.url}{name}/-/{name.rsplit('/', maxsplit=1)[-1]}-{version}.tgz"

    def serve(self, path: str) -> tuple[bytes | None, str]:
        name = path.strip("/")
        if "/-/" in name:
            package, _, file = name.partition("/-/")
            for version, data in self.packages.get(package, {}).items():
                if file == f"{package.split('/')[-1]}-{version}.tgz":
                    return data, "application/octet-stream"
            return None, "application/json"
        versions = self.packages.get(name)
        if not versions:
            return None, "application/json"
        latest = max(versions, key=lambda v: tuple(int(p) for p in v.split(".")))
        document = {
            "name": name,
            "dist-tags": {"latest": latest},
            "versions": {
                version: {
                    "name": name,
                    "version": version,
                    "peerDependencies": {"@earendil-works/pi-coding-agent": "*", "typebox": "*"},
                    "scripts": {"postinstall": "node -e \"require('fs').writeFileSync('POSTINSTALL_RAN','')\""},
                    "dist": {
                        "tarball": self._tarball_url(name, version),
                        "shasum": hashlib.sha1(data).hexdigest(),
                        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
                    },
                }
                for version, data in versions.items()
            },
        }
        return json.dumps(document).encode(), "application/json"

    @contextmanager
    def running(self) -> Iterator[LocalRegistry]:
        self._thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


@dataclass
class Published:
    """``pi-demo`` tarballs by version, and the registry to publish them to."""

    registry: LocalRegistry
    tarballs: dict[str, Path]

    def publish(self, version: str) -> None:
        self.registry.publish(self.tarballs[version], "pi-demo", version)


def git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip()


def bare_repo(work: Path, bare: Path) -> None:
    """Commit ``work`` (a fresh ``git init``) and push it to a new bare repository ``bare``."""
    git("init", "-q", "-b", "main", cwd=work)
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    bare.parent.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "--bare", "-b", "main", str(bare), cwd=bare.parent)
    git("remote", "add", "origin", f"file://{bare}", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)


EXTENSION_PY = """
def extension(pi):
    from {module}.helper import shout

    schema = {{"type": "object", "properties": {{"text": {{"type": "string"}}}}, "required": ["text"]}}

    @pi.tool(name="{tool}", label="Py shout", description="Upper-cases its text (pip package)", parameters=schema)
    async def run(tool_call_id, params, signal, on_update, ctx):
        return shout(params["text"])
"""


# An in-tree PEP 517 backend (no setuptools/wheel needed, nothing downloaded): it zips the
# package directory with the metadata pip needs, which is all a pure-Python wheel is.
BACKEND = """
import base64, hashlib, os, zipfile

NAME, VERSION, MODULE = {dist!r}, {version!r}, {module!r}
ENTRY_POINTS = {entry_points!r}


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tag = NAME.replace("-", "_") + "-" + VERSION
    dist_info = tag + ".dist-info"
    files = {{}}
    for folder, _dirs, names in os.walk(MODULE):
        for name in names:
            if "__pycache__" not in folder:
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    files[path.replace(os.sep, "/")] = handle.read()
    files[dist_info + "/METADATA"] = f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n".encode()
    files[dist_info + "/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    files[dist_info + "/entry_points.txt"] = ENTRY_POINTS.encode()
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{{path}},sha256={{digest}},{{len(data)}}")
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = ("\\n".join(record) + "\\n").encode()
    filename = tag + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return filename
"""


def build_wheel(tmp: Path, dist: str = "pi-shout", version: str = "1.0.0", tool: str = "py_shout") -> Path:
    """A wheel of a tiny Python extension package, built by ``pip wheel``: the
    ``pi_harness.extensions`` entry point names its extension module, ``pi_harness.packages``
    its package directory, which holds a skill. Returns the directory holding the wheel."""
    module = dist.replace("-", "_")
    project = tmp / f"{dist}-{version}-src"
    package = project / module
    (package / "skills" / "py-skill").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("def shout(text):\n    return text.upper() + '!'\n")
    (package / "ext.py").write_text(textwrap.dedent(EXTENSION_PY.format(module=module, tool=tool)))
    (package / "skills" / "py-skill" / "SKILL.md").write_text(
        SKILL.format(name="py-skill", description="A skill shipped in a wheel")
    )
    entry_points = f"[pi_harness.extensions]\nshout = {module}.ext\n\n[pi_harness.packages]\nresources = {module}\n"
    (project / "tiny_backend.py").write_text(
        BACKEND.format(dist=dist, version=version, module=module, entry_points=entry_points)
    )
    (project / "pyproject.toml").write_text(
        textwrap.dedent(f"""
        [build-system]
        requires = []
        build-backend = "tiny_backend"
        backend-path = ["."]

        [project]
        name = "{dist}"
        version = "{version}"
        """)
    )
    wheels = tmp / "wheels"
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q"]
    subprocess.run([*command, "-w", str(wheels), str(project)], check=True, capture_output=True)
    return wheels


def pip_env(wheels: Path) -> Mapping[str, str]:
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
