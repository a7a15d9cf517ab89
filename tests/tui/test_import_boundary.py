"""Only interactive mode pays for the terminal UI: the lower layers never import it."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import pi_harness.ai, pi_harness.agent, pi_harness.coding
import pi_harness.coding.session_store, pi_harness.coding.config, pi_harness.coding.resources
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("prompt_toolkit", "rich", "pygments")
                or name.startswith("pi_harness.tui"))
print(",".join(loaded))
"""


def test_lower_layers_do_not_import_the_tui() -> None:
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_prompt_toolkit_loads_only_with_the_terminal_glue() -> None:
    code = "import sys, pi_harness.tui; print('prompt_toolkit' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
