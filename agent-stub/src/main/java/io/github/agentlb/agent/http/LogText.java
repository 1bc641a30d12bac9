package io.github.agentlb.agent.http;

/**
 * Client text made safe for a log line, as the library's decision log writes it: control
 * characters and white space (Unicode's too) as {@code \\uXXXX}, so that no client value can
 * start a forged line or field; cut to {@value #MAX_CHARS} characters with "...".
 */
public final class LogText {

    /** Characters of one value logged at most. */
    public static final int MAX_CHARS = 200;

    private LogText() {
    }

    /** {@code text} escaped; "null" for null. */
    public static String escape(Object text) {
        String s = String.valueOf(text);
        StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_CHARS) + 8);
        for (int i = 0; i < s.length(); i++) {
            if (out.length() >= MAX_CHARS) {
                return out.append("...").toString();
            }
            char c = s.charAt(i);
            if (Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
