package dev.spool.quorum;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.lifecycle.BrokerLifecycle;
import dev.spool.quorum.lifecycle.BrokerState;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-JVM 3-voter Ratis clusters with brokers as Ratis clients.
 *
 * <p>Each test has its own cluster (own ports, own temporary directory), so the tests run side by
 * side (junit-platform.properties): most of their time is spent waiting for elections and for
 * graceful Ratis closes. The two tests that assert how fast news travels take the {@link #TIMING}
 * lock exclusively and run alone; the others share it.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Execution(ExecutionMode.CONCURRENT)
class QuorumClusterTest {
  /** Held shared by every test, exclusively by those whose assertions measure latency. */
  private static final String TIMING = "dev.spool.quorum.QuorumClusterTest.timing";

  private static final Logger log = LoggerFactory.getLogger(QuorumClusterTest.class);
  private static final Duration WAIT = Duration.ofSeconds(30);

  static CreateTopicsRequest topic(String name, int partitions, int rf) {
    return CreateTopicsRequest.newBuilder()
        .addTopics(
            CreateTopicsRequest.Topic.newBuilder()
                .setName(name)
                .setNumPartitions(partitions)
                .setReplicationFactor(rf))
        .build();
  }

  static CreateTopicsResponse.Result create(QuorumClient c, String name, int partitions, int rf)
      throws Exception {
    CreateTopicsResponse r = c.createTopics(topic(name, partitions, rf)).get(30, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NONE, r.getTopics(0).getErrorCode(), r.getTopics(0).getErrorMessage());
    return r.getTopics(0);
  }

  static void awaitRunning(BrokerLifecycle... brokers) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              for (BrokerLifecycle b : brokers) {
                if (b.state() != BrokerState.RUNNING) {
                  return false;
                }
              }
              return true;
            });
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldKeepMetadataWritableWhenTheActiveControllerStops() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumServer first = c.awaitActiveController();
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      BrokerLifecycle b2 = c.newBroker(2);
      BrokerLifecycle b3 = c.newBroker(3);
      awaitRunning(b1, b2, b3);
      create(client, "before", 3, 3);

      first = c.awaitActiveController();
      int stopped = first.nodeId();
      long stoppedNs = System.nanoTime();
      // Closing a Ratis server takes a while (graceful); write while it closes.
      CompletableFuture<Void> stopping =
          CompletableFuture.runAsync(
              () -> {
                try {
                  c.stop(stopped);
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      QuorumServer old = first;
      await().atMost(WAIT).until(() -> !old.isActiveController());
      create(client, "after", 3, 3);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedNs);
      log.info("first committed write {} ms after stopping the active controller", ms);
      stopping.get(30, TimeUnit.SECONDS);
      QuorumServer second = c.awaitActiveController();
      assertNotEquals(first.nodeId(), second.nodeId());

      // Brokers kept heartbeating through the election: the new controller's grace period
      // means nobody is fenced, and the new topic reaches them.
      await()
          .atMost(WAIT)
          .until(
              () ->
                  b1.image().topic("after") != null
                      && b2.image().topic("after") != null
                      && b3.image().topic("after") != null);
      MetadataImage img = second.image();
      for (int id = 1; id <= 3; id++) {
        assertFalse(img.broker(id).fenced(), "broker " + id + " was fenced by the failover");
      }
      QuorumInfo q = client.describeQuorum().get(10, TimeUnit.SECONDS);
      assertEquals(second.nodeId(), q.getLeaderId());
      assertEquals(3, q.getVotersCount());
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ_WRITE)
  void shouldFenceASilentBrokerAndGiveItsPartitionsNewLeadersFromTheIsr() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      BrokerLifecycle b2 = c.newBroker(2);
      BrokerLifecycle b3 = c.newBroker(3);
      awaitRunning(b1, b2, b3);
      create(client, "t", 6, 3);
      await().atMost(WAIT).until(() -> b1.image().partitions("t").size() == 6);
      long ledBy1 = b1.image().partitions("t").stream().filter(p -> p.leader() == 1).count();
      assertTrue(ledBy1 > 0, "placement gives broker 1 some leaderships");

      long sessionMs = c.config().get(QuorumConfig.SESSION_TIMEOUT_MS);
      long heartbeatMs = c.config().get(QuorumConfig.HEARTBEAT_INTERVAL_MS);
      long t0 = System.nanoTime();
      b1.halt();
      // Measured at the live brokers: fenced, and every partition led from its ISR without 1.
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                MetadataImage img = b2.image();
                return img.broker(1).fenced()
                    && img.partitions("t").stream()
                        .allMatch(p -> p.leader() != 1 && p.hasLeader() && !p.isrContains(1));
              });
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      log.info(
          "silent broker fenced and its partitions moved, seen by a broker, {} ms after its "
              + "last chance to heartbeat (session {} ms, heartbeat {} ms)",
          ms,
          sessionMs,
          heartbeatMs);
      // The session runs from the last heartbeat (<= 1 interval before the halt); then a tick,
      // a commit, and one heartbeat interval for the news to reach the broker. Slack for a
      // loaded 2-core CI box.
      assertTrue(ms <= sessionMs + 2 * heartbeatMs + 1000, "took " + ms + " ms");
      for (PartitionState p : b2.image().partitions("t")) {
        assertTrue(p.isr().contains(p.leader()), p.toString());
      }
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ_WRITE)
  void shouldDeliverACommittedChangeToALiveBrokerWithinAboutOneHeartbeat() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      awaitRunning(b1);
      long heartbeatMs = c.config().get(QuorumConfig.HEARTBEAT_INTERVAL_MS);
      List<Long> delays = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String name = "t" + i;
        create(client, name, 1, 1);
        long committed = System.nanoTime();
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(2))
            .until(() -> b1.image().topic(name) != null);
        delays.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - committed));
      }
      log.info("commit -> broker image delays (ms): {}", delays);
      List<Long> sorted = delays.stream().sorted().toList();
      assertTrue(sorted.get(sorted.size() / 2) <= heartbeatMs + 100, "median " + sorted);
      assertTrue(sorted.get(sorted.size() - 1) <= 3 * heartbeatMs, "max " + sorted);
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldSendAFullImageToABrokerOlderThanTheRing() throws Exception {
    try (QuorumTestCluster c =
        QuorumTestCluster.builder()
            .voters(3)
            .config(QuorumConfig.RING_BATCHES.name(), 10)
            .start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      awaitRunning(b1);
      for (int i = 0; i < 30; i++) {
        create(client, "t" + i, 1, 1);
      }
      QuorumServer active = c.awaitActiveController();
      long epoch = b1.brokerEpoch();
      // A broker that is 30 batches behind gets the whole image in one answer...
      BrokerHeartbeatResponse old =
          client
              .heartbeat(
                  BrokerHeartbeatRequest.newBuilder()
                      .setBrokerId(1)
                      .setBrokerEpoch(epoch)
                      .setMetadataOffset(epoch)
                      .build())
              .get(10, TimeUnit.SECONDS);
      assertTrue(old.hasFullImage());
      assertEquals(0, old.getBatchesCount());
      // ...one a few batches behind gets just those batches.
      long recent = active.image().offset() - 1;
      BrokerHeartbeatResponse close =
          client
              .heartbeat(
                  BrokerHeartbeatRequest.newBuilder()
                      .setBrokerId(1)
                      .setBrokerEpoch(epoch)
                      .setMetadataOffset(recent)
                      .build())
              .get(10, TimeUnit.SECONDS);
      assertFalse(close.hasFullImage());

      // A broker starting now replays a full image and ends with the controller's content.
      List<MetadataDelta> deltas = new CopyOnWriteArrayList<>();
      BrokerLifecycle b2 = c.newBroker(2, "", (img, d) -> deltas.add(d));
      awaitRunning(b2);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  b2.image().offset() >= active.image().offset()
                      && b2.image().topics().size() == 30);
      assertTrue(deltas.get(0).fullImage(), "first update is a full image");
      assertEquals(30, deltas.get(0).changedTopics().size());
      // Identical images once both are at the same offset (replay is deterministic).
      await().atMost(WAIT).until(() -> b2.image().equals(active.image()));
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldCatchUpARestartedControllerFromASnapshot() throws Exception {
    try (QuorumTestCluster c =
        QuorumTestCluster.builder()
            .voters(3)
            .config(QuorumConfig.SNAPSHOT_THRESHOLD_ENTRIES.name(), 200)
            .config(QuorumConfig.LOG_SEGMENT_BYTES.name(), 64 * 1024)
            .start()) {
      QuorumServer leader = c.awaitActiveController();
      int follower =
          c.servers().keySet().stream()
              .filter(id -> id != leader.nodeId())
              .findFirst()
              .orElseThrow();
      QuorumClient client = c.newClient();
      c.stop(follower);
      // Many more entries than the snapshot threshold while the follower is down: the leader
      // snapshots and purges its log, so the follower can only catch up through a snapshot.
      List<CompletableFuture<?>> inFlight = new ArrayList<>();
      for (int i = 0; i < 1200; i++) {
        inFlight.add(
            client.register(
                BrokerRegistrationRequest.newBuilder()
                    .setBrokerId(100 + i)
                    .setIncarnationId("inc-" + i)
                    .setHost("h" + i)
                    .setPort(9092)
                    .setMinMetadataVersion(MetadataVersion.SUPPORTED.min())
                    .setMaxMetadataVersion(MetadataVersion.SUPPORTED.max())
                    .build()));
        if (inFlight.size() == 64) {
          CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
          inFlight.clear();
        }
      }
      CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      QuorumServer active = c.awaitActiveController();
      assertTrue(active.image().brokers().size() >= 1200);

      QuorumServer restarted = c.restart(follower);
      await().atMost(WAIT).until(() -> restarted.appliedIndex() >= active.appliedIndex());
      assertTrue(restarted.loadedSnapshotIndex() > 0, "caught up through a snapshot");
      log.info(
          "restarted controller {} loaded snapshot at {} (leader applied {})",
          follower,
          restarted.loadedSnapshotIndex(),
          active.appliedIndex());
      await().atMost(WAIT).until(() -> restarted.image().offset() == active.image().offset());
      assertEquals(active.image(), restarted.image());
      assertTrue(restarted.takeSnapshot() >= restarted.loadedSnapshotIndex());
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldRefuseBadRequestsWithErrorCodesAndKeepServing() throws Exception {
    try (QuorumTestCluster c =
        QuorumTestCluster.builder()
            .voters(3)
            .config(QuorumConfig.MAX_REQUEST_BYTES.name(), 4096)
            .start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      awaitRunning(b1);
      QuorumServer active = c.awaitActiveController();
      long before = active.image().topics().size();

      CreateTopicsResponse bad =
          client.createTopics(topic("bad name", 1, 1)).get(10, TimeUnit.SECONDS);
      assertEquals(ErrorCode.INVALID_TOPIC, bad.getTopics(0).getErrorCode());
      assertEquals(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          client
              .createTopics(topic("x", 1, 3))
              .get(10, TimeUnit.SECONDS)
              .getTopics(0)
              .getErrorCode());

      CreateTopicsRequest huge =
          CreateTopicsRequest.newBuilder()
              .addTopics(
                  CreateTopicsRequest.Topic.newBuilder()
                      .setName("big")
                      .setNumPartitions(1)
                      .setReplicationFactor(1)
                      .putConfigs("retention.ms", "1".repeat(5000)))
              .build();
      Exception e =
          assertThrows(Exception.class, () -> client.createTopics(huge).get(10, TimeUnit.SECONDS));
      assertNotNull(e.getCause());
      assertTrue(e.getCause() instanceof SpoolException, String.valueOf(e.getCause()));
      assertEquals(ErrorCode.INVALID_REQUEST, ((SpoolException) e.getCause()).errorCode());

      assertEquals(before, active.image().topics().size());
      create(client, "good", 1, 1);
      assertTrue(active.isActiveController());
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldHandOverLeadershipsOnControlledShutdown() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      BrokerLifecycle b2 = c.newBroker(2);
      BrokerLifecycle b3 = c.newBroker(3);
      awaitRunning(b1, b2, b3);
      create(client, "t", 6, 3);
      await().atMost(WAIT).until(() -> b1.image().partitions("t").size() == 6);
      assertTrue(b1.controlledShutdown(10_000), "controller confirmed the hand-over");
      assertEquals(BrokerState.SHUTTING_DOWN, b1.state());
      MetadataImage img = c.awaitActiveController().image();
      for (PartitionState p : img.partitions("t")) {
        assertNotEquals(1, p.leader(), p.toString());
        assertFalse(p.isrContains(1), p.toString());
      }
      b1.close();
      await().atMost(WAIT).until(() -> c.awaitActiveController().image().broker(1).fenced());
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldRejoinThroughANewEpochWhenABrokerRestarts() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      BrokerLifecycle b2 = c.newBroker(2);
      awaitRunning(b1, b2);
      create(client, "t", 2, 2);
      await().atMost(WAIT).until(() -> b2.image().partitions("t").size() == 2);
      PartitionState before = b2.image().partition(new TopicPartition("t", 0));
      long oldEpoch = b1.brokerEpoch();
      b1.halt();
      BrokerLifecycle again = c.newBroker(1);
      awaitRunning(again);
      assertTrue(again.brokerEpoch() > oldEpoch);
      await()
          .atMost(WAIT)
          .until(
              () -> {
                PartitionState p = b2.image().partition(new TopicPartition("t", 0));
                return p.leaderEpoch() > before.leaderEpoch()
                    || p.partitionEpoch() > before.partitionEpoch();
              });
    }
  }

  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldHandOverLeadershipBeforeAPlannedStop() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumClient client = c.newClient();
      BrokerLifecycle b1 = c.newBroker(1);
      awaitRunning(b1);
      QuorumServer first = c.awaitActiveController();
      long t0 = System.nanoTime();
      assertTrue(first.transferLeadership(5000));
      create(client, "after-transfer", 1, 1);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      log.info("leadership transfer plus a committed write took {} ms", ms);
      QuorumServer second = c.awaitActiveController();
      assertNotEquals(first.nodeId(), second.nodeId());
      assertFalse(second.image().broker(1).fenced());
    }
  }

  /**
   * When every node stops at once, each node's broker enters controlled shutdown before its
   * controller leaves; the active controller then hands over only to a voter that stays, and to
   * none when no voter stays (a transfer to a stopping voter could only time out).
   */
  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldHandLeadershipOnlyToAVoterThatStays() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumServer first = c.awaitActiveController();
      List<Integer> others =
          c.servers().keySet().stream().filter(id -> id != first.nodeId()).sorted().toList();
      BrokerLifecycle leaving = c.newBroker(others.get(0));
      BrokerLifecycle firstsBroker = c.newBroker(first.nodeId());
      awaitRunning(leaving, firstsBroker);
      assertTrue(leaving.controlledShutdown(10_000), "controller confirmed the shutdown");

      assertTrue(first.transferLeadership(5000));
      QuorumServer second = c.awaitActiveController();
      assertEquals(others.get(1), second.nodeId(), "the voter whose broker stays leads");

      assertTrue(firstsBroker.controlledShutdown(10_000), "controller confirmed the shutdown");
      await()
          .atMost(WAIT)
          .until(() -> second.image().broker(first.nodeId()).inControlledShutdown());
      assertFalse(second.transferLeadership(5000), "no voter stays, so no transfer");
      assertEquals(second.nodeId(), c.awaitActiveController().nodeId());
    }
  }

  /**
   * A closed broker's last heartbeat fences it, which also ends its controlled shutdown in the
   * image: its voter is stopping all the same, and the active controller hands over to a voter
   * whose broker still runs instead (a transfer to a stopping voter could only time out).
   */
  @Test
  @ResourceLock(value = TIMING, mode = ResourceAccessMode.READ)
  void shouldNotHandLeadershipToAVoterWhoseBrokerHasClosed() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumServer first = c.awaitActiveController();
      List<Integer> others =
          c.servers().keySet().stream().filter(id -> id != first.nodeId()).sorted().toList();
      BrokerLifecycle closed = c.newBroker(others.get(0));
      BrokerLifecycle running = c.newBroker(others.get(1));
      awaitRunning(closed, running);
      assertTrue(closed.controlledShutdown(10_000), "controller confirmed the shutdown");
      closed.close();
      await().atMost(WAIT).until(() -> first.image().broker(others.get(0)).fenced());
      assertFalse(first.image().broker(others.get(0)).inControlledShutdown());

      assertTrue(first.transferLeadership(5000));
      assertEquals(
          others.get(1), c.awaitActiveController().nodeId(), "the voter whose broker runs leads");
    }
  }

  /**
   * An original voter that was removed and comes back with no Raft storage (wiped, formatted again)
   * is refused at start, naming the running quorum's members: as an original voter with an empty
   * log it could help elect a leader without committed metadata. A member that lost its storage is
   * not refused by this check (the node's voter.started marker refuses that one).
   */
  @Test
  void shouldRefuseARemovedVoterThatStartsAgainWithNoRaftStorage() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(3).start()) {
      QuorumServer leader = c.awaitActiveController();
      int removed =
          c.servers().keySet().stream()
              .filter(id -> id != leader.nodeId())
              .findFirst()
              .orElseThrow();
      int member =
          c.servers().keySet().stream()
              .filter(id -> id != leader.nodeId() && id != removed)
              .findFirst()
              .orElseThrow();
      try (QuorumAdmin admin = QuorumAdmin.connect(c.settings(leader.nodeId()).voters(), 10_000)) {
        admin.removeVoters(Set.of(removed));
      }
      await()
          .atMost(WAIT)
          .until(() -> c.server(removed).membership() == QuorumServer.Membership.NONE);
      assertEquals("", c.server(removed).metadataLogFailure(), "a removal is not a log failure");
      c.stop(removed);
      deleteRecursively(c.settings(removed).storageDir());

      NotAQuorumMemberException refused =
          assertThrows(NotAQuorumMemberException.class, () -> c.restart(removed));
      assertTrue(
          refused
              .getMessage()
              .contains("node " + removed + " is not a member of the running quorum"),
          refused.getMessage());
      assertTrue(refused.getMessage().contains("quorum add-voter"), refused.getMessage());

      c.stop(member);
      deleteRecursively(c.settings(member).storageDir());
      c.restart(member); // still a member: the others' configuration holds it
      await()
          .atMost(WAIT)
          .until(() -> c.server(member).membership() == QuorumServer.Membership.VOTER);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /**
   * The active controller's metadata log fails (its Raft storage's {@code current} directory is
   * replaced by a file, so the next segment roll fails in the file system): that controller stops
   * and says why, the other voters elect a new active controller, and metadata writes go on.
   */
  @Test
  void shouldStopAControllerWhoseMetadataLogFailsWhileTheOthersGoOn() throws Exception {
    try (QuorumTestCluster c =
        QuorumTestCluster.builder()
            .voters(3)
            .config(QuorumConfig.LOG_SEGMENT_BYTES.name(), 64 * 1024)
            .start()) {
      QuorumServer failing = c.awaitActiveController();
      BrokerLifecycle b1 = c.newBroker(1);
      BrokerLifecycle b2 = c.newBroker(2);
      BrokerLifecycle b3 = c.newBroker(3);
      awaitRunning(b1, b2, b3);
      QuorumClient client = c.newClient();
      create(client, "before", 1, 3);
      assertEquals("", failing.metadataLogFailure());

      Path current;
      try (Stream<Path> all = Files.walk(c.settings(failing.nodeId()).storageDir())) {
        current =
            all.filter(p -> p.getFileName().toString().equals("current")).findFirst().orElseThrow();
      }
      Files.move(current, current.resolveSibling("current.aside"));
      Files.writeString(current, "not a directory");
      for (int i = 0; i < 40 && failing.metadataLogFailure().isEmpty(); i++) {
        try {
          client.createTopics(topic("fill-" + i, 200, 1)).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
          // The failing controller may refuse or never answer: the loop checks what it reports.
        }
      }

      assertFalse(failing.metadataLogFailure().isEmpty(), "the roll into a file failed");
      await().atMost(WAIT).until(() -> !failing.isActiveController());
      QuorumServer next = c.awaitActiveController();
      assertNotEquals(failing.nodeId(), next.nodeId());
      create(client, "after", 1, 2);
      assertNotNull(next.image().topic("after"));
      assertFalse(failing.metadataLogFailure().isEmpty(), "it stays failed: " + failing);
    }
  }
}
