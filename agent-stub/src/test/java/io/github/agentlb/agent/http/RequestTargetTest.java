package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestTargetTest {

    @Test
    void anOriginFormTargetIsSplitWithoutDecoding() {
        assertThat(RequestTarget.parse("GET", "/process/a~b%2F?user_id=x~1&q=/?:@"))
                .isEqualTo(new RequestTarget("/process/a~b%2F", "user_id=x~1&q=/?:@", null));
        assertThat(RequestTarget.parse("GET", "/p?")).isEqualTo(new RequestTarget("/p", "", null));
        assertThat(RequestTarget.parse("GET", "/p")).isEqualTo(new RequestTarget("/p", null, null));
    }

    @Test
    void anAbsoluteFormTargetKeepsItsPathAndQuery() {
        assertThat(RequestTarget.parse("GET", "HTTP://example.org:80/process/r1?user_id=3"))
                .isEqualTo(new RequestTarget("/process/r1", "user_id=3", null));
        assertThat(RequestTarget.parse("GET", "http://[::1]:8080?x=1")).isEqualTo(new RequestTarget("/", "x=1", null));
    }

    @Test
    void asteriskAndAuthorityFormBelongToOptionsAndConnect() {
        assertThat(RequestTarget.parse("OPTIONS", "*").valid()).isTrue();
        assertThat(RequestTarget.parse("GET", "*").problem())
                .isEqualTo("malformed request target: * is for OPTIONS only at index 0 of *");
        assertThat(RequestTarget.parse("CONNECT", "example.org:443").path()).isEqualTo("example.org:443");
        assertThat(RequestTarget.parse("GET", "example.org:443").problem())
                .isEqualTo("malformed request target: not in origin or absolute form at index 0 of example.org:443");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/caf\u00C3\u00A9  | non-ASCII byte 0xC3 at index 4 of /caf\\xC3\\xA9",
            "/a\tb             | control character or space at index 2 of /a\\x09b",
            "/a[b              | illegal character in path at index 2 of /a[b",
            "/a?b=\\           | illegal character in query at index 5 of /a?b=\\x5C",
            "/a%4              | malformed escape pair at index 2 of /a%4",
            "ftp://h/a         | scheme is not http or https at index 0 of ftp://h/a",
            "http://user@h/a   | illegal character in authority at index 11 of http://user@h/a",
            "''                | 'empty of '",
    })
    void eachRefusalSaysWhatAndWhereQuotingTheTargetInPrintableAscii(String target, String problem) {
        assertThat(RequestTarget.parse("GET", target).problem()).isEqualTo("malformed request target: " + problem);
    }

    @Test
    void aLongTargetIsQuotedOnlyInPart() {
        assertThat(RequestTarget.parse("GET", "/" + "a".repeat(300) + "|").problem())
                .endsWith(" of /" + "a".repeat(RequestTarget.MAX_QUOTED - 1) + "...");
    }

    @Test
    void hostMustBeOneLineOfHostAndPort() {
        assertThat(RequestTarget.hostProblem(List.of())).isNull();
        assertThat(RequestTarget.hostProblem(List.of("example.org:8080"))).isNull();
        assertThat(RequestTarget.hostProblem(List.of("[::1]:80"))).isNull();
        assertThat(RequestTarget.hostProblem(List.of("a", "b"))).isEqualTo("more than one Host header");
        assertThat(RequestTarget.hostProblem(List.of("u@h")))
                .isEqualTo("malformed Host header: illegal character at index 1 of u@h");
    }

    @Test
    void logTextEscapesControlsAndWhiteSpaceAsTheDecisionLogDoes() {
        assertThat(LogText.escape("r9 agent=evil\n\u2028x")).isEqualTo("r9\\u0020agent=evil\\u000a\\u2028x");
        assertThat(LogText.escape(null)).isEqualTo("null");
        assertThat(LogText.escape("1".repeat(500))).isEqualTo("1".repeat(LogText.MAX_CHARS) + "...");
    }

    @Test
    void decodePathKeepsPlusAndAMalformedEscape() {
        assertThat(RequestTarget.decodePath("/process/a%2Fb+c%C3%A9")).isEqualTo("/process/a/b+c\u00e9");
        assertThat(RequestTarget.decodePath("/p%zz")).isEqualTo("/p%zz");
    }

    @Test
    void queryParameterIsTheFirstDecodedValue() {
        assertThat(RequestTarget.queryParameter("user%5Fid=a+b%20c&user_id=2", "user_id")).isEqualTo("a b c");
        assertThat(RequestTarget.queryParameter("x=1&user_id", "user_id")).isEmpty();
        assertThat(RequestTarget.queryParameter("user_id=%zz", "user_id")).isEqualTo("%zz");
        assertThat(RequestTarget.queryParameter("other=1", "user_id")).isNull();
        assertThat(RequestTarget.queryParameter("", "user_id")).isNull();
        assertThat(RequestTarget.queryParameter(null, "user_id")).isNull();
    }

    /** RFC 3986 §5.2.4 examples and their percent-encoded forms. */
    @Test
    void dotSegmentsAreRemovedPlainOrPercentEncoded() {
        assertThat(RequestTarget.removeDotSegments("/a/b/c/./../../g")).isEqualTo("/a/g");
        assertThat(RequestTarget.removeDotSegments("/mid/content=5/../6")).isEqualTo("/mid/6");
        assertThat(RequestTarget.removeDotSegments("/process/..")).isEqualTo("/");
        assertThat(RequestTarget.removeDotSegments("/process/.")).isEqualTo("/process/");
        assertThat(RequestTarget.removeDotSegments("/process/%2e%2E")).isEqualTo("/");
        assertThat(RequestTarget.removeDotSegments("/../../x")).isEqualTo("/x");
        assertThat(RequestTarget.removeDotSegments("/process/a.b/..c/%2e%2ex")).isEqualTo("/process/a.b/..c/%2e%2ex");
        assertThat(RequestTarget.parse("GET", "/process/%2e%2e?user_id=1"))
                .isEqualTo(new RequestTarget("/", "user_id=1", null));
        assertThat(RequestTarget.parse("GET", "http://h/process/x/../r1?q").path()).isEqualTo("/process/r1");
    }

    @Test
    void aHostMustBeUriHostAndAnOptionalPort() {
        for (String good : List.of("a", "a:80", "a:", "[::1]", "[::1]:8000", "127.0.0.1:1", "xn--d-1a.example")) {
            assertThat(RequestTarget.hostProblem(List.of(good))).as(good).isNull();
        }
        for (String bad : List.of("a:xx", "a:1:2", "[::1", "a]:1", "[::1]x", "[]", "[::1]:8x")) {
            assertThat(RequestTarget.hostProblem(List.of(bad))).as(bad).startsWith("malformed Host header");
        }
    }
}
