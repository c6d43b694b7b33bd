package dev.spool.testing.inprocess;

import dev.spool.broker.Broker;
import dev.spool.broker.BrokerConfig;
import dev.spool.broker.SecurityConfig;
import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.node.NodeStorage;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumSettings;
import dev.spool.quorum.QuorumTls;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node inside this JVM, built like the node process builds it ({@code SpoolNode}): a {@link
 * QuorumServer} for the controller role, a {@link QuorumClient} and a {@link Broker} for the broker
 * role, controller first. Unlike the process, each role can stop and start on its own, so a test
 * can take a broker away while its controller keeps the quorum's majority. Every start uses the
 * same config: the same ports and data directory. As the node process, each start first checks that
 * the node's directories are formatted for it ({@link NodeStorage#verify}); the cluster formats
 * them before the first start.
 *
 * <p>Thread-safe (synchronized): the test thread and the cluster's close call it.
 */
final class InProcessNode {
  private static final Logger log = LoggerFactory.getLogger(InProcessNode.class);

  /** How long a planned stop waits for the quorum to take over from an active controller. */
  private static final long LEADERSHIP_TRANSFER_MS = 2_000;

  private final int id;
  private final Config config;
  private QuorumServer quorumServer;
  private CuttableQuorumClient quorumClient;
  private Broker broker;
  private boolean quorumLinkCut;
  private SecurityConfig.QuorumKeys quorumKeys; // null: not loaded, or CONTROLLER:PLAINTEXT

  InProcessNode(int id, Config config) {
    this.id = id;
    this.config = config;
  }

  int id() {
    return id;
  }

  Config config() {
    return config;
  }

  boolean isBroker() {
    return BrokerConfig.isBroker(config);
  }

  boolean isController() {
    return BrokerConfig.isController(config);
  }

  /** True while any of its roles runs. */
  synchronized boolean isRunning() {
    return quorumServer != null || broker != null;
  }

  synchronized Broker broker() {
    return broker;
  }

  synchronized QuorumServer quorumServer() {
    return quorumServer;
  }

  /** Starts its controller role if it has one and it is not running. */
  synchronized void startController() {
    if (!isController() || quorumServer != null) {
      return;
    }
    NodeStorage.verify(config);
    QuorumServer s =
        QuorumServer.create(
            QuorumSettings.of(id, config.get(BrokerConfig.CLUSTER_ID), config, quorumTls()),
            Clock.SYSTEM);
    try {
      s.start();
    } catch (IOException e) {
      closeQuietly(s, "quorum member");
      releaseQuorumKeysIfStopped();
      throw new UncheckedIOException("node " + id + ": the quorum member did not start", e);
    }
    quorumServer = s;
    NodeStorage.recordVoterStarted(config);
  }

  /** Starts its broker role if it has one and it is not running; returns the broker (or null). */
  synchronized Broker startBroker() {
    if (!isBroker() || broker != null) {
      return broker;
    }
    NodeStorage.verify(config);
    CuttableQuorumClient c =
        new CuttableQuorumClient(
            QuorumClient.create(
                QuorumClientSettings.of(config.get(BrokerConfig.CLUSTER_ID), config, quorumTls())),
            id);
    c.setCut(quorumLinkCut);
    try {
      broker = Broker.start(config, c, Clock.SYSTEM);
    } catch (RuntimeException e) {
      c.close();
      releaseQuorumKeysIfStopped();
      throw e;
    }
    quorumClient = c;
    return broker;
  }

  /**
   * Stops its broker role: with a controlled shutdown first (its leaderships move away) if {@code
   * controlled}, else at once.
   */
  synchronized void stopBroker(boolean controlled) {
    if (broker == null) {
      return;
    }
    if (controlled) {
      try {
        broker.controlledShutdown(config.get(BrokerConfig.CONTROLLED_SHUTDOWN_TIMEOUT_MS));
      } catch (RuntimeException e) {
        log.warn("[node={}] controlled shutdown failed; stopping anyway", id, e);
      }
    }
    closeQuietly(broker, "broker");
    closeQuietly(quorumClient, "quorum client");
    broker = null;
    quorumClient = null;
    releaseQuorumKeysIfStopped();
  }

  /**
   * Cuts (or heals) its broker's link to the quorum: every quorum call of the broker fails while
   * cut, its data plane keeps running. Holds across broker restarts until healed.
   */
  synchronized void setQuorumLinkCut(boolean cut) {
    quorumLinkCut = cut;
    if (quorumClient != null) {
      quorumClient.setCut(cut);
    }
  }

  /** Stops its controller role; a planned stop hands the quorum's leadership over first. */
  synchronized void stopController(boolean controlled) {
    if (quorumServer == null) {
      return;
    }
    if (controlled && quorumServer.isActiveController()) {
      try {
        quorumServer.transferLeadership(LEADERSHIP_TRANSFER_MS);
      } catch (RuntimeException e) {
        log.warn("[node={}] leadership transfer failed; the quorum will elect without us", id, e);
      }
    }
    closeQuietly(quorumServer, "quorum member");
    quorumServer = null;
    releaseQuorumKeysIfStopped();
  }

  /**
   * The quorum's TLS material, shared by both roles and watched for new content as a node does
   * ({@code ssl.reload.interval.ms}); null under {@code CONTROLLER:PLAINTEXT}.
   */
  private QuorumTls quorumTls() {
    if (quorumKeys == null) {
      quorumKeys = SecurityConfig.quorumKeys(config);
      if (quorumKeys != null) {
        quorumKeys.watch(config, "quorum-tls-" + id);
      }
    }
    return quorumKeys == null
        ? null
        : quorumKeys.tls().admitting(SecurityConfig.quorumAdmission(config));
  }

  private void releaseQuorumKeysIfStopped() {
    if (!isRunning() && quorumKeys != null) {
      quorumKeys.close();
      quorumKeys = null;
    }
  }

  private void closeQuietly(AutoCloseable c, String what) {
    try {
      c.close();
    } catch (Exception e) {
      log.warn("[node={}] closing the {} failed", id, what, e);
    }
  }
}
