package io.github.agentlb.demo;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.netty.http.DefaultNettyHttpBinding;
import org.apache.camel.component.netty.http.NettyHttpConfiguration;

/**
 * The agent request of the demo proxy: camel-netty-http's own, with the request-target set to
 * the client's path and query exactly as received, and {@code Via} and {@code X-Forwarded-For}
 * added (RFC 9110 §7.6.3; the client address as nginx's {@code $remote_addr}).
 *
 * <p>camel-netty-http builds the target from {@code CamelHttpPath} and {@code CamelHttpRawQuery}
 * through {@code UnsafeUriCharactersEncoder.encodeHttpURI}, which escapes {@code ~} and other
 * characters RFC 3986 allows; setting the target on the finished request keeps every byte.
 * The proxy forwards only targets {@link io.github.agentlb.agent.RequestTarget} accepted, all
 * printable ASCII, which Netty's encoder writes one byte per char.
 *
 * <p>An agent answer Netty could not decode (not HTTP) becomes a {@link DecoderException}:
 * camel-netty-http would otherwise hand it on as a response with status 999 and no error, so the
 * balancer would count a success; as an exception it is a failure after the request was sent
 * ({@link io.github.agentlb.camel.FailureClassifier}), which fails over and counts toward ejection.
 */
final class ForwardingBinding extends DefaultNettyHttpBinding {

    /** Exchange property holding the {@link Hop} of a proxied request. */
    static final String HOP_PROPERTY = "agentlb.proxy.hop";
    /** Name the proxy gives itself in {@code Via}. */
    static final String VIA_NAME = "agentlb";

    /**
     * What the agent request carries from the client's.
     *
     * @param target        the origin-form target, e.g. {@code /process/a~b?user_id=x~1}
     * @param clientVersion the client's HTTP version, e.g. {@code 1.1}
     * @param clientAddress the client's IP address, e.g. {@code 127.0.0.1}, or null if unknown
     */
    record Hop(String target, String clientVersion, String clientAddress) {
    }

    @Override
    public HttpRequest toNettyRequest(Message message, String fullUri, NettyHttpConfiguration configuration)
            throws Exception {
        HttpRequest request = super.toNettyRequest(message, fullUri, configuration);
        Hop hop = message.getExchange().getProperty(HOP_PROPERTY, Hop.class);
        if (hop != null) {
            request.setUri(hop.target());
            request.headers().set("Via", hop.clientVersion() + " " + VIA_NAME);
            if (hop.clientAddress() != null) {
                request.headers().set("X-Forwarded-For", hop.clientAddress());
            }
        }
        return request;
    }

    @Override
    public Message toCamelMessage(FullHttpResponse response, Exchange exchange, NettyHttpConfiguration configuration) {
        if (response.decoderResult().isFailure()) {
            Throwable cause = response.decoderResult().cause();
            throw cause instanceof DecoderException decoder ? decoder : new DecoderException(cause);
        }
        return super.toCamelMessage(response, exchange, configuration);
    }
}
