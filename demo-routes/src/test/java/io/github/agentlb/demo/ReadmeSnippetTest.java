package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.NoAgentAvailableException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The platform-http route of docs/using-the-strategies.md, run as a user would: Camel Main's
 * platform-http server in front, camel-http to three stub agents. Only the agents' host and port
 * differ from the page's text ({@code http://localhost:8081} ...), as the test's agents are on
 * free ports.
 */
@Tag("e2e")
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadmeSnippetTest {

    /** The page's route; {@code a1}..{@code a3} stand for http://localhost:8081..8083. */
    static final class UserRoute extends RouteBuilder {
        private final String a1;
        private final String a2;
        private final String a3;

        UserRoute(List<String> agents) {
            this.a1 = agents.get(0);
            this.a2 = agents.get(1);
            this.a3 = agents.get(2);
        }

        @Override
        public void configure() {
            from("platform-http:/process?matchOnUriPrefix=true&httpMethodRestrict=GET")
                .errorHandler(noErrorHandler())
                .doTry()
                    .loadBalance(new ConsistentHashLB())
                        .to(a1 + "?bridgeEndpoint=true&throwExceptionOnFailure=false")
                        .to(a2 + "?bridgeEndpoint=true&throwExceptionOnFailure=false")
                        .to(a3 + "?bridgeEndpoint=true&throwExceptionOnFailure=false")
                    .end()
                .endDoTry()
                .doCatch(NoAgentAvailableException.class)
                    .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
                    .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                    .setBody(constant("{\"error\":\"no agent available\"}"))
                .end()
                .removeHeaders("*", "Content-Type", Exchange.HTTP_RESPONSE_CODE);
        }
    }

    private final Http http = new Http();
    private Agents agents;
    private Main main;
    private String base;

    @BeforeAll
    void start() throws Exception {
        agents = Agents.start(3, 0, 2);
        int port = StubAgent.findFreePort("127.0.0.1");
        main = new Main();
        main.configure().addRoutesBuilder(new UserRoute(agents.urls()));
        main.addOverrideProperty("camel.server.enabled", "true");
        main.addOverrideProperty("camel.server.host", "127.0.0.1");
        main.addOverrideProperty("camel.server.port", Integer.toString(port));
        // The demo's application.properties is on this classpath: keep its management server off.
        main.addOverrideProperty("camel.management.enabled", "false");
        main.addOverrideProperty("camel.metrics.enabled", "false");
        main.start();
        base = "http://127.0.0.1:" + port;
    }

    @AfterAll
    void stop() throws Exception {
        Resources.close(main == null ? null : main::stop, agents);
    }

    @Test
    void forwardsPathAndQueryAndKeepsEachUserOnOneAgent() {
        Set<String> agentsOfUser42 = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = http.get(base + "/process/r" + i + "?user_id=42");

            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode body = Http.json(response);
            assertThat(body.path("request_id").asText()).isEqualTo("r" + i);
            assertThat(body.path("user_id").asText()).isEqualTo("42");
            agentsOfUser42.add(body.path("agent_id").asText());
        }
        assertThat(agentsOfUser42).hasSize(1);
    }

    @Test
    void differentUsersReachEveryAgent() {
        Set<String> seen = new HashSet<>();
        for (int user = 1; user <= 30; user++) {
            seen.add(Http.agentId(http.get(base + "/process/u" + user + "?user_id=" + user)));
        }
        assertThat(seen).containsExactlyInAnyOrder("A1", "A2", "A3");
    }

    @Test
    void passesEscapesThroughAndAnswersWithTheAgentsStatusTypeAndBodyOnly() {
        HttpResponse<String> response = http.get(base + "/process/a%20b?user_id=c%20d&x=%2B");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = Http.json(response);
        assertThat(body.path("request_id").asText()).isEqualTo("a b");
        assertThat(body.path("user_id").asText()).isEqualTo("c d");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        // Without the removeHeaders line the agent's X-Agent-* headers and the query parameters
        // (user_id, x) came back as response headers.
        assertThat(response.headers().map().keySet()).allMatch(
                name -> Set.of(":status", "content-type", "content-length").contains(name.toLowerCase()), "only "
                        + ":status, content-type, content-length");
    }

    @Test
    void passesAnAgentsErrorAnswerThrough() {
        HttpResponse<String> response = http.get(base + "/nowhere/x?user_id=1");

        // matchOnUriPrefix only covers /process: platform-http answers 404 itself here.
        assertThat(response.statusCode()).isEqualTo(404);
        HttpResponse<String> agentError = http.get(base + "/process/a%2Fb?user_id=5");
        assertThat(agentError.statusCode()).isEqualTo(404);
        assertThat(Http.json(agentError).path("error").asText()).isEqualTo("not found");
    }

    @Test
    void otherMethodsGetA405AndAFormPostEchoesNothing() {
        long servedBefore = served();
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/process/z5?user_id=43"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("x=1")));

        // Without httpMethodRestrict=GET: an empty 500 before the balancer, with "x: 1" and
        // "user_id: 43" as answer headers.
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("x")).isEmpty();
        assertThat(post.headers().firstValue("user_id")).isEmpty();
        assertThat(served()).isEqualTo(servedBefore);
    }

    private long served() {
        long served = 0;
        for (int i = 0; i < 3; i++) {
            served += agents.get(i).requestsServed();
        }
        return served;
    }
}
