#!/usr/bin/env bash
# The load generator's LLM conversations (the agents scenario) through the demo proxy beside nginx,
# in one run. Prints one table: per target the time to first token p50/p99, the prompt-cache hit
# rate read from the answers' usage, errors and MCP session stickiness, with the load average at
# start and end. Asserts nothing (the tests do). All on 127.0.0.1, ports BASE_PORT..BASE_PORT+99.
#
#   agents   8 stub agent JVMs with the in-process scenario's LLM settings (prefix cache, prefill
#            cost, running limit, minted MCP sessions), one per line printed by
#            `java -cp load-generator.jar io.github.agentlb.loadgen.agents.AgentsStubEnv`.
#            RESTARTED before every target, so each starts with empty caches.
#   targets  ch-keys-kept     demo proxy, STRATEGY=ch, BALANCER_KEYS=session,prompt,user_id, balance
#                             factor 1.25, in-flight factor 1.25 placing each conversation once
#                             (the scenario's keys-inflight-kept), learned sessions
#                             (BALANCER_SESSION_SECRET)
#            rr               demo proxy, round-robin, learned sessions too
#            nginx-least_conn nginx upstream least_conn
#            nginx-hash       nginx upstream hash $http_mcp_session_id$arg_user_id consistent
#   load     `load-generator.jar --scenario agents --url <target> --strategy <label>`: the
#            scenario's seeded conversations (48 of 20 turns, 24 in flight), streamed with
#            stream_options.include_usage;
#            hit rate = sum of cached_tokens / sum of prompt_tokens of the answers.
#   warm-up  WARMUP short streamed chat requests through each target first, not counted; their
#            prompts are shorter than a cache block, so the caches stay empty.
#
# Needs java 17, python3, curl, the jars (mvn -q -B package -DskipTests), optionally nginx
# (apt-get install -y nginx-light). Knobs (environment): WARMUP (200), SEED (42, the load
# generator's), PROXY_JAVA_OPTS (none), NGINX (1), BASE_PORT (19400).
set -euo pipefail

NAME=agents-vs-nginx
source "$(dirname "$0")/lib.sh"
WARMUP=${WARMUP:-200}
SEED=${SEED:-42}
PROXY_JAVA_OPTS=${PROXY_JAVA_OPTS:-}
NGINX=${NGINX:-1}
BASE_PORT=${BASE_PORT:-19400}
require_whole_numbers WARMUP SEED BASE_PORT

PROXY_PORT=$BASE_PORT
MANAGEMENT_PORT=$((BASE_PORT + 76))
# One port per agent of the in-process scenario (AgentsStubEnv prints them), from BASE_PORT + 81.
AGENT_PORTS=()
NGINX_PORT=$((BASE_PORT + 90))
SECRET=agents-vs-nginx-session-secret
WORK=$(mktemp -d /tmp/agents-vs-nginx.XXXXXX)
chmod 755 "$WORK"  # nginx workers (not root) write their temp files below it
AGENT_PIDS=()
TARGET_PID=

stop_agents() {
    for pid in "${AGENT_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${AGENT_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    AGENT_PIDS=()
}

stop_target() {
    if [[ -n $TARGET_PID ]]; then
        kill "$TARGET_PID" 2>/dev/null || true
        wait "$TARGET_PID" 2>/dev/null || true
        TARGET_PID=
    fi
    if [[ -f $WORK/nginx/nginx.pid ]]; then
        kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
        for _ in $(seq 50); do
            [[ -f $WORK/nginx/nginx.pid ]] || break
            sleep 0.1
        done
    fi
}

cleanup() {
    stop_target
    stop_agents
}
trap cleanup EXIT


