package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.config.TopicConfig;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ElectionType;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.ControllerReply;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** AlterPartition and ElectLeaders decisions. Pure. */
public final class PartitionDecisions {
  private PartitionDecisions() {}

  // ---------------------------------------------------------------- AlterPartition

  /**
   * A partition leader asks to change its ISR. Checks, in order: the sender's broker epoch is its
   * current registration and it is not fenced (else STALE_BROKER_EPOCH for the whole request); per
   * partition: it exists (UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID), the sender leads it
   * (NOT_LEADER_OR_FOLLOWER), the leader epoch is current (FENCED_LEADER_EPOCH if older,
   * UNKNOWN_LEADER_EPOCH if newer), the partition epoch is current (INVALID_UPDATE_VERSION), the
   * new ISR is a duplicate-free subset of the replicas containing the leader (INVALID_REQUEST), and
   * every added member is unfenced and not shutting down (INELIGIBLE_REPLICA).
   */
  public static Decision alterPartition(AlterPartitionRequest req, MetadataImage image) {
    AlterPartitionResponse.Builder resp = AlterPartitionResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    BrokerRegistration sender = image.broker(req.getBrokerId());
    if (sender == null || sender.epoch() != req.getBrokerEpoch() || sender.fenced()) {
      resp.setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
          .setErrorMessage(
              "broker "
                  + req.getBrokerId()
                  + " epoch "
                  + req.getBrokerEpoch()
                  + " is "
                  + (sender == null
                      ? "not registered"
                      : sender.fenced() && sender.epoch() == req.getBrokerEpoch()
                          ? "fenced"
                          : "stale (current " + sender.epoch() + ")"));
      return records.decision(ControllerReply.newBuilder().setAlterPartition(resp).build());
    }
    Set<String> seen = new HashSet<>();
    for (AlterPartitionRequest.Partition rp : req.getPartitionsList()) {
      int item = resp.getPartitionsCount();
      AlterPartitionResponse.PartitionResult.Builder r =
          AlterPartitionResponse.PartitionResult.newBuilder()
              .setTopic(rp.getTopic())
              .setPartition(rp.getPartition())
              .setLeader(-1);
      TopicImage t = image.topic(rp.getTopic());
      PartitionState p = t == null ? null : t.partition(rp.getPartition());
      if (p != null) {
        r.setLeader(p.leader())
            .addAllIsr(p.isr())
            .setLeaderEpoch(p.leaderEpoch())
            .setPartitionEpoch(p.partitionEpoch());
      }
      String problem;
      ErrorCode code;
      if (!seen.add(rp.getTopic() + "-" + rp.getPartition())) {
        code = ErrorCode.INVALID_REQUEST;
        problem = "partition appears more than once in the request";
      } else if (p == null) {
        code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        problem = rp.getTopic() + "-" + rp.getPartition() + " does not exist";
      } else if (!rp.getTopicId().isEmpty() && !rp.getTopicId().equals(t.id())) {
        code = ErrorCode.UNKNOWN_TOPIC_ID;
        problem = "topic '" + t.name() + "' has id " + t.id() + ", not " + rp.getTopicId();
      } else if (p.leader() != req.getBrokerId()) {
        code = ErrorCode.NOT_LEADER_OR_FOLLOWER;
        problem =
            "broker "
                + req.getBrokerId()
                + " does not lead "
                + p.topicPartition()
                + " (leader "
                + p.leader()
                + ")";
      } else if (rp.getLeaderEpoch() != p.leaderEpoch()) {
        code =
            rp.getLeaderEpoch() < p.leaderEpoch()
                ? ErrorCode.FENCED_LEADER_EPOCH
                : ErrorCode.UNKNOWN_LEADER_EPOCH;
        problem = "leader epoch " + rp.getLeaderEpoch() + ", current " + p.leaderEpoch();
      } else if (rp.getPartitionEpoch() != p.partitionEpoch()) {
        code = ErrorCode.INVALID_UPDATE_VERSION;
        problem = "partition epoch " + rp.getPartitionEpoch() + ", current " + p.partitionEpoch();
      } else {
        code = ErrorCode.NONE;
        problem = checkNewIsr(p, rp.getNewIsrList(), image);
        if (problem != null) {
          code =
              problem.startsWith("ineligible")
                  ? ErrorCode.INELIGIBLE_REPLICA
                  : ErrorCode.INVALID_REQUEST;
        }
      }
      if (code != ErrorCode.NONE) {
        resp.addPartitions(r.setErrorCode(code).setErrorMessage(problem));
        continue;
      }
      resp.addPartitions(r);
      if (!rp.getNewIsrList().equals(p.isr())) {
        records.add(ReassignmentDecisions.isrChange(p, rp.getNewIsrList(), image), item);
      }
    }
    return records.decision(ControllerReply.newBuilder().setAlterPartition(resp).build());
  }

