package io.github.agentlb.agent.llm;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * MCP-style session ids minted by the agent (MCP's Streamable HTTP transport: the server may
 * assign an {@value #HEADER} on its first answer; the client sends it on every later request; a
 * server that does not know the id answers 404 and the client starts a new session). Ids are 32
 * lower-case hex digits drawn from a {@link SplittableRandom} seeded at construction, so the
 * sequence is the same for the same seed. The newest {@value #MAX_SESSIONS} ids are remembered;
 * an older one is unknown again, as an expired session. Thread-safe.
 */
public final class SessionIds {

    /** The session header. */
    public static final String HEADER = "Mcp-Session-Id";
    /** Ids remembered at most. */
    public static final int MAX_SESSIONS = 100_000;

    private final SplittableRandom random;
    private final LinkedHashSet<String> known = new LinkedHashSet<>();

    /** @param seed seed of the id sequence */
    public SessionIds(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** A new id, remembered as known. */
    public synchronized String mint() {
        String id = String.format(Locale.ROOT, "%016x%016x", random.nextLong(), random.nextLong());
        known.add(id);
        if (known.size() > MAX_SESSIONS) {
            known.remove(known.iterator().next());
        }
        return id;
    }

    /** Whether the agent minted this id and still remembers it. */
    public synchronized boolean known(String id) {
        return id != null && known.contains(id);
    }
}
