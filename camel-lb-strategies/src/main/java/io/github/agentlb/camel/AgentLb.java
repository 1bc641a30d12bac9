package io.github.agentlb.camel;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * The names a balancer writes on an exchange and reads from it, in one place.
 */
public final class AgentLb {

    /** The header read for the request id in decision logs; the exchange id when it is absent. */
    public static final String REQUEST_ID_HEADER = "req_id";
    /** Exchange property set to the id of the agent that produced the outcome, e.g. for metrics tags. */
    public static final String AGENT_PROPERTY = "agentlb.agent";
    /** Exchange property set to the strategy's short name ({@link Strategy#name()}), e.g. {@code rr}. */
    public static final String STRATEGY_PROPERTY = "agentlb.strategy";
    /**
     * Exchange property set on an attempt to the {@link io.github.agentlb.core.orca.LoadReport} of the
     * answer, when the agent sent a usable {@code endpoint-load-metrics} header; strategies read it
     * when the attempt completes.
     */
    public static final String LOAD_REPORT_PROPERTY = "agentlb.loadReport";
    /**
     * Exchange property set to a {@link QueuedExchange} while the exchange waits in its balancer's
     * queue ({@link FlowControl}): a consumer whose client leaves calls {@link QueuedExchange#leave()}.
     */
    public static final String QUEUED_PROPERTY = "agentlb.queued";
    /**
     * Exchange property a child or route may set to the answer's output tokens (a Number): the
     * queue's fairness charges them to the exchange's tenant when it completes. Unset, the answer's
     * own count is read from its JSON body when it is in memory ({@link io.github.agentlb.core.queue.UsageTokens}).
     */
    public static final String OUTPUT_TOKENS_PROPERTY = "agentlb.outputTokens";

    /**
     * The request header that makes a request of a method that is not idempotent (a POST) safe to
     * hedge or to send again (IETF draft-ietf-httpapi-idempotency-key-header): the agent answers a
     * repeat of a key it has seen with its first answer.
     */
    public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

    private AgentLb() {
    }

    /**
     * Whether an {@value #IDEMPOTENCY_KEY_HEADER} header names a key every agent reads alike: one
     * header (Camel holds several as a list) whose value, without white space (no-break spaces
     * too, also when written in UTF-8 and handed over a byte a char) and without the quotes of a
     * structured-field string ({@code "..."}), is not empty. An empty key gives an agent nothing to
     * recognize a repeat by, and of two headers agents that read the first and those that read the
     * last would not agree: neither makes a request safe to send twice.
     *
     * @param value the header's value, a list for several headers, null when absent
     */
    public static boolean isIdempotencyKey(Object value) {
        if (value instanceof Collection<?> values) {
            return values.size() == 1 && isIdempotencyKey(values.iterator().next());
        }
        if (value == null) {
            return false;
        }
        String key = trimmed(utf8(value.toString()));
        if (key.length() >= 2 && key.charAt(0) == '"' && key.charAt(key.length() - 1) == '"') {
            key = trimmed(key.substring(1, key.length() - 1));
        }
        return !key.isEmpty();
    }

    /**
     * The text a header's bytes make in UTF-8, when they came one char each (ISO-8859-1, as HTTP
     * servers hand them over) and are UTF-8; else the text as it is.
     */
    private static String utf8(String text) {
        boolean high = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c > 0xFF) {
                return text;
            }
            high |= c >= 0x80;
        }
        if (!high) {
            return text;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1))).toString();
        } catch (CharacterCodingException e) {
            return text;
        }
    }

    private static String trimmed(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && blank(text.charAt(start))) {
            start++;
        }
        while (end > start && blank(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(start, end);
    }

    /** White space, no-break and zero-width spaces (format characters), and controls (U+0085 among them). */
    private static boolean blank(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)
                || Character.getType(c) == Character.FORMAT;
    }
}
