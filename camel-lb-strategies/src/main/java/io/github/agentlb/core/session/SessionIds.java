package io.github.agentlb.core.session;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The session id a client sees: the agent's own id with the agent's name sealed into it, so any
 * balancer replica that shares the secret can tell, from the id alone, which agent holds the
 * session and which id that agent gave. No table, nothing to share but the secret, and a
 * membership change moves no session.
 *
 * <p>Form: {@code a1.<agent>.<agent's id>.<tag>}, each part base64url without padding (RFC 4648
 * section 5), the tag the first {@value #TAG_BYTES} bytes of HMAC-SHA256(secret, agent, 0x00,
 * agent's id) (RFC 2104). Only {@code [A-Za-z0-9._-]}: visible ASCII as MCP requires of session
 * ids. An id that is not of this form, was cut or changed, or was sealed with another secret does
 * not {@link #decode}: with a secret shared by the replicas a client cannot forge an id that names
 * another agent; without a secret (a fixed, public key) damage is still detected, forgery is not.
 * An id sealed with the fallback secret, if one is given, decodes too; ids are only ever made
 * with the secret (a change of secret on running replicas: {@link LearnedSessions.Builder#fallbackSecret}).
 *
 * <p>Thread-safe: each thread keeps its own {@link Mac}.
 */
public final class SessionIds {

    /** The version prefix of the ids this class makes. */
    public static final String PREFIX = "a1.";
    /** Bytes of the HMAC kept as the tag: 96 bits. */
    public static final int TAG_BYTES = 12;
    /** The longest client id decoded, characters; a longer one is not an id of ours. */
    public static final int MAX_ID_CHARS = 4096;

    private static final byte[] PUBLIC_KEY = "agentlb learned sessions, no secret set".getBytes(StandardCharsets.UTF_8);
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final ThreadLocal<Mac> macs;
    /** The fallback secret's; null without one. */
    private final ThreadLocal<Mac> fallbackMacs;

    /** @param secret the shared secret; empty for the fixed public key */
    public SessionIds(byte[] secret) {
        this(secret, new byte[0]);
    }

    /**
     * @param secret   the shared secret; empty for the fixed public key
     * @param fallback a secret whose ids decode too, never used to make one; empty for none
     */
    public SessionIds(byte[] secret, byte[] fallback) {
        SecretKeySpec key = new SecretKeySpec(secret.length == 0 ? PUBLIC_KEY : secret.clone(), "HmacSHA256");
        this.macs = ThreadLocal.withInitial(() -> newMac(key));
        SecretKeySpec fallbackKey = fallback.length == 0 ? null : new SecretKeySpec(fallback.clone(), "HmacSHA256");
        this.fallbackMacs = fallbackKey == null ? null : ThreadLocal.withInitial(() -> newMac(fallbackKey));
    }

    /** The id the client sees for session {@code agentSessionId} of agent {@code agent}. */
    public String encode(String agent, String agentSessionId) {
        byte[] agentBytes = agent.getBytes(StandardCharsets.UTF_8);
        byte[] idBytes = agentSessionId.getBytes(StandardCharsets.UTF_8);
        return PREFIX + ENCODER.encodeToString(agentBytes) + '.' + ENCODER.encodeToString(idBytes) + '.'
                + ENCODER.encodeToString(tag(macs, agentBytes, idBytes));
    }

    /**
     * The agent and its session id sealed in {@code clientId}, or null when {@code clientId} is
     * not an intact id of this secret or of the fallback, exactly as {@link #encode} wrote it (garbled, cut,
     * forged, another secret's, its base64 written otherwise, over {@value #MAX_ID_CHARS} characters).
     */
    public Sealed decode(String clientId) {
        if (clientId == null || clientId.length() > MAX_ID_CHARS || !clientId.startsWith(PREFIX)) {
            return null;
        }
        String[] parts = clientId.substring(PREFIX.length()).split("\\.", -1);
        if (parts.length != 3) {
            return null;
        }
        try {
            byte[] agentBytes = DECODER.decode(parts[0]);
            byte[] idBytes = DECODER.decode(parts[1]);
            byte[] tag = DECODER.decode(parts[2]);
            // Only as made: base64 written otherwise (other unused low bits, padding) decodes alike but is damaged.
            if (agentBytes.length == 0 || !asMade(parts[0], agentBytes) || !asMade(parts[1], idBytes) || !asMade(parts[2], tag)
                    || !(MessageDigest.isEqual(tag, tag(macs, agentBytes, idBytes))
                    || fallbackMacs != null && MessageDigest.isEqual(tag, tag(fallbackMacs, agentBytes, idBytes)))) {
                return null;
            }
            return new Sealed(new String(agentBytes, StandardCharsets.UTF_8), new String(idBytes, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether {@code part} is {@code bytes} as {@link #encode} writes them. */
    private static boolean asMade(String part, byte[] bytes) {
        return part.equals(ENCODER.encodeToString(bytes));
    }

    /** Whether {@code clientId} has this class's form (it may still fail to {@link #decode}). */
    public static boolean looksSealed(String clientId) {
        return clientId != null && clientId.startsWith(PREFIX);
    }

    private static byte[] tag(ThreadLocal<Mac> macs, byte[] agent, byte[] id) {
        Mac mac = macs.get();
        mac.update(agent);
        mac.update((byte) 0);
        mac.update(id);
        return Arrays.copyOf(mac.doFinal(), TAG_BYTES);
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /**
     * What a client's session id holds.
     *
     * @param agent          the id of the agent that holds the session
     * @param agentSessionId the session id that agent gave
     */
    public record Sealed(String agent, String agentSessionId) {
    }
}
