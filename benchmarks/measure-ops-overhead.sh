#!/usr/bin/env bash
# Throughput of the demo server with Parley's metrics and tracing on vs off (issue 13), measured
# with the load generator: one-round calls (check_availability) and two-round MRTR flows
# (create_invoice), in alternating runs of three settings, each on a fresh server:
#   off      parley.metrics.enabled=off, parley.tracing.enabled=off
#   metrics  the default: metrics on, tracing off
#   both     metrics on, tracing on (the SDK records every span; OTEL_TRACES_EXPORTER=none, so
#            the cost of making spans is measured without an exporter's network traffic)
# Prints one line per run and the ratios of the medians against "off".
# Build first: mvn -q -B -o package -DskipTests -pl examples,benchmarks -am
#
# Settings (environment): C concurrency (16), D measured duration (20s), W warm-up (5s),
# R repetitions of the three settings (2), PORT (18747).
set -euo pipefail
cd "$(dirname "$0")/.."

C=${C:-16}
D=${D:-20s}
W=${W:-5s}
R=${R:-2}
PORT=${PORT:-18747}
for jar in benchmarks/target/parley-load.jar examples/target/parley.jar; do
  [[ -f $jar ]] || { echo "missing $jar: build first" >&2; exit 2; }
done
WORK=$(mktemp -d)
cp benchmarks/target/parley-load.jar examples/target/parley.jar "$WORK/"
SERVER_PID=""
stop_server() {
  if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT

flags() {
  case $1 in
    off) echo "-Dparley.metrics.enabled=off -Dparley.tracing.enabled=off" ;;
    metrics) echo "-Dparley.metrics.enabled=on -Dparley.tracing.enabled=off" ;;
    both) echo "-Dparley.metrics.enabled=on -Dparley.tracing.enabled=on" ;;
  esac
}

throughput() { # the measured level's flows per second from the generator's JSON
  grep -o '"flowsPerSecond" *: *[0-9.]*' "$1" | head -1 | sed -E 's/.*: *//'
}
errors() {
  grep -o '"errors" *: *[0-9]*' "$1" | head -1 | sed -E 's/.*: *//'
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); C=$C D=$D W=$W R=$R"
for rep in $(seq 1 "$R"); do
  for setting in off metrics both; do
    rm -rf "$WORK/data"
    # shellcheck disable=SC2046
    OTEL_TRACES_EXPORTER=none java -Xmx512m $(flags $setting) -Dparley.management.port=0 -Dparley.quotas.per-principal.waiting-calls=100000 -Dparley.quotas.per-principal.sessions=100000 \
      -jar "$WORK/parley.jar" demo --port "$PORT" --data "$WORK/data" > "$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 600); do
      grep -q "ready in" "$WORK/server.log" && break
      kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
      sleep 0.5
    done
    grep -q "ready in" "$WORK/server.log" || { echo "the server did not start in 5 minutes" >&2; exit 1; }
    for flow in call mrtr; do
      args=(--flow call --tool check_availability --args '{"date":"2026-12-20"}')
      [[ $flow == mrtr ]] && args=(--flow mrtr --tool create_invoice --args '{"client":"x","amount":1}' --answers '{"currency":"CHF"}')
      java -jar "$WORK/parley-load.jar" --url "http://127.0.0.1:$PORT/mcp" -c "$C" -d "$D" --warmup "$W" \
        --no-progress --json "$WORK/$flow-$setting-$rep.json" "${args[@]}" > "$WORK/$flow-$setting-$rep.txt" 2>&1 || true
      echo "run $rep $setting $flow: $(throughput "$WORK/$flow-$setting-$rep.json") flows/s, $(errors "$WORK/$flow-$setting-$rep.json") errors (load average $(cut -d' ' -f1 /proc/loadavg))"
    done
    stop_server
  done
done

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo
for flow in call mrtr; do
  base=$(for f in "$WORK"/$flow-off-*.json; do throughput "$f"; done | median)
  for setting in metrics both; do
    value=$(for f in "$WORK"/$flow-$setting-*.json; do throughput "$f"; done | median)
    echo "$flow: $setting / off = $(awk -v a="$value" -v b="$base" 'BEGIN {printf "%.3f", a / b}') (median $value vs $base /s)"
  done
done
