package io.github.agentlb.loadgen;

import java.util.Locale;

/**
 * How the embedded agents of the main job are set up. The request workload is the same in every
 * scenario; only the agents differ.
 */
public enum Scenario {

    /** Three identical agents, A1, A2 and A3. */
    UNIFORM;

    /** The name used on the command line and in reports, e.g. {@code uniform}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
