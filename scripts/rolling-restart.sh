#!/usr/bin/env bash
# Rolling update drill, the way Kubernetes rolls a Deployment (deploy/kubernetes): three demo
# nodes (local1..3.conf) on PostgreSQL behind HAProxy, which plays the Service: it routes each
# request to a node whose /ready answers 200 (checked every 2 s, like the readiness probe).
# MRTR and task load from the load generator goes through it while each node in turn is
#   1. taken out of the endpoints (HAProxy "drain": no new requests; running ones go on),
#   2. left serving for PRESTOP seconds (the preStop sleep), then sent SIGTERM,
#   3. given GRACE seconds to drain and exit (terminationGracePeriodSeconds; SIGKILL after),
#   4. replaced by a new process, which gets traffic once its /ready answers 200,
# and the next node follows only then. Prints, per node, the time from SIGTERM to exit and from
# start to ready; then each load generator's summary (flows completed, errors by kind) and the
# totals: flows, errors, HTTP 5xx, journal write conflicts (two live copies of one entity).
# Needs: PG_URL/PG_USER/PG_PASSWORD (scripts/postgres-start.sh prints them), haproxy and socat
# (apt-get install haproxy socat), the jars (mvn -B -q package -DskipTests -pl examples,benchmarks -am).
# Settings: D load duration (120s), C concurrency per flow (4), PRESTOP (5), GRACE (40),
# LB_PORT where the "Service" listens (8090), NODE_OPTS JVM options of the nodes (e.g. a longer
# -Dpekko.cluster.failure-detector.acceptable-heartbeat-pause on a machine too loaded for 2 s).
# D must outlast the roll: about 20 s + 3 x (PRESTOP + drain + start to ready).
set -euo pipefail
cd "$(dirname "$0")/.."
D=${D:-120s}
C=${C:-4}
PRESTOP=${PRESTOP:-5}
GRACE=${GRACE:-40}
LB_PORT=${LB_PORT:-8090}
NODE_OPTS=${NODE_OPTS:-}
: "${PG_URL:?export the PG_* variables printed by scripts/postgres-start.sh}"
command -v haproxy >/dev/null && command -v socat >/dev/null || { echo "needs haproxy and socat (apt-get install haproxy socat)" >&2; exit 1; }
export PARLEY_STATE_KEY_ID=${PARLEY_STATE_KEY_ID:-drill}
export PARLEY_STATE_KEY=${PARLEY_STATE_KEY:-$(head -c 32 /dev/urandom | base64)}
work=$(mktemp -d)
cp examples/target/parley.jar benchmarks/target/parley-load.jar "$work/"
pids=()
lb_pid=
loads=()
cleanup() {
  for pid in "${pids[@]}" "${loads[@]}"; do kill "$pid" 2>/dev/null || true; done
  [[ -n $lb_pid ]] && kill "$lb_pid" 2>/dev/null || true
}
trap cleanup EXIT
trap "exit 1" INT TERM
now_ms() { date +%s%3N; }
ready() { [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((8557 + $1))/ready") == 200 ]]; }
lb() { echo "$1" | socat - "UNIX-CONNECT:$work/haproxy.sock"; }

start_node() { # start_node N [rejoin]: starts node N, waits (bounded) until its /ready answers 200
  local n=$1 started config="local$1.conf"
  # A restarted node 1 joins the running cluster through the others' seeds (local1-rejoin.conf):
  # with local1.conf, as the first seed node, it may form a second cluster by itself.
  if [[ ${2:-} == rejoin && $n == 1 ]]; then config=local1-rejoin.conf; fi
  started=$(now_ms)
  # shellcheck disable=SC2086
  java $NODE_OPTS -Dparley.quotas.per-principal.waiting-calls=100000 -Dparley.quotas.per-principal.open-tasks=100000 -Dparley.quotas.per-principal.sessions=100000 -jar "$work/parley.jar" demo --config "$config" --data "$work/data" >> "$work/node$n.log" 2>&1 &
  pids[$n]=$!
  for _ in $(seq 1 600); do
    if ready "$n"; then
      echo "node $n ready $(( $(now_ms) - started )) ms after its start"
      return 0
    fi
    sleep 0.2
  done
  echo "node $n did not get ready in 120 s; see $work/node$n.log" >&2
  return 1
}

stop_node() { # stop_node N: what Kubernetes does to a pod it deletes
  local n=$1 signalled
  lb "set server parley/node$n state drain" > /dev/null
  sleep "$PRESTOP"
  signalled=$(now_ms)
  kill -TERM "${pids[$n]}"
  for _ in $(seq 1 $((GRACE * 10))); do
    kill -0 "${pids[$n]}" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "${pids[$n]}" 2>/dev/null; then
    echo "node $n still running after $GRACE s: SIGKILL"
    kill -KILL "${pids[$n]}"
  fi
  wait "${pids[$n]}" 2>/dev/null || true
  echo "node $n exited $(( $(now_ms) - signalled )) ms after SIGTERM"
}

for port in 8081 8082 8083 8558 8559 8560 25521 25522 25523 "$LB_PORT"; do
  if (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "port $port is in use" >&2; exit 1; fi
done
java -jar "$work/parley.jar" migrate --config local1.conf
for n in 1 2 3; do start_node "$n"; done

cat > "$work/haproxy.cfg" <<EOF
global
  stats socket $work/haproxy.sock mode 600 level admin
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
frontend service
  bind 127.0.0.1:$LB_PORT
  default_backend parley
backend parley
  balance roundrobin
  # HTTP/1.1 with a Host header: pekko-http answers a request without one 400.
  option httpchk
  http-check send meth GET uri /ready ver HTTP/1.1 hdr Host 127.0.0.1
  http-check expect status 200
  default-server inter 2s fall 2 rise 1
  server node1 127.0.0.1:8081 check port 8558
  server node2 127.0.0.1:8082 check port 8559
  server node3 127.0.0.1:8083 check port 8560
EOF
haproxy -f "$work/haproxy.cfg" -db > "$work/haproxy.log" 2>&1 &
lb_pid=$!
sleep 3
echo "three nodes ready behind http://127.0.0.1:$LB_PORT/mcp; load for $D"

for n in 1 2 3; do
  java -jar "$work/parley-load.jar" --url "http://127.0.0.1:$LB_PORT/mcp" --flow mrtr --tool create_invoice \
    --args '{"client":"drill","amount":1}' --answers '{"currency":"CHF"}' -c "$C" -d "$D" --warmup 5s \
    --no-progress --json "$work/mrtr$n.json" > "$work/mrtr$n.txt" 2>&1 &
  loads+=($!)
  java -jar "$work/parley-load.jar" --url "http://127.0.0.1:$LB_PORT/mcp" --flow task --tool publish_report \
    --args '{"title":"drill"}' -c "$C" -d "$D" --warmup 5s --no-progress --json "$work/task$n.json" \
    > "$work/task$n.txt" 2>&1 &
  loads+=($!)
done

sleep 20
for n in 1 2 3; do
  echo "$(date +%T) rolling node $n"
  stop_node "$n"
  start_node "$n" rejoin
  # Like a Service's endpoints, the node is back only once it is ready: out of drain earlier,
  # HAProxy would send requests to the stopped port until its checks noticed (up to 4 s: 503s).
  lb "set server parley/node$n state ready" > /dev/null
  # The Service routes to it after its next passing check.
  sleep 3
done

for pid in "${loads[@]}"; do wait "$pid" || true; done
for f in "$work"/mrtr?.txt "$work"/task?.txt; do
  echo "== $(basename "$f" .txt)"
  sed -n '/^concurrency/,$p' "$f"
done
flows=$(cat "$work"/mrtr?.txt "$work"/task?.txt | awk '$1 == "flows" {s += $2} END {print s + 0}')
errors=$(cat "$work"/mrtr?.txt "$work"/task?.txt | awk '$1 == "requests" {s += $NF} END {print s + 0}')
http5xx=$(cat "$work"/mrtr?.txt "$work"/task?.txt | awk '$1 == "error" && / http 5[0-9][0-9] / {s += $NF} END {print s + 0}')
# Two live copies of one entity (two clusters side by side) show as refused journal writes.
conflicts=$(cat "$work"/node?.log | grep -c 'already exists' || true)
echo "== total: $flows flows completed, $errors request errors, $http5xx of them HTTP 5xx, $conflicts journal write conflicts"
echo "logs and JSON results: $work"
