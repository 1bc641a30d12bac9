/**
 * Camel Main plumbing shared by the stub agent's and the demo proxy's applications: settings
 * beans bound from environment variables, system properties and {@code application.properties},
 * one-line start-up problems, free-port checks. Knows nothing of agents.
 */
package io.github.agentlb.agent.main;
