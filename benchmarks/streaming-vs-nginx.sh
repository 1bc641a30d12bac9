#!/usr/bin/env bash
# Agent traffic through the demo proxy beside nginx, in one run: streamed answers (SSE), a large
# answer, many connections at once. Prints figures with the load average beside each; asserts
# nothing (the tests do). All on 127.0.0.1, ports BASE_PORT..BASE_PORT+99.
#
#   SSE     three stub agents whose POST /process/{id} streams chat-completion chunks
#           (FIRST_TOKEN_MS=0, TOKENS_PER_SECOND=50: one event every 20 ms, ANSWER_TOKENS=50);
#           STREAMS concurrent streams straight at one agent, through the proxy, through nginx, in
#           turn for SSE_ROUNDS rounds: time to first event (and the median of the rounds' medians)
#           and how many of the 49 gaps per stream fell within 10 ms of 20 ms.
#   big     a Python agent answering BIG_MIB MiB chunked; the proxy's RSS before and its peak
#           (VmHWM) after; the same answer direct and through nginx.
#   many    CONNECTIONS GETs opened at once on /process/{id}, the stub agents answering after
#           1 s (DELAY_MIN_MS=DELAY_MAX_MS=1000); when the last was answered and the proxy's
#           thread count before and at its highest.
#
# Needs java 17, python3, the jars (mvn -q -B package -DskipTests), optionally nginx
# (apt-get install -y nginx-light). Knobs (environment): STREAMS (32), WARMUP_ROUNDS (100, about 1 s
# each) of WARMUP_STREAMS (128): the proxy's path is compiled by C2 after about ten thousand calls,
# and 20 rounds of 32 left it half-compiled (29 ms over direct instead of 3), SSE_ROUNDS (7, each target in turn),
# BIG_MIB (256), CONNECTIONS (1000), PROXY_JAVA_OPTS (none), NGINX (1), BASE_PORT (19000).
set -euo pipefail

NAME=streaming-vs-nginx
source "$(dirname "$0")/lib.sh"
STREAMS=${STREAMS:-32}
WARMUP_ROUNDS=${WARMUP_ROUNDS:-100}
WARMUP_STREAMS=${WARMUP_STREAMS:-128}
SSE_ROUNDS=${SSE_ROUNDS:-7}
BIG_MIB=${BIG_MIB:-256}
CONNECTIONS=${CONNECTIONS:-1000}
PROXY_JAVA_OPTS=${PROXY_JAVA_OPTS:-}
NGINX=${NGINX:-1}
BASE_PORT=${BASE_PORT:-19000}
require_whole_numbers STREAMS WARMUP_ROUNDS WARMUP_STREAMS SSE_ROUNDS BIG_MIB CONNECTIONS BASE_PORT

PROXY_PORT=$BASE_PORT
BIG_PROXY_PORT=$((BASE_PORT + 1))
MANAGEMENT_PORT=$((BASE_PORT + 76))
BIG_MANAGEMENT_PORT=$((BASE_PORT + 77))
BIG_AGENT_PORT=$((BASE_PORT + 80))
AGENT_PORTS=($((BASE_PORT + 81)) $((BASE_PORT + 82)) $((BASE_PORT + 83)))
NGINX_PORT=$((BASE_PORT + 90))
NGINX_BIG_PORT=$((BASE_PORT + 91))
CLIENT=$ROOT/benchmarks/stream-client.py
WORK=$(mktemp -d /tmp/streaming-vs-nginx.XXXXXX)
chmod 755 "$WORK"  # nginx workers (not root) write their temp files below it
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    if [[ -f $WORK/nginx/nginx.pid ]]; then
        kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
    fi
    wait 2>/dev/null || true
}
trap cleanup EXIT

load() { echo "[load $(cut -d' ' -f1-3 /proc/loadavg)]"; }
status() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

require_jars "$AGENT_JAR" "$PROXY_JAR"
require_free_ports $PROXY_PORT $BIG_PROXY_PORT $MANAGEMENT_PORT $BIG_MANAGEMENT_PORT $BIG_AGENT_PORT $NGINX_PORT $NGINX_BIG_PORT "${AGENT_PORTS[@]}"


echo "streaming-vs-nginx: $(nproc) cores, proxy JVM options: ${PROXY_JAVA_OPTS:-(none)} $(load)"
i=0
for port in "${AGENT_PORTS[@]}"; do
    i=$((i + 1))
    AGENT_ID=A$i PORT=$port HOST=127.0.0.1 DELAY_MIN_MS=1000 DELAY_MAX_MS=1000 FIRST_TOKEN_MS=0 \
        TOKENS_PER_SECOND=50 ANSWER_TOKENS=50 \
        java -Xmx256m -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$AGENT_JAR" >"$WORK/agent-A$i.log" 2>&1 &
    PIDS+=($!)
done
python3 "$ROOT/benchmarks/big-agent.py" "$BIG_AGENT_PORT" &
PIDS+=($!)
AGENTS=$(printf 'http://127.0.0.1:%s,' "${AGENT_PORTS[@]}")
# shellcheck disable=SC2086
HOST=127.0.0.1 STRATEGY=rr PORT=$PROXY_PORT AGENTS=${AGENTS%,} MANAGEMENT_PORT=$MANAGEMENT_PORT \
    java $PROXY_JAVA_OPTS -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" >"$WORK/proxy.log" 2>&1 &
PROXY=$!
PIDS+=($PROXY)
# shellcheck disable=SC2086
HOST=127.0.0.1 STRATEGY=rr PORT=$BIG_PROXY_PORT AGENTS=http://127.0.0.1:$BIG_AGENT_PORT \
    MANAGEMENT_PORT=$BIG_MANAGEMENT_PORT \
    java $PROXY_JAVA_OPTS -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" >"$WORK/proxy-big.log" 2>&1 &
