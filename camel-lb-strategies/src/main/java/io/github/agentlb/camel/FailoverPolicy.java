package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * When an exchange may go to another agent after a failed attempt. Immutable, thread-safe.
 *
 * <ul>
 *   <li>A failure before the request was sent ({@link AttemptOutcome#FAILED_BEFORE_SEND}) always
 *       fails over: the agent never saw the request.</li>
 *   <li>A failure after it may have been sent ({@link AttemptOutcome#FAILED_AFTER_SEND}) fails
 *       over only when the request may be sent twice ({@link #repeatable}): its {@code CamelHttpMethod}
 *       is idempotent, by default GET, HEAD, OPTIONS, TRACE, PUT and DELETE (RFC 9110 section
 *       9.2.2), or it carries an {@code Idempotency-Key} that is not blank. A POST, PATCH or an
 *       exchange without that header and without a key fails with the attempt's exception, so no
 *       request reaches two agents.</li>
 *   <li>An answer timeout ({@link AttemptOutcome#ANSWER_TIMED_OUT}: sent, no answer began in
 *       time) fails over only when {@link #failOverOnAnswerTimeout()} is set (default off) and the
 *       request may be sent twice: a slow agent is usually a busy one, and an agent call costs money,
 *       so by default a call that timed out is not sent to every agent in turn.</li>
 *   <li>An error answer ({@link AttemptOutcome#ERROR_ANSWER}), an answer the route turned into an
 *       exception ({@link AttemptOutcome#EXCEPTION_ANSWER}), a failure after the answer's first byte
 *       reached the client ({@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE}) and a cancelled call
 *       ({@link AttemptOutcome#CANCELLED}) are never retried.</li>
 *   <li>At most {@link #maximumFailoverAttempts()} further attempts (Camel's
 *       {@code FailoverLoadBalancer} name; -1 = each agent once, 0 = never fail over), and none
 *       that would start after {@link #deadline()} from the exchange's first attempt (zero = none).</li>
 * </ul>
 *
 * @param maximumFailoverAttempts further attempts after the first, -1 for every agent once
 * @param deadline                no failover starts later than this after the first attempt; zero for none
 * @param idempotentMethods       HTTP methods, upper case, that may be sent again after a send failure
 * @param failOverOnAnswerTimeout whether an idempotent request whose answer timed out may go to another agent
 */
public record FailoverPolicy(int maximumFailoverAttempts, Duration deadline, Set<String> idempotentMethods,
                             boolean failOverOnAnswerTimeout) {

    /** An HTTP method: a token (RFC 9110 §5.6.2). Before every constant, which the constructor checks with it. */
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /** The idempotent methods of RFC 9110 section 9.2.2. */
    public static final Set<String> RFC_9110_IDEMPOTENT = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");
    /** Every agent once, no deadline, RFC 9110's idempotent methods. */
    public static final FailoverPolicy DEFAULT = new FailoverPolicy(-1, Duration.ZERO, RFC_9110_IDEMPOTENT);

    /** A policy that does not fail over on an answer timeout. */
    public FailoverPolicy(int maximumFailoverAttempts, Duration deadline, Set<String> idempotentMethods) {
        this(maximumFailoverAttempts, deadline, idempotentMethods, false);
    }

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public FailoverPolicy {
        if (maximumFailoverAttempts < -1) {
            throw new IllegalArgumentException("maximumFailoverAttempts must be >= -1, was " + maximumFailoverAttempts);
        }
        Check.nonNegative("failoverDeadline", deadline);
        Set<String> methods = Objects.requireNonNull(idempotentMethods, "idempotentMethods");
        if (methods.stream().anyMatch(m -> m == null || m.isBlank())) {
            throw new IllegalArgumentException("idempotentMethods must not contain a blank method, was " + methods);
        }
        for (String method : methods) {
            if (!TOKEN.matcher(method.trim()).matches()) {
                throw new IllegalArgumentException("idempotentMethods must be HTTP method tokens, was '" + method.trim() + "'");
            }
        }
        idempotentMethods = methods.stream().map(m -> m.trim().toUpperCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * The methods of {@code text}, comma separated ({@code GET,HEAD}), each trimmed.
     *
     * @throws IllegalArgumentException if one is blank or not a token, naming {@code idempotentMethods} and the text as given
     */
    static List<String> methodsOf(String text) {
        List<String> methods = List.of(Check.notNull("idempotentMethods", text).split(",", -1));
        for (String method : methods) {
            if (method.isBlank()) {
                throw new IllegalArgumentException("idempotentMethods must not contain a blank method, was '" + text + "'");
            }
            if (!TOKEN.matcher(method.trim()).matches()) {
                throw new IllegalArgumentException("idempotentMethods must be HTTP method tokens, was '" + text + "'");
            }
        }
        return methods;
    }

    /** @return a copy with another {@link #maximumFailoverAttempts()} */
    public FailoverPolicy withMaximumFailoverAttempts(int attempts) {
        return new FailoverPolicy(attempts, deadline, idempotentMethods, failOverOnAnswerTimeout);
    }

    /** @return a copy with another {@link #deadline()} */
    public FailoverPolicy withDeadline(Duration value) {
        return new FailoverPolicy(maximumFailoverAttempts, value, idempotentMethods, failOverOnAnswerTimeout);
    }

    /** @return a copy with other {@link #idempotentMethods()} */
    public FailoverPolicy withIdempotentMethods(Set<String> methods) {
        return new FailoverPolicy(maximumFailoverAttempts, deadline, methods, failOverOnAnswerTimeout);
    }

    /** @return a copy with another {@link #failOverOnAnswerTimeout()} */
    public FailoverPolicy withFailOverOnAnswerTimeout(boolean value) {
        return new FailoverPolicy(maximumFailoverAttempts, deadline, idempotentMethods, value);
    }

    /**
     * Whether an attempt that ended with {@code outcome} may be followed by another agent.
     *
     * @param method the exchange's HTTP method, or null when it has none
     */
    public boolean mayFailOver(AttemptOutcome outcome, String method) {
        return mayFailOver(outcome, idempotent(method));
    }

    /**
     * As {@link #mayFailOver(AttemptOutcome, String)}, for a request that may or may not be sent
     * twice ({@link #repeatable}).
     */
    public boolean mayFailOver(AttemptOutcome outcome, boolean repeatable) {
        return switch (outcome) {
            case FAILED_BEFORE_SEND -> true;
            case FAILED_AFTER_SEND -> repeatable;
            case ANSWER_TIMED_OUT -> failOverOnAnswerTimeout && repeatable;
            default -> false;
        };
    }

    /**
     * Whether {@code request} may reach an agent twice: its method ({@link Exchange#HTTP_METHOD}) is
     * one of {@link #idempotentMethods()}, or it carries an {@value AgentLb#IDEMPOTENCY_KEY_HEADER}
     * that is not blank ({@link AgentLb#isIdempotencyKey}). The one rule for failover after a send,
     * a busy 503, hedging and a stale connection's second send.
     */
    public boolean repeatable(Message request) {
        return idempotent(request.getHeader(Exchange.HTTP_METHOD, String.class))
                || AgentLb.isIdempotencyKey(request.getHeader(AgentLb.IDEMPOTENCY_KEY_HEADER));
    }

    /** @return whether another attempt may start after {@code failovers} failovers, {@code elapsedNanos} in */
    public boolean allowsAnother(int failovers, long elapsedNanos) {
        boolean withinCount = maximumFailoverAttempts < 0 || failovers < maximumFailoverAttempts;
        boolean withinDeadline = deadline.isZero() || elapsedNanos < deadline.toNanos();
        return withinCount && withinDeadline;
    }

    /** Which limit ended the failovers after {@code failovers} of them, for messages: the count, else the deadline. */
    String limitReached(int failovers) {
        return maximumFailoverAttempts >= 0 && failovers >= maximumFailoverAttempts
                ? " (maximumFailoverAttempts=" + maximumFailoverAttempts + ")"
                : " (failoverDeadline=" + deadline.toMillis() + " ms)";
    }

    private boolean idempotent(String method) {
        return method != null && idempotentMethods.contains(method.toUpperCase(Locale.ROOT));
    }
}
