#!/usr/bin/env bash
# A flood of durable first rounds from one anonymous client against the demo server as shipped
# (parley.quotas defaults): for SECONDS (60) or at most MAX requests (20000), CONCURRENCY (8)
# curl loops send create_invoice first rounds (each asks for the currency and is never answered).
# Prints how many were admitted (200, the call waits) and refused (by status), the journal's
# rows and the H2 file's size before and after, and the server's heap after a full GC.
# Not in CI. Needs examples/target/parley.jar (mvn -B -q package -DskipTests). Settings: PORT
# (18551), MANAGEMENT_PORT (18552), ARG_BYTES (0: extra bytes in each call's arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TOTAL=${SECONDS_TOTAL:-60}
MAX=${MAX:-20000}
CONCURRENCY=${CONCURRENCY:-8}
PORT=${PORT:-18551}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-18552}
ARG_BYTES=${ARG_BYTES:-0}
JAR=${JAR:-examples/target/parley.jar}
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
}
trap cleanup EXIT

java -Dparley.management.port="$MANAGEMENT_PORT" -jar "$JAR" demo --port "$PORT" --data "$work/data" \
  > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MANAGEMENT_PORT/ready")" = 200 ] && break
  sleep 0.5
done

heap() { jcmd "$server" GC.run > /dev/null; jcmd "$server" GC.heap_info | sed -nE 's/.*used ([0-9]+K).*/\1/p' | head -1; }
size() { stat -c %s "$work/data/journal.mv.db"; }
padding=$(head -c "$ARG_BYTES" /dev/zero | tr '\0' 'x')
body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_invoice\",\"arguments\":{\"client\":\"ACME$padding\",\"amount\":1200},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}}}}"
echo "$body" > "$work/body.json"

sleep 2
echo "before: journal file $(size) bytes, heap used $(heap)"
deadline=$(( $(date +%s) + SECONDS_TOTAL ))
export PORT deadline work
seq 1 "$MAX" | xargs -P "$CONCURRENCY" -I{} sh -c '
  [ "$(date +%s)" -lt "$deadline" ] || exit 0
  curl -s -o /dev/null -w "%{http_code}\n" "http://127.0.0.1:$PORT/mcp" -H "Content-Type: application/json" \
    -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" -H "Mcp-Name: create_invoice" \
    --data-binary @"$work/body.json"' > "$work/statuses"
echo "requests in ${SECONDS_TOTAL}s: $(wc -l < "$work/statuses"); by status:"
sort "$work/statuses" | uniq -c
sleep 2
echo "after: journal file $(size) bytes, heap used $(heap)"
