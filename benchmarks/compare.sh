#!/usr/bin/env bash
# Parley against the official MCP Java SDK server, side by side on this machine:
#   - Parley's fixture server (examples/target/parley.jar fixtures, the default SQLite journal in a
#     fresh directory)
#   - the Java SDK 2.2.0 server in its 2026-07-28 mode (benchmarks/peer-java-sdk), the same two tools
# Both run at once on the same JVM, each is primed, then measured runs of Parley's load generator
# alternate between them (the order swaps every round, so drift in the machine's load hits both).
# Prints the medians and the Parley/Java-SDK ratios for
#   - one-round tools/call (test_simple_text): requests/s, p99, server CPU ms per request
#   - MRTR flows (test_input_required_result_elicitation: call -> input_required -> retry -> complete):
#     flows/s, p99 of the flow, server CPU ms per flow
#   - the same two tools on 2025-11-25 sessions, against the SDK's 2025-11-25 server with its sessions
#     in memory (a second peer process): one-round calls, and elicitation flows (call -> the question
#     as elicitation/create on the call's SSE stream -> the answer POSTed -> the result on the stream)
#   - MRTR at concurrency 256 (one run each), and an open loop (--rate) at the Java SDK's median MRTR
#     flows/s: the achieved flows/s and the flow p99 of each
#   - tasks (Parley only, in every round; FixtureTasks' slow_compute with seconds 0, created and polled
#     to completion with --poll-now): tasks/s and server CPU ms per task, against Parley's own MRTR flows
#   - start-up to the ready line and idle RSS, Parley with its class-data-sharing archive (as the
#     README starts it) and without
# Parley journals both rounds of a flow; the Java SDK keeps nothing (its state rides in requestState).
#
# Build first, in the project root: mvn -B -q package -DskipTests   (this script builds the peer)
# Settings (environment), defaults take about 10 minutes:
#   ROUNDS=3 DURATION=12s WARMUP=3s (per measured run)  PRIME=20s (per server and tool, before the rounds)
#   C=64 (concurrency)  JAVA=java  SERVER_JAVA_OPTS (both servers)  OUT=benchmarks/target/compare
# Exit status 0 when every measured run finished without an error.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-12s}
WARMUP=${WARMUP:-3s}
PRIME=${PRIME:-20s}
C=${C:-64}
JAVA=${JAVA:-java}
SERVER_JAVA_OPTS=${SERVER_JAVA_OPTS:-}
OUT=${OUT:-benchmarks/target/compare}
PEER=benchmarks/peer-java-sdk
ONE_TOOL=test_simple_text
MRTR_TOOL=test_input_required_result_elicitation
TASK_TOOL=slow_compute
TASK_ARGS='{"seconds":0,"label":"compare"}'

command -v jq >/dev/null || { echo "compare.sh needs jq" >&2; exit 2; }
for jar in examples/target/parley.jar benchmarks/target/parley-load.jar; do
  [[ -f $jar ]] || { echo "missing $jar: run mvn -B -q package -DskipTests first" >&2; exit 2; }
done

# The peer: built when missing or older than its sources; offline when ~/.m2 already has the SDK.
peer_jar=$PEER/target/peer-java-sdk-0.1.0.jar
if [[ ! -f $peer_jar ]] || [[ -n $(find "$PEER/pom.xml" "$PEER/src" -newer "$peer_jar" -type f) ]]; then
  offline=()
  [[ -d ~/.m2/repository/io/modelcontextprotocol/sdk/mcp/2.2.0 ]] && offline=(-o)
  echo "building $PEER"
  mkdir -p "$OUT"
  mvn -B -q "${offline[@]}" -f "$PEER/pom.xml" package >"$OUT/peer-build.log" 2>&1 \
    || { cat "$OUT/peer-build.log" >&2; exit 1; }
fi

mkdir -p "$OUT"
RUN=$(mktemp -d)
# Run copies: a build that rewrites the jars under a running JVM would break it.
mkdir -p "$RUN/jars"
cp examples/target/parley.jar benchmarks/target/parley-load.jar "$RUN/jars/"
cp -r "$peer_jar" "$PEER/target/lib" "$RUN/jars/"
LOAD=$RUN/jars/parley-load.jar
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$RUN"
}
trap cleanup EXIT

