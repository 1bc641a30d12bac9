package io.github.agentlb.camel;

import java.util.List;

/**
 * Told when a balancer's agents change, for example by a metrics binder that registers gauges
 * for new agents and removes those of agents gone. Called once at registration with the current
 * agents, then after each change has been published, serialized with the changes (never two at
 * once); must be fast and not block. A listener that throws does not undo the change.
 *
 * <p>Two views: {@link #agentsChanged} the agents taking requests, {@link #membersChanged} every
 * member, draining agents included (an agent that drains is still a member until its last request
 * has ended and it has left). Each is told only when its own list changed.
 */
@FunctionalInterface
public interface MembershipListener {

    /** @param agentIds the agent ids taking requests now, in child order; an immutable list, possibly empty */
    void agentsChanged(List<String> agentIds);

    /**
     * The members now, draining agents included; by default nothing. For what lasts as long as an
     * agent can still answer, such as its meters.
     *
     * @param members the member ids, in child order; an immutable list, possibly empty
     */
    default void membersChanged(List<String> members) {
    }
}
