"""RPC mode: JSONL commands on stdin, responses and events on stdout (``docs/rpc.md``)."""
