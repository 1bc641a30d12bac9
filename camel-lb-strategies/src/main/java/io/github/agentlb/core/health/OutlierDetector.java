package io.github.agentlb.core.health;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Passive outlier ejection for one balancer: counts each agent's consecutive failed attempts,
 * ejects an agent when they reach {@link OutlierEjection#consecutiveFailures()}, and re-admits it
 * by a one-request trial when its ejection time is up. The rules and defaults are
 * {@link OutlierEjection}'s; the model is nginx's {@code max_fails}/{@code fail_timeout} and
 * Envoy's outlier detection, decided on the request path (no timer), so a hung or dead agent is
 * ejected at its first failures rather than at the next sweep.
 *
 * <p>Ejection time: the n-th ejection in a row lasts {@code min(base x 2^(n-1), max)}; each
 * {@code base} an agent then stays healthy forgets one doubling.
 *
 * <p>Active health checks ({@link HealthCheckStates}) mark agents down and up through
 * {@link #markDown}: an agent marked down counts as ejected for every request (no trial, no cap,
 * not even as the last agent left) until it is marked up, which also ends a passive ejection.
 *
 * <p>An outcome reported with the {@link #generation()} its call was sent in counts only if the
 * agent's standing (ejected, re-admitted, marked down or up) has not changed since: a call sent
 * before, say one of a hung spell that times out after the agent was re-admitted, says nothing of
 * the agent now, as an answer sent before an ejection does not re-admit it.
 *
 * <p>Thread-safe. While no agent is ejected the request path is a volatile read
 * ({@link #hasEjections()}) and, per attempt, one map lookup and a field read
 * ({@link #onSuccess}): no lock, no allocation. Ejection, trial and re-admission (rare) take the
 * detector's monitor. Time comes from the injected clock (ns), so tests are exact.
 *
 * <p>Over 300 lines: one state machine per agent (healthy, ejected, on trial, marked down) with its
 * three streaks and the readiness question, which share one monitor and one generation.
 */
public final class OutlierDetector {

    /** What the detector says of sending a request to an agent now. */
    public enum Admission {
        /** Not ejected: send. */
        AVAILABLE,
        /** Ejected, its time is up, and this request is its one trial: send. */
        TRIAL,
        /** Ejected (or another request holds its trial): try it only when nothing else is left. */
        EJECTED
    }

    private static final int HEALTHY = 0;
    private static final int EJECTED = 1;
    private static final int ON_TRIAL = 2;
    /** Doublings beyond this cannot matter (2^30 x 1 ns exceeds any sane cap anyway). */
    private static final int MAX_LEVEL = 30;

    private final OutlierEjection config;
    private final LongSupplier nanoClock;
    private volatile Map<String, AgentHealth> agents = Map.of();
    private volatile int ejectedCount;
    /** Agents marked down by active health checks. */
    private volatile int downCount;
    /** Changes of standing so far (ejections, re-admissions, marks); written under the monitor. */
    private volatile long generation;

    /**
     * @param config    the ejection rules
     * @param nanoClock a monotonic clock in ns, e.g. {@code System::nanoTime}
     */
    public OutlierDetector(OutlierEjection config, LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** @return the rules in use */
    public OutlierEjection config() {
        return config;
    }

    /**
     * Sets the agents tracked. Survivors keep their state (an ejected agent stays ejected); new
     * agents start healthy; removed agents are forgotten.
     */
    public synchronized void setAgents(Collection<String> agentIds) {
        Map<String, AgentHealth> next = new HashMap<>();
        int ejected = 0;
        int down = 0;
        for (String id : agentIds) {
            AgentHealth health = agents.getOrDefault(id, new AgentHealth());
            next.put(id, health);
            ejected += health.state == HEALTHY ? 0 : 1;
            down += health.down ? 1 : 0;
        }
        agents = Map.copyOf(next);
        ejectedCount = ejected;
        downCount = down;
    }

    /** @return whether any agent is ejected, on trial or marked down; two volatile reads */
    public boolean hasEjections() {
        return ejectedCount > 0 || downCount > 0;
    }

    /**
     * Marks {@code agentId} down or up, as active health checks decide. Marked down, it is
     * {@link Admission#EJECTED} for every request, with no trial, whatever the cap; marked up
     * again, a passive ejection it also had ends (Envoy's {@code successful_active_health_check_uneject_host}).
     *
     * @return whether this changed the mark (false for an unknown agent or the same mark)
     */
    public synchronized boolean markDown(String agentId, boolean down) {
        AgentHealth h = agents.get(agentId);
        if (h == null || h.down == down) {
            return false;
        }
        h.down = down;
        downCount += down ? 1 : -1;
        if (!down && h.state != HEALTHY) {
            readmit(h);
        }
        changed(h); // and a fresh count: an agent marked up passed its checks
        h.consecutiveFailures.set(0);
        h.consecutiveErrorAnswers.set(0);
        h.consecutiveHedgesLost.set(0);
        return true;
    }

    /** Ends {@code h}'s ejection; under the monitor. */
    private void readmit(AgentHealth h) {
        h.state = HEALTHY;
        h.consecutiveFailures.set(0);
        h.healthySince = nanoClock.getAsLong();
        ejectedCount--;
        changed(h);
    }

    /** Records a change of {@code h}'s standing; under the monitor. */
    private void changed(AgentHealth h) {
        h.generation = ++generation;
    }

    /**
     * The generation of the agents' standing now, to be kept with a call when it is sent and given
     * back with its failure ({@link #onFailure(String, long)}): it grows by one at each ejection,
     * re-admission and mark. One volatile read.
     */
    public long generation() {
        return generation;
    }

    /** @return whether active health checks marked {@code agentId} down */
    public boolean isMarkedDown(String agentId) {
        AgentHealth h = agents.get(agentId);
        return h != null && h.down;
    }

    /**
     * Whether a request may go to {@code agentId} now. An ejected agent whose time is up is
     * handed to exactly one caller as {@link Admission#TRIAL}; if that trial's outcome is never
     * reported, another trial is allowed after one more base ejection time.
     */
    public Admission admit(String agentId) {
        AgentHealth h = agents.get(agentId);
        if (h == null || h.state == HEALTHY && !h.down) {
            return Admission.AVAILABLE;
        }
        if (h.down) {
            return Admission.EJECTED;
        }
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (h.state == EJECTED && now - h.ejectedUntil >= 0) {
                h.state = ON_TRIAL;
                h.trialStarted = now;
                return Admission.TRIAL;
            }
            if (h.state == ON_TRIAL && now - h.trialStarted >= config.baseEjectionTime().toNanos()) {
                h.trialStarted = now;
                return Admission.TRIAL;
            }
            return h.state == HEALTHY ? Admission.AVAILABLE : Admission.EJECTED;
        }
    }

    /**
     * Records an answer from {@code agentId} (a success or an error answer: the agent is alive).
     *
     * @return true if this re-admitted an ejected agent
     */
    public boolean onSuccess(String agentId) {
        return onSuccess(agentId, true);
    }

    /**
     * Records an answer from {@code agentId}, as {@link #onSuccess(String)}, but re-admits an
     * ejected agent only when {@code sentWhileEjected}: the request went to it as its trial or as
     * the last agent left. An answer to a request sent before the ejection (a slow one that was
     * already in flight) says nothing of the agent now, so it leaves the ejection as it is; for
     * an agent ejected for error answers it would otherwise let it back at once.
     *
     * @return true if this re-admitted an ejected agent
     */
    public boolean onSuccess(String agentId, boolean sentWhileEjected) {
        AgentHealth h = agents.get(agentId);
        if (h == null) {
            return false;
        }
        if (h.consecutiveErrorAnswers.get() != 0) {
            h.consecutiveErrorAnswers.set(0);
        }
        if (h.consecutiveHedgesLost.get() != 0) {
            h.consecutiveHedgesLost.set(0);
        }
        if (h.state == HEALTHY) {
            if (h.consecutiveFailures.get() != 0) {
                h.consecutiveFailures.set(0);
            }
            return false;
        }
        if (!sentWhileEjected) {
            return false;
        }
        synchronized (this) {
            // A membership change between the lookup and the lock recounted without this agent.
            if (h.state == HEALTHY || agents.get(agentId) != h) {
                return false;
            }
            readmit(h);
            return true;
        }
    }

    /**
     * Records a failed attempt on {@code agentId} (it could not answer).
     *
     * @return the ejection time if this failure ejected the agent (or ejected it again after a
     *     failed trial), else null: below the threshold, already ejected, or the
     *     {@link OutlierEjection#maxEjected cap} reached
     */
    public Duration onFailure(String agentId) {
        return onFailure(agentId, Long.MAX_VALUE);
    }

    /**
     * Records a failed attempt on {@code agentId} sent in generation {@code sentIn} ({@link #generation()}
     * when it was sent): as {@link #onFailure(String)} unless the agent's standing changed since, when it
     * counts for nothing.
     *
     * @return the ejection time if this failure ejected the agent, else null
     */
    public Duration onFailure(String agentId, long sentIn) {
        AgentHealth h = agents.get(agentId);
        if (h == null || !config.isEnabled() || sentIn < h.generation) {
            return null;
        }
        return onBadAttempt(agentId, h, h.consecutiveFailures, config.consecutiveFailures());
    }

    /**
     * Records an error answer from {@code agentId} (alive, but answering a 5xx of the balancer's
     * error statuses): {@link OutlierEjection#consecutiveErrorAnswers()} in a row eject it, as
     * Envoy's {@code consecutive_5xx}; one on trial ejects it again. Does not re-admit.
     *
     * @return the ejection time if this ejected the agent, else null
     */
    public Duration onErrorAnswer(String agentId) {
        return onErrorAnswer(agentId, Long.MAX_VALUE);
    }

    /**
     * Records an error answer from {@code agentId} to a call sent in generation {@code sentIn}: as
     * {@link #onErrorAnswer(String)} unless the agent's standing changed since, when it counts for nothing.
     *
     * @return the ejection time if this ejected the agent, else null
     */
    public Duration onErrorAnswer(String agentId, long sentIn) {
        AgentHealth h = agents.get(agentId);
        int threshold = config.consecutiveErrorAnswers();
        if (h == null || !config.isEnabled() || threshold == 0 || sentIn < h.generation) {
            return null;
        }
        return onBadAttempt(agentId, h, h.consecutiveErrorAnswers, threshold);
    }

    /**
     * Records that a call on {@code agentId} lost a hedged request's race: another agent's answer
     * came first, and this call was cut. Alone that says little: an agent alike whose answer time
     * spreads wide loses a race now and then. {@code threshold} lost in a row, with no answer from
     * the agent in between, eject it (an agent that is slower than the others loses every race
     * it is in); one lost on trial ejects it again. Counted apart from failures to answer.
     *
     * @param threshold races lost in a row that eject a healthy agent, >= 1
     * @return the ejection time if this ejected the agent, else null
     */
    public Duration onHedgeLost(String agentId, int threshold) {
        AgentHealth h = agents.get(agentId);
        if (h == null || !config.isEnabled()) {
            return null;
        }
        return onBadAttempt(agentId, h, h.consecutiveHedgesLost, threshold);
    }

    /**
     * Counts one bad attempt in {@code streak}: ejects a healthy agent whose streak reaches
     * {@code threshold} (unless capped) and one on trial; returns the ejection time, else null.
     */
    private Duration onBadAttempt(String agentId, AgentHealth h, AtomicInteger streak, int threshold) {
        h.lastFailure = nanoClock.getAsLong();
        if (h.state == HEALTHY && streak.incrementAndGet() < threshold) {
            return null;
        }
        synchronized (this) {
            if (agents.get(agentId) != h) {
                return null;
            }
            long now = nanoClock.getAsLong();
            if (h.state == ON_TRIAL) {
                return eject(h, now);
            }
            if (h.state == HEALTHY && streak.get() >= threshold
                    && ejectedCount < config.maxEjected(agents.size())) {
                ejectedCount++;
                return eject(h, now);
            }
            return null;
        }
    }

    private Duration eject(AgentHealth h, long now) {
        long base = config.baseEjectionTime().toNanos();
        if (h.level > 0 && h.healthySince != Long.MIN_VALUE && h.state == HEALTHY) {
            long forgotten = Math.max(0, (now - h.healthySince) / base);
            h.level = (int) Math.max(0, h.level - Math.min(forgotten, MAX_LEVEL));
        }
        long nanos = Math.min(config.maxEjectionTime().toNanos(), base << Math.min(h.level, MAX_LEVEL));
        if (nanos <= 0) {
            nanos = config.maxEjectionTime().toNanos();
        }
        h.level = Math.min(h.level + 1, MAX_LEVEL);
        h.ejectedUntil = now + nanos;
        h.state = EJECTED; // after ejectedUntil: the volatile write publishes it to hasAgentToTry
        changed(h);
        h.consecutiveFailures.set(0);
        h.consecutiveErrorAnswers.set(0);
        h.consecutiveHedgesLost.set(0);
        return Duration.ofNanos(nanos);
    }

    /** @return the ids of the agents ejected, on trial or marked down now, sorted */
    public Set<String> ejected() {
        Set<String> out = new TreeSet<>();
        agents.forEach((id, h) -> {
            if (h.state != HEALTHY || h.down) {
                out.add(id);
            }
        });
        return out;
    }

    /**
     * Whether some agent is not known to be failing now: one not marked down that is healthy and below the
     * failure threshold, on trial, ejected with its time up (the next request tries it), or at
     * the threshold but not ejected (the {@link OutlierEjection#maxEjected cap} keeps at least one
     * agent in) with its last failure one base ejection time ago or more. False with no agent,
     * or with ejection disabled never false for an agent set. Meant for a readiness check: it
     * turns true again by itself as time passes, without traffic. O(agents), no lock.
     */
    public boolean hasAgentToTry() {
        long now = nanoClock.getAsLong();
        long base = config.baseEjectionTime().toNanos();
        for (AgentHealth h : agents.values()) {
            if (h.down) {
                continue;
            }
            int state = h.state;
            boolean toTry = switch (state) {
                case ON_TRIAL -> true;
                case EJECTED -> now - h.ejectedUntil >= 0;
                default -> h.consecutiveFailures.get() < config.consecutiveFailures() || now - h.lastFailure >= base;
            };
            if (toTry) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return whether {@code agentId} is ejected (not marked down, not on trial) and its ejection
     *     time is up: its trial request may go now ({@link #admit})
     */
    public boolean ejectionOver(String agentId) {
        AgentHealth h = agents.get(agentId);
        return h != null && !h.down && h.state == EJECTED && nanoClock.getAsLong() - h.ejectedUntil >= 0;
    }

    /** @return whether {@code agentId} is ejected or on trial */
    public boolean isEjected(String agentId) {
        AgentHealth h = agents.get(agentId);
        return h != null && (h.state != HEALTHY || h.down);
    }

    /**
     * @return ns until {@code agentId}'s ejection time is up (0 once it is, or while on trial);
     *     0 for a healthy or unknown agent
     */
    public long remainingNanos(String agentId) {
        AgentHealth h = agents.get(agentId);
        if (h == null || h.state != EJECTED) {
            return 0;
        }
        return Math.max(0, h.ejectedUntil - nanoClock.getAsLong());
    }

    private static final class AgentHealth {
        final AtomicInteger consecutiveFailures = new AtomicInteger();
        final AtomicInteger consecutiveErrorAnswers = new AtomicInteger();
        final AtomicInteger consecutiveHedgesLost = new AtomicInteger();
        volatile int state = HEALTHY;
        /** Marked down by active health checks; written under the detector's monitor. */
        volatile boolean down;
        /** The clock's time of the last failure reported, ns; read without the monitor. */
        volatile long lastFailure;
        /** The {@link #generation} of its last change of standing; 0 while it had none. */
        volatile long generation;
        long ejectedUntil;
        long trialStarted;
        long healthySince = Long.MIN_VALUE;
        int level;
    }
}
