package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectionType;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.ControllerReply;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class PartitionDecisionsTest {
  private ImageFixture fx;
  private final TopicPartition tp = new TopicPartition("t", 0);

  @BeforeEach
  void setUp() {
    fx = new ImageFixture().brokers(1, 2, 3, 4);
    fx.topic("t", List.of(List.of(1, 2, 3)));
  }

  private AlterPartitionRequest.Builder shrinkTo(List<Integer> isr) {
    PartitionState p = fx.image().partition(tp);
    return AlterPartitionRequest.newBuilder()
        .setBrokerId(1)
        .setBrokerEpoch(fx.image().broker(1).epoch())
        .addPartitions(
            AlterPartitionRequest.Partition.newBuilder()
                .setTopic("t")
                .setPartition(0)
                .setLeaderEpoch(p.leaderEpoch())
                .setPartitionEpoch(p.partitionEpoch())
                .addAllNewIsr(isr));
  }

  private AlterPartitionResponse.PartitionResult decideAndCommit(AlterPartitionRequest req) {
    MetadataImage before = fx.image();
    Decision d = PartitionDecisions.alterPartition(req, before);
    ControllerReply reply = Decisions.commit(fx, d);
    if (reply.getAlterPartition().getErrorCode() != ErrorCode.NONE) {
      assertTrue(fx.image().sameContent(before), "a refused request changes nothing");
      return AlterPartitionResponse.PartitionResult.newBuilder()
          .setErrorCode(reply.getAlterPartition().getErrorCode())
          .build();
    }
    AlterPartitionResponse.PartitionResult r = reply.getAlterPartition().getPartitions(0);
    if (r.getErrorCode() != ErrorCode.NONE) {
      assertTrue(fx.image().sameContent(before), "a refused request changes nothing");
    }
    return r;
  }

  @Test
  void shouldShrinkTheIsrAndBumpOnlyThePartitionEpoch() {
    var r = decideAndCommit(shrinkTo(List.of(1, 2)).build());
    assertEquals(ErrorCode.NONE, r.getErrorCode());
    assertEquals(List.of(1, 2), r.getIsrList());
    assertEquals(1, r.getPartitionEpoch());
    assertEquals(0, r.getLeaderEpoch());
  }

  @Test
  void shouldRejectAStalePartitionEpoch() {
    AlterPartitionRequest first = shrinkTo(List.of(1, 2)).build();
    decideAndCommit(first);
    assertEquals(ErrorCode.INVALID_UPDATE_VERSION, decideAndCommit(first).getErrorCode());
  }

  @Test
  void shouldRejectALostRaceAtApplyTimeWithInvalidUpdateVersion() {
    AlterPartitionRequest req = shrinkTo(List.of(1, 2)).build();
    Decision d1 = PartitionDecisions.alterPartition(req, fx.image());
    Decision d2 = PartitionDecisions.alterPartition(shrinkTo(List.of(1, 3)).build(), fx.image());
    Decisions.commit(fx, d1);
    ControllerReply r2 = Decisions.commit(fx, d2);
    assertEquals(
        ErrorCode.INVALID_UPDATE_VERSION, r2.getAlterPartition().getPartitions(0).getErrorCode());
    assertEquals(List.of(1, 2), fx.image().partition(tp).isr());
  }

  @Test
  void shouldRejectAStaleLeaderEpoch() {
    AlterPartitionRequest.Builder req = shrinkTo(List.of(1, 2));
    req.setPartitions(0, req.getPartitions(0).toBuilder().setLeaderEpoch(-1));
    assertEquals(ErrorCode.FENCED_LEADER_EPOCH, decideAndCommit(req.build()).getErrorCode());
  }

  @Test
  void shouldRejectAStaleBrokerEpochOrAFencedSender() {
    assertEquals(
        ErrorCode.STALE_BROKER_EPOCH,
        decideAndCommit(shrinkTo(List.of(1, 2)).setBrokerEpoch(999).build()).getErrorCode());
    fx.fence(1);
    assertEquals(
        ErrorCode.STALE_BROKER_EPOCH,
        decideAndCommit(shrinkTo(List.of(1, 2)).build()).getErrorCode());
  }

  @Test
  void shouldRejectAddingAFencedOrShuttingDownReplica() {
    decideAndCommit(shrinkTo(List.of(1)).build());
    fx.fence(2);
    fx.apply(Records.brokerShutdown(3, fx.image().broker(3).epoch()));
    assertEquals(
        ErrorCode.INELIGIBLE_REPLICA,
        decideAndCommit(shrinkTo(List.of(1, 2)).build()).getErrorCode());
    assertEquals(
        ErrorCode.INELIGIBLE_REPLICA,
        decideAndCommit(shrinkTo(List.of(1, 3)).build()).getErrorCode());
  }

  @Test
  void shouldRejectAnIsrWithoutTheLeaderOrOutsideTheReplicas() {
    assertEquals(
        ErrorCode.INVALID_REQUEST, decideAndCommit(shrinkTo(List.of(2, 3)).build()).getErrorCode());
    assertEquals(
        ErrorCode.INVALID_REQUEST, decideAndCommit(shrinkTo(List.of(1, 4)).build()).getErrorCode());
    assertEquals(
        ErrorCode.INVALID_REQUEST, decideAndCommit(shrinkTo(List.of(1, 1)).build()).getErrorCode());
  }

  @Test
  void shouldRejectARequestFromANonLeader() {
    AlterPartitionRequest.Builder req =
        shrinkTo(List.of(2, 3)).setBrokerId(2).setBrokerEpoch(fx.image().broker(2).epoch());
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, decideAndCommit(req.build()).getErrorCode());
  }

  @Test
  void shouldElectThePreferredReplicaOnlyWhenItIsInSyncAndAlive() {
    PartitionState p = fx.image().partition(tp);
    fx.apply(Records.partitionChange(p, 2, List.of(1, 2, 3)));
    ElectLeadersRequest preferred =
        ElectLeadersRequest.newBuilder()
            .setElectionType(ElectionType.PREFERRED)
            .addPartitions(
                TopicPartitions.newBuilder().setTopic("t").addPartitions(0).addPartitions(7))
            .build();
    ControllerReply r =
        Decisions.commit(fx, PartitionDecisions.electLeaders(preferred, fx.image()));
    assertEquals(ErrorCode.NONE, r.getElectLeaders().getResults(0).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, r.getElectLeaders().getResults(1).getErrorCode());
    assertEquals(1, fx.image().partition(tp).leader());
    r = Decisions.commit(fx, PartitionDecisions.electLeaders(preferred, fx.image()));
    assertEquals(ErrorCode.ELECTION_NOT_NEEDED, r.getElectLeaders().getResults(0).getErrorCode());
    fx.apply(Records.partitionChange(fx.image().partition(tp), 2, List.of(2, 3)));
    r = Decisions.commit(fx, PartitionDecisions.electLeaders(preferred, fx.image()));
    assertEquals(
        ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, r.getElectLeaders().getResults(0).getErrorCode());
  }

  @Test
  void shouldElectAnOutOfSyncReplicaOnExplicitUncleanElection() {
    PartitionState p = fx.image().partition(tp);
    fx.apply(Records.partitionChange(p, 1, List.of(1)));
    fx.fence(1);
    fx.apply(Records.partitionChange(fx.image().partition(tp), -1, List.of(1)));
    ElectLeadersRequest unclean =
        ElectLeadersRequest.newBuilder().setElectionType(ElectionType.UNCLEAN).build();
    ControllerReply r = Decisions.commit(fx, PartitionDecisions.electLeaders(unclean, fx.image()));
    assertEquals(ErrorCode.NONE, r.getElectLeaders().getResults(0).getErrorCode());
    assertEquals(2, fx.image().partition(tp).leader());
    assertEquals(List.of(2), fx.image().partition(tp).isr());
  }
}
