package io.github.agentlb.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.github.agentlb.camel.AgentKeys;
import io.github.agentlb.core.session.SessionIds;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a request's key and session cost before the balancer decides: the prompt key of a large
 * chat body through the key chain {@code session,prompt,user_id} ({@link AgentKeys#parse}, the
 * demo's {@code KEYS}), and sealing and unsealing a learned session's id ({@link SessionIds}).
 *
 * <p>The body: an OpenAI chat request of {@value #BODY_BYTES} bytes (about 100k tokens), written
 * by Jackson. {@code layout=history}: a 2 KB system prompt, the first user turn, then turns
 * until the size is reached (an agent's long conversation: the key needs the first few KB);
 * {@code layout=system}: one system message of nearly the whole size before the first user turn
 * (the key needs the whole body). {@code body=bytes}: a {@code byte[]}; {@code body=bytebuf}: a
 * pooled direct Netty buffer, as the demo proxy hands its consumer's aggregated body to the key
 * (Camel's converters make it a {@code byte[]}). The exchange carries no session header, so the
 * chain reads the prompt; its {@code user_id} is never reached.
 *
 * <p>Sessions: an agent named {@code http://agent-7:8080} and a UUID session id (MCP servers mint
 * such), a 32-byte secret. {@code seal} is {@link SessionIds#encode}, {@code unseal}
 * {@link SessionIds#decode} of a sealed id.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RequestKeyBenchmark {

    /** Size of the chat body: 400 KB. */
    static final int BODY_BYTES = 400 * 1024;

    @Param({"history", "system"})
    public String layout;

    @Param({"bytes", "bytebuf"})
    public String body;

    private CamelContext context;
    private Expression keys;
    private byte[] bodyBytes;
    private ByteBuf bodyBuf;
    private SessionIds ids;
    private String agentSessionId;
    private String sealed;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        context = new DefaultCamelContext();
        context.start();
        keys = AgentKeys.parse("session,prompt,user_id");
        keys.init(context);
        bodyBytes = chatBody(layout);
        bodyBuf = PooledByteBufAllocator.DEFAULT.directBuffer(bodyBytes.length);
        bodyBuf.writeBytes(bodyBytes);
        ids = new SessionIds("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
        agentSessionId = UUID.nameUUIDFromBytes("session".getBytes(StandardCharsets.UTF_8)).toString();
        sealed = ids.encode("http://agent-7:8080", agentSessionId);
        String key = promptKey();
        if (key == null || !key.startsWith(AgentKeys.PROMPT)) {
            throw new IllegalStateException("the " + layout + " body gave no prompt key: " + key);
        }
        if (ids.decode(sealed) == null) {
            throw new IllegalStateException("a sealed id did not unseal: " + sealed);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        bodyBuf.release();
        context.close();
    }

    /** The key chain on a new exchange whose body is the 400 KB request, as the balancer evaluates it. */
    @Benchmark
    public String promptKey() {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("user_id", "42");
        exchange.getMessage().setBody("bytes".equals(body) ? bodyBytes : bodyBuf.duplicate());
        return keys.evaluate(exchange, String.class);
    }

    /** A learned session's id sealed with its agent's name, as the answer's head goes to the client. */
    @Benchmark
    public String seal() {
        return ids.encode("http://agent-7:8080", agentSessionId);
    }

    /** A client's sealed id read back, as its next request is routed. */
    @Benchmark
    public SessionIds.Sealed unseal() {
        return ids.decode(sealed);
    }

    /** An OpenAI chat request of about {@value #BODY_BYTES} bytes in the given layout. */
    static byte[] chatBody(String layout) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(BODY_BYTES + 4096);
        String words = "The agent reads the repository, runs the tests and reports what failed and why. ";
        try (JsonGenerator json = new JsonFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("model", "agent-large");
            json.writeBooleanField("stream", true);
            json.writeArrayFieldStart("messages");
            if ("system".equals(layout)) {
                message(json, "system", words.repeat(BODY_BYTES / words.length()));
                message(json, "user", "Fix the failing test in the module named above.");
            } else if ("history".equals(layout)) {
                message(json, "system", words.repeat(2048 / words.length()));
                message(json, "user", "Fix the failing test in the module named above.");
                for (int turn = 0; out.size() < BODY_BYTES; turn++) {
                    json.flush();
                    message(json, turn % 2 == 0 ? "assistant" : "user", words.repeat(4096 / words.length()));
                }
            } else {
                throw new IllegalArgumentException("layout must be history or system, was " + layout);
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void message(JsonGenerator json, String role, String content) throws IOException {
        json.writeStartObject();
        json.writeStringField("role", role);
        json.writeStringField("content", content);
        json.writeEndObject();
    }
}
