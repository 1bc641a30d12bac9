package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.ConsistentHashLB;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The YAML and XML routes of docs/using-the-strategies.md, loaded as written (only the route's port changed). */
class UsingTheStrategiesRoutesTest {

    private static final Path PAGE = Path.of("../docs/using-the-strategies.md");

    /** End to end: each example's route listens on a free port. */
    @Test
    @Tag("e2e")
    void theYamlAndXmlExamplesConfigureTheBalancerTheyShow() throws Exception {
        for (String language : new String[] {"yaml", "xml"}) {
            Matcher example = Pattern.compile("(?s)```" + language + "\\n(<camel>.*?|- (?:errorHandler|beans).*?)```")
                    .matcher(Files.readString(PAGE));
            assertThat(example.find()).as(language).isTrue();
            int port = ExampleRoutes.freePort();
            try (CamelContext context = new DefaultCamelContext()) {
                PluginHelper.getRoutesLoader(context).loadRoutes(ResourceHelper.fromString("page." + language,
                        example.group(1).replace(":8000/", ":" + port + "/")));
                context.start();

                ConsistentHashLB ch = context.getRegistry().lookupByNameAndType("ch", ConsistentHashLB.class);
                assertThat(ch.getKeyHeader()).as(language).isEqualTo("tenant");
                assertThat(ch.getVirtualNodes()).as(language).isEqualTo(200);
                assertThat(ch.getAgentIds()).as(language)
                        .containsExactly("http://localhost:8081", "http://localhost:8082");
            }
        }
    }
}
