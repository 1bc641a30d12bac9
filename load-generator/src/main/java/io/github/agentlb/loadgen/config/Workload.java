package io.github.agentlb.loadgen.config;

import io.github.agentlb.core.Check;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The requests of one load run, in send order: {@code requests} requests over users
 * {@code 1..users}, each user {@code requests / users} times (the first {@code requests % users}
 * users once more), shuffled with {@code Collections.shuffle(list, new Random(seed))}. The same
 * arguments always give the same order, so every strategy sees the same traffic.
 *
 * <p>A hot key ({@link #create(int, int, long, double)}): user {@value #HOT_USER} sends
 * {@code round(hotShare x requests)} of the requests and users {@code 1..users} share the rest as
 * above, all shuffled together; with share 0 the workload is the one without a hot key.
 *
 * <p>Request ids are {@code r} and the 1-based send position, zero-padded to at least four digits
 * ({@code r0001}), unique within the run. Immutable and thread-safe.
 */
public final class Workload {

    /** One request to send. */
    public record PlannedRequest(String requestId, int userId) {
    }

    /** The user id of the hot key: 0, outside the ordinary users {@code 1..users}. */
    public static final int HOT_USER = 0;

    private final List<PlannedRequest> requests;

    private Workload(List<PlannedRequest> requests) {
        this.requests = List.copyOf(requests);
    }

    /**
     * Builds the workload.
     *
     * @param requests number of requests, >= 1
     * @param users    number of distinct users, 1..requests
     * @param seed     seed of the shuffle
     * @throws IllegalArgumentException naming the bad argument
     */
    public static Workload create(int requests, int users, long seed) {
        return create(requests, users, seed, 0);
    }

    /**
     * Builds the workload with a hot key: user {@value #HOT_USER} sends {@link #hotRequests} of
     * the requests, users {@code 1..users} the rest.
     *
     * @param hotShare the hot user's share of all requests, fraction in [0, 1)
     * @throws IllegalArgumentException naming the bad argument, also when {@code users} exceeds the
     *                                  requests left to the other users
     */
    public static Workload create(int requests, int users, long seed, double hotShare) {
        Check.atLeast("requests", requests, 1);
        int others = checkUsers(requests, users, hotShare);
        int hot = requests - others;
        List<Integer> userIds = new ArrayList<>(requests);
        for (int i = 0; i < others; i++) {
            userIds.add(i % users + 1);
        }
        for (int i = 0; i < hot; i++) {
            userIds.add(HOT_USER);
        }
        Collections.shuffle(userIds, new Random(seed));
        int width = Math.max(4, String.valueOf(requests).length());
        List<PlannedRequest> planned = new ArrayList<>(requests);
        for (int i = 0; i < requests; i++) {
            planned.add(new PlannedRequest(String.format("r%0" + width + "d", i + 1), userIds.get(i)));
        }
        return new Workload(planned);
    }

    /**
     * Checks {@code users} against the requests left to users {@code 1..users} once the hot user
     * has its {@link #hotRequests}.
     *
     * @return those requests, {@code requests - hotRequests(requests, hotShare)}
     * @throws IllegalArgumentException if {@code hotShare} is not in [0, 1), or {@code users} is not in
     *                                  1..that number (the message says which bound it is)
     */
    static int checkUsers(int requests, int users, double hotShare) {
        int others = requests - hotRequests(requests, hotShare);
        if (users < 1 || users > others) {
            throw new IllegalArgumentException(others == requests
                    ? "users must be in 1.." + requests + " (requests), was " + users
                    : "users must be in 1.." + others + " (requests not sent by the hot user), was " + users);
        }
        return others;
    }

    /**
     * The hot user's requests among {@code requests}: {@code round(hotShare x requests)}.
     *
     * @throws IllegalArgumentException if {@code hotShare} is not in [0, 1)
     */
    public static int hotRequests(int requests, double hotShare) {
        if (!(hotShare >= 0 && hotShare < 1)) {
            throw new IllegalArgumentException("hotShare must be >= 0 and < 1, was " + hotShare);
        }
        return (int) Math.round(hotShare * requests);
    }

    /** The requests in send order; unmodifiable. */
    public List<PlannedRequest> requests() {
        return requests;
    }

    /**
     * Request {@code index} (0-based) of this workload repeated without end, for a time-bound run:
     * the user of position {@code index mod size}, the id {@code r} and {@code index + 1} padded as
     * the workload's own ids ({@code r0001}), so the first {@link #size()} are the workload's.
     */
    public PlannedRequest requestAt(long index) {
        return index < requests.size() ? requests.get((int) index) : new PlannedRequest(String.format("r%0"
                + (requests.get(0).requestId().length() - 1) + "d", index + 1), requests.get((int) (index % requests.size()))
                .userId());
    }

    /** Number of requests. */
    public int size() {
        return requests.size();
    }

    /**
     * The balancer replica (0-based) that request {@code index} (0-based send position) goes to
     * when the load alternates across {@code replicas} of them: {@code index mod replicas}.
     */
    public static int replicaOf(long index, int replicas) {
        return (int) (index % replicas);
    }
}
