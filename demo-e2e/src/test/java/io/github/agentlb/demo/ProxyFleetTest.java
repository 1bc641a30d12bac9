package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.fleet.FleetSource;
import io.github.agentlb.fleet.FileFleetSource;
import io.github.agentlb.fleet.TaskScheduler;
import io.github.agentlb.fleet.TestDnsServer;
import io.github.agentlb.testing.FakeScheduler;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.camel.health.HealthCheck;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.impl.DefaultCamelContext;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents from a watched file while clients keep calling: an agent added to the file serves from
 * the next poll, one marked draining finishes its requests and leaves, and no client sees an error.
 */
class ProxyFleetTest {

    @TempDir
    Path dir;

    private void write(Path file, String content) throws Exception {
        Path tmp = dir.resolve("agents.tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The agents of {@code file}, read every 200 ms of {@code polls}. */
    private static DemoFleet polled(Path file, FakeScheduler polls) {
        return new DemoFleet(FileFleetSource.builder(file).pollInterval(Duration.ofMillis(200))
                .scheduler(TaskScheduler.of(polls)).build());
    }

    /** An rr proxy over the agents file {@code file}, first written {@code good}, polled on {@code polls}. */
    private DemoProxy proxyOnFile(Path file, String good, FakeScheduler polls) throws Exception {
        write(file, good);
        DemoFleet fleet = polled(file, polls);
        return DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0).strategy("rr")
                .agentUrls(fleet.firstFleet()).build(), RoundRobinLB::new, fleet);
    }

    private static HealthCheck readiness(DemoProxy proxy) {
        return HealthCheckRegistry.get(proxy.camelContext()).getCheck(AgentsReadinessCheck.ID).orElseThrow();
    }

    /** One answer: the batch its request was sent in, its status and the agent that answered. */
    private record Answer(int batch, int status, String agent) {
    }

