package io.github.agentlb.demo;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * Records, per proxied request, which agent failed and why, in words fit for a client: the
 * balancer's own exception names Java classes and Camel exchange ids.
 *
 * <p>The route puts a list on the exchange with {@link #track(Exchange)}; the balancer sends a
 * copy of the exchange to each agent it tries, and the copies share that list, so every failed
 * send (a Camel {@link CamelEvent.ExchangeSentEvent} whose exchange has an exception) adds one
 * {@link Failure}. Sends of exchanges without the list are ignored.
 *
 * <p>Thread-safe.
 */
final class AttemptFailures extends EventNotifierSupport {

    /** Exchange property holding the request's {@code List<Failure>}. */
    static final String PROPERTY = "agentlb.proxy.failures";

    /** One failed attempt: the agent's label (its name, else its base URL) and the reason. */
    record Failure(String agent, String reason) {
        @Override
        public String toString() {
            return agent + " (" + reason + ")";
        }
    }

    private final Map<String, String> labelByEndpointUri;

    /** @param labelByEndpointUri the label of each agent by its endpoint URI; unknown ones show the URI */
    AttemptFailures(Map<String, String> labelByEndpointUri) {
        this.labelByEndpointUri = labelByEndpointUri;
    }

    /** Starts recording the failures of {@code exchange}'s attempts. */
    static void track(Exchange exchange) {
        exchange.setProperty(PROPERTY, Collections.synchronizedList(new ArrayList<Failure>(2)));
    }

    /** The failures recorded for {@code exchange} so far, in order; empty if none or not tracked. */
    @SuppressWarnings("unchecked")
    static List<Failure> of(Exchange exchange) {
        List<Failure> failures = exchange.getProperty(PROPERTY, List.class);
        if (failures == null) {
            return List.of();
        }
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** "all 3 agents failed: A1 (connection refused), ..." for the failures; null if there are none. */
    static String summary(List<Failure> failures) {
        if (failures.isEmpty()) {
            return null;
        }
        String list = failures.stream().map(Failure::toString).collect(Collectors.joining(", "));
        return failures.size() == 1 ? "the only agent tried failed: " + list
                : "all " + failures.size() + " agents tried failed: " + list;
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        // The sending event must be accepted too: Camel times a send, and reports it sent, only
        // when a notifier takes the sending event.
        return event instanceof CamelEvent.ExchangeSendingEvent || event instanceof CamelEvent.ExchangeSentEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        if (!(event instanceof CamelEvent.ExchangeSentEvent sent)) {
            return;
        }
        Exchange exchange = sent.getExchange();
        Exception failure = exchange.getException();
        @SuppressWarnings("unchecked")
        List<Failure> failures = exchange.getProperty(PROPERTY, List.class);
        if (failure == null || failures == null) {
            return;
        }
        String uri = sent.getEndpoint().getEndpointUri();
        failures.add(new Failure(labelByEndpointUri.getOrDefault(uri, uri), reason(failure)));
    }

    /**
     * Why an attempt failed, in a few lowercase words without class names: "connection refused",
     * "timed out", "connection reset", "closed the connection without answering", "could not
     * connect", "answered something that is not HTTP", "I/O error" or "failed".
     */
    static String reason(Throwable failure) {
        boolean io = false;
        Throwable last = failure;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            last = t;
            String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            if (isTimeout(t)) {
                return "timed out";
            }
            if (message.contains("connection refused")) {
                return "connection refused";
            }
            if (message.contains("connection reset")) {
                return "connection reset";
            }
            if (t instanceof ClosedChannelException || message.contains("no response received")) {
                return "closed the connection without answering";
            }
            if (t.getClass().getName().startsWith("io.netty.handler.codec.")) {
                return "answered something that is not HTTP";
            }
            io |= t instanceof IOException;
        }
        if (last instanceof NoSuchElementException) {
            // camel-netty's connection pool reports a connect that failed at once this way.
            return "could not connect";
        }
        return io ? "I/O error" : "failed";
    }

    private static boolean isTimeout(Throwable t) {
        String name = t.getClass().getName();
        return t instanceof TimeoutException || t instanceof ExchangeTimedOutException
                || t instanceof SocketTimeoutException || name.startsWith("io.netty.handler.timeout.")
                || name.equals("io.netty.channel.ConnectTimeoutException");
    }
}
