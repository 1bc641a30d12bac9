package io.github.agentlb.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/** Raw HTTP/1.1 exchanges with an agent over a socket, UTF-8, for tests that check the wire. */
final class Wire {

    private Wire() {
    }

    /** Writes {@code request} to 127.0.0.1:{@code port} and reads until the agent closes (10 s at most per read). */
    static String talk(int port, String request) {
        return talk(port, request, StandardCharsets.UTF_8);
    }

    /** As {@link #talk(int, String)}, writing and reading in {@code charset}. */
    static String talk(int port, String request, Charset charset) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(charset));
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(bytes);
            return bytes.toString(charset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads {@code in} until what was read contains {@code marker}, or its end. */
    static void readUntil(InputStream in, String marker) throws IOException {
        StringBuilder seen = new StringBuilder();
        for (int b; !seen.toString().contains(marker) && (b = in.read()) >= 0; ) {
            seen.append((char) b);
        }
    }
}
