# Shell helpers shared by the benchmark scripts; source it after setting NAME (the script's name
# in messages). Needs bash and curl.

die() { echo "$NAME: $*" >&2; exit 1; }

load() { cut -d' ' -f1-3 /proc/loadavg; }

# Fails unless every port given is free on 127.0.0.1.
require_free_ports() {
    local port
    for port in "$@"; do
        if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
            die "port $port on 127.0.0.1 is in use: set BASE_PORT"
        fi
    done
}

# Waits until GET $1 answers 2xx, at most $2 s.
await() {
    local deadline=$((SECONDS + $2))
    until curl -fsS -o /dev/null --max-time 5 "$1" 2>/dev/null; do
        ((SECONDS < deadline)) || die "$1 did not answer within $2 s"
        sleep 0.1
    done
}
