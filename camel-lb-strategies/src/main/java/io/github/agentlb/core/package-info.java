/**
 * The pure algorithms behind the strategies: no Camel, no Micrometer, no I/O; time and randomness
 * are injected, so every result is exact in a test. Each sub-package is one idea: {@code hash}
 * (hash functions), {@code ring} (the consistent-hash ring), {@code select} (round-robin and
 * smooth weighted round-robin), {@code pid} (utilization-driven PID weights), {@code avn}
 * (adaptive virtual nodes), {@code bounded} (consistent hashing with bounded loads),
 * {@code health} (outlier ejection), {@code key} (routing keys read from a request body),
 * {@code fleet} (agents as membership sources describe them, slow start), {@code stats}
 * (load statistics) and {@code queue} (a bounded, fair queue for when agents are full).
 *
 * <h2>Names</h2>
 * One term per idea, here and in the Camel adapters:
 * <ul>
 *   <li><b>agent</b>: one backend a balancer sends requests to, known by its <b>agent id</b>
 *       (not "host"); a <b>virtual node</b> is one of its points on a ring. A <b>replica</b> is
 *       one of several balancers sharing the traffic, never an agent.</li>
 *   <li><b>members</b>: every agent a balancer has, draining ones included; the <b>serving</b>
 *       agents are the members not draining ({@code getAgentIds()} on a balancer). The
 *       <b>fleet</b> is what a membership source reports ({@code AgentSpec}s).</li>
 *   <li><b>membership change</b>: the members changed. The callbacks are {@code agentsChanging}
 *       (before requests see it; may reject it) and {@code agentsChanged} (the strategy's hook and
 *       {@code MembershipListener}); a source says {@code fleetChanged}.</li>
 *   <li><b>key</b>: what a keyed strategy hashes onto the ring (a user id, a session, a prompt
 *       prefix); its <b>home</b> agent is the ring's owner of its hash.</li>
 *   <li><b>weight</b>: an agent's relative share of requests, mean or default 1 (static, or
 *       learned by PID); a <b>capacity weight</b> ({@code e_i} in avn) is a fraction summing to 1.</li>
 *   <li><b>load</b>: what an agent carries by the strategy's measure (decayed recent requests,
 *       requests in flight, the avn load index); <b>utilization</b> is a fraction 0..1 an agent
 *       reports.</li>
 *   <li><b>attempt</b>: one try of one exchange on one agent, ending in one outcome; a
 *       <b>failure</b> is an outcome that counts against the agent, an <b>answer</b> one that came
 *       from it.</li>
 *   <li><b>ejected</b> / <b>re-admitted</b>: taken out of and back into selection by outlier
 *       detection.</li>
 * </ul>
 * Accessors: a balancer's property has one name, its JavaBean getter; configs are built by
 * {@code custom()} (or taken as {@code ofDefaults()}), balancers by {@code builder()}.
 */
package io.github.agentlb.core;
