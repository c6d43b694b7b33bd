package dev.spool.testing.inprocess;

import dev.spool.broker.Broker;
import dev.spool.broker.BrokerConfig;
import dev.spool.node.NodeConfig;
import dev.spool.node.NodeStorage;
import dev.spool.quorum.BootstrapCredentials;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.message.ScramCredentialRecord;
import dev.spool.testing.AbstractSpoolCluster;
import dev.spool.testing.ClientSecurity;
import dev.spool.testing.ClusterBuilder;
import dev.spool.testing.Ports;
import dev.spool.testing.probe.ClusterProbe;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Spool cluster inside this JVM: each node a real quorum member (Ratis) and a real broker on
 * 127.0.0.1, talking over real sockets, with short timeouts so failures are detected in a test's
 * time (heartbeats every 100 ms, a session timeout and replica lag of 1.5 s). Starts in a second or
 * two; tests can reach into a broker ({@link #broker}) and stop one role of a node while the other
 * runs ({@link #stopBroker}).
 *
 * <pre>{@code
 * try (InProcessCluster c = InProcessCluster.builder().nodes(3).dir(tmp).start()) {
 *   c.admin().createTopic(new NewTopic("orders", 3, 3, Map.of())).join();
 *   c.stopBroker(2);
 *   c.startBroker(2);
 * }
 * }</pre>
 *
 * <p>Ports (brokers and quorum) are chosen once, below the ephemeral range, and kept across
 * restarts. Nodes log through this JVM's SLF4J binding, each line tagged {@code [node=<id>]}.
 *
 * <p>Thread-safe: tests may call it from several threads.
 */
public final class InProcessCluster extends AbstractSpoolCluster {
  private static final Logger log = LoggerFactory.getLogger(InProcessCluster.class);
  private static final String HOST = "127.0.0.1";

  /** Timeouts short enough for a test, applied before the builder's config. */
  private static final Map<String, String> TEST_DEFAULTS =
      Map.ofEntries(
          Map.entry("broker.heartbeat.interval.ms", "100"),
          Map.entry("broker.session.timeout.ms", "1500"),
          Map.entry("replica.lag.time.max.ms", "1500"),
          Map.entry("replica.fetch.wait.max.ms", "200"),
          Map.entry("replica.fetch.backoff.ms", "50"),
          Map.entry("num.partition.threads", "1"),
          Map.entry("num.network.threads", "1"),
          Map.entry("log.recovery.threads", "1"),
          Map.entry("request.timeout.ms", "10000"));

  private final Map<Integer, InProcessNode> nodes;
  private final Map<Integer, InetSocketAddress> brokerAddresses;
  private final Map<String, String> clientSecurity;
  private volatile boolean closed;

  private InProcessCluster(
      Path dir,
      Map<Integer, InProcessNode> nodes,
      Map<Integer, InetSocketAddress> brokers,
      Map<String, String> clientSecurity) {
    super(dir);
    this.nodes = nodes;
    this.brokerAddresses = brokers;
    this.clientSecurity = Map.copyOf(clientSecurity);
  }

  /**
   * The client keys that reach this cluster's Spool listeners (security.protocol=SSL and the nodes'
   * ssl.* keys when they speak TLS); empty for plaintext. Tests' own clients add them.
   */
  @Override
  public Map<String, String> clientSecurity() {
    return clientSecurity;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures and starts a cluster. Used by one thread. */
  public static final class Builder extends ClusterBuilder<Builder> {
    private final Map<Integer, Map<String, String>> nodeConfig = new TreeMap<>();
    private OptionalInt releaseVersion = OptionalInt.empty();
    private final List<String> addScram = new ArrayList<>();

    private Builder() {
      super(1, "spool-test", Duration.ofSeconds(60));
    }

    /** A node config key for node {@code id} only, over {@link #config}. */
    public Builder nodeConfig(int id, String key, String value) {
      nodeConfig.computeIfAbsent(id, k -> new LinkedHashMap<>()).put(key, value);
      return this;
    }

    /**
     * The metadata.version the cluster bootstraps at, as {@code spool storage format
     * --release-version} records it; default: the highest level the first active controller
     * supports.
     */
    public Builder releaseVersion(int level) {
      this.releaseVersion = OptionalInt.of(level);
      return this;
    }

    /**
     * A SCRAM user the cluster starts with, as {@code spool storage format --add-scram} takes it
     * ({@code SCRAM-SHA-256=[name=admin,password=admin-secret]}); repeatable.
     */
    public Builder addScram(String spec) {
      addScram.add(spec);
      return this;
    }

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * Starts every controller, then every broker, and waits until the cluster is ready. On failure
     * everything started is stopped again. A bad config key or value fails here, naming the key.
     */
    public InProcessCluster start() throws IOException {
      Map<Integer, String> roles = rolesOfAll();
      Path dir = createdDir();
      Ports ports = new Ports();
      Map<Integer, InetSocketAddress> brokers = new TreeMap<>();
      List<String> voters = new ArrayList<>();
      for (int id : roles.keySet()) {
        brokers.put(id, new InetSocketAddress(HOST, ports.next(HOST)));
        if (roles.get(id).contains("controller")) {
          voters.add(id + "@" + HOST + ":" + ports.next(HOST));
        }
      }
      Map<Integer, InProcessNode> members = new TreeMap<>();
      for (int id : roles.keySet()) {
        Map<String, String> props = props(id, roles.get(id), dir, brokers.get(id), voters);
        members.put(id, new InProcessNode(id, NodeConfig.parse(props)));
      }
      InProcessCluster c =
          new InProcessCluster(dir, members, brokers, ClientSecurity.forNodes(config()));
      try {
        // As an operator would before the first start (spool storage format); a directory left
        // formatted by an earlier cluster of this id and node keeps its identity.
        SecureRandom random = new SecureRandom();
        List<ScramCredentialRecord> users =
            addScram.stream().map(spec -> BootstrapCredentials.parse(spec, random)).toList();
        members
            .values()
            .forEach(
                m ->
                    NodeStorage.format(
                        m.config(),
                        m.config().get(BrokerConfig.CLUSTER_ID),
                        true,
                        releaseVersion,
                        users));
        members.values().forEach(InProcessNode::startController);
        members.values().forEach(InProcessNode::startBroker);
        c.awaitReady(startTimeout());
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
      log.info(
          "in-process cluster of {} nodes ready: bootstrap {}", roles.size(), c.bootstrapServers());
      return c;
    }

    private Map<String, String> props(
        int id, String roles, Path dir, InetSocketAddress broker, List<String> voters) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("node.id", String.valueOf(id));
      p.put("process.roles", roles);
      p.put("cluster.id", clusterId());
      p.put("data.dir", dataDir(dir, id).toString());
      p.put("listener", HOST + ":" + broker.getPort());
      p.put("controller.quorum.voters", String.join(",", voters));
      p.put("controller.quorum.bind.host", HOST);
      p.putAll(TEST_DEFAULTS);
      p.putAll(config());
      p.putAll(nodeConfig.getOrDefault(id, Map.of()));
      return p;
    }
  }

  private static Path dataDir(Path dir, int id) {
    return dir.resolve("node-" + id).resolve("data");
  }

  // ---------------------------------------------------------------- reaching into the nodes

  /** Node {@code id}'s broker, or null while its broker role is stopped (or it has none). */
  public Broker broker(int id) {
    return member(id).broker();
  }

  /** Node {@code id}'s quorum member, or null while its controller role is stopped. */
  public QuorumServer quorumServer(int id) {
    return member(id).quorumServer();
  }

  /** Starts (or restarts, on the same port and data) node {@code id}'s broker role only. */
  public Broker startBroker(int id) {
    probe.beforeStart(id);
    return member(id).startBroker();
  }

  /** Stops node {@code id}'s broker at once (no controlled shutdown); its controller runs on. */
  public void stopBroker(int id) {
    member(id).stopBroker(false);
  }

  /**
   * Cuts node {@code id}'s broker off from the metadata quorum (every heartbeat, registration and
   * ISR change fails; its clients and followers still reach it), as a network partition between
   * that broker and the controllers would; {@link #healQuorumLink} undoes it.
   */
  public void cutQuorumLink(int id) {
    member(id).setQuorumLinkCut(true);
  }

  /** Gives node {@code id}'s broker its link to the quorum back. */
  public void healQuorumLink(int id) {
    member(id).setQuorumLinkCut(false);
  }

  /** The number of nodes. */
  public int size() {
    return nodes.size();
  }

  /**
   * The controllers as {@code controller.quorum.voters} lists them (ID@HOST:PORT,...), e.g. for
   * {@code spool quorum describe --bootstrap-controller}.
   */
  public String quorumVoters() {
    return nodes.values().iterator().next().config().get(QuorumConfig.VOTERS);
  }

  private InProcessNode member(int id) {
    InProcessNode n = nodes.get(id);
    if (n == null) {
      throw new IllegalArgumentException("no node " + id + " in " + nodes.keySet());
    }
    return n;
  }

  // ---------------------------------------------------------------- SpoolCluster

  @Override
  public List<Integer> servingBrokers() {
    return nodes.values().stream().filter(n -> n.broker() != null).map(InProcessNode::id).toList();
  }

  @Override
  public List<Integer> nodes() {
    return List.copyOf(nodes.keySet());
  }

  @Override
  public List<Integer> brokers() {
    return nodes.values().stream().filter(InProcessNode::isBroker).map(InProcessNode::id).toList();
  }

  @Override
  public List<Integer> controllers() {
    return nodes.values().stream()
        .filter(InProcessNode::isController)
        .map(InProcessNode::id)
        .toList();
  }

  @Override
  protected InetSocketAddress brokerAddress(int node) {
    member(node);
    return brokerAddresses.get(node);
  }

  @Override
  public Path nodeDataDir(int node) {
    member(node);
    return dataDir(dir(), node);
  }

  @Override
  public boolean isRunning(int node) {
    return member(node).isRunning();
  }

  /** Starts whichever of its roles are stopped, the controller first. */
  @Override
  public void start(int node) {
    InProcessNode n = member(node);
    probe.beforeStart(node);
    n.startController();
    n.startBroker();
  }

  /** A controlled shutdown of its broker, then its quorum member hands over and closes. */
  @Override
  public void stop(int node) {
    InProcessNode n = member(node);
    n.stopBroker(true);
    n.stopController(true);
  }

  /**
   * Closes its broker without a controlled shutdown, then its quorum member (which still closes its
   * files cleanly: for crash recovery use process mode).
   */
  @Override
  public void kill(int node) {
    InProcessNode n = member(node);
    n.stopBroker(false);
    n.stopController(false);
  }

  /**
   * As {@link SpoolCluster#awaitReady}, and every running broker's own image shows it registered
   * and unfenced.
   */
  @Override
  public void awaitReady(Duration timeout) {
    super.awaitReady(timeout);
    ClusterProbe.await(
        "every broker sees itself unfenced",
        timeout,
        () -> unfencedInOwnImage() == null,
        () -> "broker " + unfencedInOwnImage() + " does not");
  }

  private Integer unfencedInOwnImage() {
    for (InProcessNode n : nodes.values()) {
      Broker b = n.broker();
      BrokerRegistration r = b == null ? null : b.image().broker(n.id());
      if (b != null && (r == null || r.fenced())) {
        return n.id();
      }
    }
    return null;
  }

  @Override
  public void dumpLogs(PrintStream out, int lines) {
    out.println(
        "in-process nodes in "
            + dir()
            + " log into this JVM's own output (lines tagged [node=<id>]); their state now:");
    for (InProcessNode n : nodes.values()) {
      Broker b = n.broker();
      QuorumServer q = n.quorumServer();
      out.println(
          "  node "
              + n.id()
              + ": broker "
              + (!n.isBroker()
                  ? "(no role)"
                  : b == null
                      ? "stopped"
                      : b.state() + " epoch " + b.brokerEpoch() + " port " + b.boundPort())
              + ", controller "
              + (!n.isController()
                  ? "(no role)"
                  : q == null
                      ? "stopped"
                      : "term "
                          + q.term()
                          + " leader "
                          + q.activeControllerId()
                          + " applied "
                          + q.appliedIndex()));
    }
    out.flush();
  }

  /**
   * Stops every broker (no controlled shutdown), then every quorum member, each group in parallel:
   * a Ratis server takes about 2 s to close, which one after the other would add up.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeClients();
    inParallel("stop-broker", n -> n.stopBroker(false));
    inParallel("stop-controller", n -> n.stopController(false));
  }

  private void inParallel(String what, Consumer<InProcessNode> action) {
    List<Thread> threads = new ArrayList<>();
    for (InProcessNode n : nodes.values()) {
      Thread t = new Thread(() -> action.accept(n), what + "-" + n.id());
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
