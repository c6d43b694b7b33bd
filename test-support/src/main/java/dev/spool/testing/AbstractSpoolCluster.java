package dev.spool.testing;

import dev.spool.client.Admin;
import dev.spool.common.TopicPartition;
import dev.spool.testing.probe.ClusterProbe;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import javax.net.ssl.SSLSocketFactory;

/**
 * What both clusters share: the directory, the shared admin client, and everything asked of the
 * nodes over the wire ({@link ClusterProbe}): leaders, the active controller, readiness, full ISRs.
 * A subclass says which brokers serve and where they listen. Thread-safe.
 */
public abstract class AbstractSpoolCluster implements SpoolCluster {
  private static final int PROBE_TIMEOUT_MS = 3_000;

  private final Path dir;

  /** Asks the serving brokers; subclasses tell it before a node (re)starts. */
  protected final ClusterProbe probe;

  private Admin admin;

  protected AbstractSpoolCluster(Path dir) {
    this.dir = dir;
    this.probe =
        new ClusterProbe(
            new ClusterProbe.Members() {
              @Override
              public List<Integer> servingBrokers() {
                return AbstractSpoolCluster.this.servingBrokers();
              }

              @Override
              public InetSocketAddress brokerAddress(int node) {
                return AbstractSpoolCluster.this.brokerAddress(node);
              }

              @Override
              public SSLSocketFactory tls() {
                return probeTls();
              }

              @Override
              public RawFrameClient.Login login() {
                return ClientSecurity.login(clientSecurity());
              }
            },
            PROBE_TIMEOUT_MS);
  }

  private SSLSocketFactory probeTls;

  /**
   * The client keys (security.protocol, ssl.*) the harness's own clients need to reach the brokers'
   * Spool listeners; empty for plaintext.
   */
  protected Map<String, String> clientSecurity() {
    return Map.of();
  }

  private synchronized SSLSocketFactory probeTls() {
    if (probeTls == null) {
      probeTls = ClientSecurity.socketFactory(clientSecurity());
    }
    return probeTls;
  }

  /** Brokers running and not paused: the nodes a probe can ask. */
  public abstract List<Integer> servingBrokers();

  /** Where {@code node}'s broker listens (its own address, kept across restarts). */
  protected abstract InetSocketAddress brokerAddress(int node);

  /** The node's data directory (partition logs, checkpoints, the metadata log). */
  public abstract Path nodeDataDir(int node);

  /** True while the node (any of its roles) runs. */
  public abstract boolean isRunning(int node);

  /** Starts the node again on its old ports and data; no-op while it runs. */
  public abstract void start(int node);

  /** Stops the node on purpose (controlled shutdown first) and waits until it is down. */
  public abstract void stop(int node);

  /** Stops the node abruptly, without a controlled shutdown (see {@link ClusterNode#kill}). */
  public abstract void kill(int node);

  /** {@link #stop(int)}, then {@link #start(int)}. */
  public void restart(int node) {
    stop(node);
    start(node);
  }

  @Override
  public ClusterNode node(int id) {
    if (!nodes().contains(id)) {
      throw new IllegalArgumentException("no node " + id + " in " + nodes());
    }
    return new ClusterNode() {
      @Override
      public int id() {
        return id;
      }

      @Override
      public boolean isBroker() {
        return brokers().contains(id);
      }

      @Override
      public boolean isController() {
        return controllers().contains(id);
      }

      @Override
      public InetSocketAddress brokerAddress() {
        return AbstractSpoolCluster.this.brokerAddress(id);
      }

      @Override
      public Path dataDir() {
        return nodeDataDir(id);
      }

      @Override
      public boolean isRunning() {
        return AbstractSpoolCluster.this.isRunning(id);
      }

      @Override
      public void start() {
        AbstractSpoolCluster.this.start(id);
      }

      @Override
      public void stop() {
        AbstractSpoolCluster.this.stop(id);
      }

      @Override
      public void kill() {
        AbstractSpoolCluster.this.kill(id);
      }

      @Override
      public void restart() {
        AbstractSpoolCluster.this.restart(id);
      }
    };
  }

  /** {@code host:port,...} of every broker as it advertises itself to clients. */
  @Override
  public String bootstrapServers() {
    return brokers().stream()
        .map(this::clientAddress)
        .map(a -> a.getHostString() + ":" + a.getPort())
        .collect(Collectors.joining(","));
  }

  /** Where clients reach {@code node}'s broker (its own address unless a proxy stands between). */
  protected InetSocketAddress clientAddress(int node) {
    return brokerAddress(node);
  }

  @Override
  public Path dir() {
    return dir;
  }

  @Override
  public synchronized Admin admin() {
    if (admin == null) {
      Map<String, String> props = new HashMap<>(clientSecurity());
      props.put("bootstrap.servers", bootstrapServers());
      props.put("default.api.timeout.ms", "60000");
      admin = new Admin(props);
    }
    return admin;
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

  @Override
  public List<Integer> partitionIsr(TopicPartition partition) {
    return probe.partitionIsr(partition);
  }

  @Override
  public void awaitReady(Duration timeout) {
    probe.awaitReady(timeout);
  }

  @Override
  public void awaitFullIsr(Collection<String> topics, Duration timeout) {
    probe.awaitFullIsr(topics, timeout);
  }

  /** Closes the admin client and the probe's threads (the nodes are the subclass's to stop). */
  protected void closeClients() {
    synchronized (this) {
      if (admin != null) {
        admin.close();
      }
    }
    probe.close();
  }
}
