package io.github.agentlb.loadgen.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * Whether a {@code --url} run's balancer accepts connections, checked once before any load is
 * sent: a dead target gets one line saying why (connection refused, unknown host, no answer),
 * and no run, report or self-check about a load that reached nothing.
 */
final class Reachability {

    private Reachability() {
    }

    /**
     * @param baseUrl   {@code http://host[:port]}, the port 80 (443 for https) when absent
     * @param timeoutMs connect timeout
     * @return {@code null} when a TCP connection opens, else one line naming the URL, host:port and the reason
     */
    static String problem(String baseUrl, int timeoutMs) {
        URI uri = URI.create(baseUrl);
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        String hostPort = uri.getHost() + ":" + port;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), port), timeoutMs);
            return null;
        } catch (UnknownHostException e) {
            return why(baseUrl, "unknown host " + uri.getHost());
        } catch (ConnectException e) {
            return why(baseUrl, "connection refused by " + hostPort + " (is the balancer running there?)");
        } catch (SocketTimeoutException e) {
            return why(baseUrl, "no answer to a connection to " + hostPort + " within " + timeoutMs + " ms");
        } catch (IOException e) {
            return why(baseUrl, hostPort + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        }
    }

    private static String why(String baseUrl, String reason) {
        return "Cannot reach the balancer at " + baseUrl + ": " + reason + ". No load sent, no report written.";
    }
}
