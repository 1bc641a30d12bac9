package io.github.agentlb.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NameListTest {

    private static List<String> names(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(i -> "A" + i).toList();
    }

    @Test
    void upToTwentyNamesAreAllListed() {
        assertThat(NameList.of(List.of())).isEqualTo("[]");
        assertThat(NameList.of(List.of("A1", "A2"))).isEqualTo("[A1, A2]");
        assertThat(NameList.of(names(20))).isEqualTo(names(20).toString());
    }

    @Test
    void moreThanTwentyAreTheFirstTwentyAndACount() {
        assertThat(NameList.of(names(21))).isEqualTo(names(20).toString().replace("]", ", and 1 more]"));
        assertThat(NameList.of(names(300)))
                .isEqualTo("[A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, A18, A19, A20,"
                        + " and 280 more]");
    }
}
