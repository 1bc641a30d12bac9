package io.github.agentlb.camel.http;

import io.netty.buffer.ByteBuf;

/**
 * Watches a Server-Sent Events stream, part by part, for the two fields that make it resumable
 * (WHATWG HTML "Server-sent events", 9.2.6, each a line that starts with its name and a colon):
 * {@code id:} with a value, the last event id a client that left sends back as
 * {@code Last-Event-ID} (MCP 2025-11-25: the server's events carry ids when it can replay them),
 * and {@code retry:}, the server telling its client when to reconnect, which an MCP 2025-11-25
 * server sends before closing a stream it wants the client to poll (SEP-1699). A field split over
 * two parts is found. Not thread-safe: one per call, on its event loop.
 */
final class SseResumeFields {

    private static final byte[] RETRY = {'r', 'e', 't', 'r', 'y', ':'};
    private static final byte[] ID = {'i', 'd', ':'};

    /** Bytes of {@code retry:} matched at the start of the current line; -1 when this line is not one. */
    private int retryMatched;
    /**
     * Bytes of {@code id:} matched at the start of the current line, {@code ID.length + 1} after the
     * one space that may follow the colon; -1 when this line is not one (or its value began).
     */
    private int idMatched;
    private boolean retry;
    private boolean id;

    /** Reads {@code part}'s readable bytes, leaving its indices as they are. */
    void scan(ByteBuf part) {
        for (int i = part.readerIndex(); i < part.writerIndex() && !(retry && id); i++) {
            byte b = part.getByte(i);
            if (b == '\n' || b == '\r') {
                retryMatched = 0;
                idMatched = 0;
                continue;
            }
            if (retryMatched >= 0) {
                retryMatched = b == RETRY[retryMatched] ? retryMatched + 1 : -1;
                if (retryMatched == RETRY.length) {
                    retry = true;
                    retryMatched = -1;
                }
            }
            if (idMatched >= 0 && idMatched < ID.length) {
                idMatched = b == ID[idMatched] ? idMatched + 1 : -1;
            } else if (idMatched == ID.length && b == ' ') {
                idMatched++;
            } else if (idMatched >= ID.length) {
                // The first byte of the id's value: an empty id (which resets the client's) never gets here.
                id = true;
                idMatched = -1;
            }
        }
    }

    /** @return whether a {@code retry:} field was seen */
    boolean retrySeen() {
        return retry;
    }

    /** @return whether an {@code id:} field with a value was seen */
    boolean idSeen() {
        return id;
    }
}
