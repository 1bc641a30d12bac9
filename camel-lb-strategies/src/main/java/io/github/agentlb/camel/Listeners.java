package io.github.agentlb.camel;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one balancer and their fan-out: a listener that throws is logged at DEBUG and
 * does not stop the others nor the exchange. Thread-safe (copy-on-write lists).
 */
final class Listeners {

    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

    private final List<AttemptListener> attempts = new CopyOnWriteArrayList<>();
    private final List<HealthListener> health = new CopyOnWriteArrayList<>();
    private final List<MembershipListener> membership = new CopyOnWriteArrayList<>();
    private final LongAdder ejections = new LongAdder();

    void add(AttemptListener listener) {
        attempts.add(Objects.requireNonNull(listener, "listener"));
    }

    void add(HealthListener listener) {
        health.add(Objects.requireNonNull(listener, "listener"));
    }

    void add(MembershipListener listener) {
        membership.add(Objects.requireNonNull(listener, "listener"));
    }

    boolean hasAttemptListeners() {
        return !attempts.isEmpty();
    }

    void attempt(String strategy, String agent, AttemptOutcome outcome, long elapsedNanos) {
        for (AttemptListener listener : attempts) {
            try {
                listener.attemptCompleted(strategy, agent, outcome, elapsedNanos);
            } catch (RuntimeException e) {
                LOG.debug("Attempt listener failed", e);
            }
        }
    }

    void ejected(String strategy, AgentFailure failure, Duration ejectionTime) {
        ejections.increment();
        DecisionLog.ejected(strategy, failure, ejectionTime);
        for (HealthListener listener : health) {
            try {
                listener.agentEjected(failure.agentId(), ejectionTime);
            } catch (RuntimeException e) {
                LOG.debug("Health listener failed", e);
            }
        }
    }

    void probed(String strategy, String agent, boolean passed) {
        for (HealthListener listener : health) {
            try {
                listener.agentProbed(agent, passed);
            } catch (RuntimeException e) {
                LOG.debug("Health listener failed", e);
            }
        }
    }

    void readmitted(String strategy, String agent) {
        DecisionLog.readmitted(strategy, agent);
        for (HealthListener listener : health) {
            try {
                listener.agentReadmitted(agent);
            } catch (RuntimeException e) {
                LOG.debug("Health listener failed", e);
            }
        }
    }

    long ejections() {
        return ejections.sum();
    }

    void agentsChanged(List<String> agentIds) {
        for (MembershipListener listener : membership) {
            notify(listener, agentIds);
        }
    }

    /** Tells the membership listeners what changed from {@code before} to {@code now}: the agents taking requests, the members, or both. */
    void published(BalancerState before, BalancerState now) {
        if (!now.agentIds().equals(before.agentIds())) {
            agentsChanged(now.agentIds());
        }
        if (!now.members().equals(before.members())) {
            for (MembershipListener listener : membership) {
                notifyMembers(listener, now.members());
            }
        }
    }

    static void notifyMembers(MembershipListener listener, List<String> members) {
        try {
            listener.membersChanged(members);
        } catch (RuntimeException e) {
            LOG.debug("Membership listener failed", e);
        }
    }

    static void notify(MembershipListener listener, List<String> agentIds) {
        try {
            listener.agentsChanged(agentIds);
        } catch (RuntimeException e) {
            LOG.debug("Membership listener failed", e);
        }
    }
}
