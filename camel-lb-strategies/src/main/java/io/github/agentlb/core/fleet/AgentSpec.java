package io.github.agentlb.core.fleet;

import io.github.agentlb.core.Check;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * One agent as a membership source describes it: a stable name, where it answers, its static
 * weight, and whether it is draining (kept for the requests it is serving, sent no new ones).
 * Immutable and thread-safe.
 *
 * @param name     the agent's stable name, used in decisions, logs and metrics; not blank, no white space
 * @param address  the agent's base URL: {@code http} or {@code https}, with a host and an explicit port
 * @param weight   the agent's static weight, finite and in (0, 1000]; 1 for an ordinary agent
 * @param draining whether the agent is draining: no new requests, those in flight finish
 * @param zone     the agent's zone or other placement tag, or null when the source has none
 */
public record AgentSpec(String name, URI address, double weight, boolean draining, String zone) {

    /** The weight of an agent its source gives none: 1. */
    public static final double DEFAULT_WEIGHT = 1.0;
    /** The largest weight accepted: 1000 (a thousand times an ordinary agent). */
    public static final double MAX_WEIGHT = 1000.0;

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public AgentSpec {
        Check.notBlank("name", name);
        if (name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("name must not contain white space, was '" + name + "'");
        }
        Objects.requireNonNull(address, "address");
        String scheme = address.getScheme() == null ? "" : address.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || address.getHost() == null || address.getPort() < 0) {
            throw new IllegalArgumentException("address must be http(s)://host:port, was '" + address + "'");
        }
        if (!(weight > 0 && weight <= MAX_WEIGHT)) {
            throw new IllegalArgumentException("weight must be in (0, " + (int) MAX_WEIGHT + "], was " + weight);
        }
        zone = zone == null || zone.isBlank() ? null : zone;
    }

    /**
     * The check a source's {@code scheme} setting passes: the schemes an agent's
     * {@link #address()} may have. Stateless.
     *
     * @return {@code value} if it is {@code http} or {@code https}
     * @throws IllegalArgumentException naming {@code scheme} and the value otherwise
     */
    public static String checkScheme(String value) {
        if (!"http".equals(value) && !"https".equals(value)) {
            throw new IllegalArgumentException("scheme must be http or https, was " + value);
        }
        return value;
    }

    /** An agent of weight 1, not draining, without zone. */
    public static AgentSpec of(String name, URI address) {
        return new AgentSpec(name, address, DEFAULT_WEIGHT, false, null);
    }

    /** @return a copy with another {@link #weight()} */
    public AgentSpec withWeight(double value) {
        return new AgentSpec(name, address, value, draining, zone);
    }

    /** @return a copy with another {@link #draining()} */
    public AgentSpec withDraining(boolean value) {
        return new AgentSpec(name, address, weight, value, zone);
    }
}
