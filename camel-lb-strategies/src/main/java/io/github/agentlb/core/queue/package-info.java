/**
 * A bounded queue of requests waiting for capacity, released by priority band and, within a band,
 * fairly among tenants by virtual token counters ({@link io.github.agentlb.core.queue.FairQueue};
 * VTC after Sheng et al., "Fairness in Serving Large Language Models", OSDI 2024; the flow control
 * of the Gateway API inference extension).
 */
package io.github.agentlb.core.queue;
