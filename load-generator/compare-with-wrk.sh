#!/usr/bin/env bash
# Side by side: wrk and the load generator against the same demo proxy, alternating, in one run.
#
# Starts three stub agents (50-150 ms, the defaults) and the demo proxy over them (STRATEGY, rr by
# default; decision log at WARN), warms the proxy up with wrk (or the generator when wrk is
# missing), then runs ROUNDS times: wrk -t2 -c100 -d8s, then the load generator with the README's
# command (--concurrency 100 --requests 6000 --warmup 1000). Prints req/s, p50 and p99 of each
# and the generator/wrk ratios, plus the load average (the machine may be shared).
#
# Usage: load-generator/compare-with-wrk.sh            (from the repository root, after
#        mvn -q -B package -DskipTests)
# Environment: STRATEGY (rr), ROUNDS (2), BASE_PORT (18000: proxy; agents +1..+3; management
#              +876), WARMUP_S (15), WRK_ARGS (-t2 -c100 -d8s), LG_ARGS (the README's command),
#              LG_JAVA_OPTS (the generator's JVM options; default -XX:TieredStopAtLevel=1
#              -XX:+UseSerialGC, the README's, which cut its CPU per request; add e.g.
#              -XX:StartFlightRecording=filename=/tmp/lg.jfr,settings=profile to profile it).
set -euo pipefail

cd "$(dirname "$0")/.."
STRATEGY=${STRATEGY:-rr}
ROUNDS=${ROUNDS:-2}
BASE_PORT=${BASE_PORT:-18000}
WARMUP_S=${WARMUP_S:-15}
WRK_ARGS=${WRK_ARGS:--t2 -c100 -d8s}
LG_ARGS=${LG_ARGS:---concurrency 100 --requests 6000 --warmup 1000}
LG_JAVA_OPTS=${LG_JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}
AGENT_JAR=agent-stub/target/agent-stub.jar
PROXY_JAR=demo-routes/target/demo-routes.jar
LG_JAR=load-generator/target/load-generator.jar
for jar in "$AGENT_JAR" "$PROXY_JAR" "$LG_JAR"; do
  [[ -f $jar ]] || { echo "missing $jar: run mvn -q -B package -DskipTests first" >&2; exit 2; }
done

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The proxy's per-request decision line costs it a log write; both clients should measure the proxy.
sed 's/^logger.decision.level = INFO/logger.decision.level = WARN/' \
  demo-routes/src/main/resources/log4j2.properties > "$work/log4j2.properties"

agents=()
for i in 1 2 3; do
  port=$((BASE_PORT + i))
  AGENT_ID=A$i PORT=$port java -jar "$AGENT_JAR" > "$work/agent$i.log" 2>&1 &
  pids+=($!)
  agents+=("A$i=http://127.0.0.1:$port")
done
proxy_url="http://127.0.0.1:$BASE_PORT"
AGENTS=$(IFS=,; echo "${agents[*]}") STRATEGY=$STRATEGY PORT=$BASE_PORT MANAGEMENT_PORT=$((BASE_PORT + 876)) \
  java -Dlog4j.configurationFile="$work/log4j2.properties" -jar "$PROXY_JAR" > "$work/proxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do
  curl -sf "$proxy_url/process/r0?user_id=1" > /dev/null && break
  sleep 0.5
done
curl -sf "$proxy_url/process/r0?user_id=1" > /dev/null || { echo "proxy did not answer; see $work" >&2; cat "$work/proxy.log" >&2; exit 1; }

target="$proxy_url/process/r1?user_id=7"
have_wrk=0
command -v wrk > /dev/null && have_wrk=1
echo "proxy $STRATEGY at $proxy_url over three 50-150 ms agents; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "generator: java $LG_JAVA_OPTS -jar $LG_JAR --url $proxy_url --strategy $STRATEGY $LG_ARGS"
if [[ $have_wrk == 1 ]]; then
  echo "warm-up: wrk ${WARMUP_S}s"
  wrk -t2 -c100 -d"${WARMUP_S}s" "$target" > /dev/null
else
  echo "wrk not installed (apt-get install -y wrk): the generator alone"
fi

# wrk prints latency percentiles with units (us, ms, s); this turns one into ms.
to_ms() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.1f", n }'; }

run_wrk() {
  local out p50 p99 rps
  out=$(wrk $WRK_ARGS --latency "$target")
  rps=$(awk '/^Requests\/sec:/ { print $2 }' <<< "$out")
  p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<< "$out")")
  p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<< "$out")")
  local errors
  errors=$(awk '/Non-2xx|Socket errors/ { print }' <<< "$out")
  echo "$rps $p50 $p99"
  [[ -z $errors ]] || echo "wrk: $errors" >&2
}

run_lg() {
  local dir="$work/lg" json
  # shellcheck disable=SC2086
  java $LG_JAVA_OPTS -jar "$LG_JAR" --url "$proxy_url" --strategy "$STRATEGY" $LG_ARGS --out "$dir" \
    > "$work/lg.log" 2>&1 || { echo "load generator failed:" >&2; tail -5 "$work/lg.log" >&2; }
  json="$dir/report-uniform-$STRATEGY.json"
  grep -i 'self-check' "$work/lg.log" >&2 || true
  jq -r '"\(.throughput_rps) \(.latency.p50_ms) \(.latency.p99_ms)"' "$json"
}

printf '%-6s %-10s %10s %9s %9s\n' round client req/s p50_ms p99_ms
for round in $(seq 1 "$ROUNDS"); do
  if [[ $have_wrk == 1 ]]; then
    read -r w_rps w_p50 w_p99 < <(run_wrk)
    printf '%-6s %-10s %10.1f %9.1f %9.1f\n' "$round" wrk "$w_rps" "$w_p50" "$w_p99"
  fi
  read -r g_rps g_p50 g_p99 < <(run_lg)
  printf '%-6s %-10s %10.1f %9.1f %9.1f\n' "$round" generator "$g_rps" "$g_p50" "$g_p99"
  if [[ $have_wrk == 1 ]]; then
    awk -v a="$g_rps" -v b="$w_rps" -v c="$g_p50" -v d="$w_p50" -v e="$g_p99" -v f="$w_p99" -v r="$round" \
      'BEGIN { printf "%-6s %-10s %9.3fx %8.3fx %8.3fx\n", r, "gen/wrk", a / b, c / d, e / f }'
  fi
done
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
