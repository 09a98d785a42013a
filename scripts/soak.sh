#!/usr/bin/env bash
# Soak run: the demo server on its own data directory (the default SQLite journal) under mixed load
# for M minutes (30) at total concurrency C (64), split over one-round calls (check_availability),
# MRTR flows (create_invoice) and tasks (publish_report). The load generator runs one minute at a time, so
# every minute prints its own line: flows and errors per flow kind, and the server's heap after
# its last GC of that minute, the largest GC pause and the number of GCs (from -Xlog:gc).
# Not in CI. Needs the jars: mvn -B -q package -DskipTests (examples/target/parley.jar and
# benchmarks/target/parley-load.jar). Settings: M minutes (30), C concurrency (64), HEAP (-Xmx1g).
set -euo pipefail
cd "$(dirname "$0")/.."
M=${M:-30}
C=${C:-64}
HEAP=${HEAP:--Xmx1g}
PORT=${PORT:-18095}
work=$(mktemp -d)
cp examples/target/parley.jar benchmarks/target/parley-load.jar "$work/"
server=""
cleanup() { if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; }
trap cleanup EXIT

java "$HEAP" -Dparley.quotas.per-principal.waiting-calls=100000 -Dparley.quotas.per-principal.sessions=100000 -Xlog:gc:file="$work/gc.log":uptime -jar "$work/parley.jar" demo --port "$PORT" --data "$work/data" \
  > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  grep -q "ready in" "$work/server.log" && break
  kill -0 "$server" 2>/dev/null || { echo "the server exited; see $work/server.log" >&2; exit 1; }
  sleep 1
done
grep -q "ready in" "$work/server.log" || { echo "the server did not start; see $work/server.log" >&2; exit 1; }

call=$((C / 3)); mrtr=$((C / 3)); task=$((C - 2 * (C / 3)))
url="http://127.0.0.1:$PORT/mcp"
echo "soak: $M min, concurrency $C (call $call, mrtr $mrtr, task $task), server pid $server, work dir $work"
printf '%-6s %-24s %-24s %-24s %-12s %-10s %-6s %s\n' minute "call flows/errors" "mrtr flows/errors" \
  "task flows/errors" "heap-after" "max-pause" "GCs" "server WARN/ERROR"

# summary <file>: "flows/errors" from a load generator's report
summary() {
  local flows errors
  flows=$(awk '/^  flows/ {print $2; exit}' "$1")
  errors=$(awk '/^  requests/ {print $NF; exit}' "$1")
  echo "${flows:-?}/${errors:-?}"
}

gc_from=0
warn_from=0
total_errors=0
for minute in $(seq 1 "$M"); do
  java -jar "$work/parley-load.jar" --url "$url" --flow call -c "$call" -d 60s --warmup 0s --no-progress \
    > "$work/call$minute.txt" 2>&1 &
  a=$!
  java -jar "$work/parley-load.jar" --url "$url" --flow mrtr --tool create_invoice \
    --args '{"client":"soak","amount":1}' --answers '{"currency":"CHF"}' -c "$mrtr" -d 60s --warmup 0s --no-progress \
    > "$work/mrtr$minute.txt" 2>&1 &
  b=$!
  java -jar "$work/parley-load.jar" --url "$url" --flow task --tool publish_report --args '{"title":"soak"}' \
    -c "$task" -d 60s --warmup 0s --no-progress > "$work/task$minute.txt" 2>&1 &
  t=$!
  wait "$a" "$b" "$t" || true
  kill -0 "$server" 2>/dev/null || { echo "minute $minute: the server died; see $work/server.log" >&2; exit 1; }
  # GC lines of this minute: "[12.345s] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 120M->41M(256M) 5.123ms"
  gc_lines=$(tail -n +"$((gc_from + 1))" "$work/gc.log" | grep -E 'Pause' || true)
  gc_from=$(wc -l < "$work/gc.log")
  heap_after=$(echo "$gc_lines" | sed -nE 's/.*->([0-9]+[KMG])\(.*/\1/p' | tail -n 1)
  max_pause=$(echo "$gc_lines" | sed -nE 's/.* ([0-9.]+)ms$/\1/p' | sort -n | tail -n 1)
  gcs=$(echo "$gc_lines" | grep -c Pause || true)
  warns=$(tail -n +"$((warn_from + 1))" "$work/server.log" | grep -cE ' (WARN|ERROR) ' || true)
  warn_from=$(wc -l < "$work/server.log")
  for f in call mrtr task; do
    e=$(awk '/^  requests/ {print $NF; exit}' "$work/$f$minute.txt")
    total_errors=$((total_errors + ${e:-0}))
  done
  printf '%-6s %-24s %-24s %-24s %-12s %-10s %-6s %s\n' "$minute" "$(summary "$work/call$minute.txt")" \
    "$(summary "$work/mrtr$minute.txt")" "$(summary "$work/task$minute.txt")" "${heap_after:--}" \
    "${max_pause:--}ms" "$gcs" "$warns"
done
echo "soak done: $total_errors request errors in $M min; reports, GC log and server log in $work"
grep -h '^  error' "$work"/call*.txt "$work"/mrtr*.txt "$work"/task*.txt 2>/dev/null | sort | uniq -c | head -20 || true
