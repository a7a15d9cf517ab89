"""The resource loader: what a session loads from disk, in Pi's order.

``reload()`` resolves, in order: extension entry points (before skills, so ``resources_discover``
can add skill paths), skills, prompt templates, themes, context files, SYSTEM.md and
APPEND_SYSTEM.md. Project resources are read only when the project is trusted; the trust decision
is made by the caller (it involves extensions). Embedders can replace the loader by any object
implementing ``ResourceLoader``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from pi_harness.coding.config.paths import expand_home, project_dir
from pi_harness.coding.config.settings import PathListKey, SettingsManager
from pi_harness.coding.config.trust import project_agents_skill_dirs
from pi_harness.coding.packages.patterns import is_enabled_by_overrides, is_override
from pi_harness.coding.packages.resolved import ResolvedPackages, has_configured_packages
from pi_harness.coding.resources.context_files import ContextFile, load_context_files
from pi_harness.coding.resources.diagnostics import ResourceDiagnostic
from pi_harness.coding.resources.skills import Skill, SkillSource, discover_skill_files, load_skills
from pi_harness.coding.resources.source_info import SourceIndex, SourceInfo, SourceMetadata, extension_source
from pi_harness.coding.resources.system_files import find_append_system_prompt, find_system_prompt, text_or_file
from pi_harness.coding.resources.templates import PromptTemplate, TemplateSource, load_templates


@runtime_checkable
class ResourceLoader(Protocol):
    diagnostics: list[ResourceDiagnostic]

    def reload(self) -> None: ...
    def get_extension_paths(self) -> list[str]: ...
    def get_skills(self) -> list[Skill]: ...
    def get_prompts(self) -> list[PromptTemplate]: ...
    def get_theme_paths(self) -> list[str]: ...
    def get_agents_files(self) -> list[ContextFile]: ...
    def get_system_prompt(self) -> str | None: ...
    def get_append_system_prompt(self) -> list[str]: ...
    def extend_resources(
        self,
        skill_paths: Sequence[str] = (),
        prompt_paths: Sequence[str] = (),
        theme_paths: Sequence[str] = (),
        *,
        origins: Mapping[str, str] | None = None,
    ) -> None: ...
    def source_info(self, path: str) -> SourceInfo: ...


@dataclass
class ResourceOptions:
    """CLI/SDK switches that shape discovery (``-e``, ``--skill``, ``-ns`` ...)."""

    extension_paths: list[str] = field(default_factory=list)
    # ``-e npm:...``/``git:``/``pip:``: packages for this run only (docs/packages.md).
    package_sources: list[str] = field(default_factory=list)
    skill_paths: list[str] = field(default_factory=list)
    prompt_template_paths: list[str] = field(default_factory=list)
    theme_paths: list[str] = field(default_factory=list)
    no_extensions: bool = False
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_themes: bool = False
    no_context_files: bool = False
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)


def apply_path_filters(candidates: list[Path], patterns: list[tuple[str, Path]]) -> tuple[list[Path], list[Path]]:
    """Settings arrays: plain entries add paths, ``!glob`` excludes discovered ones, ``+path`` re-adds
    an exact path, ``-path`` removes an exact path (docs/settings.md)."""
    added: list[Path] = []
    excluded_globs: list[str] = []
    forced: list[Path] = []
    removed: set[str] = set()
    for value, base in patterns:
        if value.startswith("!"):
            excluded_globs.append(value[1:])
        elif value.startswith("+"):
            forced.append(_resolve(value[1:], base))
        elif value.startswith("-"):
            removed.add(str(_resolve(value[1:], base)))
        else:
            added.append(_resolve(value, base))

    def excluded(path: Path) -> bool:
        return any(fnmatch.fnmatch(str(path), g) or fnmatch.fnmatch(path.name, g) for g in excluded_globs)

    kept = [p for p in candidates if not excluded(p)]
    for path in forced:
        if path not in kept:
            kept.append(path)
    kept = [p for p in kept if str(p) not in removed]
    added = [p for p in added if str(p) not in removed]
    return kept, added


def _resolve(value: str, base: Path) -> Path:
    path = Path(expand_home(value))
    return (path if path.is_absolute() else base / path).resolve()


def _markdown_files(directory: Path) -> list[Path]:
    """A prompts directory's templates (not recursive)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix == ".md" and p.is_file())


