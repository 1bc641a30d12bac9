#!/usr/bin/env bash
# Which of the project's classes one streamed chat completion runs through in the demo proxy:
# three stub agents, the proxy started with a debug port, then benchmarks/ClassesPerRequest.java
# (JDI) sends POST /v1/chat/completions with "stream": true once untraced and once traced, and
# prints each of our classes that ran with its count of method entries and its threads (classes
# that ran only on background threads, the health probes' and timers, apart). A count, not a speed:
# any load will do. All on 127.0.0.1, ports BASE_PORT..BASE_PORT+9.
#
# Needs java 17 (a JDK: module jdk.jdi), curl, the jars (mvn -q -B package -DskipTests).
# Knobs (environment): STRATEGY (rr), KEYS (empty: the demo's default), BASE_PORT (19300).
set -euo pipefail

NAME=classes-per-request
source "$(dirname "$0")/lib.sh"
STRATEGY=${STRATEGY:-rr}
KEYS=${KEYS:-}
BASE_PORT=${BASE_PORT:-19300}
require_whole_numbers BASE_PORT
PROXY_PORT=$BASE_PORT
MANAGEMENT_PORT=$((BASE_PORT + 1))
DEBUG_PORT=$((BASE_PORT + 2))
AGENT_PORTS=($((BASE_PORT + 3)) $((BASE_PORT + 4)) $((BASE_PORT + 5)))
start_work
require_jars "$AGENT_JAR" "$PROXY_JAR"
require_free_ports $PROXY_PORT $MANAGEMENT_PORT $DEBUG_PORT "${AGENT_PORTS[@]}"

i=0
for port in "${AGENT_PORTS[@]}"; do
    i=$((i + 1))
    AGENT_ID=A$i PORT=$port HOST=127.0.0.1 FIRST_TOKEN_MS=0 TOKENS_PER_SECOND=200 ANSWER_TOKENS=5 \
        java -Xmx256m -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$AGENT_JAR" >"$WORK/agent-A$i.log" 2>&1 &
    PIDS+=($!)
done
AGENTS=$(printf 'http://127.0.0.1:%s,' "${AGENT_PORTS[@]}")
HOST=127.0.0.1 STRATEGY=$STRATEGY PORT=$PROXY_PORT AGENTS=${AGENTS%,} MANAGEMENT_PORT=$MANAGEMENT_PORT \
    ${KEYS:+BALANCER_KEYS=$KEYS} \
    java -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:$DEBUG_PORT \
    -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" >"$WORK/proxy.log" 2>&1 &
PIDS+=($!)
for port in "${AGENT_PORTS[@]}"; do
    await "http://127.0.0.1:$port/health" 60
done
await "http://127.0.0.1:$PROXY_PORT/process/w?user_id=1" 60

echo "$NAME: strategy $STRATEGY${KEYS:+, keys $KEYS} [load $(load)]"
java "$ROOT/benchmarks/ClassesPerRequest.java" "$DEBUG_PORT" "http://127.0.0.1:$PROXY_PORT/v1/chat/completions" \
    '{"model":"stub","stream":true,"user":"u1","messages":[{"role":"user","content":"Say hello."}]}'
