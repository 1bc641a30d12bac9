package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TenantPlacesTest {

    private static final long ACTIVE = TimeUnit.SECONDS.toNanos(TenantPlaces.ACTIVE_SECONDS);

    @Test
    void aTenantAloneHasRoomBeyondItsLimit() {
        TenantPlaces places = new TenantPlaces();
        places.seen("H", 0);
        places.take("H");
        places.take("H");
        assertThat(places.hasRoom("H", 1, 0)).isTrue();
    }

    @Test
    void theLimitBindsWhileAnotherTenantSentWithinTheLastSecondAndNotAfter() {
        TenantPlaces places = new TenantPlaces();
        places.seen("L", 100);
        places.seen("H", 200);
        places.seen("H", 300);
        places.take("H");
        assertThat(places.hasRoom("H", 2, 400)).as("under its limit").isTrue();
        places.take("H");
        assertThat(places.hasRoom("H", 2, 100 + ACTIVE)).as("L sent a second ago").isFalse();
        assertThat(places.hasRoom("H", 2, 101 + ACTIVE)).as("L sent more than a second ago").isTrue();
        // Seen from L's side, the other tenant is H, who sent last.
        places.take("L");
        assertThat(places.hasRoom("L", 1, 300 + ACTIVE)).isFalse();
        assertThat(places.hasRoom("L", 1, 301 + ACTIVE)).isTrue();
    }

    @Test
    void aPlaceGivenBackIsRoomAgainAndTheLastIsForgotten() {
        TenantPlaces places = new TenantPlaces();
        places.seen("L", 0);
        places.seen("H", 0);
        places.take("H");
        assertThat(places.hasRoom("H", 1, 0)).isFalse();
        places.give("H");
        assertThat(places.hasRoom("H", 1, 0)).isTrue();
        places.give("H");
        assertThat(places.hasRoom("H", 1, 0)).isTrue();
    }
}