def discover_extension_entries(directory: Path, diagnostics: list[ResourceDiagnostic]) -> list[Path]:
    """One level: ``*.py``/``*.ts``/``*.js`` files and sub-directories with ``__init__.py``,
    ``index.ts``/``index.js`` or a manifest."""
    if not directory.is_dir():
        return []
    found: list[Path] = []
    for entry in sorted(directory.iterdir(), key=lambda p: p.name):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_file():
            # .ts/.js/.mjs run in the Node sidecar (extensions-node.md); without Node the loader
            # skips them with one line naming the file.
            if entry.suffix in (".py", ".ts", ".mts", ".js", ".mjs"):
                found.append(entry.resolve())
        elif entry.is_dir() and (
            (entry / "__init__.py").is_file()
            or (entry / "pyproject.toml").is_file()
            or (entry / "package.json").is_file()
            or (entry / "index.ts").is_file()
            or (entry / "index.js").is_file()
        ):
            found.append(entry.resolve())
    return found


class DefaultResourceLoader:
    def __init__(
        self,
        cwd: str | Path,
        agent_directory: Path,
        settings: SettingsManager,
        *,
        project_trusted: bool = True,
        options: ResourceOptions | None = None,
    ) -> None:
        self.cwd = Path(cwd).resolve()
        self.agent_dir = agent_directory
        self.settings = settings
        self.project_trusted = project_trusted
        self.options = options or ResourceOptions()
        self.diagnostics: list[ResourceDiagnostic] = []
        self._extensions: list[str] = []
        self._skills: list[Skill] = []
        self._prompts: list[PromptTemplate] = []
        self._themes: list[str] = []
        self._agents: list[ContextFile] = []
        self._system: str | None = None
        self._append: list[str] = []
        self._extra_skill_paths: list[str] = []
        self._extra_prompt_paths: list[str] = []
        self._extra_theme_paths: list[str] = []
        self._sources = SourceIndex(agent_directory, project_dir(self.cwd))
        self._packages = ResolvedPackages()
        self._temporary = ResolvedPackages()

    # -- reload ------------------------------------------------------------------------------

    def reload(self) -> None:
        self.diagnostics = []
        self._sources.clear()
        self._packages = self._resolve_packages()
        self._extensions = self._resolve_extensions()
        self._skills = self._resolve_skills()
        self._prompts = self._resolve_prompts()
        self._themes = self._resolve_themes()
        self._agents = (
            [] if self.options.no_context_files else load_context_files(self.cwd, self.agent_dir, self.diagnostics)
        )
        cli_system = text_or_file(self.options.system_prompt, self.cwd)
        self._system = (
            cli_system
            if cli_system is not None
            else find_system_prompt(self.cwd, self.agent_dir, project_trusted=self.project_trusted)
        )
        cli_append = [t for t in (text_or_file(v, self.cwd) for v in self.options.append_system_prompt) if t]
        if cli_append:
            self._append = cli_append
        else:
            found = find_append_system_prompt(self.cwd, self.agent_dir, project_trusted=self.project_trusted)
            self._append = [found] if found else []

    def _resolve_packages(self) -> ResolvedPackages:
        """Resources of the configured packages (installing missing ones unless offline);
        project packages only when the project is trusted (docs/packages.md)."""
        if not self.options.package_sources and not has_configured_packages(
            self.settings, with_project=self.project_trusted
        ):
            # Nothing to resolve: the package manager (npm, git, pip) stays unloaded.
            self._temporary = ResolvedPackages()
            return ResolvedPackages()
        from pi_harness.coding.packages.manager import PackageManager
        from pi_harness.coding.packages.resolve import resolve_packages, resolve_temporary

        manager = PackageManager(self.cwd, self.agent_dir, self.settings)
        self._temporary = resolve_temporary(manager, self.options.package_sources)
        resolved = resolve_packages(manager, with_project=self.project_trusted)
        for problem in [*self._temporary.problems, *resolved.problems]:
            self.diagnostics.append(ResourceDiagnostic("warning", problem))
        for resource in [*self._temporary.resources, *resolved.resources]:
            metadata = SourceMetadata(resource.source, resource.scope, "package", base_dir=resource.base_dir)
            self._sources.add(resource.path, metadata)
        return resolved

    def _package_paths(self, kind: PathListKey) -> list[Path]:
        """Enabled package resources: ``-e`` packages first, then configured ones."""
        return [Path(p) for p in [*self._temporary.paths(kind), *self._packages.paths(kind)]]

    def _settings_patterns(self, key: PathListKey) -> list[tuple[str, Path]]:
        """The setting's entries with their base directories; plain entries are noted as ``local``."""
        entries = self.settings.path_entries(key)
        for value, base, scope in entries:
            if not value.startswith(("!", "+", "-")):
                metadata = SourceMetadata("local", "project" if scope == "project" else "user", base_dir=str(base))
                self._sources.add(_resolve(value, base), metadata)
        return [(value, base) for value, base, _scope in entries]

    def _discovered(self, root: Path, scope: Literal["user", "project"], base: Path) -> Path:
        """A discovery root, noted as ``auto`` for what is found under it."""
        self._sources.add(root, SourceMetadata("auto", scope, base_dir=str(base)))
        return root

    def _user_root(self, kind: str) -> Path:
        return self._discovered(self.agent_dir / kind, "user", self.agent_dir)

    def _project_root(self, kind: str) -> Path:
        return self._discovered(project_dir(self.cwd) / kind, "project", project_dir(self.cwd))

    def _enabled(
        self, files: list[Path], key: PathListKey, scope: Literal["user", "project"], base: Path | None = None
    ) -> list[Path]:
        """The discovered ``files`` that the scope's override entries (``!glob``, ``+path``,
        ``-path`` of the ``key`` setting, relative to ``base``: the agent dir or ``.pi``) leave on,
        as ``pi config`` writes them; the other scope's entries do not apply (as in Pi)."""
        wanted = "project" if scope == "project" else "global"
        overrides = [v for v, _b, s in self.settings.path_entries(key) if s == wanted and is_override(v)]
        if not overrides:
            return files
        root = base if base is not None else (project_dir(self.cwd) if scope == "project" else self.agent_dir)
        return [f for f in files if is_enabled_by_overrides(f, overrides, root)]

    def _skill_files(
        self, root: Path, scope: Literal["user", "project"], base: Path | None = None
    ) -> list[tuple[Path, SkillSource]]:
        """The skills found under a discovery root, each as a file, minus those turned off."""
        files = [path for path, _name in discover_skill_files(root)]
        return [(f, scope) for f in self._enabled(files, "skills", scope, base)]

    def _resolve_extensions(self) -> list[str]:
        cli = [str(_resolve(p, self.cwd)) for p in self.options.extension_paths]
        for path in cli:
            self._sources.add(path, SourceMetadata("cli", "temporary"))
        cli += [p for p in self._temporary.paths("extensions") if p not in cli]
        if self.options.no_extensions:
            return cli
        discovered: list[Path] = []
        if self.project_trusted:
            found = discover_extension_entries(self._project_root("extensions"), self.diagnostics)
            discovered += self._enabled(found, "extensions", "project")
        found = discover_extension_entries(self._user_root("extensions"), self.diagnostics)
        discovered += self._enabled(found, "extensions", "user")
        # The "!glob" entries were applied per scope above; the rest add and remove paths.
        patterns = [(value, base) for value, base in self._settings_patterns("extensions") if not value.startswith("!")]
        kept, added = apply_path_filters(discovered, patterns)
        ordered: list[str] = []
        packaged = self._packages.paths("extensions")
        for path in [*cli, *(str(p) for p in added), *(str(p) for p in kept), *packaged]:
            if path.startswith("builtin:") or path not in ordered:
                ordered.append(path)
        return ordered

    def _resolve_skills(self) -> list[Skill]:
        locations: list[tuple[Path, SkillSource]] = [(_resolve(p, self.cwd), "path") for p in self.options.skill_paths]
        locations += [(_resolve(p, self.cwd), "extension") for p in self._extra_skill_paths]
        if not self.options.no_skills:
            _kept, added = apply_path_filters([], self._settings_patterns("skills"))
            locations += [(p, "path") for p in added]
            if self.project_trusted:
                locations += self._skill_files(self._project_root("skills"), "project")
                for agents in project_agents_skill_dirs(self.cwd):
                    root = self._discovered(agents, "project", agents.parent)
                    locations += self._skill_files(root, "project", agents.parent)
            locations += self._skill_files(self._user_root("skills"), "user")
            home_agents = Path.home() / ".agents"
            root = self._discovered(home_agents / "skills", "user", home_agents)
            locations += self._skill_files(root, "user", home_agents)
            locations += [(p, "package") for p in self._package_paths("skills")]
        return load_skills(locations, self.diagnostics)

    def _resolve_prompts(self) -> list[PromptTemplate]:
        locations: list[tuple[Path, TemplateSource]] = [
            (_resolve(p, self.cwd), "path") for p in self.options.prompt_template_paths
        ]
        locations += [(_resolve(p, self.cwd), "path") for p in self._extra_prompt_paths]
        if not self.options.no_prompt_templates:
            _kept, added = apply_path_filters([], self._settings_patterns("prompts"))
            locations += [(p, "path") for p in added]
            if self.project_trusted:
                root = self._project_root("prompts")
                locations += [(f, "project") for f in self._enabled(_markdown_files(root), "prompts", "project")]
            root = self._user_root("prompts")
            locations += [(f, "user") for f in self._enabled(_markdown_files(root), "prompts", "user")]
            locations += [(p, "package") for p in self._package_paths("prompts")]
        return load_templates(locations, self.diagnostics)

    def _resolve_themes(self) -> list[str]:
        paths = [str(_resolve(p, self.cwd)) for p in [*self.options.theme_paths, *self._extra_theme_paths]]
        if not self.options.no_themes:
            _kept, added = apply_path_filters([], self._settings_patterns("themes"))
            paths += [str(p) for p in added]
            dirs: list[tuple[Path, Literal["user", "project"]]] = [(self.agent_dir / "themes", "user")]
            if self.project_trusted:
                dirs.insert(0, (project_dir(self.cwd) / "themes", "project"))
            for directory, scope in dirs:
                if directory.is_dir():
                    found = [p.resolve() for p in sorted(directory.glob("*.json"))]
                    paths += [str(p) for p in self._enabled(found, "themes", scope)]
            paths += [str(p) for p in self._package_paths("themes")]
        return paths

    # -- accessors ---------------------------------------------------------------------------

    def get_extension_paths(self) -> list[str]:
        return list(self._extensions)

    def get_skills(self) -> list[Skill]:
        return list(self._skills)

    def get_prompts(self) -> list[PromptTemplate]:
        return list(self._prompts)

    def get_theme_paths(self) -> list[str]:
        return list(self._themes)

    def get_agents_files(self) -> list[ContextFile]:
        return list(self._agents)

    def get_system_prompt(self) -> str | None:
        return self._system

    def get_append_system_prompt(self) -> list[str]:
        return list(self._append)

    def source_info(self, path: str) -> SourceInfo:
        """Pi's ``sourceInfo`` of a resource this loader resolved (or of any path, by location)."""
        return self._sources.lookup(path)

    def extend_resources(
        self,
        skill_paths: Sequence[str] = (),
        prompt_paths: Sequence[str] = (),
        theme_paths: Sequence[str] = (),
        *,
        origins: Mapping[str, str] | None = None,
    ) -> None:
        """Paths contributed by extensions (``resources_discover``); applied on the next load.

        ``origins`` maps a contributed path to the extension that contributed it.
        """
        for path, extension_path in (origins or {}).items():
            self._sources.add(_resolve(path, self.cwd), extension_source(extension_path))
        self._extra_skill_paths += [p for p in skill_paths if p not in self._extra_skill_paths]
        self._extra_prompt_paths += [p for p in prompt_paths if p not in self._extra_prompt_paths]
        self._extra_theme_paths += [p for p in theme_paths if p not in self._extra_theme_paths]
        self._skills = self._resolve_skills()
        self._prompts = self._resolve_prompts()
        self._themes = self._resolve_themes()
