package io.github.agentlb.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The line format both znodes share ({@link AllocationCodec}, {@link ObservationsCodec}): UTF-8,
 * a first line naming the format and its version, then one {@code key value} line each. Strict:
 * what it rejects, it names. Stateless.
 */
final class ZnodeText {

    private ZnodeText() {
    }

    /** One line after the first: its 1-based number, its text, and the text split at its first space. */
    record Line(int number, String text, String key, String value) {

        /** The error for this line, e.g. {@code unknown line 3: 'x'}. */
        IllegalArgumentException bad(String what) {
            return new IllegalArgumentException(what + " line " + number + ": '" + abbreviate(text) + "'");
        }
    }

    /**
     * The lines after {@code magic}.
     *
     * @param what the content's name in errors: {@code empty <what>}
     * @param notWhat the error's start when the first line is not {@code magic}, e.g. {@code not an allocation}
     * @throws IllegalArgumentException for empty data or another first line
     */
    static List<Line> lines(byte[] data, String magic, String what, String notWhat) {
        if (data == null || data.length == 0) {
            throw new IllegalArgumentException("empty " + what);
        }
        String[] texts = new String(data, StandardCharsets.UTF_8).split("\n");
        if (!texts[0].equals(magic)) {
            throw new IllegalArgumentException(notWhat + ": first line '" + abbreviate(texts[0]) + "'");
        }
        List<Line> lines = new ArrayList<>(texts.length - 1);
        for (int i = 1; i < texts.length; i++) {
            String text = texts[i];
            int space = text.indexOf(' ');
            lines.add(new Line(i + 1, text, space < 0 ? text : text.substring(0, space),
                    space < 0 ? "" : text.substring(space + 1)));
        }
        return lines;
    }

    /** @throws IllegalArgumentException naming {@code key} when {@code value} is not a whole number */
    static long number(String key, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, was '" + abbreviate(value) + "'");
        }
    }

    /** @throws IllegalArgumentException naming {@code field} when {@code value} holds a line break */
    static String singleLine(String field, String value) {
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
            throw new IllegalArgumentException(field + " must not contain a line break, was '" + value + "'");
        }
        return value;
    }

    /** At most 60 characters of {@code text} for an error message. */
    static String abbreviate(String text) {
        return text.length() <= 60 ? text : text.substring(0, 60) + "...";
    }
}
