package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;

class HopsTest {

    @Test
    void endToEndKeepsEveryOtherHeaderInItsOrderWithItsRepeats() {
        HttpHeaders from = new DefaultHttpHeaders()
                .add("Accept", "application/json")
                .add("Connection", "keep-alive, X-Hop , x-other")
                .add("connection", "Trace-Me")
                .add("X-Hop", "dropped")
                .add("X-OTHER", "dropped")
                .add("trace-me", "dropped")
                .add("Keep-Alive", "timeout=5").add("PROXY-CONNECTION", "x").add("TE", "trailers")
                .add("Trailer", "x").add("Transfer-Encoding", "chunked").add("Upgrade", "h2c").add("Host", "a:1")
                .add("Content-Length", "3").add("Expect", "100-continue").add("Proxy-Authorization", "x")
                .add("Proxy-Authenticate", "x")
                .add("CamelHttpMethod", "POST").add("camelFoo", "x")
                .add("X-Kept", "1").add("x-kept", "2")
                .add("Camera", "kept: only Camel* names are dropped")
                .add("Tee", "kept").add("Hosts", "kept").add("Content-Type", "application/json");
        HttpHeaders kept = Hops.endToEnd(from);
        assertThat(kept.entries()).map(e -> e.getKey() + ": " + e.getValue()).containsExactly(
                "Accept: application/json", "X-Kept: 1", "x-kept: 2", "Camera: kept: only Camel* names are dropped",
                "Tee: kept", "Hosts: kept", "Content-Type: application/json");
    }

    @Test
    void endToEndOfNoHeadersIsEmpty() {
        assertThat(Hops.endToEnd(new DefaultHttpHeaders()).isEmpty()).isTrue();
    }

    @Test
    void hopsByCountsTheEntriesReceivedByThatName() {
        assertThat(Hops.hopsBy(List.of(), "agentlb")).isZero();
        assertThat(Hops.hopsBy(List.of("1.1 agentlb"), "agentlb")).isEqualTo(1);
        assertThat(Hops.hopsBy(List.of("1.1 agentlb, 1.1 nginx,1.0 agentlb (comment)"), "agentlb")).isEqualTo(2);
        assertThat(Hops.hopsBy(List.of("HTTP/1.1\tagentlb", " 1.1   agentlb  ", "1.1 agentlb:8080"), "agentlb"))
                .isEqualTo(2);
        assertThat(Hops.hopsBy(List.of("agentlb", "1.1 Agentlb", "1.1", ",,", ""), "agentlb")).isZero();
        assertThat(Hops.hopsBy(List.of("1.1 agentlb, 1.1 agentlb", "1.1 agentlb"), "agentlb")).isEqualTo(3);
    }
}
