#!/usr/bin/env bash
# Throughput of the demo proxy against nginx, side by side in one run.
#
# Starts three stub agents that answer at once (DELAY_MIN_MS=DELAY_MAX_MS=0), then for each
# strategy in STRATEGIES the demo proxy (demo-routes.jar) over them, and nginx with an equivalent
# upstream (round-robin, keep-alive) when nginx is installed; warms each up with wrk, measures,
# stops it, and prints req/s, p50 and p99 for each and the ratios. All on 127.0.0.1, ports
# BASE_PORT..BASE_PORT+90. Needs: java 17, wrk, the jars (mvn -q -B package -DskipTests), and
# optionally nginx (apt-get install -y nginx-light wrk).
#
# Knobs (environment):
#   STRATEGIES   proxy strategies to run, in order         "camel-rr rr ch pid avn"
#   AGENT_WARMUP_S  wrk straight at the agents first, s      30
#                (the agents are JVMs too: cold, they would slow whichever target ran first)
#   WARMUP_S     wrk warm-up per target, s, not counted      60
#                (a proxy JVM on 2 cores with wrk beside it takes about a minute to compile its path)
#   DURATION_S   wrk measurement per target, s               8
#   CONNECTIONS  wrk connections                             10
#   THREADS      wrk threads                                 2
#   TARGET       request path and query                      /process/r1?user_id=7
#   PROXY_JAVA_OPTS  JVM options of the proxy, e.g. -Xmx128m or -XX:TieredStopAtLevel=1
#   RAMP_S       >0: before the warm-up, measure req/s second by second from the proxy's JVM
#                launch for RAMP_S s and report when 90% of the last third's mean was reached
#   HEAP_INFO    1: halfway through each proxy's measurement, run a full GC and print the heap
#                still in use (the live set under load), from jcmd GC.heap_info
#   JFR_DIR      a directory: record each proxy's measurement window with JFR (settings=profile)
#                there as <strategy>.jfr; read it with benchmarks/jfr-hot-methods.py
#   NGINX        0: leave nginx out (e.g. when comparing proxy JVM options)   1
#   BASE_PORT    first port                                  18000
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
STRATEGIES=${STRATEGIES:-"camel-rr rr ch pid avn"}
AGENT_WARMUP_S=${AGENT_WARMUP_S:-30}
WARMUP_S=${WARMUP_S:-60}
DURATION_S=${DURATION_S:-8}
CONNECTIONS=${CONNECTIONS:-10}
THREADS=${THREADS:-2}
TARGET=${TARGET:-/process/r1?user_id=7}
PROXY_JAVA_OPTS=${PROXY_JAVA_OPTS:-}
RAMP_S=${RAMP_S:-0}
JFR_DIR=${JFR_DIR:-}
BASE_PORT=${BASE_PORT:-18000}
NGINX=${NGINX:-1}

PROXY_PORT=$BASE_PORT
MANAGEMENT_PORT=$((BASE_PORT + 76))
NGINX_PORT=$((BASE_PORT + 90))
AGENT_PORTS=($((BASE_PORT + 81)) $((BASE_PORT + 82)) $((BASE_PORT + 83)))
AGENT_JAR=$ROOT/agent-stub/target/agent-stub.jar
PROXY_JAR=$ROOT/demo-routes/target/demo-routes.jar
LOG_CONFIG=$ROOT/benchmarks/proxy-log4j2.properties
WORK=$(mktemp -d /tmp/proxy-vs-nginx.XXXXXX)
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

NAME=proxy-vs-nginx
source "$(dirname "$0")/lib.sh"

command -v wrk >/dev/null || die "wrk is not installed (apt-get install -y wrk)"
[[ -f $AGENT_JAR && -f $PROXY_JAR ]] || die "build the jars first: mvn -q -B package -DskipTests"
require_free_ports $PROXY_PORT $MANAGEMENT_PORT $NGINX_PORT "${AGENT_PORTS[@]}"


