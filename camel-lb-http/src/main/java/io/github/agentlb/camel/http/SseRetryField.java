package io.github.agentlb.camel.http;

import io.netty.buffer.ByteBuf;

/**
 * Watches a Server-Sent Events stream, part by part, for a {@code retry:} field (a line that starts
 * with it, WHATWG HTML "Server-sent events", 9.2.6): the server telling its client when to
 * reconnect, which an MCP 2025-11-25 server sends before closing a stream it wants the client to
 * poll (SEP-1699). A field split over two parts is found. Not thread-safe: one per call, on its
 * event loop.
 */
final class SseRetryField {

    private static final byte[] FIELD = {'r', 'e', 't', 'r', 'y', ':'};

    /** Bytes of the field matched at the start of the current line; -1 when this line is not one. */
    private int matched;
    private boolean seen;

    /** Reads {@code part}'s readable bytes, leaving its indices as they are. */
    void scan(ByteBuf part) {
        for (int i = part.readerIndex(); i < part.writerIndex() && !seen; i++) {
            byte b = part.getByte(i);
            if (b == '\n' || b == '\r') {
                matched = 0;
            } else if (matched >= 0) {
                matched = b == FIELD[matched] ? matched + 1 : -1;
                seen = matched == FIELD.length;
            }
        }
    }

    /** @return whether a {@code retry:} field was seen */
    boolean seen() {
        return seen;
    }
}
