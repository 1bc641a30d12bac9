package io.github.agentlb.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The learned-session settings: header names, secret, equality and printing. */
class LearnedSessionsTest {

    private static final String SECRET = "0123456789abcdef";

    @Test
    void aSecretIsSetOnlyWhenGiven() {
        assertThat(LearnedSessions.custom().build().hasSecret()).isFalse();
        assertThat(LearnedSessions.disabled().hasSecret()).isFalse();
        assertThat(LearnedSessions.custom().secret(SECRET).build().hasSecret()).isTrue();
    }

    @Test
    void aSecretOfExactlySixteenBytesIsAccepted() {
        assertThat(SECRET.getBytes(StandardCharsets.UTF_8)).hasSize(LearnedSessions.MIN_SECRET_BYTES);
        assertThat(LearnedSessions.custom().secret(SECRET).build().hasSecret()).isTrue();
        assertThatThrownBy(() -> LearnedSessions.custom().secret(SECRET.substring(1)))
                .hasMessage("sessionSecret must have at least 16 bytes, had 15");
    }

    @Test
    void idsAreSealedWithTheConfiguredSecret() {
        LearnedSessions sessions = LearnedSessions.custom().secret(SECRET).build();
        String id = sessions.ids().encode("A1", "s-1");
        assertThat(new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).decode(id))
                .isEqualTo(new SessionIds.Sealed("A1", "s-1"));
        assertThat(sessions.ids().decode(id)).isEqualTo(new SessionIds.Sealed("A1", "s-1"));
        assertThat(LearnedSessions.custom().build().ids().decode(id)).isNull();
    }

    @Test
    void headerNamesAreRfc9110Tokens() {
        assertThat(LearnedSessions.custom().header("!#$%&'*+-.^_`|~09AZaz").build().header())
                .isEqualTo("!#$%&'*+-.^_`|~09AZaz");
        for (String bad : new String[] {"a b", "a\tb", "a\u001fb", "a\u007fb", "a\u00e9b", "a(b", "a)b", "a<b", "a>b",
                "a@b", "a,b", "a;b", "a:b", "a\\b", "a\"b", "a/b", "a[b", "a]b", "a?b", "a=b", "a{b", "a}b"}) {
            assertThatThrownBy(() -> LearnedSessions.custom().header(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("sessionHeader must be a header name (RFC 9110 token), was '" + bad + "'");
        }
    }

    @Test
    void headerCharactersJustInsideTheVisibleRangeAreAccepted() {
        assertThat(LearnedSessions.custom().header("!").build().header()).isEqualTo("!");
        assertThat(LearnedSessions.custom().header("~").build().header()).isEqualTo("~");
        assertThat(LearnedSessions.custom().header("X-Session").build().header()).isEqualTo("X-Session");
    }

    @Test
    void settingsWithTheSameValuesAreEqualAndHashAlike() {
        LearnedSessions a = LearnedSessions.custom().header("X-Session").secret(SECRET)
                .whenAgentGone(LearnedSessions.WhenAgentGone.NEW_PICK).build();
        LearnedSessions b = LearnedSessions.custom().header("X-Session").secret(SECRET)
                .whenAgentGone("NEW_PICK").build();
        assertThat(a).isEqualTo(b).isNotSameAs(b);
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
        assertThat(a.toBuilder().build()).isEqualTo(a);
    }

    @Test
    void settingsDifferingInOneValueAreUnequalAndHashApart() {
        LearnedSessions base = LearnedSessions.custom().secret(SECRET).build();
        LearnedSessions[] others = {
            LearnedSessions.custom().header("X-Session").secret(SECRET).build(),
            LearnedSessions.custom().secret("fedcba9876543210").build(),
            LearnedSessions.custom().build(),
            LearnedSessions.custom().secret(SECRET).whenAgentGone(LearnedSessions.WhenAgentGone.NEW_PICK).build(),
            LearnedSessions.disabled(),
        };
        for (LearnedSessions other : others) {
            assertThat(base).isNotEqualTo(other);
            assertThat(other).isNotEqualTo(base);
            assertThat(base.hashCode()).isNotEqualTo(other.hashCode());
        }
        assertThat(base).isNotEqualTo(LearnedSessions.DEFAULT_HEADER).isNotEqualTo(null);
    }

    @Test
    void toStringNamesTheSettingsButNeverTheSecret() {
        assertThat(LearnedSessions.disabled()).hasToString("LearnedSessions{disabled}");
        assertThat(LearnedSessions.custom().build())
                .hasToString("LearnedSessions{header=Mcp-Session-Id, secret=none, whenAgentGone=NOT_FOUND}");
        assertThat(LearnedSessions.custom().header("X-S").secret(SECRET).whenAgentGone(" new_pick ").build())
                .hasToString("LearnedSessions{header=X-S, secret=set, whenAgentGone=NEW_PICK}");
    }
}
