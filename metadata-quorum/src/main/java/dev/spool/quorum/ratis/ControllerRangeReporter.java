package dev.spool.quorum.ratis;

import dev.spool.quorum.QuorumTls;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ControllerHeartbeatRequest;
import dev.spool.quorum.message.ControllerRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the active controller which metadata.version levels this controller supports
 * (docs/architecture.md#versioned-metadata): a CONTROLLER_HEARTBEAT, a read-only Ratis query like a
 * broker heartbeat, sent to the leader this member knows every {@link #INTERVAL_MS} and at once
 * when the leader changes. Every controller runs one, voter or listener, combined or
 * controller-only: a controller-only node never registers as a broker, and the active controller
 * refuses to raise metadata.version while a voter's range is unknown or does not hold the level.
 * The leader itself sends nothing (its active controller knows its own range).
 *
 * <p>Failures are expected and only logged at debug: no leader yet, a leader not ready
 * (NOT_CONTROLLER), an older leader that does not know the request (INVALID_REQUEST); the next
 * round retries.
 *
 * <p>Threads: one daemon thread, {@code controller-range-<id>}, runs every round and owns the Ratis
 * client (rebuilt when the configuration's members change and after a failed report); at most one
 * report is in flight. Created, started and closed by {@link RatisQuorumServer}.
 */
final class ControllerRangeReporter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControllerRangeReporter.class);

  static final long INTERVAL_MS = 1_000;

  private final int nodeId;
  private final MetadataVersion.Range range;
  private final RaftGroupId groupId;
  private final Supplier<RaftServer.Division> division;
  private final long timeoutMs;
  private final QuorumTls tls;
  private final ScheduledExecutorService thread;
  private RaftClient client;
  private List<RaftPeer> clientPeers = List.of();
  private boolean inFlight;

  /**
   * @param division this member's division, or null while it has none (not started, closed)
   * @param timeoutMs how long one report may take
   * @param tls the quorum's TLS material, or null for plaintext
   */
  ControllerRangeReporter(
      int nodeId,
      MetadataVersion.Range range,
      RaftGroupId groupId,
      Supplier<RaftServer.Division> division,
      long timeoutMs,
      QuorumTls tls) {
    this.nodeId = nodeId;
    this.range = range;
    this.groupId = groupId;
    this.division = division;
    this.timeoutMs = timeoutMs;
    this.tls = tls;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "controller-range-" + nodeId);
              t.setDaemon(true);
              return t;
            });
  }

  void start() {
    thread.scheduleWithFixedDelay(this::report, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
  }

  /** The leader changed: report to the new one now rather than at the next round. Any thread. */
  void leaderChanged() {
    try {
      thread.execute(this::report);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void report() {
    if (inFlight) {
      return;
    }
    try {
      RaftServer.Division d = division.get();
      RaftPeerId leader = d == null ? null : d.getInfo().getLeaderId();
      if (leader == null || leader.equals(RaftSetup.peerId(nodeId))) {
        return;
      }
      RaftClient c = clientFor(d);
      ControllerRequest req =
          ControllerRequest.newBuilder()
              .setControllerHeartbeat(
                  ControllerHeartbeatRequest.newBuilder()
                      .setNodeId(nodeId)
                      .setMinMetadataVersion(range.min())
                      .setMaxMetadataVersion(range.max()))
              .build();
      inFlight = true;
      c.async()
          .sendReadOnlyUnordered(
              Message.valueOf(UnsafeByteOperations.unsafeWrap(req.toByteArray())), leader)
          .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
          .whenCompleteAsync((r, err) -> done(leader, r, err), thread);
    } catch (RuntimeException e) {
      inFlight = false;
      log.debug("[node={}] controller range report not sent: {}", nodeId, e.toString());
    }
  }

  private void done(RaftPeerId leader, RaftClientReply r, Throwable err) {
    inFlight = false;
    if (err != null) {
      log.debug(
          "[node={}] controller range report to {} failed: {}", nodeId, leader, err.toString());
      // A Ratis client that met a failure without a retry (LeaderNotReadyException, a timeout)
      // may have closed its connection to that server for good ("client->N is closed"): the next
      // round starts with a new one.
      closeClient();
      return;
    }
    try {
      Replies.controllerReply(r);
    } catch (RuntimeException e) {
      // NOT_CONTROLLER: the leader is not ready yet; INVALID_REQUEST: a leader of an older
      // version, which does not know the request.
      log.debug(
          "[node={}] controller range report to {} refused: {}", nodeId, leader, e.toString());
    }
  }

  /** A client of the division's current members (voters and listeners), rebuilt when they move. */
  private RaftClient clientFor(RaftServer.Division d) {
    List<RaftPeer> peers = new ArrayList<>(d.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER));
    peers.addAll(d.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER));
    if (client == null || !peers.equals(clientPeers)) {
      closeClient();
      client =
          RaftSetup.clientBuilder(tls)
              .setProperties(RaftSetup.clientProperties(timeoutMs))
              .setRaftGroup(RaftGroup.valueOf(groupId, peers))
              .setRetryPolicy(RetryPolicies.noRetry())
              .build();
      clientPeers = peers;
    }
    return client;
  }

  private void closeClient() {
    if (client != null) {
      try {
        client.close();
      } catch (IOException e) {
        log.debug("[node={}] closing the controller range client: {}", nodeId, e.toString());
      }
      client = null;
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeClient();
  }
}
