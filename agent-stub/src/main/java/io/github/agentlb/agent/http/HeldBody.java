package io.github.agentlb.agent.http;

import io.netty.channel.Channel;
import java.util.Objects;

/**
 * One body's bytes counted in all bodies' most ({@link HeldBodies#maxBytes}): its least held,
 * reserved before it is read, and every byte read beyond it; past the most, its connection waits
 * unread until bytes are given back ({@link HeldBodies#await}).
 *
 * <p>Confined to its connection's event loop, but for {@link #giveBack()}, which may come once
 * from any thread after the body has left the event loop (its request freed).
 */
final class HeldBody {

    private final HeldBodies bodies;
    private final Channel channel;
    /** The bytes counted for this body, given back at the end. */
    private long counted;
    /** Whether the connection is not read until bytes are given back. */
    private boolean waiting;

    HeldBody(HeldBodies bodies, Channel channel) {
        this.bodies = Objects.requireNonNull(bodies, "bodies");
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    /** Reserves {@code least} bytes for the body before it is read: if they do not fit, its connection waits unread until they do. */
    void begin(long least) {
        if (!fits(least)) {
            await(least);
        }
    }

    /** Counts the body's bytes read, {@code bytes} in all, whether they fit or not (they are in memory); {@code waitPast}: past the most, the connection waits. */
    void read(long bytes, boolean waitPast) {
        if (bytes > counted) {
            boolean within = bodies.hold(bytes - counted);
            counted = bytes;
            if (!within && waitPast && !waiting) {
                await(0);
            }
        }
    }

    /** Whether the connection waits unread for bytes to be given back. */
    boolean waiting() {
        return waiting;
    }

    /** The body goes on: its connection is read again if it waited, its bytes still counted until {@link #giveBack()}. */
    void goOn() {
        if (waiting) {
            waiting = false;
            channel.config().setAutoRead(true);
        }
    }

    /** Gives back every byte counted (the body was sent on, freed or dropped) and reads the connection again if it waited. */
    void giveBack() {
        long bytes = counted;
        counted = 0;
        bodies.giveBack(bytes);
        if (channel.eventLoop().inEventLoop()) {
            goOn();
        }
    }

    /** Counts what {@code least} needs beyond the bytes counted, if it fits: whether it did. */
    private boolean fits(long least) {
        if (least > counted && !bodies.tryHold(least - counted)) {
            return false;
        }
        counted = Math.max(counted, least);
        return true;
    }

    /** Waits unread until {@code least} fits (0: until the bytes held are within the most, a read taken to need {@value HeldBodies#WAKE_BYTES}). */
    private void await(long least) {
        waiting = true;
        bodies.await(channel, least > counted ? least - counted : HeldBodies.WAKE_BYTES, () -> woken(least));
    }

    private void woken(long least) {
        if (!waiting) {
            return; // gone on since
        }
        if (fits(least)) {
            goOn();
        } else {
            await(least);
        }
    }
}
