package io.github.agentlb.metrics;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.HealthListener;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Binds a balancer's figures to Micrometer; the balancer and its algorithm know nothing of it.
 *
 * <ul>
 *   <li>{@value #ATTEMPTS}: timer of attempts per agent, tags {@code strategy}, {@code agent},
 *       {@code outcome} ({@code success}, {@code failed_before_send}, {@code failed_after_send},
 *       {@code error}).
 *   <li>{@value #EJECTIONS}: counter of outlier ejections per agent; {@value #EJECTED}: gauge, 1
 *       while the agent is ejected (or on trial), else 0; tags {@code strategy}, {@code agent}.
 *   <li>{@value #AGENTS}: gauge, the number of agents.
 *   <li>{@code agentlb.agent.<name>}: one gauge per agent for each per-agent figure the strategy
 *       exposes ({@link AgentLoadBalancerSupport#agentMetrics()}): {@code weight} and
 *       {@code utilization} (fraction) for PID, {@code virtual.nodes} for adaptive virtual nodes;
 *       tags {@code strategy}, {@code agent}.
 *   <li>{@code agentlb.<name>}: one gauge for each balancer-wide figure
 *       ({@link AgentLoadBalancerSupport#balancerMetrics()}), e.g. {@code agentlb.imbalance.index}.
 * </ul>
 *
 * Gauges for agents that appear later are registered at their first attempt. Thread-safe.
 * Needs {@code io.micrometer:micrometer-core} on the classpath (an optional dependency).
 */
public final class LoadBalancerMetrics implements MeterBinder {

    /** The common prefix of every meter. */
    public static final String PREFIX = "agentlb.";
    /** Timer of attempts on agents. */
    public static final String ATTEMPTS = PREFIX + "attempts";
    /** Gauge of the number of agents. */
    public static final String AGENTS = PREFIX + "agents";
    /** Counter of outlier ejections. */
    public static final String EJECTIONS = PREFIX + "agent.ejections";
    /** Gauge, 1 while an agent is ejected. */
    public static final String EJECTED = PREFIX + "agent.ejected";
    /** Prefix of per-agent gauges. */
    public static final String AGENT_PREFIX = PREFIX + "agent.";

    private final AgentLoadBalancerSupport balancer;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Set<String> gauges = ConcurrentHashMap.newKeySet();

    public LoadBalancerMetrics(AgentLoadBalancerSupport balancer) {
        this.balancer = balancer;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        String strategy = balancer.strategyName();
        Gauge.builder(AGENTS, balancer, b -> b.agentIds().size()).tag("strategy", strategy).register(registry);
        registerStateGauges(registry, strategy);
        balancer.addHealthListener(new HealthListener() {
            @Override
            public void agentEjected(String agentId, Duration ejectionTime) {
                Counter.builder(EJECTIONS).description("Outlier ejections of an agent")
                        .tags("strategy", strategy, "agent", agentId).register(registry).increment();
            }
        });
        balancer.addAttemptListener((s, agent, outcome, nanos) -> {
            timers.computeIfAbsent(agent + '\u0000' + outcome, k -> Timer.builder(ATTEMPTS)
                    .tags(Tags.of("strategy", s, "agent", agent, "outcome", outcomeTag(outcome)))
                    .publishPercentileHistogram()
                    .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
            registerStateGauges(registry, s);
        });
    }

    private void registerStateGauges(MeterRegistry registry, String strategy) {
        balancer.agentIds().forEach(agent -> {
            if (gauges.add("ejected\u0000" + agent)) {
                Gauge.builder(EJECTED, balancer, b -> b.ejectedAgents().contains(agent) ? 1 : 0)
                        .description("1 while the agent is ejected by outlier detection, else 0")
                        .tags("strategy", strategy, "agent", agent).register(registry);
            }
        });
        balancer.agentMetrics().forEach((metric, byAgent) -> byAgent.keySet().forEach(agent -> {
            if (gauges.add(metric + '\u0000' + agent)) {
                Gauge.builder(AGENT_PREFIX + metric, balancer,
                                b -> b.agentMetrics().getOrDefault(metric, Map.of()).getOrDefault(agent, Double.NaN))
                        .tags("strategy", strategy, "agent", agent)
                        .register(registry);
            }
        }));
        balancer.balancerMetrics().keySet().forEach(metric -> {
            if (gauges.add(metric)) {
                Gauge.builder(PREFIX + metric, balancer, b -> b.balancerMetrics().getOrDefault(metric, Double.NaN))
                        .tag("strategy", strategy)
                        .register(registry);
            }
        });
    }

    private static String outcomeTag(AttemptOutcome outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }
}
