"""The Python extension system (extensions.md): discovery, loading, the ``pi`` API, ``ctx`` and
event dispatch with Pi's event names and combination semantics."""
