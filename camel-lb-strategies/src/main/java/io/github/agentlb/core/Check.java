package io.github.agentlb.core;

import java.time.Duration;
import java.util.Collection;

/**
 * The library's argument checks, in one place (as Guava's {@code Preconditions}): each returns
 * its value or throws {@link IllegalArgumentException} whose message names the field and the
 * value, {@code "<field> must be <rule>, was <value>"}. Internal to the library: public only
 * because Java has no access level shared by sub-packages; not part of its API.
 *
 * <h2>Naming rules of the library</h2>
 * <ul>
 *   <li>An algorithm's immutable configuration is built by {@code custom()} (a builder starting
 *       from the defaults) or {@code ofDefaults()}; {@code toBuilder()} starts a builder from an
 *       existing configuration. A Camel balancer is built by {@code builder()} and, for YAML, XML
 *       and properties, also has JavaBean setters, each checked when set and applied at once (a
 *       relation between two of them broken before the start is refused when the route starts).</li>
 *   <li>A setting is named after what it takes: {@code hashFunction} takes a
 *       {@link io.github.agentlb.core.hash.HashFunction} (or a name of one of the built-in
 *       {@link io.github.agentlb.core.hash.HashAlgorithm}s).</li>
 *   <li>Times are {@link Duration}s; fractions are doubles in 0..1 named {@code *Share},
 *       {@code *Weight}, {@code utilization} or {@code *Threshold}.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class Check {

    private Check() {
    }

    /** @return {@code value} if {@code value >= min} */
    public static int atLeast(String field, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    /** @return {@code value} if {@code value >= min} */
    public static long atLeast(String field, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    /** @return {@code value} if {@code value <= max} */
    public static int atMost(String field, int value, int max) {
        if (value > max) {
            throw new IllegalArgumentException(field + " must be <= " + max + ", was " + value);
        }
        return value;
    }

    /** @return {@code value} if {@code min <= value <= max} */
    public static int inRange(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be in " + min + ".." + max + ", was " + value);
        }
        return value;
    }

    /** @return {@code value} if finite and {@code > 0} */
    public static double finitePositive(String field, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be finite and > 0, was " + value);
        }
        return value;
    }

    /** @return {@code value} if finite and {@code >= 0} */
    public static double finiteNonNegative(String field, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be finite and >= 0, was " + value);
        }
        return value;
    }

    /** @return {@code value} if finite and {@code > min} */
    public static double finiteAbove(String field, double value, double min) {
        if (!(value > min) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be finite and > " + trim(min) + ", was " + value);
        }
        return value;
    }

    /** @return {@code value} if finite and {@code >= min} */
    public static double finiteAtLeast(String field, double value, double min) {
        if (!(value >= min) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + " must be finite and >= " + trim(min) + ", was " + value);
        }
        return value;
    }

    /** @return {@code value} if it is a fraction in {@code 0..1}, both ends included */
    public static double fraction(String field, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(field + " must be in 0..1, was " + value);
        }
        return value;
    }

    /**
     * The longest time the library takes: {@code Long.MAX_VALUE} ns (about 292 years), so that every
     * time it is given counts in nanoseconds, as its clocks do.
     */
    public static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

    /** @return {@code value} if not null, {@code > 0} and at most {@link #MAX_DURATION} */
    public static Duration positive(String field, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + " must be > 0, was " + value);
        }
        return countable(field, value);
    }

    /**
     * The period of a timer: at least a millisecond (less would run it back to back, a core spent on
     * an idle route), at most {@link #MAX_DURATION}.
     *
     * @return {@code value}
     * @throws IllegalArgumentException naming {@code field} and the value otherwise
     */
    public static Duration period(String field, Duration value) {
        positive(field, value);
        if (value.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(field + " must be at least 1ms, was " + value);
        }
        return value;
    }

    /** @return {@code value} if not null, {@code >= 0} and at most {@link #MAX_DURATION} */
    public static Duration nonNegative(String field, Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(field + " must be >= 0, was " + value);
        }
        return countable(field, value);
    }

    private static Duration countable(String field, Duration value) {
        if (value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(field + " must be at most " + MAX_DURATION
                    + " (Long.MAX_VALUE ns, about 292 years), was " + value);
        }
        return value;
    }

    /** @return {@code value} if not null */
    public static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null, was null");
        }
        return value;
    }

    /** @return {@code values} if not null and not empty */
    public static <C extends Collection<?>> C notEmpty(String field, C values) {
        if (values == null || values.isEmpty()) {
            throw new IllegalArgumentException(field + " must not be empty, was " + values);
        }
        return values;
    }

    /** @return {@code value} if not null, not empty and not only white space */
    public static String notBlank(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank, was '" + value + "'");
        }
        return value;
    }

    /**
     * @return {@code value} if it is a header name: not blank, and a token of RFC 9110 §5.6.2 (visible
     *     ASCII without separators), so that it can match a header at all
     */
    public static String headerName(String field, String value) {
        notBlank(field, value);
        if (!isToken(value)) {
            throw new IllegalArgumentException(field + " must be a header name (RFC 9110 token), was '" + value + "'");
        }
        return value;
    }

    /**
     * @return {@code value} if it names a header: a header name ({@link #headerName}), or one built
     *     with the simple language ({@code user-${header.tenant}}) whose text outside the
     *     {@code ${...}} parts is a header name's; not only an expression ({@code ${header.user}}
     *     would name the header by the value read, which a key or tenant computed from the request
     *     does not want: that is an expression knob's, {@code setKey} or {@code setTenant})
     */
    public static String headerNameTemplate(String field, String value) {
        notBlank(field, value);
        if (!value.contains("${")) {
            return headerName(field, value);
        }
        String literal = value.replaceAll("\\$\\{[^}]*}", "");
        if (literal.isEmpty()) {
            throw new IllegalArgumentException(field + " must name a header, not be an expression of its own (for a value"
                    + " computed from the request, its expression knob), was '" + value + "'");
        }
        if (!isToken(literal)) {
            throw new IllegalArgumentException(field + " must be a header name (RFC 9110 token), was '" + value + "'");
        }
        return value;
    }

    /** Whether {@code text} is visible ASCII without RFC 9110's separators. */
    private static boolean isToken(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    private static String trim(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }
}
