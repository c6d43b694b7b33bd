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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A broker's heartbeat reports a failed data directory (docs/architecture.md#storage-errors): the
 * controller's decisions as pure code, on images built from records.
 */
@Tag("unit")
class OfflineDirsDecisionsTest {
  private static final long SESSION_MS = 1500;
  private static final String DIR = "/var/lib/spool/data";
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
    heartbeat(1, List.of());
    heartbeat(2, List.of());
    heartbeat(3, List.of());
  }

  private void heartbeat(int id, List<String> offlineDirs) {
    long epoch = fx.image().broker(id).epoch();
    tracker.heartbeat(
        id, epoch, fx.image().offset(), false, false, offlineDirs, clock.monotonicMs());
  }

  private ClusterDuties.Outcome tick() {
    tracker.observe(fx.image(), clock.monotonicMs());
    return ClusterDuties.decide(fx.image(), tracker, clock.monotonicMs(), false, settings);
  }

  private void commit(ClusterDuties.Outcome o) {
    List<RecordResult> results = fx.apply(o.records());
    results.forEach(r -> assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage()));
  }

  private PartitionState p(String topic, int partition) {
    return fx.image().partition(new TopicPartition(topic, partition));
  }

  @Test
  void aReportedDirectoryIsRecordedAndTheBrokerLeavesEveryLeadershipAndIsr() {
    int epochOfP0 = p("t", 0).leaderEpoch();
    heartbeat(1, List.of(DIR));
    ClusterDuties.Outcome o = tick();
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
    assertTrue(tick().isEmpty(), "level-triggered: nothing left to do");
  }

  @Test
  void theLastIsrMemberFailingLeavesThePartitionWithoutALeaderAndKeepsItInTheIsr() {
    fx.topic("solo", List.of(List.of(1, 2)));
    fx.apply(Records.partitionChange(p("solo", 0), 1, List.of(1))); // 2 fell out of the ISR
    heartbeat(1, List.of(DIR));
    commit(tick());

    PartitionState solo = p("solo", 0);
    assertEquals(PartitionState.NO_LEADER, solo.leader(), "unclean election stays off");
    assertEquals(List.of(1), solo.isr(), "the ISR is never emptied (Kafka's rule)");
    assertTrue(tick().isEmpty());

    // Unclean election, when the topic allows it, takes the out-of-sync replica, never broker 1.
    String id = fx.image().topic("solo").id();
    fx.apply(Records.config(id, TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE.name(), "true"));
    commit(tick());
    assertEquals(2, p("solo", 0).leader());
    assertEquals(List.of(2), p("solo", 0).isr());
  }

  @Test
  void aNewControllerKeepsTheDecisionAndRefusesTheReplicaBackIntoTheIsr() throws Exception {
    heartbeat(1, List.of(DIR));
    commit(tick());
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
    commit(tick());
    BrokerRegistrationRequest restart =
        BrokerRegistrationRequest.newBuilder()
            .setBrokerId(1)
            .setIncarnationId("after-disk-swap")
            .setHost("host1")
            .setPort(9001)
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
    commit(tick());
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

  @Test
  void aDirectoryAlreadyRecordedIsNotWrittenAgain() {
    heartbeat(1, List.of(DIR));
    commit(tick());
    heartbeat(1, List.of(DIR));
    assertTrue(tracker.newOfflineDirs(fx.image().broker(1)).isEmpty());
    assertTrue(tick().isEmpty());
  }
}
