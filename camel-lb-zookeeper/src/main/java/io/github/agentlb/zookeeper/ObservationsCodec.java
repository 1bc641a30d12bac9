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
                .append("replica ").append(singleLine("replica id", observations.replicaId())).append('\n')
                .append("sequence ").append(observations.sequence()).append('\n')
                .append("positions");
        observations.positions().forEach(p -> sb.append(' ').append(p));
        sb.append('\n');
        for (Observations.Report r : observations.reports()) {
            sb.append("report ").append(r.cpu()).append(' ').append(r.memory()).append(' ')
                    .append(singleLine("agent id", r.agent())).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code data} */
    static Observations decode(byte[] data) {
        if (data == null || data.length == 0) {
            throw new IllegalArgumentException("empty observations");
        }
        String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
        if (!lines[0].equals(MAGIC)) {
            throw new IllegalArgumentException("not observations: first line '" + abbreviate(lines[0]) + "'");
        }
        String replica = null;
        Long sequence = null;
        List<Long> positions = null;
        List<Observations.Report> reports = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int space = line.indexOf(' ');
            String key = space < 0 ? line : line.substring(0, space);
            String value = space < 0 ? "" : line.substring(space + 1);
            switch (key) {
                case "replica" -> replica = once(replica, value, i, line);
                case "sequence" -> sequence = once(sequence, number(key, value), i, line);
                case "positions" -> positions = once(positions, positions(value), i, line);
                case "report" -> reports.add(report(value, i, line));
                default -> throw new IllegalArgumentException("unknown line " + (i + 1) + ": '" + abbreviate(line) + "'");
            }
        }
        if (replica == null || sequence == null || positions == null) {
            throw new IllegalArgumentException("replica, sequence and positions are required");
        }
        return new Observations(replica, sequence, positions, reports);
    }

    private static <T> T once(T previous, T value, int index, String line) {
        if (previous != null) {
            throw new IllegalArgumentException("repeated line " + (index + 1) + ": '" + abbreviate(line) + "'");
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
                positions.add(number("position", p));
            }
        }
        return positions;
    }

    private static Observations.Report report(String value, int index, String line) {
        String[] parts = value.split(" ", 3);
        if (parts.length < 3) {
            throw new IllegalArgumentException("bad line " + (index + 1) + ": '" + abbreviate(line) + "'");
        }
        return new Observations.Report(parts[2], fraction("cpu", parts[0]), fraction("memory", parts[1]));
    }

    private static double fraction(String key, String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number, was '" + abbreviate(value) + "'");
        }
    }

    private static long number(String key, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, was '" + abbreviate(value) + "'");
        }
    }

    private static String singleLine(String field, String value) {
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
            throw new IllegalArgumentException(field + " must not contain a line break, was '" + value + "'");
        }
        return value;
    }

    private static String abbreviate(String text) {
        return text.length() <= 60 ? text : text.substring(0, 60) + "...";
    }
}
