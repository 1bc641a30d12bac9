package io.github.agentlb.agent;

import io.github.agentlb.agent.http.HttpReplies;
import io.github.agentlb.agent.http.LogText;
import io.github.agentlb.agent.http.StreamedAnswer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.agent.llm.LlmModel;
import io.github.agentlb.agent.llm.OrcaReport;
import io.github.agentlb.agent.llm.PromptText;
import io.github.agentlb.agent.llm.SessionIds;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/chat/completions} shaped like an LLM's (OpenAI's chat completions format): a
 * JSON request with {@code messages} (and optionally {@code model}, {@code max_tokens} or
 * {@code max_completion_tokens},
 * {@code stream}); the answer comes after {@link ChatShape#firstTokenMs()} and then one token per
 * {@code 1/tokensPerSecond}: one {@code chat.completion} JSON object at the end, or with
 * {@code "stream": true} Server-Sent Events, one {@code chat.completion.chunk} per token as it is
 * produced, then {@code data: [DONE]}. No thread waits: tokens are timer tasks on the
 * connection's event loop. A caller that closes its connection ends the answer at once (counted
 * in {@link #callsCancelled()}, logged at INFO), as a model server frees its slot.
 * A body that is not such a JSON object: 400 JSON.
 *
 * <p>With {@link AgentConfig#llm()} configured, each request goes through the agent's
 * {@link LlmModel}: it waits for a running slot (or gets 429 with {@code Retry-After} and a JSON
 * body when the queue is full), and its first token comes {@link LlmModel.Admission#firstTokenNanos()}
 * after admission, shorter for a prompt whose prefix is cached. A request with
 * {@value OrcaReport#REQUEST_HEADER} gets an {@link OrcaReport} header; with sessions minted, a
 * request without {@value SessionIds#HEADER} gets a new one, a request with an unknown one 404.
 * Thread-safe.
 *
 * <p>Over 300 lines: one answer's life on its event loop (admission, first token, each token, usage, the end or the caller leaving) in one state machine; the LLM server model itself is in {@code io.github.agentlb.agent.llm}.
 */
public final class ChatCompletions extends AsyncProcessorSupport {

    /** The path served. */
    public static final String PATH = "/v1/chat/completions";
    /** Exchange property holding the client connection. */
    static final String CHANNEL = "agentlb.chat.channel";
    /** Exchange property holding the request body bytes. */
    static final String BODY = "agentlb.chat.body";
    /** Exchange property holding whether the client wants the connection kept alive. */
    static final String KEEP_ALIVE = "agentlb.chat.keepAlive";
    /** Exchange property holding the request's {@value OrcaReport#REQUEST_HEADER} value, if any. */
    static final String ORCA_FORMAT = "agentlb.chat.orcaFormat";
    /** Exchange property holding the request's {@value SessionIds#HEADER} value, if any. */
    static final String SESSION_ID = "agentlb.chat.sessionId";

    private static final Logger LOG = LoggerFactory.getLogger(ChatCompletions.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Characters counted as one token in {@code usage}: about what an LLM's tokenizer gives English text. */
    static final int CHARS_PER_TOKEN = 4;

    private final AgentConfig config;
    private final Supplier<LoadSnapshot> load;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final LlmModel llm;
    private final SessionIds sessions;

    ChatCompletions(AgentConfig config, Supplier<LoadSnapshot> load) {
        this.config = config;
        this.load = load;
        this.llm = new LlmModel(config.llm(), TimeUnit.MILLISECONDS.toNanos(config.chat().firstTokenMs()));
        this.sessions = config.llm().mintSessions() ? new SessionIds(config.seed()) : null;
    }

    /**
     * The agent's LLM server model, for its counters: prompt blocks and cached blocks (cache hit
     * rate), requests running, waiting and refused, the largest queue, the last admission.
     */
    public LlmModel model() {
        return llm;
    }

    /** Answers stopped because the caller left. */
    public long callsCancelled() {
        return cancelled.get();
    }

    /** Answers given to their end. */
    public long callsCompleted() {
        return completed.get();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        JsonNode request;
        try {
            request = JSON.readTree(exchange.getProperty(BODY, byte[].class));
        } catch (IOException e) {
            request = null;
        }
        if (request == null || !request.isObject() || !request.path("messages").isArray()) {
            try {
                HttpReplies.error(exchange, 400, "bad request",
                        Map.of("detail", "expected a JSON object with a \"messages\" array"));
            } catch (Exception e) {
                exchange.setException(e);
            }
            callback.done(true);
            return true;
        }
        String sessionId = exchange.getProperty(SESSION_ID, String.class);
        if (sessions != null && sessionId != null && !sessions.known(sessionId)) {
            try {
                HttpReplies.error(exchange, 404, "not found",
                        Map.of("detail", "agent " + config.agentId() + " has no session " + LogText.escape(sessionId)));
            } catch (Exception e) {
                exchange.setException(e);
            }
            callback.done(true);
            return true;
        }
        ChatShape shape = config.chat();
        // max_completion_tokens: OpenAI's newer name of the limit (what its SDKs' maxCompletionTokens sends).
        String limit = request.has("max_tokens") ? "max_tokens" : request.has("max_completion_tokens") ? "max_completion_tokens" : null;
        int tokens = limit != null
                ? (int) Math.max(1, Math.min(ChatShape.MAX_TOKENS, request.path(limit).asLong(shape.answerTokens())))
                : shape.answerTokens();
        String prompt = PromptText.of(request);
        Answer answer = new Answer(exchange, callback, exchange.getProperty(CHANNEL, Channel.class),
                request.path("model").asText("stub"), tokens, request.path("stream").asBoolean(false),
                llm.blocksOf(prompt), sessionId);
        answer.usage(prompt.length(), request.path("stream_options").path("include_usage").asBoolean(false));
        answer.channel.eventLoop().execute(answer::start);
        return false;
    }

    /** One answer, every step on its connection's event loop. */
    private final class Answer {
        private final Exchange exchange;
        private final AsyncCallback callback;
        private final Channel channel;
        private final String model;
        private final int tokens;
        private final boolean stream;
        private final String id;
        private final long[] blocks;
        private final String sessionId;
        private LlmModel.Ticket ticket;
        private LlmModel.Admission admission;
        private int promptChars;
        private boolean includeUsage;
        private final long created = System.currentTimeMillis() / 1000;
        private final ChannelFutureListener onClose = f -> left();
        private int sent;
        private boolean done;
        private ScheduledFuture<?> next;

        Answer(Exchange exchange, AsyncCallback callback, Channel channel, String model, int tokens, boolean stream,
               long[] blocks, String sessionId) {
            this.exchange = exchange;
            this.callback = callback;
            this.channel = channel;
            this.model = model;
            this.tokens = tokens;
            this.stream = stream;
            this.id = "chatcmpl-" + config.agentId() + "-" + ids.incrementAndGet();
            this.blocks = blocks;
            this.sessionId = sessionId;
        }

        /** The prompt's canonical length, characters, and whether a stream ends with a usage chunk. */
        void usage(int promptChars, boolean includeUsage) {
            this.promptChars = promptChars;
            this.includeUsage = includeUsage;
        }

        /**
         * OpenAI's {@code usage}, counting {@value #CHARS_PER_TOKEN} characters a token: prompt
         * tokens, {@code prompt_tokens_details.cached_tokens} (the cached prefix blocks, as vLLM
         * reports its prefix cache hits) and completion tokens.
         */
        private ObjectNode usageNode() {
            ObjectNode usage = JSON.createObjectNode();
            int cachedChars = admission == null ? 0 : admission.cachedBlocks() * config.llm().blockChars();
            usage.put("prompt_tokens", (promptChars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
            usage.put("completion_tokens", tokens);
            usage.put("total_tokens", (promptChars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN + tokens);
            usage.putObject("prompt_tokens_details").put("cached_tokens", cachedChars / CHARS_PER_TOKEN);
            return usage;
        }

        void start() {
            channel.closeFuture().addListener(onClose);
            if (!channel.isActive()) {
                left();
                return;
            }
            ticket = llm.offer(blocks, admission -> channel.eventLoop().execute(() -> admitted(admission)));
            if (ticket == null) {
                refuse();
            }
        }

        /** The 429 of a full queue, with {@code Retry-After}, as a model server that sheds load. */
        private void refuse() {
            LlmModel.Load now = llm.load();
            try {
                exchange.getMessage().setHeader("Retry-After", Integer.toString(LlmModel.RETRY_AFTER_SECONDS));
                orcaHeader(exchange.getMessage()::setHeader);
                HttpReplies.error(exchange, 429, "too many requests", Map.of("detail", "agent " + config.agentId()
                        + " has " + now.running() + " requests running and " + now.waiting() + " waiting, its limit"));
            } catch (Exception e) {
                exchange.setException(e);
            }
            done = true;
            channel.closeFuture().removeListener(onClose);
            callback.done(false);
        }

        /** Sets the ORCA report through {@code header} when the request asked for one. */
        private void orcaHeader(BiConsumer<String, Object> header) {
            String orca = OrcaReport.header(exchange.getProperty(ORCA_FORMAT, String.class), llm.load());
            if (orca != null) {
                header.accept(OrcaReport.RESPONSE_HEADER, orca);
            }
        }

        /** Sets a newly minted session id through {@code header} when sessions are minted and the request had none. */
        private void sessionHeader(BiConsumer<String, Object> header) {
            if (sessions != null && sessionId == null) {
                header.accept(SessionIds.HEADER, sessions.mint());
            }
        }

        private void admitted(LlmModel.Admission admission) {
            if (done) {
                return;
            }
            this.admission = admission;
            long firstNanos = admission.firstTokenNanos();
            if (stream) {
                next = channel.eventLoop().schedule(this::streamToken, firstNanos, TimeUnit.NANOSECONDS);
            } else {
                long total = firstNanos + (tokens - 1) * config.chat().tokenGapNanos();
                next = channel.eventLoop().schedule(this::whole, total, TimeUnit.NANOSECONDS);
            }
        }

        private void whole() {
            if (done) {
                return;
            }
            ObjectNode body = JSON.createObjectNode();
            body.put("id", id).put("object", "chat.completion").put("created", created).put("model", model);
            ArrayNode choices = body.putArray("choices");
            ObjectNode choice = choices.addObject().put("index", 0);
            choice.putObject("message").put("role", "assistant").put("content", text(0, tokens));
            choice.put("finish_reason", "stop");
            body.set("usage", usageNode());
            try {
                LoadSnapshot.setHeaders(exchange, load.get());
                orcaHeader(exchange.getMessage()::setHeader);
                sessionHeader(exchange.getMessage()::setHeader);
                HttpReplies.json(exchange, 200, body);
            } catch (Exception e) {
                exchange.setException(e);
            }
            end(false);
        }

        private void streamToken() {
            if (done) {
                return;
            }
            if (sent == 0) {
                HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
                head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
                LoadSnapshot now = load.get();
                head.headers().set(LoadSnapshot.HEADER_UTILIZATION, LoadSnapshot.format(now.utilization()));
                head.headers().set(LoadSnapshot.HEADER_CPU, LoadSnapshot.format(now.cpu()));
                head.headers().set(LoadSnapshot.HEADER_MEMORY, LoadSnapshot.format(now.memory()));
                orcaHeader(head.headers()::set);
                sessionHeader(head.headers()::set);
                HttpUtil.setTransferEncodingChunked(head, true);
                if (!Boolean.TRUE.equals(exchange.getProperty(KEEP_ALIVE, Boolean.class))) {
                    head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                }
                channel.write(head);
            }
            sent++;
            ObjectNode chunk = JSON.createObjectNode();
            chunk.put("id", id).put("object", "chat.completion.chunk").put("created", created).put("model", model);
            ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
            choice.putObject("delta").put("content", text(sent - 1, sent));
            if (sent == tokens) {
                choice.put("finish_reason", "stop");
            } else {
                choice.putNull("finish_reason");
            }
            String event = "data: " + chunk + "\n\n";
            if (sent == tokens) {
                if (includeUsage) {
                    ObjectNode last = JSON.createObjectNode();
                    last.put("id", id).put("object", "chat.completion.chunk").put("created", created).put("model", model);
                    last.putArray("choices");
                    last.set("usage", usageNode());
                    event += "data: " + last + "\n\n";
                }
                event += "data: [DONE]\n\n";
            }
            channel.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(event, StandardCharsets.UTF_8)));
            if (sent < tokens) {
                next = channel.eventLoop().schedule(this::streamToken, config.chat().tokenGapNanos(), TimeUnit.NANOSECONDS);
                return;
            }
            channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            exchange.getMessage().setBody(new StreamedAnswer());
            if (!Boolean.TRUE.equals(exchange.getProperty(KEEP_ALIVE, Boolean.class))) {
                // netty-http decides the close from the reply it converts, and a reply that is already
                // a Netty response (ours) is not converted: ask for the close the head announced.
                exchange.getMessage().setHeader(NettyConstants.NETTY_CLOSE_CHANNEL_WHEN_COMPLETE, true);
            }
            end(false);
        }

        private void left() {
            if (done) {
                return;
            }
            cancelled.incrementAndGet();
            LOG.info("Agent {}: the caller of {} left after {} of {} tokens; answer stopped", config.agentId(), id,
                    sent, tokens);
            if (next != null) {
                next.cancel(false);
            }
            exchange.getMessage().setBody(new StreamedAnswer());
            end(true);
        }

        private void end(boolean cancelledCall) {
            done = true;
            llm.finish(ticket);
            channel.closeFuture().removeListener(onClose);
            if (!cancelledCall) {
                completed.incrementAndGet();
            }
            callback.done(false);
        }
    }

    /** The text of tokens {@code from} (inclusive) to {@code to} (exclusive): "tok0 tok1 ...". */
    static String text(int from, int to) {
        StringBuilder out = new StringBuilder();
        for (int i = from; i < to; i++) {
            out.append("tok").append(i).append(' ');
        }
        return out.toString();
    }

}
