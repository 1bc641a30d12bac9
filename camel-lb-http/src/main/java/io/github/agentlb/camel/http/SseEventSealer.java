package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptHooks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ByteProcessor;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Passes a Server-Sent Events answer to the client event by event, each event's {@code data} (an
 * A2A JSON-RPC response: {@code SendStreamingMessage}, {@code SubscribeToTask}) given as
 * {@link AttemptHooks#clientAnswer} rewrites it, so that the task ids in every event are sealed.
 *
 * <p>Framing as WHATWG HTML "Server-sent events" 9.2.6 reads it: lines end at CR, LF or CRLF; an
 * event ends at a blank line; the values of its {@code data} fields (the text after
 * {@code data:} and one optional space) joined with LF are its data. An event is held from its first
 * {@code data} line to its blank line, then goes on at once: as it came when the hooks leave its
 * data unchanged (or it is not JSON), else with its other lines in their order and one
 * {@code data} line of the rewritten JSON in place of its first (its line ends between tokens
 * dropped, one inside a string escaped: the same value, {@link #oneLine}). Bytes outside such events (comments
 * and keep-alives, {@code id:}, {@code event:}, {@code retry:} lines before the first
 * {@code data} line, an event without data) pass as they come, only the first bytes of a line that
 * may still turn out to be {@code data} held until it does or not. An event that grows past
 * {@value #MAX_EVENT_BYTES} bytes is not held longer: it passes as it came, its ids not sealed.
 *
 * <p>Takes a part, gives what the client gets of it: a retained slice when nothing of it changes,
 * else a composite of slices and rewritten events; never holds more than one event (up to the cap,
 * plus one part). Not thread-safe: one per call, on its event loop.
 *
 * <p>Over 300 lines: one byte-level state machine (line ends across parts, the {@code data:} prefix,
 * the event held, the cap, the slices handed on) whose steps all read and move the same positions;
 * split, each piece would pass them all around.
 */
final class SseEventSealer {

    /** The largest event held for its data to be rewritten, bytes (1 MiB); a larger one passes as it came. */
    static final int MAX_EVENT_BYTES = AttemptHooks.MAX_REWRITTEN_ANSWER_BYTES;
    private static final byte[] DATA = {'d', 'a', 't', 'a'};
    /** {@code matched} once a line is known to be a {@code data} line. */
    private static final int IS_DATA = 5;

    private final AttemptHooks hooks;
    private final ByteBufAllocator alloc;

    /** Bytes of the current line read, its terminator not counted. */
    private int lineLength;
    /** Bytes of {@code data:} matched at the current line's start; {@link #IS_DATA} for a data line, -1 for another. */
    private int matched;
    /** Whether the last byte read was a CR, which an LF would complete as one line end. */
    private boolean afterCr;
    /** Whether the current event has a data line: it is held from that line on, in {@link #held} and the part. */
    private boolean dataEvent;
    /** Whether the current event grew past the cap: it passes as it comes to its end. */
    private boolean oversized;
    /** The current event from its first data line, or the start of a line that may be one; null when nothing is held. */
    private CompositeByteBuf held;

    /** Of the part being read: where the current line started in it, -1 when in an earlier part. */
    private int lineStart;
    /** Of the part being read: its bytes before this index went out or into {@link #held}. */
    private int mark;
    /** What the client gets of the part being read, null while nothing. */
    private ByteBuf out;

    SseEventSealer(AttemptHooks hooks, ByteBufAllocator alloc) {
        this.hooks = hooks;
        this.alloc = alloc;
    }

    /** Whether a {@code Content-Type} is {@code text/event-stream}, with or without parameters. */
    static boolean isEventStream(String type) {
        return type != null && type.regionMatches(true, 0, "text/event-stream", 0, 17)
                && (type.length() == 17 || type.charAt(17) == ';' || type.charAt(17) == ' ');
    }

    /**
     * Reads {@code part} (released) and gives what the client gets now, which the caller sends or
     * releases: empty while an event is held.
     */
    ByteBuf next(ByteBuf part) {
        try {
            read(part);
            return out == null ? Unpooled.EMPTY_BUFFER : out;
        } finally {
            out = null;
            part.release();
        }
    }

    /** Reads the answer's last part (released): what the client gets, an event cut short passing as it came. */
    ByteBuf last(ByteBuf part) {
        ByteBuf now = next(part);
        if (held == null) {
            return now;
        }
        CompositeByteBuf rest = held;
        held = null;
        rest.addComponent(true, 0, now);
        return rest;
    }

    /** Frees what is held; the call ended. */
    void release() {
        if (held != null) {
            held.release();
            held = null;
        }
    }

    private void read(ByteBuf part) {
        int end = part.writerIndex();
        int i = part.readerIndex();
        mark = i;
        lineStart = lineLength == 0 ? i : -1;
        while (i < end) {
            if (afterCr) {
                afterCr = false;
                if (part.getByte(i) == '\n') { // the LF of a CRLF: the line ended at its CR
                    i++;
                    lineStart = i;
                    continue;
                }
            }
            int eol = part.forEachByte(i, end - i, ByteProcessor.FIND_CRLF);
            int lineEnd = eol < 0 ? end : eol;
            classify(part, i, lineEnd);
            if (eol < 0) {
                break;
            }
            afterCr = part.getByte(eol) == '\r';
            i = eol + 1;
            endLine(part, i);
            lineStart = i;
        }
        keepRest(part, end);
    }

    /** Reads the bytes {@code [from, to)} of the current line: whether it is a data line, once known. */
    private void classify(ByteBuf part, int from, int to) {
        if (oversized) {
            lineLength += to - from;
            return;
        }
        for (int k = from; k < to && matched >= 0 && matched < IS_DATA; k++) {
            byte b = part.getByte(k);
            matched = matched < DATA.length ? (b == DATA[matched] ? matched + 1 : -1) : (b == ':' ? IS_DATA : -1);
        }
        lineLength += to - from;
        if (matched == IS_DATA) {
            startEvent(part);
        } else if (matched < 0 && !dataEvent && held != null) {
            pass(held); // the start held was not a data line's after all
            held = null;
        }
    }

    /** A line ended; the part's bytes before {@code next} are read. */
    private void endLine(ByteBuf part, int next) {
        if (lineLength == 0) {
            endEvent(part, next);
        } else if (matched == DATA.length && !oversized) {
            startEvent(part); // "data" alone: a data field with an empty value
        } else if (!dataEvent && held != null) {
            pass(held);
            held = null;
        }
        lineLength = 0;
        matched = 0;
    }

    /** The current line is a data line: the event is held from it on, unless it is already. */
    private void startEvent(ByteBuf part) {
        if (dataEvent) {
            return;
        }
        dataEvent = true;
        if (held == null && lineStart >= 0) {
            passPart(part, lineStart);
        }
    }

    /** A blank line ended the event: a held one goes on now, rewritten or as it came. */
    private void endEvent(ByteBuf part, int next) {
        oversized = false;
        if (!dataEvent) {
            return; // no data: its bytes pass with the part
        }
        dataEvent = false;
        ByteBuf event = part.retainedSlice(mark, next - mark);
        if (held != null) {
            held.addComponent(true, event);
            event = held;
            held = null;
        }
        mark = next;
        ByteBuf sealed = event.readableBytes() <= MAX_EVENT_BYTES ? sealed(event) : null;
        if (sealed == null) {
            pass(event);
        } else {
            event.release();
            pass(sealed);
        }
    }

    /** At the part's end: a held event or a line start that may be data kept, the rest passed. */
    private void keepRest(ByteBuf part, int end) {
        boolean undecided = !dataEvent && !oversized && lineLength > 0 && matched >= 0 && matched < IS_DATA;
        if (undecided && held == null && lineStart >= 0) {
            passPart(part, lineStart);
        }
        if (!dataEvent && !undecided) {
            passPart(part, end);
            return;
        }
        if (end > mark) {
            if (held == null) {
                held = alloc.compositeBuffer();
            }
            held.addComponent(true, part.retainedSlice(mark, end - mark));
        }
        if (dataEvent && held != null && held.readableBytes() > MAX_EVENT_BYTES) {
            dataEvent = false;
            oversized = true;
            pass(held);
            held = null;
        }
    }

    /** The part's bytes from {@link #mark} to {@code to} go to the client. */
    private void passPart(ByteBuf part, int to) {
        if (to > mark) {
            pass(part.retainedSlice(mark, to - mark));
            mark = to;
        }
    }

    private void pass(ByteBuf piece) {
        if (out == null) {
            out = piece;
            return;
        }
        if (!(out instanceof CompositeByteBuf)) {
            CompositeByteBuf pieces = alloc.compositeBuffer();
            pieces.addComponent(true, out);
            out = pieces;
        }
        ((CompositeByteBuf) out).addComponent(true, piece);
    }

    /** The event with its data as the hooks rewrite it, or null when they leave it as it is. */
    private ByteBuf sealed(ByteBuf event) {
        byte[] bytes = ByteBufUtil.getBytes(event);
        byte[] data = data(bytes);
        byte[] rewritten = hooks.clientAnswer(data);
        if (rewritten == data || Arrays.equals(rewritten, data)) {
            return null;
        }
        rewritten = oneLine(rewritten);
        ByteBuf sealed = alloc.buffer(bytes.length + rewritten.length - data.length + 8);
        boolean first = true;
        for (int start = 0; start < bytes.length; ) {
            int end = lineEnd(bytes, start);
            int next = afterTerminator(bytes, end);
            if (!isData(bytes, start, end)) {
                sealed.writeBytes(bytes, start, next - start);
            } else if (first) {
                first = false;
                sealed.writeBytes(bytes, start, valueStart(bytes, start, end) - start);
                sealed.writeBytes(rewritten);
                sealed.writeBytes(bytes, end, next - end);
            }
            start = next;
        }
        return sealed;
    }

    /**
     * JSON text as one line, for one {@code data} line: a line end between tokens (where the agent
     * split its data over several lines) dropped, one inside a string (a raw control character the
     * agent wrote) written as its JSON escape; every other byte as it was, so the value is the same.
     */
    static byte[] oneLine(byte[] json) {
        ByteArrayOutputStream out = null;
        boolean inString = false, escaped = false;
        for (int i = 0; i < json.length; i++) {
            byte b = json[i];
            if (b == '\n' || b == '\r') {
                if (out == null) {
                    out = new ByteArrayOutputStream(json.length + 8);
                    out.write(json, 0, i);
                }
                if (inString) {
                    out.write('\\');
                    out.write(b == '\n' ? 'n' : 'r');
                }
                escaped = false;
                continue;
            }
            if (inString && escaped) {
                escaped = false;
            } else if (inString && b == '\\') {
                escaped = true;
            } else if (b == '"') {
                inString = !inString;
            }
            if (out != null) {
                out.write(b);
            }
        }
        return out == null ? json : out.toByteArray();
    }

    /** The event's data: its data lines' values joined with LF. */
    private static byte[] data(byte[] event) {
        int length = -1;
        for (int start = 0; start < event.length; start = afterTerminator(event, lineEnd(event, start))) {
            int end = lineEnd(event, start);
            if (isData(event, start, end)) {
                length += 1 + end - valueStart(event, start, end);
            }
        }
        byte[] data = new byte[Math.max(length, 0)];
        int at = 0;
        for (int start = 0; start < event.length; start = afterTerminator(event, lineEnd(event, start))) {
            int end = lineEnd(event, start);
            if (isData(event, start, end)) {
                if (at > 0) {
                    data[at++] = '\n';
                }
                int value = valueStart(event, start, end);
                System.arraycopy(event, value, data, at, end - value);
                at += end - value;
            }
        }
        return data;
    }

    private static int lineEnd(byte[] bytes, int from) {
        int i = from;
        while (i < bytes.length && bytes[i] != '\n' && bytes[i] != '\r') {
            i++;
        }
        return i;
    }

    private static int afterTerminator(byte[] bytes, int end) {
        if (end >= bytes.length) {
            return bytes.length;
        }
        return bytes[end] == '\r' && end + 1 < bytes.length && bytes[end + 1] == '\n' ? end + 2 : end + 1;
    }

    private static boolean isData(byte[] bytes, int start, int end) {
        return end - start >= 4 && bytes[start] == 'd' && bytes[start + 1] == 'a' && bytes[start + 2] == 't'
                && bytes[start + 3] == 'a' && (end - start == 4 || bytes[start + 4] == ':');
    }

    /** Where a data line's value starts: after {@code data:} and one optional space. */
    private static int valueStart(byte[] bytes, int start, int end) {
        int value = Math.min(start + 5, end);
        return value < end && bytes[value] == ' ' ? value + 1 : value;
    }
}
