package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.PartitionChangeRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Replica reassignment in the controller (docs/architecture.md#replica-reassignment): the target is
 * added first and the partition keeps its leader and ISR; the leader's ISR expansion that brings
 * the last target replica in sync completes the move (replicas = target, leaving replicas dropped,
 * leadership handed over when the leader leaves); a new target redirects a move; cancel reverts;
 * every bad request is refused and writes nothing; snapshots keep a move in progress; below
 * metadata.version 4 the controller and replay refuse.
 */
@Tag("unit")
class ReassignmentTest {
  private ImageFixture fx;

  @BeforeEach
  void setUp() {
    start(MetadataVersion.LATEST);
  }

  /** Brokers 1..5 (5 fenced); t-0 on [1, 2, 3] led by 1; t-1 on [2, 3] led by 2. */
  private void start(int level) {
    fx = new ImageFixture();
    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, level));
    fx.brokers(1, 2, 3, 4, 5);
    fx.topic("t", List.of(List.of(1, 2, 3), List.of(2, 3)));
    fx.fence(5);
  }

  private PartitionState p(int partition) {
    return fx.image().partition(new TopicPartition("t", partition));
  }

  private static AlterPartitionReassignmentsRequest.Reassignment move(
      int partition, Integer... target) {
    return AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
        .setTopic("t")
        .setPartition(partition)
        .addAllReplicas(List.of(target))
        .build();
  }

  private static AlterPartitionReassignmentsRequest.Reassignment cancel(int partition) {
    return AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
        .setTopic("t")
        .setPartition(partition)
        .setCancel(true)
        .build();
  }

  /** Decides and commits; a refused partition must have written nothing for itself. */
  private AlterPartitionReassignmentsResponse alter(
      AlterPartitionReassignmentsRequest.Reassignment... rs) throws RequestRejectedException {
    return alter(AlterPartitionReassignmentsRequest.newBuilder().addAllPartitions(List.of(rs)));
  }

  private AlterPartitionReassignmentsResponse alter(AlterPartitionReassignmentsRequest.Builder req)
      throws RequestRejectedException {
    Decision d = ReassignmentDecisions.alter(req.build(), fx.image());
    AlterPartitionReassignmentsResponse resp =
        Decisions.commit(fx, d).getAlterPartitionReassignments();
    for (int i = 0; i < resp.getPartitionsCount(); i++) {
      if (resp.getPartitions(i).getErrorCode() != ErrorCode.NONE) {
        assertFalse(d.recordItem().contains(i), "a refused partition writes nothing");
      }
    }
    return resp;
  }

  private static void assertRefused(
      AlterPartitionReassignmentsResponse resp, ErrorCode code, String phrase) {
    assertEquals(code, resp.getPartitions(0).getErrorCode(), resp.toString());
    assertTrue(resp.getPartitions(0).getErrorMessage().contains(phrase), resp.toString());
  }

  /** The leader of {@code partition} asks for {@code isr}, as a broker's ISR expansion does. */
  private void leaderSetsIsr(int partition, Integer... isr) {
    PartitionState st = p(partition);
    AlterPartitionRequest req =
        AlterPartitionRequest.newBuilder()
            .setBrokerId(st.leader())
            .setBrokerEpoch(fx.image().broker(st.leader()).epoch())
            .addPartitions(
                AlterPartitionRequest.Partition.newBuilder()
                    .setTopic("t")
                    .setPartition(partition)
                    .setLeaderEpoch(st.leaderEpoch())
                    .setPartitionEpoch(st.partitionEpoch())
                    .addAllNewIsr(List.of(isr)))
            .build();
    var reply = Decisions.commit(fx, PartitionDecisions.alterPartition(req, fx.image()));
    assertEquals(
        ErrorCode.NONE,
        reply.getAlterPartition().getPartitions(0).getErrorCode(),
        reply.toString());
  }

  @Test
  void theTargetIsAddedFirstAndTheMoveCompletesWhenItIsInSyncWithLeadershipHandedOver()
      throws Exception {
    AlterPartitionReassignmentsResponse resp = alter(move(0, 4, 2, 3));
    assertEquals(ErrorCode.NONE, resp.getPartitions(0).getErrorCode(), resp.toString());
    PartitionState moving = p(0);
    assertEquals(List.of(4, 2, 3, 1), moving.replicas(), "target first, then the leaving replica");
    assertEquals(List.of(4), moving.addingReplicas());
    assertEquals(List.of(1), moving.removingReplicas());
    assertEquals(List.of(1, 2, 3), moving.isr(), "the ISR is untouched");
    assertEquals(1, moving.leader(), "the leader stays while the new replica catches up");
    assertEquals(0, moving.leaderEpoch());
    assertEquals(3, moving.replicationFactor());

    leaderSetsIsr(0, 1, 2, 3, 4);
    PartitionState done = p(0);
    assertEquals(List.of(4, 2, 3), done.replicas());
    assertFalse(done.isReassigning());
    assertEquals(List.of(2, 3, 4), done.isr(), "the leaving replica leaves the ISR too");
    assertEquals(4, done.leader(), "the first target replica in the ISR leads");
    assertEquals(1, done.leaderEpoch(), "a new leader, a new epoch");
  }

  @Test
  void aMoveThatKeepsTheLeaderCompletesWithoutALeaderChange() throws Exception {
    alter(move(0, 1, 2, 4));
    leaderSetsIsr(0, 1, 2, 3, 4);
    PartitionState done = p(0);
    assertEquals(List.of(1, 2, 4), done.replicas());
    assertEquals(List.of(1, 2, 4), done.isr());
    assertEquals(1, done.leader());
    assertEquals(0, done.leaderEpoch());
  }

  @Test
  void anIsrExpansionThatLeavesATargetReplicaOutOfSyncKeepsTheMoveGoing() throws Exception {
    alter(move(1, 1, 4));
    assertEquals(List.of(1, 4, 2, 3), p(1).replicas());
    leaderSetsIsr(1, 2, 3, 4);
    PartitionState st = p(1);
    assertTrue(st.isReassigning(), "broker 1 is not in sync yet");
    assertEquals(List.of(1, 4), st.addingReplicas());
    assertEquals(List.of(2, 3, 4), st.isr());
    leaderSetsIsr(1, 1, 2, 3, 4);
    assertEquals(List.of(1, 4), p(1).replicas());
    assertEquals(1, p(1).leader(), "the preferred target replica leads once 2 leaves");
  }

  @Test
  void shrinkingAndReorderingWithinTheIsrCompletesAtOnce() throws Exception {
    alter(move(0, 2, 1));
    PartitionState st = p(0);
    assertFalse(st.isReassigning());
    assertEquals(List.of(2, 1), st.replicas());
    assertEquals(List.of(1, 2), st.isr());
    assertEquals(1, st.leader(), "the leader stays in the target, so it keeps leading");
  }

  @Test
  void theSameReplicasInTheSameOrderWriteNothing() throws Exception {
    MetadataImage before = fx.image();
    Decision d =
        ReassignmentDecisions.alter(
            AlterPartitionReassignmentsRequest.newBuilder().addPartitions(move(0, 1, 2, 3)).build(),
            before);
    assertEquals(0, d.batch().getRecordsCount());
    assertEquals(
        ErrorCode.NONE, d.reply().getAlterPartitionReassignments().getPartitions(0).getErrorCode());
  }

  @Test
  void aNewTargetReplacesTheOneInProgress() throws Exception {
    alter(move(0, 4, 2, 3));
    alter(move(0, 1, 2, 3));
    PartitionState back = p(0);
    assertFalse(back.isReassigning(), "the original replicas are all in sync: done at once");
    assertEquals(List.of(1, 2, 3), back.replicas());
    assertEquals(List.of(1, 2, 3), back.isr());

    alter(move(0, 4, 2, 3));
    alter(move(0, 2, 3, 1, 4));
    PartitionState grown = p(0);
    assertEquals(List.of(2, 3, 1, 4), grown.replicas(), "grows the replication factor");
    assertEquals(List.of(4), grown.addingReplicas());
    assertEquals(List.of(), grown.removingReplicas());
    assertEquals(4, grown.replicationFactor());
  }

  @Test
  void cancelRevertsToTheOriginalReplicas() throws Exception {
    alter(move(0, 4, 2, 3));
    assertTrue(p(0).isReassigning());
    AlterPartitionReassignmentsResponse resp = alter(cancel(0));
    assertEquals(ErrorCode.NONE, resp.getPartitions(0).getErrorCode(), resp.toString());
    PartitionState st = p(0);
    assertFalse(st.isReassigning());
    assertEquals(List.of(2, 3, 1), st.replicas(), "the original set, in the order replicas held");
    assertEquals(List.of(1, 2, 3), st.isr());
    assertEquals(1, st.leader());
  }

  @Test
  void cancelWithNothingInProgressIsRefused() throws Exception {
    assertRefused(
        alter(cancel(0)), ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "t-0 has no reassignment");
  }

  @Test
  void aCancelThatWouldNeedAnUncleanElectionIsRefused() throws Exception {
    alter(move(1, 4, 1));
    leaderSetsIsr(1, 2, 4);
    fx.fence(2);
    fx.apply(new PartitionChangeBuilder(p(1), fx.image()).build().orElseThrow());
    assertEquals(List.of(4), p(1).isr(), "only the new replica is left in sync");
    PartitionState before = p(1);
    assertRefused(alter(cancel(1)), ErrorCode.INVALID_REPLICA_ASSIGNMENT, "unclean");
    assertEquals(before, p(1));
  }

  @Test
  void badTargetsAreRefusedAndChangeNothing() throws Exception {
    MetadataImage before = fx.image();
    assertRefused(
        alter(move(0, 1, 9, 2)),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "broker 9 is not registered");
    assertRefused(
        alter(move(0, 1, 5, 2)), ErrorCode.INVALID_REPLICA_ASSIGNMENT, "broker 5 is fenced");
    assertRefused(
        alter(move(0, 1, 2, 2)), ErrorCode.INVALID_REPLICA_ASSIGNMENT, "names a broker twice");
    assertRefused(alter(move(0)), ErrorCode.INVALID_REPLICA_ASSIGNMENT, "empty");
    assertRefused(
        alter(
            AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setTopic("nope")
                .setPartition(0)
                .addReplicas(1)
                .build()),
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        "nope-0 does not exist");
    assertRefused(alter(move(7, 1)), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "t-7 does not exist");
    assertEquals(before.allPartitions(), fx.image().allPartitions());
  }

  @Test
  void aPartitionNamedTwiceOrANegativeThrottleRefusesTheWholeRequest() {
    RequestRejectedException twice =
        assertThrows(
            RequestRejectedException.class, () -> alter(move(0, 4, 2, 3), move(0, 1, 2, 3)));
    assertEquals(ErrorCode.INVALID_REQUEST, twice.errorCode());
    RequestRejectedException negative =
        assertThrows(
            RequestRejectedException.class,
            () ->
                alter(AlterPartitionReassignmentsRequest.newBuilder().setThrottleBytesPerSec(-1)));
    assertEquals(ErrorCode.INVALID_REQUEST, negative.errorCode());
  }

  @Test
  void theThrottleIsSetClearedAndKeptBySnapshotsWithAMoveInProgress() throws Exception {
    alter(
        AlterPartitionReassignmentsRequest.newBuilder()
            .setThrottleBytesPerSec(50L << 20)
            .addPartitions(move(1, 4, 3)));
    assertEquals(50L << 20, fx.image().replicationThrottleBytesPerSec());
    MetadataImage restored = ImageSnapshots.fromSnapshot(ImageSnapshots.toSnapshot(fx.image()));
    assertEquals(fx.image().allPartitions(), restored.allPartitions(), "the move survives");
    assertEquals(50L << 20, restored.replicationThrottleBytesPerSec());
    assertEquals(fx.image(), restored);

    alter(AlterPartitionReassignmentsRequest.newBuilder().setThrottleBytesPerSec(0));
    assertEquals(0, fx.image().replicationThrottleBytesPerSec());
  }

  @Test
  void aBrokerFencedDuringTheMoveLeavesTheIsrAndTheMoveStaysInProgress() throws Exception {
    alter(move(0, 4, 2, 3));
    fx.fence(2);
    fx.apply(new PartitionChangeBuilder(p(0), fx.image()).build().orElseThrow());
    PartitionState st = p(0);
    assertEquals(List.of(1, 3), st.isr());
    assertEquals(List.of(4), st.addingReplicas(), "the fencing kept the move");
    assertEquals(List.of(1), st.removingReplicas());
  }

  @Test
  void atLevel3TheControllerRefusesAndReplayRefusesTheRecords() {
    start(MetadataVersion.UNREGISTER_BROKER);
    RequestRejectedException e =
        assertThrows(RequestRejectedException.class, () -> alter(move(0, 4, 2, 3)));
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.errorCode());
    assertTrue(e.getMessage().contains("metadata.version 4"), e.getMessage());

    PartitionState st = p(0);
    MetadataRecord change =
        Records.partitionChange(st, 1, st.isr(), List.of(4, 2, 3, 1), List.of(4), List.of(1));
    List<RecordResult> results = fx.apply(change, Records.replicationThrottle(1000));
    assertEquals(ErrorCode.INVALID_RECORD, results.get(0).getErrorCode());
    assertEquals(ErrorCode.INVALID_RECORD, results.get(1).getErrorCode());
    assertEquals(st, p(0));
    assertEquals(0, fx.image().replicationThrottleBytesPerSec());
  }

  @Test
  void replayRefusesAnInconsistentReassignment() {
    PartitionState st = p(0);
    PartitionChangeRecord.Builder bad =
        Records.partitionChange(st, 1, st.isr(), List.of(1, 2, 3), List.of(4), List.of())
            .getPartitionChange()
            .toBuilder();
    assertEquals(
        ErrorCode.INVALID_REQUEST,
        fx.apply(MetadataRecord.newBuilder().setPartitionChange(bad).build()).get(0).getErrorCode(),
        "an adding replica outside the replicas");
    assertEquals(
        ErrorCode.INVALID_REQUEST,
        fx.apply(
                Records.partitionChange(
                    st, 1, st.isr(), List.of(1, 2, 3), List.of(), List.of(1, 2, 3)))
            .get(0)
            .getErrorCode(),
        "every replica removed");
    assertEquals(st, p(0));
  }
}