# start NAME COMMAND...: starts a server on a free port, waits (at most 90 s) for its ready line,
# sets PID_<NAME> and URL_<NAME> from it, and STARTUP_<NAME> (ms from launch to the ready line).
start() {
  local name=$1 log=$OUT/$1.log url="" launched
  shift
  launched=$(date +%s%N)
  # shellcheck disable=SC2086
  "$JAVA" $SERVER_JAVA_OPTS "$@" >"$log" 2>&1 </dev/null &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 900); do
    url=$(grep -m1 -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)
    [[ -n $url ]] && grep -q 'ready' "$log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "$name exited" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n $url ]] || { echo "$name did not become ready: $log" >&2; exit 1; }
  printf -v "PID_$name" %s "$pid"
  printf -v "URL_$name" %s "$url"
  printf -v "STARTUP_$name" %s $((($(date +%s%N) - launched) / 1000000))
  echo "  $name: $url (pid $pid)"
}

# rss PID: resident set size in MB.
rss() {
  awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"
}

# load SERVER KIND WARMUP DURATION [JSON [OPTION...]]: one run of the load generator at concurrency
# C; KIND is one (one-round call), mrtr, task, or one25 / mrtr25 (the same on 2025-11-25 sessions);
# OPTIONs go to the load generator as they are.
load() {
  local server=$1 kind=$2 warmup=$3 duration=$4 json=${5:-}
  local pid_var=PID_$server url_var=URL_$server args=(--flow call --tool "$ONE_TOOL" --args '{}')
  [[ $kind == mrtr ]] && args=(--flow mrtr --tool "$MRTR_TOOL" --args '{}')
  [[ $kind == task ]] && args=(--flow task --tool "$TASK_TOOL" --args "$TASK_ARGS" --poll-now)
  [[ $kind == one25 ]] && args=(--protocol 2025-11-25 --flow call --tool "$ONE_TOOL" --args '{}')
  [[ $kind == mrtr25 ]] && args=(--protocol 2025-11-25 --flow mrtr --tool "$MRTR_TOOL" --args '{}')
  local out=(--no-progress)
  [[ -n $json ]] && out+=(--json "$json")
  "$JAVA" -jar "$LOAD" --url "${!url_var}" "${args[@]}" -c "$C" --warmup "$warmup" \
    --duration "$duration" --server-pid "${!pid_var}" "${out[@]}" "${@:6}" >>"$OUT/load.log" 2>&1
}

