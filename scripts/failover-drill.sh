#!/usr/bin/env bash
# Failover drill: three demo nodes (local1..3.conf) on PostgreSQL; CALLS create_invoice calls wait
# for input, spread over the nodes by sharding; node KILL is SIGKILLed and every call's client
# retries on the survivors, RETRY after each failed attempt (parley-load.jar failover). Prints,
# per run, the drill's totals and the phases read from the survivors' logs (times from the kill):
# marked unreachable (failure detector), downed (split-brain resolver), removed (its shards handed
# over), and the first and last of the killed node's calls answered elsewhere. Then the ledger
# check: one invoice line per call, whatever node ran it.
# Needs: PG_URL/PG_USER/PG_PASSWORD (scripts/postgres-start.sh prints them), the jars
# (mvn -B -q package -DskipTests -pl examples,benchmarks -am).
# Settings: RUNS (3), CALLS (200), KILL (1), RETRY (2s), NODE_OPTS JVM options of the nodes.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
CALLS=${CALLS:-200}
KILL=${KILL:-1}
RETRY=${RETRY:-2s}
NODE_OPTS=${NODE_OPTS:-}
: "${PG_URL:?export the PG_* variables printed by scripts/postgres-start.sh}"
export PARLEY_STATE_KEY_ID=${PARLEY_STATE_KEY_ID:-drill}
export PARLEY_STATE_KEY=${PARLEY_STATE_KEY:-$(head -c 32 /dev/urandom | base64)}
work=$(mktemp -d)
cp examples/target/parley.jar benchmarks/target/parley-load.jar "$work/"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
trap "exit 1" INT TERM
ms_of() { date -d "$1" +%s%3N; } # HH:MM:SS.mmm today, as epoch milliseconds
ready() { [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((8557 + $1))/ready") == 200 ]]; }

for port in 8081 8082 8083 8558 8559 8560 25521 25522 25523; do
  if (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "port $port is in use" >&2; exit 1; fi
done
java -jar "$work/parley.jar" migrate --config local1.conf

for run in $(seq 1 "$RUNS"); do
  data="$work/data$run"
  for n in 1 2 3; do
    # shellcheck disable=SC2086
    java $NODE_OPTS -Dparley.quotas.per-principal.waiting-calls=100000 -jar "$work/parley.jar" demo \
      --config "local$n.conf" --data "$data" > "$work/run$run-node$n.log" 2>&1 &
    pids[$n]=$!
  done
  for n in 1 2 3; do
    for _ in $(seq 1 600); do ready "$n" && break; sleep 0.2; done
    ready "$n" || { echo "node $n did not get ready; see $work/run$run-node$n.log" >&2; exit 1; }
  done
  sleep 5 # every node sees the others Up, sharding's coordinator is running
  echo "== run $run"
  java -jar "$work/parley-load.jar" failover \
    --nodes http://127.0.0.1:8081/mcp,http://127.0.0.1:8082/mcp,http://127.0.0.1:8083/mcp \
    --kill-node "$KILL" --kill-pid "${pids[$KILL]}" --calls "$CALLS" --retry-every "$RETRY" \
    | tee "$work/run$run-drill.txt" || true
  killed=$(ms_of "$(awk '/^killed node/ {print $NF}' "$work/run$run-drill.txt")")
  first_survivor=$((KILL % 3 + 1))
  log="$work/run$run-node$first_survivor.log"
  phase() { # phase LABEL PATTERN: the first line of the survivor's log matching PATTERN, from the kill
    local at
    at=$(grep -m1 -E "$2" "$log" | awk '{print $1}')
    if [[ -n $at ]]; then echo "  $1: $(( $(ms_of "$at") - killed )) ms"; else echo "  $1: not in $log"; fi
  }
  phase "marked unreachable" "Marking node as UNREACHABLE|is unreachable"
  phase "downed (split-brain resolver)" "SBR took decision|Marking unreachable node .* as \[Down\]|is Down"
  phase "removed, shards handed over" "removed \(was Down\)"
  invoices=$(grep -c '"kind":"invoice".*failover-' "$data/demo-ledger.jsonl" || true)
  echo "  ledger: $invoices invoice lines for $CALLS calls"
  for n in 1 2 3; do kill -TERM "${pids[$n]}" 2>/dev/null || true; done
  for n in 1 2 3; do wait "${pids[$n]}" 2>/dev/null || true; done
done
echo "logs: $work"
