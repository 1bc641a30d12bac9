package io.github.agentlb.fleet;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import io.github.agentlb.core.fleet.NameList;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A DNS name as a membership source, re-resolved on its records' TTL. Two kinds of target:
 * <ul>
 *   <li>{@code host:port}: the A and AAAA records of {@code host} (either family can be turned
 *       off), one agent per address, all on {@code port}, weight 1; an agent is named
 *       {@code 10.0.0.7:8080} or {@code [fd00::7]:8080} (RFC 5952 text), its address
 *       {@code http://10.0.0.7:8080}.</li>
 *   <li>{@code _service._proto.name} (RFC 2782 SRV): the records of the lowest priority value
 *       (higher values are backups and left out), one agent per record, named {@code target:port}
 *       (target without its final dot) with address {@code http://target:port}, resolved by the
 *       HTTP client when it connects. SRV weight {@code w} becomes weight {@code max(w, 1)},
 *       capped at {@link AgentSpec#MAX_WEIGHT}; a target of {@code .} (no service) is skipped.</li>
 * </ul>
 * Agents are sorted by name, so an answer in another order is no change.
 *
 * <p>Timing: the next query is sent after the smallest TTL of the records used, held within
 * [{@linkplain Builder#minRefresh(Duration) minRefresh}, {@linkplain Builder#maxRefresh(Duration)
 * maxRefresh}] (defaults 1 s and 60 s). The name server is asked directly (no cache on this side),
 * with recursion desired; each query waits at most {@linkplain Builder#queryTimeout(Duration)
 * queryTimeout} (default 2 s), and one without answer is sent once more (a lost UDP datagram; a
 * stub resolver's {@code attempts:2}) before the read fails.
 *
 * <p>Bad input: NXDOMAIN, another error code, a timeout, or an answer without usable records
 * keeps the last fleet, logs one WARN line (one per distinct reason, until a good answer), and asks
 * again after {@linkplain Builder#retryInterval(Duration) retryInterval} (default 5 s). At start the
 * same conditions throw {@link IllegalArgumentException}; when both families fail, the reason given
 * is the A query's.
 *
 * <p>One family failing: when A and AAAA are both asked (they are sent together) and one answers
 * with usable records, a failure of the other (NXDOMAIN, REFUSED, NOTIMP, SERVFAIL, a timeout) does
 * not fail the read, at start or later: that family's agents are those of the last good fleet (none
 * at start), so a transient failure of one family neither freezes the fleet nor drops its agents.
 * The failure is still reported as a bad read's is (one WARN line per distinct reason,
 * {@link #problem()}) until a read where both families answer, and the next query goes out after
 * at most {@code retryInterval}. A family that answers NOERROR without records is no failure.
 * (A server that refuses AAAA queries, as dnsmasq does for a name it holds only as an IPv4 host:
 * the fleet follows the A records; {@code ipv6(false)} stops the AAAA queries and the WARN line.)
 *
 * <p>Thread-safety: queries are sent and awaited on the scheduler's one thread (by default a
 * daemon thread of the source's own), the first on the caller's; Netty's I/O runs on one daemon
 * event-loop thread of the source's own. Both stop on {@link #close()}, which waits for a query
 * in progress (at most twice {@code queryTimeout}).
 *
 * <p>Over 300 lines: the query, the A/AAAA and SRV answers, the TTL schedule and the builder's checks belong to one source; the rule every source shares is apart ({@link LastGoodFleet}).
 */
public final class DnsFleetSource extends PolledFleetSource {

    /** The shortest time between two queries by default: 1 s. */
    public static final Duration DEFAULT_MIN_REFRESH = Duration.ofSeconds(1);
    /** The longest time between two queries by default, whatever the TTL: 60 s. */
    public static final Duration DEFAULT_MAX_REFRESH = Duration.ofSeconds(60);
    /** The time before asking again after a failed or unusable answer, by default: 5 s. */
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(5);
    /** The longest wait for one answer by default: 2 s. */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(2);

    private final String target;
    private final String host;
    private final int port;
    private final boolean srv;
    private final Settings config;
    private EventLoopGroup group;
    private DnsNameResolver resolver;

    /**
     * What one read found: the agents and the smallest TTL in seconds, or why there are none
     * ({@code problem}); {@code partProblem}: why one address family failed while the other gave agents.
     */
    private record Answer(List<AgentSpec> agents, long ttlSeconds, String problem, String partProblem) {
        static Answer problem(String why) {
            return new Answer(List.of(), 0, why, null);
        }
    }

    /** The builder's settings, as they were when the source was built. */
    private record Settings(InetSocketAddress nameServer, String scheme, Duration minRefresh, Duration maxRefresh,
                            Duration retryInterval, Duration queryTimeout, boolean ipv4, boolean ipv6,
                            TaskScheduler scheduler) {
    }

    private DnsFleetSource(String target, Settings config) {
        this.config = config;
        this.target = target;
        this.srv = target.startsWith("_");
        if (srv) {
            this.host = target;
            this.port = -1;
        } else {
            int colon = target.lastIndexOf(':');
            this.host = target.substring(0, colon);
            this.port = Integer.parseInt(target.substring(colon + 1));
        }
    }

    /** A source with the defaults: see {@link #builder(String)}. */
    public static DnsFleetSource of(String target) {
        return builder(target).build();
    }

    /**
     * @param target {@code host:port} (A/AAAA records, one port) or {@code _service._proto.name}
     *               (SRV records, each with its port and weight), e.g. {@code agents.internal:8080}
     *               or {@code _agent._tcp.agents.internal}
     * @throws IllegalArgumentException naming {@code target} and its value if it is neither
     */
    public static Builder builder(String target) {
        return new Builder(target);
    }

    @Override
    public void start(FleetListener listener) {
        synchronized (lock) {
            LastGoodFleet first = startable(listener);
            group = new NioEventLoopGroup(1, new DefaultThreadFactory("agentlb-fleet-dns-io", true));
            DnsServerAddressStreamProvider servers = config.nameServer() == null
                    ? DnsServerAddressStreamProviders.platformDefault()
                    : new SingletonDnsServerAddressStreamProvider(config.nameServer());
            resolver = new DnsNameResolverBuilder(group.next())
                    .datagramChannelType(NioDatagramChannel.class)
                    .socketChannelType(NioSocketChannel.class)
                    .nameServerProvider(servers)
                    .queryTimeoutMillis(config.queryTimeout().toMillis())
                    .recursionDesired(true)
                    .resolveCache(NoopDnsCache.INSTANCE)
                    .cnameCache(NoopDnsCnameCache.INSTANCE)
                    .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
                    .build();
            Answer answer;
            try {
                answer = read();
                if (answer.problem != null) {
                    throw new IllegalArgumentException(describe() + ": " + answer.problem);
                }
                first.first(answer.agents, answer.partProblem);
            } catch (RuntimeException e) {
                stopIo();
                throw e;
            }
            started(first, config.scheduler(), "agentlb-fleet-dns", this::refresh, nextRead(answer));
        }
    }

    private void refresh() {
        synchronized (lock) {
            if (isClosed()) {
                return;
            }
            Duration delay = config.retryInterval();
            try {
                Answer answer = read();
                if (answer.problem != null) {
                    fleet.reject(answer.problem);
                } else if (fleet.offer(answer.agents, answer.partProblem)) {
                    delay = nextRead(answer);
                }
            } finally {
                scheduleNext(this::refresh, delay);
            }
        }
    }

    /** @return how long to wait after an applied answer: its TTL's delay, at most retryInterval if a family failed */
    private Duration nextRead(Answer answer) {
        Duration delay = refreshAfter(answer.ttlSeconds);
        return answer.partProblem != null && config.retryInterval().compareTo(delay) < 0 ? config.retryInterval() : delay;
    }

    /** @return how long to wait after an answer whose smallest TTL is {@code ttlSeconds} */
    Duration refreshAfter(long ttlSeconds) {
        Duration ttl = Duration.ofSeconds(ttlSeconds);
        return ttl.compareTo(config.minRefresh()) < 0 ? config.minRefresh()
                : ttl.compareTo(config.maxRefresh()) > 0 ? config.maxRefresh() : ttl;
    }

    private Answer read() {
        List<DnsRecordType> types = srv ? List.of(DnsRecordType.SRV)
                : config.ipv4() && config.ipv6() ? List.of(DnsRecordType.A, DnsRecordType.AAAA)
                : List.of(config.ipv4() ? DnsRecordType.A : DnsRecordType.AAAA);
        // Both families asked at once: one wait, however long the slower answer takes.
        List<Future<AddressedEnvelope<DnsResponse, InetSocketAddress>>> queries = new ArrayList<>();
        for (DnsRecordType type : types) {
            queries.add(resolver.query(new DefaultDnsQuestion(host, type)));
        }
        List<AgentSpec> agents = new ArrayList<>();
        List<Srv> srvRecords = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        long ttl = Long.MAX_VALUE;
        String problem = null;
        DnsRecordType failed = null;
        for (int i = 0; i < types.size(); i++) {
            Reply reply = reply(types.get(i), queries.get(i));
            if (reply.timedOut) { // a lost datagram, most likely: sent once more, as a stub resolver's attempts:2
                reply = reply(types.get(i), resolver.query(new DefaultDnsQuestion(host, types.get(i))));
            }
            if (reply.problem != null) {
                if (problem == null) {
                    problem = reply.problem;
                    failed = types.get(i);
                }
                continue;
            }
            agents.addAll(reply.agents);
            srvRecords.addAll(reply.srv);
            ttl = Math.min(ttl, reply.ttlSeconds);
        }
        if (srv) {
            agents.addAll(srvAgents(srvRecords, skipped));
        }
        if (agents.isEmpty()) {
            return Answer.problem(problem != null ? problem
                    : "no usable " + types.stream().map(DnsRecordType::name).toList() + " records for " + host
                            + (skipped.isEmpty() ? "" : ": targets that are no host name: " + NameList.of(skipped)));
        }
        if (problem != null) {
            // One family failed, the other gave agents: the failed family's agents are those of the last good fleet.
            boolean ipv6 = failed.equals(DnsRecordType.AAAA);
            if (fleet != null) {
                fleet.fleet().stream().filter(agent -> agent.name().startsWith("[") == ipv6).forEach(agents::add);
            }
        }
        agents.sort(Comparator.comparing(AgentSpec::name));
        List<AgentSpec> distinct = new ArrayList<>();
        for (AgentSpec agent : agents) {
            if (distinct.isEmpty() || !distinct.get(distinct.size() - 1).name().equals(agent.name())) {
                distinct.add(agent);
            }
        }
        return new Answer(distinct, ttl, null, problem);
    }

    /** What one query's answer gave: its agents (A/AAAA) or records (SRV) and their smallest TTL, or why none. */
    private record Reply(List<AgentSpec> agents, List<Srv> srv, long ttlSeconds, String problem, boolean timedOut) {
        static Reply problem(String why) {
            return new Reply(List.of(), List.of(), Long.MAX_VALUE, why, false);
        }

        static Reply timedOut(String why) {
            return new Reply(List.of(), List.of(), Long.MAX_VALUE, why, true);
        }
    }

    private Reply reply(DnsRecordType type, Future<AddressedEnvelope<DnsResponse, InetSocketAddress>> query) {
        if (!query.awaitUninterruptibly(config.queryTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS)) {
            query.cancel(false);
            return Reply.timedOut(type.name() + " query for " + host + " timed out");
        }
        if (!query.isSuccess()) {
            String why = type.name() + " query for " + host + " failed: " + why(query.cause());
            return query.cause() instanceof DnsNameResolverTimeoutException ? Reply.timedOut(why) : Reply.problem(why);
        }
        AddressedEnvelope<DnsResponse, InetSocketAddress> envelope = query.getNow();
        try {
            DnsResponse response = envelope.content();
            if (!response.code().equals(DnsResponseCode.NOERROR)) {
                return Reply.problem(type.name() + " query for " + host + " answered " + response.code());
            }
            List<AgentSpec> agents = new ArrayList<>();
            List<Srv> srvRecords = new ArrayList<>();
            long ttl = Long.MAX_VALUE;
            for (int i = 0; i < response.count(DnsSection.ANSWER); i++) {
                DnsRecord record = response.recordAt(DnsSection.ANSWER, i);
                if (!record.type().equals(type) || !(record instanceof DnsRawRecord raw)) {
                    continue;
                }
                ttl = Math.min(ttl, record.timeToLive());
                if (srv) {
                    Srv decoded = Srv.decode(raw.content());
                    if (decoded != null) {
                        srvRecords.add(decoded);
                    }
                } else {
                    AgentSpec agent = addressAgent(raw.content());
                    if (agent != null) {
                        agents.add(agent);
                    }
                }
            }
            return new Reply(agents, srvRecords, ttl, null, false);
        } finally {
            envelope.release();
        }
    }

    /** A failure's reason without the query id and server Netty put in it, so that it repeats word for word. */
    private String why(Throwable cause) {
        if (cause instanceof DnsNameResolverTimeoutException) {
            return "timed out after " + config.queryTimeout().toMillis() + " ms";
        }
        String message = String.valueOf(cause.getMessage()).replaceAll("\\[\\d+: [^\\]]*\\] ", "").replaceAll(" '\\d+'", "");
        return cause.getClass().getSimpleName() + ": " + message;
    }

    private AgentSpec addressAgent(ByteBuf content) {
        int length = content.readableBytes();
        if (length != 4 && length != 16) {
            return null;
        }
        byte[] bytes = new byte[length];
        content.getBytes(content.readerIndex(), bytes);
        InetAddress address;
        try {
            address = InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null;
        }
        String text = NetUtil.toAddressString(address);
        String hostPort = (length == 16 ? "[" + text + "]" : text) + ":" + port;
        return AgentSpec.of(hostPort, URI.create(config.scheme() + "://" + hostPort));
    }

    /** The agents of the lowest priority's records; the {@code target:port} of each whose target is no host name into {@code skipped}. */
    private List<AgentSpec> srvAgents(List<Srv> records, List<String> skipped) {
        int lowest = records.stream().mapToInt(Srv::priority).min().orElse(0);
        List<AgentSpec> agents = new ArrayList<>();
        for (Srv record : records) {
            if (record.priority != lowest) {
                continue;
            }
            String hostPort = record.target + ":" + record.port;
            try {
                double weight = Math.min(Math.max(record.weight, 1), AgentSpec.MAX_WEIGHT);
                agents.add(new AgentSpec(hostPort, new URI(config.scheme() + "://" + hostPort), weight, false, null));
            } catch (URISyntaxException | IllegalArgumentException e) {
                skipped.add(hostPort); // a target that is no host name (servers do not check SRV targets)
            }
        }
        skipped.sort(null);
        return agents;
    }

    /** One SRV record's data (RFC 2782); the target lower-cased, without its final dot. */
    private record Srv(int priority, int weight, int port, String target) {

        /** @return the record, or null if it is short or its target is {@code .} (no service) or its port 0 */
        static Srv decode(ByteBuf content) {
            // a duplicate of the whole message, indexed on the data: name compression pointers resolve
            ByteBuf in = content.duplicate();
            if (in.readableBytes() < 7) {
                return null;
            }
            int priority = in.readUnsignedShort();
            int weight = in.readUnsignedShort();
            int port = in.readUnsignedShort();
            String name;
            try {
                name = DefaultDnsRecordDecoder.decodeName(in);
            } catch (CorruptedFrameException e) {
                return null;
            }
            String target = (name.endsWith(".") ? name.substring(0, name.length() - 1) : name).toLowerCase(Locale.ROOT);
            return target.isEmpty() || port == 0 ? null : new Srv(priority, weight, port, target);
        }
    }

    /** @return {@code dns:} and the target, e.g. {@code dns:agents.internal:8080} */
    @Override
    public String describe() {
        return "dns:" + target;
    }

    @Override
    void closing() {
        stopIo();
    }

    private void stopIo() {
        if (resolver != null) {
            resolver.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }


    /** Builds a {@link DnsFleetSource}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private final String target;
        private InetSocketAddress nameServer;
        private String scheme = "http";
        private Duration minRefresh = DEFAULT_MIN_REFRESH;
        private Duration maxRefresh = DEFAULT_MAX_REFRESH;
        private Duration retryInterval = DEFAULT_RETRY_INTERVAL;
        private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
        private boolean ipv4 = true;
        private boolean ipv6 = true;
        private TaskScheduler scheduler;

        private Builder(String target) {
            this.target = checkTarget(target);
        }

        /** A DNS name as asked: labels of 1-63 letters, digits, '-' or '_', a root dot allowed at the end. */
        private static final String NAME = "[A-Za-z0-9_-]{1,63}(\\.[A-Za-z0-9_-]{1,63})*\\.?";

        private static String checkTarget(String target) {
            String problem = "target must be host:port or _service._proto.name, was '" + target + "'";
            if (target == null || target.isBlank() || target.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(problem);
            }
            String labels = "target must be host:port or _service._proto.name, each name labels of 1-63 letters,"
                    + " digits, '-' or '_' joined by '.', at most 253 characters, was '" + target + "'";
            if (target.startsWith("_")) {
                if (target.contains(":") || target.split("\\.").length < 3) {
                    throw new IllegalArgumentException(problem);
                }
                if (!target.matches(NAME) || target.length() > 254) {
                    throw new IllegalArgumentException(labels);
                }
                return target;
            }
            int colon = target.lastIndexOf(':');
            if (colon <= 0 || target.indexOf(':') != colon) {
                throw new IllegalArgumentException(problem);
            }
            try {
                int port = Integer.parseInt(target.substring(colon + 1));
                if (port < 1 || port > 65535) {
                    throw new IllegalArgumentException("target port must be in 1..65535, was '" + target + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(problem);
            }
            if (!target.substring(0, colon).matches(NAME) || colon > 254) {
                throw new IllegalArgumentException(labels);
            }
            if (!target.substring(colon + 1).matches("[1-9][0-9]*")) {
                throw new IllegalArgumentException("target port must be in 1..65535 as written (digits, no sign or"
                        + " leading zero), was '" + target + "'");
            }
            return target;
        }

        /** @param value the name server asked; default: the platform's ({@code /etc/resolv.conf}) */
        public Builder nameServer(InetSocketAddress value) {
            if (value == null || value.isUnresolved()) {
                throw new IllegalArgumentException("nameServer must be a resolved address, was " + value);
            }
            this.nameServer = value;
            return this;
        }

        /** @param value the agents' URL scheme, {@code http} (default) or {@code https} */
        public Builder scheme(String value) {
            this.scheme = AgentSpec.checkScheme(value);
            return this;
        }

        /** @param value the shortest time between two queries, > 0; default {@link #DEFAULT_MIN_REFRESH} */
        public Builder minRefresh(Duration value) {
            this.minRefresh = Check.positive("minRefresh", value);
            return this;
        }

        /** @param value the longest time between two queries, >= minRefresh; default {@link #DEFAULT_MAX_REFRESH} */
        public Builder maxRefresh(Duration value) {
            this.maxRefresh = Check.positive("maxRefresh", value);
            return this;
        }

        /** @param value the wait before asking again after a bad answer, > 0; default {@link #DEFAULT_RETRY_INTERVAL} */
        public Builder retryInterval(Duration value) {
            this.retryInterval = Check.positive("retryInterval", value);
            return this;
        }

        /** @param value the longest wait for one answer, > 0 (millisecond resolution); default {@link #DEFAULT_QUERY_TIMEOUT} */
        public Builder queryTimeout(Duration value) {
            Check.positive("queryTimeout", value);
            if (value.toMillis() < 1) {
                throw new IllegalArgumentException("queryTimeout must be >= 1 ms, was " + value);
            }
            this.queryTimeout = value;
            return this;
        }

        /**
         * @param value whether a {@code host:port} target asks for A records (default true; an SRV
         *              target refuses false when built)
         */
        public Builder ipv4(boolean value) {
            this.ipv4 = value;
            return this;
        }

        /**
         * @param value whether a {@code host:port} target asks for AAAA records (default true; an SRV
         *              target refuses false when built)
         */
        public Builder ipv6(boolean value) {
            this.ipv6 = value;
            return this;
        }

        /** @param value runs the queries; default: a daemon thread of the source's own */
        public Builder scheduler(TaskScheduler value) {
            this.scheduler = Check.notNull("scheduler", value);
            return this;
        }

        /** @throws IllegalArgumentException if minRefresh > maxRefresh, or neither ipv4 nor ipv6 is asked */
        public DnsFleetSource build() {
            if (minRefresh.compareTo(maxRefresh) > 0) {
                throw new IllegalArgumentException("minRefresh must be <= maxRefresh, was " + minRefresh + " > " + maxRefresh);
            }
            if (!ipv4 && !ipv6) {
                throw new IllegalArgumentException("ipv4 and ipv6 must not both be false, were false");
            }
            if (target.startsWith("_") && !(ipv4 && ipv6)) {
                throw new IllegalArgumentException("ipv4 and ipv6 choose the queries of a host:port target, not of the SRV"
                        + " target " + target + ", were ipv4=" + ipv4 + ", ipv6=" + ipv6);
            }
            return new DnsFleetSource(target, new Settings(nameServer, scheme, minRefresh, maxRefresh, retryInterval,
                    queryTimeout, ipv4, ipv6, scheduler));
        }
    }
}
