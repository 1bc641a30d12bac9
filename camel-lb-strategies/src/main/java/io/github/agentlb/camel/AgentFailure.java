package io.github.agentlb.camel;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import java.util.NoSuchElementException;

/**
 * One failed attempt on an agent: which agent, why in a few words fit for a client or a log
 * line, and the exception.
 *
 * @param agentId the agent's id (its name or endpoint URI)
 * @param reason  {@link #reasonOf(Throwable)} of the failure
 * @param outcome {@link FailureClassifier#classify} of the failure: before or after the request was sent
 * @param failure the exception the attempt ended with
 */
public record AgentFailure(String agentId, String reason, AttemptOutcome outcome, Throwable failure) {

    /** The failure of {@code agentId} with {@code failure}, its reason and outcome derived. */
    public static AgentFailure of(String agentId, Throwable failure) {
        return new AgentFailure(agentId, reasonOf(failure), FailureClassifier.classify(failure), failure);
    }

    /**
     * Why an attempt failed, in a few lowercase words without class names: "connection refused",
     * "timed out", "connection reset", "closed the connection without answering" (or "... mid-answer"
     * once part of the answer went to the client), "could not
     * connect", "answered something that is not HTTP", "answered a head over the 8 KiB limit",
     * "answered 101 Switching Protocols: upgrades are not proxied", "marked down by health checks",
     * "sent no answer while other agents answered (stall rule)", the {@code agent:}
     * child's own refusals ("a loop: its address leads back to a balancer", "answered a compressed body
     * that had to be read", "answered more than maxAnswerBytes"), "I/O error" or "failed".
     */
    public static String reasonOf(Throwable failure) {
        // The agent: child's cut answer (AnswerInterruptedException) names the bytes that went before.
        String midAnswer = failure != null && failure.getMessage() != null
                && failure.getMessage().contains("of its answer had gone to the client") ? " mid-answer" : "";
        boolean io = false;
        Throwable last = failure;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            last = t;
            String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            if (FailureClassifier.isTimeout(t)) {
                return "timed out";
            }
            if (message.contains("connection refused")) {
                return "connection refused";
            }
            if (message.contains("connection reset")) {
                return "connection reset" + midAnswer;
            }
            if (t instanceof ClosedChannelException || message.contains("no response received")) {
                return midAnswer.isEmpty() ? "closed the connection without answering" : "closed the connection mid-answer";
            }
            if (message.contains("101 switching protocols")) {
                return "answered 101 Switching Protocols: upgrades are not proxied";
            }
            if (t.getClass().getName().startsWith("io.netty.handler.codec.")) {
                return tooLong(t) ? "answered a head over the 8 KiB limit" : "answered something that is not HTTP";
            }
            if (message.contains("marked down by its health checks")) {
                return "marked down by health checks";
            }
            if (message.contains("while other agents answered: taken as hung")) {
                return "sent no answer while other agents answered (stall rule)";
            }
            if (message.contains("balancers already (via)")) {
                return "a loop: its address leads back to a balancer";
            }
            if (message.contains("answered content-encoding")) {
                return "answered a compressed body that had to be read";
            }
            if (message.contains("maxanswerbytes=")) {
                return "answered more than maxAnswerBytes";
            }
            io |= t instanceof IOException;
        }
        if (last instanceof NoSuchElementException) {
            // camel-netty's connection pool reports a connect that failed at once this way.
            return "could not connect";
        }
        return io ? "I/O error" : "failed";
    }

    /** Whether {@code t} or a cause of it is Netty's {@code TooLongFrameException} (a head line or headers over the decoder's limit). */
    private static boolean tooLong(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            for (Class<?> k = c.getClass(); k != null; k = k.getSuperclass()) {
                if (k.getName().equals("io.netty.handler.codec.TooLongFrameException")) {
                    return true;
                }
            }
        }
        return false;
    }


    /** {@code agentId (reason)}. */
    @Override
    public String toString() {
        return agentId + " (" + reason + ")";
    }
}
