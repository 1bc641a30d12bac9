package io.github.agentlb.core.key;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.Base64;

/**
 * The request headers of MCP's Streamable HTTP transport, revision 2026-07-28, that mirror fields
 * of the JSON-RPC body so that an intermediary can route without reading it: {@value #METHOD}
 * (the body's {@code method}), {@value #NAME} ({@code params.name} or {@code params.uri}) and
 * {@value #PARAM_PREFIX}{@code <Name>} (a tool argument the server marked {@code x-mcp-header}).
 *
 * <p>Source: the MCP specification, {@code docs/specification/2026-07-28/basic/transports/streamable-http.mdx}
 * ("Request Metadata"; SEP-2243). Its rules kept here:
 * <ul>
 *   <li><b>Trust</b>: a server that reads the body checks these headers against it, and only
 *       revisions from 2026-07-28 on require that check; an intermediary that routes on them
 *       "SHOULD verify that the {@code MCP-Protocol-Version} header indicates a version that
 *       requires header-body validation". {@link #mirrorsTrusted(String)}: a version is a date
 *       {@code YYYY-MM-DD} and is trusted when it is {@value #FIRST_VALIDATED_VERSION} or later;
 *       an absent, older or malformed version is not.</li>
 *   <li><b>Values</b>: visible ASCII, space and tab; a value that is not (non-ASCII, control
 *       characters, leading or trailing white space) is sent as {@code =?base64?<base64 of its
 *       UTF-8>?=}, the markers lowercase and case-sensitive. {@link #decode(String)} undoes that.</li>
 *   <li><b>Case</b>: header names are case-insensitive, values case-sensitive:
 *       {@link #paramHeader(String)} gives the name, the caller's header lookup ignores case.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe; no method throws on a bad value.
 */
public final class McpHeaders {

    /** The protocol revision a request speaks, a date {@code YYYY-MM-DD}. */
    public static final String PROTOCOL_VERSION = "MCP-Protocol-Version";
    /** The JSON-RPC method, e.g. {@code tools/call}. */
    public static final String METHOD = "Mcp-Method";
    /** The tool or prompt name, or the resource URI. */
    public static final String NAME = "Mcp-Name";
    /** The prefix of a mirrored tool argument's header, {@code Mcp-Param-<Name>}. */
    public static final String PARAM_PREFIX = "Mcp-Param-";
    /** The first revision whose servers check mirrored headers against the body. */
    public static final String FIRST_VALIDATED_VERSION = "2026-07-28";

    private static final LocalDate FIRST_VALIDATED = LocalDate.parse(FIRST_VALIDATED_VERSION);
    private static final String SENTINEL_START = "=?base64?";
    private static final String SENTINEL_END = "?=";

    private McpHeaders() {
    }

    /**
     * Whether a request of this {@value #PROTOCOL_VERSION} has mirrored headers a server checks,
     * so that routing on them is safe: true for a date {@code YYYY-MM-DD} (ASCII digits, a valid
     * calendar day) on or after {@value #FIRST_VALIDATED_VERSION}, compared as dates; false for
     * null, an earlier date, or anything else ({@code draft}, {@code 2026-7-28}, {@code 2026-02-30}).
     * Surrounding white space is ignored.
     */
    public static boolean mirrorsTrusted(String protocolVersion) {
        LocalDate date = dateOf(protocolVersion);
        return date != null && !date.isBefore(FIRST_VALIDATED);
    }

    /** The revision's date, or null when {@code version} is not of the form {@code YYYY-MM-DD}. */
    static LocalDate dateOf(String version) {
        if (version == null) {
            return null;
        }
        String v = version.strip();
        if (v.length() != 10 || v.charAt(4) != '-' || v.charAt(7) != '-') {
            return null;
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (i != 4 && i != 7 && (c < '0' || c > '9')) {
                return null;
            }
        }
        try {
            return LocalDate.of(Integer.parseInt(v, 0, 4, 10), Integer.parseInt(v, 5, 7, 10),
                    Integer.parseInt(v, 8, 10, 10));
        } catch (DateTimeException e) {
            return null;
        }
    }

    /**
     * A mirrored header's value as the body has it: the UTF-8 text of a
     * {@code =?base64?...?=} value (standard base64 alphabet, padding optional), or a plain value
     * as it is. Null when the value is null or empty, when a plain value has a character other
     * than visible ASCII, space or tab (a client must have encoded it), or when an encoded one is
     * not valid base64 of valid UTF-8. The markers are case-sensitive: {@code =?BASE64?...?=} is a
     * plain value.
     */
    public static String decode(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (value.length() >= SENTINEL_START.length() + SENTINEL_END.length() && value.startsWith(SENTINEL_START)
                && value.endsWith(SENTINEL_END)) {
            return decodeBase64(value.substring(SENTINEL_START.length(), value.length() - SENTINEL_END.length()));
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 || c > 0x7e) && c != '\t') {
                return null;
            }
        }
        return value;
    }

    private static String decodeBase64(String encoded) {
        try {
            byte[] bytes = Base64.getDecoder().decode(encoded);
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            return text.isEmpty() ? null : text;
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return null;
        }
    }

    /**
     * The header that mirrors the tool argument named {@code name} by its {@code x-mcp-header}:
     * {@code Mcp-Param-<name>}. Header names ignore case, so {@code handle} and {@code Handle}
     * name one header.
     */
    public static String paramHeader(String name) {
        return PARAM_PREFIX + name;
    }
}