BIG_PROXY=$!
PIDS+=($BIG_PROXY)
for port in "${AGENT_PORTS[@]}"; do
    await "http://127.0.0.1:$port/health" 60
done
await "http://127.0.0.1:$BIG_AGENT_PORT/x?bytes=1" 30
await "http://127.0.0.1:$PROXY_PORT/process/w?user_id=1" 60
await "http://127.0.0.1:$BIG_PROXY_PORT/process/w?bytes=1" 60
# The serving JVMs (the jar may restart its JVM: jvm_pid), for their RSS and threads.
PROXY=$(jvm_pid "$PROXY")
BIG_PROXY=$(jvm_pid "$BIG_PROXY")

NGINX_URL=
NGINX_BIG_URL=
if [[ $NGINX == 1 ]] && command -v nginx >/dev/null; then
    nginx_conf_head "$WORK/nginx/nginx.conf" "" "${AGENT_PORTS[@]}"
    cat >>"$WORK/nginx/nginx.conf" <<CONF
    upstream big { server 127.0.0.1:$BIG_AGENT_PORT; keepalive 8; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location / { proxy_pass http://agents; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
    server {
        listen 127.0.0.1:$NGINX_BIG_PORT;
        location / { proxy_pass http://big; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
    nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx"
    await "http://127.0.0.1:$NGINX_PORT/process/w?user_id=1" 10
    NGINX_URL="http://127.0.0.1:$NGINX_PORT"
    NGINX_BIG_URL="http://127.0.0.1:$NGINX_BIG_PORT"
    echo "nginx $(nginx -v 2>&1 | sed 's/.*\///'): defaults, upstream keep-alive"
else
    echo "nginx left out (not installed, or NGINX=0)"
fi

BODY='{"model":"stub","stream":true,"messages":[{"role":"user","content":"hello"}]}'
echo "warm-up: $WARMUP_ROUNDS rounds of $WARMUP_STREAMS streams through the proxy, not counted"
for ((r = 0; r < WARMUP_ROUNDS; r++)); do
    python3 "$CLIENT" sse "http://127.0.0.1:$PROXY_PORT/process/s1?user_id=1" "$WARMUP_STREAMS" "$BODY" >/dev/null
done

echo "== SSE: $STREAMS concurrent streams of 50 events 20 ms apart, $SSE_ROUNDS rounds, targets in turn"
declare -A SSE_URLS=([direct]="http://127.0.0.1:${AGENT_PORTS[0]}/process/s1?user_id=1"
    [proxy]="http://127.0.0.1:$PROXY_PORT/process/s1?user_id=1")
SSE_TARGETS=(direct proxy)
if [[ -n $NGINX_URL ]]; then
    SSE_URLS[nginx]="$NGINX_URL/process/s1?user_id=1"
    SSE_TARGETS+=(nginx)
fi
for ((r = 1; r <= SSE_ROUNDS; r++)); do
    for t in "${SSE_TARGETS[@]}"; do
        line=$(python3 "$CLIENT" sse "${SSE_URLS[$t]}" "$STREAMS" "$BODY")
        echo "round $r $t: $line $(load)"
        sed -n 's/.*first event median \([0-9.]*\) ms.*/\1/p' <<<"$line" >>"$WORK/sse-$t.txt"
    done
done
for t in "${SSE_TARGETS[@]}"; do
    echo "$t: time to first event, median of the $SSE_ROUNDS rounds' medians: $(sort -n "$WORK/sse-$t.txt" | awk '{v[NR]=$1} END {print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}') ms"
done

echo "== big: one answer of $BIG_MIB MiB"
bytes=$((BIG_MIB * 1024 * 1024))
echo "$(python3 "$CLIENT" big "http://127.0.0.1:$BIG_AGENT_PORT/direct?bytes=$bytes") (direct) $(load)"
rss_before=$(status "$BIG_PROXY" VmRSS)
hwm_before=$(status "$BIG_PROXY" VmHWM)
echo "$(python3 "$CLIENT" big "http://127.0.0.1:$BIG_PROXY_PORT/process/b1?bytes=$bytes") (proxy) $(load)"
echo "proxy RSS before ${rss_before} kB (peak so far ${hwm_before} kB), peak after $(status "$BIG_PROXY" VmHWM) kB: growth of the peak $(( ($(status "$BIG_PROXY" VmHWM) - hwm_before) / 1024 )) MB"
if [[ -n $NGINX_BIG_URL ]]; then
    echo "$(python3 "$CLIENT" big "$NGINX_BIG_URL/process/b1?bytes=$bytes") (nginx) $(load)"
fi

echo "== many: $CONNECTIONS connections at once, agents answering after 1 s"
threads_before=$(status "$PROXY" Threads)
( peak=$threads_before; while kill -0 "$PROXY" 2>/dev/null && [[ ! -f $WORK/many.done ]]; do
      t=$(status "$PROXY" Threads); ((t > peak)) && peak=$t; echo "$peak" >"$WORK/threads.peak"; sleep 0.05; done ) &
sampler=$!
echo "$(python3 "$CLIENT" many "http://127.0.0.1:$PROXY_PORT/process/m1?user_id=1" "$CONNECTIONS") (proxy) $(load)"
touch "$WORK/many.done"
wait "$sampler" 2>/dev/null || true
echo "proxy threads before $threads_before, highest during $(cat "$WORK/threads.peak")"
if [[ -n $NGINX_URL ]]; then
    echo "$(python3 "$CLIENT" many "$NGINX_URL/process/m1?user_id=1" "$CONNECTIONS") (nginx) $(load)"
fi
