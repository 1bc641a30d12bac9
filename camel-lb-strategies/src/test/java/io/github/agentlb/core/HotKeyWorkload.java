package io.github.agentlb.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** The request keys of the hot-key simulations: one hot user among 200 others, in a seeded order. */
public final class HotKeyWorkload {

    /** The users besides the hot user 0. */
    public static final int USERS = 200;

    private HotKeyWorkload() {
    }

    /** The request keys: {@code round(hotShare x requests)} of user 0, the rest users 1..200 in turn, shuffled. */
    public static List<String> keys(double hotShare, int requests, long seed) {
        int hot = (int) Math.round(hotShare * requests);
        List<String> keys = new ArrayList<>(requests);
        for (int i = 0; i < requests; i++) {
            keys.add(i < hot ? "0" : Integer.toString((i - hot) % USERS + 1));
        }
        Collections.shuffle(keys, new Random(seed));
        return keys;
    }
}
