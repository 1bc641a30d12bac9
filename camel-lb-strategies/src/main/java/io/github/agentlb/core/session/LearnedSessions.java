package io.github.agentlb.core.session;

import io.github.agentlb.core.Check;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * How a balancer learns sessions from the agents' answers: the header that carries a session id
 * ({@value #DEFAULT_HEADER} by default, as MCP's Streamable HTTP transport), the secret that seals
 * the agent's name into the id the client sees ({@link SessionIds}), and what a request gets when
 * its session's agent has left the fleet.
 *
 * <p>Off unless configured: {@link #disabled()}. Immutable and thread-safe; the builder validates
 * each value at once and throws {@link IllegalArgumentException} naming the field (never the
 * secret's value).
 */
public final class LearnedSessions {

    /** The session header of MCP's Streamable HTTP transport. */
    public static final String DEFAULT_HEADER = "Mcp-Session-Id";
    /** The shortest secret accepted, bytes of its UTF-8 form: 128 bits. */
    public static final int MIN_SECRET_BYTES = 16;

    /** What a request gets when the agent that holds its session is no longer a member. */
    public enum WhenAgentGone {
        /**
         * A JSON 404: the session is gone, as an MCP server answers an unknown session id, and an
         * MCP client then starts a new session. The default.
         */
        NOT_FOUND,
        /**
         * The strategy picks an agent as for a request without session, and the request goes
         * without the session header, so the new agent starts a session of its own: for agents whose
         * session is a cache that can be rebuilt.
         */
        NEW_PICK
    }

    private static final LearnedSessions DISABLED = new LearnedSessions(new Builder());

    private final String header;
    private final byte[] secret;
    private final byte[] fallback;
    private final WhenAgentGone whenAgentGone;
    private final boolean a2aTasks;
    private final Set<String> mcpHandles;

    private LearnedSessions(Builder b) {
        this.header = b.header;
        this.secret = b.secret;
        this.fallback = b.fallback;
        this.whenAgentGone = b.whenAgentGone;
        this.a2aTasks = b.a2aTasks;
        this.mcpHandles = b.mcpHandles;
    }

    /** Sessions are not learned: the session header is passed as it is, and the strategy decides. */
    public static LearnedSessions disabled() {
        return DISABLED;
    }

    /** A builder starting from header {@value #DEFAULT_HEADER}, no secret, {@link WhenAgentGone#NOT_FOUND}. */
    public static Builder custom() {
        return DISABLED.toBuilder();
    }

    /** @return whether sessions are learned */
    public boolean isEnabled() {
        return header != null;
    }

    /** @return the session header's name, null when off */
    public String header() {
        return header;
    }

    /** @return what a request whose session's agent has left gets */
    public WhenAgentGone whenAgentGone() {
        return whenAgentGone;
    }

    /**
     * Whether A2A task ids are sealed too ({@link A2aTasks}): the ids in a JSON-RPC answer's body,
     * and the task a request is about in its body. Off by default.
     */
    public boolean a2aTasks() {
        return a2aTasks;
    }

    /**
     * The tool arguments that carry server-minted MCP handles ({@link McpHandles}), sealed in the
     * answers of 2026-07-28 tool calls and restored in the calls that carry them; empty (the
     * default) for none. In the order given.
     */
    public Set<String> mcpHandles() {
        return mcpHandles;
    }

    /** @return whether a secret was set; without one, ids are checked for damage but can be forged */
    public boolean hasSecret() {
        return secret.length > 0;
    }

    /** Logs one WARN line on {@code log} when sessions are learned without a secret (at a balancer's start). */
    public void warnWithoutSecret(org.slf4j.Logger log) {
        if (isEnabled() && !hasSecret()) {
            log.warn("Learned sessions ({}{}{}) without a sessionSecret: damaged session ids{} are rejected, forged ones are"
                    + " not; set the same secret on every replica", header, a2aTasks ? ", A2A task ids" : "",
                    mcpHandles.isEmpty() ? "" : ", MCP handles " + String.join(",", mcpHandles),
                    a2aTasks && !mcpHandles.isEmpty() ? ", task ids and handles" : a2aTasks ? " and task ids"
                    : mcpHandles.isEmpty() ? "" : " and handles");
        }
    }

    /** @return the codec of the ids the client sees, for this secret */
    public SessionIds ids() {
        return new SessionIds(secret, fallback);
    }

    /** A builder with these settings (a disabled one starts from the defaults). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.header = isEnabled() ? header : DEFAULT_HEADER;
        b.secret = secret;
        b.fallback = fallback;
        b.whenAgentGone = whenAgentGone;
        b.a2aTasks = a2aTasks;
        b.mcpHandles = mcpHandles;
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LearnedSessions other && Objects.equals(header, other.header)
                && Arrays.equals(secret, other.secret) && Arrays.equals(fallback, other.fallback)
                && whenAgentGone == other.whenAgentGone && a2aTasks == other.a2aTasks
                && mcpHandles.equals(other.mcpHandles);
    }

    @Override
    public int hashCode() {
        return Objects.hash(header, Arrays.hashCode(secret), Arrays.hashCode(fallback), whenAgentGone, a2aTasks,
                mcpHandles);
    }

    @Override
    public String toString() {
        return isEnabled()
                ? "LearnedSessions{header=" + header + ", secret=" + (hasSecret() ? "set" : "none")
                        + (fallback.length > 0 ? ", fallbackSecret=set" : "")
                        + ", whenAgentGone=" + whenAgentGone + (a2aTasks ? ", a2aTasks" : "")
                        + (mcpHandles.isEmpty() ? "" : ", mcpHandles=" + String.join(",", mcpHandles)) + "}"
                : "LearnedSessions{disabled}";
    }

    /** Builds {@link LearnedSessions}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private String header;
        private byte[] secret = new byte[0];
        private byte[] fallback = new byte[0];
        private WhenAgentGone whenAgentGone = WhenAgentGone.NOT_FOUND;
        private boolean a2aTasks;
        private Set<String> mcpHandles = Set.of();

        private Builder() {
        }

        /**
         * The header carrying the session id, in requests and in answers.
         *
         * @throws IllegalArgumentException if blank or not a valid header name
         */
        public Builder header(String header) {
            Check.headerName("sessionHeader", header);
            this.header = header;
            return this;
        }

        /**
         * The secret that seals agent names into session ids, the same on every balancer replica;
         * with it a client cannot forge an id that names another agent. Its value is never logged.
         *
         * @throws IllegalArgumentException if null or shorter than {@value #MIN_SECRET_BYTES} bytes (UTF-8)
         */
        public Builder secret(String secret) {
            this.secret = secretBytes("sessionSecret", secret);
            return this;
        }

        /**
         * A second secret whose ids are accepted but never made, for changing the secret on running
         * replicas without a session lost (as Django's {@code SECRET_KEY_FALLBACKS}): first every
         * replica gets the new secret as its fallback, then, replica by replica, the new secret as
         * its secret and the old one as its fallback, and once the old ids are no longer in use, no
         * fallback. Its value is never logged.
         *
         * @throws IllegalArgumentException if null or shorter than {@value #MIN_SECRET_BYTES} bytes (UTF-8)
         */
        public Builder fallbackSecret(String secret) {
            this.fallback = secretBytes("sessionFallbackSecret", secret);
            return this;
        }

        private static byte[] secretBytes(String field, String secret) {
            if (secret == null) {
                throw new IllegalArgumentException(field + " must have at least " + MIN_SECRET_BYTES
                        + " bytes, was null (not set)");
            }
            byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
            if (bytes.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException(field + " must have at least " + MIN_SECRET_BYTES
                        + " bytes, had " + bytes.length);
            }
            return bytes;
        }

        /** What a request gets when its session's agent has left; {@link WhenAgentGone#NOT_FOUND} by default. */
        public Builder whenAgentGone(WhenAgentGone whenAgentGone) {
            this.whenAgentGone = Objects.requireNonNull(whenAgentGone, "sessionAgentGone");
            return this;
        }

        /**
         * {@link #whenAgentGone(WhenAgentGone)} by name, {@code NOT_FOUND} or {@code NEW_PICK}
         * (case-insensitive; {@code -} as {@code _}).
         *
         * @throws IllegalArgumentException naming the value if it is neither
         */
        public Builder whenAgentGone(String name) {
            Check.notBlank("sessionAgentGone", name);
            try {
                return whenAgentGone(WhenAgentGone.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("sessionAgentGone must be NOT_FOUND or NEW_PICK, was '" + name + "'");
            }
        }

        /**
         * Seals A2A task ids too (v1.0 JSON-RPC, {@link A2aTasks}): each task call goes to the
         * agent that made the task. Off by default.
         */
        public Builder a2aTasks(boolean a2aTasks) {
            this.a2aTasks = a2aTasks;
            return this;
        }

        /**
         * Seals server-minted MCP handles too ({@link McpHandles}): the tool arguments named here
         * (comma-separated, e.g. {@code basket_id}), as a 2026-07-28 creation tool returns them in
         * {@code structuredContent}; each later call that carries one goes to the server that made
         * it. None by default.
         *
         * @throws IllegalArgumentException naming the value if it or a name is blank, a name is
         *     repeated, or has a character other than visible ASCII
         */
        public Builder mcpHandles(String names) {
            Objects.requireNonNull(names, "sessionMcpHandles");
            LinkedHashSet<String> set = new LinkedHashSet<>();
            for (String part : names.split(",", -1)) {
                String name = part.strip();
                if (name.isEmpty() || !name.chars().allMatch(c -> c > 0x20 && c < 0x7f) || !set.add(name)) {
                    throw new IllegalArgumentException("sessionMcpHandles must be tool argument names, comma-separated,"
                            + " each once and of visible ASCII, was '" + names + "'");
                }
            }
            this.mcpHandles = Collections.unmodifiableSet(set);
            return this;
        }

        public LearnedSessions build() {
            return new LearnedSessions(this);
        }
    }
}
