#!/usr/bin/env bash
# What the demo proxy costs beside nginx and HAProxy, side by side in one run.
#
# Three agents that answer at once on 127.0.0.1 (by default one nginx serving a fixed JSON answer
# on three ports, so that the agents are never what limits a balancer; AGENTS_BY=stub for three
# agent-stub JVMs), then: "direct" (wrk straight at the first agent), the demo proxy once per
# strategy in STRATEGIES (each its own JVM on its own port, started and warmed one after the
# other), nginx and HAProxy as balancers over the same agents when installed. After the warm-ups,
# ROUNDS rounds go through every target in turn: wrk at each of CONNECTIONS for DURATION_S s
# (throughput), and one connection for DURATION_S s (latency below saturation: one request at a
# time). Prints the median of the rounds per target: req/s, p50/p99, ratios to nginx and to
# Camel's own roundRobin() (camel-rr), and the p50 added over going direct.
# Needs: java 17, wrk, the jars (mvn -q -B package -DskipTests); nginx and haproxy are optional
# (apt-get install -y nginx-light haproxy wrk), and said so when absent.
#
# Knobs (environment):
#   STRATEGIES   proxy strategies, in order                 "camel-rr rr ch pid avn lr"
#                (one named twice runs twice, in two JVMs: its second row is <strategy>#<n>, n its
#                position in STRATEGIES)
#   AGENTS_BY    nginx | stub: what serves the agents        nginx when installed, else stub
#   AGENT_WORKERS  AGENTS_BY=nginx: the agents' nginx worker_processes   1
#   WARMUP_S     wrk warm-up per proxy, s, not counted       60
#                (a proxy JVM on 2 cores with wrk beside it takes about a minute to compile its path)
#   AGENT_WARMUP_S  AGENTS_BY=stub: wrk straight at the stub agents first, s   30
#   DURATION_S   wrk per measurement, s                      5
#   ROUNDS       rounds through every target                 3
#   CONNECTIONS  wrk connections for throughput              "10 100"
#   THREADS      wrk threads                                 2
#   TARGET       request path and query                      /process/r1?user_id=7
#   PROXY_JAVA_OPTS  JVM options of every proxy, e.g. -Xmx128m or -XX:TieredStopAtLevel=1
#   RAMP_S       >0: right after each proxy's launch, measure req/s second by second for RAMP_S s
#                (wrk -c at the first of CONNECTIONS) and report when 90% of the last third's mean
#                was first reached; the proxy is then warmed for WARMUP_S more
#   HEAP_INFO    1: halfway through each proxy's first measurement, run a full GC and print the
#                heap still in use (the live set under load), from jcmd GC.heap_info
#   JFR_DIR      a directory: record each proxy over the rounds with JFR (settings=profile) there
#                as <strategy>.jfr; read it with benchmarks/jfr-hot-methods.py
#   NGINX, HAPROXY  0: leave that balancer out              1
#   BODY_FILE    a file: every request is a POST of it as application/json (wrk -s), e.g. a 400 KB
#                chat prompt; a balancer knob in the environment is read by every proxy, so name only
#                strategies that have it (BALANCER_KEYS=session,prompt,user_id: STRATEGIES=ch)
#   BASE_PORT    first port                                  18000
set -euo pipefail

NAME=proxy-vs-nginx
source "$(dirname "$0")/lib.sh"
STRATEGIES=${STRATEGIES:-"camel-rr rr ch pid avn lr"}
WARMUP_S=${WARMUP_S:-60}
AGENT_WARMUP_S=${AGENT_WARMUP_S:-30}
DURATION_S=${DURATION_S:-5}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-"10 100"}
THREADS=${THREADS:-2}
TARGET=${TARGET:-/process/r1?user_id=7}
PROXY_JAVA_OPTS=${PROXY_JAVA_OPTS:-}
RAMP_S=${RAMP_S:-0}
JFR_DIR=${JFR_DIR:-}
HEAP_INFO=${HEAP_INFO:-}
BASE_PORT=${BASE_PORT:-18000}
NGINX=${NGINX:-1}
HAPROXY=${HAPROXY:-1}
AGENT_WORKERS=${AGENT_WORKERS:-1}
require_whole_numbers WARMUP_S AGENT_WARMUP_S DURATION_S ROUNDS THREADS RAMP_S BASE_PORT AGENT_WORKERS
if [[ -z ${AGENTS_BY:-} ]]; then
    AGENTS_BY=stub
    command -v nginx >/dev/null && AGENTS_BY=nginx
