package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.pid.PidWeightsConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.main.Main;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Test;

/**
 * The README's YAML ({@code agentlb-beans.yaml}) and properties ({@code agentlb-beans.properties})
 * examples: every knob of the four balancers reaches the running balancer from both; a bad value
 * fails the route's start naming the field and the value.
 */
class YamlAndPropertiesConfigurationTest {

    private static final String AGENTS = AgentRoutesFixture.yamlAgents(List.of("A1", "A2"));

    @Test
    void everyKnobIsReachableFromYamlBeans() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            var loader = PluginHelper.getRoutesLoader(context);
            loader.loadRoutes(ResourceHelper.fromString("agents.yaml", AGENTS));
            loader.loadRoutes(PluginHelper.getResourceLoader(context).resolveResource("classpath:agentlb-beans.yaml"));
            context.start();

            assertConfigured(context);
        }
    }

    @Test
    void everyKnobIsReachableFromCamelBeansProperties() throws Exception {
        Main main = new Main();
        main.setDefaultPropertyPlaceholderLocation("classpath:agentlb-beans.properties");
        main.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:a1").setBody(constant("A1"));
                from("direct:a2").setBody(constant("A2"));
                for (String lb : new String[] {"rr", "ch", "pid", "avn"}) {
                    from("direct:" + lb).routeId("balanced-" + lb).loadBalance().custom(lb).to("direct:a1", "direct:a2");
                }
            }
        });
        main.start();
        try {
            assertConfigured(main.getCamelContext());
        } finally {
            main.stop();
        }
    }

    private static void assertConfigured(CamelContext context) {
        RoundRobinLB rr = context.getRegistry().lookupByNameAndType("rr", RoundRobinLB.class);
        assertThat(rr.getOutlierEjection()).isEqualTo(OutlierEjection.custom().consecutiveFailures(3)
                .baseEjectionTime(Duration.ofSeconds(5)).maxEjectionTime(Duration.ofSeconds(60)).maxEjectedShare(0.5).build());
        assertThat(rr.getFailoverPolicy()).isEqualTo(new FailoverPolicy(1, Duration.ofSeconds(2), Set.of("GET", "HEAD")));
        assertThat(rr.getLoadReportFormat()).isEqualTo("TEXT");
        assertThat(rr.getSaturation()).isEqualTo(new Saturation(true, 3, 0.9, Duration.ofMillis(500)));

        ConsistentHashLB ch = context.getRegistry().lookupByNameAndType("ch", ConsistentHashLB.class);
        assertThat(ch.getKeyHeader()).isEqualTo("tenant");
        assertThat(ch.getVirtualNodes()).isEqualTo(20);
        assertThat(ch.getHashFunction()).isEqualTo("fnv1a-64-mixed");
        assertThat(ch.ring().virtualNodes()).isEqualTo(Map.of("direct://a1", 20, "direct://a2", 20));
        assertThat(context.createProducerTemplate().requestBodyAndHeader("direct:ch", "x", "tenant", "t1", String.class))
                .isEqualTo(ch.ring().agentAt(HashAlgorithm.FNV1A_64_MIXED.hash("t1")).equals("direct://a1") ? "A1" : "A2");

        PidWeightedLB pid = context.getRegistry().lookupByNameAndType("pid", PidWeightedLB.class);
        assertThat(pid.getConfig().toString()).isEqualTo(PidWeightsConfig.custom().kp(2).ki(0.2).kd(0).integralLimit(0.3)
                .maxStep(0.4).controlPeriod(Duration.ofMillis(500)).minWeight(0.2).maxWeight(5).reportExpiry(Duration.ofSeconds(20))
                .nominalCapacity(8).failureUtilization(1.5).scheduleResolution(500).build().toString());

        AdaptiveVirtualNodeLB avn = context.getRegistry().lookupByNameAndType("avn", AdaptiveVirtualNodeLB.class);
        assertThat(avn.getKeyHeader()).isEqualTo("tenant");
        assertThat(avn.state().config().toString()).isEqualTo(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(30)
                .imbalanceThreshold(0.2).settleThreshold(0.1).cooldownWindows(2).utilizationSmoothing(0.8)
                .maxMovesPerEvaluation(4).evaluationWindow(50).historySize(1000).reportExpiry(java.time.Duration.ofSeconds(20)).hashFunction("fnv1-64")
                .capacityWeights(0.6, 0.4).loadWeights(0.5, 0.3, 0.2).build().toString());
        // Start-up utilization 0.5 and 0.25: capacity weights 1/0.5 and 1/0.25, so 10 and 20 of N = 30 (eq. 2).
        assertThat(avn.getVirtualNodesByAgent()).isEqualTo(Map.of("direct://a1", 10, "direct://a2", 20));
    }

    @Test
    void aBadValueFailsTheRouteStartNamingFieldAndValue() throws Exception {
        assertStartFails("io.github.agentlb.camel.ConsistentHashLB", "virtualNodes: 0", "virtualNodes must be >= 1, was 0");
        assertStartFails("io.github.agentlb.camel.PidWeightedLB", "maxStep: 1.5", "maxStep must be > 0 and < 1, was 1.5");
        assertStartFails("io.github.agentlb.camel.AdaptiveVirtualNodeLB", "imbalanceThreshold: 2",
                "imbalanceThreshold must be in (0, 1), was 2.0");
        assertStartFails("io.github.agentlb.camel.RoundRobinLB", "maxEjectionTime: 5s\n        baseEjectionTime: 10s",
                "maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
        assertStartFails("io.github.agentlb.camel.AdaptiveVirtualNodeLB", "keyHeader: ' '", "keyHeader must not be blank, was ' '");
        assertStartFails("io.github.agentlb.camel.LeastRequestLB", "saturationKvCache: 1.5",
                "saturationKvCache must be in 0..1, was 1.5");
        assertStartFails("io.github.agentlb.camel.ConsistentHashLB", "hashFunction: sha1", "hashFunction must be one of md5, "
                + "fnv1-32, fnv1a-32, fnv1-64, fnv1a-64, fnv1-64-mixed, fnv1a-64-mixed; was sha1");
    }

    /** Every {@code Duration} knob of each balancer, by the balancer types that have it. */
    private static final Map<String, List<String>> DURATION_KNOBS = Map.of(
            "RoundRobinLB", List.of("failoverDeadline", "baseEjectionTime", "maxEjectionTime", "defaultRest", "maxRest",
                    "slowStartWindow", "saturationStaleness", "queueTimeout", "healthCheckInterval", "healthCheckJitter",
                    "healthCheckTimeout", "retryBackoffBaseInterval", "retryBackoffMaxInterval", "hedgeDelay"),
            "PidWeightedLB", List.of("controlPeriod", "reportExpiry", "failoverDeadline"),
            "AdaptiveVirtualNodeLB", List.of("reportExpiry", "slowStartWindow"));

    @Test
    void theDurationKnobsListedAreEveryDurationSetterOfEachBalancer() throws Exception {
        for (Map.Entry<String, List<String>> type : DURATION_KNOBS.entrySet()) {
            Class<?> balancer = Class.forName("io.github.agentlb.camel." + type.getKey());
            List<String> setters = java.util.Arrays.stream(balancer.getMethods())
                    .filter(m -> m.getName().startsWith("set") && m.getParameterCount() == 1
                            && m.getParameterTypes()[0] == Duration.class)
                    .map(m -> Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4))
                    .sorted().toList();
            // Every Duration knob of the class is exercised, here or for the class that has it first.
            java.util.Set<String> listed = new java.util.HashSet<>();
            DURATION_KNOBS.values().forEach(listed::addAll);
            assertThat(listed).as(type.getKey()).containsAll(setters);
            assertThat(setters).as(type.getKey()).containsAll(type.getValue());
            for (String knob : setters) {
                assertThat(balancer.getMethod("set" + Character.toUpperCase(knob.charAt(0)) + knob.substring(1), String.class))
                        .as("%s.%s(String), read strictly", type.getKey(), knob).isNotNull();
            }
        }
    }

    @Test
    void aNumberOrFlagThatIsNoneFailsTheRouteStartNamingKnobAndValue() throws Exception {
        // Camel's own binding fails these with its PropertyBindingException over a NumberFormatException
        // that names neither the knob nor the balancer.
        Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put("ConsistentHashLB|virtualNodes: abc", "virtualNodes must be a whole number up to 2147483647, was 'abc'");
        refused.put("ConsistentHashLB|virtualNodes: 1.5", "virtualNodes must be a whole number up to 2147483647, was '1.5'");
        refused.put("RoundRobinLB|maximumFailoverAttempts: 99999999999",
                "maximumFailoverAttempts must be a whole number up to 2147483647, was '99999999999'");
        refused.put("LeastRequestLB|seed: x", "seed must be a whole number up to 9223372036854775807, was 'x'");
        refused.put("ConsistentHashLB|balanceFactor: abc", "balanceFactor must be a number, was 'abc'");
        refused.put("RoundRobinLB|hedgingEnabled: maybe", "hedgingEnabled must be true or false, was 'maybe'");
        for (Map.Entry<String, String> bad : refused.entrySet()) {
            String[] typeAndOption = bad.getKey().split("\\|");
            String yaml = balancedRoute("io.github.agentlb.camel." + typeAndOption[0], typeAndOption[1]);
            try (CamelContext context = new DefaultCamelContext()) {
                assertThatThrownBy(() -> {
                    PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("bad.yaml", yaml));
                    context.start();
                }).as(bad.getKey()).rootCause().isInstanceOf(IllegalArgumentException.class).hasMessage(bad.getValue());
            }
        }
    }

    @Test
    void aDurationThatIsNoneFailsTheRouteStartNamingKnobAndValue() throws Exception {
        // Camel's own conversion reads all of these as a zero Duration without an error.
        for (Map.Entry<String, List<String>> type : DURATION_KNOBS.entrySet()) {
            for (String knob : type.getValue()) {
                for (String bad : new String[] {"abc", "-5s", "''", "' '", "10", "PT-1S"}) {
                    String text = bad.startsWith("'") ? bad.substring(1, bad.length() - 1) : bad;
                    String yaml = balancedRoute("io.github.agentlb.camel." + type.getKey(), knob + ": " + bad);
                    try (CamelContext context = new DefaultCamelContext()) {
                        // The text is bound while the routes load (Camel pre-parses beans), before start.
                        assertThatThrownBy(() -> {
                            PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("bad.yaml", yaml));
                            context.start();
                        }).as(type.getKey() + " " + knob + ": " + bad).rootCause().isInstanceOf(IllegalArgumentException.class)
                                .hasMessage(knob + " must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was '" + text + "'");
                    }
                }
            }
        }
    }

    @Test
    void aDurationIsAppliedExactly() throws Exception {
        RoundRobinLB rr = started("io.github.agentlb.camel.RoundRobinLB", RoundRobinLB.class, """
                failoverDeadline: 250ms
                        baseEjectionTime: PT2S
                        maxEjectionTime: 2m
                        defaultRest: PT1.5S
                        maxRest: 1h
                        slowStartWindow: 0""");
        assertThat(rr.getFailoverDeadline()).isEqualTo(Duration.ofMillis(250));
        assertThat(rr.getOutlierEjection().baseEjectionTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(rr.getOutlierEjection().maxEjectionTime()).isEqualTo(Duration.ofMinutes(2));
        assertThat(rr.getDefaultRest()).isEqualTo(Duration.ofMillis(1500));
        assertThat(rr.getMaxRest()).isEqualTo(Duration.ofHours(1));
        assertThat(rr.getSlowStartWindow()).isZero();

        PidWeightedLB pid = started("io.github.agentlb.camel.PidWeightedLB", PidWeightedLB.class, """
                controlPeriod: 250ms
                        reportExpiry: PT2S""");
        assertThat(pid.getConfig().controlPeriod()).isEqualTo(Duration.ofMillis(250));
        assertThat(pid.getConfig().reportExpiry()).isEqualTo(Duration.ofSeconds(2));

        AdaptiveVirtualNodeLB avn = started("io.github.agentlb.camel.AdaptiveVirtualNodeLB", AdaptiveVirtualNodeLB.class, """
                reportExpiry: 3s
                        slowStartWindow: PT0.25S""");
        assertThat(avn.state().config().reportExpiry()).isEqualTo(Duration.ofSeconds(3));
        assertThat(avn.getSlowStartWindow()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aDurationFromCamelBeansPropertiesIsReadStrictly() {
        Main main = new Main();
        main.addInitialProperty("camel.beans.rr", "#class:io.github.agentlb.camel.RoundRobinLB");
        main.addInitialProperty("camel.beans.rr.failoverDeadline", "-5s");
        main.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:a1").setBody(constant("A1"));
                from("direct:rr").loadBalance().custom("rr").to("direct:a1");
            }
        });
        try {
            assertThatThrownBy(main::start).rootCause().isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("failoverDeadline must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was '-5s'");
        } finally {
            main.stop();
        }
    }

    private static <T> T started(String type, Class<T> balancerType, String properties) throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("good.yaml",
                    balancedRoute(type, properties)));
            context.start();
            return context.getRegistry().lookupByNameAndType("lb", balancerType);
        }
    }

    /** A bean {@code lb} of class {@code type} with {@code properties}, balancing direct:start over A1. */
    private static String balancedRoute(String type, String properties) {
        return AgentRoutesFixture.yamlBalancer(type, properties) + AgentRoutesFixture.yamlBalanced(List.of("A1"));
    }

    /**
     * The YAML route does not start: a value out of range is refused when the bean is made (the
     * routes' loading), a relation still broken when the balancer starts; either way naming it.
     */
    private static void assertStartFails(String type, String property, String message) throws Exception {
        String yaml = balancedRoute(type, property);
        try (CamelContext context = new DefaultCamelContext()) {
            assertThatThrownBy(() -> {
                PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("bad.yaml", yaml));
                context.start();
            }).as(property).rootCause().isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        }
    }

    @Test
    void settersAfterTheStartTakeEffectAtOnce() throws Exception {
        ConsistentHashLB ch = new ConsistentHashLB();
        try (CamelContext context = new DefaultCamelContext()) {
            RouteBuilder.addRoutes(context, rb -> rb.from("direct:start").loadBalance(ch).to("direct:a1"));
            ch.setVirtualNodes(7);
            context.start();

            assertThat(ch.ring().virtualNodes()).containsEntry("direct://a1", 7);
            ch.setVirtualNodes(8);
            assertThat(ch.ring().virtualNodes()).containsEntry("direct://a1", 8);
            ch.setConsecutiveFailures(2);
            assertThat(ch.getOutlierEjection().consecutiveFailures()).isEqualTo(2);
        }
    }
}
