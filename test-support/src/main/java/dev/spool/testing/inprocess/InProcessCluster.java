package dev.spool.testing.inprocess;

import dev.spool.broker.Broker;
import dev.spool.client.Admin;
import dev.spool.client.TopicPartition;
import dev.spool.node.NodeConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.testing.ClusterNode;
import dev.spool.testing.Ports;
import dev.spool.testing.SpoolCluster;
import dev.spool.testing.probe.ClusterProbe;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
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
public final class InProcessCluster implements SpoolCluster {
  private static final Logger log = LoggerFactory.getLogger(InProcessCluster.class);
  private static final String HOST = "127.0.0.1";
  private static final int PROBE_TIMEOUT_MS = 3_000;

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

  private final Path dir;
  private final Map<Integer, InProcessNode> nodes;
  private final Map<Integer, InetSocketAddress> brokerAddresses;
  private final ClusterProbe probe;
  private Admin admin;
  private volatile boolean closed;

  private InProcessCluster(
      Path dir, Map<Integer, InProcessNode> nodes, Map<Integer, InetSocketAddress> brokers) {
    this.dir = dir;
    this.nodes = nodes;
    this.brokerAddresses = brokers;
    this.probe =
        new ClusterProbe(
            new ClusterProbe.Members() {
              @Override
              public List<Integer> servingBrokers() {
                return nodes.values().stream()
                    .filter(n -> n.broker() != null)
                    .map(InProcessNode::id)
                    .toList();
              }

              @Override
              public InetSocketAddress brokerAddress(int node) {
                return InProcessCluster.this.brokerAddress(node);
              }
            },
            PROBE_TIMEOUT_MS);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures and starts a cluster. Used by one thread. */
  public static final class Builder {
    private int nodes = 1;
    private Path dir;
    private String clusterId = "spool-test";
    private final Map<Integer, String> roles = new TreeMap<>();
    private final Map<String, String> config = new LinkedHashMap<>();
    private Duration startTimeout = Duration.ofSeconds(60);

    private Builder() {}

    /** Number of nodes, ids 1..n, combined broker + controller unless {@link #roles} says else. */
    public Builder nodes(int n) {
      if (n < 1 || n > 50) {
        throw new IllegalArgumentException("1..50 nodes, not " + n);
      }
      this.nodes = n;
      return this;
    }

    /** The roles of one node: {@code broker}, {@code controller} or {@code broker,controller}. */
    public Builder roles(int node, String roles) {
      this.roles.put(node, roles.replace(" ", ""));
      return this;
    }

    /** A node config key for every node (see {@code spool node start --help}). */
    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    /** The directory for the nodes' data (created); a new temporary directory if not set. */
    public Builder dir(Path dir) {
      this.dir = dir;
      return this;
    }

    public Builder clusterId(String id) {
      this.clusterId = id;
      return this;
    }

    /** How long {@link #start()} waits for a ready cluster. */
    public Builder startTimeout(Duration t) {
      this.startTimeout = t;
      return this;
    }

    /**
     * Starts every controller, then every broker, and waits until the cluster is ready. On failure
     * everything started is stopped again. A bad config key or value fails here, naming the key.
     */
    public InProcessCluster start() throws IOException {
      if (dir == null) {
        dir = Files.createTempDirectory("spool-cluster-");
      }
      Files.createDirectories(dir);
      Ports ports = new Ports();
      Map<Integer, InetSocketAddress> brokers = new TreeMap<>();
      List<String> voters = new ArrayList<>();
      for (int id = 1; id <= nodes; id++) {
        brokers.put(id, new InetSocketAddress(HOST, ports.next(HOST)));
        if (roleOf(id).contains("controller")) {
          voters.add(id + "@" + HOST + ":" + ports.next(HOST));
        }
      }
      if (voters.isEmpty()
          || IntStream.rangeClosed(1, nodes).noneMatch(id -> roleOf(id).contains("broker"))) {
        throw new IllegalArgumentException("a cluster needs a controller and a broker: " + roles);
      }
      Map<Integer, InProcessNode> members = new TreeMap<>();
      for (int id = 1; id <= nodes; id++) {
        members.put(id, new InProcessNode(id, NodeConfig.parse(props(id, brokers, voters))));
      }
      InProcessCluster c = new InProcessCluster(dir, members, brokers);
      try {
        members.values().forEach(InProcessNode::startController);
        members.values().forEach(InProcessNode::startBroker);
        c.awaitReady(startTimeout);
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
      log.info("in-process cluster of {} nodes ready: bootstrap {}", nodes, c.bootstrapServers());
      return c;
    }

    private String roleOf(int id) {
      return roles.getOrDefault(id, "broker,controller");
    }

    private Map<String, String> props(
        int id, Map<Integer, InetSocketAddress> brokers, List<String> voters) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("node.id", String.valueOf(id));
      p.put("process.roles", roleOf(id));
      p.put("cluster.id", clusterId);
      p.put("data.dir", dir.resolve("node-" + id).resolve("data").toString());
      p.put("listener", HOST + ":" + brokers.get(id).getPort());
      p.put("controller.quorum.voters", String.join(",", voters));
      p.put("controller.quorum.bind.host", HOST);
      p.putAll(TEST_DEFAULTS);
      p.putAll(config);
      return p;
    }
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

  /** The number of nodes. */
  public int size() {
    return nodes.size();
  }

  private InProcessNode member(int id) {
    InProcessNode n = nodes.get(id);
    if (n == null) {
      throw new IllegalArgumentException("no node " + id + " in " + nodes.keySet());
    }
    return n;
  }

  private InetSocketAddress brokerAddress(int id) {
    member(id);
    return brokerAddresses.get(id);
  }

  // ---------------------------------------------------------------- SpoolCluster

  @Override
  public String bootstrapServers() {
    return brokers().stream()
        .map(brokerAddresses::get)
        .map(a -> a.getHostString() + ":" + a.getPort())
        .collect(Collectors.joining(","));
  }

  @Override
  public synchronized Admin admin() {
    if (admin == null) {
      admin =
          new Admin(
              Map.of("bootstrap.servers", bootstrapServers(), "default.api.timeout.ms", "60000"));
    }
    return admin;
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
  public ClusterNode node(int id) {
    InProcessNode n = member(id);
    return new ClusterNode() {
      @Override
      public int id() {
        return id;
      }

      @Override
      public boolean isBroker() {
        return n.isBroker();
      }

      @Override
      public boolean isController() {
        return n.isController();
      }

      @Override
      public InetSocketAddress brokerAddress() {
        return brokerAddresses.get(id);
      }

      @Override
      public Path dataDir() {
        return dir.resolve("node-" + id).resolve("data");
      }

      @Override
      public boolean isRunning() {
        return n.isRunning();
      }

      @Override
      public void start() {
        probe.beforeStart(id);
        n.startController();
        n.startBroker();
      }

      @Override
      public void stop() {
        n.stopBroker(true);
        n.stopController(true);
      }

      @Override
      public void kill() {
        n.stopBroker(false);
        n.stopController(false);
      }
    };
  }

  @Override
  public OptionalInt activeController() {
    return probe.activeController();
  }

  @Override
  public OptionalInt partitionLeader(TopicPartition partition) {
    return probe.partitionLeader(partition);
  }

  @Override
  public List<Integer> partitionReplicas(TopicPartition partition) {
    return probe.partitionReplicas(partition);
  }

  /**
   * As {@link SpoolCluster#awaitReady}, and every running broker's own image shows it registered
   * and unfenced.
   */
  @Override
  public void awaitReady(Duration timeout) {
    probe.awaitReady(timeout);
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
  public void awaitFullIsr(Collection<String> topics, Duration timeout) {
    probe.awaitFullIsr(topics, timeout);
  }

  @Override
  public Path dir() {
    return dir;
  }

  @Override
  public void dumpLogs(PrintStream out, int lines) {
    out.println(
        "in-process nodes in "
            + dir
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
    synchronized (this) {
      if (admin != null) {
        admin.close();
      }
    }
    inParallel("stop-broker", n -> n.stopBroker(false));
    inParallel("stop-controller", n -> n.stopController(false));
    probe.close();
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
