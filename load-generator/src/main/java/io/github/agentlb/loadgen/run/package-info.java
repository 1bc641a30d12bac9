/**
 * Sends the load: the closed- and open-loop runners and their Camel routes, the warm-up, the embedded
 * agents and proxies ({@link io.github.agentlb.loadgen.run.EmbeddedCluster}), and the samplers and
 * recorders that watch a run. Its results are the values of {@code stats}.
 */
package io.github.agentlb.loadgen.run;
