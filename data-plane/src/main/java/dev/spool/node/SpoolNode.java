package dev.spool.node;

import dev.spool.broker.Broker;
import dev.spool.broker.BrokerConfig;
import dev.spool.broker.SecurityConfig;
import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.node.ops.NodeMetrics;
import dev.spool.node.ops.OpsConfig;
import dev.spool.node.ops.OpsServer;
import dev.spool.node.ops.OpsServer.Readiness;
import dev.spool.node.ops.StatusPage;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.NotAQuorumMemberException;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumSettings;
import dev.spool.quorum.QuorumTls;
import dev.spool.quorum.lifecycle.BrokerState;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: the controller role (a voter of the metadata quorum), the broker role, or both.
 * Start order: controller first (so a combined node's broker can register with a quorum that
 * includes itself), then the broker. Stop order is the reverse; a broker stopping on purpose first
 * asks the quorum to move its leaderships away (controlled shutdown).
 *
 * <p>With {@code metrics.listener} set, the node's operations endpoint ({@link OpsServer}: metrics
 * and health) starts first, so liveness answers while logs recover, and stops last.
 *
 * <p>Nothing here is needed for safety on SIGKILL: logs are recovered from their files and the
 * quorum from its Raft log and snapshots.
 *
 * <p>Threads: start and close on the node's thread; {@link #readiness} from the ops endpoint's
 * thread, reading the volatile role fields.
 */
