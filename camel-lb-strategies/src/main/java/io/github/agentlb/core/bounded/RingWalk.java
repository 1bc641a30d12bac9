package io.github.agentlb.core.bounded;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * One request's ring walk (home first, then each other agent once, clockwise), read only as far
 * as a decision needs: a key placed at home reads one agent, an overflow reads the whole walk.
 * What was read is kept, so the failover order ({@link #startingWith}) can be given after the
 * decision without walking the ring again.
 *
 * <p>Not thread-safe: one per request.
 */
public final class RingWalk {

    private final Iterator<String> clockwise;
    private final List<String> read = new ArrayList<>(4);

    /** @param clockwise the walk from the key's position: home first, each agent once; not empty */
    public RingWalk(Iterator<String> clockwise) {
        this.clockwise = Objects.requireNonNull(clockwise, "clockwise");
    }

    /** @return the key's home agent (the ring owner) */
    public String home() {
        if (read.isEmpty()) {
            read.add(clockwise.next());
        }
        return read.get(0);
    }

    /** @return every agent of the walk, in walk order (reads the walk to its end) */
    List<String> agents() {
        home();
        clockwise.forEachRemaining(read::add);
        return Collections.unmodifiableList(read);
    }

    /**
     * The agents to try: {@code first}, then the walk without it, in walk order. Lazy: the walk
     * is read further only as far as the returned iterator is.
     */
    public Iterator<String> startingWith(String first) {
        return new Iterator<>() {
            private boolean firstGiven;
            private int index;
            private String next;

            @Override
            public boolean hasNext() {
                if (!firstGiven || next != null) {
                    return true;
                }
                while (index < read.size() || clockwise.hasNext()) {
                    String agent = index < read.size() ? read.get(index) : add(clockwise.next());
                    index++;
                    if (!agent.equals(first)) {
                        next = agent;
                        return true;
                    }
                }
                return false;
            }

            @Override
            public String next() {
                if (!firstGiven) {
                    firstGiven = true;
                    return first;
                }
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                String agent = next;
                next = null;
                return agent;
            }
        };
    }

    private String add(String agent) {
        read.add(agent);
        return agent;
    }
}
