package dev.spool.node;

import dev.spool.broker.Broker;
import dev.spool.broker.BrokerConfig;
import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumSettings;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: the controller role (a voter of the metadata quorum), the broker role, or both.
 * Start order: controller first (so a combined node's broker can register with a quorum that
 * includes itself), then the broker. Stop order is the reverse; a broker stopping on purpose first
 * asks the quorum to move its leaderships away (controlled shutdown).
 *
 * <p>Nothing here is needed for safety on SIGKILL: logs are recovered from their files and the
 * quorum from its Raft log and snapshots.
 */
public final class SpoolNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SpoolNode.class);

  private final Config config;
  private final String logPrefix;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private QuorumServer quorumServer;
  private QuorumClient quorumClient;
  private Broker broker;
  private volatile boolean closing;

  private SpoolNode(Config config) {
    this.config = config;
    this.logPrefix = "[node=" + config.get(BrokerConfig.NODE_ID) + "]";
  }

  /** Starts the configured roles; on failure stops what was started and rethrows. */
  public static SpoolNode start(Config config, Clock clock) throws IOException {
    SpoolNode node = new SpoolNode(config);
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
          "{} SECURITY: {} binds beyond loopback without TLS or authentication (Spool has neither"
              + " yet): anyone who reaches it can read, write and administer the cluster. Bind"
              + " 127.0.0.1 or keep the port behind a firewall on a private network.",
          logPrefix,
          listener);
    }
    if (BrokerConfig.isController(config)) {
      quorumServer = QuorumServer.create(QuorumSettings.of(nodeId, clusterId, config), clock);
      quorumServer.start();
    }
    if (BrokerConfig.isBroker(config)) {
      quorumClient = QuorumClient.create(QuorumClientSettings.of(clusterId, config));
      broker = Broker.start(config, quorumClient, clock);
    }
    log.info("{} started", logPrefix);
  }

  public Broker broker() {
    return broker;
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
