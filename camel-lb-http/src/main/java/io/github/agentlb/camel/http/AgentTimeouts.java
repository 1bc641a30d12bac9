package io.github.agentlb.camel.http;

import io.github.agentlb.core.Check;

/**
 * How long an agent call may take, as operators know it from nginx and Envoy. Immutable; the
 * constructor validates and throws {@link IllegalArgumentException} naming the field and value.
 *
 * @param connectMs   to open the TCP connection to the agent, ms, &gt;= 1; longer is a failure
 *                    before send (fails over)
 * @param firstByteMs from sending the request to the first byte of the answer, ms, &gt;= 1
 *                    (Envoy's per-try timeout, nginx's {@code proxy_read_timeout} for the first read);
 *                    longer is an answer timeout, which by default does not fail over
 * @param idleMs      between two reads of the answer once it has begun, ms, &gt;= 1 (nginx's
 *                    {@code proxy_read_timeout}, Envoy's stream idle timeout); longer cuts the answer
 * @param totalMs     from sending the request to the answer's last byte, ms, 0 for none (Envoy's
 *                    route timeout); a stream of tokens can legitimately run for minutes
 */
public record AgentTimeouts(int connectMs, int firstByteMs, int idleMs, long totalMs) {

    /** Connect: 1 s. */
    public static final int DEFAULT_CONNECT_MS = 1_000;
    /** First byte: 60 s, nginx's {@code proxy_read_timeout}; an agent call of 20-60 s is ordinary. */
    public static final int DEFAULT_FIRST_BYTE_MS = 60_000;
    /** Idle between bytes: 60 s, nginx's {@code proxy_read_timeout}. */
    public static final int DEFAULT_IDLE_MS = 60_000;
    /** Total: none, so that a stream of any length passes while bytes flow. */
    public static final long DEFAULT_TOTAL_MS = 0;
    /** The defaults above. */
    public static final AgentTimeouts DEFAULTS =
            new AgentTimeouts(DEFAULT_CONNECT_MS, DEFAULT_FIRST_BYTE_MS, DEFAULT_IDLE_MS, DEFAULT_TOTAL_MS);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public AgentTimeouts {
        Check.atLeast("connectTimeoutMs", connectMs, 1);
        Check.atLeast("firstByteTimeoutMs", firstByteMs, 1);
        Check.atLeast("idleTimeoutMs", idleMs, 1);
        if (totalMs < 0) {
            throw new IllegalArgumentException("requestTimeoutMs must be >= 0 (0 = none), was " + totalMs);
        }
    }

    /**
     * These timeouts as {@code agent:} endpoint options, e.g.
     * {@code connectTimeout=1000ms&firstByteTimeout=60000ms&idleTimeout=60000ms&requestTimeout=0ms}.
     */
    public String uriOptions() {
        return "connectTimeout=" + connectMs + "ms&firstByteTimeout=" + firstByteMs + "ms&idleTimeout=" + idleMs
                + "ms&requestTimeout=" + totalMs + "ms";
    }
}
