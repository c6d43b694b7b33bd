package dev.spool.chaos.cluster;

import dev.spool.chaos.nemesis.ClusterControl;
import dev.spool.chaos.nemesis.Plane;
import dev.spool.chaos.nemesis.Signal;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import dev.spool.chaos.net.NetNamespaces;
import dev.spool.chaos.net.ProxyGroup;
import dev.spool.client.Admin;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster of real Spool node processes started by this JVM: the harness behind the end-to-end
 * tests and the chaos runs.
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
 *   <li>Writes one config file per node under {@code dir/node-<id>/} (combined roles unless {@link
 *       Builder#roles} says otherwise; the controllers are the voters; free ports below the
 *       ephemeral range, kept across restarts; {@code data.dir} = {@code dir/node-<id>/data}, so
 *       the metadata log lives under {@code data/metadata}) and starts each node as {@code java -cp
 *       <this JVM's class path> dev.spool.node.SpoolMain node start --config <file>}, with small
 *       heaps, output appended to {@code dir/node-<id>/node-<id>.log}.
 *   <li>Records each node's PID and signals only that PID ({@link #kill}); {@link #stop} sends
 *       SIGTERM, then SIGKILL after a timeout. A JVM shutdown hook kills the nodes and removes the
 *       namespaces if the harness dies without {@link #close()}.
 *   <li>{@link #awaitReady}: the quorum has a leader and every running broker is registered and
 *       unfenced, asked of the nodes themselves ({@link NodeProbe}; after a restart the node must
 *       show a newer broker epoch than before).
 *   <li>Implements {@link ClusterControl} for the nemeses: the active controller and partition
 *       leaders are the answer of the node with the newest view (highest Raft term / leader epoch),
 *       asked directly, so a partitioned node's stale belief never wins and the answer does not
 *       depend on the client-link proxies.
 * </ul>
 *
 * <h2>Modes</h2>
 *
 * <ul>
 *   <li><b>loopback</b> (default): every node on 127.0.0.1.
 *   <li><b>namespaces</b> ({@code namespaces(true)}; root only, else loopback with a loud warning):
 *       each node in its own network namespace ({@link NetNamespaces}), broker bound on its DATA
 *       address, Ratis on its QUORUM address; the harness and clients stay in the root namespace
 *       and reach the nodes over the bridge. {@link #network()} then cuts links.
 *   <li><b>proxies</b> ({@code proxies(true)}): a {@link dev.spool.chaos.net.FaultProxy} in front
 *       of every broker, and each broker advertises its proxy's address, so clients go through it
 *       ({@link #clientLinks()}). Brokers find each other through metadata too, so inter-broker
 *       fetches <em>also</em> cross the proxies: latency on client links slows replication as well.
 *       With namespaces the proxies listen on per-node addresses on the bridge and a DATA-plane cut
 *       also cuts the sender's path to the target's proxy ({@link
 *       NetNamespaces#addProxyAddresses}).
 * </ul>
 *
 * <p>Thread-safe: nemeses, workload observers and the test thread call it concurrently.
 */
public final class ProcessCluster implements ClusterControl, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessCluster.class);
  private static final String MAIN_CLASS = "dev.spool.node.SpoolMain";

  /** Each node binds its broker on this port of its own DATA address in namespace mode. */
  private static final int NS_BROKER_PORT = 9092;

  private static final int NS_QUORUM_PORT = 9093;
  private static final int NS_PROXY_PORT = 9092;
  private static final int PROBE_TIMEOUT_MS = 3_000;
  static final List<String> DEFAULT_JVM_OPTIONS =
      List.of(
          "-Xmx256m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:-UsePerfData",
          "-Djava.net.preferIPv4Stack=true");

  /**
   * Where one node can be reached ({@code broker} and {@code client} are unused on controller-only
   * nodes).
   */
  public record NodeAddresses(
      int id, InetSocketAddress broker, InetSocketAddress quorum, InetSocketAddress client) {}

  private final Path dir;
  private final Map<Integer, NodeProcess> nodes;
  private final Map<Integer, NodeAddresses> addresses;
  private final NetNamespaces net;
  private final ProxyGroup proxies;
  private final List<String> notes;
  private final long stopTimeoutMs;
  private final Map<Integer, Long> epochBeforeStart = new HashMap<>();
  private final Map<Integer, Long> lastSeenEpoch = new HashMap<>();
  private final Thread shutdownHook;

  /** Probes run on these (daemon threads, so a stuck probe never holds the JVM). */
  private final java.util.concurrent.ExecutorService probeThreads =
      java.util.concurrent.Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "cluster-probe");
            t.setDaemon(true);
            return t;
          });

  private Admin admin;
  private volatile boolean closed;

  /** Each broker's Kafka listener ({@code host:port}); empty unless the builder turned them on. */
  private Map<Integer, String> kafkaListeners = Map.of();

  private ProcessCluster(
      Path dir,
      Map<Integer, NodeProcess> nodes,
      Map<Integer, NodeAddresses> addresses,
      NetNamespaces net,
      ProxyGroup proxies,
      List<String> notes,
      long stopTimeoutMs) {
    this.dir = dir;
    this.nodes = nodes;
    this.addresses = addresses;
    this.net = net;
    this.proxies = proxies;
    this.notes = List.copyOf(notes);
    this.stopTimeoutMs = stopTimeoutMs;
    this.shutdownHook = new Thread(this::emergencyStop, "process-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configures and starts a cluster. */
  public static final class Builder {
    private int nodes = 3;
    private final Map<Integer, String> roles = new TreeMap<>();
    private Path dir;
    private boolean namespaces;
    private boolean proxies;
    private final Map<String, String> config = new LinkedHashMap<>();
    private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;
    private Duration startTimeout = Duration.ofSeconds(90);
    private Duration stopTimeout = Duration.ofSeconds(30);
    private String clusterId = "chaos";
    private boolean kafkaListeners;

    private Builder() {}

    /**
     * Every broker also listens for Kafka's protocol ({@code kafka.listener}) on a port of its own
     * that it keeps across restarts; {@link ProcessCluster#kafkaBootstrapServers()} lists them.
     */
    public Builder kafkaListeners(boolean on) {
      this.kafkaListeners = on;
      return this;
    }

    /** Number of nodes, all combined broker + controller, ids 1..n. */
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

    /** Each node in its own network namespace if this machine allows it (root). */
    public Builder namespaces(boolean on) {
      this.namespaces = on;
      return this;
    }

    /** A fault proxy in front of every broker, advertised to clients (and so to brokers). */
    public Builder proxies(boolean on) {
      this.proxies = on;
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
     * everything started is stopped again (node logs are kept in {@code dir}).
     */
    public ProcessCluster start() throws IOException {
      if (dir == null) {
        dir = Files.createTempDirectory("spool-cluster-");
      }
      Files.createDirectories(dir);
      Path logback = dir.resolve("node-logback.xml");
      Files.writeString(logback, NODE_LOGBACK, StandardCharsets.UTF_8);
      List<Integer> ids = new ArrayList<>();
      for (int i = 1; i <= nodes; i++) {
        ids.add(i);
      }
      List<String> notes = new ArrayList<>();
      CommandRunner cmd = new CommandRunner();
      NetNamespaces net = null;
      ProxyGroup proxyGroup = null;
      boolean handedOver = false;
      try {
        if (namespaces) {
          Capabilities caps = Capabilities.detect(cmd);
          if (caps.canPartition()) {
            net = NetNamespaces.create(cmd, ids);
            if (proxies) {
              net.addProxyAddresses();
            }
          } else {
            String why = caps.report();
            LOG.warn("!!! {}", why);
            notes.add(why);
          }
        }
        Map<Integer, NodeAddresses> addrs = layout(ids, net);
        if (proxies) {
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
          proxyGroup = ProxyGroup.start(listen, upstream);
          Map<Integer, NodeAddresses> withProxies = new TreeMap<>();
          for (NodeAddresses a : addrs.values()) {
            withProxies.put(
                a.id(),
                new NodeAddresses(
                    a.id(), a.broker(), a.quorum(), proxyGroup.clientAddress(a.id())));
          }
          addrs = withProxies;
          notes.add(
              "brokers advertise their fault proxies: client AND inter-broker traffic crosses them");
        }
        Map<Integer, String> roleOf = new TreeMap<>();
        ids.forEach(id -> roleOf.put(id, roles.getOrDefault(id, "broker,controller")));
        String voters =
            addrs.values().stream()
                .filter(a -> roleOf.get(a.id()).contains("controller"))
                .map(a -> a.id() + "@" + a.quorum().getHostString() + ":" + a.quorum().getPort())
                .collect(Collectors.joining(","));
        if (voters.isEmpty() || roleOf.values().stream().noneMatch(r -> r.contains("broker"))) {
          throw new IllegalArgumentException(
              "a cluster needs a controller and a broker: " + roleOf);
        }
        String classPath =
            Optional.ofNullable(System.getProperty("surefire.test.class.path"))
                .filter(s -> !s.isBlank())
                .orElse(System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Map<Integer, String> kafka = kafkaListeners ? kafkaLayout(addrs) : Map.of();
        Map<Integer, NodeProcess> procs = new TreeMap<>();
        for (NodeAddresses a : addrs.values()) {
          Path nodeDir = dir.resolve("node-" + a.id());
          Files.createDirectories(nodeDir);
          Path dataDir = nodeDir.resolve("data");
          Path configFile = nodeDir.resolve("node.properties");
          Map<String, String> props = new LinkedHashMap<>();
          props.put("node.id", Integer.toString(a.id()));
          props.put("process.roles", roleOf.get(a.id()));
          props.put("cluster.id", clusterId);
          props.put("listener", a.broker().getHostString() + ":" + a.broker().getPort());
          if (proxyGroup != null) {
            props.put(
                "advertised.listener", a.client().getHostString() + ":" + a.client().getPort());
          }
          if (kafka.containsKey(a.id())) {
            props.put("kafka.listener", kafka.get(a.id()));
          }
          props.put("data.dir", dataDir.toString());
          props.put("controller.quorum.voters", voters);
          props.put("controller.quorum.bind.host", a.quorum().getHostString());
          props.putAll(config);
          StringBuilder sb =
              new StringBuilder("# Written by ProcessCluster for node " + a.id() + "\n");
          props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
          Files.writeString(configFile, sb.toString(), StandardCharsets.UTF_8);
          List<String> command = new ArrayList<>();
          if (net != null) {
            command.addAll(net.execPrefix(a.id()));
          }
          command.add(java);
          command.addAll(jvmOptions);
          command.add("-Dlogback.configurationFile=" + logback);
          command.add("-Dspool.harness.node=" + nodeDir);
          command.add("-cp");
          command.add(classPath);
          command.add(MAIN_CLASS);
          command.addAll(List.of("node", "start", "--config", configFile.toString()));
          procs.put(
              a.id(),
              new NodeProcess(
                  a.id(),
                  configFile,
                  dataDir,
                  nodeDir.resolve("node-" + a.id() + ".log"),
                  command,
                  roleOf.get(a.id()).contains("broker"),
                  roleOf.get(a.id()).contains("controller")));
        }
        ProcessCluster c =
            new ProcessCluster(dir, procs, addrs, net, proxyGroup, notes, stopTimeout.toMillis());
        c.kafkaListeners = Map.copyOf(kafka);
        handedOver = true; // from here c.close() cleans up
        try {
          procs.values().forEach(NodeProcess::start);
          c.awaitReady(startTimeout);
        } catch (RuntimeException e) {
          LOG.error("cluster in {} did not start: {}", dir, e.getMessage());
          c.dumpLogs(80);
          c.close();
          throw e;
        }
        LOG.info("cluster ready in {}: bootstrap {}", dir, c.bootstrapServers());
        return c;
      } finally {
        if (!handedOver) {
          if (proxyGroup != null) {
            proxyGroup.close();
          }
          if (net != null) {
            net.close();
          }
        }
      }
    }

    /** A Kafka listener port per node on its broker's host, clear of the ports already laid out. */
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
        while (taken.contains(port)) {
          port = ports.next(host);
        }
        taken.add(port);
        out.put(a.id(), host + ":" + port);
      }
      return out;
    }

    private Map<Integer, NodeAddresses> layout(List<Integer> ids, NetNamespaces net) {
      Map<Integer, NodeAddresses> out = new TreeMap<>();
      Ports ports = new Ports();
      for (int id : ids) {
        InetSocketAddress broker;
        InetSocketAddress quorum;
        if (net != null) {
          broker = new InetSocketAddress(net.address(id, Plane.DATA), NS_BROKER_PORT);
          quorum = new InetSocketAddress(net.address(id, Plane.QUORUM), NS_QUORUM_PORT);
        } else {
          broker = new InetSocketAddress("127.0.0.1", ports.next("127.0.0.1"));
          quorum = new InetSocketAddress("127.0.0.1", ports.next("127.0.0.1"));
        }
        out.put(id, new NodeAddresses(id, broker, quorum, broker));
      }
      return out;
    }
  }

  // ---------------------------------------------------------------- addresses and paths

  /** {@code host:port,...} for clients: the proxies in proxy mode, else the brokers. */
  public String bootstrapServers() {
    return addresses.values().stream()
        .filter(a -> nodes.get(a.id()).isBroker())
        .map(a -> a.client().getHostString() + ":" + a.client().getPort())
        .collect(Collectors.joining(","));
  }

  /**
   * {@code host:port,...} of the brokers' Kafka listeners, for Kafka's clients (never through the
   * fault proxies); throws unless the builder turned them on.
   */
  public String kafkaBootstrapServers() {
    if (kafkaListeners.isEmpty()) {
      throw new IllegalStateException(
          "this cluster has no Kafka listeners: Builder#kafkaListeners");
    }
    return kafkaListeners.entrySet().stream()
        .filter(e -> nodes.get(e.getKey()).isBroker())
        .map(Map.Entry::getValue)
        .collect(Collectors.joining(","));
  }

  /** The brokers' own addresses (not through any proxy). */
  public String directBootstrapServers() {
    return addresses.values().stream()
        .filter(a -> nodes.get(a.id()).isBroker())
        .map(a -> a.broker().getHostString() + ":" + a.broker().getPort())
        .collect(Collectors.joining(","));
  }

  public NodeAddresses addresses(int node) {
    return require(node, addresses.get(node));
  }

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

  /** The network namespaces, when this cluster runs in them. */
  public Optional<NetNamespaces> network() {
    return Optional.ofNullable(net);
  }

  /** The client-link proxies, in proxy mode. */
  public Optional<ProxyGroup> clientLinks() {
    return Optional.ofNullable(proxies);
  }

  /** Things a reader of a run must know (e.g. partitions unavailable, proxies in the data path). */
  public List<String> notes() {
    return notes;
  }

  /** A shared admin client (through {@link #bootstrapServers()}), closed with the cluster. */
  public synchronized Admin admin() {
    if (admin == null) {
      admin =
          new Admin(
              Map.of("bootstrap.servers", bootstrapServers(), "default.api.timeout.ms", "60000"));
    }
    return admin;
  }

  // ---------------------------------------------------------------- ClusterControl

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
  public void kill(int nodeId, Signal signal) {
    proc(nodeId).signal(signal);
  }

  @Override
  public void start(int nodeId) {
    NodeProcess p = proc(nodeId);
    if (p.isRunning()) {
      return;
    }
    synchronized (this) {
      Long seen = lastSeenEpoch.get(nodeId);
      if (seen != null) {
        epochBeforeStart.merge(nodeId, seen, Math::max);
      }
    }
    p.start();
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
  public OptionalInt activeController() {
    DescribeClusterResponse best = null;
    for (DescribeClusterResponse d : askAll(n -> probe(n).describeCluster()).values()) {
      if (d.getErrorCode() == ErrorCode.NONE
          && d.hasQuorum()
          && d.getQuorum().getLeaderId() >= 0
          && (best == null || d.getQuorum().getTerm() > best.getQuorum().getTerm())) {
        best = d;
      }
    }
    return best == null ? OptionalInt.empty() : OptionalInt.of(best.getQuorum().getLeaderId());
  }

  /** A question for one node that may fail with an I/O error. */
  private interface Question<T> {
    T ask(int node) throws IOException;
  }

  /**
   * Asks every serving broker at once (a node that cannot reach the quorum may take the whole probe
   * timeout to answer DescribeCluster; one after the other that would add up); nodes that fail to
   * answer are left out.
   */
  private <T> Map<Integer, T> askAll(Question<T> q) {
    Map<Integer, java.util.concurrent.Future<T>> futures = new TreeMap<>();
    for (int n : servingBrokers()) {
      futures.put(n, probeThreads.submit(() -> q.ask(n)));
    }
    Map<Integer, T> out = new TreeMap<>();
    futures.forEach(
        (n, f) -> {
          try {
            out.put(n, f.get());
          } catch (java.util.concurrent.ExecutionException e) {
            LOG.debug("n{} did not answer: {}", n, e.getCause().toString());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    return out;
  }

  @Override
  public OptionalInt partitionLeader(TopicPartition partition) {
    return newestView(partition)
        .map(p -> p.getLeaderId() < 0 ? OptionalInt.empty() : OptionalInt.of(p.getLeaderId()))
        .orElse(OptionalInt.empty());
  }

  @Override
  public List<Integer> partitionReplicas(TopicPartition partition) {
    return newestView(partition)
        .map(PartitionMetadata::getReplicasList)
        .map(List::copyOf)
        .orElse(List.of());
  }

  /** The partition as the node with the highest leader epoch for it describes it. */
  public Optional<PartitionMetadata> newestView(TopicPartition partition) {
    return views(List.of(partition.topic())).values().stream()
        .map(m -> partitionOf(m, partition))
        .filter(Optional::isPresent)
        .map(Optional::get)
        .max(
            (a, b) ->
                a.getLeaderEpoch() != b.getLeaderEpoch()
                    ? Integer.compare(a.getLeaderEpoch(), b.getLeaderEpoch())
                    : Integer.compare(a.getPartitionEpoch(), b.getPartitionEpoch()));
  }

  /**
   * Each serving node's own metadata for {@code topics} (nodes that did not answer are left out).
   */
  public Map<Integer, MetadataResponse> views(Collection<String> topics) {
    return askAll(n -> probe(n).metadata(topics));
  }

  private static Optional<PartitionMetadata> partitionOf(MetadataResponse m, TopicPartition tp) {
    for (TopicMetadata t : m.getTopicsList()) {
      if (t.getName().equals(tp.topic()) && t.getErrorCode() == ErrorCode.NONE) {
        for (PartitionMetadata p : t.getPartitionsList()) {
          if (p.getPartition() == tp.partition()) {
            return Optional.of(p);
          }
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public Path nodeDataDir(int nodeId) {
    return proc(nodeId).dataDir();
  }

  /** A probe that talks to {@code node}'s broker directly. */
  public NodeProbe probe(int node) {
    return new NodeProbe(addresses(node).broker(), PROBE_TIMEOUT_MS);
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

  /**
   * Waits until the quorum has a leader and every serving broker is registered and unfenced, with a
   * broker epoch newer than any it had before its last (re)start.
   */
  public void awaitReady(Duration timeout) {
    String[] last = {"no node answered yet"};
    await(
        "cluster ready",
        timeout,
        () -> {
          String problem = readiness();
          last[0] = problem;
          return problem == null;
        },
        () -> last[0]);
  }

  /** Null when ready, else what is missing. */
  private String readiness() {
    List<Integer> serving = servingBrokers();
    if (serving.isEmpty()) {
      return "no broker is running";
    }
    String problem = "no node answered DescribeCluster";
    for (int n : serving) {
      DescribeClusterResponse d;
      try {
        d = probe(n).describeCluster();
      } catch (IOException e) {
        problem = "n" + n + ": " + e.getMessage();
        continue;
      }
      if (d.getErrorCode() != ErrorCode.NONE || !d.hasQuorum() || d.getQuorum().getLeaderId() < 0) {
        problem =
            "n"
                + n
                + " sees no quorum leader ("
                + d.getErrorCode()
                + " "
                + d.getErrorMessage()
                + ")";
        continue;
      }
      Map<Integer, BrokerInfo> brokers = new HashMap<>();
      d.getBrokersList().forEach(b -> brokers.put(b.getNodeId(), b));
      String missing = null;
      for (int b : serving) {
        BrokerInfo info = brokers.get(b);
        long before;
        synchronized (this) {
          before = epochBeforeStart.getOrDefault(b, -1L);
        }
        if (info == null || info.getFenced() || info.getBrokerEpoch() <= before) {
          missing =
              "n"
                  + n
                  + " sees broker "
                  + b
                  + (info == null
                      ? " unregistered"
                      : info.getFenced()
                          ? " fenced"
                          : " still at its old epoch " + info.getBrokerEpoch());
          break;
        }
      }
      if (missing == null) {
        synchronized (this) {
          for (int b : serving) {
            lastSeenEpoch.put(b, brokers.get(b).getBrokerEpoch());
          }
        }
        return null;
      }
      problem = missing;
    }
    return problem;
  }

  /**
   * Waits until every partition of {@code topics} has a leader and all its replicas in the ISR, as
   * the node with the newest view of each partition sees it.
   */
  public void awaitFullIsr(Collection<String> topics, Duration timeout) {
    String[] last = {"no answer yet"};
    await(
        "full ISR of " + topics,
        timeout,
        () -> {
          last[0] = isrProblem(topics);
          return last[0] == null;
        },
        () -> last[0]);
  }

  private String isrProblem(Collection<String> topics) {
    Map<Integer, MetadataResponse> views = views(topics);
    if (views.isEmpty()) {
      return "no node answered Metadata";
    }
    Map<TopicPartition, PartitionMetadata> newest = new TreeMap<>();
    for (MetadataResponse m : views.values()) {
      for (TopicMetadata t : m.getTopicsList()) {
        if (t.getErrorCode() != ErrorCode.NONE) {
          continue;
        }
        for (PartitionMetadata p : t.getPartitionsList()) {
          newest.merge(
              new TopicPartition(t.getName(), p.getPartition()),
              p,
              (a, b) -> b.getPartitionEpoch() > a.getPartitionEpoch() ? b : a);
        }
      }
    }
    for (String topic : topics) {
      if (newest.keySet().stream().noneMatch(tp -> tp.topic().equals(topic))) {
        return "topic " + topic + " unknown";
      }
    }
    for (Map.Entry<TopicPartition, PartitionMetadata> e : newest.entrySet()) {
      PartitionMetadata p = e.getValue();
      if (p.getLeaderId() < 0 || p.getIsrCount() != p.getReplicasCount()) {
        return e.getKey()
            + " leader "
            + p.getLeaderId()
            + " isr "
            + p.getIsrList()
            + " of "
            + p.getReplicasList();
      }
    }
    return null;
  }

  /**
   * Polls {@code condition} every 200 ms until true or {@code timeout}; then throws with {@code
   * why}.
   */
  public static void await(
      String what,
      Duration timeout,
      BooleanSupplier condition,
      java.util.function.Supplier<String> why) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (condition.getAsBoolean()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + timeout.toSeconds() + " s waiting for " + what + ": " + why.get());
      }
      try {
        Thread.sleep(200); // polling real processes: there is nothing to be notified by
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
  }

  /** Prints the last {@code lines} lines of every node log to the harness log (for failures). */
  public void dumpLogs(int lines) {
    for (NodeProcess p : nodes.values()) {
      try {
        List<String> all =
            Files.exists(p.logFile())
                ? Files.readAllLines(p.logFile(), StandardCharsets.UTF_8)
                : List.of();
        String tail = String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        LOG.error("---- last {} lines of n{} log {} ----\n{}", lines, p.id(), p.logFile(), tail);
      } catch (IOException | UncheckedIOException e) {
        LOG.error("cannot read {}: {}", p.logFile(), e.toString());
      }
    }
  }

  /** Stops every node (SIGTERM, then SIGKILL), closes proxies and removes the namespaces. */
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
      probeThreads.shutdownNow();
      if (proxies != null) {
        proxies.close();
      }
      if (net != null) {
        net.close();
      }
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
    if (net != null) {
      net.close();
    }
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

  /** Every file under the data directories (for tests that look at segments). */
  public List<Path> dataFiles(int node) throws IOException {
    try (Stream<Path> s = Files.walk(nodeDataDir(node))) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  private static final String NODE_LOGBACK =
      """
      <!-- Written by ProcessCluster: node logging to stdout, which the harness appends to node.log. -->
      <configuration>
        <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
          <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n</pattern></encoder>
        </appender>
        <logger name="org.apache.ratis" level="WARN"/>
        <logger name="org.apache.ratis.server.impl.RaftServerImpl" level="INFO"/>
        <logger name="org.apache.ratis.client.impl" level="OFF"/>
        <logger name="io.netty" level="WARN"/>
        <root level="INFO"><appender-ref ref="OUT"/></root>
      </configuration>
      """;
}
