#!/usr/bin/env bash
# What a proxy replica sends an agent that another replica keeps busy: three stub agents with
# MAX_RUNNING=2; proxy 1 (rr, A1 alone) floods A1 with long answers from 10 clients, so that about
# 8 requests wait there, seconds each; proxies 2 and 3 run docs/llm-agents.md's set-up for LLM
# agents (ch, balance factor 1.25, in-flight factor 1.25, kept placement) over A1-A3 and take short
# requests from 8 clients each for 13.5 s; proxy 2 asks for ORCA load reports (TEXT) with the
# saturation staleness STALENESS, proxy 3 asks for none. Prints each one's answers per agent:
# the requests its clients sent to A1's queue, and how many it answered in all.
#
# Needs java 17, curl, python3, the jars (mvn -q -B package -DskipTests). A count, not a speed; all
# on 127.0.0.1, ports BASE_PORT..BASE_PORT+9. Knobs (environment): STALENESS (200ms, the default;
# 10s shows the difference), BASE_PORT (19600).
set -euo pipefail

NAME=saturated-agent-replicas
source "$(dirname "$0")/lib.sh"
STALENESS=${STALENESS:-200ms}
BASE_PORT=${BASE_PORT:-19600}
require_whole_numbers BASE_PORT
AGENT_PORTS=($((BASE_PORT + 1)) $((BASE_PORT + 2)) $((BASE_PORT + 3)))
PROXY_PORTS=($((BASE_PORT + 4)) $((BASE_PORT + 5)) $((BASE_PORT + 6)))
MANAGEMENT_PORTS=($((BASE_PORT + 7)) $((BASE_PORT + 8)) $((BASE_PORT + 9)))
start_work
require_jars "$AGENT_JAR" "$PROXY_JAR"
require_free_ports "${AGENT_PORTS[@]}" "${PROXY_PORTS[@]}" "${MANAGEMENT_PORTS[@]}"

for i in 1 2 3; do
    AGENT_ID=A$i PORT=${AGENT_PORTS[$((i - 1))]} HOST=127.0.0.1 FIRST_TOKEN_MS=50 TOKENS_PER_SECOND=200 \
        ANSWER_TOKENS=5 MAX_RUNNING=2 MAX_QUEUE=50 java -Xmx96m -XX:TieredStopAtLevel=1 \
        -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$AGENT_JAR" >"$WORK/agent-A$i.log" 2>&1 &
    PIDS+=($!)
done
AGENTS=$(for i in 1 2 3; do printf 'A%s=http://127.0.0.1:%s,' $i "${AGENT_PORTS[$((i - 1))]}"; done)
LLM_SETUP="STRATEGY=ch BALANCE_FACTOR=1.25 BALANCER_IN_FLIGHT_FACTOR=1.25 BALANCER_KEEP_IN_FLIGHT_PLACEMENT=true SLOW_START_MS=0"
proxy() { # index, then its environment
    local i=$1
    shift
    env HOST=127.0.0.1 PORT=${PROXY_PORTS[$i]} MANAGEMENT_PORT=${MANAGEMENT_PORTS[$i]} PROXY_RELAUNCH=0 "$@" \
        java -Xmx192m -Dlog4j2.configurationFile="$LOG_CONFIG" -jar "$PROXY_JAR" >"$WORK/proxy-$((i + 1)).log" 2>&1 &
    PIDS+=($!)
}
proxy 0 AGENTS=A1=http://127.0.0.1:${AGENT_PORTS[0]} STRATEGY=rr
proxy 1 AGENTS=${AGENTS%,} $LLM_SETUP BALANCER_LOAD_REPORT_FORMAT=TEXT BALANCER_SATURATION_STALENESS=$STALENESS
proxy 2 AGENTS=${AGENTS%,} $LLM_SETUP
for port in "${AGENT_PORTS[@]}"; do
    await "http://127.0.0.1:$port/health" 60
done
for port in "${PROXY_PORTS[@]}"; do
    await "http://127.0.0.1:$port/process/w?user_id=1" 60
done

echo "$NAME: proxy 2 with reports and saturationStaleness=$STALENESS, proxy 3 without reports [load $(load)]"
python3 - "${PROXY_PORTS[@]}" <<'PY'
import collections, json, random, sys, threading, time, urllib.error, urllib.request
flooded, reported, unreported = (int(p) for p in sys.argv[1:4])
def chat(port, tokens):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "q"}], "max_tokens": tokens}).encode()
    request = urllib.request.Request("http://127.0.0.1:%d/v1/chat/completions" % port, body,
                                     {"Content-Type": "application/json", "user_id": str(random.randrange(1000))})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())["id"].split("-")[1]
    except urllib.error.HTTPError as e:
        return "HTTP %d" % e.code
end = time.time() + 16
counts = {reported: collections.Counter(), unreported: collections.Counter()}
def flood():
    while time.time() < end:
        chat(flooded, 400)
def client(port):
    while time.time() < end - 1:
        counts[port][chat(port, 5)] += 1
threads = [threading.Thread(target=flood) for _ in range(10)]
[t.start() for t in threads]
time.sleep(1.5)
clients = [threading.Thread(target=client, args=(p,)) for p in counts for _ in range(8)]
[t.start() for t in clients]
[t.join() for t in clients + threads]
for port, label in ((reported, "proxy 2 (reports)"), (unreported, "proxy 3 (no reports)")):
    c = counts[port]
    print("%s: %d answers, by agent %s" % (label, sum(c.values()), dict(sorted(c.items()))))
PY
echo "[load $(load)]"
