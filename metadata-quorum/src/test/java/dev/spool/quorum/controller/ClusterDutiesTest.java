package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.config.TopicConfig;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.MetadataSnapshot;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The active controller's tick as a pure function, with a manual clock. */
@Tag("unit")
class ClusterDutiesTest {
  private static final long SESSION_MS = 1500;
  private final ControllerSettings settings =
      QuorumConfig.defaultControllerSettings().withSessionTimeoutMs(SESSION_MS);
  private ImageFixture fx;
  private ManualClock clock;
  private BrokerHeartbeatTracker tracker;

  @BeforeEach
  void setUp() {
    start(MetadataVersion.LATEST);
  }

  private void start(int metadataVersion) {
    fx = new ImageFixture();
    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, metadataVersion));
    fx.brokers(1, 2, 3);
    fx.topic("t", List.of(List.of(1, 2, 3), List.of(2, 3, 1), List.of(3, 1, 2)));
    clock = new ManualClock(1_000_000);
    tracker = new BrokerHeartbeatTracker(SESSION_MS);
    tracker.observe(fx.image(), clock.monotonicMs());
    heartbeatAll(1, 2, 3);
  }

  private void heartbeatAll(int... ids) {
    for (int id : ids) {
      var b = fx.image().broker(id);
      tracker.heartbeat(
          id, b.epoch(), fx.image().offset(), false, false, List.of(), clock.monotonicMs());
    }
  }

  /** Broker 1 crashed: it is fenced and sends no heartbeats (a fresh tracker never heard it). */
  private void fenceDeadBroker1() {
    fx.fence(1);
    tracker = new BrokerHeartbeatTracker(SESSION_MS);
    tracker.observe(fx.image(), clock.monotonicMs());
    heartbeatAll(2, 3);
  }

  private ClusterDuties.Outcome tick(boolean balance) {
    tracker.observe(fx.image(), clock.monotonicMs());
    return ClusterDuties.decide(fx.image(), tracker, clock.monotonicMs(), balance, settings);
  }

  private void commit(ClusterDuties.Outcome o) {
    List<RecordResult> results = fx.apply(o.records());
    results.forEach(r -> assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage()));
  }

  private PartitionState p(int partition) {
    return fx.image().partition(new TopicPartition("t", partition));
  }

  @Test
  void shouldNotFenceBeforeTheSessionTimeout() {
    clock.advanceMs(SESSION_MS);
    assertTrue(tick(false).isEmpty());
  }

  @Test
  void shouldFenceASilentBrokerAfterTheSessionTimeoutAndMoveItsLeadershipsWithinTheIsr() {
    clock.advanceMs(1000);
    heartbeatAll(2, 3);
    clock.advanceMs(SESSION_MS - 1000 + 1);
    ClusterDuties.Outcome o = tick(false);
    assertEquals(MetadataRecord.RecordCase.FENCE_BROKER, o.records().get(0).getRecordCase());
    int leaderEpochBefore = p(0).leaderEpoch();
    commit(o);
    assertTrue(fx.image().broker(1).fenced());
    for (PartitionState p : fx.image().partitions("t")) {
      assertTrue(p.leader() == 2 || p.leader() == 3, p.toString());
      assertFalse(p.isrContains(1), p.toString());
      assertTrue(p.isrContains(p.leader()));
    }
    assertEquals(2, p(0).leader(), "first ISR member in replica order");
    assertEquals(leaderEpochBefore + 1, p(0).leaderEpoch());
    assertTrue(tick(false).isEmpty(), "nothing left to do");
  }

  @Test
  void shouldGiveEveryBrokerAFullSessionWhenANewControllerStarts() {
    clock.advanceMs(60_000); // nobody heartbeated the old controller for a minute
    BrokerHeartbeatTracker fresh = new BrokerHeartbeatTracker(SESSION_MS);
    fresh.observe(fx.image(), clock.monotonicMs());
    clock.advanceMs(SESSION_MS);
    assertTrue(
        ClusterDuties.decide(fx.image(), fresh, clock.monotonicMs(), false, settings).isEmpty());
    clock.advanceMs(1);
    assertEquals(
        3,
        ClusterDuties.decide(fx.image(), fresh, clock.monotonicMs(), false, settings)
            .records()
            .stream()
            .filter(r -> r.hasFenceBroker())
            .count());
  }

  @Test
  void shouldKeepTheLastIsrMemberAndLeaveNoLeaderWhenNoIsrMemberIsAlive() {
    String id = fx.topic("solo", List.of(List.of(1, 2)));
    PartitionState p = fx.image().partition(new TopicPartition("solo", 0));
    fx.apply(Records.partitionChange(p, 1, List.of(1))); // 2 fell out of sync
    fenceDeadBroker1();
    commit(tick(false));
    PartitionState after = fx.image().partition(new TopicPartition("solo", 0));
    assertEquals(PartitionState.NO_LEADER, after.leader(), "2 is not in the ISR: no clean leader");
    assertEquals(List.of(1), after.isr(), "the ISR keeps its last member");
    assertEquals(id, after.topicId());
  }

  @Test
  void shouldElectAnOutOfSyncReplicaOnlyWhenTheTopicAllowsUncleanElection() {
    fx.topic("solo", List.of(List.of(1, 2)));
    PartitionState p = fx.image().partition(new TopicPartition("solo", 0));
    fx.apply(Records.partitionChange(p, 1, List.of(1)));
    fenceDeadBroker1();
    commit(tick(false));
    assertEquals(
        PartitionState.NO_LEADER, fx.image().partition(new TopicPartition("solo", 0)).leader());
    fx.apply(
        Records.config(fx.image().topic("solo").id(), "unclean.leader.election.enable", "true"));
    commit(tick(false));
    PartitionState after = fx.image().partition(new TopicPartition("solo", 0));
    assertEquals(2, after.leader());
    assertEquals(List.of(2), after.isr());
  }

  @Test
  void shouldUnfenceABrokerOnlyOnceItHasCaughtUpWithItsRegistration() {
    fx.apply(Records.registerBroker(4, "inc", "h4", 9004, "", 0));
    long epoch = fx.image().broker(4).epoch();
    tracker.heartbeat(4, epoch, epoch - 1, false, false, List.of(), clock.monotonicMs());
    assertTrue(tick(false).records().stream().noneMatch(MetadataRecord::hasUnfenceBroker));
    tracker.heartbeat(4, epoch, epoch, false, false, List.of(), clock.monotonicMs());
    ClusterDuties.Outcome o = tick(false);
    assertEquals(List.of(Records.unfenceBroker(4, epoch)), o.records());
    tracker.heartbeat(4, epoch, epoch, true, false, List.of(), clock.monotonicMs());
    assertTrue(tick(false).isEmpty(), "a broker that asks to stay fenced stays fenced");
  }

  @Test
  void shouldMoveLeadershipAwayOnControlledShutdownButKeepAPartitionWithNobodyElse() {
    fx.topic("single", List.of(List.of(1)));
    long e1 = fx.image().broker(1).epoch();
    tracker.heartbeat(1, e1, fx.image().offset(), false, true, List.of(), clock.monotonicMs());
    assertFalse(ClusterDuties.shutdownComplete(fx.image(), 1));
    commit(tick(false));
    MetadataImage img = fx.image();
    assertTrue(img.broker(1).inControlledShutdown());
    assertEquals(2, p(0).leader());
    for (PartitionState p : img.partitions("t")) {
      assertFalse(p.isrContains(1), p.toString());
    }
    PartitionState single = img.partition(new TopicPartition("single", 0));
    assertEquals(1, single.leader(), "no one to hand over to: stays available until it stops");
    assertTrue(ClusterDuties.shutdownComplete(img, 1));
  }

  @Test
  void shouldRepairAPartitionWhoseChangeWasLost() {
    // The fence was committed but its partition changes were lost (e.g. rejected in a race).
    fenceDeadBroker1();
    assertTrue(p(0).isrContains(1));
    commit(tick(false));
    assertEquals(2, p(0).leader());
    assertFalse(p(1).isrContains(1));
  }

  @Test
  void shouldElectALeaderForALeaderlessPartitionWithALiveIsrMember() {
    fx.apply(Records.partitionChange(p(0), PartitionState.NO_LEADER, List.of(2, 3)));
    commit(tick(false));
    assertEquals(2, p(0).leader());
  }

  @Test
  void shouldMoveLeadershipBackToThePreferredReplicaOnlyWhenBalancingIsDue() {
    fx.apply(Records.partitionChange(p(0), 2, List.of(1, 2, 3)));
    assertTrue(tick(false).isEmpty());
    ClusterDuties.Outcome o = tick(true);
    commit(o);
    assertEquals(1, p(0).leader());
  }

  @Test
  void shouldNotFenceBrokersForTheControllersOwnStall() {
    clock.advanceMs(5000); // the controller was paused; heartbeats could not be processed
    tracker.extendSessions(5000);
    assertTrue(tick(false).isEmpty());
    clock.advanceMs(SESSION_MS + 1);
    assertEquals(3, tick(false).records().stream().filter(MetadataRecord::hasFenceBroker).count());
  }

  /** Ticks of 100 ms for {@code ms}, broker {@code heard} (the controller's own) heartbeating. */
  private void isolatedFor(long ms, int... heard) {
    for (long t = 0; t < ms; t += 100) {
      clock.advanceMs(100);
      heartbeatAll(heard);
      tracker.forgiveOwnIsolation(1, clock.monotonicMs(), 100);
    }
  }

  @Test
  void shouldFenceNobodyWhileTheControllersNodeHearsFromNoOtherBroker() {
    // Node 1 (controller and broker) is cut off: only its own broker heartbeats.
    isolatedFor(5_000, 1);
    assertTrue(tick(false).isEmpty(), "nobody fenced for the controller's own isolation");
    // Healed: broker 2 is heard again, broker 3 stays silent and expires a session later.
    heartbeatAll(2);
    assertFalse(tracker.forgiveOwnIsolation(1, clock.monotonicMs(), 100));
    isolatedFor(SESSION_MS + 100, 1, 2);
    List<Integer> fenced =
        tick(false).records().stream()
            .filter(MetadataRecord::hasFenceBroker)
            .map(r -> r.getFenceBroker().getBrokerId())
            .toList();
    assertEquals(List.of(3), fenced);
  }

  @Test
  void shouldStillFenceASilentBrokerWhileAnotherIsHeard() {
    isolatedFor(SESSION_MS + 100, 1, 2);
    List<Integer> fenced =
        tick(false).records().stream()
            .filter(MetadataRecord::hasFenceBroker)
            .map(r -> r.getFenceBroker().getBrokerId())
            .toList();
    assertEquals(List.of(3), fenced);
  }

  // ---------------------------------------------------------------- offline data directories
  // (docs/architecture.md#storage-errors)

  private static final String DIR = "/var/lib/spool/data";

  private void heartbeat(int id, List<String> offlineDirs) {
    long epoch = fx.image().broker(id).epoch();
    tracker.heartbeat(
        id, epoch, fx.image().offset(), false, false, offlineDirs, clock.monotonicMs());
  }

  private PartitionState p(String topic, int partition) {
    return fx.image().partition(new TopicPartition(topic, partition));
  }

  @Test
  void aReportedDirectoryIsRecordedAndTheBrokerLeavesEveryLeadershipAndIsr() {
    int epochOfP0 = p("t", 0).leaderEpoch();
    heartbeat(1, List.of(DIR));
    ClusterDuties.Outcome o = tick(false);
    assertEquals(MetadataVersion.LATEST, fx.image().metadataVersion());
    assertEquals(
        MetadataRecord.RecordCase.BROKER_DIRS_OFFLINE,
        o.records().get(0).getRecordCase(),
        "the directory is recorded first, in the same batch as the repairs");
    commit(o);

    assertEquals(List.of(DIR), fx.image().broker(1).offlineDirs());
    assertFalse(fx.image().broker(1).fenced(), "the broker stays registered and unfenced");
    assertFalse(fx.image().isEligible(1));
    for (PartitionState p : fx.image().partitions("t")) {
      assertFalse(p.isrContains(1), p.toString());
      assertTrue(p.leader() == 2 || p.leader() == 3, p.toString());
      assertTrue(p.isrContains(p.leader()), p.toString());
    }
    assertEquals(2, p("t", 0).leader(), "the next ISR member in replica order");
    assertEquals(epochOfP0 + 1, p("t", 0).leaderEpoch());
    assertTrue(tick(false).isEmpty(), "level-triggered: nothing left to do");
  }

  /**
   * Level 1 has no BrokerDirsOfflineRecord (a level-1 node could not read it): the broker is fenced
   * instead and stays fenced while it reports the directory, so its partitions fail over all the
   * same; raising the level records the directory.
   */
  @Test
  void atLevel1TheBrokerIsFencedInsteadAndTheRecordWaitsForLevel2() {
    start(MetadataVersion.V1);
    heartbeat(1, List.of(DIR));
    ClusterDuties.Outcome o = tick(false);
    assertFalse(o.records().stream().anyMatch(MetadataRecord::hasBrokerDirsOffline), o.reason());
    assertEquals(Records.fenceBroker(1, fx.image().broker(1).epoch()), o.records().get(0));
    commit(o);
    assertTrue(fx.image().broker(1).fenced());
    assertTrue(fx.image().broker(1).offlineDirs().isEmpty());
    for (PartitionState p : fx.image().partitions("t")) {
      assertFalse(p.isrContains(1), p.toString());
      assertTrue(p.leader() == 2 || p.leader() == 3, p.toString());
    }
    heartbeat(1, List.of(DIR));
    assertTrue(tick(false).isEmpty(), "not unfenced while the directory is offline");

    long epoch = fx.image().broker(1).epoch();
    MetadataImage before = fx.image();
    RecordResult raw = fx.apply(Records.brokerDirsOffline(1, epoch, List.of(DIR))).get(0);
    assertEquals(ErrorCode.INVALID_RECORD, raw.getErrorCode());
    assertTrue(raw.getErrorMessage().contains("needs metadata.version 2"), raw.getErrorMessage());
    assertEquals(before.brokers(), fx.image().brokers(), "refused at level 1, nothing changed");

    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.V2));
    heartbeat(1, List.of(DIR));
    ClusterDuties.Outcome raised = tick(false);
    assertEquals(
        List.of(Records.brokerDirsOffline(1, epoch, List.of(DIR)), Records.unfenceBroker(1, epoch)),
        raised.records(),
        raised.reason());
    commit(raised);
    assertEquals(List.of(DIR), fx.image().broker(1).offlineDirs());
    assertFalse(fx.image().isEligible(1), "unfenced, but still out of every ISR");
  }

  @Test
  void theLastIsrMemberFailingLeavesThePartitionWithoutALeaderAndKeepsItInTheIsr() {
    fx.topic("solo", List.of(List.of(1, 2)));
    fx.apply(Records.partitionChange(p("solo", 0), 1, List.of(1))); // 2 fell out of the ISR
    heartbeat(1, List.of(DIR));
    commit(tick(false));

    PartitionState solo = p("solo", 0);
    assertEquals(PartitionState.NO_LEADER, solo.leader(), "unclean election stays off");
    assertEquals(List.of(1), solo.isr(), "the ISR is never emptied (Kafka's rule)");
    assertTrue(tick(false).isEmpty());

    // Unclean election, when the topic allows it, takes the out-of-sync replica, never broker 1.
    String id = fx.image().topic("solo").id();
    fx.apply(Records.config(id, TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE.name(), "true"));
    commit(tick(false));
    assertEquals(2, p("solo", 0).leader());
    assertEquals(List.of(2), p("solo", 0).isr());
  }

  @Test
  void aNewControllerKeepsTheDecisionAndRefusesTheReplicaBackIntoTheIsr() throws Exception {
    heartbeat(1, List.of(DIR));
    commit(tick(false));
    MetadataImage before = fx.image();
    MetadataImage loaded =
        ImageSnapshots.fromSnapshot(
            MetadataSnapshot.parseFrom(ImageSnapshots.toSnapshot(before).toByteArray()));
    assertEquals(before, loaded, "the snapshot keeps the offline directory");

    // A new controller has heard no heartbeat yet: the image alone keeps broker 1 out.
    BrokerHeartbeatTracker fresh = new BrokerHeartbeatTracker(SESSION_MS);
    fresh.observe(loaded, clock.monotonicMs());
    assertTrue(
        ClusterDuties.decide(loaded, fresh, clock.monotonicMs(), true, settings).isEmpty(),
        "no repair, no preferred-leader move back to broker 1");

    PartitionState p0 = p("t", 0);
    AlterPartitionRequest expand =
        AlterPartitionRequest.newBuilder()
            .setBrokerId(p0.leader())
            .setBrokerEpoch(fx.image().broker(p0.leader()).epoch())
            .addPartitions(
                AlterPartitionRequest.Partition.newBuilder()
                    .setTopic("t")
                    .setPartition(0)
                    .setLeaderEpoch(p0.leaderEpoch())
                    .setPartitionEpoch(p0.partitionEpoch())
                    .addAllNewIsr(List.of(1, 2, 3)))
            .build();
    var reply = Decisions.commit(fx, PartitionDecisions.alterPartition(expand, fx.image()));
    assertEquals(
        ErrorCode.INELIGIBLE_REPLICA,
        reply.getAlterPartition().getPartitions(0).getErrorCode(),
        reply.toString());
    assertFalse(p("t", 0).isrContains(1));
  }

  @Test
  void aRestartWithAHealthyDiskRegistersWithEveryDirectoryOnline() {
    heartbeat(1, List.of(DIR));
    commit(tick(false));
    BrokerRegistrationRequest restart =
        BrokerRegistrationRequest.newBuilder()
            .setBrokerId(1)
            .setIncarnationId("after-disk-swap")
            .setHost("host1")
            .setPort(9001)
            .setMinMetadataVersion(MetadataVersion.SUPPORTED.min())
            .setMaxMetadataVersion(MetadataVersion.SUPPORTED.max())
            .build();
    Decisions.commit(fx, BrokerDecisions.register(restart, fx.image(), settings));
    assertTrue(fx.image().broker(1).offlineDirs().isEmpty());
    assertTrue(fx.image().broker(1).fenced(), "a new registration starts fenced, as always");
    fx.apply(Records.unfenceBroker(1, fx.image().broker(1).epoch()));
    assertTrue(fx.image().isEligible(1), "it may rejoin ISRs once caught up");
  }

  @Test
  void newTopicsAreNotPlacedOnABrokerWithoutStorage() {
    heartbeat(1, List.of(DIR));
    commit(tick(false));
    assertEquals(
        List.of(2, 3),
        fx.image().eligibleBrokers().stream().map(b -> b.id()).toList(),
        "placement draws from eligible brokers only");
  }

  @Test
  void badOrStaleRecordsAreRefusedAndChangeNothing() {
    long epoch = fx.image().broker(1).epoch();
    MetadataImage before = fx.image();
    List<RecordResult> r =
        fx.apply(
            Records.brokerDirsOffline(1, epoch, List.of()),
            Records.brokerDirsOffline(1, epoch, List.of("")),
            Records.brokerDirsOffline(1, epoch - 1, List.of(DIR)),
            Records.brokerDirsOffline(9, epoch, List.of(DIR)));
    assertEquals(ErrorCode.INVALID_RECORD, r.get(0).getErrorCode());
    assertEquals(ErrorCode.INVALID_RECORD, r.get(1).getErrorCode());
    assertEquals(ErrorCode.STALE_BROKER_EPOCH, r.get(2).getErrorCode());
    assertEquals(ErrorCode.STALE_BROKER_EPOCH, r.get(3).getErrorCode());
    assertEquals(before.brokers(), fx.image().brokers());
  }

  /** A report no record may hold would be refused on every tick: it writes nothing. */
  @Test
  void aHeartbeatNamingDirectoriesNoRecordMayHoldWritesNothing() {
    MetadataImage before = fx.image();
    List<List<String>> bad =
        List.of(
            List.of(""),
            List.of("d".repeat(4097)),
            java.util.stream.IntStream.range(0, 65).mapToObj(i -> "/disk" + i).toList());
    for (List<String> dirs : bad) {
      heartbeat(1, dirs);
      assertTrue(tracker.newOfflineDirs(fx.image().broker(1)).isEmpty(), dirs.size() + " dirs");
      assertTrue(tick(false).isEmpty(), "no record for " + dirs.size() + " dirs");
    }
    assertEquals(before.brokers(), fx.image().brokers());
  }

  @Test
  void aDirectoryAlreadyRecordedIsNotWrittenAgain() {
    heartbeat(1, List.of(DIR));
    commit(tick(false));
    heartbeat(1, List.of(DIR));
    assertTrue(tracker.newOfflineDirs(fx.image().broker(1)).isEmpty());
    assertTrue(tick(false).isEmpty());
  }

  /**
   * The tick's shortcut never skips a partition the repair would change: over every ISR (with and
   * without a leader) of replicas 1-3 and every mix of fenced, shutting-down and unregistered
   * members, a partition it calls healthy gets no record from {@link PartitionChangeBuilder}.
   */
  @Test
  void shouldSkipOnlyPartitionsTheRepairLeavesAsTheyAre() {
    List<List<Integer>> isrs =
        List.of(
            List.of(1), List.of(2), List.of(1, 2), List.of(2, 1), List.of(1, 2, 3), List.of(3, 9));
    int skipped = 0;
    int repaired = 0;
    for (int fenced = 0; fenced < 8; fenced++) {
      fx = new ImageFixture();
      fx.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.LATEST));
      fx.brokers(1, 2, 3);
      for (int id = 1; id <= 3; id++) {
        if ((fenced & (1 << (id - 1))) != 0) {
          if (id == 3) {
            fx.apply(Records.brokerShutdown(3, fx.image().broker(3).epoch()));
          } else {
            fx.fence(id);
          }
        }
      }
      MetadataImage img = fx.image();
      for (List<Integer> isr : isrs) {
        for (int leader : List.of(isr.get(0), PartitionState.NO_LEADER)) {
          PartitionState p =
              new PartitionState("id", "t", 0, List.of(1, 2, 3, 9), isr, leader, 4, 7);
          boolean may = ClusterDuties.mayNeedRepair(p, img);
          boolean changes = new PartitionChangeBuilder(p, img).build().isPresent();
          assertTrue(may || !changes, "skipped a partition that needs repair: " + p);
          if (may) {
            repaired++;
          } else {
            skipped++;
          }
        }
      }
    }
    assertTrue(skipped > 0 && repaired > 0, skipped + " skipped, " + repaired + " looked at");
  }

  /** Broker {@code id} heartbeats, reporting the leaders it cannot fetch from. */
  private void heartbeatReporting(int id, Integer... unreachable) {
    var b = fx.image().broker(id);
    tracker.heartbeat(
        id,
        b.epoch(),
        fx.image().offset(),
        false,
        false,
        List.of(),
        Set.of(unreachable),
        clock.monotonicMs());
  }

  /**
   * Broker 1 is cut off from its followers on the data plane only: it still heartbeats, so nothing
   * fences it, but both followers of partition 0 report it unreachable. The controller moves the
   * leadership to the first of them and drops 1 from the ISR, once, and not back while the reports
   * last.
   */
  @Test
  void shouldMoveLeadershipAwayFromALeaderItsIsrCannotReach() {
    heartbeatReporting(1);
    heartbeatReporting(2, 1);
    heartbeatReporting(3, 1);
    ClusterDuties.Outcome o = tick(false);
    assertEquals(1, o.records().size(), o.toString());
    assertTrue(o.reason().contains("cannot reach"), o.reason());
    int leaderEpochBefore = p(0).leaderEpoch();
    commit(o);
    assertEquals(2, p(0).leader());
    assertEquals(List.of(2, 3), p(0).isr());
    assertEquals(leaderEpochBefore + 1, p(0).leaderEpoch());
    assertFalse(fx.image().broker(1).fenced());
    assertTrue(p(1).isrContains(1), "the other partitions, not led by 1, keep it in their ISR");

    // 1 now follows 2 and cannot reach it either: a minority of 2's ISR, and 1 is not in it
    heartbeatReporting(1, 2);
    assertTrue(tick(true).isEmpty(), "no move back, no second move");
  }

  @Test
  void shouldNotMoveLeadershipOnAMinorityReport() {
    heartbeatReporting(2, 1);
    assertTrue(tick(false).isEmpty());
    assertEquals(1, p(0).leader());
  }

  @Test
  void shouldNotMoveLeadershipToAnIsrBelowMinIsr() {
    commit(new ClusterDuties.Outcome(List.of(Records.partitionChange(p(0), 1, List.of(1, 2))), ""));
    heartbeatReporting(2, 1);
    assertTrue(
        tick(false).isEmpty(), "an ISR of [2] takes no acks=all write with min.insync.replicas 2");
    assertEquals(1, p(0).leader());
  }

  @Test
  void shouldNotMoveLeadershipBackToAPreferredReplicaItsIsrCannotReach() {
    heartbeatReporting(2, 1);
    heartbeatReporting(3, 1);
    commit(tick(false));
    assertEquals(2, p(0).leader());
    // 1 is back in the ISR (it fetched from 2) but 2 and 3 still cannot fetch from it
    commit(
        new ClusterDuties.Outcome(List.of(Records.partitionChange(p(0), 2, List.of(2, 3, 1))), ""));
    assertTrue(tick(true).isEmpty(), "the preferred replica is unreachable for its ISR");
    heartbeatAll(2, 3);
    ClusterDuties.Outcome back = tick(true);
    commit(back);
    assertEquals(1, p(0).leader(), "reachable again: preferred balancing as before");
  }
}
