package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.builder.ExpressionBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The part every keyed strategy shares, on {@link ConsistentHashLB}: keys that need the
 * CamelContext, JavaBean settings applied at the start, and bounded loads that follow the
 * agents. Agents answer with their name, synchronously.
 */
class KeyedLoadBalancerSupportTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static ConsistentHashLB started(ConsistentHashLB balancer) {
        return ScriptedChild.started(balancer, CAMEL.get(), ScriptedChild.naming("A1"), ScriptedChild.naming("A2"),
                ScriptedChild.naming("A3"));
    }

    private static String send(ConsistentHashLB balancer, Map<String, Object> headers) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeaders(new java.util.HashMap<>(headers));
        balancer.process(exchange, sync -> { });
        assertThat(exchange.getException()).isNull();
        return exchange.getMessage().getBody(String.class);
    }

    /** The ring owner of {@code key}: where a healthy ring sends it. */
    private static String owner(ConsistentHashLB balancer, String key) {
        return balancer.ring().agentsClockwise(balancer.ring().hash(key)).next();
    }

    @Test
    void aKeyInTheSimpleLanguageIsReadyWhenTheBalancerStarts() {
        ConsistentHashLB balancer = started(Balancers.with(new ConsistentHashLB(),
                lb -> lb.setKey(ExpressionBuilder.simpleExpression("${header.tenant}/${header.user}"), "tenant/user")));
        for (String user : new String[] {"u1", "u2", "u3", "u4", "u5", "u6"}) {
            assertThat(send(balancer, Map.of("tenant", "acme", "user", user))).as(user)
                    .isEqualTo(owner(balancer, "acme/" + user));
        }
    }

    @Test
    void aKeyHeaderNamedInTheSimpleLanguageIsReadyWhenTheBalancerStarts() {
        ConsistentHashLB balancer = new ConsistentHashLB();
        balancer.setKeyHeader("user-${header.tenant}");
        started(balancer);
        assertThat(balancer.getKeyHeader()).isEqualTo("user-${header.tenant}");
        for (String user : new String[] {"u1", "u2", "u3", "u4", "u5", "u6"}) {
            assertThat(send(balancer, Map.of("tenant", "acme", "user-acme", user))).as(user)
                    .isEqualTo(owner(balancer, user));
        }
    }

    @Test
    void ejectionSettingsMadeBeforeTheStartApplyToAKeyedStrategyToo() {
        ConsistentHashLB balancer = new ConsistentHashLB();
        balancer.setConsecutiveFailures(3);
        started(balancer);
        assertThat(balancer.getOutlierEjection().consecutiveFailures()).isEqualTo(3);
    }

    @Test
    void startingTheBalancerInitialisesItsChildrenFirst() {
        ScriptedChild child = ScriptedChild.naming("A1");
        ConsistentHashLB balancer = new ConsistentHashLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.addProcessor(child);
        balancer.init();
        assertThat(child.isInit()).as("initialised with the balancer, as Camel's own balancers do").isTrue();
        assertThat(child.isStarted()).isFalse();
    }

    @Test
    void boundedLoadsTurnedOnWhileRunningKnowTheAgentsAndFollowThem() {
        ConsistentHashLB balancer = started(new ConsistentHashLB());
        balancer.setBalanceFactor(1.25);
        assertThat(balancer.balancerState().boundedLoads().loads().keySet()).containsExactly("A1", "A2", "A3");
        balancer.addAgent("A4", ScriptedChild.naming("A4"), 1.0);
        assertThat(balancer.balancerState().boundedLoads().loads().keySet()).containsExactly("A1", "A2", "A3", "A4");
        balancer.removeAgent("A2");
        assertThat(balancer.balancerState().boundedLoads().loads().keySet()).containsExactly("A1", "A3", "A4");
    }

    @Test
    void aKeyWithoutANameIsCalledKey() {
        ConsistentHashLB unnamed = Balancers.with(new ConsistentHashLB(), lb -> lb.setKey(AgentKeys.header("tenant"), null));
        assertThat(unnamed.getKeys()).isEqualTo("key");
        assertThat(Balancers.with(new ConsistentHashLB(), lb -> lb.setKey(AgentKeys.header("tenant"), " ")).getKeyHeader())
                .isEqualTo("key");
        assertThat(new ConsistentHashLB().balancerConfig().key().name()).isEqualTo("user_id");
    }

    @Test
    void theDecisionLineNamesTheKeyItsHashAndTheBoundsPlacement() {
        ConsistentHashLB balancer = started(new ConsistentHashLB());
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            String agent = send(balancer, Map.of("req_id", "r1", "user_id", "42"));
            send(balancer, Map.of("req_id", "r2"));
            balancer.setBalanceFactor(1.25);
            String bounded = send(balancer, Map.of("req_id", "r3", "user_id", "42"));
            String hash = Long.toUnsignedString(balancer.ring().hash("42"));
            assertThat(log.lines()).hasSize(3);
            assertThat(log.lines().get(0)).isEqualTo("INFO request=r1 strategy=ch agent=" + agent + " user_id=42 hash=" + hash);
            assertThat(log.lines().get(1)).startsWith("INFO request=r2 strategy=ch agent=").endsWith(" user_id=<none>");
            assertThat(log.lines().get(2))
                    .isEqualTo("INFO request=r3 strategy=ch agent=" + bounded + " user_id=42 hash=" + hash + " bounded=HOME");
        }
    }
}