# extra NAME SERVER KIND [OPTION...]: one measured run beside the rounds, as $OUT/extra/NAME-SERVER.json.
extra() {
  local name=$1 server=$2 kind=$3 json=$OUT/extra/$1-$2.json
  mkdir -p "$OUT/extra"
  if ! load "$server" "$kind" "$WARMUP" "$DURATION" "$json" "${@:4}" || [[ ! -f $json ]]; then
    echo "  $name $server: the load generator failed (see $OUT/load.log)"
    FAILED=$((FAILED + 1))
    rm -f "$json"
  fi
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $("$JAVA" -version 2>&1 | head -1)"
echo "settings: ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP PRIME=$PRIME C=$C SERVER_JAVA_OPTS='$SERVER_JAVA_OPTS'; results in $OUT"
rm -rf "$OUT"/*.json "$OUT/extra" "$OUT/load.log"
# Parley's class-data-sharing archive for the run copy (an archive holds for one jar path and JVM),
# made as the build makes examples/target/parley.jsa: on JDK 25 and later an AOT cache, which
# -XX:AOTCache reads with the classes linked ahead and the training run's method profiles.
if (($("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ { print int($2) }') >= 25)); then
  ARCHIVE_OUT=-XX:AOTCacheOutput ARCHIVE_IN=-XX:AOTCache
else
  ARCHIVE_OUT=-XX:ArchiveClassesAtExit ARCHIVE_IN=-XX:SharedArchiveFile
fi
"$JAVA" "$ARCHIVE_OUT=$RUN/jars/parley.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off \
  -jar "$RUN/jars/parley.jar" cds-training >"$OUT/cds-training.log" 2>&1
# One start without the archive first, alone, for the start-up row without it.
start parley_plain -jar "$RUN/jars/parley.jar" fixtures --port 0 --data "$RUN/data-plain"
sleep 10
IDLE_RSS_parley_plain=$(rss "$PID_parley_plain")
kill "$PID_parley_plain"
wait "$PID_parley_plain" 2>/dev/null || true
# The load generator is one address standing in for up to 256 clients: above Parley's cap of
# connections per address (128), which refuses the rest with 503.
start parley "$ARCHIVE_IN=$RUN/jars/parley.jsa" -Dparley.http.connections.max-per-address=512 \
  -jar "$RUN/jars/parley.jar" fixtures --port 0 --data "$RUN/data"
start sdk -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$RUN/jars/peer-java-sdk-0.1.0.jar:$RUN/jars/lib/*" \
  dev.parley.peer.JavaSdkPeer --port 0
# Idle: both started one after the other and left alone for 10 s before any request.
sleep 10
IDLE_RSS_parley=$(rss "$PID_parley")
IDLE_RSS_sdk=$(rss "$PID_sdk")
start sdk25 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$RUN/jars/peer-java-sdk-0.1.0.jar:$RUN/jars/lib/*" \
  dev.parley.peer.JavaSdkPeer --port 0 --protocol 2025-11-25

# sdk_for KIND: the Java SDK peer that serves KIND (Parley's one server serves both eras).
sdk_for() {
  if [[ $1 == *25 ]]; then echo sdk25; else echo sdk; fi
}

echo "priming each server and tool for $PRIME (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for server in parley sdk; do
  for kind in one mrtr one25 mrtr25; do
    # Only JIT warm-up: a cold server may finish no flow at all in this window, which is fine here.
    target=$server
    [[ $server == sdk ]] && target=$(sdk_for "$kind")
    load "$target" "$kind" 0s "$PRIME" || true
  done
done
load parley task 0s "$PRIME" || true

FAILED=0
for round in $(seq 1 "$ROUNDS"); do
  order="sdk parley"
  (( round % 2 == 0 )) && order="parley sdk"
  # Parley's tasks too, in every round beside its MRTR flows: one run is too noisy to set against their median.
  for kind in one mrtr one25 mrtr25 task; do
    for server in $order; do
      [[ $kind == task && $server == sdk ]] && continue
      json=$OUT/$server-$kind-r$round.json
      target=$server
      [[ $server == sdk ]] && target=$(sdk_for "$kind")
      if ! load "$target" "$kind" "$WARMUP" "$DURATION" "$json" || [[ ! -f $json ]]; then
        echo "  r$round $kind $server: the load generator failed (see $OUT/load.log)"
        FAILED=$((FAILED + 1))
        rm -f "$json"
        continue
      fi
      jq -r --arg s "$server" --arg k "$kind" --arg r "$round" '.levels[0] |
        "  r\($r) \({one: "one-round     ", mrtr: "MRTR          ", one25: "2025 one-round", mrtr25: "2025 elicit   ", task: "task          "}[$k]) \($s | if . == "sdk" then "Java SDK" else "Parley  " end)"
        + "  \(if $k | startswith("one") then "\(.requestsPerSecond) req/s" else "\(.flowsPerSecond) flows/s" end)"
        + "  p99 \(.kinds.flow.p99Ms) ms  server \(.serverCpuCores) cores"
        + "  errors \(.errors + .warmupErrors)  (load generator \(.clientCpuCores) cores, machine busy \(.machineCpuBusy * 100 | round)%)"' "$json"
    done
  done
done

# Beside the rounds: MRTR at concurrency 256, then an open loop at the Java SDK's median MRTR rate
# (at most 256 flows in flight).
for server in sdk parley; do
  C=256 extra c256 "$server" mrtr
done
sdk_rate=$(cat "$OUT"/sdk-mrtr-r*.json | jq -s 'map(.levels[0].flowsPerSecond) | sort
  | if length == 0 then 0 else .[length / 2 | floor] | floor end')
if (( sdk_rate > 0 )); then
  for server in sdk parley; do
    C=256 extra open "$server" mrtr --rate "$sdk_rate/s"
  done
fi

# Medians over the rounds, and the ratios Parley / Java SDK.
jq -s -r --arg rounds "$ROUNDS" --arg c "$C" --argjson failed "$FAILED" '
  def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
    else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def fig(server; kind; f): [.[] | select(.server == server and .kind == kind) | .level | f] | median;
  def fmt: if . == null then "n/a" elif . >= 100 then round | tostring else . * 1000 | round / 1000 | tostring end;
  def ratio(p; s): if p == null or s == null or s == 0 then "n/a" else p / s * 100 | floor / 100 | "\(.)x" end;
  def row(title; kind; f): fig("sdk"; kind; f) as $s | fig("parley"; kind; f) as $p
    | "  \(title | . + " " * (40 - length)) \($s | fmt | " " * (12 - length) + .) \($p | fmt | " " * (12 - length) + .) \(ratio($p; $s) | " " * (12 - length) + .)";
  (map(.level.errors + .level.warmupErrors) | add) as $errors
  | "\n  \("medians of \($rounds) rounds, concurrency \($c)" | . + " " * (40 - length))     Java SDK       Parley   Parley/SDK",
    row("one-round requests/s"; "one"; .requestsPerSecond),
    row("one-round p99 ms"; "one"; .kinds.flow.p99Ms),
    row("one-round server CPU ms per request"; "one"; .serverCpuMsPerKind.request),
    row("MRTR flows/s"; "mrtr"; .flowsPerSecond),
    row("MRTR flow p99 ms"; "mrtr"; .kinds.flow.p99Ms),
    row("MRTR retry p99 ms"; "mrtr"; .kinds.retry.p99Ms),
    row("MRTR server CPU ms per flow"; "mrtr"; .serverCpuMsPerKind.flow),
    row("2025-11-25 one-round requests/s"; "one25"; .requestsPerSecond),
    row("2025-11-25 one-round server CPU ms/request"; "one25"; .serverCpuMsPerKind.request),
    row("2025-11-25 elicitation flows/s"; "mrtr25"; .flowsPerSecond),
    row("2025-11-25 elicitation flow p99 ms"; "mrtr25"; .kinds.flow.p99Ms),
    row("2025-11-25 server CPU ms per elicitation"; "mrtr25"; .serverCpuMsPerKind.flow),
    "errors in all measured runs: \($errors)\(if $failed > 0 then "; runs that failed: \($failed)" else "" end)"
' <(for f in "$OUT"/*-r*.json; do
      b=$(basename "$f" .json)
      jq -c --arg server "${b%%-*}" --arg kind "$(cut -d- -f2 <<<"$b")" \
        '{server: $server, kind: $kind, level: .levels[0]}' "$f"
    done)
# The runs beside the rounds: NAME SERVER FIELD (missing file: n/a).
extra_fig() {
  local f=$OUT/extra/$1-$2.json
  if [[ -f $f ]]; then jq -r ".levels[0] | $3 | . * 1000 | round / 1000" "$f"; else echo n/a; fi
}
extra_row() { # TITLE SDK PARLEY
  awk -v t="$1" -v s="$2" -v p="$3" 'BEGIN {
    r = (s + 0 > 0 && p != "n/a") ? sprintf("%.2fx", p / s) : "n/a"
    printf "  %-40s %12s %12s %12s\n", t, s, p, r }'
}
extra_row "MRTR c=256 flows/s" "$(extra_fig c256 sdk .flowsPerSecond)" "$(extra_fig c256 parley .flowsPerSecond)"
extra_row "MRTR c=256 flow p99 ms" "$(extra_fig c256 sdk .kinds.flow.p99Ms)" "$(extra_fig c256 parley .kinds.flow.p99Ms)"
extra_row "MRTR open loop at ${sdk_rate}/s: achieved" "$(extra_fig open sdk .flowsPerSecond)" "$(extra_fig open parley .flowsPerSecond)"
extra_row "MRTR open loop: flow p99 ms" "$(extra_fig open sdk .kinds.flow.p99Ms)" "$(extra_fig open parley .kinds.flow.p99Ms)"
# Tasks against Parley's own MRTR flows (medians of the rounds): the ratio column is task / MRTR.
parley_median() { # KIND FIELD
  cat "$OUT"/parley-"$1"-r*.json 2>/dev/null | jq -s "map(.levels[0] | $2) | sort
    | if length == 0 then \"n/a\" else .[length / 2 | floor] * 1000 | round / 1000 end"
}
echo "  $(printf '%-40s %12s %12s %12s' 'Parley tasks against its MRTR flows' 'MRTR flow' 'task' 'task/MRTR')"
extra_row "  per second" "$(parley_median mrtr .flowsPerSecond)" "$(parley_median task .flowsPerSecond)"
extra_row "  server CPU ms each" "$(parley_median mrtr .serverCpuMsPerKind.flow)" "$(parley_median task .serverCpuMsPerKind.flow)"
awk -v ps="$STARTUP_parley" -v ss="$STARTUP_sdk" -v pr="$IDLE_RSS_parley" -v sr="$IDLE_RSS_sdk" \
  -v pps="$STARTUP_parley_plain" -v ppr="$IDLE_RSS_parley_plain" 'BEGIN {
  printf "  %-40s %12s %12s %11.2fx\n", "start-up to ready ms (one start each)", ss, ps, ps / ss
  printf "  %-40s %12s %12s %11.2fx\n", "idle RSS MB (10 s after ready)", sr, pr, pr / sr
  printf "  %-40s %12s %12s %11.2fx\n", "  Parley without its CDS archive: start-up", ss, pps, pps / ss
  printf "  %-40s %12s %12s %11.2fx\n", "  Parley without its CDS archive: idle RSS", sr, ppr, ppr / sr }'
# Exit status: 0 only when every measured run finished without an error.
errors=$(cat "$OUT"/*-r*.json "$OUT"/extra/*.json 2>/dev/null | jq -s 'map(.levels[0].errors + .levels[0].warmupErrors) | add // 0')
(( FAILED == 0 && errors == 0 ))
