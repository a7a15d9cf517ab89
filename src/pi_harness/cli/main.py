"""The ``pi`` command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-v"):
        from pi_harness.__about__ import __version__

        print(__version__)
        return 0
    print("pi-harness: only --version is available in this build", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
