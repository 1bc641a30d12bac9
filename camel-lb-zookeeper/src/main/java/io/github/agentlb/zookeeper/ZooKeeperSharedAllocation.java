package io.github.agentlb.zookeeper;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.shared.SharedAllocation;
import java.time.Duration;
import org.apache.zookeeper.common.PathUtils;

/**
 * Entry point: a {@link SharedAllocation} over ZooKeeper for an {@code avn} balancer.
 *
 * <pre>{@code
 * AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB(
 *         ZooKeeperSharedAllocation.of("zk1:2181,zk2:2181", "proxy"));
 * }</pre>
 *
 * Every replica given the same connect string and balancer id shares one allocation; each
 * balancer instance needs its own {@code SharedAllocation} (one per replica, not one per JVM).
 * The balancer starts it with its route, in its {@code CamelContext}, and closes it on stop. See
 * {@code docs/shared-allocation.md}.
 */
public final class ZooKeeperSharedAllocation {

    /** Default parent of every balancer's znodes. */
    public static final String DEFAULT_BASE_PATH = "/agentlb";
    /** Default ZooKeeper session timeout, seconds: leadership moves this long after a leader dies unannounced. */
    public static final long DEFAULT_SESSION_TIMEOUT_SECONDS = 15;
    /** Default connection timeout, seconds. */
    public static final long DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;

    private ZooKeeperSharedAllocation() {
    }

    /**
     * With the defaults: base path {@value #DEFAULT_BASE_PATH}, session timeout
     * {@value #DEFAULT_SESSION_TIMEOUT_SECONDS} s, local learning after
     * {@value SharedAllocation#DEFAULT_LOCAL_AFTER_SECONDS} s without ZooKeeper.
     *
     * @param connectString ZooKeeper's {@code host:port[,host:port...]}, ports 1..65535, no chroot path
     * @param balancerId    names the replicas that share (znodes under {@code /agentlb/<balancerId>})
     * @throws IllegalArgumentException if either is blank, the connect string is malformed or has a
     *                                  chroot path, or the id holds a {@code /}, is {@code .} or {@code ..} or
     *                                  holds a character ZooKeeper refuses in a node name
     */
    public static SharedAllocation of(String connectString, String balancerId) {
        return builder(connectString, balancerId).build();
    }

    /** A builder starting from the defaults of {@link #of}. */
    public static Builder builder(String connectString, String balancerId) {
        return new Builder(connectString, balancerId);
    }

    /** Each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private final String connectString;
        private final String balancerId;
        private String basePath = DEFAULT_BASE_PATH;
        private Duration sessionTimeout = Duration.ofSeconds(DEFAULT_SESSION_TIMEOUT_SECONDS);
        private Duration connectTimeout = Duration.ofSeconds(DEFAULT_CONNECT_TIMEOUT_SECONDS);
        private Duration localAfter = Duration.ofSeconds(SharedAllocation.DEFAULT_LOCAL_AFTER_SECONDS);

        private Builder(String connectString, String balancerId) {
            this.connectString = checkedConnectString(connectString);
            if (Check.notBlank("balancerId", balancerId).contains("/")) {
                throw new IllegalArgumentException("balancerId must not contain '/', was '" + balancerId + "'");
            }
            try {
                PathUtils.validatePath(DEFAULT_BASE_PATH + "/" + balancerId);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("balancerId must be a ZooKeeper node name (not '.' or '..', no control"
                        + " character), was '" + balancerId + "'", e);
            }
            this.balancerId = balancerId;
        }

        /**
         * {@code host:port[,host:port...]}, each host a name, an IPv4 address or a bracketed IPv6 address,
         * each port 1..65535 (a host alone takes 2181); a chroot
         * suffix ({@code /path}) is refused: the znodes' place is {@link #basePath}, which is created
         * when missing, where a chroot that does not exist would leave the election without its node.
         */
        private static String checkedConnectString(String value) {
            Check.notBlank("connectString", value);
            if (value.indexOf('/') >= 0) {
                throw new IllegalArgumentException("connectString must be host:port[,host:port...] without a chroot path"
                        + " (set basePath instead), was '" + value + "'");
            }
            for (String server : value.split(",", -1)) {
                String s = server.strip();
                boolean bracketed = s.startsWith("[");
                int colon = bracketed ? s.indexOf("]:") + 1 : s.lastIndexOf(':');
                String host = colon <= 0 ? s : s.substring(0, colon);
                String port = colon <= 0 ? "2181" : s.substring(colon + 1);
                if (!host.isEmpty() && !host.matches("[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+(%[A-Za-z0-9]+)?]")) {
                    throw new IllegalArgumentException("connectString must be host:port[,host:port...], each host a name,"
                            + " an IPv4 address or an [IPv6] address, was '" + value + "'");
                }
                boolean portOk = port.matches("[0-9]{1,5}") && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
                if (host.isEmpty() || !portOk) {
                    throw new IllegalArgumentException("connectString must be host:port[,host:port...] with ports"
                            + " 1..65535, was '" + value + "'");
                }
            }
            return value;
        }

        /** Parent znode, absolute ({@value #DEFAULT_BASE_PATH} by default). */
        public Builder basePath(String value) {
            if (!Check.notBlank("basePath", value).startsWith("/")) {
                throw new IllegalArgumentException("basePath must start with '/', was '" + value + "'");
            }
            this.basePath = value;
            return this;
        }

        /** ZooKeeper session timeout (> 0). */
        public Builder sessionTimeout(Duration value) {
            this.sessionTimeout = Check.positive("sessionTimeout", value);
            return this;
        }

        /** Connection timeout (> 0). */
        public Builder connectTimeout(Duration value) {
            this.connectTimeout = Check.positive("connectTimeout", value);
            return this;
        }

        /** {@link SharedAllocation#localAfter()} (> 0). */
        public Builder localAfter(Duration value) {
            this.localAfter = Check.positive("localAfter", value);
            return this;
        }

        public SharedAllocation build() {
            return new SharedAllocation(new ZooKeeperAllocationExchange(connectString, basePath, balancerId,
                    sessionTimeout, connectTimeout), localAfter);
        }
    }
}
