/**
 * Membership sources that tell a balancer its agents at runtime: a watched agents file
 * ({@link io.github.agentlb.fleet.FileFleetSource}, formats in {@link io.github.agentlb.fleet.AgentsFile})
 * and a DNS name ({@link io.github.agentlb.fleet.DnsFleetSource}). Each keeps its last good fleet
 * when what it reads is empty or invalid ({@link io.github.agentlb.fleet.LastGoodFleet}).
 */
package io.github.agentlb.fleet;
