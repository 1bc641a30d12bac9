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
        allocation.virtualNodes().forEach((agent, count) -> sb.append("virtual-nodes ").append(count).append(' ')
                .append(ZnodeText.singleLine("agent id", agent)).append('\n'));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code data} */
    static Allocation decode(byte[] data) {
        Long generation = null;
        Long epoch = null;
        String digest = null;
        Map<String, Integer> counts = new TreeMap<>();
        for (ZnodeText.Line line : ZnodeText.lines(data, MAGIC, "allocation", "not an allocation")) {
            String key = line.key();
            String value = line.value();
            switch (key) {
                case "generation" -> generation = ZnodeText.number(key, value);
                case "leader-epoch" -> epoch = ZnodeText.number(key, value);
                case "membership-digest" -> digest = value;
                case "virtual-nodes" -> {
                    int sep = value.indexOf(' ');
                    if (sep < 0 || counts.put(value.substring(sep + 1), (int) ZnodeText.number(key, value.substring(0, sep))) != null) {
                        throw line.bad("bad or repeated");
                    }
                }
                default -> throw line.bad("unknown");
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
}
