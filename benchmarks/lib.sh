# Shell helpers shared by the benchmark scripts; source it after setting NAME (the script's name
# in messages); it sets ROOT (the checkout). Needs bash and curl.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# What the scripts run: the jars (mvn -q -B package -DskipTests) and the proxies' log configuration.
AGENT_JAR=$ROOT/agent-stub/target/agent-stub.jar
PROXY_JAR=$ROOT/demo-routes/target/demo-routes.jar
LOADGEN_JAR=$ROOT/load-generator/target/load-generator.jar
LOG_CONFIG=$ROOT/benchmarks/proxy-log4j2.properties

die() { echo "$NAME: $*" >&2; exit 1; }

# Fails unless every jar given exists (they come with mvn -q -B package -DskipTests).
require_jars() {
    local jar
    for jar in "$@"; do
        [[ -f $jar ]] || die "build the jars first: mvn -q -B package -DskipTests"
    done
}

# Stops every process whose pid the script put in the array PIDS, and the script's other children
# (a warm-up's wrk, a client), and waits for them (trap it on EXIT).
stop_started() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    pkill -P $$ 2>/dev/null || true
    wait 2>/dev/null || true
}

# Makes the script's work directory WORK (/tmp/$NAME.XXXXXX, kept for its logs) and the empty
# array PIDS, and stops what PIDS holds when the script exits.
start_work() {
    WORK=$(mktemp -d "/tmp/$NAME.XXXXXX")
    PIDS=()
    trap stop_started EXIT
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

# The proxy JVM of the process $1 started by `java -jar demo-routes.jar`: the jar restarts its JVM
# with its own options on a small machine (ProxyLauncher), so the JVM that serves is then $1's
# child (stopping $1 stops it); else $1 itself. Call it once the proxy answers.
jvm_pid() {
    local child
    child=$(pgrep -P "$1" -x java | head -1)
    echo "${child:-$1}"
}

# Fails unless every port given is free on 127.0.0.1.
require_free_ports() {
    local port
    for port in "$@"; do
        ((port <= 65535)) || die "port $port is past 65535: set BASE_PORT"
        if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
            die "port $port on 127.0.0.1 is in use: set BASE_PORT"
        fi
    done
}

# Fails unless each variable named is a whole number (digits only), naming it and its value.
require_whole_numbers() {
    local name
    for name in "$@"; do
        [[ ${!name} =~ ^[0-9]+$ ]] || die "$name must be a whole number, was '${!name}'"
    done
}

# Waits until GET $1 answers 2xx, at most $2 s; fails at once when a process in PIDS has ended
# meanwhile (a JVM that did not start: its log is in WORK).
await() {
    local deadline=$((SECONDS + $2)) pid
    until curl -fsS -o /dev/null --max-time 5 "$1" 2>/dev/null; do
        ((SECONDS < deadline)) || die "$1 did not answer within $2 s"
        for pid in "${PIDS[@]}"; do
            kill -0 "$pid" 2>/dev/null || die "process $pid ended before $1 answered: see its log in $WORK"
        done
        sleep 0.1
    done
}

# Writes the start of an nginx configuration to the file $1 in $WORK/nginx (made here): one worker
# per core, no access log, and "upstream agents" over 127.0.0.1 at the ports given after its
# balancing line ($2, may be empty) with 64 idle keep-alive connections. The caller appends its
# server blocks and the closing "}" of the http block.
nginx_conf_head() {
    local file=$1 balancing=$2 port
    shift 2
    mkdir -p "$WORK/nginx/logs"
    {
        cat <<CONF
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    upstream agents {
CONF
        [[ -z $balancing ]] || echo "        $balancing"
        for port in "$@"; do
            echo "        server 127.0.0.1:$port;"
        done
        echo "        keepalive 64;"
        echo "    }"
    } >"$file"
}
