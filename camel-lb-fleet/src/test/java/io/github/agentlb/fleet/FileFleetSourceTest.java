package io.github.agentlb.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.testing.FakeScheduler;
import io.github.agentlb.core.fleet.FleetListener;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileFleetSourceTest {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final String TWO = "A1=http://127.0.0.1:9001\nA2=http://127.0.0.1:9002\n";
    private static final String THREE = TWO + "A3=http://127.0.0.1:9003;weight=2\n";

    @TempDir
    Path dir;

    private final FakeScheduler fake = new FakeScheduler();
    private final TaskScheduler scheduler = TaskScheduler.of(fake);
    private final List<List<AgentSpec>> told = new ArrayList<>();

    @Test
    void startReadsOnTheCallersThreadThenPollsEverySecondByDefault() throws IOException {
        Path file = write("agents.txt", TWO);
        try (FileFleetSource source = FileFleetSource.builder(file).scheduler(scheduler).build()) {
            source.start(told::add);

            assertThat(told).containsExactly(fleet("A1", "A2"));
            assertThat(source.fleet()).isEqualTo(fleet("A1", "A2"));
            assertThat(source.describe()).isEqualTo("file:" + file);
            assertThat(fake.nextDelay()).hasValue(SECOND);
            fake.advance(Duration.ofSeconds(5));
            assertThat(fake.nextDelay()).hasValue(SECOND);
            assertThat(told).hasSize(1);
        }
    }

    @Test
    void aWriteInPlaceIsSeenAtTheNextPoll() throws IOException {
        Path file = write("agents.txt", TWO);
        try (FileFleetSource source = started(file)) {
            rewrite(file, THREE, Duration.ofMillis(999));
            assertThat(told).hasSize(1);
            fake.advance(Duration.ofMillis(1));
            assertThat(told).containsExactly(fleet("A1", "A2"), fleet("A1", "A2", "A3"));
            assertThat(told.get(1).get(2).weight()).isEqualTo(2.0);
        }
    }

    @Test
    void anAtomicRenameOverTheFileIsSeenAtTheNextPoll() throws IOException {
        Path file = write("agents.txt", TWO);
        try (FileFleetSource source = started(file)) {
            Path next = write("agents.txt.tmp", "A2=http://127.0.0.1:9002;draining\nA4=http://127.0.0.1:9004\n");
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fake.advance(SECOND);
            assertThat(told).hasSize(2);
            assertThat(told.get(1)).containsExactly(
                    AgentSpec.of("A2", URI.create("http://127.0.0.1:9002")).withDraining(true),
                    AgentSpec.of("A4", URI.create("http://127.0.0.1:9004")));
        }
    }

    @Test
    void aFileThatChangesButDescribesTheSameFleetCallsNobody() throws IOException {
        Path file = write("agents.txt", TWO);
        try (FileFleetSource source = started(file)) {
            rewrite(file, "# reformatted\n" + TWO.replace("=", " = "), SECOND);
            rewrite(file, "[{\"name\":\"A1\",\"url\":\"http://127.0.0.1:9001\"},"
                    + "{\"name\":\"A2\",\"url\":\"http://127.0.0.1:9002\",\"weight\":1}]", SECOND);
            assertThat(told).hasSize(1);
            assertThat(source.problem()).isNull();
        }
    }

    @Test
    void badContentKeepsTheLastGoodFleetAndWarnsOncePerReason() throws IOException {
        Path file = write("agents.txt", TWO);
        try (CapturedLog log = new CapturedLog(FileFleetSource.class); FileFleetSource source = started(file)) {

            rewrite(file, "", Duration.ofSeconds(5));
            assertThat(source.problem()).isEqualTo("no agents");
            assertThat(log.at("WARN")).containsExactly(
                    "WARN file:" + file + ": keeping the last good fleet of 2 agents: no agents");

            rewrite(file, TWO + "A1=http://127.0.0.1:9003\n", Duration.ofSeconds(3));
            rewrite(file, "[{\"name\":\"A1\",\"url\":\"http://127.0.0.1:9001\"},{\"na", Duration.ofSeconds(3));
            rewrite(file, "A1=http://127.0.0.1:9001;draining\n", Duration.ofSeconds(3));
            Files.delete(file);
            fake.advance(Duration.ofSeconds(3));

            assertThat(log.at("WARN")).hasSize(5);
            assertThat(log.at("WARN").get(1)).endsWith(": line 3: duplicate name 'A1' (first on line 1)");
            assertThat(log.at("WARN").get(2)).contains(": not valid JSON: ");
            assertThat(log.at("WARN").get(3)).endsWith(": no agent takes new requests (all 1 draining)");
            assertThat(log.at("WARN").get(4)).endsWith(": no such file");
            assertThat(told).containsExactly(fleet("A1", "A2"));
            assertThat(source.fleet()).isEqualTo(fleet("A1", "A2"));

            rewrite(file, THREE, SECOND);
            assertThat(told).containsExactly(fleet("A1", "A2"), fleet("A1", "A2", "A3"));
            assertThat(source.problem()).isNull();
            assertThat(log.at("INFO")).last().isEqualTo("INFO file:" + file + ": fleet of 3 agents: added [A3]");
        }
    }

    /** Was: the last of two weights won, and {@code weight=2f} was weight 2. */
    @Test
    void anOptionTwiceOrAWeightInAnotherNotationIsABadLineAtStartAndWhileRunning() throws IOException {
        Path bad = write("bad.txt", "A1=http://127.0.0.1:9001;weight=2;weight=3\n");
        assertThatThrownBy(() -> started(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("file:" + bad + ": line 1: option weight given twice: 'weight=2' and 'weight=3'");

        Path file = write("agents.txt", TWO);
        try (CapturedLog log = new CapturedLog(FileFleetSource.class); FileFleetSource source = started(file)) {
            rewrite(file, TWO + "A3=http://127.0.0.1:9003;weight=2f\n", SECOND);
            rewrite(file, TWO + "A3=http://127.0.0.1:9003;weight=2f\n", SECOND);
            assertThat(log.at("WARN")).containsExactly("WARN file:" + file + ": keeping the last good fleet of 2 agents: "
                    + "line 3: weight must be a number, was '2f' (decimal digits with an optional fraction, such as 2 or 0.5)");
            assertThat(told).containsExactly(fleet("A1", "A2"));
        }
    }

    @Test
    void theSameGoodContentAfterABadOneIsReadAgainWithoutCallingTheListener() throws IOException {
        Path file = write("agents.txt", TWO);
        try (CapturedLog log = new CapturedLog(FileFleetSource.class); FileFleetSource source = started(file)) {
            rewrite(file, "A1=http://127.0.0.1:9001\nA2=http://127.0.0.1:", Duration.ofSeconds(2));
            rewrite(file, TWO, SECOND);
            assertThat(told).hasSize(1);
            assertThat(source.problem()).isNull();
            assertThat(log.at("WARN")).hasSize(1);
            assertThat(log.at("INFO")).last().asString().endsWith("read again without problem, fleet unchanged (2 agents)");
        }
    }

    @Test
    void aTextFileCutShortIsActedOnOnlyWhenReadUnchangedTwice() throws IOException {
        Path file = write("agents.txt", TWO);
        try (CapturedLog log = new CapturedLog(FileFleetSource.class); FileFleetSource source = started(file)) {
            rewrite(file, "", SECOND);
            rewrite(file, TWO + "A3=http://127.0.0.1:90", SECOND);
            rewrite(file, THREE, SECOND);
            assertThat(log.at("WARN")).isEmpty();
            assertThat(told).containsExactly(fleet("A1", "A2"), fleet("A1", "A2", "A3"));

            rewrite(file, TWO.strip(), SECOND);
            assertThat(told).hasSize(2);
            fake.advance(SECOND);
            assertThat(told).containsExactly(fleet("A1", "A2"), fleet("A1", "A2", "A3"), fleet("A1", "A2"));
        }
    }

    @Test
    void aFleetTheListenerRefusesIsOfferedAgainAtTheNextPoll() throws IOException {
        Path file = write("agents.txt", TWO);
        int[] refusals = {2};
        FleetListener picky = agents -> {
            if (agents.size() == 3 && refusals[0]-- > 0) {
                throw new IllegalArgumentException("not now");
            }
            told.add(agents);
        };
        try (CapturedLog log = new CapturedLog(FileFleetSource.class); FileFleetSource source = manual(file, SECOND)) {
            source.start(picky);
            rewrite(file, THREE, SECOND);
            assertThat(source.problem()).isEqualTo("the fleet was refused: not now");
            fake.advance(SECOND);
            assertThat(told).hasSize(1);
            fake.advance(SECOND);
            assertThat(told).containsExactly(fleet("A1", "A2"), fleet("A1", "A2", "A3"));
            assertThat(log.at("WARN")).hasSize(1);
        }
    }

    @Test
    void startFailsOnABadFirstReadAndSchedulesNothing() throws IOException {
        Path empty = write("empty.txt", "# nothing\n");
        Path missing = dir.resolve("missing.txt");
        Path bad = write("bad.txt", "A1=http://127.0.0.1\n");
        Path binary = dir.resolve("binary.txt");
        Files.write(binary, new byte[] {'A', '=', (byte) 0xC3});
        assertThatThrownBy(() -> manual(empty, SECOND).start(told::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("file:" + empty + ": no agents");
        assertThatThrownBy(() -> manual(missing, SECOND).start(told::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("file:" + missing + ": no such file");
        assertThatThrownBy(() -> manual(bad, SECOND).start(told::add))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("file:" + bad + ": line 1: address must be http(s)://host:port, was 'http://127.0.0.1'");
        assertThatThrownBy(() -> manual(binary, SECOND).start(told::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("file:" + binary + ": not UTF-8 text");
        assertThat(told).isEmpty();
        assertThat(fake.pendingCount()).isZero();
    }

    @Test
    void startsOnceAndCloseEndsThePolls() throws IOException {
        Path file = write("agents.txt", TWO);
        FileFleetSource source = manual(file, SECOND);
        source.start(told::add);
        assertThatThrownBy(() -> source.start(told::add)).isInstanceOf(IllegalStateException.class);
        source.close();
        source.close();
        assertThat(fake.pendingCount()).isZero();
        rewrite(file, THREE, Duration.ofSeconds(10));
        assertThat(told).hasSize(1);
    }

    /** A poll interval under 10 ms reads the file in a loop (82% of a core at 1 ns): refused. */
    @Test
    void aPollIntervalUnderTenMillisecondsIsRefused() {
        Path dir = Path.of("agents.txt");
        assertThatThrownBy(() -> FileFleetSource.builder(dir).pollInterval(Duration.ofNanos(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pollInterval must be >= 10 ms, was PT0.000000001S");
        assertThatThrownBy(() -> FileFleetSource.builder(dir).pollInterval(Duration.ofMillis(9)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pollInterval must be >= 10 ms, was PT0.009S");
        FileFleetSource.builder(dir).pollInterval(Duration.ofMillis(10));
    }

    @Test
    void theBuilderNamesTheBadFieldAndValue() {
        assertThatThrownBy(() -> FileFleetSource.builder(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("file must not be null, was null");
        assertThatThrownBy(() -> FileFleetSource.builder(dir).pollInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pollInterval must be > 0, was PT0S");
        assertThatThrownBy(() -> FileFleetSource.builder(dir).pollInterval(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pollInterval must be > 0, was PT-0.005S");
        assertThatThrownBy(() -> FileFleetSource.builder(dir).scheduler(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("scheduler must not be null, was null");
    }

    /**
     * The one test on a real thread and the wall clock: the source's own poller, every 50 ms, sees a
     * rename (waited for at most 30 s, which a starved CPU still meets).
     */
    @Test
    @Tag("e2e")
    void itsOwnThreadSeesARename() throws Exception {
        Path file = write("agents.txt", TWO);
        BlockingQueue<List<AgentSpec>> queue = new LinkedBlockingQueue<>();
        try (FileFleetSource source = FileFleetSource.builder(file).pollInterval(Duration.ofMillis(50)).build()) {
            source.start(queue::add);
            assertThat(queue.poll()).isEqualTo(fleet("A1", "A2"));
            Path next = write("agents.tmp", THREE);
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            assertThat(queue.poll(30, TimeUnit.SECONDS)).isEqualTo(fleet("A1", "A2", "A3"));
        }
    }

    /** A source over {@code file} polled every second by the fake scheduler, started with {@link #told} as its listener. */
    private FileFleetSource started(Path file) {
        FileFleetSource source = manual(file, SECOND);
        source.start(told::add);
        return source;
    }

    private FileFleetSource manual(Path file, Duration interval) {
        return FileFleetSource.builder(file).pollInterval(interval).scheduler(scheduler).build();
    }

    /** Writes {@code content} over {@code file} in place, then lets {@code wait} pass on the scheduler. */
    private void rewrite(Path file, String content, Duration wait) throws IOException {
        Files.writeString(file, content);
        fake.advance(wait);
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    private static List<AgentSpec> fleet(String... names) {
        List<AgentSpec> agents = new ArrayList<>();
        for (String name : names) {
            int port = 9000 + Integer.parseInt(name.substring(1));
            agents.add(new AgentSpec(name, URI.create("http://127.0.0.1:" + port), name.equals("A3") ? 2 : 1, false, null));
        }
        return agents;
    }
}
