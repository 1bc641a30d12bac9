/**
 * A Kubernetes service's EndpointSlices as a membership source
 * ({@link io.github.agentlb.fleet.kubernetes.KubernetesFleetSource}), with the mapping from slices
 * to agents as a pure function ({@code EndpointSliceFleet}).
 */
package io.github.agentlb.fleet.kubernetes;
