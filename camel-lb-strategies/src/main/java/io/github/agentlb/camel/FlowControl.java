package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.queue.FairQueue;
import java.time.Duration;
import java.util.Objects;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.support.builder.ExpressionBuilder;

/**
 * What a balancer does when its agents are full: a per-agent concurrency limit and a bounded, fair
 * queue in front of the agents (the Gateway API inference extension's flow control, with VTC
 * fairness: {@link io.github.agentlb.core.queue.FairQueue}). Off by default ({@link #DISABLED}).
 *
 * <ul>
 *   <li>{@code maxInFlightPerAgent}: an agent with this many requests in flight through the balancer
 *       takes no new one (0: no limit). When every agent is at its limit and the queue is off, the
 *       exchange fails with {@link AgentsBusyException} (429, {@code Retry-After: 1}).</li>
 *   <li>{@code queueSize}: when every agent is at its limit, up to this many exchanges wait in the
 *       balancer (0: no queue), holding no thread, and are released as requests end: by priority
 *       band, then the least-served tenant. A full queue refuses with {@link AgentsBusyException}
 *       (429, {@code Retry-After: 1}); an exchange that waited {@code queueTimeout} fails with
 *       {@link QueueTimeoutException} (a {@link NoAgentAvailableException}: 503 where a route maps
 *       that, or 504 where it maps this one first).</li>
 *   <li>{@code tenant}: the tenant of an exchange, a Camel expression read as a String (header
 *       {@value #DEFAULT_TENANT_HEADER} by default; missing or blank: the shared tenant {@code ""}).</li>
 *   <li>{@code priorityHeader}: the header whose integer value is the exchange's band (header
 *       {@value #DEFAULT_PRIORITY_HEADER} by default; higher is released first; missing or not an
 *       integer: band 0).</li>
 *   <li>{@code maxInFlightPerTenant}: a tenant with this many exchanges let through and not yet
 *       completed gets no more let through; its next ones wait in the queue even while agents have
 *       room, which stays for the other tenants (nginx's {@code limit_conn} per key, with waiting
 *       instead of refusal), while another tenant has sent within the last second ({@link
 *       TenantPlaces}): a tenant alone takes every place. 0: no limit. The exchanges without a
 *       tenant are one tenant, {@code ""}. It keeps places free for a light tenant beside a heavy
 *       one, at the cost of the places the light one leaves idle.</li>
 * </ul>
 *
 * @param maxInFlightPerAgent requests in flight per agent, >= 0 (0: no limit)
 * @param queueSize           exchanges waiting at most, >= 0 (0: no queue); > 0 needs {@code maxInFlightPerAgent > 0} in a {@link BalancerConfig}
 * @param queueTimeout        the longest wait in the queue, > 0 ({@value #DEFAULT_QUEUE_TIMEOUT_SECONDS} s)
 * @param tenant              the exchange's tenant
 * @param maxInFlightPerTenant exchanges of one tenant let through and not completed, >= 0 (0: no limit); > 0 needs {@code queueSize > 0}
 * @param tenantName          what {@code tenant} is called in logs and {@code getTenantHeader()}
 * @param priorityHeader      the header of the exchange's band
 */
