"""Code that classes compile while modules are imported, compiled once: ``@dataclass`` methods and
docstrings (kept beside each module's bytecode, for the next process) and typing's forward references.

``@dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__`` (and more) for every
class and compiles it with ``exec`` while the module is imported. The bytecode cache
(``__pycache__/*.pyc``) does not cover that text, so every process compiled it anew: with a
few hundred dataclasses on the way to the first request that was the largest single cost of
``pi -p`` (about a third of its CPU time before the request left).

``install()`` gives the ``dataclasses`` module its own ``exec`` (a module global shadows the
builtin of that name): a string is looked up by its exact text in the cache of the module that
defines the class and compiled only when it is not there, then run exactly as ``exec`` would run
the text (same file name ``<string>``, no inherited compiler flags). The caches are files next
to the ``.pyc`` of pi-harness's own modules (``<module>.<tag>.pyc`` → ``<module>.<tag>.dataclasses``;
other packages' classes are compiled as usual, and their directories left as installed): a marshalled
``{source text: code}`` dict, with the interpreter's bytecode magic in front. At exit, the cache
of each module that had new texts is written again (atomically, by rename), unless bytecode
writing is off (``PYTHONDONTWRITEBYTECODE``/``-B``) or the directory is not writable; a file
that cannot be read or is of another interpreter counts as empty. Because the key is the whole
text, a changed class simply misses and the stale entry is dropped at the next write.

A dataclass without a docstring gets one made of its signature (``inspect.signature``, a few
dozen microseconds a class). ``dataclasses`` is given an ``inspect`` whose ``signature`` answers
from the same cache files, under a key of everything that text is made of: the source text of
the generated ``__init__`` and the ``repr`` of its defaults and annotations. Only a class whose
signature ``inspect`` takes from that ``__init__`` is answered so (no metaclass ``__call__``, no
``__new__``, no ``__signature__``), and not one whose defaults show an address (a function's
``repr``), which differs in every process; every other call goes to ``inspect`` unchanged.

``typing`` compiles every string annotation of a ``TypedDict`` (all of them, under ``from
__future__ import annotations``) into a ``ForwardRef``: some 600 compiles of 200 distinct texts
before the first request. ``install()`` gives ``typing`` a ``compile`` that keeps the code of each
``(text, "<string>", "eval")`` for the process (code objects are immutable, so sharing one is
what compiling it again would give); any other call goes to the builtin unchanged.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from types import CodeType, FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

SUFFIX = ".dataclasses"

# Per cache file: the entries read and not run yet (a run entry is dropped, so the source texts
# do not stay in memory), what this process ran (as hashes of the texts) and what it compiled.
_caches: dict[str, dict[str, CodeType | str]] = {}
_ran: dict[str, set[int]] = {}
_compiled_here: dict[str, dict[str, CodeType | str]] = {}
# The source text of each generated ``__init__``, by its code (for the class docstring's key).
_init_sources: dict[CodeType, str] = {}
_installed = False
# The directories whose modules get cache files: pi-harness's own (other packages are left as
# they were installed).
_roots: tuple[str, ...] = ()


def _magic() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER


def cache_path(module_globals: Mapping[str, object] | None) -> str | None:
    """The cache file of the module whose namespace is ``module_globals`` (``None``: no ``.pyc`` path)."""
    if module_globals is None:
        return None
    cached = module_globals.get("__cached__")
    if not isinstance(cached, str) or not cached.endswith(".pyc") or not cached.startswith(_roots):
        return None
    return cached[: -len(".pyc")] + SUFFIX


def _load(path: str) -> dict[str, CodeType | str]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    magic = _magic()
    if not data.startswith(magic):
        return {}
    try:
        loaded = marshal.loads(data[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _entry(path: str, key: str) -> CodeType | str | None:
    """The cached value of ``key`` in the file at ``path``, taken out (it is needed once)."""
    cache = _caches.get(path)
    if cache is None:
        cache = _caches[path] = _load(path)
    _ran.setdefault(path, set()).add(hash(key))
    return cache.pop(key, None)


def _record(path: str, key: str, value: CodeType | str) -> None:
    _compiled_here.setdefault(path, {})[key] = value


def _compiled(source: str, module_globals: Mapping[str, object] | None) -> CodeType:
    path = cache_path(module_globals)
    if path is None:
        return compile(source, "<string>", "exec", dont_inherit=True)
    code = _entry(path, source)
    if not isinstance(code, CodeType):
        code = compile(source, "<string>", "exec", dont_inherit=True)
        _record(path, source, code)
    if " def __init__(" in source:
        # The text defines ``__create_fn__``, which defines and returns ``__init__``.
        for outer in code.co_consts:
            for inner in outer.co_consts if isinstance(outer, CodeType) else ():
                if isinstance(inner, CodeType) and inner.co_name == "__init__":
                    _init_sources[inner] = source
    return code


def _docstring_key(cls: object) -> tuple[str, str] | None:
    """Where and under which key the docstring ``@dataclass`` gives ``cls`` is cached, when it is
    determined by what the key holds: a generated ``__init__`` (its source text, defaults and
    annotations) that ``inspect.signature`` takes the class's signature from (no metaclass
    ``__call__``, no ``__new__``, no ``__signature__``)."""
    if not isinstance(cls, type) or type(cls).__call__ is not type.__call__:
        return None
    if getattr(cls, "__new__", None) is not object.__new__:
        return None
    init = cls.__dict__.get("__init__")
    if not isinstance(init, FunctionType) or hasattr(cls, "__signature__") or hasattr(init, "__signature__"):
        return None
    source = _init_sources.get(init.__code__)
    path = cache_path(init.__globals__) if source is not None else None
    if source is None or path is None or hasattr(init, "__wrapped__"):
        return None
    parts = (source, repr(init.__defaults__), repr(init.__kwdefaults__), repr(list(init.__annotations__.items())))
    if any(" at 0x" in part for part in parts[1:]):
        return None  # a default shown with its address (a function): the text differs in every process
    return path, "\0".join(("signature", *parts))


class _InspectForDataclasses:
    """``inspect`` as the ``dataclasses`` module sees it: the text of ``signature(cls)``, which it
    only uses for the docstring of a class without one, comes from the cache when it can."""

    def __getattr__(self, name: str) -> object:
        import inspect

        return getattr(inspect, name)

    def signature(self, obj: object, *args: object, **kwargs: object) -> object:
        import inspect

        key = None if args or kwargs else _docstring_key(obj)
        if key is not None:
            text = _entry(*key)
            if isinstance(text, str):
                return text  # dataclasses takes str() of what this returns
        signature = inspect.signature(obj, *args, **kwargs)  # type: ignore[arg-type]  # (passed through as given)
        if key is not None:
            _record(*key, str(signature))
        return signature


def cached_exec(
    source: str | CodeType,
    globals: dict[str, object] | None = None,  # the names of builtins.exec's parameters
    locals: Mapping[str, object] | None = None,
    /,
) -> None:
    """``exec`` for the ``dataclasses`` module: text is compiled once per module and cache."""
    if isinstance(source, str):
        source = _compiled(source, globals)
    builtins.exec(source, globals, locals)


_expressions: dict[str, CodeType] = {}


def cached_compile(source: object, filename: object, mode: object, *args: object, **kwargs: object) -> CodeType:
    """``compile`` for the ``typing`` module: an expression's code once per process."""
    if args or kwargs or filename != "<string>" or mode != "eval" or type(source) is not str:
        return builtins.compile(source, filename, mode, *args, **kwargs)  # type: ignore[call-overload,no-any-return]  # (passed through as given)
    code = _expressions.get(source)
    if code is None:
        code = _expressions[source] = builtins.compile(source, "<string>", "eval", dont_inherit=True)
    return code


