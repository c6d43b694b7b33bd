package dev.spool.chaos.net;

import dev.spool.chaos.nemesis.NetworkControl;
import dev.spool.chaos.nemesis.Plane;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One network namespace per node, joined by a bridge, so that partitions are IP-level and cut Ratis
 * (gRPC) and data-plane traffic alike, as Jepsen's are. Needs root ({@link Capabilities}).
 *
 * <h2>Layout</h2>
 *
 * <pre>
 *   root namespace                     namespace spoolc-&lt;run&gt;-n&lt;id&gt;
 *   bridge spc&lt;run&gt;b 10.87.S.254/24 ── veth spc&lt;run&gt;v&lt;id&gt; ══ eth0: 10.87.S.&lt;id&gt;      (DATA plane)
 *                                                                10.87.S.&lt;100+id&gt;  (QUORUM plane)
 *                                                          lo up
 * </pre>
 *
 * <ul>
 *   <li><b>Addresses</b>: our own range 10.87.0.0/16, one /24 per run (S is the first third octet
 *       not used by any route or address of the host). 10.87/16 is an unremarkable corner of 10/8
 *       that Docker, Kubernetes and libvirt defaults do not use. Node ids must be 1..99.
 *   <li><b>Two addresses per node</b>: a node binds its broker listener on the DATA address and its
 *       Ratis/controller port on the QUORUM address, so a partition can cut replication without
 *       cutting the quorum ({@link Plane}). The harness (in the root namespace) reaches every node
 *       over the bridge, through the gateway address, and is never partitioned.
 *   <li><b>Names</b> carry the run id, which is the harness's PID: namespaces {@code
 *       spoolc-<pid>-n<id>}, links {@code spc<pid>b} (bridge) and {@code spc<pid>v<id>} (host end
 *       of each veth; interface names are limited to 15 characters). At start, namespaces and links
 *       of runs whose PID is no longer alive are stale and are removed; those of live runs (another
 *       engineer's harness on the same machine) are left alone.
 * </ul>
 *
 * <h2>Partitions: blackhole routes</h2>
 *
 * {@code drop(A, B, plane)} adds {@code ip route add blackhole <B's plane address>/32} inside A's
 * namespace. A blackhole route discards packets that are <em>routed</em> through it, and in A's
 * namespace only A's own outgoing packets are routed there (the /32 beats the /24 connected route),
 * so exactly the direction A → B is cut: local senders get EINVAL, TCP retransmits vanish. Packets
 * from B still reach A, which makes one-way loss possible: cut A → B only, and B's datagrams keep
 * arriving at A. (For TCP a one-way cut breaks both directions of a connection, since ACKs from A
 * are lost too — the same as Jepsen's one-way drops.) To cut both directions, drop A → B and B → A.
 * Heal deletes exactly the routes we added. tc netem is not available on these kernels, which is
 * why latency and slow links go through {@link FaultProxy} instead.
 *
 * <p>Not thread-safe: the nemesis runner's thread owns it.
 */
public final class NetNamespaces implements NetworkControl, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(NetNamespaces.class);
  static final String NS_PREFIX = "spoolc-";
  static final String LINK_PREFIX = "spc";
  static final int QUORUM_HOST_OFFSET = 100;
  static final int GATEWAY_HOST = 254;

  /** Host part of the root-namespace address of node id's fault proxy: PROXY_HOST_OFFSET + id. */
  static final int PROXY_HOST_OFFSET = 200;

  /** Exactly hosts 100..199 (the QUORUM plane addresses), as a cover of CIDR blocks. */
  static final List<String> QUORUM_RANGE_CIDRS =
      List.of("100/30", "104/29", "112/28", "128/26", "192/29");

  private static final Pattern NS_NAME = Pattern.compile("^" + NS_PREFIX + "(\\d+)-.*");
  private static final Pattern LINK_NAME = Pattern.compile("^" + LINK_PREFIX + "(\\d+)[bv]\\d*$");
  private static final Pattern SUBNET = Pattern.compile("10\\.87\\.(\\d+)\\.");

  private final CommandRunner cmd;
  private final long runId;
  private final int subnet;
  private final List<Integer> nodes;
  private final Set<String> blackholes = new LinkedHashSet<>();
  private final List<String> createdNamespaces = new ArrayList<>();
  private final List<String> createdLinks = new ArrayList<>();
  private boolean proxyAddresses;

  private NetNamespaces(CommandRunner cmd, long runId, int subnet, List<Integer> nodes) {
    this.cmd = cmd;
    this.runId = runId;
    this.subnet = subnet;
    this.nodes = List.copyOf(nodes);
  }

  /**
   * Removes stale namespaces of earlier runs, then creates the bridge and a namespace per node. On
   * failure everything created so far is removed again before the exception propagates.
   */
  public static NetNamespaces create(CommandRunner cmd, List<Integer> nodeIds) {
    for (int id : nodeIds) {
      if (id < 1 || id >= QUORUM_HOST_OFFSET) {
        throw new IllegalArgumentException(
            "node ids must be 1.." + (QUORUM_HOST_OFFSET - 1) + ": " + id);
      }
    }
    removeStale(cmd);
    long runId = ProcessHandle.current().pid();
    int subnet = freeSubnet(cmd, runId);
    NetNamespaces ns = new NetNamespaces(cmd, runId, subnet, nodeIds);
    try {
      ns.build();
    } catch (RuntimeException e) {
      ns.close();
      throw e;
    }
    LOG.info("network namespaces up: {} on 10.87.{}.0/24", ns.namespaces().values(), subnet);
    return ns;
  }

  private void build() {
    String bridge = bridgeName();
    cmd.run("ip", "link", "add", bridge, "type", "bridge");
    createdLinks.add(bridge);
    cmd.run("ip", "addr", "add", gateway() + "/24", "dev", bridge);
    cmd.run("ip", "link", "set", bridge, "up");
    for (int id : nodes) {
      String ns = namespace(id);
      String hostEnd = LINK_PREFIX + runId + "v" + id;
      String nsEnd = LINK_PREFIX + runId + "p" + id;
      cmd.run("ip", "netns", "add", ns);
      createdNamespaces.add(ns);
      cmd.run("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", nsEnd);
      createdLinks.add(hostEnd);
      cmd.run("ip", "link", "set", nsEnd, "netns", ns);
      cmd.run("ip", "-n", ns, "link", "set", nsEnd, "name", "eth0");
      cmd.run("ip", "-n", ns, "addr", "add", address(id, Plane.DATA) + "/24", "dev", "eth0");
      cmd.run("ip", "-n", ns, "addr", "add", address(id, Plane.QUORUM) + "/24", "dev", "eth0");
      cmd.run("ip", "-n", ns, "link", "set", "eth0", "up");
      cmd.run("ip", "-n", ns, "link", "set", "lo", "up");
      // Both addresses share the /24, so the kernel would pick the DATA address (the primary) as
      // the source of every connection, quorum ones included; a DATA-plane cut would then also eat
      // the replies to quorum traffic. These routes make quorum-plane connections leave from the
      // node's QUORUM address, so the two planes can really be cut apart.
      for (String cidr : QUORUM_RANGE_CIDRS) {
        cmd.run(
            "ip",
            "-n",
            ns,
            "route",
            "add",
            "10.87." + subnet + "." + cidr,
            "dev",
            "eth0",
            "src",
            address(id, Plane.QUORUM));
      }
      cmd.run("ip", "link", "set", hostEnd, "master", bridge);
      cmd.run("ip", "link", "set", hostEnd, "up");
    }
  }

  /** The namespace a node's process must run in. */
  public String namespace(int node) {
    requireNode(node);
    return NS_PREFIX + runId + "-n" + node;
  }

  /** Node id → namespace name, in node order. */
  public Map<Integer, String> namespaces() {
    Map<Integer, String> m = new LinkedHashMap<>();
    nodes.forEach(n -> m.put(n, namespace(n)));
    return m;
  }

  /** The node's IPv4 address on a plane. */
  public String address(int node, Plane plane) {
    requireNode(node);
    return "10.87." + subnet + "." + (plane == Plane.DATA ? node : QUORUM_HOST_OFFSET + node);
  }

  /** The bridge's address in the root namespace, through which the harness reaches the nodes. */
  public String gateway() {
    return "10.87." + subnet + "." + GATEWAY_HOST;
  }

  /** Prefix a node's command line with this to run it inside the node's namespace. */
  public List<String> execPrefix(int node) {
    return List.of("ip", "netns", "exec", namespace(node));
  }

  public long runId() {
    return runId;
  }

  /**
   * Adds, on the bridge in the root namespace, one address per node for a fault proxy in front of
   * that node's broker ({@link #proxyAddress}). Nodes then reach each other's brokers through the
   * proxies (when brokers advertise the proxy addresses), so from here on a DATA-plane {@link
   * #drop} also blackholes the target's proxy address in the sender's namespace: a partition still
   * cuts replication, while clients in the root namespace keep reaching every proxy.
   */
  public void addProxyAddresses() {
    if (proxyAddresses) {
      return;
    }
    for (int id : nodes) {
      if (PROXY_HOST_OFFSET + id >= GATEWAY_HOST) {
        throw new IllegalArgumentException(
            "proxy addresses need node ids below " + (GATEWAY_HOST - PROXY_HOST_OFFSET));
      }
      cmd.run("ip", "addr", "add", proxyAddress(id) + "/32", "dev", bridgeName());
    }
    proxyAddresses = true;
  }

  /** The root-namespace address of the fault proxy in front of {@code node}'s broker. */
  public String proxyAddress(int node) {
    requireNode(node);
    return "10.87." + subnet + "." + (PROXY_HOST_OFFSET + node);
  }

  @Override
  public void drop(int from, int to, Plane plane) {
    blackhole(from, address(to, plane));
    if (plane == Plane.DATA && proxyAddresses) {
      blackhole(from, proxyAddress(to));
    }
  }

  /**
   * Drops every packet from {@code from}'s namespace to the root namespace (the harness and its
   * clients): requests still arrive, answers and acknowledgements are lost. Healed by {@link
   * #healAll}.
   */
  public void dropToHost(int from) {
    blackhole(from, gateway());
  }

  private void blackhole(int from, String address) {
    String route = address + "/32";
    if (blackholes.add(namespace(from) + " " + route)) {
      cmd.run("ip", "-n", namespace(from), "route", "add", "blackhole", route);
    }
  }

  @Override
  public void healAll() {
    for (String entry : List.copyOf(blackholes)) {
      String[] parts = entry.split(" ");
      cmd.run("ip", "-n", parts[0], "route", "del", "blackhole", parts[1]);
      blackholes.remove(entry);
    }
  }

  /**
   * Removes everything this instance created. Safe to call twice; logs what it could not remove.
   */
  @Override
  public void close() {
    blackholes.clear();
    for (String link : List.copyOf(createdLinks)) {
      if (!link.equals(bridgeName())) {
        deleteLink(cmd, link);
      }
    }
    for (String ns : List.copyOf(createdNamespaces)) {
      if (!cmd.tryRun("ip", "netns", "del", ns).ok()) {
        LOG.warn("could not remove namespace {}", ns);
      }
    }
    if (createdLinks.contains(bridgeName())) {
      deleteLink(cmd, bridgeName());
    }
    createdLinks.clear();
    createdNamespaces.clear();
  }

  private String bridgeName() {
    return LINK_PREFIX + runId + "b";
  }

  private void requireNode(int node) {
    if (!nodes.contains(node)) {
      throw new IllegalArgumentException("no namespace for node " + node + "; nodes are " + nodes);
    }
  }

  private static void deleteLink(CommandRunner cmd, String link) {
    CommandRunner.Result r = cmd.tryRun("ip", "link", "del", link);
    if (!r.ok() && !r.stderr().contains("Cannot find device")) {
      LOG.warn("could not remove link {}: {}", link, r.stderr().strip());
    }
  }

  /**
   * Removes namespaces and links named by our prefixes whose owning PID is gone. Deleting the host
   * end of a veth also deletes the end inside the namespace, so links go first.
   */
  static List<String> removeStale(CommandRunner cmd) {
    List<String> removed = new ArrayList<>();
    for (String link : linkNames(cmd.tryRun("ip", "-o", "link", "show").stdout())) {
      Matcher m = LINK_NAME.matcher(link);
      if (m.matches() && !alive(Long.parseLong(m.group(1)))) {
        deleteLink(cmd, link);
        removed.add(link);
      }
    }
    for (String ns : namespaceNames(cmd.tryRun("ip", "netns", "list").stdout())) {
      Matcher m = NS_NAME.matcher(ns);
      if (m.matches() && !alive(Long.parseLong(m.group(1)))) {
        cmd.tryRun("ip", "netns", "del", ns);
        removed.add(ns);
      }
    }
    if (!removed.isEmpty()) {
      LOG.warn("removed stale network namespaces and links of dead harness runs: {}", removed);
    }
    return removed;
  }

  /** Names from {@code ip netns list} ("name" or "name (id: 3)" per line). */
  static List<String> namespaceNames(String ipNetnsList) {
    List<String> names = new ArrayList<>();
    for (String line : ipNetnsList.split("\n")) {
      String s = line.strip();
      if (!s.isEmpty()) {
        names.add(s.split("\\s+")[0]);
      }
    }
    return names;
  }

  /** Names from {@code ip -o link show} ("3: name@peer: <...>" per line). */
  static List<String> linkNames(String ipOLinkShow) {
    List<String> names = new ArrayList<>();
    for (String line : ipOLinkShow.split("\n")) {
      String[] parts = line.split(":\\s+", 3);
      if (parts.length >= 2) {
        names.add(parts[1].split("@")[0].strip());
      }
    }
    return names;
  }

  /**
   * The first 10.87.S.0/24 the host uses for nothing, starting from a place derived from the run.
   */
  static int freeSubnet(CommandRunner cmd, long runId) {
    String inUse =
        cmd.tryRun("ip", "-4", "route", "show", "table", "all").stdout()
            + cmd.tryRun("ip", "-4", "addr", "show").stdout();
    Set<Integer> used = new java.util.HashSet<>();
    Matcher m = SUBNET.matcher(inUse);
    while (m.find()) {
      used.add(Integer.parseInt(m.group(1)));
    }
    if (inUse.contains("10.87.0.0/16") || inUse.contains("10.0.0.0/8")) {
      throw new IllegalStateException(
          "the host already routes 10.87.0.0/16; refusing to add our namespaces there");
    }
    for (int i = 0; i < 250; i++) {
      int s = 1 + (int) ((runId + i) % 250);
      if (!used.contains(s)) {
        return s;
      }
    }
    throw new IllegalStateException("no free 10.87.x.0/24 subnet left on this host");
  }

  private static boolean alive(long pid) {
    return Files.exists(Path.of("/proc", Long.toString(pid)));
  }
}
