"""The built-in ``codemode`` tool (``builtin:codemode``): JavaScript that calls the other tools,
run in a QuickJS worker process (the optional ``quickjs`` package, extra ``codemode``)."""

from pi_harness.extensions_builtin.codemode.extension import (
    EXTENSION_NAME,
    STORE_ENTRY,
    TOOL_NAME,
    CodemodeOptions,
    codemode_extension,
    create_codemode_extension,
)

__all__ = [
    "EXTENSION_NAME",
    "STORE_ENTRY",
    "TOOL_NAME",
    "CodemodeOptions",
    "codemode_extension",
    "create_codemode_extension",
]