  private static String checkNewIsr(PartitionState p, List<Integer> isr, MetadataImage image) {
    if (isr.isEmpty() || new HashSet<>(isr).size() != isr.size()) {
      return "new ISR " + isr + " is empty or has duplicates";
    }
    if (!p.replicas().containsAll(isr)) {
      return "new ISR " + isr + " is not within the replicas " + p.replicas();
    }
    if (!isr.contains(p.leader())) {
      return "new ISR " + isr + " does not contain the leader " + p.leader();
    }
    for (int id : isr) {
      if (!p.isrContains(id) && !image.isEligible(id)) {
        BrokerRegistration b = image.broker(id);
        return "ineligible replica "
            + id
            + " cannot join the ISR: it is "
            + (b == null ? "not registered" : b.fenced() ? "fenced" : "shutting down");
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- ElectLeaders

  /**
   * PREFERRED: make the first replica the leader when it is in the ISR and eligible
   * (ELECTION_NOT_NEEDED if it already leads, PREFERRED_LEADER_NOT_AVAILABLE otherwise). UNCLEAN:
   * for a partition without an eligible leader, elect from the ISR if possible, else any eligible
   * replica (an explicit admin request overrides the topic's unclean setting, as in Kafka);
   * ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica is eligible. An empty partition list means every
   * partition.
   */
  public static Decision electLeaders(ElectLeadersRequest req, MetadataImage image) {
    ElectLeadersResponse.Builder resp = ElectLeadersResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    List<PartitionOrMissing> targets = targets(req, image);
    for (PartitionOrMissing target : targets) {
      int item = resp.getResultsCount();
      ElectLeadersResponse.Result.Builder r =
          ElectLeadersResponse.Result.newBuilder()
              .setTopic(target.topic)
              .setPartition(target.partition);
      PartitionState p = target.state;
      if (p == null) {
        resp.addResults(
            r.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                .setErrorMessage(target.topic + "-" + target.partition + " does not exist"));
        continue;
      }
      if (req.getElectionType() == ElectionType.UNCLEAN) {
        if (p.hasLeader() && image.isEligible(p.leader())) {
          resp.addResults(
              r.setErrorCode(ErrorCode.ELECTION_NOT_NEEDED)
                  .setErrorMessage("leader " + p.leader() + " is available"));
          continue;
        }
        var change = new PartitionChangeBuilder(p, image).uncleanAllowed(true).build();
        if (change.isEmpty() || !image.isEligible(change.get().getPartitionChange().getLeader())) {
          resp.addResults(
              r.setErrorCode(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE)
                  .setErrorMessage("no replica of " + p.topicPartition() + " is alive"));
          continue;
        }
        resp.addResults(r);
        records.add(change.get(), item);
      } else {
        int preferred = p.preferredLeader();
        if (p.leader() == preferred) {
          resp.addResults(
              r.setErrorCode(ErrorCode.ELECTION_NOT_NEEDED)
                  .setErrorMessage("preferred replica " + preferred + " already leads"));
          continue;
        }
        if (!p.isrContains(preferred) || !image.isEligible(preferred)) {
          resp.addResults(
              r.setErrorCode(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE)
                  .setErrorMessage(
                      "preferred replica "
                          + preferred
                          + " is "
                          + (p.isrContains(preferred) ? "not available" : "not in the ISR")));
          continue;
        }
        resp.addResults(r);
        records.add(
            Records.partitionChange(
                p,
                preferred,
                new PartitionChangeBuilder(p, image).electPreferred().compute().isr()),
            item);
      }
    }
    return records.decision(ControllerReply.newBuilder().setElectLeaders(resp).build());
  }

  private record PartitionOrMissing(String topic, int partition, PartitionState state) {}

  private static List<PartitionOrMissing> targets(ElectLeadersRequest req, MetadataImage image) {
    List<PartitionOrMissing> out = new ArrayList<>();
    if (req.getPartitionsCount() == 0) {
      for (PartitionState p : image.allPartitions()) {
        if (req.getElectionType() == ElectionType.PREFERRED
            ? p.leader() != p.preferredLeader()
            : !p.hasLeader()) {
          out.add(new PartitionOrMissing(p.topic(), p.partition(), p));
        }
      }
      return out;
    }
    Set<String> seen = new HashSet<>();
    for (TopicPartitions tps : req.getPartitionsList()) {
      TopicImage t = image.topic(tps.getTopic());
      for (int partition : tps.getPartitionsList()) {
        if (seen.add(tps.getTopic() + "-" + partition)) {
          out.add(
              new PartitionOrMissing(
                  tps.getTopic(), partition, t == null ? null : t.partition(partition)));
        }
      }
    }
    return out;
  }

  /** Whether the topic allows unclean leader election (its effective config). */
  static boolean uncleanAllowed(MetadataImage image, PartitionState p) {
    TopicImage t = image.topicById(p.topicId());
    return t != null && t.config().get(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE);
  }
}
