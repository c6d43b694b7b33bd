package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
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
    fx = new ImageFixture();
    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.LATEST));
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
      tracker.heartbeat(id, b.epoch(), fx.image().offset(), false, false, clock.monotonicMs());
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
    tracker.heartbeat(4, epoch, epoch - 1, false, false, clock.monotonicMs());
    assertTrue(tick(false).records().stream().noneMatch(MetadataRecord::hasUnfenceBroker));
    tracker.heartbeat(4, epoch, epoch, false, false, clock.monotonicMs());
    ClusterDuties.Outcome o = tick(false);
    assertEquals(List.of(Records.unfenceBroker(4, epoch)), o.records());
    tracker.heartbeat(4, epoch, epoch, true, false, clock.monotonicMs());
    assertTrue(tick(false).isEmpty(), "a broker that asks to stay fenced stays fenced");
  }

  @Test
  void shouldMoveLeadershipAwayOnControlledShutdownButKeepAPartitionWithNobodyElse() {
    fx.topic("single", List.of(List.of(1)));
    long e1 = fx.image().broker(1).epoch();
    tracker.heartbeat(1, e1, fx.image().offset(), false, true, clock.monotonicMs());
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
}
