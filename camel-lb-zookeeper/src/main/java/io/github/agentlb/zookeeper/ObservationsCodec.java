package io.github.agentlb.zookeeper;

import io.github.agentlb.core.shared.Observations;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An observations znode's content, UTF-8 lines a person can read with {@code zkCli.sh get}:
 * <pre>
 * agentlb-observations 1
 * replica proxy-5b1e...
 * sequence 12
 * positions -4611686018427387904 17 912
 * report 0.9 0.2 A1
 * report 0.1 0.2 A2
 * </pre>
 * The positions of the keyed requests on one line in routing order (the line may be empty after
 * the word), one line per load report in arrival order, CPU and memory before the agent id so that
 * the id may hold any character but a line break. Decoding is strict: anything else, or an invalid
 * {@link Observations}, is rejected with a message naming the problem. About 20 bytes a position
 * and 25 a report: a full share ({@value Observations#MAX_POSITIONS} of each) stays under 200 kB.
 */
final class ObservationsCodec {

    static final String MAGIC = "agentlb-observations 1";

    private ObservationsCodec() {
    }

    static byte[] encode(Observations observations) {
        StringBuilder sb = new StringBuilder(64 + 20 * observations.positions().size() + 25 * observations.reports().size())
                .append(MAGIC).append('\n')
                .append("replica ").append(ZnodeText.singleLine("replica id", observations.replicaId())).append('\n')
                .append("sequence ").append(observations.sequence()).append('\n')
                .append("positions");
        observations.positions().forEach(p -> sb.append(' ').append(p));
        sb.append('\n');
        for (Observations.Report r : observations.reports()) {
            sb.append("report ").append(r.cpu()).append(' ').append(r.memory()).append(' ')
                    .append(ZnodeText.singleLine("agent id", r.agent())).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code data} */
    static Observations decode(byte[] data) {
        String replica = null;
        Long sequence = null;
        List<Long> positions = null;
        List<Observations.Report> reports = new ArrayList<>();
        for (ZnodeText.Line line : ZnodeText.lines(data, MAGIC, "observations", "not observations")) {
            String value = line.value();
            switch (line.key()) {
                case "replica" -> replica = once(replica, value, line);
                case "sequence" -> sequence = once(sequence, ZnodeText.number("sequence", value), line);
                case "positions" -> positions = once(positions, positions(value), line);
                case "report" -> reports.add(report(value, line));
                default -> throw line.bad("unknown");
            }
        }
        if (replica == null || sequence == null || positions == null) {
            throw new IllegalArgumentException("replica, sequence and positions are required");
        }
        return new Observations(replica, sequence, positions, reports);
    }

    private static <T> T once(T previous, T value, ZnodeText.Line line) {
        if (previous != null) {
            throw line.bad("repeated");
        }
        return value;
    }

    private static List<Long> positions(String value) {
        List<Long> positions = new ArrayList<>();
        for (String p : value.split(" ")) {
            if (!p.isEmpty()) {
                if (positions.size() == Observations.MAX_POSITIONS) {
                    throw new IllegalArgumentException("at most " + Observations.MAX_POSITIONS + " positions");
                }
                positions.add(ZnodeText.number("position", p));
            }
        }
        return positions;
    }

    private static Observations.Report report(String value, ZnodeText.Line line) {
        String[] parts = value.split(" ", 3);
        if (parts.length < 3) {
            throw line.bad("bad");
        }
        return new Observations.Report(parts[2], fraction("cpu", parts[0]), fraction("memory", parts[1]));
    }

    private static double fraction(String key, String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number, was '" + ZnodeText.abbreviate(value) + "'");
        }
    }
}