fi

# Ports: proxies BASE_PORT.., their management ports BASE_PORT+40.., agents +81..+83, nginx +90, HAProxy +91.
AGENT_PORTS=($((BASE_PORT + 81)) $((BASE_PORT + 82)) $((BASE_PORT + 83)))
NGINX_PORT=$((BASE_PORT + 90))
HAPROXY_PORT=$((BASE_PORT + 91))

start_work

command -v wrk >/dev/null || die "wrk is not installed (apt-get install -y wrk)"
require_jars "$PROXY_JAR"
[[ $AGENTS_BY == nginx || $AGENTS_BY == stub ]] || die "AGENTS_BY must be nginx or stub, was '$AGENTS_BY'"
[[ $AGENTS_BY != stub ]] || require_jars "$AGENT_JAR"
n=0
for strategy in $STRATEGIES; do n=$((n + 1)); done
((n <= 40)) || die "at most 40 strategies"
[[ $HEAP_INFO == "" || $HEAP_INFO == 0 || $HEAP_INFO == 1 ]] || die "HEAP_INFO must be 0 or 1, was '$HEAP_INFO'"
require_free_ports "${AGENT_PORTS[@]}" $NGINX_PORT $HAPROXY_PORT $(seq $BASE_PORT $((BASE_PORT + n - 1))) \
    $(seq $((BASE_PORT + 40)) $((BASE_PORT + 40 + n - 1)))
WRK_ARGS=()
if [[ -n ${BODY_FILE:-} ]]; then
    [[ -r $BODY_FILE ]] || die "BODY_FILE $BODY_FILE is not a readable file"
    printf 'local f = io.open("%s", "rb")\nwrk.body = f:read("*a")\nf:close()\nwrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n' \
        "$(realpath "$BODY_FILE")" >"$WORK/body.lua"
    WRK_ARGS=(-s "$WORK/body.lua")
fi

# wrk with $1 connections at $2 for $3 s; sets RPS, P50_MS, P99_MS, ERRORS.
measure() {
    local out threads=$THREADS
    ((threads <= $1)) || threads=$1
    out=$(wrk -t"$threads" -c"$1" -d"${3}s" --latency "${WRK_ARGS[@]}" "$2")
    RPS=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' <<<"$out")
    P50_MS=$(awk '$1 == "50%" {print ms($2)} function ms(v) {
        if (v ~ /us$/) return sprintf("%.3f", v / 1000); if (v ~ /ms$/) return sprintf("%.3f", v + 0);
        if (v ~ /s$/) return sprintf("%.3f", v * 1000); return v }' <<<"$out")
    P99_MS=$(awk '$1 == "99%" {print ms($2)} function ms(v) {
        if (v ~ /us$/) return sprintf("%.3f", v / 1000); if (v ~ /ms$/) return sprintf("%.3f", v + 0);
        if (v ~ /s$/) return sprintf("%.3f", v * 1000); return v }' <<<"$out")
    ERRORS=$(awk '/Non-2xx|Socket errors/ {sub(/^ +/, ""); gsub(/ +/, " "); printf "%s; ", $0}' <<<"$out")
    REQUESTS=$(awk '/ requests in / {print $1}' <<<"$out")
}

