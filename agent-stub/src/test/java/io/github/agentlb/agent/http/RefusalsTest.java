package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class RefusalsTest {

    @Test
    void aRefusalCountsOnTheServerOfItsConnectionOnlyAndAStatusNoServerRefusesWithIsNamed() {
        Refusals refusals = new Refusals();
        EmbeddedChannel counted = new EmbeddedChannel();
        counted.attr(Refusals.KEY).set(refusals);
        Refusals.count(counted, 413);
        Refusals.count(counted, 413);
        Refusals.count(counted, 400);
        Refusals.count(new EmbeddedChannel(), 413); // a connection of a server without counts
        assertThat(Refusals.STATUSES).allSatisfy(status -> assertThat(refusals.count(status))
                .isEqualTo(status == 413 ? 2 : status == 400 ? 1 : 0));
        assertThatThrownBy(() -> refusals.count(404)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("status must be one of [400, 408, 413, 414, 417, 431, 501, 503, 505], was 404");
    }
}
