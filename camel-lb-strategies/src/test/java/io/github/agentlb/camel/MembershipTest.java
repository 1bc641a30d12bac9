package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.SendProcessor;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.AsyncProcessorSupport;
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

    /** A child without an endpoint, with a processor id (or null) and a {@code toString()}. */
    private static AsyncProcessor plain(String id, String text) {
        class Plain extends AsyncProcessorSupport implements IdAware {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                callback.done(true);
                return true;
            }

            @Override
            public String getId() {
                return id;
            }

            @Override
            public void setId(String ignored) {
            }

            @Override
            public String toString() {
                return text;
            }
        }
        return new Plain();
    }

    private List<String> refresh(AsyncProcessor... processors) {
        membership.refresh(processors, changes::add);
        return membership.current().ids();
    }

    @Test
    void idsAreEndpointUrisWithoutOptionsElseProcessorIdsElseText() {
        AsyncProcessor a = to("direct:a?timeout=4321");
        AsyncProcessor withId = plain("p1", "ignored");
        AsyncProcessor withoutId = plain(null, "plain-processor");
        assertThat(membership.current().ids()).isEmpty();
        assertThat(refresh(a, withId, withoutId)).containsExactly("direct://a", "p1", "plain-processor");
        assertThat(membership.current().byId()).containsEntry("direct://a", a).containsEntry("p1", withId)
                .containsEntry("plain-processor", withoutId);
        assertThat(changes).containsExactly(List.of("direct://a", "p1", "plain-processor"));
        assertThat(Membership.defaultId(a)).isEqualTo("direct://a");
        assertThat(Membership.defaultId(withId)).isEqualTo("p1");
        assertThat(Membership.defaultId(withoutId)).isEqualTo("plain-processor");
        assertThat(Membership.routeIdOf(a)).as("not a route's channel").isNull();
    }

    @Test
    void theChangeIsHandedOverBeforeItIsPublishedAndARejectedOneIsNotPublished() {
        refresh(to("direct:a"));
        List<String> seenWhileChanging = new ArrayList<>();
        membership.refresh(new AsyncProcessor[] {to("direct:a"), to("direct:b")},
                ids -> seenWhileChanging.addAll(membership.current().ids()));
        assertThat(seenWhileChanging).containsExactly("direct://a");
        assertThat(membership.current().ids()).containsExactly("direct://a", "direct://b");

        assertThatThrownBy(() -> membership.refresh(new AsyncProcessor[] {to("direct:c")}, ids -> {
            throw new IllegalArgumentException("strategy rejects " + ids);
        })).hasMessage("strategy rejects [direct://c]");
        assertThat(membership.current().ids()).containsExactly("direct://a", "direct://b");
    }

    @Test
    void twoChildrenWithOneIdAreRejectedBeforeTheStrategyHearsOfThem() {
        refresh(to("direct:a"));
        assertThatThrownBy(() -> refresh(to("direct:a?timeout=1"), to("direct:a?timeout=2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent ids must be distinct, direct://a appears twice"
                        + " (endpoints that differ only in their options need names: nameAgent(uri, name))");
        assertThat(changes).containsExactly(List.of("direct://a"));
        assertThat(membership.current().ids()).containsExactly("direct://a");
    }

    @Test
    void aNameIsFoundByTheUriAsWrittenNormalizedOrWithoutOptions() {
        AsyncProcessor[] children = {to("direct:a?timeout=4321"), to("direct:b?timeout=1"), to("direct:c")};
        membership.name("direct:a?timeout=4321", "A1", children, changes::add);
        membership.name("direct://b?timeout=1", "A2", children, changes::add);
        membership.name("direct://c", "A3", children, changes::add);
        assertThat(membership.current().ids()).containsExactly("A1", "A2", "A3");
        assertThat(changes.get(0)).containsExactly("A1", "direct://b", "direct://c");
        assertThat(Membership.defaultId(children[0])).as("the default id ignores names").isEqualTo("direct://a");
    }

    @Test
    void aRejectedNameIsTakenBackAndAnEarlierNameRestored() {
        AsyncProcessor[] children = {to("direct:a"), to("direct:b")};
        membership.name("direct:b", "B", children, changes::add);
        assertThatThrownBy(() -> membership.name("direct:a", "B", children, changes::add))
                .hasMessageStartingWith("agent ids must be distinct, B appears twice");
        assertThat(refresh(children)).as("the new name taken back").containsExactly("direct://a", "B");

        membership.name("direct:a", "A", children, changes::add);
        assertThatThrownBy(() -> membership.name("direct:a", "B", children, changes::add))
                .hasMessageStartingWith("agent ids must be distinct, B appears twice");
        assertThat(refresh(children)).as("the earlier name restored").containsExactly("A", "B");
    }

    @Test
    void theIdOfAUriThatIsOnlyAQueryIsEmpty() {
        assertThat(Membership.withoutOptions("?token=abc")).isEmpty();
        assertThat(Membership.withoutOptions("a?")).isEqualTo("a");
    }

    @Test
    void aRoutesChildNamesItsRoute() throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        try (CamelContext routes = new DefaultCamelContext()) {
            routes.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:in").routeId("proxy").loadBalance(balancer).to("direct:a");
                }
            });
            routes.start();
            Processor child = balancer.getProcessors().get(0);
            assertThat(Membership.routeIdOf(child)).isEqualTo("proxy");
            assertThat(Membership.defaultId(child)).as("through the route's channel").isEqualTo("direct://a");
        }
    }

    @Test
    void blankUrisAndNamesAreRejected() {
        AsyncProcessor[] children = {to("direct:a")};
        assertThatThrownBy(() -> membership.name(" ", "A1", children, changes::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("endpointUri must");
        assertThatThrownBy(() -> membership.name("direct:a", "", children, changes::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("agentId must");
        assertThat(changes).isEmpty();
    }
}
