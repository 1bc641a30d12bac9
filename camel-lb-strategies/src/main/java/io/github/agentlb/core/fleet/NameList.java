package io.github.agentlb.core.fleet;

import java.util.Collection;
import java.util.Iterator;

/**
 * Agent names as one log line lists them: all of them up to {@value #MAX_NAMES}, else the first
 * {@value #MAX_NAMES} and how many more, so a fleet of 300 going to 2 is a line a person can read.
 * Stateless and thread-safe.
 */
public final class NameList {

    /** The most names a line lists: 20. */
    public static final int MAX_NAMES = 20;

    private NameList() {
    }

    /**
     * @param names in the order to list them
     * @return {@code [A1, A2]}, or {@code [A1, ..., A20, and 280 more]} for more than {@value #MAX_NAMES}
     */
    public static String of(Collection<?> names) {
        StringBuilder text = new StringBuilder("[");
        Iterator<?> it = names.iterator();
        for (int i = 0; i < MAX_NAMES && it.hasNext(); i++) {
            text.append(i == 0 ? "" : ", ").append(it.next());
        }
        if (names.size() > MAX_NAMES) {
            text.append(", and ").append(names.size() - MAX_NAMES).append(" more");
        }
        return text.append(']').toString();
    }
}
