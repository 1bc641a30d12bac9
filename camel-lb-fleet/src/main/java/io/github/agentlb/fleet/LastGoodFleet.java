package io.github.agentlb.fleet;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import io.github.agentlb.core.fleet.NameList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every source does with what it reads: hands a valid fleet to its listener when it differs
 * from the last one, and otherwise keeps the last good fleet and says why in one WARN line (one
 * per distinct reason, not one per read). A fleet is valid when it is not empty, its names are
 * distinct and at least one agent is not draining: a balancer never ends up empty, or with only
 * draining agents, by accident of a bad read. A source whose read failed in part (one DNS address
 * family of two) offers what it read with that part's agents of the last good fleet, and the reason
 * ({@link #offer(List, String)}): the fleet is applied, the reason logged as a bad read's is.
 *
 * <p>Logs one INFO line per applied change (agents added, removed, drained, re-weighted), each list
 * of names bounded ({@link NameList}). An agent that was draining and is no longer takes new
 * requests again, so it is listed as added, as a new line marked draining is listed as draining.
 * Thread-safe: every method is synchronized, and the listener is called under that lock, one
 * fleet at a time. Public for the other source modules; not meant for users.
 */
public final class LastGoodFleet {

    private final String source;
    private final FleetListener listener;
    private final Logger log;
    private List<AgentSpec> fleet = List.of();
    private String problem;
    /** Whether {@link #problem} is a part's (the rest of the read applied) rather than a whole read's. */
    private boolean problemInPart;

    /**
     * @param source   the source's {@link io.github.agentlb.core.fleet.FleetSource#describe()}, starting each log line
     * @param listener told each new valid fleet
     * @param logger   the class that logs (the source's)
     */
    public LastGoodFleet(String source, FleetListener listener, Class<?> logger) {
        this.source = Objects.requireNonNull(source, "source");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.log = LoggerFactory.getLogger(logger);
    }

    /**
     * Applies the first fleet a source read, on the caller's thread.
     *
     * @throws IllegalArgumentException naming the source and the reason if it is invalid or the
     *                                  listener refuses it
     */
    public synchronized void first(List<AgentSpec> agents) {
        first(agents, null);
    }

    /**
     * Applies the first fleet a source read in part, on the caller's thread: as {@link #first(List)},
     * then {@code partProblem} is logged at WARN and kept as {@link #problem()}.
     *
     * @param partProblem why a part of the read failed, or null when the whole read succeeded
     * @throws IllegalArgumentException naming the source and the reason if it is invalid or the
     *                                  listener refuses it
     */
    public synchronized void first(List<AgentSpec> agents, String partProblem) {
        String reason = check(agents);
        if (reason != null) {
            throw new IllegalArgumentException(source + ": " + reason);
        }
        try {
            listener.fleetChanged(List.copyOf(agents));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": the fleet was refused: " + e.getMessage(), e);
        }
        fleet = List.copyOf(agents);
        List<String> draining = agents.stream().filter(AgentSpec::draining).map(AgentSpec::name).toList();
        log.info("{}: fleet of {} agents: {}{}", source, agents.size(), NameList.of(names(agents)),
                draining.isEmpty() ? "" : ", draining " + NameList.of(draining));
        readInPart(partProblem);
    }

    /**
     * Offers a fleet read later: hands it on if valid and changed, otherwise keeps the last one.
     *
     * @return false if it was invalid or the listener refused it (the caller may retry), true otherwise
     */
    public synchronized boolean offer(List<AgentSpec> agents) {
        return offer(agents, null);
    }

    /**
     * Offers a fleet read in part: a part of the read failed for {@code partProblem}, and
     * {@code agents} holds what the other parts gave plus the failed part's agents of the last good
     * fleet. Handed on as {@link #offer(List)} does; once applied, {@code partProblem} is
     * {@link #problem()} and logged at WARN once per distinct reason, until a whole read clears it.
     *
     * @param partProblem why a part of the read failed, or null when the whole read succeeded
     * @return false if it was invalid or the listener refused it (the caller may retry), true otherwise
     */
    public synchronized boolean offer(List<AgentSpec> agents, String partProblem) {
        String reason = check(agents);
        if (reason != null) {
            reject(reason);
            return false;
        }
        if (agents.equals(fleet)) {
            if (problem != null && partProblem == null) {
                log.info("{}: read again without problem, fleet unchanged ({} agents)", source, fleet.size());
            }
        } else {
            try {
                listener.fleetChanged(List.copyOf(agents));
            } catch (IllegalArgumentException e) {
                reject("the fleet was refused: " + e.getMessage());
                return false;
            } catch (RuntimeException e) {
                if (!("listener failed: " + e).equals(problem)) {
                    log.warn("{}: keeping the last good fleet of {} agents: the listener failed", source, fleet.size(), e);
                }
                problem = "listener failed: " + e;
                problemInPart = false;
                return false;
            }
            String change = change(fleet, agents);
            fleet = List.copyOf(agents);
            log.info("{}: fleet of {} agents: {}", source, fleet.size(), change);
        }
        readInPart(partProblem);
        return true;
    }

    /** After an applied fleet: keeps {@code partProblem} (null: none), logged at WARN unless it is the reason already logged. */
    private void readInPart(String partProblem) {
        if (partProblem != null && (!partProblem.equals(problem) || !problemInPart)) {
            log.warn("{}: read in part, the agents of the part that failed kept as they were (fleet of {} agents): {}",
                    source, fleet.size(), partProblem);
        }
        problem = partProblem;
        problemInPart = partProblem != null;
    }

    /**
     * Keeps the last fleet; logs {@code reason} at WARN unless it is the reason already logged for a
     * whole read (after a part failed for the same reason, the whole read failing is said).
     */
    public synchronized void reject(String reason) {
        if (!reason.equals(problem) || problemInPart) {
            log.warn("{}: keeping the last good fleet of {} agents: {}", source, fleet.size(), reason);
        }
        problem = reason;
        problemInPart = false;
    }

    /** @return the last fleet handed to the listener; empty before the first */
    public synchronized List<AgentSpec> fleet() {
        return fleet;
    }

    /** @return why the last read was not applied, or why a part of it failed (the rest applied), or null if it was read whole */
    public synchronized String problem() {
        return problem;
    }

    /** @return why {@code agents} is not a valid fleet, or null if it is */
    public static String check(List<AgentSpec> agents) {
        if (agents == null || agents.isEmpty()) {
            return "no agents";
        }
        Set<String> names = new HashSet<>();
        for (AgentSpec agent : agents) {
            if (!names.add(agent.name())) {
                return "duplicate name '" + agent.name() + "'";
            }
        }
        if (agents.stream().allMatch(AgentSpec::draining)) {
            return "no agent takes new requests (all " + agents.size() + " draining)";
        }
        return null;
    }

    private static String change(List<AgentSpec> before, List<AgentSpec> after) {
        Map<String, AgentSpec> old = new HashMap<>();
        before.forEach(a -> old.put(a.name(), a));
        List<String> added = new ArrayList<>();
        List<String> draining = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        for (AgentSpec agent : after) {
            AgentSpec was = old.remove(agent.name());
            if (was == null) {
                // A new line that is draining already is never added: it is listed as draining.
                (agent.draining() ? draining : added).add(agent.name());
            } else if (agent.draining() && !was.draining()) {
                draining.add(agent.name());
            } else if (was.draining() && !agent.draining()) {
                // It takes new requests again: a new member if its drain had ended, so added.
                added.add(agent.name());
            } else if (!agent.equals(was)) {
                changed.add(agent.name());
            }
        }
        List<String> removed = before.stream().map(AgentSpec::name).filter(old::containsKey).toList();
        StringBuilder text = new StringBuilder();
        append(text, "added", added);
        append(text, "removed", removed);
        append(text, "draining", draining);
        append(text, "changed", changed);
        return text.length() == 0 ? "order changed" : text.toString();
    }

    private static void append(StringBuilder text, String what, List<String> names) {
        if (!names.isEmpty()) {
            text.append(text.length() == 0 ? "" : ", ").append(what).append(' ').append(NameList.of(names));
        }
    }

    private static List<String> names(List<AgentSpec> agents) {
        return agents.stream().map(AgentSpec::name).toList();
    }
}
