package io.github.agentlb.loadgen.scenario;

import java.util.Locale;

/**
 * How the agent of a fault scenario fails between its kill and its restart.
 */
public enum Fault {

    /** Its server is stopped: connections are refused, as when its process has died. */
    FAILURE,

    /** It accepts connections and never answers ({@link HangingPort}), as a hung process does. */
    HANG;

    /** The name on the command line and in file names, e.g. {@code failure}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** One phrase saying what the agent does while down, for reports. */
    public String description() {
        return switch (this) {
            case FAILURE -> "its server is stopped (connections refused, requests in service dropped)";
            case HANG -> "its server is stopped and a listener on the same port accepts connections and never "
                    + "answers";
        };
    }
}
