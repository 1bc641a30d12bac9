package io.github.agentlb.fleet;

import static io.github.agentlb.fleet.TestDnsServer.a;
import static io.github.agentlb.fleet.TestDnsServer.aaaa;
import static io.github.agentlb.fleet.TestDnsServer.srv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.testing.FakeScheduler;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Golden answers from a DNS responder inside the test JVM; time and scheduling by {@link FakeScheduler}.
 * End to end: real UDP queries on loopback, each with a query timeout (10 s) that a starved CPU
 * still answers within; the silent server's 200 ms times out whatever the CPU.
 */
@Tag("e2e")
class DnsFleetSourceTest {

    private static final String HOST = "agents.fleet.test";
    private static final String SRV = "_agent._tcp.fleet.test";

    private final FakeScheduler fake = new FakeScheduler();
    private final TaskScheduler scheduler = TaskScheduler.of(fake);
    private final List<List<AgentSpec>> told = new ArrayList<>();
    private TestDnsServer dns;

    @BeforeEach
    void startDns() throws InterruptedException {
        dns = new TestDnsServer();
    }

    @AfterEach
    void stopDns() {
        dns.close();
    }

    @Test
    void aRecordsGiveOneAgentPerAddressOnTheConfiguredPortInNameOrder() {
        dns.set(HOST, a("10.0.0.2", 30), a("10.0.0.10", 30), a("10.0.0.1", 30));
        try (DnsFleetSource source = source(HOST + ":8080").ipv6(false).build()) {
            source.start(told::add);
            assertThat(told).containsExactly(List.of(
                    agent("10.0.0.10:8080", "http://10.0.0.10:8080"),
                    agent("10.0.0.1:8080", "http://10.0.0.1:8080"),
                    agent("10.0.0.2:8080", "http://10.0.0.2:8080")));
            assertThat(source.describe()).isEqualTo("dns:agents.fleet.test:8080");
            assertThat(dns.queries(HOST, DnsRecordType.AAAA)).isZero();
        }
    }

    @Test
    void aaaaRecordsAreNamedInRfc5952TextAndJoinTheARecords() {
        dns.set(HOST, aaaa("fd00:0:0:0:0:0:0:7", 30), aaaa("::1", 30), a("10.0.0.1", 30));
        try (DnsFleetSource source = source(HOST + ":9001").scheme("https").build()) {
            source.start(told::add);
            assertThat(told).containsExactly(List.of(
                    agent("10.0.0.1:9001", "https://10.0.0.1:9001"),
                    agent("[::1]:9001", "https://[::1]:9001"),
                    agent("[fd00::7]:9001", "https://[fd00::7]:9001")));
        }
    }

    @Test
    void srvRecordsOfTheLowestPriorityGiveTargetPortAndWeight() {
        dns.set(SRV,
                srv(10, 60, 9001, "a1.fleet.test.", 30),
                srv(10, 0, 9002, "A2.Fleet.Test.", 30),
                srv(10, 5000, 9003, "a3.fleet.test.", 30),
                srv(10, 7, 9004, ".", 30),
                srv(20, 100, 9009, "backup.fleet.test.", 30));
        try (DnsFleetSource source = source(SRV).build()) {
            source.start(told::add);
            assertThat(told).containsExactly(List.of(
                    new AgentSpec("a1.fleet.test:9001", URI.create("http://a1.fleet.test:9001"), 60, false, null),
                    new AgentSpec("a2.fleet.test:9002", URI.create("http://a2.fleet.test:9002"), 1, false, null),
                    new AgentSpec("a3.fleet.test:9003", URI.create("http://a3.fleet.test:9003"), 1000, false, null)));
            assertThat(source.describe()).isEqualTo("dns:_agent._tcp.fleet.test");
        }
    }

    @Test
    void theNameIsAskedAgainWhenTheSmallestTtlRunsOut() {
        dns.set(HOST, a("10.0.0.1", 45), a("10.0.0.2", 30));
        try (DnsFleetSource source = source(HOST + ":8080").ipv6(false).build()) {
            source.start(told::add);
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(30));

            dns.set(HOST, a("10.0.0.1", 20), a("10.0.0.3", 20));
            fake.advance(Duration.ofSeconds(29));
            assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(1);
            fake.advance(Duration.ofSeconds(1));
            assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(2);
            assertThat(told).hasSize(2);
            assertThat(told.get(1)).extracting(AgentSpec::name).containsExactly("10.0.0.1:8080", "10.0.0.3:8080");
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(20));

