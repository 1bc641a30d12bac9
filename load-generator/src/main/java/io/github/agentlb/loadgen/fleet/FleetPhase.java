package io.github.agentlb.loadgen.fleet;

import java.util.Locale;

/**
 * The four phases of a fleet run, each after the first opened by one change of the balancer's
 * membership: {@link #JOINED} by agent {@value #JOINING} joining, {@link #DRAINED} by agent
 * {@value #LEAVING} being drained, {@link #RETURNED} by {@value #LEAVING} being added again.
 */
public enum FleetPhase {

    /** A1, A2 and A3. */
    BEFORE(null, null),
    /** A4 added, ramping up by slow start. */
    JOINED(FleetPhase.JOINING, "join"),
    /** A2 drained: no new requests, those in flight finish, then it leaves. */
    DRAINED(FleetPhase.LEAVING, "drain"),
    /** A2 added again, ramping up by slow start. */
    RETURNED(FleetPhase.LEAVING, "return");

    /** The agent that joins the fleet. */
    public static final String JOINING = "A4";
    /** The agent that is drained and comes back. */
    public static final String LEAVING = "A2";

    private final String agent;
    private final String change;

    FleetPhase(String agent, String change) {
        this.agent = agent;
        this.change = change;
    }

    /** The agent whose change opens this phase; {@code null} for {@link #BEFORE}. */
    public String agent() {
        return agent;
    }

    /** The change that opens this phase ({@code join}, {@code drain}, {@code return}); {@code null} for {@link #BEFORE}. */
    public String change() {
        return change;
    }

    /** The name in reports, e.g. {@code drained}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** What opens this phase, e.g. {@code drain A2}; {@code start} for {@link #BEFORE}. */
    public String opening() {
        return agent == null ? "start" : change + " " + agent;
    }

    /**
     * The 1-based count of started requests at which this phase's change is made in a run of
     * {@code requests}: just before request {@code k n / 4 + 1} is sent, for phase {@code k}
     * (0 for {@link #BEFORE}, which opens with the first request).
     *
     * @throws IllegalArgumentException if {@code requests < 4}
     */
    public int startsAtRequest(int requests) {
        if (requests < 4) {
            throw new IllegalArgumentException("requests must be >= 4 for four phases, was " + requests);
        }
        return ordinal() * requests / 4 + 1;
    }
}
