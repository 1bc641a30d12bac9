package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.agentlb.loadgen.scenario.JobScenario;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentsJobTest {

    @Test
    void foundByTheServiceLoaderAndRunInTheMainJob() {
        JobScenario agents = JobScenario.installed().stream().filter(j -> j.label().equals(AgentsJob.LABEL))
                .findFirst().orElseThrow();
        assertTrue(agents.inMainJob());
    }

    @Test
    void variantsHaveDistinctLabelsAndOneReplicatedRun() {
        List<AgentsVariant> variants = AgentsVariant.standard();
        assertEquals(variants.size(), variants.stream().map(AgentsVariant::label).distinct().count());
        assertEquals(List.of("rr", "lr", "ch", "keys", "keys-bounded", "keys-inflight", "keys-inflight-kept", "keys-inflight-kept x2"),
                variants.stream().map(AgentsVariant::label).toList());
        assertEquals(1, variants.stream().filter(v -> v.replicas() > 1).count());
        assertTrue(variants.stream().anyMatch(v -> v.label().equals(AgentsVariant.CHECKED) && v.bounded()));
    }
}
