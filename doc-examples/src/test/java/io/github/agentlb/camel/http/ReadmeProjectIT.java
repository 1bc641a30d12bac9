package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * README step 5 as a reader follows it: a project of its own with the {@code pom.xml} of step 5
 * and the README's route class as {@code src/main/java/ProxyRoute.java}, nothing else, built by
 * this build's Maven against the library as packaged (bom, parent, camel-lb-strategies and
 * camel-lb-http from their {@code target/} directories, as {@code bom/src/it/verify.sh} does;
 * everything else from this build's local repository, else Maven Central), run in a JVM of its own
 * with a 64 MiB heap, and checked against three agents: a JSON POST byte for byte, events one by
 * one, a 50 MiB answer, a client that leaves, a 20 s call, every agent
 * unavailable, every agent busy. Only the ports differ
 * from the README's text. Runs in {@code mvn verify} with the other end-to-end tests (phase
 * integration-test) of this module, which the build starts after camel-lb-http's.
 */
@Tag("e2e")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadmeProjectIT {

    private static final String VERSION = "0.1.0-SNAPSHOT";
    private static final String GROUP = "io/github/agentlb/";
    private final Path work = Path.of("target/readme-project").toAbsolutePath();
    private SwitchableAgents agents;
    private Process app;
    private ProxyChecks checks;
    private ProxyChecks.LongCall longCall;

    @BeforeAll
    void buildAndStart() throws Exception {
        agents = new SwitchableAgents();
        int port = FreePorts.next();
        writeProject(port);
        Path m2 = work.resolve("m2");
        installLibrary(m2);
        run(List.of(mvn(), "-B", "-q", "-s", "settings.xml", "-Dmaven.repo.local=" + m2, "compile",
                "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath", "-Dmdep.outputFile=classpath.txt"),
                "build.log", 10);
        String classpath = work.resolve("target/classes") + java.io.File.pathSeparator
                + Files.readString(work.resolve("classpath.txt")).strip();
        app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
                "-cp", classpath, "ProxyRoute").directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("app.log").toFile()).start();
        awaitListening(port);
        checks = new ProxyChecks("http://127.0.0.1:" + port, agents);
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) {
            app.destroy();
            if (!app.waitFor(20, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
        if (agents != null) {
            agents.close();
        }
    }

    /** pom.xml: README step 5's; src/main/java/ProxyRoute.java: the README's route class, on test ports. */
    private void writeProject(int port) throws IOException {
        if (Files.exists(work)) {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(java.io.File::delete);
            }
        }
        Files.createDirectories(work.resolve("src/main/java"));
        Files.writeString(work.resolve("pom.xml"), DocBlocks.blocks("README.md", "xml").get(0));
        Files.writeString(work.resolve("src/main/java/ProxyRoute.java"),
                DocBlocks.onPorts(DocBlocks.readmeRoute(), port, agents.ports()));
        String home = Path.of(System.getProperty("readme.it.repository",
                System.getProperty("user.home") + "/.m2/repository")).toUri().toString();
        Files.writeString(work.resolve("settings.xml"), """
                <settings>
                  <profiles><profile><id>home</id>
                    <repositories><repository><id>home</id><url>%1$s</url><snapshots><enabled>false</enabled></snapshots></repository></repositories>
                    <pluginRepositories><pluginRepository><id>home</id><url>%1$s</url><snapshots><enabled>false</enabled></snapshots></pluginRepository></pluginRepositories>
                  </profile></profiles>
                  <activeProfiles><activeProfile>home</activeProfile></activeProfiles>
                </settings>
                """.formatted(home));
    }

    /** The library as packaged, into the project's own local repository (nothing goes to this build's). */
    private static void installLibrary(Path m2) throws IOException {
        Path root = DocBlocks.ROOT;
        install(m2, "agent-load-balancer-bom", root.resolve("bom/pom.xml"), null);
        install(m2, "agent-load-balancer", root.resolve("pom.xml"), null);
        for (String module : List.of("camel-lb-strategies", "camel-lb-http")) {
            Path jar = root.resolve(module + "/target/" + module + "-" + VERSION + ".jar");
            assertThat(jar).as("packaged by this build before this module's tests").exists();
            install(m2, module, root.resolve(module + "/pom.xml"), jar);
        }
    }

    private static void install(Path m2, String artifact, Path pom, Path jar) throws IOException {
        Path dir = m2.resolve(GROUP + artifact + "/" + VERSION);
        Files.createDirectories(dir);
        Files.copy(pom, dir.resolve(artifact + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null) {
            Files.copy(jar, dir.resolve(artifact + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String mvn() {
        String home = System.getProperty("maven.home");
        boolean windows = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("win");
        return home == null ? "mvn" : Path.of(home, "bin", windows ? "mvn.cmd" : "mvn").toString();
    }

    private void run(List<String> command, String log, int minutes) throws Exception {
        Process process = new ProcessBuilder(new ArrayList<>(command)).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve(log).toFile()).start();
        boolean ended = process.waitFor(minutes, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly();
        }
        assertThat(ended && process.exitValue() == 0).as(String.join(" ", command) + " in " + work + ":\n"
                + Files.readString(work.resolve(log))).isTrue();
    }

    private void awaitListening(int port) throws Exception {
        for (int i = 0; i < 600; i++) {
            assertThat(app.isAlive()).as("the application runs:\n" + Files.readString(work.resolve("app.log"))).isTrue();
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("nothing listens on " + port + ":\n" + Files.readString(work.resolve("app.log")));
    }

    /** Begun first, answered after the other checks: it takes 20 s at its agent, and they need not wait. */
    @Test
    @Order(0)
    void aTwentySecondCallBegins() throws Exception {
        longCall = checks.startLongCall(20_000);
    }

    @Test
    @Order(1)
    void aJsonPostIsForwardedByteForByte() throws Exception {
        checks.jsonPostIsForwardedByteForByte();
    }

    @Test
    @Order(1)
    void aPostSaidToBeAFormIsForwardedByteForByte() throws Exception {
        checks.formPostIsForwardedByteForByte();
    }

    @Test
    @Order(2)
    void serverSentEventsReachTheClientOneByOneAndTheFirstAsSoonAsDirect() throws Exception {
        checks.eventsReachTheClientOneByOne();
        double[] firstEvent = checks.firstEventMillis(50);
        // A figure for the reader of the log, not an assertion: timings depend on the machine's load.
        System.out.printf(Locale.ROOT, "first event, median of 50 streams: %.2f ms through the route, %.2f ms direct%n",
                firstEvent[0], firstEvent[1]);
    }

    @Test
    @Order(3)
    void aFiftyMebibyteAnswerStreamsThroughASixtyFourMebibyteHeap() throws Exception {
        checks.aLargeAnswerStreamsThroughByteForByte(50L * 1024 * 1024);
    }

    @Test
    @Order(4)
    void aClientThatLeavesCancelsTheAgentsCallWithinOneSecond() throws Exception {
        checks.aClientThatLeavesCancelsTheAgentCallWithinOneSecond();
    }

    @Test
    @Order(5)
    void everyAgentUnavailableIsA503NotA429AndTheAgentsRecover() throws Exception {
        checks.everyAgentUnavailableIsA503ThenTheAgentsRecover();
    }

    @Test
    @Order(6)
    void everyAgentBusyIsA429WithRetryAfterPassedOn() throws Exception {
        checks.everyAgentBusyIs429WithRetryAfterAndTheAgentsRest();
    }

    @Test
    @Order(7)
    void theTwentySecondCallRanOnce() throws Exception {
        longCall.answeredOnce();
    }

    @Test
    @Order(8)
    void theApplicationLoggedNoError() throws IOException {
        assertThat(Files.readString(work.resolve("app.log"), StandardCharsets.UTF_8))
                .doesNotContain("ERROR").doesNotContain("Exception");
    }
}
