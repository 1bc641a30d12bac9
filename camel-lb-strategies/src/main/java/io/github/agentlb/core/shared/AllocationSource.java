package io.github.agentlb.core.shared;

/** Where the allocation a replica routes by comes from. */
public enum AllocationSource {
    /** Published through the shared store (by this replica while it leads, or by another). */
    LEADER,
    /** This replica's own: none published yet, or the store unreachable past the fallback delay. */
    LOCAL
}
