package io.github.agentlb.camel;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The balancer's log lines: one INFO line per decision and per failover on
 * {@code io.github.agentlb.decision}, one INFO line per ejection and re-admission on
 * {@code io.github.agentlb.health}. Client-supplied text goes through {@link #loggable}.
 * Stateless and thread-safe.
 */
final class DecisionLog {

    /** Longest client-supplied text written into a log line, chars. */
    static final int MAX_LOGGED_CHARS = 200;

    private static final Logger DECISIONS = LoggerFactory.getLogger("io.github.agentlb.decision");
    private static final Logger HEALTH = LoggerFactory.getLogger("io.github.agentlb.health");

    private DecisionLog() {
    }

    static boolean enabled() {
        return DECISIONS.isInfoEnabled();
    }

    /** {@code request=r1 strategy=ch agent=A2 [(trial)] user_id=42 hash=... [ejected=[A1]]}. */
    static void decision(Exchange exchange, String strategy, String agent, boolean trial, String detail,
            Set<String> ejected) {
        decision(exchange, strategy, agent, trial, detail, ejected, Set.of());
    }

    /**
     * {@code request=r1 strategy=lr agent=A2 ... [ejected=[A1]] [saturated=[A3]]}: {@code saturated}
     * are the agents the saturation gate passed over (the chosen one among them when all were).
     */
    static void decision(Exchange exchange, String strategy, String agent, boolean trial, String detail,
            Set<String> ejected, Set<String> saturated) {
        DECISIONS.info("request={} strategy={} agent={}{}{}{}{}", requestId(exchange), strategy, agent,
                trial ? " (trial)" : "", detail.isEmpty() ? "" : " " + detail,
                ejected.isEmpty() ? "" : " ejected=" + ejected, saturated.isEmpty() ? "" : " saturated=" + saturated);
    }

    /** The first attempt's {@link #decision}, or a failover's line after the last of {@code failures}. */
    static void attempt(Exchange exchange, String strategy, String agent, boolean trial, List<AgentFailure> failures,
            Selection selection, Set<String> ejected, Set<String> saturated) {
        if (failures.isEmpty()) {
            decision(exchange, strategy, agent, trial, selection.detail().get(), ejected, saturated);
        } else {
            failover(exchange, strategy, agent, failures.get(failures.size() - 1), trial);
        }
    }

    /** {@code request=r1 strategy=rr failover to agent=A3 after A1 (connection refused)}. */
    static void failover(Exchange exchange, String strategy, String agent, AgentFailure after, boolean trial) {
        DECISIONS.info("request={} strategy={} failover to agent={}{} after {}", requestId(exchange), strategy, agent,
                trial ? " (trial)" : "", after);
    }

    /** {@code request=r1 strategy=rr agent=none: No agent available: ...}: the request's line when it gets no agent. */
    static void none(Exchange exchange, String strategy, NoAgentAvailableException why) {
        DECISIONS.info("request={} strategy={} agent=none: {}", requestId(exchange), strategy, why.reason());
    }

    /** An ejection for a time; a health checks' mark-down (no time) has its line from {@link HealthChecks}, with its counts. */
    static void ejected(String strategy, AgentFailure failure, Duration ejectionTime) {
        if (ejectionTime.isZero()) {
            return;
        }
        HEALTH.info("strategy={} agent={} ejected for {} ms after {}", strategy, failure.agentId(),
                ejectionTime.toMillis(), failure.reason());
    }

    static void busy(String strategy, String agent, int status, Duration rest) {
        HEALTH.info("strategy={} agent={} busy status={} rests={} ms", strategy, agent, status, rest.toMillis());
    }

    static void readmitted(String strategy, String agent) {
        HEALTH.info("strategy={} agent={} re-admitted", strategy, agent);
    }

    /** The exchange's {@code req_id} header made {@link #loggable}, else its exchange id. */
    static String requestId(Exchange exchange) {
        Object header = exchange.getIn().getHeader(AgentLb.REQUEST_ID_HEADER);
        return header != null ? loggable(header.toString()) : exchange.getExchangeId();
    }

    /**
     * Client-supplied text made safe for a one-line log of {@code key=value} fields: control
     * characters (line breaks, NUL, ...) and white space (so no {@code " agent=evil"} field can be
     * forged) written as a backslash, {@code u} and four hex digits, and cut at
     * {@value #MAX_LOGGED_CHARS} characters.
     */
    static String loggable(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_LOGGED_CHARS) + 8);
        for (int i = 0; i < text.length(); i++) {
            if (out.length() >= MAX_LOGGED_CHARS) {
                return out.append("...").toString();
            }
            char c = text.charAt(i);
            if (Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