def save() -> None:
    """Write the caches that gained entries, with just the texts this process ran (stale ones drop out)."""
    if sys.dont_write_bytecode:
        return
    magic = _magic()
    for path in sorted(_compiled_here):
        ran = _ran.get(path, set())
        entries = {text: code for text, code in _load(path).items() if hash(text) in ran}
        entries.update(_compiled_here[path])
        temporary = f"{path}.{os.getpid()}.tmp"
        try:
            with open(temporary, "wb") as handle:
                handle.write(magic + marshal.dumps(entries))
            os.replace(temporary, path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    _compiled_here.clear()


def install(roots: tuple[str, ...] | None = None) -> None:
    """Route ``dataclasses``' ``exec`` and ``typing``'s ``compile`` through the caches (once per
    process); ``roots``: the directories whose modules get cache files (default: pi-harness's)."""
    global _installed, _roots
    if _installed:
        return
    _installed = True
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _roots = tuple(os.path.join(root, "") for root in (roots if roots is not None else (package,)))
    import atexit
    import dataclasses
    import typing

    dataclasses.__dict__["exec"] = cached_exec  # a module global shadows the builtin
    dataclasses.__dict__["inspect"] = _InspectForDataclasses()
    typing.__dict__["compile"] = cached_compile
    atexit.register(save)