# wrk against $1 for $2 s; sets RPS, P50_MS, P99_MS, ERRORS.
measure() {
    local out
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${2}s" --latency "$1")
    RPS=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' <<<"$out")
    P50_MS=$(awk '$1 == "50%" {print ms($2)} function ms(v) {
        if (v ~ /us$/) return sprintf("%.2f", v / 1000); if (v ~ /ms$/) return sprintf("%.2f", v + 0);
        if (v ~ /s$/) return sprintf("%.2f", v * 1000); return v }' <<<"$out")
    P99_MS=$(awk '$1 == "99%" {print ms($2)} function ms(v) {
        if (v ~ /us$/) return sprintf("%.2f", v / 1000); if (v ~ /ms$/) return sprintf("%.2f", v + 0);
        if (v ~ /s$/) return sprintf("%.2f", v * 1000); return v }' <<<"$out")
    ERRORS=$(awk '/Non-2xx|Socket errors/ {sub(/^ +/, ""); printf "%s; ", $0}' <<<"$out")
}

# Second-by-second req/s from $2 (epoch ms of the JVM launch) for RAMP_S s; prints when 90% of
# the last third's mean was first reached.
ramp() {
    local url=$1 launched=$2 series=$WORK/ramp-$3.txt t rps
    : >"$series"
    while true; do
        t=$(( $(date +%s%3N) - launched ))
        ((t < RAMP_S * 1000)) || break
        rps=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d1s "$url" | awk '/^Requests\/sec:/ {printf "%.0f", $2}')
        echo "$t ${rps:-0}" >>"$series"
    done
    awk -v name="$3" '{t[NR] = $1; r[NR] = $2} END {
        from = int(NR * 2 / 3) + 1; n = 0; s = 0
        for (i = from; i <= NR; i++) { s += r[i]; n++ }
        steady = s / n
        for (i = 1; i <= NR; i++) if (r[i] >= 0.9 * steady) { hit = t[i]; break }
        printf "ramp %s: steady %.0f req/s (mean of the last %d s); 90%% first reached in the 1-s slice starting %.1f s after JVM launch\n",
            name, steady, n, hit / 1000 }' "$series"
}

RESULTS=()
record() { RESULTS+=("$1|$2|$3|$4|$5"); printf '%-10s %8s req/s  p50 %6s ms  p99 %6s ms  %s\n' "$1" "$2" "$3" "$4" "$5"; }

echo "proxy-vs-nginx: agents on ${AGENT_PORTS[*]}, wrk -t$THREADS -c$CONNECTIONS, agents warm-up ${AGENT_WARMUP_S}s, warm-up ${WARMUP_S}s, measure ${DURATION_S}s, $TARGET"
echo "proxy JVM options: ${PROXY_JAVA_OPTS:-(none)}; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
for port in "${AGENT_PORTS[@]}"; do
    i=$((i + 1))
    AGENT_ID=A$i PORT=$port HOST=127.0.0.1 DELAY_MIN_MS=0 DELAY_MAX_MS=0 \
        java -Xmx256m -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$AGENT_JAR" >"$WORK/agent-A$i.log" 2>&1 &
    PIDS+=($!)
done
for port in "${AGENT_PORTS[@]}"; do
    await "http://127.0.0.1:$port/health" 60
done
if ((AGENT_WARMUP_S > 0)); then
    echo "agents: ${AGENT_WARMUP_S}s of wrk straight at them, not counted"
    warmers=()
    for port in "${AGENT_PORTS[@]}"; do
        wrk -t1 -c4 -d"${AGENT_WARMUP_S}s" "http://127.0.0.1:$port$TARGET" >/dev/null &
        warmers+=($!)
    done
    wait "${warmers[@]}"
fi
AGENTS=$(printf 'http://127.0.0.1:%s,' "${AGENT_PORTS[@]}")
AGENTS=${AGENTS%,}