# CPU time the process $1 has used, in clock ticks (user + system, /proc/<pid>/stat).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Second-by-second req/s from $2 (epoch ms of the JVM launch) for RAMP_S s; prints when 90% of
# the last third's mean was first reached, after the launch and after the first answer ($4, ms
# after the launch).
ramp() {
    local url=$1 launched=$2 series=$WORK/ramp-$3.txt first=${4:-0} t rps c=${CONNECTIONS%% *} threads=$THREADS
    ((threads <= c)) || threads=$c
    : >"$series"
    while true; do
        t=$(( $(date +%s%3N) - launched ))
        ((t < RAMP_S * 1000)) || break
        rps=$(wrk -t"$threads" -c"$c" -d1s "${WRK_ARGS[@]}" "$url" | awk '/^Requests\/sec:/ {printf "%.0f", $2}')
        echo "$t ${rps:-0}" >>"$series"
    done
    awk -v name="$3" -v first="$first" '{t[NR] = $1; r[NR] = $2} END {
        if (NR < 3) { printf "ramp %s: only %d slice(s) before RAMP_S ran out: set a longer RAMP_S\n", name, NR; exit }
        from = int(NR * 2 / 3) + 1; n = 0; s = 0
        for (i = from; i <= NR; i++) { s += r[i]; n++ }
        steady = s / n
        for (i = 1; i <= NR; i++) if (r[i] >= 0.9 * steady) { hit = t[i]; break }
        printf "ramp %s: steady %.0f req/s (mean of the last %d s); 90%% first reached in the 1-s slice starting %.1f s after JVM launch, %.1f s after its first answer\n",
            name, steady, n, hit / 1000, (hit - first) / 1000 }' "$series"
}

echo "proxy-vs-nginx: agents by $AGENTS_BY on ${AGENT_PORTS[*]}; wrk -t$THREADS -c{$CONNECTIONS} and -t1 -c1, $DURATION_S s each, $ROUNDS rounds; proxy warm-up ${WARMUP_S}s; $TARGET${BODY_FILE:+; POST of $BODY_FILE ($(wc -c <"$BODY_FILE") bytes)}; balancer knobs: $(env | grep '^BALANCER_' | tr '\n' ' ')"
echo "proxy JVM options: ${PROXY_JAVA_OPTS:-(none)}; $(nproc) cores; load average $(load)"

if [[ $AGENTS_BY == nginx ]]; then
    mkdir -p "$WORK/agents/logs"
    {
        echo "worker_processes $AGENT_WORKERS;"
        echo "pid $WORK/agents/nginx.pid;"
        echo "error_log $WORK/agents/logs/error.log warn;"
        echo "events { worker_connections 4096; }"
        echo "http { access_log off; default_type application/json;"
        i=0
        for port in "${AGENT_PORTS[@]}"; do
            i=$((i + 1))
            echo "  server { listen 127.0.0.1:$port; keepalive_requests 1000000;"
            echo "    location /process/ { return 200 '{\"agent\":\"A$i\",\"req_id\":\"r1\",\"user_id\":\"7\"}'; }"
            echo "    location = /health { return 200 '{\"status\":\"UP\"}'; } }"
        done
        echo "}"
    } >"$WORK/agents/nginx.conf"
    env -u NGINX nginx -p "$WORK/agents" -c "$WORK/agents/nginx.conf" -g 'daemon off;' &
    PIDS+=($!)
    for port in "${AGENT_PORTS[@]}"; do
        await "http://127.0.0.1:$port/health" 20
    done
else
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
            wrk -t1 -c4 -d"${AGENT_WARMUP_S}s" "${WRK_ARGS[@]}" "http://127.0.0.1:$port$TARGET" >/dev/null &
            warmers+=($!)
        done
        wait "${warmers[@]}"
    fi
fi
AGENTS=$(printf 'http://127.0.0.1:%s,' "${AGENT_PORTS[@]}")
AGENTS=${AGENTS%,}

NAMES=(direct)
URLS=("http://127.0.0.1:${AGENT_PORTS[0]}$TARGET")
PROXY_PIDS=()
i=0
for strategy in $STRATEGIES; do
    port=$((BASE_PORT + i))
    launched=$(date +%s%3N)
    # shellcheck disable=SC2086
    STRATEGY=$strategy PORT=$port AGENTS=$AGENTS MANAGEMENT_PORT=$((BASE_PORT + 40 + i)) \
        java $PROXY_JAVA_OPTS -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" \
        >"$WORK/proxy-$strategy-$i.log" 2>&1 &
    PIDS+=($!)
    PROXY_PIDS[$((i + 1))]=$!
    url="http://127.0.0.1:$port$TARGET"
    deadline=$((SECONDS + 60))
    until curl -fsS -o /dev/null --max-time 5 "$url" 2>/dev/null; do
        kill -0 "${PROXY_PIDS[$((i + 1))]}" 2>/dev/null \
            || die "the $strategy proxy exited at start: $(tail -3 "$WORK/proxy-$strategy-$i.log" | tr '\n' ' ')"
        ((SECONDS < deadline)) || die "the $strategy proxy did not answer $url within 60 s (log: $WORK/proxy-$strategy-$i.log)"
        sleep 0.1
    done
    answered=$(date +%s%3N)
    echo "$strategy: answering $((answered - launched)) ms after JVM launch; warming up (load average $(load))"
    # The serving JVM, for jcmd (the jar may restart its JVM: jvm_pid); the launcher stays in PIDS.
    PROXY_PIDS[$((i + 1))]=$(jvm_pid "${PROXY_PIDS[$((i + 1))]}")
    if ((RAMP_S > 0)); then
        ramp "$url" "$launched" "$strategy" "$((answered - launched))"
    fi
    measure "${CONNECTIONS%% *}" "$url" "$WARMUP_S"
    name=$strategy
    [[ " ${NAMES[*]} " == *" $name "* ]] && name=$strategy#$((i + 1))   # the same strategy again: its own row
    NAMES+=("$name")
    URLS+=("$url")
    i=$((i + 1))
