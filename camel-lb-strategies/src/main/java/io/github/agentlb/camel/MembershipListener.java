package io.github.agentlb.camel;

import java.util.List;

/**
 * Told when a balancer's agents change, for example by a metrics binder that registers gauges
 * for new agents and removes those of agents gone. Called once at registration with the current
 * agents, then after each change has been published, serialized with the changes (never two at
 * once); must be fast and not block. A listener that throws does not undo the change.
 */
@FunctionalInterface
public interface MembershipListener {

    /** @param agentIds the agent ids now, in child order; an immutable list, possibly empty */
    void agentsChanged(List<String> agentIds);
}