require_jars "$AGENT_JAR" "$PROXY_JAR" "$LOADGEN_JAR"
mapfile -t AGENT_ENV < <(java -cp "$LOADGEN_JAR" io.github.agentlb.loadgen.agents.AgentsStubEnv "$SEED")
((${#AGENT_ENV[@]} >= 1 && ${#AGENT_ENV[@]} <= 8)) || die "expected 1-8 agents from AgentsStubEnv, got ${#AGENT_ENV[@]}"
for i in "${!AGENT_ENV[@]}"; do
    AGENT_PORTS+=($((BASE_PORT + 81 + i)))
done
require_free_ports $PROXY_PORT $MANAGEMENT_PORT $NGINX_PORT "${AGENT_PORTS[@]}"


AGENTS=
for i in "${!AGENT_PORTS[@]}"; do
    AGENTS+="A$((i + 1))=http://127.0.0.1:${AGENT_PORTS[$i]},"
done
AGENTS=${AGENTS%,}

start_agents() {
    stop_agents
    for i in "${!AGENT_PORTS[@]}"; do
        # shellcheck disable=SC2086
        env ${AGENT_ENV[$i]} PORT=${AGENT_PORTS[$i]} HOST=127.0.0.1 \
            java -Xmx256m -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$AGENT_JAR" >>"$WORK/agent-A$((i + 1)).log" 2>&1 &
        AGENT_PIDS+=($!)
    done
    for port in "${AGENT_PORTS[@]}"; do
        await "http://127.0.0.1:$port/health" 60
    done
}

start_proxy() { # label, then extra environment
    local label=$1
    shift
    # shellcheck disable=SC2086
    env "$@" HOST=127.0.0.1 PORT=$PROXY_PORT AGENTS=$AGENTS MANAGEMENT_PORT=$MANAGEMENT_PORT \
        BALANCER_SESSION_SECRET=$SECRET \
        java $PROXY_JAVA_OPTS -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" >"$WORK/proxy-$label.log" 2>&1 &
    TARGET_PID=$!
    await "http://127.0.0.1:$PROXY_PORT/process/w?user_id=1" 60
}

start_nginx() { # label, upstream balancing line
    nginx_conf_head "$WORK/nginx/nginx-$1.conf" "$2" "${AGENT_PORTS[@]}"
    cat >>"$WORK/nginx/nginx-$1.conf" <<CONF
    server {
        listen 127.0.0.1:$NGINX_PORT;
        client_max_body_size 16m;
        location / {
            proxy_pass http://agents;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
        }
    }
}
CONF
    nginx -c "$WORK/nginx/nginx-$1.conf" -p "$WORK/nginx"
    await "http://127.0.0.1:$NGINX_PORT/process/w?user_id=1" 10
}

warm_up() { # base URL
    local body='{"model":"stub-llm","messages":[{"role":"user","content":"hi"}],"max_tokens":8,"stream":true}'
    seq "$WARMUP" | xargs -P 8 -I{} curl -s -o /dev/null --max-time 10 -H 'Content-Type: application/json' \
        -d "$body" "$1/v1/chat/completions?user_id=w{}" || true
}

ROWS=()
run_target() { # label, base URL
    local label=$1 url=$2 rc=0
    warm_up "$url"
    echo "== $label: $WARMUP warm-up requests done, load $(load); conversations to $url"
    java -jar "$LOADGEN_JAR" --scenario agents --url "$url" --strategy "$label" --seed "$SEED" \
        --out "$WORK/results" >"$WORK/loadgen-$label.log" 2>&1 || rc=$?
    grep -E '^== agents' "$WORK/loadgen-$label.log" || true
    if [[ ! -f $WORK/results/report-agents-$label.json ]]; then
        tail -20 "$WORK/loadgen-$label.log"
        die "$label: the load generator wrote no report (exit code $rc)"
    fi
    ROWS+=("$label")
}

LOAD_START=$(load)
echo "agents-vs-nginx: $(nproc) cores, load average $LOAD_START; proxy JVM options: ${PROXY_JAVA_OPTS:-(none)}"
echo "agents (as the in-process agents scenario, AgentsScenario.Settings.ofDefaults(), restarted before each target):"
printf '  %s\n' "${AGENT_ENV[@]}"

start_agents
start_proxy ch-keys-kept STRATEGY=ch BALANCER_KEYS=session,prompt,user_id BALANCER_BALANCE_FACTOR=1.25 \
    BALANCER_IN_FLIGHT_FACTOR=1.25 BALANCER_KEEP_IN_FLIGHT_PLACEMENT=true
run_target ch-keys-kept "http://127.0.0.1:$PROXY_PORT"
stop_target

start_agents
start_proxy rr STRATEGY=rr
run_target rr "http://127.0.0.1:$PROXY_PORT"
stop_target

if [[ $NGINX == 1 ]] && command -v nginx >/dev/null; then
    echo "nginx $(nginx -v 2>&1 | sed 's/.*\///'): upstream keep-alive, proxy_buffering off (streams pass as they come)"
    start_agents
    start_nginx least_conn "least_conn;"
    run_target nginx-least_conn "http://127.0.0.1:$NGINX_PORT"
    stop_target

    echo "nginx-hash: hash \$http_mcp_session_id\$arg_user_id consistent. Hashing on the session header alone"
    echo "  would send every request without one (two thirds of the conversations, and every first turn) to a"
    echo "  single agent; with user_id appended a conversation's first turn (no session yet) and its later"
    echo "  turns (session + user_id) hash to different keys, so an MCP-style conversation stays on the agent"
    echo "  that minted its session only when both keys land on it; elsewhere that agent's 404 answers it."
    start_agents
    start_nginx hash "hash \$http_mcp_session_id\$arg_user_id consistent;"
    run_target nginx-hash "http://127.0.0.1:$NGINX_PORT"
    stop_target
else
    echo "nginx absent (not installed, or NGINX=0): its rows are left out"
fi
stop_agents
LOAD_END=$(load)

echo
echo "LLM conversations (agents scenario, seed $SEED) beside nginx; load average $LOAD_START at start, $LOAD_END at end ($(nproc) cores)"
python3 - "$WORK/results" "${ROWS[@]}" <<'PY'
import json, sys
out, labels = sys.argv[1], sys.argv[2:]
print("| target | requests | ttft p50 ms | ttft p99 ms | hit rate (usage) | errors | MCP stickiness | answers per agent |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for label in labels:
    r = json.load(open(f"{out}/report-agents-{label}.json"))
    f = r["figures"]
    ms = lambda v: "n/a" if v is None else f"{v:.1f}"
    errors = str(r["client_errors"])
    if r["client_errors"]:
        errors += " (" + ", ".join(("no answer" if s == "0" else "HTTP " + s) + f" x {n}"
                                   for s, n in r["error_statuses"].items())
        errors += (f", {r['timeouts']} timeouts" if r["timeouts"] else "") + ")"
    answered = " ".join(f"{a}:{v['count']}" for a, v in r["agents"].items())
    print(f"| {label} | {r['requests']} | {ms(f['ttft_p50_ms'])} | {ms(f['ttft_p99_ms'])} | {f['hit_rate']:.3f} | {errors} "
          f"| {f['mcp_stickiness']:.3f} | {answered} |")
PY
echo "Logs and JSON reports in $WORK"