            dns.set(HOST, a("10.0.0.3", 20), a("10.0.0.1", 20));
            fake.advance(Duration.ofSeconds(20));
            assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(3);
            assertThat(told).as("the same addresses in another order are no change").hasSize(2);
        }
    }

    @Test
    void theTtlIsHeldWithinMinAndMaxRefresh() {
        dns.set(HOST, a("10.0.0.1", 0));
        try (DnsFleetSource source = source(HOST + ":8080").minRefresh(Duration.ofSeconds(2)).maxRefresh(Duration.ofSeconds(90)).build()) {
            source.start(told::add);
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(2));
            dns.set(HOST, a("10.0.0.1", 86_400));
            fake.advance(Duration.ofSeconds(2));
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(90));
            assertThat(source.refreshAfter(45)).isEqualTo(Duration.ofSeconds(45));
        }
    }

    @Test
    void nxdomainKeepsTheLastFleetWarnsOnceAndRetries() {
        dns.set(HOST, a("10.0.0.1", 30));
        try (CapturedLog log = new CapturedLog(DnsFleetSource.class);
             DnsFleetSource source = source(HOST + ":8080").ipv6(false).retryInterval(Duration.ofSeconds(5)).build()) {
            source.start(told::add);
            dns.remove(HOST);
            fake.advance(Duration.ofSeconds(30));
            assertThat(source.problem()).isEqualTo("A query for agents.fleet.test answered NXDomain(3)");
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(5));
            fake.advance(Duration.ofSeconds(15));
            assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(5);
            assertThat(log.at("WARN")).containsExactly("WARN dns:agents.fleet.test:8080: keeping the last good fleet of 1 agents: "
                    + "A query for agents.fleet.test answered NXDomain(3)");
            assertThat(source.fleet()).extracting(AgentSpec::name).containsExactly("10.0.0.1:8080");

            dns.set(HOST, a("10.0.0.1", 30), a("10.0.0.2", 30));
            fake.advance(Duration.ofSeconds(5));
            assertThat(source.problem()).isNull();
            assertThat(told).hasSize(2);
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(30));
        }
    }

    @Test
    void srvRecordsWhoseTargetsAreNoHostNamesAreNamedWhenNoneIsLeft() {
        // Were dropped without a word: the read failed as "no usable [SRV] records" alone.
        dns.set(SRV, srv(0, 1, 9001, "bad_host.fleet.test", 30), srv(0, 1, 9002, "a-", 30));
        assertThatThrownBy(() -> source(SRV).build().start(told::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dns:_agent._tcp.fleet.test: no usable [SRV] records for _agent._tcp.fleet.test: targets"
                        + " that are no host name: [a-:9002, bad_host.fleet.test:9001]");
    }

    @Test
    void anEmptyAnswerKeepsTheLastFleetWithOneWarning() {
        dns.set(SRV, srv(0, 1, 9001, "a1.fleet.test", 30));
        try (CapturedLog log = new CapturedLog(DnsFleetSource.class); DnsFleetSource source = source(SRV).build()) {
            source.start(told::add);
            dns.set(SRV);
            fake.advance(Duration.ofSeconds(60));
            assertThat(source.problem()).isEqualTo("no usable [SRV] records for _agent._tcp.fleet.test");
            assertThat(log.at("WARN")).hasSize(1);
            assertThat(told).hasSize(1);
            assertThat(source.fleet()).extracting(AgentSpec::name).containsExactly("a1.fleet.test:9001");
        }
    }

    @Test
    void anAddressFamilyWithoutRecordsIsNoProblemButBothEmptyIs() {
        dns.set(HOST);
        assertThatThrownBy(() -> source(HOST + ":8080").build().start(told::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dns:agents.fleet.test:8080: no usable [A, AAAA] records for agents.fleet.test");
        dns.set(HOST, aaaa("::1", 30));
        try (DnsFleetSource source = source(HOST + ":8080").build()) {
            source.start(told::add);
            assertThat(told).containsExactly(List.of(agent("[::1]:8080", "http://[::1]:8080")));
        }
    }

    @Test
    void aRefusedAaaaQueryAtStartLeavesTheARecordsAgentsAndIsReportedOnce() {
        // dnsmasq --no-resolv with the name in an addn-hosts file: A answered, AAAA refused
        dns.set(HOST, a("127.0.0.2", 30));
        dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.REFUSED);
        try (CapturedLog log = new CapturedLog(DnsFleetSource.class);
             DnsFleetSource source = source(HOST + ":42090").retryInterval(Duration.ofSeconds(5)).build()) {
            source.start(told::add);
            assertThat(told).containsExactly(List.of(agent("127.0.0.2:42090", "http://127.0.0.2:42090")));
            assertThat(source.problem()).isEqualTo("AAAA query for agents.fleet.test answered Refused(5)");
            assertThat(fake.nextDelay()).as("the refused family is asked again after retryInterval").hasValue(Duration.ofSeconds(5));

            dns.set(HOST, a("127.0.0.2", 30), a("127.0.0.3", 30));
            fake.advance(Duration.ofSeconds(5));
            assertThat(told).as("the fleet follows the A records").hasSize(2);
            assertThat(told.get(1)).extracting(AgentSpec::name).containsExactly("127.0.0.2:42090", "127.0.0.3:42090");
            fake.advance(Duration.ofSeconds(5));
            assertThat(dns.queries(HOST, DnsRecordType.AAAA)).isEqualTo(3);
            assertThat(log.at("WARN")).containsExactly("WARN dns:agents.fleet.test:42090: read in part, the agents of the part "
                    + "that failed kept as they were (fleet of 1 agents): AAAA query for agents.fleet.test answered Refused(5)");

            dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.NOERROR);
            dns.set(HOST, a("127.0.0.2", 30), a("127.0.0.3", 30), aaaa("::1", 30));
            fake.advance(Duration.ofSeconds(5));
            assertThat(source.problem()).isNull();
            assertThat(told.get(2)).extracting(AgentSpec::name).containsExactly("127.0.0.2:42090", "127.0.0.3:42090", "[::1]:42090");
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(30));
            assertThat(log.at("WARN")).hasSize(1);
        }
    }

    @Test
    void aaaaRefusedWhileRunningDoesNotFreezeTheFleet() {
        dns.set(HOST, a("10.0.0.1", 30));
        try (CapturedLog log = new CapturedLog(DnsFleetSource.class); DnsFleetSource source = source(HOST + ":8080").build()) {
            source.start(told::add);
            assertThat(source.problem()).isNull();

            dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.REFUSED);
            dns.set(HOST, a("10.0.0.1", 30), a("10.0.0.2", 30));
            fake.advance(Duration.ofSeconds(30));
            assertThat(told).hasSize(2);
            assertThat(told.get(1)).extracting(AgentSpec::name).containsExactly("10.0.0.1:8080", "10.0.0.2:8080");
            assertThat(source.problem()).isEqualTo("AAAA query for agents.fleet.test answered Refused(5)");
            assertThat(log.at("WARN")).hasSize(1);

            dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.NOERROR);
            fake.advance(Duration.ofSeconds(5));
            assertThat(source.problem()).as("cleared by a read where both families answer").isNull();
            assertThat(told).hasSize(2);
            assertThat(log.at("INFO")).last().isEqualTo("INFO dns:agents.fleet.test:8080: read again without problem, "
                    + "fleet unchanged (2 agents)");
        }
    }

    @Test
    void aServfailOnAaaaWhileADualStackFleetRunsKeepsItsIpv6Agents() {
        dns.set(HOST, a("10.0.0.1", 30), aaaa("fd00::1", 30), aaaa("fd00::2", 30));
        try (CapturedLog log = new CapturedLog(DnsFleetSource.class); DnsFleetSource source = source(HOST + ":8080").build()) {
            source.start(told::add);
            assertThat(told.get(0)).extracting(AgentSpec::name).containsExactly("10.0.0.1:8080", "[fd00::1]:8080", "[fd00::2]:8080");

            dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.SERVFAIL);
            dns.set(HOST, a("10.0.0.3", 30));
            fake.advance(Duration.ofSeconds(30));
            assertThat(told).hasSize(2);
            assertThat(told.get(1)).as("the A change applied, the IPv6 agents kept")
                    .extracting(AgentSpec::name).containsExactly("10.0.0.3:8080", "[fd00::1]:8080", "[fd00::2]:8080");
            assertThat(source.problem()).isEqualTo("AAAA query for agents.fleet.test answered ServFail(2)");
            fake.advance(Duration.ofSeconds(10));
            assertThat(log.at("WARN")).containsExactly("WARN dns:agents.fleet.test:8080: read in part, the agents of the part "
                    + "that failed kept as they were (fleet of 3 agents): AAAA query for agents.fleet.test answered ServFail(2)");
            assertThat(told).hasSize(2);

            dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.NOERROR);
            dns.set(HOST, a("10.0.0.3", 30), aaaa("fd00::2", 30));
            fake.advance(Duration.ofSeconds(5));
            assertThat(told.get(2)).extracting(AgentSpec::name).containsExactly("10.0.0.3:8080", "[fd00::2]:8080");
            assertThat(source.problem()).isNull();
        }
    }

    @Test
    void bothFamiliesFailingOrNoneUsableKeepsTheLastGoodFleet() {
        dns.set(HOST, a("10.0.0.1", 30), aaaa("fd00::1", 30));
        try (CapturedLog log = new CapturedLog(DnsFleetSource.class);
             DnsFleetSource source = source(HOST + ":8080").retryInterval(Duration.ofSeconds(5)).build()) {
            source.start(told::add);

            dns.answerWith(HOST, DnsRecordType.A, DnsResponseCode.REFUSED);
            dns.answerWith(HOST, DnsRecordType.AAAA, DnsResponseCode.SERVFAIL);
            fake.advance(Duration.ofSeconds(30));
            assertThat(source.problem()).isEqualTo("A query for agents.fleet.test answered Refused(5)");
            assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(5));

            dns.answerWith(HOST, DnsRecordType.A, DnsResponseCode.NOERROR);
            dns.set(HOST);
            fake.advance(Duration.ofSeconds(5));
            assertThat(source.problem()).as("A answers without records, AAAA fails: none usable")
                    .isEqualTo("AAAA query for agents.fleet.test answered ServFail(2)");
            assertThat(told).hasSize(1);
            assertThat(source.fleet()).extracting(AgentSpec::name).containsExactly("10.0.0.1:8080", "[fd00::1]:8080");
            assertThat(log.at("WARN")).containsExactly(
                    "WARN dns:agents.fleet.test:8080: keeping the last good fleet of 2 agents: A query for agents.fleet.test answered Refused(5)",
                    "WARN dns:agents.fleet.test:8080: keeping the last good fleet of 2 agents: AAAA query for agents.fleet.test answered ServFail(2)");
        }
        assertThatThrownBy(() -> source(HOST + ":8080").build().start(told::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dns:agents.fleet.test:8080: AAAA query for agents.fleet.test answered ServFail(2)");
        dns.answerWith(HOST, DnsRecordType.A, DnsResponseCode.NXDOMAIN);
        assertThatThrownBy(() -> source(HOST + ":8080").build().start(told::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dns:agents.fleet.test:8080: A query for agents.fleet.test answered NXDomain(3)");
        assertThat(told).hasSize(1);
    }

    @Test
    void startFailsOnNxdomainAndOnASilentServer() throws Exception {
        assertThatThrownBy(() -> source("missing.fleet.test:8080").ipv6(false).build().start(told::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dns:missing.fleet.test:8080: A query for missing.fleet.test answered NXDomain(3)");
        try (DatagramSocket silent = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            DnsFleetSource source = DnsFleetSource.builder(HOST + ":8080").scheduler(scheduler)
                    .nameServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), silent.getLocalPort()))
                    .queryTimeout(Duration.ofMillis(200)).build();
            assertThatThrownBy(() -> source.start(told::add))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("dns:agents.fleet.test:8080: A query for agents.fleet.test failed: timed out after 200 ms");
        }
        assertThat(told).isEmpty();
        assertThat(fake.pendingCount()).isZero();
    }

    @Test
    void aQueryWithoutAnswerIsSentOnceMoreBeforeTheReadFails() {
        // A lost datagram failed the read: at 5% loss a WARN and an INFO line every few reads.
        dns.set(HOST, a("10.0.0.1", 1));
        dns.dropNext(HOST, DnsRecordType.A, 1);
        DnsFleetSource source = source(HOST + ":8080").ipv6(false).queryTimeout(Duration.ofMillis(300)).build();
        source.start(told::add);
        assertThat(source.fleet()).extracting(AgentSpec::name).containsExactly("10.0.0.1:8080");
        assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(2);
        source.close();

        dns.dropNext(HOST, DnsRecordType.A, 2);
        DnsFleetSource twice = source(HOST + ":8080").ipv6(false).queryTimeout(Duration.ofMillis(300)).build();
        assertThatThrownBy(() -> twice.start(told::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dns:agents.fleet.test:8080: A query for agents.fleet.test failed: timed out after 300 ms");
        assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(4);
    }

    @Test
    void closeEndsTheQueries() {
        dns.set(HOST, a("10.0.0.1", 1));
        DnsFleetSource source = source(HOST + ":8080").ipv6(false).build();
        source.start(told::add);
        assertThatThrownBy(() -> source.start(told::add)).isInstanceOf(IllegalStateException.class);
        source.close();
        source.close();
        fake.advance(Duration.ofSeconds(10));
        assertThat(dns.queries(HOST, DnsRecordType.A)).isEqualTo(1);
    }

    /** ipv4 and ipv6 choose the queries of a host:port target: set on an SRV target they would say nothing, so they are refused. */
    @Test
    void ipv4OrIpv6SetOffForAnSrvTargetIsRefused() {
        assertThatThrownBy(() -> DnsFleetSource.builder("_agent._tcp.agents.internal").ipv6(false).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ipv4 and ipv6 choose the queries of a host:port"
                        + " target, not of the SRV target _agent._tcp.agents.internal, were ipv4=true, ipv6=false");
        assertThatThrownBy(() -> DnsFleetSource.builder("_agent._tcp.agents.internal").ipv4(false).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("were ipv4=false, ipv6=true");
        DnsFleetSource.builder("_agent._tcp.agents.internal").build();
        DnsFleetSource.builder("agents.internal:8080").ipv6(false).build();
    }

    @Test
    void theBuilderNamesTheBadFieldAndValue() {
        assertBad(() -> DnsFleetSource.builder("agents.internal"),
                "target must be host:port or _service._proto.name, was 'agents.internal'");
        assertBad(() -> DnsFleetSource.builder("agents.internal:0"), "target port must be in 1..65535, was 'agents.internal:0'");
        assertBad(() -> DnsFleetSource.builder("agents.internal:http"),
                "target must be host:port or _service._proto.name, was 'agents.internal:http'");
        assertBad(() -> DnsFleetSource.builder("_agent._tcp.x:80"),
                "target must be host:port or _service._proto.name, was '_agent._tcp.x:80'");
        // Were refused without the value (Netty's "Empty label is not a legal name"), or taken.
        String tooLong = ("a".repeat(63) + ".").repeat(4) + "test";
        for (String bad : List.of("agents..test:8080", "a".repeat(64) + ".test:8080", "_agent._tcp..test", "a/b.test:80",
                tooLong + ":8080", "_agent._tcp." + tooLong)) {
            assertBad(() -> DnsFleetSource.builder(bad), "target must be host:port or _service._proto.name, each name"
                    + " labels of 1-63 letters, digits, '-' or '_' joined by '.', at most 253 characters, was '" + bad + "'");
        }
        for (String bad : List.of("agents.test:+8080", "agents.test:08080")) {
            assertBad(() -> DnsFleetSource.builder(bad), "target port must be in 1..65535 as written (digits, no sign or"
                    + " leading zero), was '" + bad + "'");
        }
        DnsFleetSource.builder("agents.test.:8080").build();
        DnsFleetSource.builder("Agents-1.test_x:65535").build();
        assertBad(() -> DnsFleetSource.builder(null), "target must be host:port or _service._proto.name, was 'null'");
        assertBad(() -> DnsFleetSource.builder("a:1").minRefresh(Duration.ZERO), "minRefresh must be > 0, was PT0S");
        assertBad(() -> DnsFleetSource.builder("a:1").retryInterval(null), "retryInterval must be > 0, was null");
        assertBad(() -> DnsFleetSource.builder("a:1").queryTimeout(Duration.ofNanos(5)), "queryTimeout must be >= 1 ms, was PT0.000000005S");
        assertBad(() -> DnsFleetSource.builder("a:1").scheme("ftp"), "scheme must be http or https, was ftp");
        assertBad(() -> DnsFleetSource.builder("a:1").minRefresh(Duration.ofSeconds(61)).build(),
                "minRefresh must be <= maxRefresh, was PT1M1S > PT1M");
        assertBad(() -> DnsFleetSource.builder("a:1").ipv4(false).ipv6(false).build(),
                "ipv4 and ipv6 must not both be false, were false");
        assertBad(() -> DnsFleetSource.builder("a:1").nameServer(InetSocketAddress.createUnresolved("dns", 53)),
                "nameServer must be a resolved address, was dns/<unresolved>:53");
    }

    private static void assertBad(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    private DnsFleetSource.Builder source(String target) {
        return DnsFleetSource.builder(target).nameServer(dns.address()).scheduler(scheduler).queryTimeout(Duration.ofSeconds(10));
    }

    private static AgentSpec agent(String name, String url) {
        return AgentSpec.of(name, URI.create(url));
    }
}
