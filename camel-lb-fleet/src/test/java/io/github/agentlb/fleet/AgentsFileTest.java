package io.github.agentlb.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentsFileTest {

    private static final List<AgentSpec> GOLDEN = List.of(
            AgentSpec.of("A1", URI.create("http://10.0.0.1:9001")),
            new AgentSpec("A2", URI.create("http://10.0.0.2:9001"), 2.5, false, "eu-west-1a"),
            new AgentSpec("A3", URI.create("https://a3.example:443/base"), 1, true, null));

    @Test
    void textWithCommentsBlankLinesOptionsAndCrLf() {
        String text = "\uFEFF# the agents\r\n"
                + "A1=http://10.0.0.1:9001\r\n"
                + "\r\n"
                + "  A2 = http://10.0.0.2:9001 ; weight=2.5 ;zone=eu-west-1a\r\n"
                + "A3=https://a3.example:443/base;draining\r\n";
        assertThat(AgentsFile.parse(text)).isEqualTo(GOLDEN);
    }

    @Test
    void jsonArrayAndAgentsObjectGiveTheSameFleet() {
        String array = """
                [ {"name":"A1","url":"http://10.0.0.1:9001"},
                  {"name":"A2","url":"http://10.0.0.2:9001","weight":2.5,"zone":"eu-west-1a"},
                  {"name":"A3","url":"https://a3.example:443/base","draining":true,"zone":null} ]
                """;
        assertThat(AgentsFile.parse(array)).isEqualTo(GOLDEN);
        assertThat(AgentsFile.parse("  {\"agents\": " + array + "}")).isEqualTo(GOLDEN);
    }

    @Test
    void onlyCommentsOrNothingIsAnEmptyList() {
        assertThat(AgentsFile.parse("")).isEmpty();
        assertThat(AgentsFile.parse("# none yet\n\n")).isEmpty();
        assertThat(AgentsFile.parse("[]")).isEmpty();
    }

    @Test
    void badTextNamesTheLineAndTheReason() {
        assertError("A1=http://h:1\nA1=http://h:2\n", "line 2: duplicate name 'A1' (first on line 1)");
        // Two names for one agent: each would take its share, the agent twice its (refused by AGENTS and at the start too).
        assertError("B1=http://h:1\nB2=http://h:1\n", "line 2: url http://h:1 is agent 'B1''s (line 1) too");
        assertError("A1=http://h:1\nA2=http://h\n", "line 2: address must be http(s)://host:port, was 'http://h'");
        assertError("A1=ftp://h:1", "line 1: address must be http(s)://host:port, was 'ftp://h:1'");
        assertError("A1=http://h:1;weight=heavy", "line 1: weight must be a number, was 'heavy'");
        assertError("A1=http://h:1;weight=0", "line 1: weight must be in (0, 1000], was 0.0");
        assertError("A1=http://h:1;weight=1000.5", "line 1: weight must be in (0, 1000], was 1000.5");
        assertError("A1=http://h:1;wieght=2", "line 1: unknown option 'wieght=2' (weight=N, draining, zone=z)");
        assertError("A1=http://h:1;draining=maybe", "line 1: draining must be true or false, was 'maybe'");
        assertError("just-a-name", "line 1: expected name=url, was 'just-a-name'");
        assertError("=http://h:1", "line 1: name must not be blank, was ''");
        assertError("A1=http://h :1", "line 1: address must be http(s)://host:port, was 'http://h :1' (Illegal character in authority)");
    }

    @Test
    void aWeightIsDecimalDigitsWithAnOptionalFraction() {
        assertThat(AgentsFile.parse("A1=http://h:1;weight=2\nA2=http://h:2;weight=0.5\nA3=http://h:3;weight=1000.0\n"))
                .extracting(AgentSpec::weight).containsExactly(2.0, 0.5, 1000.0);
    }

    /** Was: 2f, 5d and 0x1p1 read as 2, 5 and 2 (Java's own number syntax), " 4" as 4. */
    @Test
    void aWeightInAnotherNotationIsAnErrorNamingTheLineAndTheValue() {
        for (String value : List.of("2f", "5d", "0x1p1", "1e2", ".5", "2.", "+2", "-1", "1_000", "Infinity", "NaN", "２")) {
            assertError("A1=http://h:1;weight=" + value,
                    "line 1: weight must be a number, was '" + value + "' (decimal digits with an optional fraction, such as 2 or 0.5)");
        }
    }

    /** Was: {@code weight= 4} read as 4, {@code zone= eu} as eu, {@code zone} alone as no zone. */
    @Test
    void anOptionsValueIsNotEmptyAndHasNoWhiteSpace() {
        assertError("A1=http://h:1;weight= 4", "line 1: option 'weight= 4': no white space around or inside a value");
        assertError("A1=http://h:1;weight =4", "line 1: option 'weight =4': no white space around or inside a value");
        assertError("A1=http://h:1;zone=eu west", "line 1: option 'zone=eu west': no white space around or inside a value");
        assertError("A1=http://h:1;zone", "line 1: option 'zone' needs a value (zone=z)");
        assertError("A1=http://h:1;zone=", "line 1: option 'zone=' needs a value (zone=z)");
        assertError("A1=http://h:1;weight", "line 1: option 'weight' needs a value (weight=N)");
        assertError("A1=http://h:1;draining=", "line 1: option 'draining=' needs a value (draining or draining=true|false)");
        assertThat(AgentsFile.parse("A1=http://h:1 ; draining=false ;\tzone=eu ").get(0))
                .isEqualTo(new AgentSpec("A1", URI.create("http://h:1"), 1, false, "eu"));
    }

    /** Was: the last of two weights won, though JSON refuses a key given twice. */
    @Test
    void anOptionGivenTwiceIsAnErrorNamingBoth() {
        assertError("A1=http://h:1;weight=2;weight=3", "line 1: option weight given twice: 'weight=2' and 'weight=3'");
        assertError("A1=http://h:1;draining;draining=false", "line 1: option draining given twice: 'draining' and 'draining=false'");
        assertError("A1=http://h:1;zone=a;weight=2;zone=a", "line 1: option zone given twice: 'zone=a' and 'zone=a'");
    }

    @Test
    void badJsonSaysWhatAndWhere() {
        assertError("[{\"name\":\"A1\",\"url\":\"http://h:1\"},\n{\"name\":\"A2\",", "not valid JSON:");
        assertError("[{\"name\":\"A1\",\"url\":\"http://h:1\"},{\"name\":\"A1\",\"url\":\"http://h:2\"}]",
                "agent 1: duplicate name 'A1' (first agent 0)");
        assertError("[{\"name\":\"B1\",\"url\":\"http://h:1\"},{\"name\":\"B2\",\"url\":\"http://h:1\"}]",
                "agent 1: url http://h:1 is agent 'B1''s (agent 0) too");
        assertError("[{\"name\":\"A1\",\"url\":\"http://h:1\",\"wieght\":2}]",
                "agent 0: unknown field 'wieght' (name, url, weight, draining, zone)");
        assertError("[{\"name\":\"A1\",\"url\":\"http://h:1\",\"weight\":\"2\"}]", "agent 0: weight must be a number, was \"2\"");
        assertError("[{\"name\":\"A1\"}]", "agent 0: url is missing");
        assertError("[{\"name\":\"A1\",\"url\":\"http://h:1\",\"draining\":1}]", "agent 0: draining must be true or false, was 1");
        assertError("{\"agents\":[],\"more\":1}", "a JSON object must have exactly one field, agents, had [agents, more]");
        assertError("{\"agents\":{}}", "agents must be a JSON array, was OBJECT");
        assertError("[1]", "agent 0: must be an object, was NUMBER");
        assertError("[] []", "not valid JSON:");
        assertError("[{\"name\":\"A1\",\"name\":\"A2\",\"url\":\"http://h:1\"}]", "not valid JSON: Duplicate field 'name'");
    }

    private static void assertError(String content, String message) {
        assertThatThrownBy(() -> AgentsFile.parse(content))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }
}
