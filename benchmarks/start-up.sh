#!/usr/bin/env bash
# How soon a new demo proxy serves at full speed: LAUNCHES launches of the proxy jar as shipped
# (java -jar, PROXY_JAVA_OPTS added), each measured by proxy-vs-nginx.sh's RAMP_S (req/s in 1-s
# slices of wrk -c10 from the first answer until RAMP_S s after the JVM's launch; "steady" is the mean of the last third of
# the slices), then the median over the launches of the time to 90% of steady throughput, from the
# first answer and from the JVM's launch, and of the steady req/s. nginx-served agents as in
# proxy-vs-nginx.sh; no nginx or HAProxy balancer; each launch ends with one short measurement.
# Needs what proxy-vs-nginx.sh needs.
#
# Knobs (environment):
#   LAUNCHES         proxy launches                          5
#   STRATEGY         the proxy's strategy                     rr
#   RAMP_S           seconds measured from the launch         60
#   PROXY_JAVA_OPTS  JVM options of the proxy                 (none: the jar's own choice)
#   PROXY_RELAUNCH   0: the jar keeps the JVM it was started in (ProxyLauncher)
#   BASE_PORT        first port                                18000
set -euo pipefail

LAUNCHES=${LAUNCHES:-5}
STRATEGY=${STRATEGY:-rr}
RAMP_S=${RAMP_S:-60}
NAME=start-up
source "$(dirname "$0")/lib.sh"
[[ $LAUNCHES =~ ^[1-9][0-9]*$ ]] || die "LAUNCHES must be a positive number, was '$LAUNCHES'"
[[ $RAMP_S =~ ^[1-9][0-9]*$ ]] || die "RAMP_S must be a positive number of seconds, was '$RAMP_S'"

OUT=$(mktemp /tmp/start-up.XXXXXX)
trap 'pkill -P $$ 2>/dev/null; rm -f "$OUT"' EXIT
echo "start-up: $LAUNCHES launches of the $STRATEGY proxy, ${RAMP_S} s each; PROXY_JAVA_OPTS='${PROXY_JAVA_OPTS:-}'" \
    "PROXY_RELAUNCH='${PROXY_RELAUNCH:-}'; $(nproc) cores; load average $(load)"
for ((launch = 1; launch <= LAUNCHES; launch++)); do
    line=$(STRATEGIES=$STRATEGY RAMP_S=$RAMP_S WARMUP_S=1 DURATION_S=1 ROUNDS=1 CONNECTIONS=10 NGINX=0 HAPROXY=0 \
        "$ROOT/benchmarks/proxy-vs-nginx.sh" 2>&1 | tee -a "$OUT.log" | grep -E "^(ramp |$STRATEGY: answering)" | tr '\n' ' ') \
        || die "launch $launch failed: $(tail -1 "$OUT.log") (full output in $OUT.log)"
    echo "launch $launch: $line(load average $(load))"
    echo "$line" >>"$OUT"
done
# "<strategy>: answering N ms after JVM launch; ... ramp <s>: steady R req/s (...); 90% ... starting A s after JVM launch, F s after its first answer"
awk '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    /steady [0-9]+ req/ && match($0, /answering [0-9]+ ms/) { n++; ans[n] = substr($0, RSTART + 10, RLENGTH - 13) / 1000
        match($0, /steady [0-9]+ req/); steady[n] = substr($0, RSTART + 7, RLENGTH - 11) + 0
        match($0, /starting [0-9.]+ s/); launch[n] = substr($0, RSTART + 9, RLENGTH - 11) + 0
        match($0, /, [0-9.-]+ s after its first/); first[n] = substr($0, RSTART + 2, RLENGTH - 17) + 0 }
    END {
        if (n == 0) { print "start-up: no launch was measured (a longer RAMP_S?): see the output in " out; exit 1 }
        printf "median of %d launches: first answer %.1f s after launch; 90%% of steady %.1f s after the first answer (%.1f s after launch); steady %.0f req/s\n",
            n, median(ans, n), median(first, n), median(launch, n), median(steady, n) }' out="$OUT.log" "$OUT"
echo "load average $(load); full output in $OUT.log"
