package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.Test;

/**
 * docs/using-the-strategies.md against the code: every JavaBean property of every balancer has a
 * row in the right section, and where the row gives a default as a value ({@code `10s`}), it is
 * the code's default. Its YAML example configures the balancer it shows.
 */
class UsingTheStrategiesPageTest {

    private static final Path PAGE = Path.of("../docs/using-the-strategies.md");
    private static final Set<String> CAMELS_OWN = Set.of("camelContext", "id", "routeId", "disabled", "generatedId");
    private static final String COMMON = "Options of every balancer";
    private static final String KEYED = "Options of ConsistentHashLB and AdaptiveVirtualNodeLB";
    private static final Pattern ROW = Pattern.compile("(?m)^\\| `(\\w+)` \\| ([^|]*) \\|");

    /** The page's sections by heading, each with its rows: option -> default cell. */
    static Map<String, Map<String, String>> sections() throws IOException {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        for (String section : Files.readString(PAGE).split("\n## ")) {
            String heading = section.lines().findFirst().orElse("").trim();
            Map<String, String> rows = new LinkedHashMap<>();
            Matcher row = ROW.matcher(section);
            while (row.find()) {
                rows.put(row.group(1), row.group(2).trim());
            }
            sections.put(heading, rows);
        }
        return sections;
    }

    @Test
    void everyOptionOfEveryBalancerHasARowWithTheCodesDefault() throws Exception {
        Map<String, Map<String, String>> sections = sections();
        List<String> wrong = new ArrayList<>();
        int checkedDefaults = 0;
        for (Map.Entry<String, Supplier<AgentLoadBalancerSupport>> balancer
                : new TreeMap<>(SetterErrorMessagesTest.BALANCERS).entrySet()) {
            AgentLoadBalancerSupport instance = balancer.getValue().get();
            Set<String> seen = new HashSet<>();
            for (Method setter : instance.getClass().getMethods()) {
                String name = setter.getName();
                if (!name.startsWith("set") || name.length() == 3 || Modifier.isStatic(setter.getModifiers())
                        || CAMELS_OWN.contains(Introspector.decapitalize(name.substring(3)))) {
                    continue;
                }
                String option = Introspector.decapitalize(name.substring(3));
                if (!seen.add(option)) {
                    continue;
                }
                Class<?> declaring = setter.getDeclaringClass();
                String section = declaring == AgentLoadBalancerSupport.class || declaring == FailureSettings.class
                        || declaring == AgentSettings.class || declaring == RuntimeMembership.class
                        || declaring == FlowControlSettings.class || declaring == HealthCheckSettings.class
                        || declaring == RetryBudgetSettings.class || declaring == HedgingSettings.class ? COMMON
                        : declaring == KeySettings.class ? KEYED : balancer.getKey();
                String cell = sections.getOrDefault(section, Map.of()).get(option);
                if (cell == null) {
                    wrong.add(balancer.getKey() + "." + option + ": no row in section '" + section + "'");
                    continue;
                }
                String problem = defaultProblem(instance, option, cell);
                if (problem != null) {
                    wrong.add(balancer.getKey() + "." + option + ": " + problem);
                } else if (cell.startsWith("`")) {
                    checkedDefaults++;
                }
            }
        }
        assertThat(wrong).as("rows missing or wrong").isEmpty();
        assertThat(checkedDefaults).as("defaults compared with the code").isGreaterThan(100);
    }

    /** Null when the cell's default (a value in backticks) is the getter's, or there is no value or getter to compare. */
    private static String defaultProblem(Object instance, String option, String cell) throws Exception {
        Matcher value = Pattern.compile("^`([^`]*)`").matcher(cell);
        Method getter = getter(instance.getClass(), option);
        if (!value.find() || getter == null) {
            return null;
        }
        String text = value.group(1);
        Object actual = getter.invoke(instance);
        boolean same;
        if (actual instanceof Duration duration) {
            same = duration(text).equals(duration);
        } else if (actual instanceof Double number) {
            same = Math.abs(Double.parseDouble(text) - number) < 1e-9;
        } else if (actual instanceof Number number) {
            same = Long.parseLong(text) == number.longValue();
        } else if (actual instanceof Collection<?> values) {
            same = new HashSet<>(Arrays.asList(text.split(","))).equals(new HashSet<>(values));
        } else {
            same = String.valueOf(actual).equals(text);
        }
        return same ? null : "the page says " + text + ", the code " + actual;
    }

    private static Method getter(Class<?> type, String option) {
        String suffix = Character.toUpperCase(option.charAt(0)) + option.substring(1);
        for (String prefix : new String[] {"get", "is"}) {
            try {
                return type.getMethod(prefix + suffix);
            } catch (NoSuchMethodException next) {
                // try the other prefix
            }
        }
        return null;
    }

    /** {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}. */
    private static Duration duration(String text) {
        Matcher m = Pattern.compile("(\\d+)(ms|s|m|h)").matcher(text);
        assertThat(m.matches()).as("a duration: " + text).isTrue();
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
