package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParallelTest {

    @Test
    void theGeneratorsThreadsAreDaemonsWithTheirName() {
        Thread t = Parallel.daemon("loadgen-test").newThread(() -> { });

        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getName()).isEqualTo("loadgen-test");
    }

    @Test
    void eachRunsEveryItemInOrderOfTheListAndRethrowsTheFirstFailure() throws Exception {
        assertThat(Parallel.each(List.of(1, 2, 3), true, "loadgen-test", i -> i * 10)).containsExactly(10, 20, 30);
        assertThat(Parallel.each(List.of(1, 2, 3), false, "loadgen-test", i -> i + 1)).containsExactly(2, 3, 4);
        assertThatThrownBy(() -> Parallel.each(List.of(1, 2), true, "loadgen-test", i -> {
            throw new IllegalStateException("item " + i);
        })).isInstanceOf(IllegalStateException.class).hasMessage("item 1");
    }
}
