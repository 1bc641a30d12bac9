package io.github.agentlb.camel;

import org.apache.camel.Exchange;

/**
 * This library's exchange properties ({@code agentlb.*}) on the paths every decision takes, read and
 * written in the exchange's property map itself. Camel's by-name property methods first look the
 * name up among Camel's own keys ({@code ExchangePropertyKey.asExchangePropertyKey}, a string switch
 * too large for the JIT to inline): none of this library's names is one of those, so the map answers
 * exactly as they would, a call and a switch cheaper (DecisionBenchmark). As in Camel, a read or a
 * removal never creates the map, and a null value is never stored.
 */
final class OwnProperties {

    private OwnProperties() {
    }

    /** {@code exchange.getProperty(name)} for a name of this library. */
    static Object get(Exchange exchange, String name) {
        return exchange.hasProperties() ? exchange.getProperties().get(name) : null;
    }

    /** {@code exchange.setProperty(name, value)} for a name of this library and a value not null. */
    static void set(Exchange exchange, String name, Object value) {
        exchange.getProperties().put(name, value);
    }

    /** {@code exchange.removeProperty(name)} for a name of this library. */
    static Object remove(Exchange exchange, String name) {
        return exchange.hasProperties() ? exchange.getProperties().remove(name) : null;
    }
}
