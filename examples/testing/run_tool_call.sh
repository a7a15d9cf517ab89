#!/bin/sh
# Run `pi -p` offline against the fake LLM server playing script_tool_call.json: the "model"
# calls the bash tool to create hello.txt in the current directory, then gives its answer.
# Needs pi-harness installed for the `python` and `pi` found on PATH (e.g. an activated venv).
set -eu

script="$(cd "$(dirname "$0")" && pwd)/script_tool_call.json"
work=$(mktemp -d)   # scratch space: the server's output and a throw-away agent directory
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. Start the fake server on a port the system picks. Its first line of output is
#    "fake LLM server listening on http://127.0.0.1:<port>"; wait for it and keep the address.
: >"$work/server.log"
python -m pi_harness.testing.fake_llm --script "$script" >"$work/server.log" &
server=$!
until grep -q "listening on" "$work/server.log"; do
    kill -0 "$server" 2>/dev/null || { echo "the fake LLM server did not start" >&2; exit 1; }
    sleep 0.1
done
url=$(sed -n 's/^fake LLM server listening on //p' "$work/server.log")

# 2. An isolated agent directory whose models.json has one provider, "fake", at that address.
#    PI_OFFLINE=1: no network activity at startup. NO_PROXY: never send loopback calls to a proxy.
export PI_CODING_AGENT_DIR="$work/agent"
export PI_OFFLINE=1
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
mkdir -p "$PI_CODING_AGENT_DIR"
cat >"$PI_CODING_AGENT_DIR/models.json" <<EOF
{
  "providers": {
    "fake": {
      "baseUrl": "$url/v1",
      "api": "openai-completions",
      "apiKey": "not-needed",
      "models": [{"id": "scripted", "name": "Scripted fake model"}]
    }
  }
}
EOF

# 3. Print mode. pi makes two requests: the first gets the tool call, pi runs the command,
#    and the second (carrying the command's result) gets the final answer, printed on stdout.
pi --model fake/scripted -p "Create hello.txt"
