from __future__ import annotations

import shutil

import pytest

import pi_harness.coding.tools as tools_api
from pi_harness.coding.tools import (
    ToolOptions,
    available_tool_names,
    create_all_tools,
    create_coding_tools,
    create_read_only_tools,
    create_tool,
    powershell_available,
    resolve_tool_selection,
)
from pi_harness.coding.tools.powershell import PowerShellUnavailableError, create_powershell_tool

VALID = ["read", "bash", "edit", "write", "grep", "find", "ls"]


def names(selection: tuple[str, ...]) -> list[str]:
    return list(selection)


def test_presets() -> None:
    assert [tool.name for tool in create_coding_tools("/tmp")] == ["read", "bash", "edit", "write"]
    assert [tool.name for tool in create_read_only_tools("/tmp")] == ["read", "grep", "find", "ls"]
    assert [tool.name for tool in create_all_tools("/tmp", ToolOptions())][:7] == VALID


def test_schemas_have_pis_property_names_types_and_required_lists() -> None:
    expected = {
        "read": ({"path": "string", "offset": "number", "limit": "number"}, ["path"]),
        "bash": ({"command": "string", "timeout": "number"}, ["command"]),
        "edit": ({"path": "string", "edits": "array"}, ["path", "edits"]),
        "write": ({"path": "string", "content": "string"}, ["path", "content"]),
        "grep": (
            {
                "pattern": "string",
                "path": "string",
                "glob": "string",
                "ignoreCase": "boolean",
                "literal": "boolean",
                "context": "number",
                "limit": "number",
            },
            ["pattern"],
        ),
        "find": ({"pattern": "string", "path": "string", "limit": "number"}, ["pattern"]),
        "ls": ({"path": "string", "limit": "number"}, []),
    }
    for tool in create_all_tools("/tmp"):
        properties, required = expected[tool.name]
        schema = tool.parameters
        assert schema["type"] == "object"
        assert {name: prop["type"] for name, prop in schema["properties"].items()} == properties
        assert all(prop.get("description") for prop in schema["properties"].values())
        assert schema["required"] == required
        assert tool.label == tool.name and tool.description and tool.prompt_snippet


@pytest.mark.skipif(shutil.which("pwsh") is not None, reason="PowerShell is installed here")
def test_powershell_is_unavailable_without_pwsh() -> None:
    assert not powershell_available()
    assert "powershell" not in available_tool_names()
    assert "powershell" not in [tool.name for tool in create_all_tools("/tmp")]
    with pytest.raises(PowerShellUnavailableError):
        create_powershell_tool("/tmp")
    with pytest.raises(ValueError, match="Unknown tool"):
        create_tool("powershell", "/tmp")
    selection = resolve_tool_selection("+powershell")
    assert names(selection.names) == ["read", "bash", "edit", "write"]
    assert selection.warnings == (f'Warning: Unknown tool "powershell". Valid tools: {", ".join(VALID)}',)


def test_selection_defaults_and_prefixes() -> None:
    assert names(resolve_tool_selection().names) == ["read", "bash", "edit", "write"]
    assert names(resolve_tool_selection("+grep,-bash", available=VALID).names) == ["read", "edit", "write", "grep"]
    assert names(resolve_tool_selection(["grep", "read"], available=VALID).names) == ["grep", "read"]
    assert names(resolve_tool_selection("ls,+find,-ls", available=VALID).names) == ["find"]
    assert names(resolve_tool_selection("read,+read", available=VALID).names) == ["read"]
    assert names(resolve_tool_selection(default_tools="read,ls", available=VALID).names) == ["read", "ls"]
    assert names(resolve_tool_selection("+grep", default_tools=["read"], available=VALID).names) == ["read", "grep"]


def test_no_tools_and_exclude() -> None:
    assert resolve_tool_selection(no_tools=True, available=VALID).names == ()
    assert names(resolve_tool_selection("+read", no_tools=True, available=VALID).names) == ["read"]
    assert names(resolve_tool_selection("grep", no_tools=True, available=VALID).names) == ["grep"]
    selection = resolve_tool_selection("+grep", exclude_tools="bash,grep", available=VALID)
    assert names(selection.names) == ["read", "edit", "write"]


def test_unknown_names_warn_once_and_are_ignored() -> None:
    selection = resolve_tool_selection("read,nope,+nope,-ghost", available=VALID)
    assert names(selection.names) == ["read"]
    assert selection.warnings == (
        f'Warning: Unknown tool "nope". Valid tools: {", ".join(VALID)}',
        f'Warning: Unknown tool "ghost". Valid tools: {", ".join(VALID)}',
    )


def test_public_api_is_exported() -> None:
    for name in tools_api.__all__:
        assert hasattr(tools_api, name), name


def test_declarations_carry_pis_constrained_sampling_hint() -> None:
    """Pi declares read, bash, edit and write with a JSON-schema hint; the search tools have none."""
    declarations = {tool.name: tool.to_tool() for tool in create_all_tools("/tmp", ToolOptions())}
    hinted = {name for name, declaration in declarations.items() if "constrainedSampling" in declaration}
    assert hinted == {"read", "bash", "edit", "write"}
    read = declarations["read"]
    assert list(read) == ["name", "description", "parameters", "constrainedSampling"]
    assert read["constrainedSampling"] == {"type": "json_schema", "strict": "prefer"}  # type: ignore[typeddict-item]
    # Each declaration has its own copy: one stored in a session is never shared with another.
    assert read["constrainedSampling"] is not declarations["bash"]["constrainedSampling"]  # type: ignore[typeddict-item]
