package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.Durations;
import java.beans.Introspector;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** docs/http-component.md's option table is the endpoint's: every option, each default as the code has it. */
class HttpComponentPageTest {

    private static final Pattern ROW = Pattern.compile("(?m)^\\| `(\\w+)` \\| `([^`]*)` \\|");
    /** Setters of Camel's own endpoint options, which the page does not list. */
    private static final Set<String> CAMELS_OWN = Set.of("lazyStartProducer", "bridgeErrorHandler", "exceptionHandler",
            "exchangePattern", "autowiredEnabled", "camelContext", "component", "endpointUriIfNotSpecified");

    @Test
    void theOptionTableListsEveryOptionWithItsDefault() throws Exception {
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = ROW.matcher(Files.readString(Path.of("../docs/http-component.md")).split("\n## ")[1]);
        while (row.find()) {
            rows.put(row.group(1), row.group(2));
        }
        Set<String> options = Arrays.stream(AgentEndpoint.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && m.getName().startsWith("set") && m.getParameterCount() == 1)
                .map(m -> Introspector.decapitalize(m.getName().substring(3)))
                .filter(name -> !CAMELS_OWN.contains(name)).collect(Collectors.toSet());
        assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(options);

        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            AgentEndpoint endpoint = camel.getEndpoint("agent:http://localhost:8081", AgentEndpoint.class);
            for (Map.Entry<String, String> option : rows.entrySet()) {
                String name = option.getKey();
                String property = Character.toUpperCase(name.charAt(0)) + name.substring(1);
                Method getter = Arrays.stream(AgentEndpoint.class.getMethods())
                        .filter(m -> m.getParameterCount() == 0
                                && (m.getName().equals("get" + property) || m.getName().equals("is" + property)))
                        .findFirst().orElseThrow(() -> new AssertionError("no getter of " + name));
                Object actual = getter.invoke(endpoint);
                Object documented;
                if (actual instanceof java.time.Duration) {
                    documented = Durations.parse(name, option.getValue());
                } else if (actual instanceof Integer) {
                    documented = Integer.valueOf(option.getValue());
                } else if (actual instanceof Double) {
                    documented = Double.valueOf(option.getValue());
                } else if (actual instanceof Boolean) {
                    documented = Boolean.valueOf(option.getValue());
                } else {
                    documented = Long.valueOf(option.getValue());
                }
                assertThat(actual).as(name).isEqualTo(documented);
            }
        }
    }
}
