package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every balancer knob by one name rule: {@code setSessionHeader} is {@code balancer.session.header} / {@code BALANCER_SESSION_HEADER}. */
class BalancerKnobsTest {

    private final DefaultCamelContext context = new DefaultCamelContext();

    @AfterEach
    void close() throws Exception {
        context.close();
    }

    private void given(String... keysAndValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.setProperty(keysAndValues[i], keysAndValues[i + 1]);
        }
        context.getPropertiesComponent().setInitialProperties(properties);
    }

    @Test
    void theNameRuleCoversTheLibrarysKnobsOfSimpleTypes() {
        assertThat(BalancerKnobs.knobsOf(ConsistentHashLB.class).keySet())
                .contains("balanceFactor", "keyHeader", "sessionHeader", "sessionSecret", "sessionAgentGone",
                        "consecutiveErrorAnswers", "baseEjectionTime", "slowStartWindow", "defaultRest")
                .doesNotContain("camelContext", "learnedSessions", "boundedLoad", "disabled", "generatedId", "id");
        assertThat(BalancerKnobs.variableOf("balanceFactor")).isEqualTo("BALANCER_BALANCE_FACTOR");
    }

    /**
     * Camel's start-up summary of the properties masks a value only when the key's last part is a word
     * it knows as sensitive ({@code SensitiveUtils}): every knob of every strategy that holds a secret is
     * named so ({@code sessionFallbackSecret}, not {@code sessionSecretFallback}, whose value was logged).
     */
    @Test
    void everyKnobHoldingASecretIsAPropertyCamelMasks() {
        List<String> secrets = Strategies.names().stream().flatMap(name -> BalancerKnobs.knobsOf(
                Strategies.create(name).getClass()).keySet().stream()).filter(k -> k.toLowerCase().contains("secret"))
                .distinct().sorted().toList();
        assertThat(secrets).contains("sessionSecret", "sessionFallbackSecret");
        assertThat(secrets).allSatisfy(knob -> assertThat(org.apache.camel.util.SensitiveUtils.containsSensitive(
                BalancerKnobs.PREFIX + io.github.agentlb.agent.main.MainSettings.key(knob))).as(knob).isTrue());
    }

    @Test
    void knobsAreSetFromProperties() {
        given("balancer.balance.factor", "1.25", "balancer.session.header", "Mcp-Session-Id",
                "balancer.session.secret", "0123456789abcdef0123", "balancer.base.ejection.time", "250ms",
                "balancer.consecutive.error.answers", "3");
        ConsistentHashLB ch = new ConsistentHashLB();

        Map<String, String> set = BalancerKnobs.apply(ch, context);

        assertThat(ch.getBalanceFactor()).isEqualTo(1.25);
        assertThat(ch.getSessionHeader()).isEqualTo("Mcp-Session-Id");
        assertThat(ch.getLearnedSessions().hasSecret()).isTrue();
        assertThat(ch.getBaseEjectionTime()).isEqualTo(Duration.ofMillis(250));
        assertThat(ch.getConsecutiveErrorAnswers()).isEqualTo(3);
        assertThat(set).containsEntry("sessionSecret", "(set)").containsEntry("balanceFactor", "1.25");
    }

    /**
     * A knob's value is taken as written, as the README says: Camel's placeholder parser drops a
     * backslash before a value's last character ({@code /a\\b} became {@code /ab}, a secret ending
     * in a backslash lost it) and finds no value at all in one holding {@code {{} (the knob was left
     * unset, without a word: an operator's trial). Secrets compared as the balancer holds them.
     */
    @Test
    void aKnobsValueIsTakenAsWrittenBackslashesAndBracesIncluded() {
        for (String secret : List.of("0123456789abcdef012\\3", "0123456789abcdef0123\\", "0123456789abcdef{{01}}23",
                "0123456789abcdef{{0123")) {
            DefaultCamelContext own = new DefaultCamelContext();
            Properties properties = new Properties();
            properties.setProperty("balancer.session.header", "Mcp-Session-Id");
            // A file's value with braces is a placeholder to resolve (below); a system property's, as an environment variable's, is as written.
            boolean braces = secret.contains("{{");
            if (!braces) {
                properties.setProperty("balancer.session.secret", secret);
            }
            own.getPropertiesComponent().setInitialProperties(properties);
            ConsistentHashLB ch = new ConsistentHashLB();

            Map<String, String> set;
            if (braces) {
                System.setProperty("balancer.session.secret", secret);
            }
            try {
                set = BalancerKnobs.apply(ch, own);
            } finally {
                System.clearProperty("balancer.session.secret");
            }

            ConsistentHashLB expected = new ConsistentHashLB();
            expected.setSessionHeader("Mcp-Session-Id");
            expected.setSessionSecret(secret);
            assertThat(set).as(secret).containsEntry("sessionSecret", "(set)");
            assertThat(ch.getLearnedSessions()).as(secret).isEqualTo(expected.getLearnedSessions());
        }
    }

    /**
     * A properties file's placeholders are resolved as Camel resolves them, as for the proxy's own
     * settings (a user's trial: {@code balancer.failover.deadline = {{env:DL:2s}}} was refused as no
     * duration, and a secret given as {@code {{env:MY_SECRET}}} was that text).
     */
    @Test
    void aPropertiesFilesPlaceholdersAreResolved() {
        given("balancer.failover.deadline", "{{env:AGENTLB_TEST_VARIABLE_NOT_SET:2s}}", "balancer.base.ejection.time",
                "{{test.ejection}}", "test.ejection", "250ms");
        RoundRobinLB rr = new RoundRobinLB();

        Map<String, String> set = BalancerKnobs.apply(rr, context);

        assertThat(rr.getFailoverDeadline()).isEqualTo(Duration.ofSeconds(2));
        assertThat(rr.getBaseEjectionTime()).isEqualTo(Duration.ofMillis(250));
        assertThat(set).containsEntry("failoverDeadline", "2s");
    }

    @Test
    void badValuesAndUnknownKnobsFailNamingTheVariable() {
        given("balancer.base.ejection.time", "abc");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("BALANCER_BASE_EJECTION_TIME: must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was 'abc'");
        given("balancer.base.ejection.time", "-5s");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context)).hasMessageContaining("was '-5s'");
        given("balancer.balance.factor", "0.5");
        assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context))
                .hasMessageStartingWith("BALANCER_BALANCE_FACTOR: ").hasMessageContaining("0.5");
        given("balancer.balance.factor", "1.25");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessageStartingWith("balancer.balance.factor: no such knob of the rr balancer; its knobs: ");
        given("balancer.consecutive.error.answers", "many");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessage("BALANCER_CONSECUTIVE_ERROR_ANSWERS: must be a whole number, was 'many'");
        given("balancer.consecutive.error.answers", "99999999999");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context)).hasMessage(
                "BALANCER_CONSECUTIVE_ERROR_ANSWERS: must be a whole number from -2147483648 to 2147483647, was '99999999999'");
    }

    @Test
    void valuesTheStartWouldRefuseFailHereNamingTheVariable() {
        // Kept by the setter and checked only when the balancer starts: checked here as the start would.
        given("balancer.consecutive.failures", "0");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("BALANCER_CONSECUTIVE_FAILURES: consecutiveFailures must be >= 1, was 0");
        given("balancer.max.ejected.share", "2");
        assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context))
                .hasMessageStartingWith("BALANCER_MAX_EJECTED_SHARE: maxEjectedShare ");
        given("balancer.virtual.nodes", "0");
        assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context))
                .hasMessageStartingWith("BALANCER_VIRTUAL_NODES: virtualNodes ");
        // Empty, the health checks' path would turn hung-agent detection off unseen (`none` does).
        given("balancer.health.check.path", "");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessage("BALANCER_HEALTH_CHECK_PATH: healthCheckPath must start with / and hold printable ASCII only, was ''");
        // A relation between knobs names the variable of the knob it starts with.
        given("balancer.queue.size", "10");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessageStartingWith("BALANCER_QUEUE_SIZE: queueSize=10 needs maxInFlightPerAgent > 0")
                .hasMessageEndingWith("(maxInFlightPerAgent is BALANCER_MAX_IN_FLIGHT_PER_AGENT)");
        given("balancer.max.in.flight.per.agent", "2", "balancer.queue.size", "10", "balancer.max.in.flight.per.tenant", "-1");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessageStartingWith("BALANCER_MAX_IN_FLIGHT_PER_TENANT: ").hasMessageContaining("-1");
        given("balancer.max.in.flight.per.agent", "2", "balancer.max.in.flight.per.tenant", "1");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessageStartingWith("BALANCER_MAX_IN_FLIGHT_PER_TENANT: maxInFlightPerTenant=1 needs queueSize > 0")
                .hasMessageEndingWith("(queueSize is BALANCER_QUEUE_SIZE)");
        // A relation that starts with a knob left at its default names the variable that was set.
        given("balancer.retry.backoff.base.interval", "500ms");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessageStartingWith("BALANCER_RETRY_BACKOFF_BASE_INTERVAL: retryBackoffBaseInterval must be <= retryBackoffMaxInterval")
                .hasMessageEndingWith("(retryBackoffMaxInterval is BALANCER_RETRY_BACKOFF_MAX_INTERVAL)");
        // ... and what runs is what the log then shows.
        given("balancer.consecutive.failures", "3");
        RoundRobinLB rr = new RoundRobinLB();
        BalancerKnobs.apply(rr, context);
        assertThat(rr.getOutlierEjection().consecutiveFailures()).isEqualTo(3);
    }

    @Test
    void theQueuesKnobsWithoutTheQueueFailTheStart() {
        for (String knob : new String[] {"balancer.queue.timeout", "balancer.tenant.header", "balancer.priority.header"}) {
            given("balancer.max.in.flight.per.agent", "2", knob, knob.endsWith("timeout") ? "5s" : "X-Api-Key");
            String variable = "BALANCER_" + knob.substring("balancer.".length()).replace('.', '_').toUpperCase(java.util.Locale.ROOT);
            assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(variable + " does nothing without BALANCER_QUEUE_SIZE (the queue when every agent is full):"
                            + " set both or neither");
            given("balancer.max.in.flight.per.agent", "2", "balancer.queue.size", "5", knob,
                    knob.endsWith("timeout") ? "5s" : "X-Api-Key");
            BalancerKnobs.apply(new RoundRobinLB(), context);
        }
    }

    @Test
    void aKnobGivenTwiceOrPaddedFailsTheStart() {
        given("balance.factor", "1.5", "balancer.balance.factor", "2");
        assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context))
                .hasMessage("BALANCE_FACTOR and BALANCER_BALANCE_FACTOR both set the balancer's balanceFactor: set one");
        given("max.ejected.share", "0.5", "balancer.max.ejected.share", "0.2");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessage("MAX_EJECTED_SHARE and BALANCER_MAX_EJECTED_SHARE both set the balancer's maxEjectedShare: set one");
        given("balancer.balance.factor", " 1.25");
        assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context))
                .hasMessage("BALANCER_BALANCE_FACTOR: is taken as written and must not start or end with white space,"
                        + " was ' 1.25'");
    }

    /** A secret's value is never in a refusal: the start-up log is read by more people than the secret's holders. */
    @Test
    void aRefusedSecretIsNotShown() {
        for (String knob : List.of("balancer.session.secret", "balancer.session.fallback.secret")) {
            String variable = "BALANCER_" + knob.substring("balancer.".length()).replace('.', '_').toUpperCase();
            for (String secret : List.of(" TOPSECRET-0123456789abc", "TOPSECRET-0123456789abc ", "TOPSECRET")) {
                given("balancer.session.header", "Mcp-Session-Id", "balancer.session.secret", "0123456789abcdef0123", knob, secret);
                assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context)).as(secret)
                        .hasMessageStartingWith(variable + ":")
                        .hasMessageNotContaining("TOPSECRET");
            }
        }
        given("balancer.session.secret", " TOPSECRET-0123456789abc");
        assertThatThrownBy(() -> BalancerKnobs.apply(new ConsistentHashLB(), context)).hasMessage("BALANCER_SESSION_SECRET: "
                + "is taken as written and must not start or end with white space, was a secret of 24 characters (not shown)");
    }

    @Test
    void camelsOwnBalancersTakeNoKnob() {
        given("balancer.keys", "session,prompt");
        assertThatThrownBy(() -> BalancerKnobs.refuseWithoutBalancer("camel-rr", context))
                .hasMessage("balancer.keys: STRATEGY=camel-rr is Camel's own balancer, which has none of these knobs");
        given("balancer.id", "replicas-a");
        BalancerKnobs.refuseWithoutBalancer("camel-rr", context);
    }

    @Test
    void theProxysOwnBalancerIdIsNotTakenForAKnob() {
        given("balancer.id", "replicas-a");
        assertThat(BalancerKnobs.apply(new ConsistentHashLB(), context)).isEmpty();
    }

    @Test
    void durationsAreReadStrictly() {
        assertThat(BalancerKnobs.duration("0")).isZero();
        assertThat(BalancerKnobs.duration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(BalancerKnobs.duration("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        for (String bad : new String[] {"", " ", "abc", "-5s", "5 s", "PT-1S", "10", "1d"}) {
            assertThatThrownBy(() -> BalancerKnobs.duration(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theRetryBackoffIsSetByTheRuleAndItsIntervalsAreCheckedTogether() {
        given("balancer.retry.backoff.base.interval", "100ms", "balancer.retry.backoff.max.interval", "1s");
        RoundRobinLB rr = new RoundRobinLB();
        assertThat(BalancerKnobs.apply(rr, context)).containsEntry("retryBackoffBaseInterval", "100ms");
        assertThat(rr.isRetryBackoffEnabled()).isTrue();
        assertThat(rr.getRetryBackoffBaseInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(rr.getRetryBackoffMaxInterval()).isEqualTo(Duration.ofSeconds(1));
        given("balancer.retry.backoff.base.interval", "500ms");
        assertThatThrownBy(() -> BalancerKnobs.apply(new RoundRobinLB(), context))
                .hasMessageContaining("retryBackoffBaseInterval must be <= retryBackoffMaxInterval (PT0.25S), was PT0.5S");
    }
}
