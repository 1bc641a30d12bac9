package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Processor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.SendProcessor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Agent ids from endpoints, names and processor ids; one snapshot published per accepted change. */
class MembershipTest {

    private static final CamelContext CONTEXT = new DefaultCamelContext();

    private final Membership membership = new Membership();
    private final List<List<String>> changes = new ArrayList<>();

    @AfterAll
    static void closeContext() throws Exception {
        CONTEXT.close();
    }

    private static AsyncProcessor to(String uri) {
        return new SendProcessor(CONTEXT.getEndpoint(uri));
    }

    private Membership.Members current = new Membership.Members(List.of(), java.util.Map.of());

    private List<String> refresh(AsyncProcessor... processors) {
        current = membership.compute(processors);
        changes.add(current.ids());
        return current.ids();
    }

    @Test
    void idsAreEndpointUrisWithoutOptionsElseProcessorIdsElseText() {
        AsyncProcessor a = to("direct:a?timeout=4321");
        AsyncProcessor withId = ScriptedChild.ok("p1", "ignored");
        AsyncProcessor withoutId = ScriptedChild.ok(null, "plain-processor");
        assertThat(refresh(a, withId, withoutId)).containsExactly("direct://a", "p1", "plain-processor");
        assertThat(current.byId()).containsEntry("direct://a", a).containsEntry("p1", withId)
                .containsEntry("plain-processor", withoutId);
        assertThat(Membership.defaultId(a)).isEqualTo("direct://a");
        assertThat(Membership.defaultId(withId)).isEqualTo("p1");
        assertThat(Membership.defaultId(withoutId)).isEqualTo("plain-processor");
        assertThat(Membership.routeIdOf(a)).as("not a route's channel").isNull();
    }

    @Test
    void twoChildrenWithOneIdAreRejected() {
        refresh(to("direct:a"));
        assertThatThrownBy(() -> refresh(to("direct:a?timeout=1"), to("direct:a?timeout=2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent ids must be distinct, direct://a appears twice"
                        + " (endpoints that differ only in their options need names: nameAgent(uri, name))");
        assertThat(changes).containsExactly(List.of("direct://a"));
    }

    @Test
    void aNameIsFoundByTheUriAsWrittenNormalizedOrWithoutOptions() {
        AsyncProcessor[] children = {to("direct:a?timeout=4321"), to("direct:b?timeout=1"), to("direct:c")};
        assertThat(membership.name("direct:a?timeout=4321", "A1")).isNull();
        membership.name("direct://b?timeout=1", "A2");
        membership.name("direct://c", "A3");
        assertThat(refresh(children)).containsExactly("A1", "A2", "A3");
        assertThat(Membership.defaultId(children[0])).as("the default id ignores names").isEqualTo("direct://a");
    }

    @Test
    void aNameCanBeTakenBackAndAnEarlierNameRestored() {
        AsyncProcessor[] children = {to("direct:a"), to("direct:b")};
        membership.name("direct:b", "B");
        String previous = membership.name("direct:a", "B");
        assertThatThrownBy(() -> refresh(children)).hasMessageStartingWith("agent ids must be distinct, B appears twice");
        membership.restoreName("direct:a", previous);
        assertThat(refresh(children)).as("the new name taken back").containsExactly("direct://a", "B");

        membership.name("direct:a", "A");
        previous = membership.name("direct:a", "B");
        assertThat(previous).isEqualTo("A");
        membership.restoreName("direct:a", previous);
        assertThat(refresh(children)).as("the earlier name restored").containsExactly("A", "B");
    }

    @Test
    void aRuntimeChildIsNamedByIdentity() {
        AsyncProcessor plain = ScriptedChild.ok(null, "text");
        membership.nameChild(plain, "R1");
        assertThat(refresh(plain, to("direct:a"))).containsExactly("R1", "direct://a");
        membership.forgetChild(plain);
        assertThat(refresh(plain)).containsExactly("text");
    }

    @Test
    void theIdOfAUriThatIsOnlyAQueryIsEmpty() {
        assertThat(Membership.withoutOptions("?token=abc")).isEmpty();
        assertThat(Membership.withoutOptions("a?")).isEqualTo("a");
    }

    @Test
    void aRoutesChildNamesItsRoute() throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        try (CamelContext routes = CamelContexts.started(rb -> {
            rb.from("direct:in").routeId("proxy").loadBalance(balancer).to("direct:a");
        })) {
            Processor child = balancer.getProcessors().get(0);
            assertThat(Membership.routeIdOf(child)).isEqualTo("proxy");
            assertThat(Membership.defaultId(child)).as("through the route's channel").isEqualTo("direct://a");
        }
    }

    @Test
    void blankUrisAndNamesAreRejected() {
        assertThatThrownBy(() -> membership.name(" ", "A1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("endpointUri must");
        assertThatThrownBy(() -> membership.name("direct:a", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("agentId must");
        assertThat(changes).isEmpty();
    }
}
