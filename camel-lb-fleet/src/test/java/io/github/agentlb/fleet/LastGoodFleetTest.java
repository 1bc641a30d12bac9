package io.github.agentlb.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LastGoodFleetTest {

    private static final AgentSpec A1 = AgentSpec.of("A1", URI.create("http://127.0.0.1:9001"));
    private static final AgentSpec A2 = AgentSpec.of("A2", URI.create("http://127.0.0.1:9002"));
    private static final AgentSpec A3 = AgentSpec.of("A3", URI.create("http://127.0.0.1:9003"));

    private final List<List<AgentSpec>> told = new ArrayList<>();

    @Test
    void eachAppliedChangeIsOneInfoLineNamingWhatChanged() {
        try (CapturedLog log = new CapturedLog(LastGoodFleetTest.class)) {
            LastGoodFleet fleet = new LastGoodFleet("test:x", told::add, LastGoodFleetTest.class);
            fleet.first(List.of(A1, A2));
            assertThat(fleet.offer(List.of(A1, A2))).isTrue();
            assertThat(fleet.offer(List.of(A1.withWeight(3), A2.withDraining(true), A3))).isTrue();
            assertThat(fleet.offer(List.of(A3, A1.withWeight(3)))).isTrue();
            assertThat(fleet.offer(List.of(A1.withWeight(3), A3))).isTrue();
            assertThat(fleet.offer(List.of(A1.withWeight(3), A3, A2.withDraining(true)))).isTrue();
            assertThat(told).hasSize(5);
            assertThat(log.at("INFO")).containsExactly(
                    "INFO test:x: fleet of 2 agents: [A1, A2]",
                    "INFO test:x: fleet of 3 agents: added [A3], draining [A2], changed [A1]",
                    "INFO test:x: fleet of 2 agents: removed [A2]",
                    "INFO test:x: fleet of 2 agents: order changed",
                    "INFO test:x: fleet of 3 agents: draining [A2]");
        }
    }

    /** Was: {@code changed [A2]}, though A2 takes requests again, a new member when its drain had ended. */
    @Test
    void anAgentNoLongerDrainingIsAddedAndTheFirstLineSaysWhichAreDraining() {
        try (CapturedLog log = new CapturedLog(LastGoodFleetTest.class)) {
            LastGoodFleet fleet = new LastGoodFleet("test:x", told::add, LastGoodFleetTest.class);
            fleet.first(List.of(A1, A2.withDraining(true)));
            fleet.offer(List.of(A1, A2.withWeight(2)));
            fleet.offer(List.of(A1, A2.withDraining(true)));
            fleet.offer(List.of(A1));
            fleet.offer(List.of(A1, A2.withDraining(true)));
            fleet.offer(List.of(A1, A2));
            assertThat(log.at("INFO")).containsExactly(
                    "INFO test:x: fleet of 2 agents: [A1, A2], draining [A2]",
                    "INFO test:x: fleet of 2 agents: added [A2]",
                    "INFO test:x: fleet of 2 agents: draining [A2]",
                    "INFO test:x: fleet of 1 agents: removed [A2]",
                    "INFO test:x: fleet of 2 agents: draining [A2]",
                    "INFO test:x: fleet of 2 agents: added [A2]");
        }
    }

    /** Was: 300 names on the first line, and every one of 298 on the next. */
    @Test
    void theListsOfALineAreBoundedToTwentyNames() {
        List<AgentSpec> many = IntStream.rangeClosed(1, 300)
                .mapToObj(i -> AgentSpec.of("A" + i, URI.create("http://127.0.0.1:" + (10_000 + i)))).toList();
        try (CapturedLog log = new CapturedLog(LastGoodFleetTest.class)) {
            LastGoodFleet fleet = new LastGoodFleet("test:x", told::add, LastGoodFleetTest.class);
            fleet.first(many);
            fleet.offer(many.subList(0, 2));
            String first20 = "A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20";
            String next20 = "A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20, A21, A22";
            assertThat(log.at("INFO")).containsExactly(
                    "INFO test:x: fleet of 300 agents: [" + first20 + ", and 280 more]",
                    "INFO test:x: fleet of 2 agents: removed [" + next20 + ", and 278 more]");
        }
    }

    @Test
    void anInvalidFleetIsRefusedAndTheReasonLoggedOnceUntilAGoodRead() {
        try (CapturedLog log = new CapturedLog(LastGoodFleetTest.class)) {
            LastGoodFleet fleet = new LastGoodFleet("test:x", told::add, LastGoodFleetTest.class);
            fleet.first(List.of(A1));
            assertThat(fleet.offer(List.of())).isFalse();
            assertThat(fleet.offer(List.of())).isFalse();
            assertThat(fleet.offer(List.of(A2, A2))).isFalse();
            assertThat(fleet.offer(List.of(A2.withDraining(true)))).isFalse();
            assertThat(fleet.offer(List.of(A1))).isTrue();
            assertThat(fleet.offer(List.of())).isFalse();
            assertThat(log.at("WARN")).containsExactly(
                    "WARN test:x: keeping the last good fleet of 1 agents: no agents",
                    "WARN test:x: keeping the last good fleet of 1 agents: duplicate name 'A2'",
                    "WARN test:x: keeping the last good fleet of 1 agents: no agent takes new requests (all 1 draining)",
                    "WARN test:x: keeping the last good fleet of 1 agents: no agents");
            assertThat(told).containsExactly(List.of(A1));
            assertThat(fleet.fleet()).containsExactly(A1);
        }
    }

    @Test
    void aFleetReadInPartIsAppliedAndItsProblemReportedOnceUntilAWholeRead() {
        try (CapturedLog log = new CapturedLog(LastGoodFleetTest.class)) {
            LastGoodFleet fleet = new LastGoodFleet("test:x", told::add, LastGoodFleetTest.class);
            fleet.first(List.of(A1), "part B failed");
            assertThat(fleet.problem()).isEqualTo("part B failed");
            assertThat(fleet.offer(List.of(A1, A2), "part B failed")).isTrue();
            assertThat(fleet.offer(List.of(A1, A2), "part B failed")).isTrue();
            assertThat(fleet.offer(List.of(), "part B failed")).as("still a valid fleet or none").isFalse();
            assertThat(fleet.offer(List.of(A1, A2), "part B failed")).isTrue();
            assertThat(fleet.offer(List.of(A1, A2))).isTrue();
            assertThat(fleet.problem()).isNull();
            assertThat(told).containsExactly(List.of(A1), List.of(A1, A2));
            assertThat(log.at("WARN")).containsExactly(
                    "WARN test:x: read in part, the agents of the part that failed kept as they were (fleet of 1 agents): part B failed",
                    "WARN test:x: keeping the last good fleet of 2 agents: no agents",
                    "WARN test:x: read in part, the agents of the part that failed kept as they were (fleet of 2 agents): part B failed");
            assertThat(log.at("INFO")).containsExactly(
                    "INFO test:x: fleet of 1 agents: [A1]",
                    "INFO test:x: fleet of 2 agents: added [A2]",
                    "INFO test:x: read again without problem, fleet unchanged (2 agents)");
        }
    }

    /** A part failing, then the whole read failing for the same reason: the fleet is kept now, which is said. */
    @Test
    void aWholeReadFailingAfterAPartFailedForTheSameReasonIsSaid() {
        try (CapturedLog log = new CapturedLog(LastGoodFleetTest.class)) {
            LastGoodFleet fleet = new LastGoodFleet("test:x", told::add, LastGoodFleetTest.class);
            fleet.first(List.of(A1), "A query failed");
            fleet.reject("A query failed");
            fleet.reject("A query failed");
            assertThat(fleet.offer(List.of(A1), "A query failed")).isTrue();
            assertThat(log.at("WARN")).containsExactly(
                    "WARN test:x: read in part, the agents of the part that failed kept as they were (fleet of 1 agents): A query failed",
                    "WARN test:x: keeping the last good fleet of 1 agents: A query failed",
                    "WARN test:x: read in part, the agents of the part that failed kept as they were (fleet of 1 agents): A query failed");
        }
    }

    @Test
    void aListenerThatThrowsKeepsTheLastFleet() {
        LastGoodFleet fleet = new LastGoodFleet("test:x", agents -> {
            if (agents.size() > 1) {
                throw new IllegalStateException("boom");
            }
        }, LastGoodFleetTest.class);
        fleet.first(List.of(A1));
        assertThat(fleet.offer(List.of(A1, A2))).isFalse();
        assertThat(fleet.problem()).isEqualTo("listener failed: java.lang.IllegalStateException: boom");
        assertThat(fleet.fleet()).containsExactly(A1);
        assertThatThrownBy(() -> new LastGoodFleet("test:y", agents -> { }, LastGoodFleetTest.class).first(List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("test:y: no agents");
    }
}
