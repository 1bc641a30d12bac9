package io.github.agentlb.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SessionIdsTest {

    private static final byte[] SECRET = "a secret of 16+ bytes".getBytes(StandardCharsets.UTF_8);
    private final SessionIds ids = new SessionIds(SECRET);

    @Test
    void aSealedIdIsFixedByAgentIdAndSecret() {
        // Golden: replicas and restarts must make the same id, or sessions would break on upgrade.
        assertThat(ids.encode("A1", "s-42")).isEqualTo(GOLDEN);
        assertThat(ids.decode(GOLDEN)).isEqualTo(new SessionIds.Sealed("A1", "s-42"));
    }

    private static final String GOLDEN = "a1.QTE.cy00Mg.VGc2pvbjEVWR5Cpx";

    @Test
    void anyAgentNameAndIdRoundTripInVisibleAscii() {
        String agent = "http://agent-3.example:8081";
        String id = "7f3a.b/c d=é\u2603";
        String sealed = ids.encode(agent, id);
        assertThat(sealed).startsWith(SessionIds.PREFIX).matches("[A-Za-z0-9._-]+");
        assertThat(ids.decode(sealed)).isEqualTo(new SessionIds.Sealed(agent, id));
    }

    @Test
    void damagedCutForgedOrForeignIdsDoNotDecode() {
        String sealed = ids.encode("A1", "s-42");
        assertThat(ids.decode(sealed.substring(0, sealed.length() - 1))).isNull();
        assertThat(ids.decode(sealed + "A")).isNull();
        assertThat(ids.decode(GOLDEN.replace(".QTE.", ".QTI."))).isNull(); // names agent A2 with A1's tag
        assertThat(ids.decode("s-42")).isNull();
        assertThat(ids.decode("a1.")).isNull();
        assertThat(ids.decode("a1...")).isNull();
        assertThat(ids.decode("a1.!!.!!.!!")).isNull();
        assertThat(ids.decode(null)).isNull();
        assertThat(ids.decode("a1." + "A".repeat(SessionIds.MAX_ID_CHARS))).isNull();
        // Sealed with another secret: a client cannot name another agent without the secret.
        String forged = new SessionIds("another secret, 16+ bytes".getBytes(StandardCharsets.UTF_8)).encode("A2", "s-42");
        assertThat(ids.decode(forged)).isNull();
        // Without a secret the fixed key still detects damage.
        SessionIds open = new SessionIds(new byte[0]);
        String openId = open.encode("A1", "x");
        assertThat(open.decode(openId)).isEqualTo(new SessionIds.Sealed("A1", "x"));
        assertThat(open.decode(openId.substring(0, openId.length() - 2))).isNull();
        assertThat(ids.decode(openId)).isNull();
    }

    /**
     * Only the id made decodes: base64 that decodes to the same bytes but is written otherwise (a last
     * character whose unused low bits differ, padding) is a damaged id, as a changed character elsewhere.
     * GOLDEN's parts {@code QTE} ("A1") and {@code cy00Mg} ("s-42") end in a character with unused bits:
     * {@code QTF}, {@code QTG}, {@code QTH} and {@code cy00Mh} decode to the same bytes (its 12-byte tag has none).
     */
    @Test
    void anIdWrittenOtherwiseThanMadeDoesNotDecode() {
        for (String damaged : java.util.List.of(GOLDEN.replace(".QTE.", ".QTF."), GOLDEN.replace(".QTE.", ".QTG."),
                GOLDEN.replace(".QTE.", ".QTH."), GOLDEN.replace(".cy00Mg.", ".cy00Mh."),
                GOLDEN.replace(".QTE.", ".QTE=."), GOLDEN.replace(".cy00Mg.", ".cy00Mg==."), GOLDEN + "=",
                GOLDEN.substring(0, GOLDEN.length() - 1) + "y")) {
            assertThat(java.util.Base64.getUrlDecoder().decode(damaged.split("\\.")[1])).as(damaged).isNotEmpty();
            assertThat(ids.decode(damaged)).as(damaged).isNull();
        }
        assertThat(ids.decode(GOLDEN)).isNotNull();
    }

    /**
     * A change of secret on running replicas: the fallback's ids decode, ids are made with the
     * secret only, and a third secret's ids still do not decode.
     */
    @Test
    void idsOfTheFallbackSecretDecodeAndNewIdsAreMadeWithTheSecret() {
        byte[] next = "the next secret, 16+ bytes".getBytes(StandardCharsets.UTF_8);
        SessionIds rotated = new SessionIds(next, SECRET);
        assertThat(rotated.decode(GOLDEN)).as("an id of the old secret").isEqualTo(new SessionIds.Sealed("A1", "s-42"));
        String made = rotated.encode("A1", "s-42");
        assertThat(made).isEqualTo(new SessionIds(next).encode("A1", "s-42")).isNotEqualTo(GOLDEN);
        assertThat(new SessionIds(SECRET, next).decode(made)).as("a replica not yet changed, the next secret its fallback")
                .isEqualTo(new SessionIds.Sealed("A1", "s-42"));
        assertThat(ids.decode(made)).as("a replica without the fallback").isNull();
        String foreign = new SessionIds("another secret, 16+ bytes".getBytes(StandardCharsets.UTF_8)).encode("A2", "s-42");
        assertThat(rotated.decode(foreign)).isNull();
        assertThat(rotated.decode(GOLDEN.replace(".QTE.", ".QTI."))).isNull();
        LearnedSessions sessions = LearnedSessions.custom().secret("the next secret, 16+ bytes")
                .fallbackSecret("a secret of 16+ bytes").build();
        assertThat(sessions.ids().decode(GOLDEN)).isEqualTo(new SessionIds.Sealed("A1", "s-42"));
        assertThat(sessions.toString()).contains("fallbackSecret=set").doesNotContain("16+ bytes");
        assertThat(sessions).isNotEqualTo(LearnedSessions.custom().secret("the next secret, 16+ bytes").build());
        assertThatThrownBy(() -> LearnedSessions.custom().fallbackSecret("short"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionFallbackSecret must have at least 16 bytes, had 5");
    }

    @Test
    void theConfigValidatesAndNeverShowsTheSecret() {
        assertThat(LearnedSessions.disabled().isEnabled()).isFalse();
        LearnedSessions on = LearnedSessions.custom().secret("0123456789abcdef").whenAgentGone("new-pick").build();
        assertThat(on.header()).isEqualTo("Mcp-Session-Id");
        assertThat(on.whenAgentGone()).isEqualTo(LearnedSessions.WhenAgentGone.NEW_PICK);
        assertThat(on.toString()).doesNotContain("0123456789abcdef").contains("secret=set");
        assertThatThrownBy(() -> LearnedSessions.custom().secret("short-secret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionSecret must have at least 16 bytes, had 12");
        assertThatThrownBy(() -> LearnedSessions.custom().secret(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionSecret must have at least 16 bytes, was null (not set)");
        assertThatThrownBy(() -> LearnedSessions.custom().header("Mcp Session"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sessionHeader").hasMessageContaining("'Mcp Session'");
        assertThatThrownBy(() -> LearnedSessions.custom().whenAgentGone("retry"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sessionAgentGone must be NOT_FOUND or NEW_PICK, was 'retry'");
        assertThat(LearnedSessions.disabled().toBuilder().build()).isEqualTo(LearnedSessions.custom().build());
    }

    @Test
    void anIdOfExactlyTheLongestLengthStillDecodes() {
        String longest = ids.encode("AB", "x".repeat(3054));
        assertThat(longest).hasSize(SessionIds.MAX_ID_CHARS);
        assertThat(ids.decode(longest)).isEqualTo(new SessionIds.Sealed("AB", "x".repeat(3054)));
        String tooLong = ids.encode("AB", "x".repeat(3055));
        assertThat(tooLong).hasSize(SessionIds.MAX_ID_CHARS + 2);
        assertThat(ids.decode(tooLong)).isNull();
    }

    @Test
    void looksSealedTellsOnlyByThePrefix() {
        assertThat(SessionIds.looksSealed(GOLDEN)).isTrue();
        assertThat(SessionIds.looksSealed("a1.not-an-id")).isTrue();
        assertThat(SessionIds.looksSealed("a1")).isFalse();
        assertThat(SessionIds.looksSealed("s-42")).isFalse();
        assertThat(SessionIds.looksSealed(null)).isFalse();
    }
}
