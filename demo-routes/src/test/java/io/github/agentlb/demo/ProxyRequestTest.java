package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.agent.http.RequestTarget;
import io.github.agentlb.demo.ProxyRequest.Kind;
import org.junit.jupiter.api.Test;

class ProxyRequestTest {

    @Test
    void aProcessRequestKeepsPathAndQueryAsSentAndDecodesItsIds() {
        ProxyRequest request = ProxyRequest.parse("GET", "/process/a%2Fb+c?user_id=a%20b+c&x=%2B");

        assertThat(request).isEqualTo(new ProxyRequest(Kind.PROXY, "/process/a%2Fb+c", "user_id=a%20b+c&x=%2B",
                "a/b+c", "a b c"));
    }

    @Test
    void userIdIsTheFirstOccurrenceEmptyWithoutValueAndNullWhenAbsent() {
        assertThat(ProxyRequest.parse("GET", "/process/r?user_id=1&user_id=2").userId()).isEqualTo("1");
        assertThat(ProxyRequest.parse("GET", "/process/r?user_id").userId()).isEmpty();
        assertThat(ProxyRequest.parse("GET", "/process/r?user_id=").userId()).isEmpty();
        assertThat(ProxyRequest.parse("GET", "/process/r?other=1").userId()).isNull();
        assertThat(ProxyRequest.parse("GET", "/process/r").userId()).isNull();
    }

    @Test
    void aTargetThatIsNotAUriIsABadRequestSaySo() {
        for (String target : new String[] {"/process/r?user_id=%zz", "/process/r%zz", "/process/r?user_id=50%",
            "/process/r?user_id=a|b", "/process/r?user_id=a\"b", "/x%", "/process/r?user_id=1#f"}) {
            ProxyRequest request = ProxyRequest.parse("GET", target);
            assertThat(request.kind()).as(target).isEqualTo(Kind.BAD_REQUEST);
            assertThat(request.problem()).as(target).startsWith("malformed request target: ").endsWith(" of " + target);
        }
        assertThat(ProxyRequest.parse("GET", "/process/r?user_id=%zz").problem())
                .isEqualTo("malformed request target: malformed escape pair at index 19 of /process/r?user_id=%zz");
        assertThat(ProxyRequest.parse("GET", "/process/r?user_id=a b").problem())
                .isEqualTo("malformed request target: control character or space at index 20 of /process/r?user_id=a\\x20b");
        assertThat(ProxyRequest.parse("GET", "").kind()).isEqualTo(Kind.BAD_REQUEST);
        assertThat(ProxyRequest.parse(null, null).kind()).isEqualTo(Kind.BAD_REQUEST);
    }

    @Test
    void aLongBadTargetIsQuotedShortened() {
        String target = "/process/r?user_id=" + "1".repeat(300) + "%";

        assertThat(ProxyRequest.parse("GET", target).problem()).endsWith(
                " of " + target.substring(0, RequestTarget.MAX_QUOTED) + "...");
    }

    @Test
    void anAbsoluteFormTargetIsReducedToItsPath() {
        ProxyRequest request = ProxyRequest.parse("GET", "http://example.org:80/process/r1?user_id=3");

        assertThat(request.kind()).isEqualTo(Kind.PROXY);
        assertThat(request.rawPath()).isEqualTo("/process/r1");
        assertThat(request.rawQuery()).isEqualTo("user_id=3");
    }

    @Test
    void otherPathsAreNotFoundAndOnlyConnectIsNotAllowed() {
        for (String target : new String[] {"/", "/process", "/process/", "/process/a/b", "/processx/1", "/health"}) {
            assertThat(ProxyRequest.parse("GET", target).kind()).as(target).isEqualTo(Kind.NOT_FOUND);
        }
        assertThat(ProxyRequest.parse("POST", "/process/r1").kind()).isEqualTo(Kind.PROXY);
        for (String target : new String[] {"/v1/chat/completions", "/v1/completions?user_id=4", "/mcp", "/mcp/x", "/a2a", "/a2a/v1"}) {
            assertThat(ProxyRequest.parse("POST", target).kind()).as(target).isEqualTo(Kind.PROXY);
        }
        for (String target : new String[] {"/v1/", "/v1", "/mcpx", "/a2ax", "/v2/chat"}) {
            assertThat(ProxyRequest.parse("POST", target).kind()).as(target).isEqualTo(Kind.NOT_FOUND);
        }
        assertThat(ProxyRequest.parse("POST", "/v1/completions?user_id=4").userId()).isEqualTo("4");
        assertThat(ProxyRequest.parse("CONNECT", "/mcp").kind()).isEqualTo(Kind.METHOD_NOT_ALLOWED);
        assertThat(ProxyRequest.parse("CONNECT", "/process/r1").kind()).isEqualTo(Kind.METHOD_NOT_ALLOWED);
        assertThat(ProxyRequest.parse("HEAD", "/process/r1").kind()).isEqualTo(Kind.PROXY);
        assertThat(ProxyRequest.parse("get", "/process/r1").kind()).isEqualTo(Kind.PROXY);
    }
}
