package dev.spool.chaos.cluster;

import dev.spool.chaos.nemesis.ClusterControl;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.NodeAddresses;
import dev.spool.testing.process.NodeNetwork;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster of Apache Kafka KRaft nodes started by this JVM, for running the chaos workload and
 * nemeses against Kafka as the anchor of Spool's figures. The Kafka jars come from outside this
 * repository ({@link #LIB_PROPERTY}, set by {@code scripts/chaos.sh --system kafka} from the Kafka
 * peer harness).
 *
 * <ul>
 *   <li>Nodes run combined broker + controller roles, in the {@link NodeNetwork} given (the chaos
 *       {@code FaultNetwork}: one network namespace per node, broker listener on the DATA address,
 *       controller listener on the QUORUM address; {@link KafkaNodeConfig}).
 *   <li>Each node's directory is formatted with {@code kafka.tools.StorageTool format} (same
 *       cluster id) before its first start, then {@code kafka.Kafka server.properties} runs with
 *       stdout and stderr appended to {@code dir/node-<id>/node-<id>.log}; every start and signal
 *       is also written there as a {@code === harness} line.
 *   <li>Signals go to the PID this JVM started, never by name; a JVM shutdown hook kills the nodes
 *       and closes the network if the harness dies without {@link #close}.
 *   <li>Leaders, ISRs and the active controller: every serving node is asked directly ({@link
 *       KafkaProbe}) and the newest view wins (highest partition leader epoch, highest KRaft
 *       epoch), so a partitioned node's stale belief never picks a target.
 * </ul>
 *
 * <p>Thread-safe: nemeses, the run and the shutdown hook call it concurrently.
 */
public final class KafkaCluster implements ClusterControl, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaCluster.class);

  /** System property: the directory of the Kafka server jars (all of them, as a class path). */
  public static final String LIB_PROPERTY = "spool.chaos.kafka.lib";

  /**
   * Kafka's own JVM settings (those of its {@code kafka-run-class.sh}) with a 1 GB heap, as the
   * peer harness runs it.
   */
  public static final List<String> JVM_OPTIONS =
      List.of(
          "-Xms1g",
          "-Xmx1g",
          "-server",
          "-XX:+UseG1GC",
          "-XX:MaxGCPauseMillis=20",
          "-XX:InitiatingHeapOccupancyPercent=35",
          "-XX:+ExplicitGCInvokesConcurrent",
          "-XX:MaxInlineLevel=15",
          "-XX:+ExitOnOutOfMemoryError",
          "-Djava.awt.headless=true",
          "-Djava.net.preferIPv4Stack=true");

  private static final int PROBE_TIMEOUT_MS = 1_500;
  private static final long STOP_TIMEOUT_MS = 30_000;
  private static final long FORMAT_TIMEOUT_MS = 120_000;

  private final Path dir;
  private final NodeNetwork network;
  private final Map<Integer, NodeAddresses> addresses;
  private final Map<Integer, Node> nodes;
  private final Thread shutdownHook;
  private volatile boolean closed;

  private KafkaCluster(
      Path dir,
      NodeNetwork network,
      Map<Integer, NodeAddresses> addresses,
      Map<Integer, Node> nodes) {
    this.dir = dir;
    this.network = network;
    this.addresses = addresses;
    this.nodes = nodes;
    this.shutdownHook = new Thread(this::emergencyStop, "kafka-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** The Kafka jars' directory from {@link #LIB_PROPERTY}; throws saying how to get them. */
  public static Path libFromSystemProperty() {
    String lib = System.getProperty(LIB_PROPERTY);
    if (lib == null || lib.isBlank()) {
      throw new IllegalStateException(
          "no Kafka jars: run through scripts/chaos.sh --system kafka (it finds the Kafka peer"
              + " harness, see chaos-tests/README.md), or set -D"
              + LIB_PROPERTY
              + "=<dir of the Kafka 4.x server jars>");
    }
    Path p = Path.of(lib);
    try (var files = Files.list(p)) {
      if (files.noneMatch(f -> f.getFileName().toString().startsWith("kafka_2.13-"))) {
        throw new IllegalStateException(
            "no kafka_2.13-*.jar in " + p + " (-D" + LIB_PROPERTY + ")");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + p + " (-D" + LIB_PROPERTY + "): " + e, e);
    }
    return p;
  }

  /**
   * A cluster id for {@code StorageTool format} derived from {@code seed}: the same seed gives the
   * same id, as Spool's {@code chaos-<seed>} does.
   */
  public static String clusterId(long seed) {
    return new Uuid(0x53504f4f4c4b4146L, seed == 0 ? 1 : seed).toString();
  }

  /**
   * Lays out the network, writes every node's config, formats every node (in parallel) and starts
   * them; does not wait for readiness ({@link #awaitReady}). Closes the network if that fails.
   */
  public static KafkaCluster start(
      Path lib, Path dir, int nodeCount, NodeNetwork network, long seed, Map<String, String> extra)
      throws IOException {
    List<Integer> ids = new ArrayList<>();
    for (int i = 1; i <= nodeCount; i++) {
      ids.add(i);
    }
    Map<Integer, NodeAddresses> addrs;
    try {
      addrs = new TreeMap<>(network.layout(ids));
    } catch (IOException | RuntimeException e) {
      network.close();
      throw e;
    }
    KafkaCluster cluster = null;
    try {
      Files.createDirectories(dir);
      Path log4j = dir.resolve("log4j2.properties");
      Files.writeString(log4j, KafkaNodeConfig.log4j2());
      String classPath = lib.toAbsolutePath() + "/*";
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String cid = clusterId(seed);
      Map<Integer, Node> nodes = new TreeMap<>();
      for (int id : ids) {
        Path nodeDir = dir.resolve("node-" + id);
        Path data = nodeDir.resolve("data");
        Files.createDirectories(data);
        Path config = nodeDir.resolve("server.properties");
        Files.writeString(
            config,
            KafkaNodeConfig.render(KafkaNodeConfig.properties(id, addrs, data, extra)),
            StandardCharsets.UTF_8);
        List<String> run = new ArrayList<>(network.launchPrefix(id));
        run.add(java);
        run.addAll(JVM_OPTIONS);
        run.add("-Dspool.chaos.kafka.node=" + nodeDir.toAbsolutePath());
        run.add("-Dlog4j2.configurationFile=" + log4j.toAbsolutePath());
        run.addAll(List.of("-cp", classPath, "kafka.Kafka", config.toAbsolutePath().toString()));
        List<String> format =
            List.of(
                java,
                "-Xmx256m",
                "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(),
                "-cp",
                classPath,
                "kafka.tools.StorageTool",
                "format",
                "--ignore-formatted",
                "-t",
                cid,
                "-c",
                config.toAbsolutePath().toString());
        nodes.put(id, new Node(id, data, nodeDir.resolve("node-" + id + ".log"), run, format));
      }
      cluster = new KafkaCluster(dir, network, addrs, nodes);
      List<Process> formats = new ArrayList<>();
      for (Node n : nodes.values()) {
        formats.add(n.startFormat());
      }
      int i = 0;
      for (Node n : nodes.values()) {
        n.awaitFormat(formats.get(i++));
      }
      for (Node n : nodes.values()) {
        n.start();
      }
      return cluster;
    } catch (IOException | RuntimeException e) {
      if (cluster != null) {
        cluster.close();
      } else {
        network.close();
      }
      throw e;
    }
  }

  // ---------------------------------------------------------------- what and where

  public Path dir() {
    return dir;
  }

  /** Every broker's advertised address, for clients. */
  public String bootstrapServers() {
    return addresses.values().stream()
        .map(a -> KafkaNodeConfig.hostPort(a.client()))
        .collect(Collectors.joining(","));
  }

  public Path logFile(int node) {
    return node(node).log;
  }

  public List<Path> logFiles() {
    return nodes.values().stream().map(n -> n.log).toList();
  }

  @Override
  public List<Integer> nodes() {
    return List.copyOf(nodes.keySet());
  }

  @Override
  public List<Integer> controllers() {
    return nodes();
  }

  @Override
  public List<Integer> brokers() {
    return nodes();
  }

  @Override
  public Path nodeDataDir(int nodeId) {
    return node(nodeId).data;
  }

  // ---------------------------------------------------------------- processes

  @Override
  public void kill(int nodeId, Signal signal) {
    node(nodeId).signal(signal);
  }

  @Override
  public void start(int nodeId) {
    node(nodeId).start();
  }

  @Override
  public boolean isRunning(int nodeId) {
    return node(nodeId).isRunning();
  }

  /** Running and not stopped with SIGSTOP. */
  public boolean isServing(int nodeId) {
    return node(nodeId).isServing();
  }

  /** SIGTERM (controlled shutdown) to every node at once, SIGKILL to those still up after 30 s. */
  public void stop() {
    List<Node> terminated = nodes.values().stream().filter(Node::terminate).toList();
    for (Node n : terminated) {
      n.awaitExitOrKill(STOP_TIMEOUT_MS);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      stop();
    } finally {
      network.close();
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down; the hook's emergencyStop is harmless now
      }
    }
  }

  private void emergencyStop() {
    if (closed) {
      return;
    }
    for (Node n : nodes.values()) {
      n.signal(Signal.KILL);
    }
    network.close();
  }

  // ---------------------------------------------------------------- views

  @Override
  public OptionalInt activeController() {
    int leader = -1;
    int epoch = -1;
    for (int id : servingNodes()) {
      try {
        DescribeQuorumResponseData r =
            KafkaProbe.describeQuorum(addresses.get(id).quorum(), PROBE_TIMEOUT_MS);
        if (r.errorCode() != Errors.NONE.code() || r.topics().isEmpty()) {
          continue;
        }
        for (DescribeQuorumResponseData.PartitionData p : r.topics().get(0).partitions()) {
          if (p.errorCode() == Errors.NONE.code() && p.leaderId() >= 0 && p.leaderEpoch() > epoch) {
            leader = p.leaderId();
            epoch = p.leaderEpoch();
          }
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("n{} did not describe the quorum: {}", id, e.toString());
      }
    }
    return leader < 0 ? OptionalInt.empty() : OptionalInt.of(leader);
  }

  /** Each serving node's own metadata of {@code topics} (nodes that did not answer are absent). */
  public Map<Integer, MetadataResponseData> views(Collection<String> topics) {
    Map<Integer, MetadataResponseData> out = new LinkedHashMap<>();
    for (int id : servingNodes()) {
      try {
        out.put(
            id,
            KafkaProbe.metadata(addresses.get(id).broker(), List.copyOf(topics), PROBE_TIMEOUT_MS));
      } catch (IOException | RuntimeException e) {
        LOG.debug("n{} did not answer a metadata request: {}", id, e.toString());
      }
    }
    return out;
  }

  /** The partition as the node with the highest leader epoch for it describes it. */
  public Optional<MetadataResponseData.MetadataResponsePartition> newestView(TopicPartition tp) {
    return newest(views(List.of(tp.topic())), tp);
  }

  static Optional<MetadataResponseData.MetadataResponsePartition> newest(
      Map<Integer, MetadataResponseData> views, TopicPartition tp) {
    MetadataResponseData.MetadataResponsePartition best = null;
    for (MetadataResponseData m : views.values()) {
      MetadataResponseData.MetadataResponseTopic t = m.topics().find(tp.topic());
      if (t == null || t.errorCode() != Errors.NONE.code()) {
        continue;
      }
      for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
        if (p.partitionIndex() == tp.partition()
            && (best == null || p.leaderEpoch() > best.leaderEpoch())) {
          best = p;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  @Override
  public OptionalInt partitionLeader(TopicPartition partition) {
    return newestView(partition)
        .filter(p -> p.leaderId() >= 0)
        .map(p -> OptionalInt.of(p.leaderId()))
        .orElse(OptionalInt.empty());
  }

  @Override
  public List<Integer> partitionReplicas(TopicPartition partition) {
    return newestView(partition).map(p -> List.copyOf(p.replicaNodes())).orElse(List.of());
  }

  @Override
  public List<Integer> partitionIsr(TopicPartition partition) {
    return newestView(partition).map(p -> List.copyOf(p.isrNodes())).orElse(List.of());
  }

  /** Nodes running and not paused, ascending. */
  public List<Integer> servingNodes() {
    return nodes.values().stream().filter(Node::isServing).map(n -> n.id).toList();
  }

  // ---------------------------------------------------------------- waiting

  /**
   * Until the quorum has a leader and every serving node lists every serving node as an unfenced
   * broker (Kafka's metadata lists only unfenced brokers).
   */
  public void awaitReady(Duration timeout) {
    ProcessCluster.await(
        "Kafka cluster ready",
        timeout,
        () -> {
          if (activeController().isEmpty()) {
            return false;
          }
          List<Integer> serving = servingNodes();
          Map<Integer, MetadataResponseData> views = views(List.of());
          if (views.size() < serving.size()) {
            return false;
          }
          for (MetadataResponseData m : views.values()) {
            List<Integer> listed =
                m.brokers().stream()
                    .map(MetadataResponseData.MetadataResponseBroker::nodeId)
                    .toList();
            if (!listed.containsAll(serving)) {
              return false;
            }
          }
          return true;
        },
        () -> "serving " + servingNodes() + ", active controller " + activeController());
  }

  /** Until every partition of {@code topics} has a leader and all its replicas in its ISR. */
  public void awaitFullIsr(List<String> topics, Duration timeout) {
    ProcessCluster.await(
        "full ISRs on " + topics,
        timeout,
        () -> fullIsr(topics).isEmpty(),
        () -> "short: " + fullIsr(topics));
  }

  private List<String> fullIsr(List<String> topics) {
    Map<Integer, MetadataResponseData> views = views(topics);
    List<String> shortOnes = new ArrayList<>();
    if (views.isEmpty()) {
      return List.of("no node answered");
    }
    MetadataResponseData any = views.values().iterator().next();
    for (String topic : topics) {
      MetadataResponseData.MetadataResponseTopic t = any.topics().find(topic);
      if (t == null || t.errorCode() != Errors.NONE.code() || t.partitions().isEmpty()) {
        shortOnes.add(topic + " (unknown)");
        continue;
      }
      for (MetadataResponseData.MetadataResponsePartition p0 : t.partitions()) {
        TopicPartition tp = new TopicPartition(topic, p0.partitionIndex());
        MetadataResponseData.MetadataResponsePartition p = newest(views, tp).orElse(p0);
        if (p.leaderId() < 0 || p.isrNodes().size() < p.replicaNodes().size()) {
          shortOnes.add(tp + " isr " + p.isrNodes() + " of " + p.replicaNodes());
        }
      }
    }
    return shortOnes;
  }

  /**
   * Creates {@code names} with {@code partitions} partitions each, RF {@code replicationFactor},
   * through Kafka's Admin client (an existing topic is fine: a retry may have created it).
   */
  public void createTopics(
      List<String> names, int partitions, short replicationFactor, Map<String, String> configs)
      throws IOException {
    Map<String, Object> props = new LinkedHashMap<>();
    props.put("bootstrap.servers", bootstrapServers());
    props.put("request.timeout.ms", 10_000);
    props.put("default.api.timeout.ms", 60_000);
    try (Admin admin = Admin.create(props)) {
      for (String name : names) {
        try {
          admin
              .createTopics(
                  List.of(new NewTopic(name, partitions, replicationFactor).configs(configs)))
              .all()
              .get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IOException("cannot create topic " + name + ": " + e.getCause(), e);
          }
        } catch (java.util.concurrent.TimeoutException e) {
          throw new IOException("cannot create topic " + name + " within 60 s", e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while creating " + name, e);
        }
      }
    }
  }

  private Node node(int id) {
    Node n = nodes.get(id);
    if (n == null) {
      throw new IllegalArgumentException("no node " + id + " in " + nodes.keySet());
    }
    return n;
  }

  /** One Kafka node's OS process, signalled by the PID this JVM started. */
  private static final class Node {
    private static final long REAP_TIMEOUT_MS = 10_000;
    final int id;
    final Path data;
    final Path log;
    final List<String> command;
    final List<String> formatCommand;
    private Process process;
    private boolean paused;
    private int starts;

    Node(int id, Path data, Path log, List<String> command, List<String> formatCommand) {
      this.id = id;
      this.data = data;
      this.log = log;
      this.command = List.copyOf(command);
      this.formatCommand = List.copyOf(formatCommand);
    }

    synchronized boolean isRunning() {
      return process != null && process.isAlive();
    }

    synchronized boolean isServing() {
      return isRunning() && !paused;
    }

    Process startFormat() {
      note("formatting node " + id + ": " + String.join(" ", formatCommand));
      try {
        return launch(formatCommand);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot format node " + id, e);
      }
    }

    void awaitFormat(Process format) {
      try {
        if (!format.waitFor(FORMAT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
          format.destroyForcibly();
          throw new IllegalStateException("node " + id + ": StorageTool format did not finish");
        }
      } catch (InterruptedException e) {
        format.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while formatting node " + id, e);
      }
      if (format.exitValue() != 0) {
        throw new IllegalStateException(
            "node "
                + id
                + ": StorageTool format failed (exit "
                + format.exitValue()
                + "); see "
                + log);
      }
      note("node " + id + " formatted");
    }

    synchronized void start() {
      if (isRunning()) {
        return;
      }
      note("starting node " + id + " (start #" + (starts + 1) + "): " + String.join(" ", command));
      try {
        process = launch(command);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start node " + id, e);
      }
      paused = false;
      starts++;
      note("node " + id + " started with pid " + process.pid());
      LOG.info("kafka n{} started, pid {}, log {}", id, process.pid(), log);
    }

    private Process launch(List<String> cmd) throws IOException {
      return new ProcessBuilder(cmd)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
          .start();
    }

    synchronized void signal(Signal signal) {
      if (!isRunning()) {
        return;
      }
      long pid = process.pid();
      note("sending SIG" + signal + " to node " + id + " (pid " + pid + ")");
      LOG.info("kafka n{}: SIG{} to pid {}", id, signal, pid);
      switch (signal) {
        case KILL -> {
          process.destroyForcibly();
          try {
            process.waitFor(REAP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        case TERM -> process.destroy();
        case STOP, CONT -> {
          signal.sendTo(pid);
          paused = signal == Signal.STOP;
        }
      }
    }

    synchronized boolean terminate() {
      if (!isRunning()) {
        return false;
      }
      if (paused) {
        signal(Signal.CONT);
      }
      signal(Signal.TERM);
      return true;
    }

    void awaitExitOrKill(long timeoutMs) {
      Process p;
      synchronized (this) {
        p = process;
      }
      if (p == null) {
        return;
      }
      try {
        if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
          LOG.warn("kafka n{} did not stop within {} ms of SIGTERM; SIGKILL", id, timeoutMs);
          signal(Signal.KILL);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        signal(Signal.KILL);
      }
      note("node " + id + " exited with " + (p.isAlive() ? "?" : p.exitValue()));
    }

    private void note(String line) {
      Signal.noteInLog(log, line);
    }
  }

  /** For tests and messages: where node {@code id} listens. */
  public InetSocketAddress brokerAddress(int id) {
    return addresses.get(id).broker();
  }
}
