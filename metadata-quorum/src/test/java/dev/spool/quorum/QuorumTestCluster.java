package dev.spool.quorum;

import static org.awaitility.Awaitility.await;

import dev.spool.common.Clock;
import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.quorum.lifecycle.BrokerLifecycle;
import dev.spool.quorum.lifecycle.MetadataListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;

/**
 * An in-JVM metadata quorum for integration tests: N controllers on ephemeral loopback ports, each
 * with its own storage directory, plus quorum clients and brokers ({@link BrokerLifecycle}) that
 * the cluster closes at the end.
 *
 * <pre>
 * try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) { ... }
 * </pre>
 */
public final class QuorumTestCluster implements AutoCloseable {
  public static final String CLUSTER_ID = "test-cluster";

  private final Path dir;
  private final Map<String, String> props;
  private final Map<Integer, HostPort> voters;
  private final Map<Integer, Map<String, String>> nodeProps = new HashMap<>();
  private final Map<Integer, QuorumServer> servers = new TreeMap<>();
  private final List<QuorumClient> clients = new ArrayList<>();
  private final List<BrokerLifecycle> brokers = new ArrayList<>();

  public static Builder builder() {
    return new Builder();
  }

  public static final class Builder {
    private int voters = 3;
    private final Map<String, String> props = new HashMap<>();
    private final Map<Integer, Map<String, String>> nodeProps = new HashMap<>();
    private int releaseVersion;

    public Builder voters(int n) {
      this.voters = n;
      return this;
    }

    /** Any {@link QuorumConfig} key. */
    public Builder config(String key, Object value) {
      props.put(key, String.valueOf(value));
      return this;
    }

    /** Any {@link QuorumConfig} key for controller {@code id} only, over {@link #config}. */
    public Builder nodeConfig(int id, String key, Object value) {
      nodeProps.computeIfAbsent(id, k -> new HashMap<>()).put(key, String.valueOf(value));
      return this;
    }

    /**
     * The metadata.version a fresh cluster bootstraps at, as {@code spool storage format
     * --release-version} records it in every controller's directory ({@link BootstrapMetadata}).
     */
    public Builder releaseVersion(int level) {
      this.releaseVersion = level;
      return this;
    }

    public QuorumTestCluster start() throws IOException {
      QuorumTestCluster c = new QuorumTestCluster(voters, props);
      c.nodeProps.putAll(nodeProps);
      try {
        if (releaseVersion > 0) {
          for (int id : c.voters.keySet()) {
            Path quorumDir = Files.createDirectories(c.settings(id).storageDir());
            Files.writeString(
                quorumDir.resolve(BootstrapMetadata.FILE_NAME),
                BootstrapMetadata.render(releaseVersion));
          }
        }
        for (int id : c.voters.keySet()) {
          c.startServer(id);
        }
      } catch (IOException | RuntimeException e) {
        c.close();
        throw e;
      }
      return c;
    }
  }

  private QuorumTestCluster(int n, Map<String, String> overrides) throws IOException {
    this.dir = Files.createTempDirectory("spool-quorum-test");
    this.voters = new LinkedHashMap<>();
    for (int i = 1; i <= n; i++) {
      voters.put(i, new HostPort("127.0.0.1", freePort()));
    }
    this.props = new HashMap<>(overrides);
    StringBuilder v = new StringBuilder();
    voters.forEach(
        (id, hp) -> v.append(v.length() == 0 ? "" : ",").append(id).append('@').append(hp));
    props.put(QuorumConfig.VOTERS.name(), v.toString());
    props.putIfAbsent(QuorumConfig.BIND_HOST.name(), "127.0.0.1");
  }

  /**
   * Ports handed out in this JVM. QuorumClusterTest runs clusters concurrently, and the kernel may
   * give the same free port to two of them (each binds it only later): two voters on one port make
   * Ratis exit the whole test JVM. Guarded by its own lock.
   */
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private static int freePort() throws IOException {
    synchronized (HANDED_OUT) {
      while (true) {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
          s.setReuseAddress(true);
          if (HANDED_OUT.add(s.getLocalPort())) {
            return s.getLocalPort();
          }
        }
      }
    }
  }

  public Config config() {
    return QuorumConfig.parse(props);
  }

  public Map<String, String> props() {
    return Map.copyOf(props);
  }

  public QuorumSettings settings(int nodeId) {
    Map<String, String> p = new HashMap<>(props);
    p.putAll(nodeProps.getOrDefault(nodeId, Map.of()));
    p.put(QuorumConfig.METADATA_LOG_DIR.name(), dir.resolve("controller-" + nodeId).toString());
    return QuorumSettings.of(nodeId, CLUSTER_ID, QuorumConfig.parse(p));
  }

  private void startServer(int id) throws IOException {
    QuorumServer s = QuorumServer.create(settings(id), Clock.SYSTEM);
    servers.put(id, s);
    s.start();
  }

  public QuorumServer server(int id) {
    return servers.get(id);
  }

  public Map<Integer, QuorumServer> servers() {
    return servers;
  }

  /** Waits for a ready leader and returns it. */
  public QuorumServer awaitActiveController() {
    return awaitActiveController(Duration.ofSeconds(30));
  }

  public QuorumServer awaitActiveController(Duration atMost) {
    QuorumServer[] found = new QuorumServer[1];
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                for (QuorumServer s : servers.values()) {
                  if (s.isActiveController()) {
                    found[0] = s;
                    return true;
                  }
                }
                return false;
              });
    } catch (ConditionTimeoutException e) {
      // Say where every controller stands: a timeout alone does not tell an election that never
      // happened from a leader that never became the active controller.
      throw new AssertionError(
          "no active controller within " + atMost + ": " + servers.values(), e);
    }
    return found[0];
  }

  /** Graceful stop of one controller (it can be {@link #restart}ed). */
  public void stop(int id) throws IOException {
    QuorumServer s = servers.remove(id);
    if (s != null) {
      s.close();
    }
  }

  public QuorumServer restart(int id) throws IOException {
    stop(id);
    startServer(id);
    return servers.get(id);
  }

  public QuorumClient newClient() {
    QuorumClient c = QuorumClient.create(QuorumClientSettings.of(CLUSTER_ID, config()));
    clients.add(c);
    return c;
  }

  /** A started broker with its own quorum client. */
  public BrokerLifecycle newBroker(int id, String rack, MetadataListener listener) {
    BrokerLifecycle b =
        new BrokerLifecycle(
            BrokerLifecycle.Settings.of(id, "broker-" + id, 9092, rack, config()),
            newClient(),
            listener);
    brokers.add(b);
    b.start();
    return b;
  }

  public BrokerLifecycle newBroker(int id) {
    return newBroker(id, "", (image, delta) -> {});
  }

  @Override
  public void close() {
    brokers.forEach(BrokerLifecycle::halt);
    clients.forEach(QuorumClient::close);
    // A graceful Ratis close takes ~2 s (snapshot, gRPC shutdown): close the voters together.
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (QuorumServer s : servers.values()) {
      closing.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  s.close();
                } catch (IOException | RuntimeException e) {
                  // keep closing the others
                }
              }));
    }
    CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).join();
    servers.clear();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
