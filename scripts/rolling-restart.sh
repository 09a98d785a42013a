#!/usr/bin/env bash
# Rolling restart drill: three demo nodes (local1..3.conf) on PostgreSQL, MRTR and task load on
# every node from the load generator, and each node restarted in turn (SIGTERM, start again)
# while the load runs. Prints each load generator's summary (flows, errors by kind).
# Needs: PG_URL/PG_USER/PG_PASSWORD (scripts/postgres-start.sh prints them) and the jars
# (mvn -B -q install -DskipTests). Settings: D load duration (120s), C concurrency per flow (8).
set -euo pipefail
cd "$(dirname "$0")/.."
D=${D:-120s}
C=${C:-8}
: "${PG_URL:?export the PG_* variables printed by scripts/postgres-start.sh}"
export PARLEY_STATE_KEY_ID=${PARLEY_STATE_KEY_ID:-drill}
export PARLEY_STATE_KEY=${PARLEY_STATE_KEY:-$(head -c 32 /dev/urandom | base64)}
work=$(mktemp -d)
cp examples/target/parley.jar benchmarks/target/parley-load.jar "$work/"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

start_node() { # start_node N: starts node N in the background, waits until it is ready
  local n=$1
  java -jar "$work/parley.jar" demo --config "local$n.conf" --data "$work/data" > "$work/node$n.log" 2>&1 &
  pids[$n]=$!
  for _ in $(seq 1 120); do
    grep -q "ready in" "$work/node$n.log" && return 0
    sleep 1
  done
  echo "node $n did not start; see $work/node$n.log" >&2
  return 1
}

java -jar "$work/parley.jar" migrate --config local1.conf
for n in 1 2 3; do start_node "$n"; done
echo "three nodes ready; load for $D"

loads=()
for n in 1 2 3; do
  java -jar "$work/parley-load.jar" --url "http://127.0.0.1:808$n/mcp" --flow mrtr --tool create_invoice \
    --args '{"client":"drill","amount":1}' --answers '{"currency":"CHF"}' -c "$C" -d "$D" --warmup 5s \
    --no-progress --json "$work/mrtr$n.json" > "$work/mrtr$n.txt" 2>&1 &
  loads+=($!)
  java -jar "$work/parley-load.jar" --url "http://127.0.0.1:808$n/mcp" --flow task --tool publish_report \
    --args '{"title":"drill"}' -c "$C" -d "$D" --warmup 5s --no-progress --json "$work/task$n.json" \
    > "$work/task$n.txt" 2>&1 &
  loads+=($!)
done

sleep 20
for n in 1 2 3; do
  echo "$(date +%T) restarting node $n"
  kill -TERM "${pids[$n]}"
  wait "${pids[$n]}" 2>/dev/null || true
  start_node "$n"
  echo "$(date +%T) node $n is back"
  sleep 10
done

for pid in "${loads[@]}"; do wait "$pid" || true; done
for f in "$work"/mrtr?.txt "$work"/task?.txt; do
  echo "== $(basename "$f" .txt)"
  sed -n '/^concurrency/,$p' "$f"
done
echo "logs and JSON results: $work"
