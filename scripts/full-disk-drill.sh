#!/usr/bin/env bash
# Full-disk drill for the embedded journal (issue 17), as root: the demo server's data directory
# is a small file system of its own (a loop-mounted ext4 image, or a tmpfs where no
# loop device is available), which a file then fills. It checks what JournalOutageOnFullDiskTest
# checks against the demo jar: a create_invoice retry is answered 503 with Retry-After (JSON-RPC
# -30503; on SQLite after the retries its write-ahead log still has room for), a one-round call is served, /ready is false, the server log says so in one line;
# after the file is deleted the node is ready again and the waiting call completes.
# Not in CI. Needs examples/target/parley.jar (mvn -B -q package -DskipTests). Settings: STORE (sqlite,
# the default journal; or h2), SIZE (32M), PORT (18096), MANAGEMENT_PORT (18596).
set -euo pipefail
cd "$(dirname "$0")/.."
STORE=${STORE:-sqlite}
SIZE=${SIZE:-32M}
PORT=${PORT:-18096}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-18596}
[ "$(id -u)" = 0 ] || { echo "run as root: the drill mounts a file system" >&2; exit 2; }
work=$(mktemp -d)
disk="$work/disk"
mkdir -p "$disk"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  umount -l "$disk" 2>/dev/null || true
}
trap cleanup EXIT

truncate -s "$SIZE" "$work/disk.img"
if mkfs.ext4 -q "$work/disk.img" 2>/dev/null && mount -o loop "$work/disk.img" "$disk" 2>/dev/null; then
  echo "data directory: a $SIZE ext4 file system on a loop device"
else
  mount -t tmpfs -o size="$SIZE" tmpfs "$disk"
  echo "data directory: a $SIZE tmpfs (no loop device here)"
fi

# The disk watermark (parley.quotas.disk.min-free, 256 MiB) would refuse every new call on so small a
# file system before the journal ever sees a full disk: off here, as in JournalOutageOnFullDiskTest.
java -Dparley.management.port="$MANAGEMENT_PORT" -Dparley.journal.database="$STORE" -Dparley.quotas.disk.min-free=0 -jar examples/target/parley.jar demo --port "$PORT" --data "$disk" \
  > "$work/server.log" 2>&1 &
server=$!
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MANAGEMENT_PORT/ready")" = 200 ]; }
wait_for() { # wait_for <what> <command...>: up to 60 s
  local what=$1; shift
  for _ in $(seq 1 120); do "$@" && return 0; sleep 0.5; done
  echo "FAIL: not within 60 s: $what (server log: $work/server.log)" >&2; exit 1
}
wait_for "the server is ready" ready

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}'
mcp() { # mcp <name> <params-without-_meta>: status line, headers and body
  curl -s -i "http://127.0.0.1:$PORT/mcp" -H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H "Mcp-Name: $1" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":$RANDOM,\"method\":\"tools/call\",\"params\":{$2,$META}}"; }
ARGS='"name":"create_invoice","arguments":{"client":"ACME","amount":1200}'
ANSWER='"inputResponses":{"currency":{"action":"accept","content":{"currency":"CHF"}}}'
# Calls left waiting before the disk fills. SQLite writes into its write-ahead log's pages that are
# already on disk first, so a few retries still complete (and are durable) on a full file system.
STATES=()
for _ in $(seq 1 20); do
  STATE=$(mcp create_invoice "$ARGS" | sed -nE 's/.*"requestState":"([^"]+)".*/\1/p')
  [ -n "$STATE" ] || { echo "FAIL: the first round did not ask" >&2; exit 1; }
  STATES+=("$STATE")
done

dd if=/dev/zero of="$disk/filler" bs=1M 2>/dev/null || true   # until the file system is full
echo "disk full: $(df -h "$disk" | tail -1)"
completed_while_full=0
RETRY=""
for STATE in "${STATES[@]}"; do
  RETRY="$ARGS,\"requestState\":\"$STATE\",$ANSWER"
  R=$(mcp create_invoice "$RETRY")
  echo "$R" | grep -q '^HTTP/1.1 503' && break
  echo "$R" | grep -q '"resultType":"complete"' || { echo "FAIL: a retry was neither 503 nor complete: $R" >&2; exit 1; }
  completed_while_full=$((completed_while_full + 1))
done
echo "retries completed on the full disk before the first refusal (written into space the journal held): $completed_while_full"
echo "$R" | grep -q '^HTTP/1.1 503' || { echo "FAIL: no retry was refused 503: $R" >&2; exit 1; }
echo "$R" | grep -qi '^retry-after:' || { echo "FAIL: no Retry-After: $R" >&2; exit 1; }
echo "$R" | grep -q '"code":-30503' || { echo "FAIL: not -30503: $R" >&2; exit 1; }
echo "retry while full: $(echo "$R" | head -1 | tr -d '\r'), $(echo "$R" | grep -i '^retry-after' | tr -d '\r')"
mcp check_availability '"name":"check_availability","arguments":{"date":"2026-12-20"}' | grep -q '^HTTP/1.1 200' \
  || { echo "FAIL: a one-round call was not served" >&2; exit 1; }
echo "one-round call while full: 200"
wait_for "/ready is false while the disk is full" bash -c "! curl -sf -o /dev/null http://127.0.0.1:$MANAGEMENT_PORT/ready"
echo "/ready while full: not ready"

rm "$disk/filler"
freed=$(date +%s%N)
wait_for "ready again once space is freed" ready
echo "ready again $(( ($(date +%s%N) - freed) / 1000000 )) ms after the file was deleted"
for _ in $(seq 1 30); do
  R=$(mcp create_invoice "$RETRY"); echo "$R" | grep -q '^HTTP/1.1 503' || break; sleep 1
done
echo "$R" | grep -q '"resultType":"complete"' || { echo "FAIL: the waiting call did not complete: $R" >&2; exit 1; }
echo "the waiting call completed: $(echo "$R" | sed -nE 's/.*"text":"([^"]+)".*/\1/p')"
echo "server log: $(grep -c 'journal unavailable' "$work/server.log") 'journal unavailable' line(s),"\
  "$(grep -c 'journal failure for' "$work/server.log") rate-limited failure report(s)"
echo "PASS"
