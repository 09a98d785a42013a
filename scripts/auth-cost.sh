#!/usr/bin/env bash
# The cost of authorization on the one-round hot path (issue 12): two demo servers, one with
# parley.auth on (JWT access tokens from the authorization server in authorization-server/,
# JWKS cached) and one with it off, both up the whole time; the load generator's one-round
# `tools/call` flow against each in turn, ROUNDS times, after one unmeasured warm-up round.
# Prints per run requests/s and the server's CPU per request (utime + stime of its pid, from
# /proc), then the ratios on/off. Compare ratios of alternating runs only: on a shared
# machine the absolute figures move with everyone else's load.
#
#   mvn -B -q package -DskipTests -pl examples,benchmarks -am && npm ci --prefix authorization-server
#   scripts/auth-cost.sh                     # ROUNDS=5 DURATION=15s CONCURRENCY=8 by default
#   JFR=1 scripts/auth-cost.sh               # and a flight recording of each server (profile settings)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-15s}
CONCURRENCY=${CONCURRENCY:-8}
TOOL=${TOOL:-check_availability}
WARMUP=${WARMUP:-45s}   # the unmeasured first run per server: the JIT compiles the crypto code in it

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
AS_PORT=$(free_port); ON_PORT=$(free_port); OFF_PORT=$(free_port)
RESOURCE="http://127.0.0.1:$ON_PORT/mcp"
RUN=$(mktemp -d -t parley-auth-cost.XXXXXX)
jfr() { [ "${JFR:-0}" = 1 ] && echo "-XX:StartFlightRecording=filename=$RUN/$1.jfr,settings=profile" || true; }
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

PORT=$AS_PORT RESOURCE=$RESOURCE node authorization-server/authorization-server.mjs > "$RUN/as.log" 2>&1 &
PIDS+=($!)
cat > "$RUN/auth.conf" <<EOF
parley.auth {
  enabled = true
  resource = "$RESOURCE"
  authorization-servers = ["http://127.0.0.1:$AS_PORT"]
  issuers = [{ issuer = "http://127.0.0.1:$AS_PORT", jwks-uri = "http://127.0.0.1:$AS_PORT/jwks" }]
  scopes-supported = ["mcp:tools", "venue:book", "invoice:write"]
  required-scopes = ["mcp:tools"]
}
EOF
java -Dparley.management.enabled=false -Dparley.quotas.per-principal.waiting-calls=100000 -Dparley.quotas.per-principal.sessions=100000 $(jfr on) -jar examples/target/parley.jar demo --port "$ON_PORT" --data "$RUN/data-on" --config "$RUN/auth.conf" > "$RUN/on.log" 2>&1 &
ON_PID=$!; PIDS+=($ON_PID)
java -Dparley.management.enabled=false -Dparley.quotas.per-principal.waiting-calls=100000 -Dparley.quotas.per-principal.sessions=100000 $(jfr off) -jar examples/target/parley.jar demo --port "$OFF_PORT" --data "$RUN/data-off" > "$RUN/off.log" 2>&1 &
OFF_PID=$!; PIDS+=($OFF_PID)

wait_for() { # wait_for URL: any HTTP answer
  for _ in $(seq 1 600); do
    if curl -s -o /dev/null "$1"; then return 0; fi
    sleep 0.5
  done
  echo "no answer from $1" >&2; exit 1
}
wait_for "http://127.0.0.1:$AS_PORT/.well-known/openid-configuration"
wait_for "http://127.0.0.1:$ON_PORT/mcp"
wait_for "http://127.0.0.1:$OFF_PORT/mcp"

token() {
  curl -s -u alice:alice-secret -d grant_type=client_credentials -d scope=mcp:tools -d "resource=$RESOURCE" \
    "http://127.0.0.1:$AS_PORT/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/'
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)

# load MODE ROUND MEASURED [DURATION]: one run; prints "MODE requests/s cpu-ms/request errors" when measured
load() {
  local mode=$1 round=$2 measured=$3 duration=${4:-$DURATION} port pid headers=()
  if [ "$mode" = on ]; then port=$ON_PORT; pid=$ON_PID; headers=(--header "Authorization: Bearer $(token)");
  else port=$OFF_PORT; pid=$OFF_PID; fi
  local before; before=$(cpu_ticks "$pid")
  java -jar benchmarks/target/parley-load.jar --url "http://127.0.0.1:$port/mcp" --flow call --tool "$TOOL" \
    --concurrency "$CONCURRENCY" --duration "$duration" --warmup 0s --no-progress "${headers[@]}" \
    --json "$RUN/$mode-$round.json" > "$RUN/$mode-$round.out" 2>&1
  local after; after=$(cpu_ticks "$pid")
  if [ "$measured" = yes ]; then
    python3 - "$RUN/$mode-$round.json" "$mode" $((after - before)) "$TICKS" <<'PY'
import json, sys
level = json.load(open(sys.argv[1]))["levels"][0]
ticks, per_second = int(sys.argv[3]), int(sys.argv[4])
cpu_ms = ticks * 1000.0 / per_second / max(1, level["requests"])
print(f'{sys.argv[2]} {level["requestsPerSecond"]:.1f} {cpu_ms:.3f} {level["errors"]}')
PY
  fi
}

echo "warm-up round (not measured)" >&2
load off 0 no "$WARMUP"; load on 0 no "$WARMUP"
echo "mode requests/s server-cpu-ms/request errors"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then load off "$round" yes; load on "$round" yes;
  else load on "$round" yes; load off "$round" yes; fi
done | tee "$RUN/results.txt"
python3 - "$RUN/results.txt" <<'PY'
import sys, statistics
rows = [line.split() for line in open(sys.argv[1]) if line[:3] in ("on ", "off")]
off = [r for r in rows if r[0] == "off"]; on = [r for r in rows if r[0] == "on"]
rate = [float(a[1]) / float(b[1]) for a, b in zip(on, off)]
cpu = [float(a[2]) / float(b[2]) for a, b in zip(on, off)]
print(f"on/off requests/s: median {statistics.median(rate):.3f} (runs: {' '.join(f'{r:.2f}' for r in rate)})")
print(f"on/off server CPU per request: median {statistics.median(cpu):.3f} (runs: {' '.join(f'{c:.2f}' for c in cpu)})")
PY
echo "logs and JSON in $RUN" >&2
