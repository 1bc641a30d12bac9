package io.github.agentlb.camel;

import io.github.agentlb.core.session.A2aTasks;
import io.github.agentlb.core.session.SessionIds;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A2A task affinity, part of learned sessions ({@link io.github.agentlb.core.session.LearnedSessions#a2aTasks()}):
 * the task ids in an agent's JSON-RPC answer are sealed with the agent's name as session ids are
 * ({@link SessionIds}, the same secret), and a request about a task ({@link A2aTasks#call}) goes to
 * the agent sealed in its id, with that agent's own id in the body. Bodies are read up to
 * {@value #MAX_BODY_BYTES} bytes; of a longer one (or one held only in part) the method is read from
 * its first {@value #LEADING_BYTES} bytes so that its answer is sealed, and it goes to the strategy's
 * pick, unless it is about a task (a task call, or a message with a {@code taskId} in its first
 * {@value #MAX_BODY_BYTES} bytes): a 413, as no other agent may take it. A body held whole that is no
 * JSON object goes as it came to the strategy's pick, whose agent answers it. Immutable and thread-safe.
 */
final class A2aTaskAffinity {

    /** The largest request or answer body read for task ids, bytes. */
    static final int MAX_BODY_BYTES = 1 << 20;
    /** Exchange property set on an A2A request: its method (the answer's ids are sealed). */
    static final String METHOD_PROPERTY = "agentlb.a2aMethod";
    /** The first bytes of a longer body read for its method only. */
    static final int LEADING_BYTES = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(A2aTaskAffinity.class);

    private final SessionIds ids;

    A2aTaskAffinity(SessionIds ids) {
        this.ids = ids;
    }

    /**
     * Where an A2A request's task takes it.
     *
     * @return null when the exchange is no A2A request about a task (the strategy decides); else a
     *     pin to the task's agent with the body that agent is sent
     * @throws SessionRejectedException 400 for a task id this balancer did not seal, 404 when the
     *     task's agent left (a task cannot move to another agent), 413 for a call about a task too
     *     long to read whole
     */
    SessionAffinity.Pin pin(Exchange exchange, BalancerState state) throws SessionRejectedException {
        byte[] body = body(exchange.getIn());
        if (body == null) {
            return null;
        }
        A2aTasks.Call call = body.length <= MAX_BODY_BYTES ? A2aTasks.call(body) : null;
        if (call == null && body.length <= MAX_BODY_BYTES && !heldInPart(exchange, body)) {
            return null; // read whole: no call about a task (another method, or no JSON object: its agent answers that)
        }
        if (call == null) {
            // Too long to read whole, or only its first part held: the method from its first bytes,
            // so that the answer's task ids are sealed; its own task id is not read (the strategy picks).
            String method = A2aTasks.leadingMethod(body, LEADING_BYTES);
            if (method != null && (A2aTasks.TASK_METHODS.contains(method)
                    || A2aTasks.leadingTaskId(body, MAX_BODY_BYTES))) {
                // About a task, too long to route by it: only the task's agent may take it, no other for a new task.
                throw new SessionRejectedException("This " + method + " is about a task and longer than the " + MAX_BODY_BYTES
                        + " bytes the balancer reads whole to send it to the task's agent: send large content in the"
                        + " message that starts a task, or by reference", exchange, 413, "task call too long");
            }
            if (method != null) {
                exchange.setProperty(METHOD_PROPERTY, method);
            }
            return null;
        }
        exchange.setProperty(METHOD_PROPERTY, call.method());
        if (call.taskId() == null) {
            return null;
        }
        SessionIds.Sealed sealed = call.taskId().isEmpty() ? null : ids.decode(call.taskId());
        if (sealed == null) {
            LOG.debug("Rejected A2A {} task id {}: not a task id of this balancer", call.method(),
                    DecisionLog.loggable(call.taskId()));
            // An empty id is also what an ambiguous body gives (A2aTasks.call): name those causes too.
            throw new SessionRejectedException("The task id of this " + call.method() + " is not a task id this"
                    + " balancer gave: damaged, forged or made with another secret" + (call.taskId().isEmpty()
                    ? "; or none could be read: empty or not a string, \"method\" twice, or more after the JSON object" : ""),
                    exchange, 400, "bad task id");
        }
        if (!state.members().contains(sealed.agent())) {
            throw new SessionRejectedException("The agent holding this task has left ("
                    + DecisionLog.loggable(sealed.agent()) + "): the task is gone", exchange, 404, "task not found");
        }
        return new SessionAffinity.Pin(sealed.agent(), null, A2aTasks.withTaskId(body, sealed.agentSessionId()));
    }

    /**
     * Whether {@code body} may be only the first part of the request's body: its {@code Content-Length}
     * is longer, or, without one, it ends inside its JSON object ({@link A2aTasks#cutShort}).
     */
    static boolean heldInPart(Exchange exchange, byte[] body) {
        Object declared = exchange.getIn().getHeader(Exchange.CONTENT_LENGTH);
        if (declared == null) {
            return A2aTasks.cutShort(body);
        }
        try {
            return Long.parseLong(declared.toString().strip()) > body.length;
        } catch (NumberFormatException e) {
            return A2aTasks.cutShort(body);
        }
    }

    /** Seals {@code agent} into the task ids of the answer to an A2A request, if it is one. */
    void sealAnswer(String agent, Message answer) {
        if (answer.getExchange().getProperty(METHOD_PROPERTY) == null) {
            return;
        }
        byte[] body = body(answer);
        if (body != null && body.length <= MAX_BODY_BYTES) {
            byte[] sealed = sealed(agent, body);
            if (sealed != body) {
                answer.setBody(sealed);
                answer.removeHeader(Exchange.CONTENT_LENGTH);
            }
        }
    }

    /** {@code body} with {@code agent} sealed into its task ids, those already sealed left as they are. */
    byte[] sealed(String agent, byte[] body) {
        return A2aTasks.sealAnswer(body, id -> ids.decode(id) == null ? ids.encode(agent, id) : id);
    }

    /** The message's body as bytes (set back as bytes, so a stream is read once), or null when absent. */
    static byte[] body(Message message) {
        Object raw = message.getBody();
        if (raw == null) {
            return null;
        }
        byte[] body = raw instanceof byte[] bytes ? bytes : message.getBody(byte[].class);
        if (body == null) {
            return null;
        }
        if (body != raw) {
            message.setBody(body);
        }
        return body;
    }
}
