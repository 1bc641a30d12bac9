package io.github.agentlb.zookeeper;

import io.github.agentlb.core.shared.Allocation;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The znode's content, UTF-8 lines a person can read with {@code zkCli.sh get}:
 * <pre>
 * agentlb-allocation 1
 * generation 7
 * leader-epoch 2
 * membership-digest 5f0c...
 * virtual-nodes 52 A1
 * virtual-nodes 49 A2
 * </pre>
 * (count before the agent id, so the id may hold any character but a line break). Decoding is
 * strict: anything else, a digest that does not match the agents, or an invalid {@link Allocation}
 * is rejected with a message naming the problem.
 */
final class AllocationCodec {

    static final String MAGIC = "agentlb-allocation 1";

    private AllocationCodec() {
    }

    static byte[] encode(Allocation allocation) {
        StringBuilder sb = new StringBuilder(MAGIC).append('\n')
                .append("generation ").append(allocation.generation()).append('\n')
                .append("leader-epoch ").append(allocation.leaderEpoch()).append('\n')
                .append("membership-digest ").append(allocation.membershipDigest()).append('\n');
        allocation.virtualNodes().forEach((agent, count) -> {
            if (agent.indexOf('\n') >= 0 || agent.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("agent id must not contain a line break, was '" + agent + "'");
            }
            sb.append("virtual-nodes ").append(count).append(' ').append(agent).append('\n');
        });
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code data} */
    static Allocation decode(byte[] data) {
        if (data == null || data.length == 0) {
            throw new IllegalArgumentException("empty allocation");
        }
        String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
        if (!lines[0].equals(MAGIC)) {
            throw new IllegalArgumentException("not an allocation: first line '" + abbreviate(lines[0]) + "'");
        }
        Long generation = null;
        Long epoch = null;
        String digest = null;
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int space = line.indexOf(' ');
            String key = space < 0 ? line : line.substring(0, space);
            String value = space < 0 ? "" : line.substring(space + 1);
            switch (key) {
                case "generation" -> generation = number(key, value);
                case "leader-epoch" -> epoch = number(key, value);
                case "membership-digest" -> digest = value;
                case "virtual-nodes" -> {
                    int sep = value.indexOf(' ');
                    if (sep < 0 || counts.put(value.substring(sep + 1), (int) number(key, value.substring(0, sep))) != null) {
                        throw new IllegalArgumentException("bad or repeated line " + (i + 1) + ": '" + abbreviate(line) + "'");
                    }
                }
                default -> throw new IllegalArgumentException("unknown line " + (i + 1) + ": '" + abbreviate(line) + "'");
            }
        }
        if (generation == null || epoch == null || digest == null) {
            throw new IllegalArgumentException("generation, leader-epoch and membership-digest are required");
        }
        Allocation allocation = new Allocation(generation, epoch, digest, new TreeMap<>(counts));
        if (!digest.equals(Allocation.digestOf(counts.keySet()))) {
            throw new IllegalArgumentException("membership digest " + digest + " does not match agents " + counts.keySet());
        }
        return allocation;
    }

    private static long number(String key, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, was '" + abbreviate(value) + "'");
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 60 ? text : text.substring(0, 60) + "...";
    }
}
