package dev.spool.chaos.net;

import dev.spool.chaos.nemesis.ClientLinkControl;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@link FaultProxy} per broker on the client links, on one shared event loop, driven as one
 * {@link ClientLinkControl}. Clients are given {@link #clientAddress(int)} instead of the broker's
 * own address.
 */
public final class ProxyGroup implements ClientLinkControl, Closeable {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Map<Integer, FaultProxy> proxies = new LinkedHashMap<>();
  private final Map<Integer, String> listenHosts = new LinkedHashMap<>();

  /** Starts a proxy on 127.0.0.1 (ephemeral port) for each node's broker address. */
  public static ProxyGroup start(Map<Integer, InetSocketAddress> brokerByNode) {
    Map<Integer, InetSocketAddress> listen = new LinkedHashMap<>();
    brokerByNode.keySet().forEach(node -> listen.put(node, new InetSocketAddress("127.0.0.1", 0)));
    return start(listen, brokerByNode);
  }

  /**
   * Starts a proxy for each node of {@code brokerByNode}, listening on that node's entry of {@code
   * listenByNode} (port 0: any free port).
   */
  public static ProxyGroup start(
      Map<Integer, InetSocketAddress> listenByNode, Map<Integer, InetSocketAddress> brokerByNode) {
    ProxyGroup g = new ProxyGroup();
    try {
      brokerByNode.forEach(
          (node, addr) -> {
            InetSocketAddress listen = listenByNode.get(node);
            if (listen == null) {
              throw new IllegalArgumentException("no listen address for the proxy of node " + node);
            }
            g.proxies.put(node, FaultProxy.start("n" + node, listen, addr, g.group));
            g.listenHosts.put(node, listen.getHostString());
          });
    } catch (RuntimeException e) {
      g.close();
      throw e;
    }
    return g;
  }

  /**
   * Where clients (and, when brokers advertise it, other brokers) reach {@code node} through its
   * proxy.
   */
  public InetSocketAddress clientAddress(int node) {
    return new InetSocketAddress(listenHosts.get(node), proxy(node).port());
  }

  public FaultProxy proxy(int node) {
    FaultProxy p = proxies.get(node);
    if (p == null) {
      throw new IllegalArgumentException("no proxy for node " + node);
    }
    return p;
  }

  @Override
  public void addLatency(long latencyMs) {
    proxies.values().forEach(p -> p.setLatency(latencyMs, latencyMs));
  }

  @Override
  public void limitBandwidth(long bytesPerSecond) {
    proxies.values().forEach(p -> p.setBandwidth(bytesPerSecond));
  }

  @Override
  public void dropConnections() {
    proxies
        .values()
        .forEach(
            p -> {
              p.refuseNewConnections(true);
              p.resetConnections();
            });
  }

  @Override
  public void heal() {
    proxies.values().forEach(FaultProxy::heal);
  }

  @Override
  public void close() {
    proxies.values().forEach(FaultProxy::close);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
