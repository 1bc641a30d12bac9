package io.github.agentlb.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The connect string and balancer id are checked when the shared allocation is built. */
class ZooKeeperSharedAllocationTest {

    @Test
    void aConnectStringIsHostsAndPortsWithoutAChroot() {
        for (String good : new String[] {"127.0.0.1:2181", "zk1:2181,zk2:2182", "zk", "[::1]:2181"}) {
            assertThat(ZooKeeperSharedAllocation.of(good, "proxy").exchange().describe()).as(good)
                    .isEqualTo("zookeeper://" + good + "/agentlb/proxy");
        }
        for (String bad : new String[] {"127.0.0.1:notaport", "zk:0", "zk:65536", ":2181", "zk1:2181,", "zk:2181/chroot"}) {
            assertThatThrownBy(() -> ZooKeeperSharedAllocation.of(bad, "proxy")).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("connectString must be")
                    .hasMessageEndingWith("was '" + bad + "'");
        }
        // Were taken, and Curator then failed to resolve '127.0.0.1:29181/<unresolved>' every second, unshared.
        for (String bad : new String[] {"localhost:2181:2181", "127.0.0.1:2181;127.0.0.1:2182", "zk 1:2181", "[::1:2181"}) {
            assertThatThrownBy(() -> ZooKeeperSharedAllocation.of(bad, "proxy")).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("connectString must be host:port[,host:port...], each host a name, an IPv4 address or an"
                            + " [IPv6] address, was '" + bad + "'");
        }
        assertThat(ZooKeeperSharedAllocation.of("[::1],zk-2.example:2182, zk_3", "proxy")).isNotNull();
        assertThatThrownBy(() -> ZooKeeperSharedAllocation.of("zk:2181", "a/b"))
                .hasMessage("balancerId must not contain '/', was 'a/b'");
        for (String bad : new String[] {".", "..", "a\u0000b", "a\u0001"}) {
            assertThatThrownBy(() -> ZooKeeperSharedAllocation.of("zk:2181", bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("balancerId must be a ZooKeeper node name (not '.' or '..', no control character), was '"
                            + bad + "'");
        }
    }
}
