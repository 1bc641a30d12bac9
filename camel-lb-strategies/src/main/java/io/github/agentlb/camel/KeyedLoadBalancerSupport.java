package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.select.RoundRobin;
import java.util.List;
import java.util.Objects;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.support.builder.ExpressionBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared part of the strategies that route by a key (consistent hashing, adaptive virtual
 * nodes): the key is a Camel {@link Expression}, header {@value #DEFAULT_KEY_HEADER} by default.
 * A missing or blank key is not an error: such exchanges are spread round-robin, with a DEBUG
 * log. Thread-safe.
 */
public abstract class KeyedLoadBalancerSupport extends AgentLoadBalancerSupport {

    /** The header read as the key by default. */
    public static final String DEFAULT_KEY_HEADER = "user_id";

    private static final Logger LOG = LoggerFactory.getLogger(KeyedLoadBalancerSupport.class);

    private final RoundRobin keylessRotation = new RoundRobin();
    private final Settings<KeyedLoadBalancerSupport> keySettings = new Settings<>(this::isRunning);
    private volatile Expression key;
    private volatile String keyName;

    /**
     * @param key     evaluates an exchange's key as a String
     * @param keyName labels the key in decision logs, e.g. {@code user_id}
     */
    protected KeyedLoadBalancerSupport(Expression key, String keyName) {
        this.key = Objects.requireNonNull(key, "key");
        this.keyName = keyName;
    }

    /**
     * Keys exchanges by this header (JavaBean form of {@link KeyedBuilder#keyHeader}); applied,
     * and checked not blank, when the balancer starts.
     */
    public void setKeyHeader(String keyHeader) {
        keySettings.put("keyHeader", keyHeader,
                lb -> lb.useKey(ExpressionBuilder.headerExpression(Check.notBlank("keyHeader", keyHeader)), keyHeader));
    }

    /** @return the key header (or the key's name when keyed by another expression) */
    public String getKeyHeader() {
        return keySettings.get("keyHeader", keyName);
    }

    @Override
    protected void applySettings() {
        super.applySettings();
        keySettings.applyTo(this);
    }

    private void useKey(Expression expression, String name) {
        if (getCamelContext() != null) {
            expression.init(getCamelContext());
        }
        key = expression;
        keyName = name;
    }

    @Override
    protected void doInit() throws Exception {
        super.doInit();
        if (getCamelContext() != null) {
            key.init(getCamelContext());
        }
    }

    /** The exchange's key, or null when it is missing or blank. */
    protected final String keyOf(Exchange exchange) {
        String value = key.evaluate(exchange, String.class);
        return value == null || value.isBlank() ? null : value;
    }

    /** The label of the key in logs. */
    protected final String keyName() {
        return keyName;
    }

    /** The selection for an exchange without a key: the next agent in rotation, then the others. */
    protected final Selection keyless(Exchange exchange, List<String> agentIds) {
        LOG.debug("No {} on exchange {}: spreading it round-robin", keyName, exchange.getExchangeId());
        return new Selection(RoundRobinLB.rotationFrom(keylessRotation.next(agentIds.size()), agentIds),
                () -> keyName + "=<none>");
    }

    /**
     * The key part of a builder: {@link #keyHeader} or {@link #key}. Not thread-safe.
     *
     * @param <B> the concrete builder
     */
    public abstract static class KeyedBuilder<B extends KeyedBuilder<B>> {
        Expression key = ExpressionBuilder.headerExpression(DEFAULT_KEY_HEADER);
        String keyName = DEFAULT_KEY_HEADER;

        KeyedBuilder() {
        }

        /**
         * Keys exchanges by this header.
         *
         * @throws IllegalArgumentException if {@code header} is null or blank
         */
        public B keyHeader(String header) {
            Check.notBlank("keyHeader", header);
            return key(ExpressionBuilder.headerExpression(header), header);
        }

        /** Keys exchanges by {@code expression}; {@code name} labels the key in logs. */
        public B key(Expression expression, String name) {
            this.key = Objects.requireNonNull(expression, "key");
            this.keyName = name == null || name.isBlank() ? "key" : name;
            return self();
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }
    }
}
