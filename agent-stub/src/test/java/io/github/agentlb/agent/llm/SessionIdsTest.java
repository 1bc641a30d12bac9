package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Minted MCP session ids: deterministic from the seed, known once minted. */
class SessionIdsTest {

    @Test
    void theSameSeedMintsTheSameIds() {
        SessionIds one = new SessionIds(7);
        SessionIds two = new SessionIds(7);
        String first = one.mint();

        assertThat(first).matches("[0-9a-f]{32}").isEqualTo(two.mint());
        assertThat(one.mint()).isEqualTo(two.mint()).isNotEqualTo(first);
        assertThat(new SessionIds(8).mint()).isNotEqualTo(first);
    }

    @Test
    void onlyMintedIdsAreKnown() {
        SessionIds ids = new SessionIds(7);
        String id = ids.mint();

        assertThat(ids.known(id)).isTrue();
        assertThat(ids.known(new SessionIds(9).mint())).isFalse();
        assertThat(ids.known(null)).isFalse();
    }
}
