package io.github.agentlb.camel.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Sends one request exactly as written, for targets {@link java.net.http.HttpClient} refuses to
 * send ({@code %zz}, {@code |}), and reads the answer until the server closes the connection.
 */
public final class RawHttp {

    private static final int TIMEOUT_MS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A parsed answer; {@code status} is 0 when the server closed the connection without one. */
    public record Answer(int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }
    }

    private RawHttp() {
    }

    /** {@code METHOD target HTTP/1.1} with {@code Host} and {@code Connection: close}. */
    public static Answer send(String baseUrl, String method, String target) {
        URI base = URI.create(baseUrl);
        return exchange(base.getHost(), base.getPort(), method + " " + target + " HTTP/1.1\r\nHost: "
                + base.getHost() + ":" + base.getPort() + "\r\nConnection: close\r\n\r\n");
    }

    /** Writes {@code request} and parses what comes back until the connection closes. */
    public static Answer exchange(String host, int port, String request) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            return parse(readAll(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes {@code request}, one byte per char (ISO-8859-1, so {@code "\u00C3"} is the byte 0xC3),
     * and returns every byte read until the server closes the connection, one char per byte.
     */
    public static String talk(String baseUrl, String request) {
        URI base = URI.create(baseUrl);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try {
                socket.getInputStream().transferTo(bytes);
            } catch (SocketTimeoutException e) {
                throw new IllegalStateException("connection still open after " + TIMEOUT_MS + " ms: "
                        + bytes.toString(StandardCharsets.ISO_8859_1), e);
            }
            return bytes.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * For an agent on a raw socket: reads one request's head up to its blank line and its
     * {@code Content-Length} body, both discarded.
     *
     * @return false if the stream ended before the head did
     */
    public static boolean readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; matched < end.length; ) {
            if ((b = in.read()) < 0) {
                return false;
            }
            head.append((char) b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(line.substring(15).trim()));
            }
        }
        return true;
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                bytes.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new IllegalStateException("no end of answer within " + TIMEOUT_MS + " ms: " + bytes, e);
        } catch (IOException e) {
            // A reset after the answer: keep what was read.
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static Answer parse(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        if (raw.isEmpty() || end < 0) {
            return new Answer(0, Map.of(), raw);
        }
        String[] lines = raw.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        return new Answer(status, headers, raw.substring(end + 4));
    }
}