    /**
     * Three batches of 20 calls: the first answered before A2 joins; the second sent just before A1
     * is marked draining, so A1 may still be answering some while it drains; the third after. The
     * file's changes are read at the next poll, which runs when the test advances the fake
     * scheduler, so the agents each batch may reach are exact whatever the CPU.
     */
    @Test
    @Tag("e2e")
    @Timeout(60)
    void agentsJoinAndDrainThroughTheFileWithoutAClientError() throws Exception {
        FakeScheduler polls = new FakeScheduler();
        try (Agents agents = Agents.start(2, 50, 150)) {
            Path file = dir.resolve("agents.txt");
            write(file, "A1=" + agents.get(0).baseUrl() + "\n");
            DemoFleet fleet = polled(file, polls);
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("rr")
                    .agentUrls(fleet.firstFleet()).build();
            AgentLoadBalancerSupport balancer = new RoundRobinLB();
            try (DemoProxy proxy = DemoProxy.start(config, () -> balancer, fleet)) {
                HttpClient client = HttpClient.newHttpClient();
                List<Answer> before = answers(send(client, proxy, 0));

                write(file, "A1=" + agents.get(0).baseUrl() + "\nA2=" + agents.get(1).baseUrl() + "\n");
                polls.advance(Duration.ofMillis(200));
                assertThat(balancer.balancerState().members()).containsExactly("A1", "A2");
                List<CompletableFuture<Answer>> whileDraining = send(client, proxy, 1);
                write(file, "A1=" + agents.get(0).baseUrl() + ";draining\nA2=" + agents.get(1).baseUrl() + "\n");
                polls.advance(Duration.ofMillis(200));
                List<Answer> after = answers(send(client, proxy, 2));

                List<Answer> done = new ArrayList<>(before);
                done.addAll(answers(whileDraining));
                done.addAll(after);
                assertThat(done).hasSize(60).filteredOn(a -> a.status() != 200).isEmpty();
                assertThat(done).filteredOn(a -> a.batch() == 0).extracting(Answer::agent).containsOnly("A1");
                assertThat(done).filteredOn(a -> a.batch() == 1).extracting(Answer::agent)
                        .as("A2 serves from the poll that read it on (A1 too, unless it drained first)")
                        .isSubsetOf("A1", "A2").contains("A2");
                assertThat(done).filteredOn(a -> a.batch() == 2).extracting(Answer::agent)
                        .as("A1 gets no new request once a poll read it draining").containsOnly("A2");
                // A1 leaves when its last call has ended, which may be recorded just after its answer came.
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(balancer.balancerState().members()).containsExactly("A2"));
            }
        }
    }

    /** A file the source refuses keeps the last good fleet and says why in the readiness check's details. */
    @Test
    @Tag("e2e")
    @Timeout(60)
    void aRefusedFileIsNamedInHealthUntilAGoodOneIsRead() throws Exception {
        FakeScheduler polls = new FakeScheduler();
        try (Agents agents = Agents.start(1, 50, 150)) {
            Path file = dir.resolve("agents.txt");
            String good = "A1=" + agents.get(0).baseUrl() + "\n";
            try (DemoProxy proxy = proxyOnFile(file, good, polls)) {
                HealthCheck check = readiness(proxy);
                assertThat(check.call().getDetails()).containsEntry("source.problem", "");

                write(file, "A1=" + agents.get(0).baseUrl() + ";wieght=2\n");
                polls.advance(Duration.ofMillis(200));
                assertThat(check.call().getDetails().get("source.problem").toString()).contains("wieght");
                assertThat(proxy.balancer().balancerState().members()).containsExactly("A1");

                write(file, good);
                polls.advance(Duration.ofMillis(200));
                assertThat(check.call().getDetails()).containsEntry("source.problem", "");
            }
        }
    }

    /**
     * {@code AGENTS_DNS} asked of the name server {@code AGENTS_DNS_SERVER} names: a test server on
     * loopback that answers A and refuses AAAA, as dnsmasq does for a name of its addn-hosts file.
     * The proxy starts on the A record's agent and names the refusal in health; with
     * {@code AGENTS_DNS_IPV6=false} no AAAA query is sent. Was: "AAAA query for agents.test answered
     * Refused(5)" stopped the start, and the name server could not be chosen.
     */
    @Test
    @Tag("e2e")
    @Timeout(60)
    void agentsFromTheNameServerOfAgentsDnsServerWhileItRefusesAaaa() throws Exception {
        try (Agents agents = Agents.start(1, 0, 0); TestDnsServer dns = new TestDnsServer()) {
            URI agent = URI.create(agents.get(0).baseUrl());
            dns.set("agents.test", TestDnsServer.a(agent.getHost(), 30));
            dns.answerWith("agents.test", DnsRecordType.AAAA, DnsResponseCode.REFUSED);
            ProxySettings settings = new ProxySettings();
            settings.setAgentsDns("agents.test:" + agent.getPort());
            settings.setAgentsDnsServer("127.0.0.1:" + dns.address().getPort());
            DemoFleet fleet = new DemoFleet(settings.fleetSource());
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("rr")
                    .agentUrls(fleet.firstFleet()).build();
            AgentLoadBalancerSupport balancer = new RoundRobinLB();
            try (DemoProxy proxy = DemoProxy.start(config, () -> balancer, fleet)) {
                HttpResponse<String> answer = new Http().get(proxy.baseUrl() + "/process/d1?user_id=7");
                assertThat(answer.statusCode()).isEqualTo(200);
                assertThat(Http.agentId(answer)).isEqualTo(agents.idOf(agents.get(0).baseUrl()));
                assertThat(balancer.balancerState().members()).containsExactly("127.0.0.1:" + agent.getPort());
                assertThat(readiness(proxy).call().getDetails())
                        .containsEntry("source.problem", "AAAA query for agents.test answered Refused(5)");
            }

            int aaaaQueries = dns.queries("agents.test", DnsRecordType.AAAA);
            settings.setAgentsDnsIpv6(false);
            FleetSource ipv4 = settings.fleetSource();
            try {
                assertThat(new DemoFleet(ipv4).firstFleet()).containsExactly(
                        "127.0.0.1:" + agent.getPort() + "=http://127.0.0.1:" + agent.getPort());
                assertThat(ipv4.problem()).isNull();
            } finally {
                ipv4.close();
            }
            assertThat(dns.queries("agents.test", DnsRecordType.AAAA)).isEqualTo(aaaaQueries);
        }
    }

    /**
     * An agent URL the demo cannot call (https, a path: its agent: children take neither), written
     * while it runs: one WARN line naming the URL and why, no stack trace, the last good fleet kept.
     * Was: "keeping the last good fleet of 1 agents: the listener failed" and a 38-line stack trace.
     */
    @Test
    @Tag("e2e")
    @Timeout(60)
    void anAgentUrlTheDemoCannotCallIsRefusedInOneWarnLineAndTheLastGoodFleetKept() throws Exception {
        FakeScheduler polls = new FakeScheduler();
        List<String> logged = new CopyOnWriteArrayList<>();
        Logger logger = ((LoggerContext) LogManager.getContext(false)).getLogger(FileFleetSource.class.getName());
        AbstractAppender appender = new AbstractAppender("fleet-refusals", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                logged.add(event.getLevel() + " " + event.getMessage().getFormattedMessage()
                        + (event.getThrown() == null ? "" : " THROWN " + event.getThrown()));
            }
        };
        appender.start();
        logger.addAppender(appender);
        try (Agents agents = Agents.start(1, 0, 0)) {
            Path file = dir.resolve("agents.txt");
            String good = "A1=" + agents.get(0).baseUrl() + "\n";
            try (DemoProxy proxy = proxyOnFile(file, good, polls)) {
                HealthCheck check = readiness(proxy);
                String https = agents.get(0).baseUrl().replace("http:", "https:");
                String path = agents.get(0).baseUrl() + "/v1";
                for (String url : List.of(https, path)) {
                    logged.clear();
                    write(file, good + "A2=" + url + "\n");
                    polls.advance(Duration.ofMillis(200));

                    String why = "the fleet was refused: agent A2: agent URL must look like http://host:port, was '"
                            + url + "' (the demo proxy calls its agents over plain HTTP at their base URL: no https, no path)";
                    assertThat(logged).containsExactly("WARN file:" + file + ": keeping the last good fleet of 1 agents: " + why);
                    assertThat(check.call().getDetails()).containsEntry("source.problem", why);
                    assertThat(proxy.balancer().balancerState().members()).containsExactly("A1");
                }
                write(file, good + "A2=http://127.0.0.1:99999\n");
                polls.advance(Duration.ofMillis(200));
                assertThat(check.call().getDetails()).containsEntry("source.problem", "the fleet was refused: agent A2: "
                        + "agent URL's port must be in 1..65535, was 'http://127.0.0.1:99999'");
                write(file, good);
                polls.advance(Duration.ofMillis(200));
                assertThat(check.call().getDetails()).containsEntry("source.problem", "");
            }
        } finally {
            logger.removeAppender(appender);
        }
    }

    /** Sends batch {@code batch} of 20 calls at once. */
    private static List<CompletableFuture<Answer>> send(HttpClient client, DemoProxy proxy, int batch) {
        List<CompletableFuture<Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/r" + batch + "-" + i
                    + "?user_id=" + i)).timeout(Duration.ofSeconds(10)).build();
            answers.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .thenApply(r -> new Answer(batch, r.statusCode(), r.statusCode() == 200 ? Http.agentId(r) : r.body()))
                    .exceptionally(e -> new Answer(batch, -1, e.toString())));
        }
        return answers;
    }

    private static List<Answer> answers(List<CompletableFuture<Answer>> calls) throws Exception {
        List<Answer> done = new ArrayList<>();
        for (CompletableFuture<Answer> call : calls) {
            done.add(call.get(15, TimeUnit.SECONDS));
        }
        return done;
    }

    @Test
    void theDemoRampsUpAJoiningAgentAndSaysWhereItsAgentsComeFrom() throws Exception {
        ProxySettings settings = new ProxySettings();
        AgentLoadBalancerSupport balancer = settings.configure(new RoundRobinLB());
        assertThat(balancer.getSlowStart()).isEqualTo(SlowStart.DEMO);
        settings.setSlowStartMs(0);
        assertThat(settings.configure(new RoundRobinLB()).getSlowStart().isEnabled()).isFalse();
        settings.setSlowStartMs(-1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> settings.configure(new RoundRobinLB()))
                .hasMessage("SLOW_START_MS: slowStartMs must be >= 0, was -1");

        ProxySettings both = new ProxySettings();
        both.setAgents("http://127.0.0.1:1");
        both.setAgentsFile("agents.txt");
        org.assertj.core.api.Assertions.assertThatThrownBy(both::fleetSource)
                .hasMessageStartingWith("Bad proxy configuration: set one of AGENTS, AGENTS_FILE and AGENTS_DNS");
        ProxySettings missing = new ProxySettings();
        missing.setAgentsFile(dir.resolve("none.txt").toString());
        DemoFleet fleet = new DemoFleet(missing.fleetSource());
        org.assertj.core.api.Assertions.assertThatThrownBy(fleet::firstFleet)
                .isInstanceOf(IllegalArgumentException.class);
        ProxySettings factor = new ProxySettings();
        factor.setBalanceFactor(1.25);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> factor.configure(new RoundRobinLB()))
                .hasMessage("BALANCE_FACTOR: balanceFactor applies to ch and avn, was set to 1.25 for rr");
        assertThat(factor.configure(new io.github.agentlb.camel.ConsistentHashLB()).getBalanceFactor()).isEqualTo(1.25);
        assertThat(Map.of("lr", Strategies.create("lr").strategyName())).containsEntry("lr", "lr");
    }
}