public final class SpoolNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SpoolNode.class);

  private final Config config;
  private final String logPrefix;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile QuorumServer quorumServer;
  private SecurityConfig.QuorumKeys quorumKeys;
  private volatile QuorumClient quorumClient;
  private volatile Broker broker;
  private OpsServer opsServer;
  private PrometheusRegistry metricsRegistry;
  private volatile boolean closing;

  private SpoolNode(Config config) {
    this.config = config;
    this.logPrefix = "[node=" + config.get(BrokerConfig.NODE_ID) + "]";
  }

  /**
   * Starts the configured roles; on failure stops what was started and rethrows. The node's data
   * directories must be formatted for it ({@link NodeStorage#verify}, else {@link
   * StorageException}); the cluster id is the one they were formatted with.
   */
  public static SpoolNode start(Config config, Clock clock) throws IOException {
    SpoolNode node = new SpoolNode(NodeStorage.verify(config));
    try {
      node.startRoles(clock);
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
    return node;
  }

  private void startRoles(Clock clock) throws IOException {
    int nodeId = config.get(BrokerConfig.NODE_ID);
    String clusterId = config.get(BrokerConfig.CLUSTER_ID);
    log.info(
        "{} starting roles {} of cluster '{}'",
        logPrefix,
        config.get(BrokerConfig.PROCESS_ROLES),
        clusterId);
    for (String listener : NodeConfig.exposedListeners(config)) {
      log.warn(
          "{} SECURITY: {} binds beyond loopback without mutual TLS or SASL over TLS"
              + " (listener.security.protocol.map SSL with ssl.client.auth=required, or SASL_SSL;"
              + " CONTROLLER:SSL for the quorum port): anyone who"
              + " reaches it can reach the cluster unauthenticated, or read passwords on the wire."
              + " Bind 127.0.0.1 or keep the port behind a firewall on a private network.",
          logPrefix,
          listener);
    }
    quorumKeys = SecurityConfig.quorumKeys(config);
    QuorumTls quorumTls = null;
    if (quorumKeys != null) {
      quorumTls =
          quorumKeys
              .watch(config, "quorum-tls-" + nodeId)
              .tls()
              .admitting(SecurityConfig.quorumAdmission(config));
      log.info("{} metadata quorum over mutual TLS (CONTROLLER:SSL)", logPrefix);
    }
    NodeMetrics metrics = null;
    String opsListener = config.get(OpsConfig.METRICS_LISTENER);
    if (!opsListener.isEmpty()) {
      metrics = new NodeMetrics(config.get(OpsConfig.METRICS_PARTITION_LABELS_MAX));
      BrokerMetrics brokerMetrics = metrics.broker();
      StatusPage status =
          new StatusPage(
              nodeId,
              config.get(OpsConfig.METRICS_PARTITION_LABELS_MAX),
              this::readiness,
              () -> broker == null ? null : broker.image(),
              this::describeQuorum,
              brokerMetrics::totals);
      opsServer = OpsServer.start(opsListener, nodeId, metrics.registry(), this::readiness, status);
      metricsRegistry = metrics.registry();
    }
    if (BrokerConfig.isController(config)) {
      QuorumServer q =
          QuorumServer.create(QuorumSettings.of(nodeId, clusterId, config, quorumTls), clock);
      quorumServer = q;
      try {
        q.start();
      } catch (NotAQuorumMemberException e) {
        throw new StorageException(e.getMessage(), e); // exit 3, "refusing to start: ..."
      }
      NodeStorage.recordVoterStarted(config);
      if (metrics != null) {
        metrics.addController(q);
      }
    }
    if (BrokerConfig.isBroker(config)) {
      quorumClient = QuorumClient.create(QuorumClientSettings.of(clusterId, config, quorumTls));
      broker =
          Broker.start(
              config,
              quorumClient,
              clock,
              metrics == null ? BrokerMetrics.DISABLED : metrics.broker());
    }
    log.info("{} started", logPrefix);
  }

  public Broker broker() {
    return broker;
  }

  /**
   * What {@code /metrics} serves, or null when {@code metrics.listener} is not set. Its {@code
   * scrape()} lists every registered family, also those without samples yet (which the text format
   * leaves out), so a test can check names that a dashboard or an alert uses.
   */
  public PrometheusRegistry metricsRegistry() {
    return metricsRegistry;
  }

  /** The operations endpoint's address, or null when {@code metrics.listener} is not set. */
  public InetSocketAddress opsAddress() {
    return opsServer == null ? null : opsServer.address();
  }

  /**
   * Ready: every role of the node is up. The quorum member has started and, if it is a voter, knows
   * an active controller; the broker has recovered its logs and started, is registered and unfenced
   * ({@code RUNNING}: the controller unfences a broker only once it has replayed the metadata up to
   * its registration, and fences it again when its session lapses), and holds its leadership lease
   * (an answered heartbeat within the session timeout: a broker whose heartbeats stop reaching the
   * controller is fenced there without hearing of it). Otherwise the reason names the first
   * condition that fails.
   */
  public Readiness readiness() {
    if (closing) {
      return Readiness.notReady("the node is stopping");
    }
    if (BrokerConfig.isController(config)) {
      QuorumServer q = quorumServer;
      if (q == null) {
        return Readiness.notReady("the quorum member is starting (metadata log recovery)");
      }
      String logFailure = q.metadataLogFailure();
      if (!logFailure.isEmpty()) {
        return Readiness.notReady(
            "controller stopped: "
                + logFailure
                + "; replace or repair the quorum directory's disk and restart the node");
      }
      try {
        // A controller that is not a voter (a new one not added yet, a listener catching up, one
        // removed from the quorum) serves nothing that needs a leader: only voters wait for one.
        if (q.membership() == QuorumServer.Membership.VOTER && q.activeControllerId() < 0) {
          return Readiness.notReady("no active controller is known to this voter");
        }
      } catch (RuntimeException e) {
        return Readiness.notReady("the quorum member is not running: " + e.getMessage());
      }
    }
    if (BrokerConfig.isBroker(config)) {
      Broker b = broker;
      if (b == null) {
        return Readiness.notReady("the broker is starting (log recovery)");
      }
      BrokerState st = b.state();
      switch (st) {
        case RUNNING:
          if (!b.holdsLeadershipLease()) {
            // Heartbeats no longer reach the active controller: it fences this broker once the
            // session runs out, but nothing can tell the broker so until one gets through.
            return Readiness.notReady(
                "fenced: no heartbeat answered by the active controller within the session"
                    + " timeout (broker.session.timeout.ms); the controller fences a broker whose"
                    + " heartbeats stop");
          }
          String offline = b.offlineDirReason();
          if (!offline.isEmpty()) {
            return Readiness.notReady(
                "data directory offline after a storage error: "
                    + offline
                    + "; its replicas moved to other brokers; restart the node on a healthy disk");
          }
          break;
        case STARTING:
        case REGISTERING:
          return Readiness.notReady("not registered with the quorum (broker state " + st + ")");
        case RECOVERING:
          return Readiness.notReady(
              "fenced: catching up with metadata or waiting to be unfenced (broker state "
                  + st
                  + ")");
        default:
          return Readiness.notReady("shutting down (broker state " + st + ")");
      }
    }
    return Readiness.READY;
  }

  /**
   * The quorum as the status page shows it: described by the active controller through the broker's
   * quorum client, or, on a controller-only node, the leader this voter knows (term and commit
   * index unknown); null while no role has started.
   */
  private CompletableFuture<QuorumInfo> describeQuorum() {
    QuorumClient c = quorumClient;
    if (c != null) {
      return c.describeQuorum();
    }
    QuorumServer q = quorumServer;
    if (q == null) {
      return null;
    }
    return CompletableFuture.completedFuture(
        QuorumInfo.newBuilder()
            .setLeaderId(q.activeControllerId())
            .setTerm(-1)
            .setCommitIndex(-1)
            .build());
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  /** Graceful stop: controlled shutdown of the broker, then the quorum member. Idempotent. */
  @Override
  public synchronized void close() {
    if (closing) {
      return;
    }
    closing = true;
    log.info("{} stopping", logPrefix);
    if (broker != null) {
      try {
        broker.controlledShutdown(config.get(BrokerConfig.CONTROLLED_SHUTDOWN_TIMEOUT_MS));
      } catch (RuntimeException e) {
        log.warn("{} controlled shutdown failed; stopping anyway", logPrefix, e);
      }
      closeQuietly(broker, "broker");
    }
    closeQuietly(quorumClient, "quorum client");
    if (quorumServer != null && quorumServer.isActiveController()) {
      // Hand the quorum over before leaving so the next write does not wait for an election.
      try {
        quorumServer.transferLeadership(2_000);
      } catch (RuntimeException e) {
        log.warn("{} leadership transfer failed; the quorum will elect without us", logPrefix, e);
      }
    }
    closeQuietly(quorumServer, "quorum member");
    closeQuietly(quorumKeys, "quorum TLS key material watcher");
    closeQuietly(opsServer, "metrics and health endpoint");
    log.info("{} stopped", logPrefix);
    stopped.countDown();
  }

  private void closeQuietly(AutoCloseable c, String what) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      log.warn("{} closing the {} failed", logPrefix, what, e);
    }
  }

  static String describe(Config config) {
    return "node "
        + config.get(BrokerConfig.NODE_ID)
        + " roles="
        + config.get(BrokerConfig.PROCESS_ROLES)
        + (BrokerConfig.isBroker(config)
            ? " listener=" + BrokerConfig.advertisedListener(config)
            : "")
        + (BrokerConfig.isController(config) ? " voters=" + config.get(QuorumConfig.VOTERS) : "");
  }
}
