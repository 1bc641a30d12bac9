package io.github.agentlb.loadgen.config;

import io.github.agentlb.core.Check;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The requests of one load run, in send order: {@code requests} requests over users
 * {@code 1..users}, each {@code requests / users} times (the first {@code requests % users} once
 * more), shuffled with {@code Collections.shuffle(list, new Random(seed))}, so every strategy sees
 * the same traffic. With a hot key ({@link #create(int, int, long, double)}) user {@value #HOT_USER}
 * sends {@code round(hotShare x requests)} of them, shuffled with the rest. Request ids are
 * {@code r} and the 1-based position, at least four digits ({@code r0001}). Immutable, thread-safe.
 */
public record Workload(List<PlannedRequest> requests) {

    public record PlannedRequest(String requestId, int userId) {
    }

    /** The user id of the hot key: 0, outside the ordinary users {@code 1..users}. */
    public static final int HOT_USER = 0;

    /** @param requests the requests in send order, copied; unmodifiable */
    public Workload {
        requests = List.copyOf(requests);
    }

    /**
     * The workload of {@code requests} (>= 1) shuffled by {@code seed}: a hot key sends {@link #hotRequests} of
     * them ({@code hotShare} in [0, 1), 0 for none), users {@code 1..users} the rest (IllegalArgumentException
     * when they are too few for the users).
     */
    public static Workload create(int requests, int users, long seed, double hotShare) {
        Check.atLeast("requests", requests, 1);
        int others = checkUsers(requests, users, hotShare);
        List<Integer> userIds = IntStream.range(0, requests).mapToObj(i -> i < others ? i % users + 1 : HOT_USER)
                .collect(Collectors.toCollection(ArrayList::new));
        Collections.shuffle(userIds, new Random(seed));
        String id = "r%0" + Math.max(4, String.valueOf(requests).length()) + "d";
        return new Workload(IntStream.range(0, requests)
                .mapToObj(i -> new PlannedRequest(String.format(id, i + 1), userIds.get(i))).toList());
    }

    /** The requests left to users {@code 1..users} by the hot user; IllegalArgumentException unless users is in 1..that. */
    static int checkUsers(int requests, int users, double hotShare) {
        int others = requests - hotRequests(requests, hotShare);
        if (users < 1 || users > others) {
            throw new IllegalArgumentException(others == requests
                    ? "users must be in 1.." + requests + " (requests), was " + users
                    : "users must be in 1.." + others + " (requests not sent by the hot user), was " + users);
        }
        return others;
    }

    /** The hot user's requests among {@code requests}: {@code round(hotShare x requests)}, {@code hotShare} in [0, 1). */
    public static int hotRequests(int requests, double hotShare) {
        if (!(hotShare >= 0 && hotShare < 1)) {
            throw new IllegalArgumentException("hotShare must be >= 0 and < 1, was " + hotShare);
        }
        return (int) Math.round(hotShare * requests);
    }

    /** Request {@code index} (0-based) of this workload repeated: user of {@code index mod size}, id {@code r<index + 1>}. */
    public PlannedRequest requestAt(long index) {
        return index < requests.size() ? requests.get((int) index) : new PlannedRequest(String.format("r%0"
                + (requests.get(0).requestId().length() - 1) + "d", index + 1), requests.get((int) (index % requests.size()))
                .userId());
    }

    /** The replica (0-based) request {@code index} (0-based) goes to across {@code replicas}: {@code index mod replicas}. */
    public static int replicaOf(long index, int replicas) {
        return (int) (index % replicas);
    }
}
