package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When an exchange may fail over: outcome, method, count and deadline, at their boundaries. */
class FailoverPolicyTest {

    private static final long MS = 1_000_000L;

    @Test
    void theDefaultTriesEveryAgentOnceWithoutDeadlineForRfc9110sIdempotentMethods() {
        assertThat(FailoverPolicy.DEFAULT.maximumFailoverAttempts()).isEqualTo(-1);
        assertThat(FailoverPolicy.DEFAULT.deadline()).isEqualTo(Duration.ZERO);
        assertThat(FailoverPolicy.DEFAULT.idempotentMethods())
                .containsExactlyInAnyOrder("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");
        assertThat(FailoverPolicy.DEFAULT.allowsAnother(1_000, Long.MAX_VALUE)).isTrue();
    }

    @Test
    void eachOutcomeFailsOverOnlyWhereTheRequestCannotHaveBeenHandledTwice() {
        FailoverPolicy policy = FailoverPolicy.DEFAULT;
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_BEFORE_SEND, "POST")).isTrue();
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_BEFORE_SEND, null)).isTrue();
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, "GET")).isTrue();
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, "get")).as("methods compare upper case").isTrue();
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, "POST")).isFalse();
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, null)).isFalse();
        assertThat(policy.mayFailOver(AttemptOutcome.EXCEPTION_ANSWER, "GET")).isFalse();
        assertThat(policy.mayFailOver(AttemptOutcome.SUCCESS, "GET")).isFalse();
    }

    @Test
    void maximumFailoverAttemptsCountsFailoversAfterTheFirstAttempt() {
        FailoverPolicy two = FailoverPolicy.DEFAULT.withMaximumFailoverAttempts(2);
        assertThat(two.maximumFailoverAttempts()).isEqualTo(2);
        assertThat(two.allowsAnother(0, 0)).isTrue();
        assertThat(two.allowsAnother(1, 0)).isTrue();
        assertThat(two.allowsAnother(2, 0)).isFalse();
        FailoverPolicy never = FailoverPolicy.DEFAULT.withMaximumFailoverAttempts(0);
        assertThat(never.allowsAnother(0, 0)).isFalse();
    }

    @Test
    void noFailoverStartsAtOrAfterTheDeadline() {
        FailoverPolicy policy = FailoverPolicy.DEFAULT.withDeadline(Duration.ofMillis(100));
        assertThat(policy.deadline()).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.allowsAnother(0, 100 * MS - 1)).isTrue();
        assertThat(policy.allowsAnother(0, 100 * MS)).isFalse();
        assertThat(policy.allowsAnother(5, 0)).as("-1 kept: no count limit").isTrue();
        assertThat(policy.withMaximumFailoverAttempts(1).allowsAnother(1, 0)).isFalse();
    }

    @Test
    void methodsAreTrimmedAndUpperCased() {
        FailoverPolicy policy = FailoverPolicy.DEFAULT.withIdempotentMethods(Set.of(" post ", "Patch"));
        assertThat(policy.idempotentMethods()).containsExactlyInAnyOrder("POST", "PATCH");
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, "patch")).isTrue();
        assertThat(policy.mayFailOver(AttemptOutcome.FAILED_AFTER_SEND, "GET")).isFalse();
        assertThat(policy.deadline()).isEqualTo(Duration.ZERO);
        assertThat(policy.maximumFailoverAttempts()).isEqualTo(-1);
    }

    @Test
    void badValuesAreRejectedNamingFieldAndValue() {
        assertThatThrownBy(() -> new FailoverPolicy(-2, Duration.ZERO, Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maximumFailoverAttempts must be >= -1, was -2");
        assertThat(new FailoverPolicy(-1, Duration.ZERO, Set.of()).idempotentMethods()).isEmpty();
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withDeadline(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("failoverDeadline must be >= 0, was PT-0.001S");
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withDeadline(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("failoverDeadline must be >= 0, was null");
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withIdempotentMethods(Set.of("GET", " ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("idempotentMethods must not contain a blank method, was ");
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withIdempotentMethods(new HashSet<>(Arrays.asList("GET", null))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("idempotentMethods must not contain a blank method, was ");
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withIdempotentMethods(null))
                .isInstanceOf(NullPointerException.class).hasMessage("idempotentMethods");
        // An HTTP method is a token (RFC 9110 §9.1): no space, no separator.
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withIdempotentMethods(Set.of("GET", "FOO BAR")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idempotentMethods must be HTTP method tokens, was 'FOO BAR'");
        assertThatThrownBy(() -> FailoverPolicy.DEFAULT.withIdempotentMethods(Set.of("GET;")))
                .hasMessage("idempotentMethods must be HTTP method tokens, was 'GET;'");
        assertThat(FailoverPolicy.DEFAULT.withIdempotentMethods(Set.of(" get ", "M-SEARCH")).idempotentMethods())
                .containsExactlyInAnyOrder("GET", "M-SEARCH");
    }

    @Test
    void methodsGivenAsTextAreRefusedNamingTheTextAsGiven() {
        RoundRobinLB rr = new RoundRobinLB();
        assertThatThrownBy(() -> rr.setIdempotentMethods("x,,y")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idempotentMethods must not contain a blank method, was 'x,,y'");
        assertThatThrownBy(() -> rr.setIdempotentMethods("GET,")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idempotentMethods must not contain a blank method, was 'GET,'");
        assertThatThrownBy(() -> rr.setIdempotentMethods("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idempotentMethods must not contain a blank method, was ''");
        assertThatThrownBy(() -> rr.setIdempotentMethods("GET,FOO BAR")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idempotentMethods must be HTTP method tokens, was 'GET,FOO BAR'");
        rr.setIdempotentMethods(" get ,put");
        assertThat(rr.getIdempotentMethods()).containsExactlyInAnyOrder("GET", "PUT");
    }
}