public record FlowControl(int maxInFlightPerAgent, int queueSize, Duration queueTimeout, Expression tenant,
                          int maxInFlightPerTenant, String tenantName, String priorityHeader) {

    /** The header read as the tenant by default. */
    public static final String DEFAULT_TENANT_HEADER = "X-Tenant";
    /** The header read as the priority band by default. */
    public static final String DEFAULT_PRIORITY_HEADER = "X-Priority";
    /** The longest wait in the queue by default, seconds. */
    public static final long DEFAULT_QUEUE_TIMEOUT_SECONDS = 30;
    /** No limit, no queue. */
    public static final FlowControl DISABLED = new FlowControl(0, 0, Duration.ofSeconds(DEFAULT_QUEUE_TIMEOUT_SECONDS),
            ExpressionBuilder.headerExpression(DEFAULT_TENANT_HEADER), 0, DEFAULT_TENANT_HEADER, DEFAULT_PRIORITY_HEADER);

    /**
     * The relation {@code queueSize > 0} needs {@code maxInFlightPerAgent > 0} is checked by
     * {@link BalancerConfig} ({@link #checkRelation()}), so the two knobs can be set in either order.
     *
     * @throws IllegalArgumentException naming the field and value out of range
     */
    public FlowControl {
        Check.atLeast("maxInFlightPerAgent", maxInFlightPerAgent, 0);
        Check.atLeast("queueSize", queueSize, 0);
        Check.positive("queueTimeout", queueTimeout);
        Objects.requireNonNull(tenant, "tenant");
        Check.atLeast("maxInFlightPerTenant", maxInFlightPerTenant, 0);
        tenantName = tenantName == null || tenantName.isBlank() ? "tenant" : tenantName;
        Check.headerName("priorityHeader", priorityHeader);
    }

    /** @throws IllegalArgumentException naming {@code queueSize} when it is set without {@code maxInFlightPerAgent} */
    FlowControl checkRelation() {
        if (queueSize > 0 && maxInFlightPerAgent == 0) {
            throw new IllegalArgumentException("queueSize=" + queueSize + " needs maxInFlightPerAgent > 0: the queue"
                    + " holds requests while every agent is at that limit");
        }
        if (maxInFlightPerTenant > 0 && queueSize == 0) {
            throw new IllegalArgumentException("maxInFlightPerTenant=" + maxInFlightPerTenant + " needs queueSize > 0:"
                    + " a tenant at its limit waits in the queue");
        }
        return this;
    }

    /** @return whether agents have a concurrency limit */
    public boolean limited() {
        return maxInFlightPerAgent > 0;
    }

    /** @return whether a tenant's exchanges in flight are limited */
    public boolean tenantLimited() {
        return maxInFlightPerTenant > 0;
    }

    /** @return whether exchanges wait in the queue when every agent is at its limit */
    public boolean queued() {
        return queueSize > 0;
    }

    public FlowControl withMaxInFlightPerAgent(int value) {
        return new FlowControl(value, queueSize, queueTimeout, tenant, maxInFlightPerTenant, tenantName, priorityHeader);
    }

    public FlowControl withQueueSize(int value) {
        return new FlowControl(maxInFlightPerAgent, value, queueTimeout, tenant, maxInFlightPerTenant, tenantName, priorityHeader);
    }

    public FlowControl withQueueTimeout(Duration value) {
        return new FlowControl(maxInFlightPerAgent, queueSize, value, tenant, maxInFlightPerTenant, tenantName, priorityHeader);
    }

    public FlowControl withMaxInFlightPerTenant(int value) {
        return new FlowControl(maxInFlightPerAgent, queueSize, queueTimeout, tenant, value, tenantName, priorityHeader);
    }

    /**
     * The tenant read from {@code header}, a header name (or one built with the simple language,
     * {@link Check#headerNameTemplate}); for a tenant computed from the request (an API key's hash),
     * {@link #withTenant}.
     *
     * @throws IllegalArgumentException if it names no header: not an RFC 9110 token ({@code X Tenant}
     *     could match no header), or only an expression ({@code ${header.X-Tenant}} would name the
     *     header by the value)
     */
    public FlowControl withTenantHeader(String header) {
        return withTenant(ExpressionBuilder.headerExpression(Check.headerNameTemplate("tenantHeader", header)), header);
    }

    /** The tenant as {@code expression} evaluates it (a String), e.g. an API key's hash; {@code name} for logs. */
    public FlowControl withTenant(Expression expression, String name) {
        return new FlowControl(maxInFlightPerAgent, queueSize, queueTimeout, expression, maxInFlightPerTenant, name,
                priorityHeader);
    }

    public FlowControl withPriorityHeader(String header) {
        return new FlowControl(maxInFlightPerAgent, queueSize, queueTimeout, tenant, maxInFlightPerTenant, tenantName, header);
    }

    /** The exchange's band: the priority header as an integer; 0 when missing or not one. */
    int bandOf(Exchange exchange) {
        Object value = exchange.getIn().getHeader(priorityHeader);
        if (value instanceof Number n) {
            return n.intValue();
        }
        try {
            return value == null ? 0 : Integer.parseInt(value.toString().strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The exchange's tenant by the flow control's expression; {@code ""} when missing. */
    String tenantOf(Exchange exchange) {
        String value = AgentKeys.text(exchange, tenant.evaluate(exchange, Object.class));
        return value == null || value.isBlank() ? "" : value;
    }

    /**
     * The tokens {@code exchange}'s answer used, to charge its tenant: {@link AgentLb#OUTPUT_TOKENS_PROPERTY}
     * when set, else read from its answer ({@link AnswerRules#outputTokens}); 0 when unknown or not
     * a positive finite number.
     */
    static double outputTokens(Exchange exchange) {
        Object tokens = exchange.getProperty(AgentLb.OUTPUT_TOKENS_PROPERTY);
        if (tokens == null) {
            tokens = AnswerRules.outputTokens(exchange);
        }
        return tokens instanceof Number n && n.doubleValue() > 0 && Double.isFinite(n.doubleValue()) ? n.doubleValue() : 0;
    }

    /** The request's prompt tokens, estimated as its body's bytes / 4: {@code Content-Length}, else an in-memory body's length. */
    static long promptTokens(Exchange exchange) {
        Object length = exchange.getIn().getHeader(Exchange.CONTENT_LENGTH);
        long bytes = -1;
        if (length instanceof Number n) {
            bytes = n.longValue();
        } else if (length != null) {
            try {
                bytes = Long.parseLong(length.toString().strip());
            } catch (NumberFormatException e) {
                bytes = -1;
            }
        }
        if (bytes < 0) {
            Object body = exchange.getIn().getBody();
            bytes = body instanceof byte[] b ? b.length : body instanceof CharSequence s ? s.length() : 0;
        }
        return FairQueue.estimateTokens(bytes);
    }
}