done

# Adds the balancer just started in the background ($!) as target $1, once it answers on port $2.
add_balancer() {
    PIDS+=($!)
    await "http://127.0.0.1:$2$TARGET" 20
    NAMES+=("$1")
    URLS+=("http://127.0.0.1:$2$TARGET")
}

if [[ $NGINX == 0 ]]; then
    echo "nginx left out (NGINX=0)"
elif command -v nginx >/dev/null; then
    nginx_conf_head "$WORK/nginx/nginx.conf" "" "${AGENT_PORTS[@]}"
    cat >>"$WORK/nginx/nginx.conf" <<CONF
    server {
        listen 127.0.0.1:$NGINX_PORT;
        keepalive_requests 1000000;
        location /process/ {
            proxy_pass http://agents;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
CONF
    env -u NGINX nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
    add_balancer nginx "$NGINX_PORT"
else
    echo "nginx is not installed: left out (apt-get install -y nginx-light)"
fi

if [[ $HAPROXY == 0 ]]; then
    echo "HAProxy left out (HAPROXY=0)"
elif command -v haproxy >/dev/null; then
    cat >"$WORK/haproxy.cfg" <<CONF
global
    nbthread 2
defaults
    mode http
    option http-keep-alive
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend proxy
    bind 127.0.0.1:$HAPROXY_PORT
    default_backend agents
backend agents
    balance roundrobin
    http-reuse always
    server a1 127.0.0.1:${AGENT_PORTS[0]}
    server a2 127.0.0.1:${AGENT_PORTS[1]}
    server a3 127.0.0.1:${AGENT_PORTS[2]}
CONF
    haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
    add_balancer haproxy "$HAPROXY_PORT"
else
    echo "HAProxy is not installed: left out (apt-get install -y haproxy)"
fi

# nginx and HAProxy need no JIT; they get a short warm-up so that every target starts a round warm.
for t in "${!NAMES[@]}"; do
    [[ ${NAMES[$t]} == nginx || ${NAMES[$t]} == haproxy || ${NAMES[$t]} == direct ]] && measure 10 "${URLS[$t]}" 3
done

if [[ -n $JFR_DIR ]]; then
    mkdir -p "$JFR_DIR"
    for t in "${!NAMES[@]}"; do
        [[ -n ${PROXY_PIDS[$t]:-} ]] && jcmd "${PROXY_PIDS[$t]}" JFR.start name=bench settings=profile >/dev/null
    done
fi

ROWS=$WORK/rows.txt
MEASURED="$CONNECTIONS 1"   # throughput at each of CONNECTIONS, then one request at a time
[[ " $CONNECTIONS " == *" 1 "* ]] && MEASURED=$CONNECTIONS
HEAP_PIDS=()
: >"$ROWS"
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round of $ROUNDS (load average $(load))"
    for t in "${!NAMES[@]}"; do
        name=${NAMES[$t]}
        for c in $MEASURED; do
            if [[ $HEAP_INFO == 1 && $round == 1 && -n ${PROXY_PIDS[$t]:-} && $c == "${CONNECTIONS%% *}" ]]; then
                pid=${PROXY_PIDS[$t]}
                (sleep $((DURATION_S / 2)); jcmd "$pid" GC.run >/dev/null
                 jcmd "$pid" GC.heap_info | awk -v s="$name" -v c="$c" \
                     '/garbage-first heap/ {gsub(",", ""); print s ": heap in use after a full GC under load (" c " connections): " $6 " of " $4}'
                ) >"$WORK/heap-$name.txt" &
                HEAP_PIDS+=($!)
            fi
            pid=${PROXY_PIDS[$t]:-}
            [[ -n $pid ]] && ticks=$(cpu_ticks "$pid")
            measure "$c" "${URLS[$t]}" "$DURATION_S"
            CPU_US=-
            [[ -n $pid && ${REQUESTS:-0} -gt 0 ]] \
                && CPU_US=$(awk -v t=$(($(cpu_ticks "$pid") - ticks)) -v hz="$(getconf CLK_TCK)" -v n="$REQUESTS" \
                    'BEGIN {printf "%.1f", t * 1e6 / hz / n}')
            echo "$name|$c|$round|$RPS|$P50_MS|$P99_MS|$ERRORS|$CPU_US" >>"$ROWS"
            printf '  %-9s c=%-4s %8s req/s  p50 %7s ms  p99 %7s ms  proxy CPU %5s us/req  %s\n' \
                "$name" "$c" "$RPS" "$P50_MS" "$P99_MS" "$CPU_US" "$ERRORS"
        done
    done
done
if [[ $HEAP_INFO == 1 ]]; then
    ((${#HEAP_PIDS[@]} == 0)) || wait "${HEAP_PIDS[@]}"
    cat "$WORK"/heap-*.txt 2>/dev/null || true
fi

if [[ -n $JFR_DIR ]]; then
    for t in "${!NAMES[@]}"; do
        [[ -n ${PROXY_PIDS[$t]:-} ]] && jcmd "${PROXY_PIDS[$t]}" JFR.stop name=bench filename="$JFR_DIR/${NAMES[$t]}.jfr" >/dev/null
    done
    echo "JFR recordings in $JFR_DIR"
fi

echo
echo "Medians of $ROUNDS round(s); load average at the end $(load)"
for c in $CONNECTIONS; do
    echo
    echo "$c connections:"
    echo "| target | req/s | p50 ms | p99 ms | x nginx | x camel-rr | proxy CPU us/req | errors |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    awk -F'|' -v c="$c" -v order="${NAMES[*]}" '
        function median(list,   n, a, i, j, t) {
            n = split(list, a, " ")
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        $2 == c { rps[$1] = rps[$1] " " $4; p50[$1] = p50[$1] " " $5; p99[$1] = p99[$1] " " $6; if ($7 != "") err[$1] = err[$1] $7
                  if ($8 != "-") cpu[$1] = cpu[$1] " " $8 }
        END {
            nginx = ("nginx" in rps) ? median(rps["nginx"]) : 0; camel = ("camel-rr" in rps) ? median(rps["camel-rr"]) : 0
            n = split(order, names, " ")
            for (i = 1; i <= n; i++) { name = names[i]; r = median(rps[name])
                xn = nginx > 0 ? sprintf("%.2f", r / nginx) : "-"; xc = camel > 0 ? sprintf("%.2f", r / camel) : "-"
                e = (name in err) ? err[name] : "0"; u = (name in cpu) ? sprintf("%.1f", median(cpu[name])) : "-"
                printf "| %s | %.0f | %.2f | %.2f | %s | %s | %s | %s |\n", name, r, median(p50[name]), median(p99[name]), xn, xc, u, e } }' "$ROWS"
done
echo
echo "One connection (one request at a time, below saturation): p50 added over going direct"
echo "| target | p50 ms | p99 ms | p50 added ms |"
echo "|---|---:|---:|---:|"
awk -F'|' -v order="${NAMES[*]}" '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    $2 == 1 { p50[$1] = p50[$1] " " $5; p99[$1] = p99[$1] " " $6 }
    END {
        direct = median(p50["direct"]); n = split(order, names, " ")
        for (i = 1; i <= n; i++) { name = names[i]
            added = name == "direct" ? "-" : sprintf("%.3f", median(p50[name]) - direct)
            printf "| %s | %.3f | %.3f | %s |\n", name, median(p50[name]), median(p99[name]), added } }' "$ROWS"
echo "logs: $WORK"
