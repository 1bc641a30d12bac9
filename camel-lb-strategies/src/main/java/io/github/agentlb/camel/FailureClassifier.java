package io.github.agentlb.camel;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeoutException;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.ExchangeTimedOutException;

/**
 * Tells how an attempt ended from the exception it ended with: the one classifier behind
 * failover ({@link AgentLoadBalancerSupport}), outlier ejection and {@link AgentFailure}'s
 * reasons. The whole cause chain is read; a before-send cause anywhere wins.
 *
 * <ul>
 *   <li>The {@link ClassifiedFailure#outcome() outcome} of a {@link ClassifiedFailure} anywhere in
 *       the chain, the first one found: a child that knows how its attempt ended (a streaming child:
 *       cancelled, failed after the first byte, answer timed out) says so, and wins over the
 *       causes.</li>
 *   <li>{@link AttemptOutcome#FAILED_BEFORE_SEND}: {@link ConnectException} (refused; Netty's
 *       and httpclient's connect timeouts extend it), {@link UnknownHostException},
 *       {@link NoRouteToHostException}, {@link PortUnreachableException}, a
 *       {@link SocketTimeoutException} whose message says {@code connect timed out}, httpclient's
 *       {@code ConnectTimeoutException} and {@code ConnectionRequestTimeoutException} (no pooled
 *       connection in time), a {@link NoSuchElementException} from camel-netty's connection pool
 *       (its validation of a refused connect), Camel's {@code DirectConsumerNotAvailableException}.</li>
 *   <li>{@link AttemptOutcome#FAILED_AFTER_SEND}: any other {@link IOException} (reset, broken
 *       pipe, closed channel, read timeout), {@link TimeoutException},
 *       {@link ExchangeTimedOutException}, Netty's {@code io.netty.handler.timeout} exceptions,
 *       camel-netty's "No response received from remote server", and Netty's
 *       {@code io.netty.handler.codec.DecoderException} and its subclasses: an answer that is not
 *       HTTP (or not the protocol expected) is the agent failing after the request was sent, as a
 *       connection closed without an answer is.</li>
 *   <li>{@link AttemptOutcome#EXCEPTION_ANSWER}: anything else (an answer the route turned into an exception,
 *       such as camel-http's {@code HttpOperationFailedException}).</li>
 * </ul>
 * Classes outside Camel's core are matched by name, so the library needs neither Netty nor httpclient.
 * Stateless and thread-safe.
 */
public final class FailureClassifier {

    private static final String NETTY_TIMEOUT = "io.netty.handler.timeout.TimeoutException";
    private static final String NETTY_DECODER = "io.netty.handler.codec.DecoderException";
    private static final String NO_RESPONSE = "No response received from remote server";

    private FailureClassifier() {
    }

    /** @return the outcome of an attempt that ended with {@code failure}; SUCCESS for null */
    public static AttemptOutcome classify(Throwable failure) {
        if (failure == null) {
            return AttemptOutcome.SUCCESS;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ClassifiedFailure classified) {
                return classified.outcome();
            }
        }
        boolean afterSend = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (isBeforeSend(t)) {
                return AttemptOutcome.FAILED_BEFORE_SEND;
            }
            afterSend |= isAfterSend(t);
        }
        return afterSend ? AttemptOutcome.FAILED_AFTER_SEND : AttemptOutcome.EXCEPTION_ANSWER;
    }

    /** @return whether {@code t} itself (not its causes) is a timeout of any kind */
    static boolean isTimeout(Throwable t) {
        String name = t.getClass().getName();
        return t instanceof TimeoutException || t instanceof ExchangeTimedOutException
                || t instanceof SocketTimeoutException || name.startsWith("io.netty.handler.timeout.")
                || name.endsWith(".ConnectTimeoutException") || name.endsWith(".ConnectionRequestTimeoutException");
    }

    private static boolean isBeforeSend(Throwable t) {
        if (t instanceof ConnectException || t instanceof UnknownHostException
                || t instanceof NoRouteToHostException || t instanceof PortUnreachableException
                || t instanceof NoSuchElementException) {
            return true;
        }
        String name = t.getClass().getName();
        if (name.endsWith(".ConnectTimeoutException") || name.endsWith(".ConnectionRequestTimeoutException")
                || name.equals("org.apache.camel.component.direct.DirectConsumerNotAvailableException")) {
            return true;
        }
        return t instanceof SocketTimeoutException && t.getMessage() != null
                && t.getMessage().toLowerCase(Locale.ROOT).contains("connect timed out");
    }

    private static boolean isAfterSend(Throwable t) {
        return t instanceof IOException || t instanceof TimeoutException || t instanceof ExchangeTimedOutException
                || extendsClass(t, NETTY_TIMEOUT) || extendsClass(t, NETTY_DECODER) || isClosedWithoutAnswer(t);
    }

    /** camel-netty's ClientChannelHandler reports a connection closed before the answer this way, with no cause. */
    private static boolean isClosedWithoutAnswer(Throwable t) {
        return t instanceof CamelExchangeException && t.getMessage() != null && t.getMessage().startsWith(NO_RESPONSE);
    }

    /** Whether {@code t} is of the named class or a subclass: Netty's exceptions are RuntimeExceptions. */
    private static boolean extendsClass(Throwable t, String className) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (className.equals(c.getName())) {
                return true;
            }
        }
        return false;
    }
}