for strategy in $STRATEGIES; do
    launched=$(date +%s%3N)
    # shellcheck disable=SC2086
    STRATEGY=$strategy PORT=$PROXY_PORT AGENTS=$AGENTS MANAGEMENT_PORT=$MANAGEMENT_PORT \
        java $PROXY_JAVA_OPTS -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" \
        >"$WORK/proxy-$strategy.log" 2>&1 &
    proxy=$!
    PIDS+=($proxy)
    url="http://127.0.0.1:$PROXY_PORT$TARGET"
    await "$url" 60
    echo "$strategy: answering $(( $(date +%s%3N) - launched )) ms after JVM launch"
    if ((RAMP_S > 0)); then
        ramp "$url" "$launched" "$strategy"
    fi
    measure "$url" "$WARMUP_S" >/dev/null
    if [[ -n $JFR_DIR ]]; then
        mkdir -p "$JFR_DIR"
        jcmd "$proxy" JFR.start name=bench settings=profile >/dev/null
    fi
    if [[ -n ${HEAP_INFO:-} ]]; then
        (sleep $((DURATION_S / 2)); jcmd "$proxy" GC.run >/dev/null
         jcmd "$proxy" GC.heap_info | awk -v s="$strategy" -v c="$CONNECTIONS" \
             '/garbage-first heap/ {gsub(",", ""); print s ": heap in use after a full GC under load (" c " connections): " $6 " of " $4}'
        ) >"$WORK/heap-$strategy.txt" &
    fi
    measure "$url" "$DURATION_S"
    record "$strategy" "$RPS" "$P50_MS" "$P99_MS" "$ERRORS"
    if [[ -n ${HEAP_INFO:-} ]]; then
        wait $!
        cat "$WORK/heap-$strategy.txt"
    fi
    if [[ -n $JFR_DIR ]]; then
        jcmd "$proxy" JFR.stop name=bench filename="$JFR_DIR/$strategy.jfr" >/dev/null
    fi
    kill "$proxy"
    wait "$proxy" 2>/dev/null || true
done

if [[ $NGINX == 0 ]]; then
    echo "nginx left out (NGINX=0)"
elif command -v nginx >/dev/null; then
    mkdir -p "$WORK/nginx/logs"
    cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    upstream agents {
        server 127.0.0.1:${AGENT_PORTS[0]};
        server 127.0.0.1:${AGENT_PORTS[1]};
        server 127.0.0.1:${AGENT_PORTS[2]};
        keepalive 64;
    }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location /process/ {
            proxy_pass http://agents;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
CONF
    nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
    nginx_pid=$!
    PIDS+=($nginx_pid)
    url="http://127.0.0.1:$NGINX_PORT$TARGET"
    await "$url" 20
    measure "$url" "$WARMUP_S" >/dev/null
    measure "$url" "$DURATION_S"
    record nginx "$RPS" "$P50_MS" "$P99_MS" "$ERRORS"
    kill "$nginx_pid"
    wait "$nginx_pid" 2>/dev/null || true
else
    echo "nginx is not installed: skipping it (apt-get install -y nginx-light)"
fi

echo
echo "| target | req/s | p50 ms | p99 ms | x nginx | x camel-rr | errors |"
echo "|---|---:|---:|---:|---:|---:|---|"
nginx_rps=$(printf '%s\n' "${RESULTS[@]}" | awk -F'|' '$1 == "nginx" {print $2}')
camel_rps=$(printf '%s\n' "${RESULTS[@]}" | awk -F'|' '$1 == "camel-rr" {print $2}')
for row in "${RESULTS[@]}"; do
    awk -F'|' -v n="$nginx_rps" -v c="$camel_rps" '{
        xn = n > 0 ? sprintf("%.2f", $2 / n) : "-"; xc = c > 0 ? sprintf("%.2f", $2 / c) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, xn, xc, ($5 == "" ? "0" : $5) }' <<<"$row"
done
echo "logs: $WORK"
