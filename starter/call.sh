#!/usr/bin/env bash
# A two-round call of open_ticket: the server asks how urgent the ticket is, the retry answers.
#   ./call.sh                both rounds, against http://127.0.0.1:${PORT:-8080}/mcp
#   ./call.sh ask            the first round only; prints its requestState
#   ./call.sh answer STATE   the second round, answering "urgent"
set -euo pipefail
URL="http://127.0.0.1:${PORT:-8080}/mcp"
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}'
ARGS='"name":"open_ticket","arguments":{"title":"Printer on fire"}'

call() { # call <params without _meta>
  curl -sS "$URL" -H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: open_ticket' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$1,$META}}"
}
ask() { # the reply to stderr, its requestState to stdout
  local reply; reply=$(call "$ARGS"); echo "$reply" >&2
  echo "$reply" | sed -nE 's/.*"requestState":"([^"]+)".*/\1/p'
}
answer() {
  call "$ARGS,\"requestState\":\"$1\",\"inputResponses\":{\"priority\":{\"action\":\"accept\",\"content\":{\"priority\":\"urgent\"}}}"
  echo
}

case "${1:-}" in
  ask) ask ;;
  answer) answer "$2" ;;
  "") state=$(ask); answer "$state" ;;
  *) echo "usage: $0 [ask | answer STATE]" >&2; exit 2 ;;
esac
