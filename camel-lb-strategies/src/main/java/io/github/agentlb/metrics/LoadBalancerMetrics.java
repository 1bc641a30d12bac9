package io.github.agentlb.metrics;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.HealthListener;
import io.github.agentlb.camel.MembershipListener;
import io.github.agentlb.core.shared.AllocationSource;
import io.github.agentlb.camel.QueueFigures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToDoubleFunction;

/**
 * Binds a balancer's figures to Micrometer; the balancer and its algorithm know nothing of it.
 *
 * <ul>
 *   <li>{@value #ATTEMPTS}: timer of attempts per agent, tags {@code strategy}, {@code agent},
 *       {@code outcome}: the {@link AttemptOutcome} in lower case ({@code success},
 *       {@code failed_before_send}, {@code failed_after_send}, {@code error_answer}, {@code busy}, ...),
 *       except {@link AttemptOutcome#EXCEPTION_ANSWER}, tagged {@code error} as it always was.
 *   <li>{@value #EJECTIONS}: counter of outlier ejections per agent, at 0 from the agent's joining; {@value #EJECTED}: gauge, 1
 *       while the agent is ejected (or on trial), else 0; tags {@code strategy}, {@code agent}.
 *   <li>{@value #AGENTS}: gauge, the number of agents.
 *   <li>{@code agentlb.agent.<name>}: one gauge per agent for each per-agent figure the strategy
 *       exposes ({@link AgentLoadBalancerSupport#agentMetrics()}): {@code weight}, the configured
 *       weight for rr, ch and lr and the learned one for PID; {@code utilization} (fraction) for PID,
 *       {@code in.flight} for lr, {@code virtual.nodes} for adaptive virtual nodes;
 *       tags {@code strategy}, {@code agent}.
 *   <li>{@code agentlb.<name>}: one gauge for each balancer-wide figure
 *       ({@link AgentLoadBalancerSupport#balancerMetrics()}), e.g. {@code agentlb.imbalance.index},
 *       {@code agentlb.allocation.generation} of an {@code avn} balancer sharing its allocation.
 *   <li>{@value #ALLOCATION_SOURCE}: for an {@code avn} balancer sharing its allocation, one gauge
 *       per {@code source} ({@code leader}, {@code local}), 1 for the current one.
 *   <li>The queue when agents are full ({@link io.github.agentlb.camel.FlowControl}), tag {@code strategy}:
 *       {@value #QUEUE_WAITING}, gauge of the exchanges waiting per {@code band} ({@code band="all"},
 *       and a gauge per band registered when the {@code all} gauge is first read with it, for at most
 *       {@value #MAX_BAND_GAUGES} bands); {@value #QUEUE_RELEASED},
 *       {@value #QUEUE_WAIT}, function counters of the exchanges released and their total wait
 *       (seconds; wait per release = the ratio of their rates); {@value #QUEUE_WAIT_MAX}, gauge of the
 *       longest wait (seconds); {@value #QUEUE_REJECTED}, function counters per {@code reason}:
 *       {@code full} (429), {@code expired} (waited {@code queueTimeout}), {@code left} (the client left).
 * </ul>
 *
 * Every meter has a description (Prometheus' {@code # HELP}). Each registry bound gets its own
 * meters, and records each attempt once. Per-agent meters are registered when the agent joins
 * (a {@link io.github.agentlb.camel.MembershipListener}, not on the request path) and removed
 * from the registry when it leaves: a draining agent keeps them until its last request has ended,
 * been timed, and it has left (a scrape after that no longer sees them), and an attempt that ends
 * after its agent left (removed at once while it ran) is not timed, so no series outlives its
 * agent. Thread-safe. Needs {@code io.micrometer:micrometer-core} on the classpath (an optional
 * dependency).
 *
 * <p>Over 300 lines: one meter per figure, each with its name, description and tags, the way
 * dashboards read them; the per-agent part follows the membership in one place.
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
    /** Gauge, 1 for the source the allocation routed by comes from ({@code source=leader|local}), else 0. */
    public static final String ALLOCATION_SOURCE = PREFIX + "allocation.source";
    /** Gauge of the exchanges waiting in the queue, per {@code band}. */
    public static final String QUEUE_WAITING = PREFIX + "queue.waiting";
    /**
     * The most bands given a {@value #QUEUE_WAITING} gauge of their own (the first seen): bands come
     * from a request header, so without a bound a client could add a series per value; the others
     * are counted in {@code band="all"} only.
     */
    public static final int MAX_BAND_GAUGES = 16;
    /** Function counter of the exchanges released from the queue. */
    public static final String QUEUE_RELEASED = PREFIX + "queue.released";
    /** Function counter of the total wait of the exchanges released, seconds. */
    public static final String QUEUE_WAIT = PREFIX + "queue.wait.seconds";
    /** Gauge of the longest wait of an exchange released, seconds. */
    public static final String QUEUE_WAIT_MAX = PREFIX + "queue.wait.max.seconds";
    /** Function counter of the exchanges that left the queue without an agent, per {@code reason}. */
    public static final String QUEUE_REJECTED = PREFIX + "queue.rejected";
    /** Prefix of per-agent gauges. */
    public static final String AGENT_PREFIX = PREFIX + "agent.";

    private static final Map<String, String> DESCRIPTIONS = Map.of(
            "weight", "Weight of the agent: the configured one (rr, ch, lr), or the learned one, relative to the mean 1.0 (pid)",
            "utilization", "Utilization of the agent at the last control step, fraction (NaN without a signal)",
            "virtual.nodes", "Virtual nodes of the agent on the hash ring",
            "imbalance.index", "Imbalance index S of the last evaluation, fraction",
            "reallocations", "Virtual nodes moved since start",
            "utilization.max.over.mean", "Largest agent utilization over the mean utilization",
            "allocation.generation", "Generation of the shared allocation installed, 0 without one");

    private static final int OUTCOMES = AttemptOutcome.values().length;

    private final AgentLoadBalancerSupport balancer;
    private final Tags tags;

    /** The meters of {@code balancer}, tagged {@code strategy} (and {@code agent}, ... as above). */
    public LoadBalancerMetrics(AgentLoadBalancerSupport balancer) {
        this(balancer, Tags.empty());
    }

    /**
     * The meters of {@code balancer} with {@code tags} on each beside {@code strategy}: what tells
     * two balancers of one strategy apart in one registry (two routes: {@code Tags.of("route", "r1")}).
     *
     * @throws NullPointerException when {@code tags} is null
     */
    public LoadBalancerMetrics(AgentLoadBalancerSupport balancer, Iterable<Tag> tags) {
        this.balancer = balancer;
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /**
     * @throws IllegalArgumentException when {@code registry} holds another balancer's meters under the
     *     same tags: their series would be one, and one balancer's membership change would remove the
     *     other's (give each its own tags, {@link #LoadBalancerMetrics(AgentLoadBalancerSupport, Iterable)})
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Tags common = Tags.of("strategy", balancer.strategyName()).and(tags);
        if (registry.find(AGENTS).tags(common).meter() != null) {
            throw new IllegalArgumentException("registry already holds a balancer's meters tagged " + common
                    + ": give each balancer tags of its own, new LoadBalancerMetrics(balancer, Tags.of(\"route\", ...))");
        }
        new Binding(registry, common).bind();
    }

    private static String description(String figure) {
        return DESCRIPTIONS.getOrDefault(figure, "Balancer figure " + figure);
    }

    /** The meters of one registry. */
    private final class Binding {
        private final MeterRegistry registry;
        /** {@code strategy} and the tags given: on every meter. */
        private final Tags common;
        /** Per member, its attempt timers indexed by {@link AttemptOutcome#ordinal()}, each made on first use. */
        private final Map<String, AtomicReferenceArray<Timer>> timers = new ConcurrentHashMap<>();
        /** Per member (draining agents included), every meter registered for it. */
        private final Map<String, List<Meter>> byAgent = new ConcurrentHashMap<>();
        private final Set<Integer> bands = ConcurrentHashMap.newKeySet();

        Binding(MeterRegistry registry, Tags common) {
            this.registry = registry;
            this.common = common;
        }

        void bind() {
            Gauge.builder(AGENTS, balancer, b -> b.getAgentIds().size()).description("Agents of the balancer")
                    .tags(common).register(registry);
            balancer.balancerMetrics().keySet().forEach(figure -> Gauge.builder(PREFIX + figure, balancer,
                            b -> b.balancerMetrics().getOrDefault(figure, Double.NaN))
                    .description(description(figure)).tags(common).register(registry));
            if (balancer instanceof AdaptiveVirtualNodeLB avn && avn.sharesAllocation()) {
                for (AllocationSource source : AllocationSource.values()) {
                    Gauge.builder(ALLOCATION_SOURCE, avn, b -> b.allocationSource() == source ? 1 : 0)
                            .description("1 for where the allocation routed by comes from (leader: shared, local: this "
                                    + "replica's own), else 0")
                            .tags(common).tags("source", source.name().toLowerCase(Locale.ROOT)).register(registry);
                }
            }
            counter(PREFIX + "retries", b -> b.getRetries(),
                    "Failover attempts (retries) started since the balancer was created");
            counter(PREFIX + "retry.budget.exhausted", b -> b.getRetryBudgetExhausted(),
                    "Failover attempts the retry budget refused since the balancer was created");
            counter(PREFIX + "hedges.sent", b -> b.getHedgesSent(),
                    "Hedged requests' second (or later) attempts sent since the balancer was created");
            counter(PREFIX + "hedges.won", b -> b.getHedgesWon(),
                    "Hedges whose answer head came first since the balancer was created");
            bindQueue();
            balancer.addMembershipListener(new MembershipListener() {
                @Override
                public void agentsChanged(List<String> agentIds) {
                    // a draining agent keeps its meters: see membersChanged
                }

                @Override
                public void membersChanged(List<String> members) {
                    Binding.this.membersChanged(members);
                }
            });
            balancer.addAttemptListener(this::attempt);
            balancer.addHealthListener(new HealthListener() {
                @Override
                public void agentEjected(String agentId, Duration ejectionTime) {
                    Counter counter = ejections(agentId);
                    if (counter != null) {
                        counter.increment();
                    }
                }
            });
        }

        private void bindQueue() {
            Gauge.builder(QUEUE_WAITING, balancer, b -> {
                        QueueFigures figures = b.queueFigures();
                        figures.waiting().keySet().forEach(this::bandSeen);
                        return figures.size();
                    })
                    .description("Exchanges waiting in the balancer's queue").tags(common).tags("band", "all")
                    .register(registry);
            balancer.queueFigures().waiting().keySet().forEach(this::bandSeen);
            counter(QUEUE_RELEASED, b -> b.queueFigures().released(), "Exchanges released from the queue to an agent");
            counter(QUEUE_WAIT, b -> b.queueFigures().waitNanos() / 1e9,
                    "Total wait of the exchanges released from the queue, seconds");
            Gauge.builder(QUEUE_WAIT_MAX, balancer, b -> b.queueFigures().maxWaitNanos() / 1e9)
                    .description("Longest wait of an exchange released from the queue, seconds")
                    .tags(common).register(registry);
            Map<String, ToDoubleFunction<QueueFigures>> reasons = Map.of("full", QueueFigures::rejectedFull,
                    "expired", QueueFigures::expired, "left", QueueFigures::left);
            reasons.forEach((reason, count) -> FunctionCounter.builder(QUEUE_REJECTED, balancer,
                            b -> count.applyAsDouble(b.queueFigures()))
                    .description("Exchanges that left the queue without an agent: full (429), expired, left (client gone)")
                    .tags(common).tags("reason", reason).register(registry));
        }

        /** Registers a function counter of the balancer, tagged with its strategy. */
        private void counter(String name, ToDoubleFunction<AgentLoadBalancerSupport> count, String description) {
            FunctionCounter.builder(name, balancer, count).description(description).tags(common)
                    .register(registry);
        }

        /**
         * Registers the gauge of a band the first time it is seen (when the "all" gauge is read), for
         * the first {@link #MAX_BAND_GAUGES} bands: bands come from requests.
         */
        private synchronized void bandSeen(Integer band) {
            if (bands.size() < MAX_BAND_GAUGES && bands.add(band)) {
                Gauge.builder(QUEUE_WAITING, balancer, b -> b.queueFigures().waiting().getOrDefault(band, 0))
                        .description("Exchanges waiting in the balancer's queue")
                        .tags(common).tags("band", Integer.toString(band)).register(registry);
            }
        }

        /** Registers the meters of members that joined and removes those of members that left. */
        private synchronized void membersChanged(List<String> members) {
            Set<String> gone = new HashSet<>(byAgent.keySet());
            members.forEach(gone::remove);
            for (String agent : gone) {
                byAgent.remove(agent).forEach(registry::remove);
                timers.remove(agent);
            }
            for (String agent : members) {
                if (!byAgent.containsKey(agent)) {
                    byAgent.put(agent, register(agent));
                    timers.put(agent, new AtomicReferenceArray<>(OUTCOMES));
                }
            }
        }

        /** The ejection counter of a member, registered when it joined ({@link #register}); null for an agent that has left. */
        private synchronized Counter ejections(String agent) {
            return byAgent.containsKey(agent) ? ejectionCounter(agent) : null;
        }

        private Counter ejectionCounter(String agent) {
            return Counter.builder(EJECTIONS).description("Outlier ejections and health-check mark-downs of the agent")
                    .tags(common).tags("agent", agent).register(registry);
        }

        /** A joining member's meters; its ejection counter at 0 from the start, so that its first ejection is an increase. */
        private List<Meter> register(String agent) {
            List<Meter> meters = new CopyOnWriteArrayList<>();
            meters.add(ejectionCounter(agent));
            meters.add(Gauge.builder(EJECTED, balancer, b -> b.getEjectedAgents().contains(agent) ? 1 : 0)
                    .description("1 while the agent is ejected, on trial or marked down by health checks, else 0")
                    .tags(common).tags("agent", agent).register(registry));
            balancer.agentMetrics().keySet().forEach(figure -> meters.add(Gauge.builder(AGENT_PREFIX + figure,
                            balancer, b -> b.agentMetrics().getOrDefault(figure, Map.of()).getOrDefault(agent, Double.NaN))
                    .description(description(figure)).tags(common).tags("agent", agent).register(registry)));
            return meters;
        }

        /** Times an attempt under its agent's meters; one that ended after its agent left is not timed (its meters are gone). */
        private void attempt(String s, String agent, AttemptOutcome outcome, long nanos) {
            AtomicReferenceArray<Timer> byOutcome = timers.get(agent);
            if (byOutcome == null) {
                return;
            }
            Timer timer = byOutcome.get(outcome.ordinal());
            if (timer == null) {
                timer = timer(agent, outcome, byOutcome);
                if (timer == null) {
                    return;
                }
            }
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }

        /** Registers an agent's timer of one outcome on first use, unless the agent has left meanwhile. */
        private synchronized Timer timer(String agent, AttemptOutcome outcome, AtomicReferenceArray<Timer> byOutcome) {
            List<Meter> meters = byAgent.get(agent);
            if (meters == null || timers.get(agent) != byOutcome) {
                return null;
            }
            Timer timer = Timer.builder(ATTEMPTS).description("Attempts on agents, by outcome")
                    .tags(common).tags("agent", agent, "outcome", outcomeTag(outcome))
                    .publishPercentileHistogram().register(registry);
            meters.add(timer);
            byOutcome.set(outcome.ordinal(), timer);
            return timer;
        }
    }

    /** The {@code outcome} tag: the outcome in lower case; {@code error} for an exception answer, the tag dashboards know. */
    static String outcomeTag(AttemptOutcome outcome) {
        return outcome == AttemptOutcome.EXCEPTION_ANSWER ? "error" : outcome.name().toLowerCase(Locale.ROOT);
    }
}
