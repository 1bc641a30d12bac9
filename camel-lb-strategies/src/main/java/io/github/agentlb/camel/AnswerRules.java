package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.RelationException;
import io.github.agentlb.core.queue.UsageTokens;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * How the balancer reads an agent's answer, in one place. Immutable and thread-safe.
 * <ul>
 *   <li><b>busy</b> ({@link AttemptOutcome#BUSY}): 429, and 503 with a {@code Retry-After}. The
 *       agent asked to rest: it gets no request until its {@code Retry-After} (delta-seconds or an
 *       HTTP-date, RFC 9110 section 10.2.3), capped at {@link #maxRest()}, or {@link #defaultRest()}
 *       when the header is missing or garbled. The request goes to another agent: after a 429
 *       always (the request was not processed, RFC 6585), after a 503 only an idempotent one
 *       unless {@link #busy503Unprocessed()}. When every agent is busy the client gets the last
 *       busy answer with the shortest rest left as its {@code Retry-After}.</li>
 *   <li><b>error answer</b> ({@link AttemptOutcome#ERROR_ANSWER}): a status of
 *       {@link #errorStatuses()} (500, 502, 503, 504 by default) otherwise. Passed to the client;
 *       counts toward ejection by consecutive error answers; {@code pid} and {@code avn} count it
 *       as load, so an agent that fails fast never looks idle.</li>
 *   <li><b>unavailable</b> ({@link #restsAgent}): a 503 without {@code Retry-After}, while 503 is
 *       one of the error statuses, is an error answer that says what a busy 503 says (RFC 9110
 *       section 15.6.4: the server cannot handle the request now), so it is also handled as one:
 *       the agent rests for {@link #defaultRest()} and the request goes to another agent when a
 *       busy 503's may (an idempotent one, any with {@link #busy503Unprocessed()}), under the
 *       retry budget; when none is left the client gets the 503 with the shortest rest as its
 *       {@code Retry-After}. In a brown-out (agents answering 503 for a while) no client that
 *       another agent can serve sees a 503, and a failing agent gets about one request per rest
 *       until its error answers in a row eject it.</li>
 *   <li><b>success</b>: any other answer, 4xx included: a client error is never the agent's fault.</li>
 * </ul>
 *
 * @param errorStatuses      HTTP statuses from 500 to 599 that are error answers
 * @param defaultRest        the rest of a busy agent without a usable {@code Retry-After}, > 0
 * @param maxRest            the longest rest a {@code Retry-After} can ask for, >= defaultRest
 * @param busy503Unprocessed whether a busy 503 means the request was not processed (any method may go elsewhere)
 */
public record AnswerRules(Set<Integer> errorStatuses, Duration defaultRest, Duration maxRest, boolean busy503Unprocessed) {

    /** 500, 502, 503 and 504 are error answers; rest 1 s by default, 60 s at most; a busy 503 may have been processed. */
    public static final AnswerRules DEFAULT = new AnswerRules(Set.of(500, 502, 503, 504), Duration.ofSeconds(1),
            Duration.ofSeconds(60), false);
    /** The header a busy agent says how long to rest in. */
    public static final String RETRY_AFTER = "Retry-After";
    /** OpenAI's answer header that tells its SDKs whether to retry; routes set it on their error answers. */
    static final String SHOULD_RETRY = "x-should-retry";

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public AnswerRules {
        Objects.requireNonNull(errorStatuses, "errorStatuses");
        for (Integer status : errorStatuses) {
            if (status == null || status < 500 || status > 599) {
                throw new IllegalArgumentException("errorStatuses must be statuses from 500 to 599, was " + errorStatuses);
            }
        }
        errorStatuses = Set.copyOf(errorStatuses);
        Check.positive("defaultRest", defaultRest);
        if (maxRest == null) {
            throw new IllegalArgumentException("maxRest must be >= defaultRest (" + defaultRest + "), was null");
        }
        if (maxRest.compareTo(defaultRest) < 0) {
            throw new RelationException("maxRest", ">=", "defaultRest", defaultRest, maxRest);
        }
        Check.positive("maxRest", maxRest);
    }

    public AnswerRules withErrorStatuses(Set<Integer> value) {
        return new AnswerRules(value, defaultRest, maxRest, busy503Unprocessed);
    }

    public AnswerRules withDefaultRest(Duration value) {
        return new AnswerRules(errorStatuses, value, maxRest, busy503Unprocessed);
    }

    public AnswerRules withMaxRest(Duration value) {
        return new AnswerRules(errorStatuses, defaultRest, value, busy503Unprocessed);
    }

    public AnswerRules withBusy503Unprocessed(boolean value) {
        return new AnswerRules(errorStatuses, defaultRest, maxRest, value);
    }

    /**
     * The output tokens the answer's JSON body reports ({@link UsageTokens}: OpenAI's
     * {@code usage.completion_tokens}), when the body is text or bytes in memory; else null (a
     * streamed answer went to the client and left no body).
     */
    static Long outputTokens(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        CharSequence text = body instanceof CharSequence chars ? chars : body instanceof byte[] bytes
                && bytes.length <= UsageTokens.MAX_CHARS ? new String(bytes, StandardCharsets.UTF_8) : null;
        OptionalLong tokens = UsageTokens.outputTokens(text);
        return tokens.isPresent() ? tokens.getAsLong() : null;
    }

    /**
     * Removes from a failed exchange the answer headers its client may have sent in the request (or
     * as query parameters camel-netty-http makes headers), which a route that answers from the
     * exchange's message would hand back: {@value #SHOULD_RETRY}, and {@value #RETRY_AFTER} unless
     * the exchange failed busy ({@link AgentsBusyException}: its {@code Retry-After} is the balancer's).
     * Every way the balancer fails an exchange ends here.
     */
    static void dropClientEchoes(Exchange exchange) {
        Message message = exchange.getMessage();
        message.removeHeader(SHOULD_RETRY);
        if (!(exchange.getException() instanceof AgentsBusyException)) {
            message.removeHeader(RETRY_AFTER);
        }
    }

    /** The HTTP status of an answer, or 0 when it has none (not an HTTP answer). */
    static int statusOf(Message answer) {
        Object code = answer.getHeader(Exchange.HTTP_RESPONSE_CODE);
        if (code instanceof Number number) {
            return number.intValue();
        }
        try {
            return code == null ? 0 : Integer.parseInt(code.toString().trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Whether an answer with {@code status} and this {@code Retry-After} header (or null) is busy:
     * the balancer may send the request to another agent, so a child that streams answers to the
     * client must hold such an answer back (it is small) and leave it on the exchange instead.
     */
    public boolean isBusy(int status, Object retryAfter) {
        return classify(status, retryAfter) == AttemptOutcome.BUSY;
    }

    /** The class of an answer (not an exception): {@link AttemptOutcome#BUSY}, {@code ERROR_ANSWER} or {@code SUCCESS}. */
    AttemptOutcome classify(int status, Object retryAfter) {
        if (status == 429 || status == 503 && retryAfter != null) {
            return AttemptOutcome.BUSY;
        }
        return errorStatuses.contains(status) ? AttemptOutcome.ERROR_ANSWER : AttemptOutcome.SUCCESS;
    }

    /**
     * Whether an answer with {@code status} and this {@code Retry-After} (or null) may settle a hedged
     * request: neither busy, nor an error answer, nor one that rests its agent. A leg's other answers
     * are held back and end that leg only; the request waits for its other legs.
     */
    boolean settles(int status, Object retryAfter) {
        return classify(status, retryAfter) == AttemptOutcome.SUCCESS && !restsAgent(status);
    }

    /** {@link #settles(int, Object)} of an attempt's result, which must also be no failure. */
    boolean settles(Exchange attempt) {
        Message answer = attempt.getMessage();
        return attempt.getException() == null && settles(statusOf(answer), answer.getHeader(RETRY_AFTER));
    }

    /**
     * Whether an answer with {@code status} rests the agent and may go elsewhere as a busy answer
     * does, though classified an error answer: a 503 (without {@code Retry-After}, else it is busy)
     * while 503 is one of {@link #errorStatuses()}.
     */
    boolean restsAgent(int status) {
        return status == 503 && errorStatuses.contains(503);
    }

    /**
     * Whether a child that streams answers must hold back an answer with {@code status} and this
     * {@code Retry-After} (or null) to a request with {@code method}, as the balancer may send the
     * request to another agent: a busy answer, or an {@linkplain #restsAgent unavailable} one
     * that {@link #busyMayFailOver may go elsewhere}.
     */
    boolean holdsBack(int status, Object retryAfter, String method, FailoverPolicy policy) {
        return holdsBack(status, retryAfter, policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, method), policy);
    }

    /** As {@link #holdsBack(int, Object, String, FailoverPolicy)}, for a request that may or may not be sent twice ({@link FailoverPolicy#repeatable}). */
    boolean holdsBack(int status, Object retryAfter, boolean repeatable, FailoverPolicy policy) {
        return isBusy(status, retryAfter) || restsAgent(status) && busyMayFailOver(status, repeatable, policy);
    }

    /** Whether the request of a busy (or {@linkplain #restsAgent unavailable}) answer with {@code status} may go to another agent. */
    boolean busyMayFailOver(int status, String method, FailoverPolicy policy) {
        return busyMayFailOver(status, policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, method), policy);
    }

    /** As {@link #busyMayFailOver(int, String, FailoverPolicy)}, for a request that may or may not be sent twice. */
    boolean busyMayFailOver(int status, boolean repeatable, FailoverPolicy policy) {
        return status == 429 || busy503Unprocessed || policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, repeatable);
    }

    /**
     * How long a busy agent rests: its {@code Retry-After} in delta-seconds or as an HTTP-date
     * (against {@code nowEpochMillis}), at most {@link #maxRest()}; {@link #defaultRest()} when
     * missing, garbled or not in the future.
     */
    Duration restOf(Object retryAfter, long nowEpochMillis) {
        if (retryAfter == null) {
            return defaultRest;
        }
        String text = retryAfter.toString().trim();
        long millis;
        if (!text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // delta-seconds; past what a number holds, a long time (RFC 9111 1.2.2), capped as any other
            long seconds = text.length() > 18 ? Long.MAX_VALUE : Long.parseLong(text);
            millis = seconds > maxRest.toSeconds() ? maxRest.toMillis() : seconds * 1000;
        } else {
            try {
                millis = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli()
                        - nowEpochMillis;
            } catch (DateTimeParseException garbled) {
                return defaultRest;
            }
        }
        if (millis <= 0) {
            return defaultRest;
        }
        return Duration.ofMillis(Math.min(millis, maxRest.toMillis()));
    }

    /** Parses {@code 500,502} into statuses, naming {@code field} when one is not a number. */
    static Set<Integer> parseStatuses(String field, String text) {
        Set<Integer> statuses = new TreeSet<>();
        for (String part : Check.notNull(field, text).split(",", -1)) {
            try {
                statuses.add(Integer.parseInt(part.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(field + " must be HTTP statuses separated by commas, was '" + text + "'");
            }
        }
        return statuses;
    }

    static String formatStatuses(Set<Integer> statuses) {
        return new TreeSet<>(statuses).stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "AnswerRules[errorStatuses=%s, defaultRest=%s, maxRest=%s, busy503Unprocessed=%s]",
                formatStatuses(errorStatuses), defaultRest, maxRest, busy503Unprocessed);
    }
}
