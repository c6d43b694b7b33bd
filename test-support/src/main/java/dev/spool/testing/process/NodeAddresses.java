package dev.spool.testing.process;

import java.net.InetSocketAddress;

/**
 * Where one node of a {@link ProcessCluster} can be reached.
 *
 * @param broker where its broker binds (unused on controller-only nodes)
 * @param quorum where its quorum member (Ratis) binds
 * @param client what its broker advertises to clients: {@code broker}, or a proxy in front of it
 */
public record NodeAddresses(
    int id, InetSocketAddress broker, InetSocketAddress quorum, InetSocketAddress client) {
  /** A node clients reach directly. */
  public static NodeAddresses direct(int id, InetSocketAddress broker, InetSocketAddress quorum) {
    return new NodeAddresses(id, broker, quorum, broker);
  }

  /** The same node advertising {@code clientAddress} (a proxy) instead of its own address. */
  public NodeAddresses advertising(InetSocketAddress clientAddress) {
    return new NodeAddresses(id, broker, quorum, clientAddress);
  }

  /** True when clients go through something else (a proxy) to reach the broker. */
  public boolean advertisesElsewhere() {
    return !client.equals(broker);
  }
}
