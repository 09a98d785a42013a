#!/usr/bin/env bash
# Measures the performance targets of docs/performance.md on this machine, in one run:
#   1. the bare pekko-http baseline, one-round tools/call
#   2. the demo server (fresh data directory, the default SQLite journal), one-round tools/call (check_availability)
#   3. the demo server, two-round MRTR flows (create_invoice, answering currency)
#   4. JMH JournalWriteBenchmark (journal write rate against a plain batched insert)
# then prints the target table. Each server runs alone, on loopback, and is stopped by its PID.
# Build first: mvn -q -B -o install -DskipTests
#
# Settings (environment): C concurrency (64), D measured duration (30s), W warm-up (10s),
# OUT result directory (benchmarks/target/targets), JMH=0 to skip step 4.
set -euo pipefail
cd "$(dirname "$0")/.."

C=${C:-64}
D=${D:-30s}
W=${W:-10s}
OUT=${OUT:-benchmarks/target/targets}
JMH=${JMH:-1}
LOAD=benchmarks/target/parley-load.jar
DEMO=examples/target/parley.jar
BASE_PORT=${BASE_PORT:-18090}
DEMO_PORT=${DEMO_PORT:-18080}

for jar in "$LOAD" "$DEMO"; do
  [[ -f $jar ]] || { echo "missing $jar: run mvn -q -B -o install -DskipTests first" >&2; exit 2; }
done
mkdir -p "$OUT"
DATA=$(mktemp -d)
# Run copies: a build that rewrites the jars under a running JVM would break it.
mkdir -p "$DATA/jars"
cp "$LOAD" "$DATA/jars/parley-load.jar"
cp benchmarks/target/parley-benchmarks.jar "$DATA/jars/parley-benchmarks.jar"
cp "$DEMO" "$DATA/jars/parley.jar"
LOAD=$DATA/jars/parley-load.jar
DEMO=$DATA/jars/parley.jar
BENCH=$DATA/jars/parley-benchmarks.jar
SERVER_PID=""

stop_server() {
  if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$DATA"' EXIT

# start_server LOG READY-TEXT COMMAND...: starts a server in the background, waits (at most 60 s)
# until its log shows READY-TEXT.
start_server() {
  local log=$1 ready=$2
  shift 2
  "$@" > "$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 120); do
    grep -q "$ready" "$log" && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.5
  done
  echo "server did not become ready: $log" >&2
  exit 1
}

load() { # load NAME ARGS...
  local name=$1
  shift
  echo "== $name (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  java -jar "$LOAD" -c "$C" -d "$D" --warmup "$W" --no-progress --json "$OUT/$name.json" "$@" \
    | sed -n '/^concurrency/,$p' || true
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(java -version 2>&1 | head -1)"

start_server "$OUT/baseline.log" "ready in" java -jar "$LOAD" baseline --port "$BASE_PORT"
load baseline --url "http://127.0.0.1:$BASE_PORT/mcp" --flow call
stop_server

start_server "$OUT/demo.log" "ready in" java -Dparley.quotas.per-principal.waiting-calls=100000 -Dparley.quotas.per-principal.sessions=100000 -jar "$DEMO" demo --port "$DEMO_PORT" --data "$DATA/demo"
load call --url "http://127.0.0.1:$DEMO_PORT/mcp" --flow call --tool check_availability --args '{"date":"2026-12-20"}'
load mrtr --url "http://127.0.0.1:$DEMO_PORT/mcp" --flow mrtr --tool create_invoice --args '{"client":"x","amount":1}' \
  --answers '{"currency":"CHF"}'
stop_server

JMH_RESULT=()
if [[ $JMH == 1 ]]; then
  echo "== JMH JournalWriteBenchmark (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  java -jar "$BENCH" jmh JournalWriteBenchmark -Dparley.bench.result="$OUT/jmh-journal.json" \
    -- -f 1 -wi 2 -w 5 -i 5 -r 5 | sed -n '/^Parley benchmarks/,$p'
  JMH_RESULT=("$OUT/jmh-journal.json")
fi

echo
java -jar "$LOAD" targets "$OUT/baseline.json" "$OUT/call.json" "$OUT/mrtr.json" "${JMH_RESULT[@]}" || true
