package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;

/**
 * Reads a chunked body's framing (RFC 9112 §7.1) alongside Netty's decoder, ahead of it, to
 * refuse a chunk size that does not fit: Netty's decoder adds each hex digit to an {@code int} and
 * refuses only a result that comes out negative, so {@code 100000005} (4 GiB + 5) is read as 5
 * and {@code 100000000} as 0, the last chunk, and the bytes after it as the next request (request
 * smuggling: RFC 9112 §7.1, "recipients MUST anticipate potentially large hexadecimal numerals and
 * prevent parsing errors due to integer conversion overflows"). As nginx, which refuses a chunk
 * over its limit, a chunk-size line with more than {@value #MAX_SIGNIFICANT_DIGITS} hex digits
 * after its leading zeros, or a size over {@link Integer#MAX_VALUE} bytes, is refused.
 *
 * <p>Framing followed as Netty's 4.1 decoder reads it: a size line (hex digits, then anything
 * up to LF), that many bytes of data, anything up to LF, and after the size 0 trailer lines up to
 * an empty one. Where the framing is one Netty refuses anyway (a size line without a digit, a
 * character in it that is not white space, a missing CRLF after the data) the guard reads on as a
 * lenient decoder would, so it never loses the framing Netty might follow. Not sharable: one per
 * connection's decoder.
 */
final class ChunkSizeGuard {

    /** Most hex digits after leading zeros in a chunk size: 8 hold any size up to 4 GiB - 1. */
    static final int MAX_SIGNIFICANT_DIGITS = 8;

    /** The cause a request whose chunk size does not fit carries in its last part's decoder result. */
    static final class ChunkSizeTooLargeException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        ChunkSizeTooLargeException(String digits) {
            super("chunk size " + digits + " does not fit (RFC 9112 section 7.1)");
        }
    }

    private enum State { OFF, SIZE, DATA, CRLF, TRAILER }

    private State state = State.OFF;
    /** Offset in the connection's bytes up to which the framing has been read. */
    private long scanned;
    // The size line being read.
    private boolean digitsEnded;
    private int digits;
    private int significant;
    private long size;
    private final StringBuilder quoted = new StringBuilder();
    /** Bytes of data left in the chunk (DATA), bytes of the trailer line (TRAILER). */
    private long count;

    /** A chunked body starts at {@code offset} of the connection's bytes. */
    void start(long offset) {
        state = State.SIZE;
        scanned = offset;
        newSizeLine();
    }

    /**
     * Reads the framing in {@code buffer}'s readable bytes, which start at {@code offset} of the
     * connection's bytes (bytes read before are skipped).
     *
     * @return why the body is refused, null while it is not
     */
    ChunkSizeTooLargeException read(ByteBuf buffer, long offset) {
        int from = buffer.readerIndex();
        int end = buffer.writerIndex();
        for (int i = from + (int) Math.max(0, scanned - offset); state != State.OFF && i < end; i++) {
            byte b = buffer.getByte(i);
            scanned = offset + (i - from) + 1;
            switch (state) {
                case SIZE -> {
                    ChunkSizeTooLargeException refused = sizeLine(b);
                    if (refused != null) {
                        state = State.OFF;
                        return refused;
                    }
                }
                case DATA -> {
                    long skip = Math.min(count, end - i);
                    count -= skip;
                    i += (int) skip - 1;
                    scanned = offset + (i - from) + 1;
                    if (count == 0) {
                        state = State.CRLF;
                    }
                }
                case CRLF -> {
                    if (b == '\n') {
                        state = State.SIZE;
                        newSizeLine();
                    }
                }
                case TRAILER -> {
                    if (b == '\n') {
                        if (count == 0) {
                            state = State.OFF; // the body's end
                        }
                        count = 0;
                    } else if (b != '\r') {
                        count++;
                    }
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
        return null;
    }

    private ChunkSizeTooLargeException sizeLine(byte b) {
        if (b == '\n') {
            if (digits == 0) {
                state = State.OFF; // Netty refuses an empty size
            } else if (size == 0) {
                state = State.TRAILER;
                count = 0;
            } else {
                state = State.DATA;
                count = size;
            }
            return null;
        }
        if (digitsEnded) {
            return null; // a chunk extension
        }
        int digit = Character.digit(b, 16);
        if (digit < 0) {
            // Before the digits: white space (anything else Netty refuses); after them: their end.
            digitsEnded = digits > 0;
            return null;
        }
        digits++;
        if (significant > 0 || digit > 0) {
            significant++;
            quoted.append((char) b);
        }
        size = size * 16 + digit;
        if (significant > MAX_SIGNIFICANT_DIGITS || size > Integer.MAX_VALUE) {
            return new ChunkSizeTooLargeException(quoted.toString());
        }
        return null;
    }

    private void newSizeLine() {
        digitsEnded = false;
        digits = 0;
        significant = 0;
        size = 0;
        quoted.setLength(0);
    }
}
