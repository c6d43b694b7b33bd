package dev.spool.chaos.net;

import dev.spool.chaos.nemesis.Plane;
import dev.spool.testing.process.LoopbackNetwork;
import dev.spool.testing.process.NodeAddresses;
import dev.spool.testing.process.NodeNetwork;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network of a chaos cluster ({@link NodeNetwork} of a {@code ProcessCluster}), in up to two
 * layers:
 *
 * <ul>
 *   <li><b>namespaces</b> (root only, else loopback with a loud warning and a note): each node in
 *       its own network namespace ({@link NetNamespaces}), its broker bound on its DATA address,
 *       Ratis on its QUORUM address; the harness and clients stay in the root namespace and reach
 *       the nodes over the bridge. {@link #namespaces()} then cuts links.
 *   <li><b>proxies</b>: a {@link FaultProxy} in front of every broker, and each broker advertises
 *       its proxy's address, so clients go through it ({@link #clientLinks()}). Brokers find each
 *       other through metadata too, so inter-broker fetches <em>also</em> cross the proxies:
 *       latency on client links slows replication as well. With namespaces the proxies listen on
 *       per-node addresses on the bridge and a DATA-plane cut also cuts the sender's path to the
 *       target's proxy ({@link NetNamespaces#addProxyAddresses}).
 * </ul>
 *
 * <p>Without either it is {@link LoopbackNetwork}. Set up by the thread that builds the cluster;
 * {@link #close} may also run on the cluster's shutdown hook.
 */
public final class FaultNetwork implements NodeNetwork {
  private static final Logger LOG = LoggerFactory.getLogger(FaultNetwork.class);

  /** Each node binds its broker on this port of its own DATA address in namespace mode. */
  private static final int NS_BROKER_PORT = 9092;

  private static final int NS_QUORUM_PORT = 9093;
  private static final int NS_PROXY_PORT = 9092;

  private final boolean wantNamespaces;
  private final boolean wantProxies;
  private final CommandRunner cmd;
  private final List<String> notes = new ArrayList<>();
  private volatile NetNamespaces net;
  private volatile ProxyGroup proxies;

  /**
   * @param namespaces each node in its own network namespace, if this machine allows it (root)
   * @param proxies a fault proxy in front of every broker, advertised to clients (and so to
   *     brokers)
   */
  public FaultNetwork(boolean namespaces, boolean proxies) {
    this(namespaces, proxies, new CommandRunner());
  }

  FaultNetwork(boolean namespaces, boolean proxies, CommandRunner cmd) {
    this.wantNamespaces = namespaces;
    this.wantProxies = proxies;
    this.cmd = cmd;
  }

  @Override
  public Map<Integer, NodeAddresses> layout(List<Integer> ids) {
    if (wantNamespaces) {
      Capabilities caps = Capabilities.detect(cmd);
      if (caps.canPartition()) {
        net = NetNamespaces.create(cmd, ids);
        if (wantProxies) {
          net.addProxyAddresses();
        }
      } else {
        String why = caps.report();
        LOG.warn("!!! {}", why);
        notes.add(why);
      }
    }
    Map<Integer, NodeAddresses> addrs =
        net == null ? new LoopbackNetwork().layout(ids) : inside(ids);
    return wantProxies ? behindProxies(addrs) : addrs;
  }

  private Map<Integer, NodeAddresses> inside(List<Integer> ids) {
    Map<Integer, NodeAddresses> out = new TreeMap<>();
    for (int id : ids) {
      out.put(
          id,
          NodeAddresses.direct(
              id,
              new InetSocketAddress(net.address(id, Plane.DATA), NS_BROKER_PORT),
              new InetSocketAddress(net.address(id, Plane.QUORUM), NS_QUORUM_PORT)));
    }
    return out;
  }

  private Map<Integer, NodeAddresses> behindProxies(Map<Integer, NodeAddresses> addrs) {
    Map<Integer, InetSocketAddress> listen = new LinkedHashMap<>();
    Map<Integer, InetSocketAddress> upstream = new LinkedHashMap<>();
    for (NodeAddresses a : addrs.values()) {
      listen.put(
          a.id(),
          net != null
              ? new InetSocketAddress(net.proxyAddress(a.id()), NS_PROXY_PORT)
              : new InetSocketAddress("127.0.0.1", 0));
      upstream.put(a.id(), a.broker());
    }
    proxies = ProxyGroup.start(listen, upstream);
    Map<Integer, NodeAddresses> out = new TreeMap<>();
    for (NodeAddresses a : addrs.values()) {
      out.put(a.id(), a.advertising(proxies.clientAddress(a.id())));
    }
    notes.add(
        "brokers advertise their fault proxies: client AND inter-broker traffic crosses them");
    return out;
  }

  @Override
  public List<String> launchPrefix(int node) {
    NetNamespaces n = net;
    return n == null ? List.of() : n.execPrefix(node);
  }

  @Override
  public List<String> notes() {
    return List.copyOf(notes);
  }

  /** The network namespaces, when the nodes run in them. */
  public Optional<NetNamespaces> namespaces() {
    return Optional.ofNullable(net);
  }

  /** The client-link proxies, in proxy mode. */
  public Optional<ProxyGroup> clientLinks() {
    return Optional.ofNullable(proxies);
  }

  /** Closes the proxies and removes the namespaces. */
  @Override
  public void close() {
    ProxyGroup p = proxies;
    if (p != null) {
      p.close();
    }
    NetNamespaces n = net;
    if (n != null) {
      n.close();
    }
  }
}
