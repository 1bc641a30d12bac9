package io.github.agentlb.fleet;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.util.NetUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS responder inside the test JVM, on a loopback UDP port: Netty's DNS codec, answers from
 * a zone the test edits. A name not in the zone gets NXDOMAIN; a name in it gets NOERROR with
 * its records of the type asked (possibly none), unless the test set another code for that name
 * and type ({@link #answerWith}). Shared with the demo's tests (this module's test-jar).
 */
public final class TestDnsServer implements AutoCloseable {

    /** One record's type, TTL in seconds and RDATA. */
    public record Rr(DnsRecordType type, long ttl, byte[] data) {
    }

    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Map<String, List<Rr>> zone = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> queries = new ConcurrentHashMap<>();
    private final Map<String, DnsResponseCode> codes = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> drops = new ConcurrentHashMap<>();
    private final Channel channel;

    public TestDnsServer() throws InterruptedException {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(), new Responder());
                    }
                })
                .bind(new InetSocketAddress(NetUtil.LOCALHOST4, 0)).sync().channel();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Sets the records of {@code name} (empty: the name exists without records). */
    public void set(String name, Rr... records) {
        zone.put(key(name), List.of(records));
    }

    /** Takes {@code name} out of the zone: NXDOMAIN from now on. */
    public void remove(String name) {
        zone.remove(key(name));
    }

    /**
     * Answers the queries of {@code type} for {@code name} with {@code code} and no record from now
     * on, as a server that refuses AAAA queries does; {@code NOERROR}: from the zone again.
     */
    public void answerWith(String name, DnsRecordType type, DnsResponseCode code) {
        if (code.equals(DnsResponseCode.NOERROR)) {
            codes.remove(key(name) + " " + type.name());
        } else {
            codes.put(key(name) + " " + type.name(), code);
        }
    }

    /** Leaves the next {@code count} queries of {@code type} for {@code name} unanswered, as a lost datagram. */
    public void dropNext(String name, DnsRecordType type, int count) {
        drops.put(key(name) + " " + type.name(), new AtomicInteger(count));
    }

    /** @return the queries received for {@code name} and {@code type} */
    public int queries(String name, DnsRecordType type) {
        return queries.getOrDefault(key(name) + " " + type.name(), new AtomicInteger()).get();
    }

    public static Rr a(String address, long ttl) {
        return new Rr(DnsRecordType.A, ttl, NetUtil.createByteArrayFromIpAddressString(address));
    }

    public static Rr aaaa(String address, long ttl) {
        return new Rr(DnsRecordType.AAAA, ttl, NetUtil.createByteArrayFromIpAddressString(address));
    }

    public static Rr srv(int priority, int weight, int port, String target, long ttl) {
        ByteBuf data = Unpooled.buffer();
        data.writeShort(priority).writeShort(weight).writeShort(port);
        for (String label : target.split("\\.")) {
            if (!label.isEmpty()) {
                byte[] bytes = label.getBytes(StandardCharsets.US_ASCII);
                data.writeByte(bytes.length).writeBytes(bytes);
            }
        }
        data.writeByte(0);
        byte[] bytes = new byte[data.readableBytes()];
        data.readBytes(bytes);
        return new Rr(DnsRecordType.SRV, ttl, bytes);
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static String key(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower : lower + ".";
    }

    private final class Responder extends SimpleChannelInboundHandler<DatagramDnsQuery> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
            DnsQuestion question = query.recordAt(DnsSection.QUESTION);
            String name = key(question.name());
            queries.computeIfAbsent(name + " " + question.type().name(), k -> new AtomicInteger()).incrementAndGet();
            AtomicInteger drop = drops.get(name + " " + question.type().name());
            if (drop != null && drop.getAndDecrement() > 0) {
                return;
            }
            DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setRecursionDesired(query.isRecursionDesired()).setRecursionAvailable(true);
            response.addRecord(DnsSection.QUESTION, question);
            List<Rr> records = zone.get(name);
            DnsResponseCode code = codes.get(name + " " + question.type().name());
            if (code != null) {
                response.setCode(code);
            } else if (records == null) {
                response.setCode(DnsResponseCode.NXDOMAIN);
            } else {
                for (Rr record : new ArrayList<>(records)) {
                    if (record.type.equals(question.type())) {
                        response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(
                                question.name(), record.type, record.ttl, Unpooled.wrappedBuffer(record.data)));
                    }
                }
            }
            ctx.writeAndFlush(response);
        }
    }
}
