package io.github.agentlb.core;

import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one strict reading of a duration given as text (YAML, properties, environment variables):
 * {@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h}, ISO-8601 such as {@code PT10S} or
 * {@code PT1.5S}, and {@code 0}. Anything else is refused, negative durations and blank text
 * included: Camel's own conversion turns {@code abc} or {@code -5s} into a zero {@link Duration}
 * without an error, which a balancer would read as "none".
 *
 * <p>Stateless and thread-safe.
 */
public final class Durations {

    /** What the text may be, for messages: {@code "<field> must be " + RULE}. */
    public static final String RULE = "a duration such as 250ms, 10s, 2m, 1h or PT10S";

    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    /** Stands for any time longer than a {@code long} of milliseconds: refused by {@link #parse}. */
    private static final Duration TOO_LONG = Duration.ofSeconds(Long.MAX_VALUE);

    private Durations() {
    }

    /**
     * @return the duration {@code text} names, or empty if it is not one of the accepted forms
     *         (null, blank, negative or other text)
     */
    public static Optional<Duration> read(String text) {
        if (text == null) {
            return Optional.empty();
        }
        if (text.equals("0")) {
            return Optional.of(Duration.ZERO);
        }
        Matcher m = SHORT.matcher(text);
        if (m.matches()) {
            // Any number of digits: one too large for a Duration reads as longer than any clock counts.
            BigInteger n = new BigInteger(m.group(1));
            BigInteger perUnit = BigInteger.valueOf(switch (m.group(2)) {
                case "ms" -> 1L;
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                default -> 3_600_000L;
            });
            BigInteger millis = n.multiply(perUnit);
            return Optional.of(millis.bitLength() < 63 ? Duration.ofMillis(millis.longValueExact()) : TOO_LONG);
        }
        try {
            Duration d = Duration.parse(text);
            return d.isNegative() ? Optional.empty() : Optional.of(d);
        } catch (DateTimeParseException e) {
            // ISO-8601 that is one but does not fit a Duration (PT9999999999999999999S): longer than any clock counts.
            return e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException
                    ? Optional.of(TOO_LONG) : Optional.empty();
        }
    }

    /**
     * @return the duration {@code text} names, surrounding white space ignored
     * @throws IllegalArgumentException naming {@code field} and {@code text}
     *         ({@code "<field> must be a duration such as ..., was '<text>'"}) if it is not one, or
     *         if it is longer than {@link Check#MAX_DURATION} (which no clock of the library counts)
     */
    public static Duration parse(String field, String text) {
        Duration value = read(text == null ? null : text.strip()).orElseThrow(
                () -> new IllegalArgumentException(field + " must be " + RULE + ", was '" + text + "'"));
        if (value.compareTo(Check.MAX_DURATION) > 0) {
            throw new IllegalArgumentException(field + " must be at most " + Check.MAX_DURATION
                    + " (Long.MAX_VALUE ns, about 292 years), was '" + text + "'");
        }
        return value;
    }
}
