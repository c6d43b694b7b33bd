package dev.spool.testing.process;

import dev.spool.client.Admin;
import dev.spool.client.TopicPartition;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.testing.ClusterNode;
import dev.spool.testing.SpoolCluster;
import dev.spool.testing.probe.ClusterProbe;
import dev.spool.testing.probe.NodeProbe;
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
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster of real Spool node processes started by this JVM: the harness behind the end-to-end
 * tests, the process mode of {@code @SpoolClusterTest} and the chaos runs.
 *
 * <pre>{@code
 * try (ProcessCluster c = ProcessCluster.builder().nodes(3).dir(tmp).start()) {
 *   try (Producer p = new Producer(Map.of("bootstrap.servers", c.bootstrapServers()))) { ... }
 *   c.kill(2, Signal.KILL);
 *   c.start(2);
 *   c.awaitReady(Duration.ofSeconds(60));
 * }
 * }</pre>
 *
 * <h2>What it does</h2>
 *
 * <ul>
 *   <li>Writes one config file per node under {@code dir/node-<id>/} and starts each node as {@code
 *       java -cp <this JVM's class path> dev.spool.node.SpoolMain node start --config <file>}, with
 *       small heaps, output appended to {@code dir/node-<id>/node-<id>.log} ({@link
 *       ClusterLayout}). Combined roles unless {@link Builder#roles} says otherwise; the
 *       controllers are the voters.
 *   <li>Records each node's PID and signals only that PID ({@link #kill}); {@link #stop} sends
 *       SIGTERM, then SIGKILL after a timeout ({@link NodeProcess}). A JVM shutdown hook kills the
 *       nodes and closes the network if the harness dies without {@link #close()}.
 *   <li>{@link #awaitReady}: the quorum has a leader and every running broker is registered and
 *       unfenced, asked of the nodes themselves; after a restart the node must show a newer broker
 *       epoch than before ({@link ClusterProbe}).
 *   <li>The active controller and partition leaders are the answer of the node with the newest view
 *       (highest Raft term / leader epoch), asked directly, so a partitioned node's stale belief
 *       never wins and the answer does not depend on proxies in front of the brokers.
 * </ul>
 *
 * <p>Where nodes listen is up to its {@link NodeNetwork}: {@link LoopbackNetwork} (every node on
 * 127.0.0.1, free ports below the ephemeral range, kept across restarts) unless {@link
 * Builder#network} gives another (the chaos suite runs nodes in network namespaces and behind fault
 * proxies that way).
 *
 * <p>Thread-safe: nemeses, workload observers and the test thread call it concurrently.
 */
public final class ProcessCluster implements SpoolCluster {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessCluster.class);
  private static final int PROBE_TIMEOUT_MS = 3_000;

  /** Small heaps and a quick start: tests run several node JVMs on small machines. */
  public static final List<String> DEFAULT_JVM_OPTIONS =
      List.of(
          "-Xmx256m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:-UsePerfData",
          "-Djava.net.preferIPv4Stack=true");

  private final Path dir;
  private final Map<Integer, NodeProcess> nodes;
  private final Map<Integer, NodeAddresses> addresses;
  private final NodeNetwork network;
  private final List<String> notes;
  private final long stopTimeoutMs;
  private final ClusterProbe probe;
  private final Thread shutdownHook;

  private Admin admin;
  private volatile boolean closed;

  private ProcessCluster(
      Path dir,
      Map<Integer, NodeProcess> nodes,
      Map<Integer, NodeAddresses> addresses,
      NodeNetwork network,
      long stopTimeoutMs) {
    this.dir = dir;
    this.nodes = nodes;
    this.addresses = addresses;
    this.network = network;
    this.notes = List.copyOf(network.notes());
    this.stopTimeoutMs = stopTimeoutMs;
    this.probe =
        new ClusterProbe(
            new ClusterProbe.Members() {
              @Override
              public List<Integer> servingBrokers() {
                return ProcessCluster.this.servingBrokers();
              }

              @Override
              public InetSocketAddress brokerAddress(int node) {
                return addresses(node).broker();
              }
            },
            PROBE_TIMEOUT_MS);
    this.shutdownHook = new Thread(this::emergencyStop, "process-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures and starts a cluster. Used by one thread. */
  public static final class Builder {
    private int nodes = 3;
    private final Map<Integer, String> roles = new TreeMap<>();
    private Path dir;
    private NodeNetwork network;
    private final Map<String, String> config = new LinkedHashMap<>();
    private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;
    private Duration startTimeout = Duration.ofSeconds(90);
    private Duration stopTimeout = Duration.ofSeconds(30);
    private String clusterId = "chaos";

    private Builder() {}

    /** Number of nodes, all combined broker + controller unless {@link #roles} says else. */
    public Builder nodes(int n) {
      if (n < 1 || n > 50) {
        throw new IllegalArgumentException("1..50 nodes, not " + n);
      }
      this.nodes = n;
      return this;
    }

    /**
     * The roles of one node: {@code broker}, {@code controller} or {@code broker,controller} (the
     * default). Voters are the nodes with the controller role; e.g. three broker-only nodes and one
     * controller-only node keep a quorum whatever happens to the brokers.
     */
    public Builder roles(int node, String roles) {
      String r = roles.replace(" ", "");
      if (!List.of("broker", "controller", "broker,controller", "controller,broker").contains(r)) {
        throw new IllegalArgumentException(
            "roles must be broker, controller or broker,controller: " + roles);
      }
      this.roles.put(node, r);
      return this;
    }

    /** A node config key for every node (see {@code spool node start --help}). */
    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    /** The directory for configs, data and logs (created; should be empty). */
    public Builder dir(Path dir) {
      this.dir = dir;
      return this;
    }

    /** Where the nodes listen ({@link LoopbackNetwork} by default); the cluster closes it. */
    public Builder network(NodeNetwork network) {
      this.network = network;
      return this;
    }

    public Builder jvmOptions(List<String> options) {
      this.jvmOptions = List.copyOf(options);
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

    /** How long a node gets after SIGTERM before SIGKILL. */
    public Builder stopTimeout(Duration t) {
      this.stopTimeout = t;
      return this;
    }

    /**
     * Writes the configs, starts every node and waits until the cluster is ready. On failure
     * everything started is stopped again and the network closed (node logs are kept in {@code
     * dir}).
     */
    public ProcessCluster start() throws IOException {
      if (dir == null) {
        dir = Files.createTempDirectory("spool-cluster-");
      }
      List<Integer> ids = new ArrayList<>();
      Map<Integer, String> roleOf = new TreeMap<>();
      for (int i = 1; i <= nodes; i++) {
        ids.add(i);
        roleOf.put(i, roles.getOrDefault(i, "broker,controller"));
      }
      if (roleOf.values().stream().noneMatch(r -> r.contains("controller"))
          || roleOf.values().stream().noneMatch(r -> r.contains("broker"))) {
        throw new IllegalArgumentException("a cluster needs a controller and a broker: " + roleOf);
      }
      NodeNetwork net = network != null ? network : new LoopbackNetwork();
      ProcessCluster c;
      try {
        Map<Integer, NodeAddresses> addrs = net.layout(ids);
        ClusterLayout.Spec spec =
            new ClusterLayout.Spec(dir, clusterId, roleOf, config, jvmOptions);
        Map<Integer, NodeProcess> procs = ClusterLayout.write(spec, addrs, net);
        c = new ProcessCluster(dir, procs, addrs, net, stopTimeout.toMillis());
      } catch (IOException | RuntimeException e) {
        net.close();
        throw e;
      }
      // From here c.close() cleans up, the network included.
      try {
        c.nodes.values().forEach(NodeProcess::start);
        c.awaitReady(startTimeout);
      } catch (RuntimeException e) {
        LOG.error("cluster in {} did not start: {}", dir, e.getMessage());
        c.dumpLogs(80);
        c.close();
        throw e;
      }
      LOG.info("cluster ready in {}: bootstrap {}", dir, c.bootstrapServers());
      return c;
    }
  }

  // ---------------------------------------------------------------- addresses and paths

  /** {@code host:port,...} for clients: what the brokers advertise (a proxy, if any). */
  @Override
  public String bootstrapServers() {
    return joinBrokers(NodeAddresses::client);
  }

  /** The brokers' own addresses (not through any proxy). */
  public String directBootstrapServers() {
    return joinBrokers(NodeAddresses::broker);
  }

  private String joinBrokers(Function<NodeAddresses, InetSocketAddress> which) {
    return addresses.values().stream()
        .filter(a -> nodes.get(a.id()).isBroker())
        .map(which)
        .map(s -> s.getHostString() + ":" + s.getPort())
        .collect(Collectors.joining(","));
  }

  public NodeAddresses addresses(int node) {
    return require(node, addresses.get(node));
  }

  @Override
  public Path dir() {
    return dir;
  }

  public Path logFile(int node) {
    return proc(node).logFile();
  }

  public List<Path> logFiles() {
    return nodes.values().stream().map(NodeProcess::logFile).toList();
  }

  public Path configFile(int node) {
    return proc(node).configFile();
  }

  public long pid(int node) {
    return proc(node).pid();
  }

  /** The network the nodes run in (the one given to the builder, or loopback). */
  public NodeNetwork network() {
    return network;
  }

  /** Things a reader of a run must know (e.g. partitions unavailable, proxies in the data path). */
  public List<String> notes() {
    return notes;
  }

  /** A shared admin client (through {@link #bootstrapServers()}), closed with the cluster. */
  @Override
  public synchronized Admin admin() {
    if (admin == null) {
      admin =
          new Admin(
              Map.of("bootstrap.servers", bootstrapServers(), "default.api.timeout.ms", "60000"));
    }
    return admin;
  }

  // ---------------------------------------------------------------- nodes

  @Override
  public List<Integer> nodes() {
    return List.copyOf(nodes.keySet());
  }

  @Override
  public List<Integer> controllers() {
    return nodes.values().stream().filter(NodeProcess::isController).map(NodeProcess::id).toList();
  }

  @Override
  public List<Integer> brokers() {
    return nodes.values().stream().filter(NodeProcess::isBroker).map(NodeProcess::id).toList();
  }

  @Override
  public ClusterNode node(int id) {
    NodeProcess p = proc(id);
    return new ClusterNode() {
      @Override
      public int id() {
        return id;
      }

      @Override
      public boolean isBroker() {
        return p.isBroker();
      }

      @Override
      public boolean isController() {
        return p.isController();
      }

      @Override
      public InetSocketAddress brokerAddress() {
        return addresses(id).broker();
      }

      @Override
      public Path dataDir() {
        return p.dataDir();
      }

      @Override
      public boolean isRunning() {
        return p.isRunning();
      }

      @Override
      public void start() {
        ProcessCluster.this.start(id);
      }

      @Override
      public void stop() {
        ProcessCluster.this.stop(id);
      }

      @Override
      public void kill() {
        ProcessCluster.this.kill(id, Signal.KILL);
      }

      @Override
      public void restart() {
        ProcessCluster.this.restart(id);
      }
    };
  }

  /** Sends {@code signal} to the node's recorded PID; does nothing if it is not running. */
  public void kill(int nodeId, Signal signal) {
    proc(nodeId).signal(signal);
  }

  /** Starts the node's process again with its old config and data; no-op while it runs. */
  public void start(int nodeId) {
    NodeProcess p = proc(nodeId);
    if (p.isRunning()) {
      return;
    }
    probe.beforeStart(nodeId);
    p.start();
  }

  public boolean isRunning(int nodeId) {
    return proc(nodeId).isRunning();
  }

  /** Running and not paused by SIGSTOP. */
  public boolean isServing(int nodeId) {
    return proc(nodeId).isServing();
  }

  public Path nodeDataDir(int nodeId) {
    return proc(nodeId).dataDir();
  }

  /** Nodes running and not paused. */
  public List<Integer> servingNodes() {
    return nodes.values().stream().filter(NodeProcess::isServing).map(NodeProcess::id).toList();
  }

  /** Brokers running and not paused: the nodes a probe can ask. */
  public List<Integer> servingBrokers() {
    return nodes.values().stream()
        .filter(p -> p.isBroker() && p.isServing())
        .map(NodeProcess::id)
        .toList();
  }

  /** Every file under the node's data directory (for tests that look at segments). */
  public List<Path> dataFiles(int node) throws IOException {
    try (Stream<Path> s = Files.walk(nodeDataDir(node))) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  // ---------------------------------------------------------------- what the nodes say

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

  /** The partition as the node with the highest leader epoch for it describes it. */
  public Optional<PartitionMetadata> newestView(TopicPartition partition) {
    return probe.newestView(partition);
  }

  /**
   * Each serving node's own metadata for {@code topics} (nodes that did not answer are left out).
   */
  public Map<Integer, MetadataResponse> views(Collection<String> topics) {
    return probe.views(topics);
  }

  /** A probe that talks to {@code node}'s broker directly. */
  public NodeProbe probe(int node) {
    return probe.probe(node);
  }

  @Override
  public void awaitReady(Duration timeout) {
    probe.awaitReady(timeout);
  }

  @Override
  public void awaitFullIsr(Collection<String> topics, Duration timeout) {
    probe.awaitFullIsr(topics, timeout);
  }

  /**
   * Polls {@code condition} every 200 ms until true or {@code timeout}; then throws with {@code
   * why}.
   */
  public static void await(
      String what, Duration timeout, BooleanSupplier condition, Supplier<String> why) {
    ClusterProbe.await(what, timeout, condition, why);
  }

  // ---------------------------------------------------------------- lifecycle

  /** SIGTERM (controlled shutdown), wait for exit (SIGKILL after the stop timeout), start again. */
  public void restart(int node) {
    proc(node).stop(stopTimeoutMs);
    start(node);
  }

  /** SIGTERM, then SIGKILL if the node has not exited within the stop timeout. */
  public void stop(int node) {
    proc(node).stop(stopTimeoutMs);
  }

  /**
   * Stops every node: SIGTERM to all nodes with the broker role at once (their controlled shutdowns
   * need the quorum, so controller-only nodes wait), then to the controller-only nodes; SIGKILL to
   * any still running after the stop timeout.
   */
  public void stop() {
    stopAll(nodes.values().stream().filter(NodeProcess::isBroker).toList());
    stopAll(nodes.values().stream().filter(p -> !p.isBroker()).toList());
  }

  private void stopAll(List<NodeProcess> group) {
    List<NodeProcess> terminated = group.stream().filter(NodeProcess::terminate).toList();
    for (NodeProcess p : terminated) {
      p.awaitExitOrKill(stopTimeoutMs);
    }
  }

  /** Logs the last {@code lines} lines of every node log to the harness log (for failures). */
  public void dumpLogs(int lines) {
    for (NodeProcess p : nodes.values()) {
      LOG.error("{}", NodeLogs.tail(p.id(), p.logFile(), lines));
    }
  }

  @Override
  public void dumpLogs(PrintStream out, int lines) {
    out.println("node configs, data and logs in " + dir);
    for (NodeProcess p : nodes.values()) {
      out.println(NodeLogs.tail(p.id(), p.logFile(), lines));
    }
    out.flush();
  }

  /** Stops every node (SIGTERM, then SIGKILL) and closes the network. */
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
    try {
      stop();
    } finally {
      probe.close();
      network.close();
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down; the hook runs emergencyStop, which is harmless now
      }
    }
  }

  /** The shutdown hook: the JVM is exiting without close(); kill fast and clean up. */
  private void emergencyStop() {
    if (closed) {
      return;
    }
    for (NodeProcess p : nodes.values()) {
      p.signal(Signal.KILL);
    }
    network.close();
  }

  private NodeProcess proc(int node) {
    return require(node, nodes.get(node));
  }

  private <T> T require(int node, T t) {
    if (t == null) {
      throw new IllegalArgumentException("no node " + node + " in " + nodes.keySet());
    }
    return t;
  }
}
