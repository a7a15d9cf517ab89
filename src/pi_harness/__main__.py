"""``python -m pi_harness``: the ``pi`` command."""

from pi_harness.cli.main import main

raise SystemExit(main())
