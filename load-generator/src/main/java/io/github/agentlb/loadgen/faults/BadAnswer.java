package io.github.agentlb.loadgen.faults;

import java.time.Duration;
import java.util.Locale;

/**
 * What agent A1 answers to every {@code /process} request for the middle third of a
 * {@link BadAgentScenario} run, through {@code StubAgent.answerWith}, with the bounds the busy and
 * gray trials set on what clients may see of it.
 */
public enum BadAnswer {

    /** Rate-limited: 429 with {@code Retry-After: 2}. The balancer should rest A1 and send the request elsewhere. */
    BUSY(429, "2", 600),

    /** Gray failure: 500 at once while accepting connections. The balancer should eject A1 after a few in a row. */
    GRAY(500, null, 900);

    /** Requests a busy agent may get within one {@link #rest()}: its first and one more. */
    public static final int MAX_PER_REST = 2;

    private final int status;
    private final String retryAfter;
    private final int defaultRequests;

    BadAnswer(int status, String retryAfter, int defaultRequests) {
        this.status = status;
        this.retryAfter = retryAfter;
        this.defaultRequests = defaultRequests;
    }

    /**
     * Measured requests of a main job run: 600 for {@link #BUSY}, about 2 s per phase at the
     * default agents' pace and 10 workers, so A1's fault lasts about one {@code Retry-After};
     * 900 for {@link #GRAY}, so 300 requests are sent while A1 fails, as in the gray trial (300
     * GETs, 10 at a time).
     */
    public int defaultRequests() {
        return defaultRequests;
    }

    /** The name on the command line and in file names: {@code busy} or {@code gray}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The HTTP status A1 answers. */
    public int status() {
        return status;
    }

    /** The {@code Retry-After} A1 sends with it, delta-seconds; null for none. */
    public String retryAfter() {
        return retryAfter;
    }

    /**
     * The {@code Retry-After} as a duration, the window in which a busy agent may get at most
     * {@link #MAX_PER_REST} requests; {@link Duration#ZERO} when there is none.
     */
    public Duration rest() {
        return retryAfter == null ? Duration.ZERO : Duration.ofSeconds(Long.parseLong(retryAfter));
    }

    /** What A1 answers, for reports, e.g. {@code 429 with Retry-After: 2}. */
    public String description() {
        return status + (retryAfter == null ? " at once" : " with Retry-After: " + retryAfter);
    }

    /** The share {@link #allowedClientErrors} allows, for reports: {@code 1 in 30} or {@code 5%}. */
    public String allowance() {
        return this == BUSY ? "1 in 30" : "5%";
    }

    /**
     * The most clients that may see A1's answer among {@code requests} sent while A1 answers it:
     * a thirtieth for {@link #BUSY} (1 in 30), 5% for {@link #GRAY} (15 in 300), rounded down.
     *
     * @throws IllegalArgumentException if {@code requests < 0}
     */
    public long allowedClientErrors(long requests) {
        if (requests < 0) {
            throw new IllegalArgumentException("requests must be >= 0, was " + requests);
        }
        return this == BUSY ? requests / 30 : requests * 5 / 100;
    }
}
