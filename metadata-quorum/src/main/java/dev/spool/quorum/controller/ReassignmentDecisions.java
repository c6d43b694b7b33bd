package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Replica reassignment, as KRaft's (KIP-455; docs/architecture.md#replica-reassignment). Pure.
 *
 * <p>A reassignment to target T of a partition whose replicas are R (R without any adding replicas
 * when one is already in progress: a new target replaces the old one) writes replicas = T followed
 * by R - T, adding = T - R, removing = R - T. The adding replicas catch up as followers and the
 * leader adds them to the ISR (AlterPartition) once caught up. The change that puts the last member
 * of T in the ISR completes the move ({@link #completeIfInSync}): replicas = T, ISR = ISR ∩ T, and
 * a leader outside T hands over to the first member of T in the ISR. Cancelling reverts to R.
 */
public final class ReassignmentDecisions {
  private ReassignmentDecisions() {}

  public static Decision alter(AlterPartitionReassignmentsRequest req, MetadataImage image)
      throws RequestRejectedException {
    if (image.metadataVersion() < MetadataVersion.REASSIGNMENT) {
      throw new RequestRejectedException(
          ErrorCode.UNSUPPORTED_VERSION,
          "replica reassignment needs metadata.version "
              + MetadataVersion.REASSIGNMENT
              + "; the cluster is at "
              + image.metadataVersion()
              + " (raise it with 'spool features upgrade')");
    }
    if (req.hasThrottleBytesPerSec() && req.getThrottleBytesPerSec() < 0) {
      throw new RequestRejectedException(
          ErrorCode.INVALID_REQUEST,
          "replication throttle " + req.getThrottleBytesPerSec() + " B/s is negative");
    }
    Set<String> seen = new HashSet<>();
    for (AlterPartitionReassignmentsRequest.Reassignment r : req.getPartitionsList()) {
      if (!seen.add(r.getTopic() + "-" + r.getPartition())) {
        throw new RequestRejectedException(
            ErrorCode.INVALID_REQUEST,
            r.getTopic() + "-" + r.getPartition() + " appears more than once in the request");
      }
    }
    AlterPartitionReassignmentsResponse.Builder resp =
        AlterPartitionReassignmentsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    for (AlterPartitionReassignmentsRequest.Reassignment r : req.getPartitionsList()) {
      int item = resp.getPartitionsCount();
      AlterPartitionReassignmentsResponse.Result.Builder res =
          AlterPartitionReassignmentsResponse.Result.newBuilder()
              .setTopic(r.getTopic())
              .setPartition(r.getPartition());
      TopicImage t = image.topic(r.getTopic());
      PartitionState p = t == null ? null : t.partition(r.getPartition());
      Outcome o;
      if (p == null) {
        o =
            Outcome.refused(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                r.getTopic() + "-" + r.getPartition() + " does not exist");
      } else if (r.getCancel()) {
        o = r.getReplicasCount() > 0 ? cancelWithTarget(p) : cancel(p, image);
      } else {
        o = reassign(p, r.getReplicasList(), image);
      }
      resp.addPartitions(res.setErrorCode(o.code).setErrorMessage(o.message));
      if (o.record != null) {
        records.add(o.record, item);
      }
    }
    if (req.hasThrottleBytesPerSec()
        && req.getThrottleBytesPerSec() != image.replicationThrottleBytesPerSec()) {
      records.add(Records.replicationThrottle(req.getThrottleBytesPerSec()), -1);
    }
    return records.decision(
        ControllerReply.newBuilder().setAlterPartitionReassignments(resp).build());
  }

  /** A partition's answer and the record it writes (null: nothing to write). */
  private record Outcome(ErrorCode code, String message, MetadataRecord record) {
    static Outcome refused(ErrorCode code, String message) {
      return new Outcome(code, message, null);
    }

    static Outcome ok(MetadataRecord record) {
      return new Outcome(ErrorCode.NONE, "", record);
    }
  }

  private static Outcome cancelWithTarget(PartitionState p) {
    return Outcome.refused(
        ErrorCode.INVALID_REQUEST,
        p.topicPartition() + ": a cancel names no replicas (it reverts to the original ones)");
  }

  private static Outcome reassign(PartitionState p, List<Integer> target, MetadataImage image) {
    String problem = checkTarget(p, target, image);
    if (problem != null) {
      return Outcome.refused(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT, p.topicPartition() + ": " + problem);
    }
    List<Integer> original = p.originalReplicas();
    List<Integer> replicas = new ArrayList<>(target);
    List<Integer> removing = new ArrayList<>();
    for (int id : original) {
      if (!target.contains(id)) {
        replicas.add(id);
        removing.add(id);
      }
    }
    List<Integer> adding = target.stream().filter(id -> !original.contains(id)).toList();
    if (!p.isReassigning() && replicas.equals(p.replicas())) {
      return Outcome.ok(null); // already there: nothing to move, as Kafka answers
    }
    List<Integer> isr = p.isr().stream().filter(replicas::contains).toList();
    if (isr.isEmpty()) {
      return Outcome.refused(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          p.topicPartition()
              + ": no member of the ISR "
              + p.isr()
              + " stays among "
              + replicas
              + " (it would need an unclean election)");
    }
    PartitionState moving =
        new PartitionState(
            p.topicId(),
            p.topic(),
            p.partition(),
            replicas,
            isr,
            isr.contains(p.leader()) ? p.leader() : PartitionState.NO_LEADER,
            p.leaderEpoch(),
            p.partitionEpoch(),
            adding,
            removing);
    return Outcome.ok(settle(p, moving, image));
  }

  private static String checkTarget(PartitionState p, List<Integer> target, MetadataImage image) {
    if (target.isEmpty()) {
      return "the target replica list is empty";
    }
    if (new HashSet<>(target).size() != target.size()) {
      return "the target " + target + " names a broker twice";
    }
    if (target.size() > RecordChecks.MAX_REPLICAS) {
      return target.size() + " replicas: at most " + RecordChecks.MAX_REPLICAS;
    }
    for (int id : target) {
      BrokerRegistration b = image.broker(id);
      if (b == null) {
        return "broker " + id + " is not registered";
      }
      if (!p.isReplica(id) && (b.fenced() || b.hasOfflineDirs())) {
        return "broker " + id + (b.fenced() ? " is fenced" : " has an offline data directory");
      }
    }
    return null;
  }

  private static Outcome cancel(PartitionState p, MetadataImage image) {
    if (!p.isReassigning()) {
      return Outcome.refused(
          ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
          p.topicPartition() + " has no reassignment in progress");
    }
    List<Integer> original = p.originalReplicas();
    List<Integer> isr = p.isr().stream().filter(original::contains).toList();
    if (isr.isEmpty()) {
      return Outcome.refused(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          p.topicPartition()
              + ": no original replica of "
              + original
              + " is in the ISR "
              + p.isr()
              + "; reverting would need an unclean election");
    }
    PartitionState reverted =
        new PartitionState(
            p.topicId(),
            p.topic(),
            p.partition(),
            original,
            isr,
            isr.contains(p.leader()) ? p.leader() : PartitionState.NO_LEADER,
            p.leaderEpoch(),
            p.partitionEpoch());
    return Outcome.ok(settle(p, reverted, image));
  }

  /**
   * The record taking {@code p} to {@code next}, completed at once when the target is already in
   * sync, and with a leader chosen when {@code next} has none (the first replica in the ISR that is
   * eligible, as an election would choose).
   */
  private static MetadataRecord settle(PartitionState p, PartitionState next, MetadataImage image) {
    PartitionState s = completeIfInSync(next, image);
    int leader = s.leader() != PartitionState.NO_LEADER ? s.leader() : firstEligible(s, image);
    return Records.partitionChange(
        p, leader, s.isr(), s.replicas(), s.addingReplicas(), s.removingReplicas());
  }

  /**
   * {@code p} with its reassignment completed when every target replica is in its ISR: replicas =
   * target, ISR = ISR ∩ target, no adding or removing replicas, and a leader outside the target
   * replaced by the first target replica in the ISR that is eligible (none: no leader). Unchanged
   * otherwise. Leader and partition epochs are the applier's business.
   */
  public static PartitionState completeIfInSync(PartitionState p, MetadataImage image) {
    List<Integer> target = p.targetReplicas();
    if (!p.isReassigning() || !p.isr().containsAll(target)) {
      return p;
    }
    List<Integer> isr = p.isr().stream().filter(target::contains).toList();
    PartitionState done =
        new PartitionState(
            p.topicId(),
            p.topic(),
            p.partition(),
            target,
            isr,
            target.contains(p.leader()) ? p.leader() : PartitionState.NO_LEADER,
            p.leaderEpoch(),
            p.partitionEpoch());
    return done.hasLeader() ? done : withLeader(done, firstEligible(done, image));
  }

  /**
   * The PartitionChangeRecord for a new ISR of {@code p}, kept by the current leader: its
   * reassignment carried over, or completed when the new ISR holds the whole target.
   */
  public static MetadataRecord isrChange(
      PartitionState p, List<Integer> newIsr, MetadataImage image) {
    if (!p.isReassigning()) {
      return Records.partitionChange(p, p.leader(), newIsr);
    }
    PartitionState next = completeIfInSync(withIsr(p, newIsr), image);
    return Records.partitionChange(
        p,
        next.leader(),
        next.isr(),
        next.replicas(),
        next.addingReplicas(),
        next.removingReplicas());
  }

  private static int firstEligible(PartitionState p, MetadataImage image) {
    for (int r : p.replicas()) {
      if (p.isrContains(r) && image.isEligible(r)) {
        return r;
      }
    }
    return PartitionState.NO_LEADER;
  }

  private static PartitionState withIsr(PartitionState p, List<Integer> isr) {
    return new PartitionState(
        p.topicId(),
        p.topic(),
        p.partition(),
        p.replicas(),
        isr,
        p.leader(),
        p.leaderEpoch(),
        p.partitionEpoch(),
        p.addingReplicas(),
        p.removingReplicas());
  }

  private static PartitionState withLeader(PartitionState p, int leader) {
    return new PartitionState(
        p.topicId(),
        p.topic(),
        p.partition(),
        p.replicas(),
        p.isr(),
        leader,
        p.leaderEpoch(),
        p.partitionEpoch(),
        p.addingReplicas(),
        p.removingReplicas());
  }
}
