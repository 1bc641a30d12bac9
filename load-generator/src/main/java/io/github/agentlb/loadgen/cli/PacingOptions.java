package io.github.agentlb.loadgen.cli;

import io.github.agentlb.loadgen.config.Pacing;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/** The command line's pacing options ({@code --rate}, {@code --duration}, {@code --interval}), a picocli mixin. */
final class PacingOptions {

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");

    @Option(names = "--rate", paramLabel = "R",
            description = "Open loop: send R requests per second on a constant schedule, whatever the answers "
                    + "(--concurrency then sizes only the warm-up); latency counts from each request's intended send "
                    + "time, so a stall is recorded in full (no coordinated omission). Default: closed loop.")
    Double rate;

    @Option(names = "--duration", paramLabel = "TIME",
            description = "Send for TIME (e.g. 90s, 10m, 1h; a bare number is seconds) instead of --requests, with "
                    + "a progress line per --interval, a soak section and chart soak_[<scenario>_]<strategy>.png, and "
                    + "a verdict: errors, p99 drift (last minute vs first), heap drift (embedded runs).")
    String duration;

    @Option(names = "--interval", paramLabel = "TIME", hidden = false,
            description = "Interval of --duration's progress lines and figures (default: 10s).")
    String interval;

    /**
     * The pacing these options ask for; {@link Pacing#CLOSED_COUNTED} when none is given.
     *
     * @throws IllegalArgumentException naming the option and its value
     */
    Pacing pacing() {
        Duration every = interval == null ? Pacing.DEFAULT_INTERVAL : parse("--interval", interval);
        Duration until = duration == null ? null : parse("--duration", duration);
        if (rate != null && !(rate > 0 && rate <= Pacing.MAX_RATE)) {
            throw new IllegalArgumentException("--rate must be in (0, " + (long) Pacing.MAX_RATE + "], was " + rate);
        }
        if (until != null && until.compareTo(every) < 0) {
            throw new IllegalArgumentException("--duration must be at least --interval (" + Pacing.formatDuration(every)
                    + "), was " + duration);
        }
        return new Pacing(rate == null ? 0 : rate, until, every);
    }

    /** {@code 500ms}, {@code 90s}, {@code 10m}, {@code 1h}, or a number of seconds. */
    static Duration parse(String option, String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(option + " must be a time such as 90s, 10m or 1h, was '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        Duration d = switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
        if (d.isZero()) {
            throw new IllegalArgumentException(option + " must be > 0, was '" + text + "'");
        }
        return d;
    }
}
