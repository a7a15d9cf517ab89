"""The non-interactive modes: print, json and rpc (interactive lives in ``pi_harness.tui``)."""
