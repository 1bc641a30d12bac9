/**
 * The busy and gray scenarios, job scenarios: for the middle third of a run agent A1 answers every
 * request badly, and the report shows what clients saw and how the balancer ejected it and took it back.
 */
package io.github.agentlb.loadgen.faults;
