package io.github.agentlb.fleet;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * A watched agents file (format in {@link AgentsFile}): read at start, then re-read every
 * {@linkplain Builder#pollInterval(Duration) poll interval} (default 1 s) and compared by content,
 * so an atomic rename over the file and a write in place are both seen, whatever the file
 * system's timestamps and events do. A change is handed on within one interval.
 *
 * <p>Bad input: a missing, unreadable, empty (or comments only), half-written or invalid file
 * (a bad URL or weight, a duplicate name, an unknown option, truncated JSON) keeps the last good
 * fleet and logs one WARN line saying why and where; the same content is not parsed or reported
 * again. Only a valid fleet that differs from the last one reaches the listener.
 *
 * <p>Writes in place: a text file that is empty or does not end with a line break may be caught
 * half-written (truncated, or cut inside a line), so after start it is acted on only when read
 * unchanged at two polls in a row; a complete file (ending with a line break) is applied at the
 * first poll that sees it. A write in place can still be read between two whole lines, which is
 * a valid, shorter fleet for one interval: write a temporary file and rename it over this one (as
 * Kubernetes does for a mounted ConfigMap) when that matters, or use JSON, whose truncation never
 * parses.
 *
 * <p>Thread-safety: reads run on the scheduler's one thread (by default a daemon thread of the
 * source's own, stopped by {@link #close()}), the first on the caller's; accessors may be called
 * from any thread. Cost: one read of the file per interval, one parse per change; files over
 * {@value #MAX_BYTES} bytes are refused.
 */
public final class FileFleetSource extends PolledFleetSource {

    /** How often the file is read by default: 1 s. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    /** The largest file read: 1 MiB (about ten thousand agents). */
    public static final int MAX_BYTES = 1 << 20;

    private final Path file;
    private final Duration pollInterval;
    private final TaskScheduler givenScheduler;
    private byte[] lastContent;
    private byte[] unsettled;

    private FileFleetSource(Builder builder) {
        this.file = builder.file;
        this.pollInterval = builder.pollInterval;
        this.givenScheduler = builder.scheduler;
    }

    /** A source over {@code file} with the default poll interval and its own thread. */
    public static FileFleetSource of(Path file) {
        return builder(file).build();
    }

    /** @throws IllegalArgumentException if {@code file} is null */
    public static Builder builder(Path file) {
        return new Builder(file);
    }

    @Override
    public void start(FleetListener listener) {
        synchronized (lock) {
            LastGoodFleet first = startable(listener);
            byte[] content;
            List<AgentSpec> agents;
            try {
                content = read();
                agents = AgentsFile.parse(decode(content));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(describe() + ": " + e.getMessage(), e);
            }
            first.first(agents);
            lastContent = content;
            started(first, givenScheduler, "agentlb-fleet-file", this::pollAndReschedule, pollInterval);
        }
    }

    /**
     * Reads the file now and hands a changed valid fleet on; what a scheduled poll does.
     *
     * @throws IllegalStateException if not started
     */
    public void poll() {
        synchronized (lock) {
            if (fleet == null) {
                throw new IllegalStateException(describe() + " not started");
            }
            byte[] content;
            String text;
            try {
                content = read();
                if (Arrays.equals(content, lastContent)) {
                    return;
                }
                text = decode(content);
            } catch (IllegalArgumentException e) {
                lastContent = null;
                fleet.reject(e.getMessage());
                return;
            }
            if (mayBeHalfWritten(text) && !Arrays.equals(content, unsettled)) {
                unsettled = content;
                return;
            }
            unsettled = null;
            lastContent = content;
            List<AgentSpec> agents;
            try {
                agents = AgentsFile.parse(text);
            } catch (IllegalArgumentException e) {
                fleet.reject(e.getMessage());
                return;
            }
            if (!fleet.offer(agents)) {
                // refused by the listener: read and offer again at the next poll
                lastContent = null;
            }
        }
    }

    private void pollAndReschedule() {
        synchronized (lock) {
            if (isClosed()) {
                return;
            }
            try {
                poll();
            } finally {
                scheduleNext(this::pollAndReschedule, pollInterval);
            }
        }
    }

    /**
     * Whether {@code text} may be a text file caught in the middle of a write in place (truncated,
     * not yet written to its end): empty, or not ending with a line break. JSON is not, since a
     * truncated document does not parse.
     */
    private static boolean mayBeHalfWritten(String text) {
        String start = text.stripLeading();
        return start.isEmpty() || !start.startsWith("[") && !start.startsWith("{") && !text.endsWith("\n") && !text.endsWith("\r");
    }

    /** @throws IllegalArgumentException saying why the file cannot be read */
    private byte[] read() {
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IllegalArgumentException("file larger than " + MAX_BYTES + " bytes");
            }
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the file: " + e);
        }
    }

    private static String decode(byte[] content) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(content)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("not UTF-8 text");
        }
    }

    /** @return {@code file:} and the path as given */
    @Override
    public String describe() {
        return "file:" + file;
    }

    /** The shortest poll interval: 10 ms. */
    static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);

    /** Builds a {@link FileFleetSource}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private final Path file;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private TaskScheduler scheduler;

        private Builder(Path file) {
            this.file = Check.notNull("file", file);
        }

        /**
         * @param value how often the file is read, >= 10 ms (less reads it in a loop); default
         *              {@link #DEFAULT_POLL_INTERVAL}
         */
        public Builder pollInterval(Duration value) {
            if (Check.positive("pollInterval", value).compareTo(MIN_POLL_INTERVAL) < 0) {
                throw new IllegalArgumentException("pollInterval must be >= 10 ms, was " + value);
            }
            this.pollInterval = value;
            return this;
        }

        /** @param value runs the polls; default: a daemon thread of the source's own */
        public Builder scheduler(TaskScheduler value) {
            this.scheduler = Check.notNull("scheduler", value);
            return this;
        }

        public FileFleetSource build() {
            return new FileFleetSource(this);
        }
    }
}
