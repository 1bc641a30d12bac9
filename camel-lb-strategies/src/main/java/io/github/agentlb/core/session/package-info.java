/**
 * Sessions learned from the agents' answers: a session id an agent mints is handed to the client
 * with the agent's name sealed into it, so every balancer replica routes the session's later
 * requests to that agent without a shared table. Pure: no Camel, no I/O.
 */
package io.github.agentlb.core.session;
