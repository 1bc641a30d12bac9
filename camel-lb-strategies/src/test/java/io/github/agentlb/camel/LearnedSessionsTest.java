package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sessions learned from answers: an agent mints a session id (as an MCP server does on its first
 * answer), the client sees it sealed with the agent's name, and every later request with it reaches
 * that agent, with the agent's own id, under any strategy, on any replica, across membership changes.
 */
class LearnedSessionsTest {

    private static final String HEADER = "Mcp-Session-Id";
    private static final String SECRET = "replicas share this secret";
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** Mints {@code <name>-s<n>} for a request without session id; records the ids it was sent. */
    private static final class SessionAgent extends AsyncProcessorSupport {
        final String name;
        final List<String> received = new ArrayList<>();
        boolean failing;
        Exception failure = new java.net.ConnectException("refused");
        int minted;

        SessionAgent(String name) {
            this.name = name;
        }

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            String id = exchange.getIn().getHeader(HEADER, String.class);
            received.add(id);
            if (failing) {
                exchange.setException(failure);
            } else {
                exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
                exchange.getMessage().setHeader(HEADER, id != null ? id : name + "-s" + ++minted);
                exchange.getMessage().setBody(name);
            }
            callback.done(true);
            return true;
        }
    }


    private static <T extends AgentLoadBalancerSupport> T started(T balancer, LearnedSessions sessions, SessionAgent... agents) {
        balancer.setCamelContext(CAMEL.get());
        balancer.setLearnedSessions(sessions);
        for (SessionAgent agent : agents) {
            balancer.addAgent(agent.name, agent, 1.0);
        }
        balancer.start();
        return balancer;
    }

    private static LearnedSessions sessions() {
        return LearnedSessions.custom().secret(SECRET).build();
    }

    private static Exchange post(AgentLoadBalancerSupport balancer, String userId, String sessionId) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader("user_id", userId);
        if (sessionId != null) {
            exchange.getIn().setHeader(HEADER, sessionId);
        }
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static String answeredBy(Exchange exchange) {
        return exchange.getProperty(AgentLb.AGENT_PROPERTY, String.class);
    }

    private static String clientId(Exchange exchange) {
        return exchange.getMessage().getHeader(HEADER, String.class);
    }

    @Test
    void aPinnedExchangesSelectionOffersItsAgentOnlyAndLogsTheSession() {
        Selection selection = SessionAffinity.selectionOf(new SessionAffinity.Pin("A2", "s-1", null));

        assertThat(selection.detail().get()).isEqualTo("session=A2");
        List<String> offered = new ArrayList<>();
        selection.candidates().forEachRemaining(offered::add);
        assertThat(offered).containsExactly("A2");
    }

    @Test
    void aSessionMintedByAnAgentComesBackToItUnderEveryStrategy() {
        List<Supplier<AgentLoadBalancerSupport>> strategies = List.of(RoundRobinLB::new, ConsistentHashLB::new,
                LeastRequestLB::new, PidWeightedLB::new);
        for (Supplier<AgentLoadBalancerSupport> strategy : strategies) {
            SessionAgent a1 = new SessionAgent("A1");
            SessionAgent a2 = new SessionAgent("A2");
            SessionAgent a3 = new SessionAgent("A3");
            AgentLoadBalancerSupport balancer = started(strategy.get(), sessions(), a1, a2, a3);
            Exchange first = post(balancer, "u0", null);
            String owner = answeredBy(first);
            String sealed = clientId(first);
            assertThat(new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).decode(sealed))
                    .isEqualTo(new SessionIds.Sealed(owner, owner + "-s1"));
            for (int i = 1; i <= 20; i++) {
                Exchange later = post(balancer, "u" + i, sealed);
                assertThat(answeredBy(later)).as(balancer.strategyName()).isEqualTo(owner);
                assertThat(clientId(later)).isEqualTo(sealed);
            }
            SessionAgent ownerAgent = List.of(a1, a2, a3).stream().filter(a -> a.name.equals(owner)).findFirst().orElseThrow();
            // The agent saw no id on the first request, then its own id 20 times, never the sealed one.
            assertThat(ownerAgent.received).hasSize(21).containsOnly(null, owner + "-s1").startsWith((String) null);
            balancer.stop();
        }
    }

    @Test
    void anotherReplicaWithTheSameSecretRoutesTheSessionTheSameWayAcrossMembershipChanges() {
        SessionAgent a1 = new SessionAgent("A1");
        SessionAgent a2 = new SessionAgent("A2");
        SessionAgent a3 = new SessionAgent("A3");
        RoundRobinLB first = started(new RoundRobinLB(), sessions(), a1, a2, a3);
        post(first, "u", null); // A1 (rotation starts there)
        String sealed = clientId(post(first, "u", null)); // A2
        assertThat(a2.received).containsExactly((String) null);
        // The second replica lists its agents in another order, then the fleet changes under it.
        RoundRobinLB second = started(new RoundRobinLB(), sessions(), a3, a2, a1);
        second.addAgent("A4", new SessionAgent("A4"), 1.0);
        second.removeAgent("A1");
        for (int i = 0; i < 5; i++) {
            assertThat(answeredBy(post(second, "u" + i, sealed))).isEqualTo("A2");
        }
        assertThat(a2.received).containsExactly(null, "A2-s1", "A2-s1", "A2-s1", "A2-s1", "A2-s1");
    }

    /**
     * The secret changed on running replicas (docs/llm-agents.md, "Changing the secret"): at every
     * step each replica routes the other's ids, set through the JavaBean setters as a route would.
     */
    @Test
    void aSecretChangedReplicaByReplicaWithItsFallbackLosesNoSession() {
        String next = "the secret after the change";
        SessionAgent a1 = new SessionAgent("A1");
        SessionAgent a2 = new SessionAgent("A2");
        RoundRobinLB old = started(new RoundRobinLB(), sessions(), a1, a2);
        post(old, "u", null); // A1
        String oldId = clientId(post(old, "u", null)); // A2, sealed with the old secret
        RoundRobinLB changed = new RoundRobinLB();
        changed.setSessionSecret(next);
        changed.setSessionFallbackSecret(SECRET);
        changed = started(changed, changed.getLearnedSessions(), a2, a1);
        assertThat(answeredBy(post(changed, "u", oldId))).as("an old id on a changed replica").isEqualTo("A2");
        post(changed, "v", null);
        Exchange minted = post(changed, "v", null);
        String newId = clientId(minted);
        RoundRobinLB notYet = new RoundRobinLB();
        notYet.setSessionSecret(SECRET);
        notYet.setSessionFallbackSecret(next);
        notYet = started(notYet, notYet.getLearnedSessions(), a1, a2);
        assertThat(answeredBy(post(notYet, "v", newId))).as("a new id on a replica not yet changed")
                .isEqualTo(answeredBy(minted));
        Exchange refused = post(old, "v", newId);
        assertThat(refused.getException()).as("a replica without the fallback refuses it")
                .isInstanceOf(SessionRejectedException.class);
        assertThatThrownBy(() -> new RoundRobinLB().setSessionFallbackSecret("too short"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionFallbackSecret must have at least 16 bytes, had 9");
    }

    @Test
    void whenTheSessionsAgentLeftTheClientGets404OrANewPickAsSet() {
        SessionAgent a1 = new SessionAgent("A1");
        SessionAgent a2 = new SessionAgent("A2");
        RoundRobinLB notFound = started(new RoundRobinLB(), sessions(), a1, a2);
        String sealed = clientId(post(notFound, "u", null)); // A1
        notFound.removeAgent("A1");
        Exchange gone = post(notFound, "u", sealed);
        assertThat(gone.getException()).isInstanceOf(SessionRejectedException.class)
                .hasMessageContaining("The agent holding this session has left (A1)");
        assertThat(((SessionRejectedException) gone.getException()).status()).isEqualTo(404);
        assertThat(a2.received).isEmpty();

        SessionAgent b1 = new SessionAgent("B1");
        SessionAgent b2 = new SessionAgent("B2");
        RoundRobinLB newPick = started(new RoundRobinLB(),
                LearnedSessions.custom().secret(SECRET).whenAgentGone(LearnedSessions.WhenAgentGone.NEW_PICK).build(), b1, b2);
        String old = clientId(post(newPick, "u", null)); // B1
        newPick.removeAgent("B1");
        Exchange picked = post(newPick, "u", old);
        assertThat(picked.getException()).isNull();
        assertThat(answeredBy(picked)).isEqualTo("B2");
        // B2 was asked without the old session's id, minted its own, and the client holds it now.
        assertThat(b2.received).containsExactly((String) null);
        assertThat(clientId(picked)).isEqualTo(new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).encode("B2", "B2-s1"));
    }

    @Test
    void aForgedOrDamagedIdGets400AndCallsNoAgent() {
        SessionAgent a1 = new SessionAgent("A1");
        SessionAgent a2 = new SessionAgent("A2");
        RoundRobinLB rr = started(new RoundRobinLB(), sessions(), a1, a2);
        String sealed = clientId(post(rr, "u", null));
        String forged = new SessionIds("not the replicas' secret".getBytes(StandardCharsets.UTF_8)).encode("A2", "A1-s1");
        for (String bad : List.of(forged, sealed.substring(0, sealed.length() - 3), "A1-s1", "a1.x.y.z", "\u0000\n", "")) {
            Exchange exchange = post(rr, "u", bad);
            assertThat(exchange.getException()).as(bad).isInstanceOf(SessionRejectedException.class)
                    .hasMessageStartingWith("Mcp-Session-Id is not a session id this balancer gave");
            assertThat(((SessionRejectedException) exchange.getException()).status()).isEqualTo(400);
        }
        assertThat(a1.received).hasSize(1);
        assertThat(a2.received).isEmpty();
    }

    /**
     * camel-netty-http's consumer also makes each query parameter a header, after the request's own
     * ({@code ?Mcp-Session-Id=...}): a session id is the header the client sent, never the URL's (a
     * token in a URL is logged wherever the URL is). A value that is the query's alone is no session
     * id; with both, the header's, which the consumer put first.
     */
    @Test
    void aSessionIdIsTheClientsHeaderNotAQueryParameterMadeAHeader() {
        SessionAgent a1 = new SessionAgent("A1");
        SessionAgent a2 = new SessionAgent("A2");
        RoundRobinLB rr = started(new RoundRobinLB(), sessions(), a1, a2);
        String sealed = clientId(post(rr, "u", null));
        List<String> answeredBy = new ArrayList<>();
        // The query's name as the consumer decodes and compares it: percent-encoded, another case (Camel's map folds ſ to s).
        List<String> names = List.of("mcp-session-id", "Mcp%2DSession%2DId", "Mcp-Se%C5%BF%C5%BFion-Id", "MCP-SESSION-ID");
        List<String> sent = List.of(sealed, "garbage", sealed, "garbage");
        for (int i = 0; i < names.size(); i++) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
            exchange.getIn().setHeader(Exchange.HTTP_RAW_QUERY, "user_id=u&" + names.get(i) + "="
                    + java.net.URLEncoder.encode(sent.get(i), StandardCharsets.UTF_8));
            exchange.getIn().setHeader(HEADER, sent.get(i));
            rr.process(exchange, sync -> { });
            assertThat(exchange.getException()).as(names.get(i)).isNull();
            answeredBy.add(answeredBy(exchange));
        }
        assertThat(answeredBy).as("the rotation's picks: no session, no 400").containsExactly("A2", "A1", "A2", "A1");
        assertThat(a1.received.subList(1, a1.received.size())).as("no session id sent for the URL's").containsOnlyNulls();
        assertThat(a2.received).containsOnlyNulls();

        Exchange otherQuery = new DefaultExchange(CAMEL.get()); // a query parameter of another value: the header is the client's
        otherQuery.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        otherQuery.getIn().setHeader(Exchange.HTTP_RAW_QUERY, "x=Mcp-Session-Id&Mcp-Session-Id=other");
        otherQuery.getIn().setHeader(HEADER, sealed);
        rr.process(otherQuery, sync -> { });
        assertThat(answeredBy(otherQuery)).isEqualTo("A1");
        Exchange none = new DefaultExchange(CAMEL.get());
        none.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        none.getIn().setHeader(HEADER, List.of());
        rr.process(none, sync -> { });
        assertThat(none.getException()).isNull();

        Exchange both = new DefaultExchange(CAMEL.get());
        both.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        both.getIn().setHeader(Exchange.HTTP_RAW_QUERY, "Mcp-Session-Id=garbage");
        both.getIn().setHeader(HEADER, List.of(sealed, "garbage"));
        rr.process(both, sync -> { });
        assertThat(both.getException()).isNull();
        assertThat(answeredBy(both)).isEqualTo("A1");
        assertThat(a1.received).last().isEqualTo("A1-s1");
    }

    /**
     * An agent's session id too long to come back sealed (over about 3000 characters): the 400 says
     * so, rather than calling the balancer's own id damaged or forged.
     */
    @Test
    void aSealedIdOverTheLongestReadGets400SayingSo() {
        SessionAgent a1 = new SessionAgent("A1");
        RoundRobinLB rr = started(new RoundRobinLB(), sessions(), a1);
        String tooLong = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).encode("A1", "x".repeat(4000));

        Exchange exchange = post(rr, "u", tooLong);

        assertThat(exchange.getException()).isInstanceOf(SessionRejectedException.class)
                .hasMessageStartingWith("Mcp-Session-Id is longer than the 4096 characters of a session id this balancer reads"
                        + " (5358): an agent's own session id of over about 3000 characters cannot be sealed and read"
                        + " back; start a new session without it");
        assertThat(((SessionRejectedException) exchange.getException()).status()).isEqualTo(400);
        assertThat(a1.received).isEmpty();
    }

    @Test
    void aSessionsRequestNeverGoesToAnotherAgentWhenItsAgentFails() {
        SessionAgent a1 = new SessionAgent("A1");
        SessionAgent a2 = new SessionAgent("A2");
        RoundRobinLB rr = started(new RoundRobinLB(), sessions(), a1, a2);
        String sealed = clientId(post(rr, "u", null));
        a1.failing = true;
        Exchange failed = post(rr, "u", sealed);
        assertThat(failed.getException()).isInstanceOf(NoAgentAvailableException.class);
        assertThat(a2.received).isEmpty();
    }

    @Test
    void aSessionsCallThatFailedAfterItWasSentLeavesTheClientsIdNotTheAgentsOnTheExchange() {
        SessionAgent a1 = new SessionAgent("A1");
        RoundRobinLB rr = started(new RoundRobinLB(), sessions(), a1);
        String sealed = clientId(post(rr, "u", null));
        a1.failing = true;
        a1.failure = new java.io.IOException("Connection reset by peer");
        Exchange failed = post(rr, "u", sealed);
        assertThat(failed.getException()).isInstanceOf(java.io.IOException.class);
        assertThat(a1.received).containsExactly(null, "A1-s1");
        // A route that answers the failure itself must not hand the client the agent's own id.
        assertThat(clientId(failed)).isEqualTo(sealed);
        rr.stop();
    }

    @Test
    void withoutLearnedSessionsTheHeaderPassesAsItIs() {
        SessionAgent a1 = new SessionAgent("A1");
        RoundRobinLB rr = started(new RoundRobinLB(), LearnedSessions.disabled(), a1);
        assertThat(clientId(post(rr, "u", "client-made"))).isEqualTo("client-made");
        assertThat(a1.received).containsExactly("client-made");
        assertThat(rr.sessionIdForClient("A1", "x")).isEqualTo("x");
    }

    @Test
    void theJavaBeanSettersTurnSessionsOnAndValidate() {
        RoundRobinLB rr = new RoundRobinLB();
        rr.setSessionSecret(SECRET);
        assertThat(rr.getSessionHeader()).isEqualTo("Mcp-Session-Id");
        rr.setSessionHeader("X-Session-Id");
        rr.setSessionAgentGone("NEW_PICK");
        assertThat(rr.getLearnedSessions()).isEqualTo(LearnedSessions.custom().header("X-Session-Id").secret(SECRET)
                .whenAgentGone(LearnedSessions.WhenAgentGone.NEW_PICK).build());
        assertThatThrownBy(() -> rr.setSessionSecret("too short"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("sessionSecret must have at least 16 bytes, had 9");
    }

    @Test
    void aRejectedSessionSaysWhyAndWhatToAnswer() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        SessionRejectedException gone = new SessionRejectedException("The agent left", exchange, 404);
        SessionRejectedException bad = new SessionRejectedException("Not ours", exchange, 400);

        assertThat(gone.status()).isEqualTo(404);
        assertThat(gone.error()).isEqualTo("session not found");
        assertThat(gone.reason()).isEqualTo("The agent left");
        assertThat(bad.error()).isEqualTo("bad session id");
        assertThat(new SessionRejectedException("x", exchange, 404, "task not found").error()).isEqualTo("task not found");
    }
}
