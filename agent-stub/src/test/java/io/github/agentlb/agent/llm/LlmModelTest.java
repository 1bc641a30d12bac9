package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The LLM server model: time to first token from cached blocks, running limit, FIFO queue, refusals, counters. */
class LlmModelTest {

    private static final long BASE_NANOS = 200_000_000L;

    private final List<String> admittedOrder = new ArrayList<>();
    private final List<LlmModel.Admission> admissions = new ArrayList<>();

    private LlmModel.Ticket offer(LlmModel model, String name, String prompt) {
        return model.offer(model.blocksOf(prompt), a -> {
            admittedOrder.add(name);
            admissions.add(a);
        });
    }

    @Test
    void firstTokenIsBasePlusTheCostOfEachUncachedBlock() {
        LlmModel model = new LlmModel(LlmShape.custom().blockChars(4).cacheBlocks(100).uncachedBlockMs(2.5).build(),
                BASE_NANOS);

        model.finish(offer(model, "t1", "aaaabbbbcc"));
        model.finish(offer(model, "t2", "aaaabbbbccccdddd"));

        assertThat(admissions).containsExactly(new LlmModel.Admission(2, 0, 205_000_000L),
                new LlmModel.Admission(4, 2, 205_000_000L));
        LlmModel.Counters counters = model.counters();
        assertThat(counters.promptBlocks()).isEqualTo(6);
        assertThat(counters.cachedBlocks()).isEqualTo(2);
        assertThat(counters.cacheHitRate()).isEqualTo(2.0 / 6);
        assertThat(counters.firstTokenNanosTotal()).isEqualTo(410_000_000L);
        assertThat(model.lastAdmission()).isEqualTo(admissions.get(1));
        // Four blocks cached, none held by a running request: free, as vLLM counts them (it said 0.04).
        assertThat(model.load()).isEqualTo(new LlmModel.Load(0, 0, 0));
    }

    /**
     * The KV cache in use is what running requests hold, each block once (vLLM's block pool: a
     * cached block no request holds is free, evictable), not what the cache keeps: a stub whose
     * cache had filled said 1.0 at rest, and a balancer's saturation gate passed it over for good.
     */
    @Test
    void theKvCacheInUseIsTheBlocksRunningRequestsHoldEachOnce() {
        LlmModel model = new LlmModel(LlmShape.custom().blockChars(4).cacheBlocks(10).build(), 0);

        LlmModel.Ticket a = offer(model, "a", "aaaabbbbcccc");
        LlmModel.Ticket b = offer(model, "b", "aaaabbbbdddd");
        assertThat(model.load().kvCacheUsagePerc()).as("aaaa and bbbb once, cccc, dddd").isEqualTo(0.4);
        model.finish(a);
        assertThat(model.load().kvCacheUsagePerc()).isEqualTo(0.3);
        model.finish(b);
        model.finish(offer(model, "c", "eeeeffffgggghhhhiiiijjjjkkkk"));
        assertThat(model.load().kvCacheUsagePerc()).as("a full cache at rest").isZero();
    }

    @Test
    void theAgentSideTimeToFirstTokenCountsTheQueueWait() {
        long[] now = {0};
        LlmModel model = new LlmModel(LlmShape.custom().blockChars(4).uncachedBlockMs(1).maxRunning(1).build(),
                BASE_NANOS, () -> now[0]);

        LlmModel.Ticket a = offer(model, "a", "aaaa");
        now[0] = 5_000_000L;
        LlmModel.Ticket b = offer(model, "b", "bbbbcccc");
        now[0] = 12_000_000L;
        model.finish(a);
        model.finish(b);

        // a: no wait, 200 + 1 ms; b: waited 7 ms, then 200 + 2 ms
        assertThat(model.agentFirstTokenNanos()).containsExactly(201_000_000L, 209_000_000L);
        assertThat(model.counters().queueNanosTotal()).isEqualTo(7_000_000L);
        assertThat(model.counters().firstTokenNanosTotal()).isEqualTo(403_000_000L);
    }

    @Test
    void withoutACacheEveryBlockCostsAndNothingIsUsed() {
        LlmModel model = new LlmModel(LlmShape.custom().blockChars(4).uncachedBlockMs(1).build(), 0);

        offer(model, "t1", "aaaabbbb");
        offer(model, "t2", "aaaabbbb");

        assertThat(admissions).extracting(LlmModel.Admission::firstTokenNanos).containsExactly(2_000_000L, 2_000_000L);
        assertThat(model.counters().cacheHitRate()).isZero();
        assertThat(model.load()).isEqualTo(new LlmModel.Load(0, 0, 2));
        assertThat(model.counters().maxRunning()).isEqualTo(2);
    }

    @Test
    void beyondTheRunningLimitRequestsWaitInArrivalOrderAndBeyondTheQueueAreRefused() {
        LlmModel model = new LlmModel(LlmShape.custom().maxRunning(1).maxQueue(2).build(), BASE_NANOS);

        LlmModel.Ticket a = offer(model, "a", "");
        LlmModel.Ticket b = offer(model, "b", "");
        LlmModel.Ticket c = offer(model, "c", "");
        LlmModel.Ticket d = offer(model, "d", "");

        assertThat(admittedOrder).containsExactly("a");
        assertThat(d).isNull();
        assertThat(model.counters().refused()).isEqualTo(1);
        assertThat(model.load()).isEqualTo(new LlmModel.Load(0, 2, 1));
        model.finish(a);
        assertThat(admittedOrder).containsExactly("a", "b");
        model.finish(b);
        model.finish(c);
        assertThat(admittedOrder).containsExactly("a", "b", "c");
        assertThat(model.load()).isEqualTo(new LlmModel.Load(0, 0, 0));
        LlmModel.Counters counters = model.counters();
        assertThat(counters.maxWaiting()).isEqualTo(2);
        assertThat(counters.maxRunning()).isEqualTo(1);
        assertThat(counters.admitted()).isEqualTo(3);
    }

    @Test
    void aWaitingRequestThatLeavesIsNeverAdmittedAndFinishIsIdempotent() {
        LlmModel model = new LlmModel(LlmShape.custom().maxRunning(1).maxQueue(0).build(), BASE_NANOS);
        LlmModel.Ticket a = offer(model, "a", "");
        assertThat(offer(model, "refused", "")).isNull();

        LlmModel limited = new LlmModel(LlmShape.custom().maxRunning(1).maxQueue(5).build(), BASE_NANOS);
        LlmModel.Ticket x = offer(limited, "x", "");
        LlmModel.Ticket y = offer(limited, "y", "");
        offer(limited, "z", "");
        limited.finish(y);
        limited.finish(y);
        limited.finish(x);
        limited.finish(x);
        limited.finish(null);

        assertThat(admittedOrder).containsExactly("a", "x", "z");
        assertThat(limited.load()).isEqualTo(new LlmModel.Load(0, 0, 1));
        model.finish(a);
        assertThat(model.running()).isZero();
    }

    @Test
    void aNegativeBaseIsRefused() {
        assertThatThrownBy(() -> new LlmModel(LlmShape.DISABLED, -1))
                .hasMessage("baseFirstTokenNanos must be >= 0, was -1");
    }
}
