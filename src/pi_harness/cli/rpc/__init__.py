"""RPC mode: JSONL commands on stdin, responses and events on stdout (modes-and-cli.md section 8)."""
