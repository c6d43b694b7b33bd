package dev.spool.testing.process;

import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.testing.AbstractSpoolCluster;
import dev.spool.testing.ClientSecurity;
import dev.spool.testing.ClusterBuilder;
import dev.spool.testing.Ports;
import dev.spool.testing.probe.ClusterProbe;
import dev.spool.testing.probe.NodeProbe;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
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
 *   <li>Formats every node's directories before the first start with {@code spool storage format}
 *       (one process per node, in parallel; {@code --ignore-formatted}, so a directory kept from an
 *       earlier cluster of the same id and node keeps its identity), as an operator would.
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
public final class ProcessCluster extends AbstractSpoolCluster {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessCluster.class);

  /** Small heaps and a quick start: tests run several node JVMs on small machines. */
  public static final List<String> DEFAULT_JVM_OPTIONS =
      List.of(
          "-Xmx256m",
          "-XX:+ExitOnOutOfMemoryError",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:-UsePerfData",
          "-Djava.net.preferIPv4Stack=true");

  private final Map<Integer, NodeProcess> nodes;
  private final Map<Integer, NodeAddresses> addresses;
  private final NodeNetwork network;
  private final List<String> notes;
  private final long stopTimeoutMs;
  private final Map<Integer, String> kafkaListeners;
  private final Map<String, String> clientSecurity;
  private final Thread shutdownHook;
  private volatile boolean closed;

  private ProcessCluster(
      Path dir,
      Map<Integer, NodeProcess> nodes,
      Map<Integer, NodeAddresses> addresses,
      NodeNetwork network,
      long stopTimeoutMs,
      Map<Integer, String> kafkaListeners,
      Map<String, String> clientSecurity) {
    super(dir);
    this.kafkaListeners = Map.copyOf(kafkaListeners);
    this.clientSecurity = Map.copyOf(clientSecurity);
    this.nodes = nodes;
    this.addresses = addresses;
    this.network = network;
    this.notes = List.copyOf(network.notes());
    this.stopTimeoutMs = stopTimeoutMs;
    this.shutdownHook = new Thread(this::emergencyStop, "process-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures and starts a cluster. Used by one thread. */
  public static final class Builder extends ClusterBuilder<Builder> {
    private NodeNetwork network;
    private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;
    private Duration stopTimeout = Duration.ofSeconds(30);
    private boolean kafkaListeners;
    private final Set<Integer> joiners = new TreeSet<>();

    private Builder() {
      super(3, "chaos", Duration.ofSeconds(90));
    }

    @Override
    protected Builder self() {
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

    /** How long a node gets after SIGTERM before SIGKILL. */
    public Builder stopTimeout(Duration t) {
      this.stopTimeout = t;
      return this;
    }

    /**
     * Every broker also listens for Kafka's wire protocol ({@code kafka.listener}) on a port of its
     * own beside its broker address, kept across restarts; {@link #kafkaBootstrapServers()} lists
     * them.
     */
    public Builder kafkaListeners(boolean on) {
      this.kafkaListeners = on;
      return this;
    }

    /**
     * Node {@code node} (a controller, see {@link #roles}) is not one of the quorum's voters at the
     * start: it is left out of {@code controller.quorum.voters} and starts as a new controller at
     * its quorum address ({@code controller.quorum.listener}), waiting for {@code spool quorum
     * add-voter} (docs/operations.md#dynamic-controller-quorum).
     */
    public Builder joining(int node) {
      this.joiners.add(node);
      return this;
    }

    /** A Kafka listener port per node on its broker's host, clear of the ports laid out. */
    private static Map<Integer, String> kafkaLayout(Map<Integer, NodeAddresses> addrs) {
      Ports ports = new Ports();
      Set<Integer> taken = new HashSet<>();
      addrs
          .values()
          .forEach(a -> taken.addAll(List.of(a.broker().getPort(), a.quorum().getPort())));
      Map<Integer, String> out = new TreeMap<>();
      for (NodeAddresses a : addrs.values()) {
        String host = a.broker().getHostString();
        int port = ports.next(host);
        while (!taken.add(port)) {
          port = ports.next(host);
        }
        out.put(a.id(), host + ":" + port);
      }
      return out;
    }

    /**
     * Writes the configs, starts every node and waits until the cluster is ready. On failure
     * everything started is stopped again and the network closed (node logs are kept in {@code
     * dir}).
     */
    public ProcessCluster start() throws IOException {
      Map<Integer, String> roleOf = rolesOfAll();
      for (int j : joiners) {
        if (!roleOf.getOrDefault(j, "").contains("controller")) {
          throw new IllegalArgumentException("joining node " + j + " is not a controller");
        }
      }
      if (roleOf.entrySet().stream()
          .noneMatch(e -> e.getValue().contains("controller") && !joiners.contains(e.getKey()))) {
        throw new IllegalArgumentException("a cluster needs a voter that is not joining");
      }
      Path dir = createdDir();
      NodeNetwork net = network != null ? network : new LoopbackNetwork();
      ProcessCluster c;
      try {
        Map<Integer, NodeAddresses> addrs = net.layout(List.copyOf(roleOf.keySet()));
        Map<Integer, String> kafka = kafkaListeners ? kafkaLayout(addrs) : Map.of();
        ClusterLayout.Spec spec =
            new ClusterLayout.Spec(
                dir, clusterId(), roleOf, config(), jvmOptions, kafka, Set.copyOf(joiners));
        Map<Integer, NodeProcess> procs = ClusterLayout.write(spec, addrs, net);
        c =
            new ProcessCluster(
                dir,
                procs,
                addrs,
                net,
                stopTimeout.toMillis(),
                kafka,
                ClientSecurity.forNodes(config()));
      } catch (IOException | RuntimeException e) {
        net.close();
        throw e;
      }
      // From here c.close() cleans up, the network included.
      try {
        c.format();
        c.nodes.values().forEach(NodeProcess::start);
        c.awaitReady(startTimeout());
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

  /** How long one node's {@code spool storage format} may take (a JVM start and a few files). */
  private static final long FORMAT_TIMEOUT_MS = 60_000;

  /** Formats every node's directories, the nodes in parallel. */
  private void format() {
    Map<NodeProcess, Process> running =
        new TreeMap<>(java.util.Comparator.comparingInt(NodeProcess::id));
    for (NodeProcess p : nodes.values()) {
      running.put(p, p.startFormat());
    }
    running.forEach((p, format) -> p.awaitFormat(format, FORMAT_TIMEOUT_MS));
  }

  // ---------------------------------------------------------------- addresses and paths

  /**
   * The client keys that reach these nodes' Spool listeners (security.protocol=SSL and the nodes'
   * ssl.* keys when they speak TLS; empty for plaintext): the shared admin client and the probes
   * use them, and so can a harness's own clients.
   */
  @Override
  public Map<String, String> clientSecurity() {
    return clientSecurity;
  }

  /** What clients use: the brokers' advertised addresses (their proxies in proxy mode). */
  @Override
  protected InetSocketAddress clientAddress(int node) {
    return addresses(node).client();
  }

  /**
   * {@code host:port,...} of the brokers' Kafka listeners, for Kafka's clients (never through a
   * proxy); throws unless the builder turned them on.
   */
  public String kafkaBootstrapServers() {
    if (kafkaListeners.isEmpty()) {
      throw new IllegalStateException("no Kafka listeners: see Builder#kafkaListeners");
    }
    return brokers().stream().map(kafkaListeners::get).collect(Collectors.joining(","));
  }

  /** The brokers' own addresses (not through any proxy). */
  public String directBootstrapServers() {
    return brokers().stream()
        .map(n -> addresses(n).broker())
        .map(s -> s.getHostString() + ":" + s.getPort())
        .collect(Collectors.joining(","));
  }

  public NodeAddresses addresses(int node) {
    return require(node, addresses.get(node));
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
  protected InetSocketAddress brokerAddress(int node) {
    return addresses(node).broker();
  }

  /** SIGKILL. */
  @Override
  public void kill(int nodeId) {
    kill(nodeId, Signal.KILL);
  }

  /** Sends {@code signal} to the node's recorded PID; does nothing if it is not running. */
  public void kill(int nodeId, Signal signal) {
    proc(nodeId).signal(signal);
  }

  /** Starts the node's process again with its old config and data; no-op while it runs. */
  @Override
  public void start(int nodeId) {
    NodeProcess p = proc(nodeId);
    if (p.isRunning()) {
      return;
    }
    probe.beforeStart(nodeId);
    p.start();
  }

  /** The exit code of the node's last run, or null while it runs (or before its first start). */
  public Integer exitCode(int nodeId) {
    return proc(nodeId).exitCode();
  }

  @Override
  public boolean isRunning(int nodeId) {
    return proc(nodeId).isRunning();
  }

  /** Running and not paused by SIGSTOP. */
  public boolean isServing(int nodeId) {
    return proc(nodeId).isServing();
  }

  @Override
  public Path nodeDataDir(int nodeId) {
    return proc(nodeId).dataDir();
  }

  /** Nodes running and not paused. */
  public List<Integer> servingNodes() {
    return nodes.values().stream().filter(NodeProcess::isServing).map(NodeProcess::id).toList();
  }

  /** Brokers running and not paused: the nodes a probe can ask. */
  @Override
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

  /**
   * Polls {@code condition} every 200 ms until true or {@code timeout}; then throws with {@code
   * why}.
   */
  public static void await(
      String what, Duration timeout, BooleanSupplier condition, Supplier<String> why) {
    ClusterProbe.await(what, timeout, condition, why);
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * SIGTERM (controlled shutdown), then SIGKILL if the node has not exited within the stop timeout.
   */
  @Override
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
    out.println("node configs, data and logs in " + dir());
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
    closeClients();
    try {
      stop();
    } finally {
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
