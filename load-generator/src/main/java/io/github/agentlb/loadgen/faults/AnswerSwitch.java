package io.github.agentlb.loadgen.faults;

import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * Switches A1's answers by request count, so every run switches at the same requests: just before
 * request {@code n/3 + 1} is sent A1 starts answering its fault, before {@code 2n/3 + 1} it answers
 * normally again ({@link BadAgentPhase#startsAtRequest}). A switch is a volatile write on the stub
 * agent, made on the thread that starts that request and stamped on the run's clock so that every
 * answer of the fault comes after the first stamp (read before the switch on: a stamp read after it
 * could follow A1's first fault answers and rest, on a starved CPU) and every request sent after the
 * second is answered normally (read after the switch off).
 *
 * <p>Thread-safe: {@link #accept} is called from the load's threads.
 */
final class AnswerSwitch implements IntConsumer {

    private final int onAt;
    private final int offAt;
    private final Runnable on;
    private final Runnable off;
    private final LongSupplier clock;
    private volatile long onNanos;
    private volatile long offNanos;
    private volatile boolean switchedOn;
    private volatile boolean switchedOff;

    /**
     * @param requests the run's requests, {@code >= 3}
     * @param on       makes A1 answer its fault
     * @param off      makes A1 answer normally
     * @param clock    the clock of the outcomes' send times, ns
     */
    AnswerSwitch(int requests, Runnable on, Runnable off, LongSupplier clock) {
        this.onAt = BadAgentPhase.DURING.startsAtRequest(requests);
        this.offAt = BadAgentPhase.AFTER.startsAtRequest(requests);
        this.on = on;
        this.off = off;
        this.clock = clock;
    }

    @Override
    public void accept(int started) {
        if (started == onAt) {
            onNanos = clock.getAsLong();
            on.run();
            switchedOn = true;
        } else if (started == offAt) {
            off.run();
            offNanos = clock.getAsLong();
            switchedOff = true;
        }
    }

    /**
     * When A1 began to answer its fault, run clock.
     *
     * @throws IllegalStateException if the run ended before the switch
     */
    long onNanos() {
        if (!switchedOn) {
            throw new IllegalStateException("the run ended before request " + onAt + ", where A1's fault begins");
        }
        return onNanos;
    }

    /**
     * When A1 answered normally again, run clock.
     *
     * @throws IllegalStateException if the run ended before the switch
     */
    long offNanos() {
        if (!switchedOff) {
            throw new IllegalStateException("the run ended before request " + offAt + ", where A1's fault ends");
        }
        return offNanos;
    }
}
