package dev.spool.testing.process;

import dev.spool.testing.Ports;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every node on 127.0.0.1, with free ports below the ephemeral range ({@link Ports}) that it keeps
 * across restarts. Clients reach the brokers directly. Used by the thread that builds the cluster.
 */
public final class LoopbackNetwork implements NodeNetwork {
  private static final String HOST = "127.0.0.1";

  @Override
  public Map<Integer, NodeAddresses> layout(List<Integer> nodes) {
    Ports ports = new Ports();
    Map<Integer, NodeAddresses> out = new TreeMap<>();
    for (int id : nodes) {
      out.put(
          id,
          NodeAddresses.direct(
              id,
              new InetSocketAddress(HOST, ports.next(HOST)),
              new InetSocketAddress(HOST, ports.next(HOST))));
    }
    return out;
  }

  @Override
  public void close() {
    // nothing was set up
  }
}
