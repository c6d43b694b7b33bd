package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.RequestChecks;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's AlterPartitionReassignments (API key 45; {@code Admin.alterPartitionReassignments},
 * {@code kafka-reassign-partitions.sh --execute}) and ListPartitionReassignments (46) as Spool's
 * messages of the same names (docs/architecture.md#replica-reassignment). Kafka's null replica list
 * is Spool's cancel; its timeout is Spool's. Spool's request-level refusals (a cluster below the
 * metadata.version that reassigns, a partition named twice) are Kafka's top-level error, which
 * Kafka's answer repeats on every partition, as its brokers do ({@code getErrorResponse}): Kafka's
 * Admin fails each partition's future with it.
 *
 * <p>Version 1 of AlterPartitionReassignments adds {@code allow_replication_factor_change}
 * (KIP-860), which Spool's request does not carry: Spool lets a reassignment change the replication
 * factor. When a Kafka client clears it, a target whose length differs from the replica count the
 * partition is headed for (the target of a move in progress, else its replicas) is refused here, by
 * the broker's metadata image, and never reaches the quorum: INVALID_REPLICATION_FACTOR with
 * Kafka's message, as Kafka's controller answers. Kafka's controller checks the target itself
 * first, so a target naming a broker the image does not know gets INVALID_REPLICA_ASSIGNMENT
 * instead; an empty target or one naming a broker twice goes to Spool, which refuses it the same
 * way.
 *
 * <p>ListPartitionReassignments answers from the broker's image (as Spool's does): the partitions
 * being moved, grouped by topic, each with its replicas (target and leaving ones), the adding and
 * the removing ones. Kafka's null topic list means every partition; an empty one, or a topic with
 * no partition indexes, names nothing, so it is answered without asking Spool, whose empty filter
 * means everything.
 *
 * <p>Threads: stateless; any thread.
 */
public final class ReassignmentCodec {
  private ReassignmentCodec() {}

  // ---------------------------------------------------------------- AlterPartitionReassignments

  /** A translated AlterPartitionReassignments: what goes to Spool and what is answered here. */
  public static final class AlterCall {
    private final AlterPartitionReassignmentsRequest request;
    private final Map<TopicPartition, Refusal> refused;
    private final KafkaResponse immediate;

    private AlterCall(
        AlterPartitionReassignmentsRequest request,
        Map<TopicPartition, Refusal> refused,
        KafkaResponse immediate) {
      this.request = request;
      this.refused = refused;
      this.immediate = immediate;
    }

    /** Spool's request: the partitions not refused here (may be none). */
    public AlterPartitionReassignmentsRequest request() {
      return request;
    }

    /** Whether Spool has anything to decide; when not, no quorum round trip is needed. */
    public boolean forwards() {
      return request.getPartitionsCount() > 0;
    }

    /** The whole answer when the request is refused before Spool sees it, else null. */
    public KafkaResponse immediate() {
      return immediate;
    }
  }

  private record Refusal(Errors error, String message) {}

  public static AlterCall alterToSpool(KafkaRequest r, MetadataImage image) {
    AlterPartitionReassignmentsRequestData req = r.body();
    // Version 0 has no such field; the generated class then keeps its default, true.
    boolean allowRfChange = r.version() < 1 || req.allowReplicationFactorChange();
    AlterPartitionReassignmentsRequest.Builder b =
        AlterPartitionReassignmentsRequest.newBuilder().setTimeoutMs(req.timeoutMs());
    Map<TopicPartition, Refusal> refused = new HashMap<>();
    Set<TopicPartition> seen = new HashSet<>();
    for (AlterPartitionReassignmentsRequestData.ReassignableTopic t : req.topics()) {
      for (AlterPartitionReassignmentsRequestData.ReassignablePartition p : t.partitions()) {
        TopicPartition tp = RequestChecks.partition(t.name(), p.partitionIndex());
        if (!seen.add(tp)) {
          // Spool refuses the same; checked here too since a refused partition never gets there.
          return new AlterCall(
              b.build(),
              Map.of(),
              r.errorResponse(
                  ErrorCode.INVALID_REQUEST,
                  t.name() + "-" + p.partitionIndex() + " appears more than once in the request"));
        }
        Refusal no = allowRfChange ? null : replicationFactorChange(tp, p.replicas(), image);
        if (no != null) {
          refused.put(tp, no);
          continue;
        }
        AlterPartitionReassignmentsRequest.Reassignment.Builder rb =
            AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                .setTopic(t.name())
                .setPartition(p.partitionIndex());
        if (p.replicas() == null) {
          rb.setCancel(true);
        } else {
          rb.addAllReplicas(p.replicas());
        }
        b.addPartitions(rb);
      }
    }
    return new AlterCall(b.build(), refused, null);
  }

  /**
   * The refusal of a target that changes the partition's replication factor (see the class
   * comment), or null when the target keeps it or Spool is to judge the target.
   */
  private static Refusal replicationFactorChange(
      TopicPartition tp, List<Integer> target, MetadataImage image) {
    PartitionState p = target == null ? null : image.partition(tp);
    if (p == null || target.isEmpty() || new HashSet<>(target).size() != target.size()) {
      return null; // a cancel, an unknown partition or a malformed target: Spool answers
    }
    int current = p.targetReplicas().size();
    if (current == target.size()) {
      return null;
    }
    for (int id : target) {
      if (image.broker(id) == null) {
        return new Refusal(
            Errors.INVALID_REPLICA_ASSIGNMENT, tp + ": broker " + id + " is not registered");
      }
    }
    return new Refusal(
        Errors.INVALID_REPLICATION_FACTOR,
        "The replication factor is changed from " + current + " to " + target.size());
  }

  /**
   * Kafka's answer: every partition asked, grouped by topic in the request's order, with Spool's
   * result or the refusal made here.
   */
  public static KafkaResponse alterToKafka(
      KafkaRequest r, AlterCall call, AlterPartitionReassignmentsResponse resp) {
    if (call.immediate != null) {
      return call.immediate;
    }
    if (resp.getErrorCode() != ErrorCode.NONE) {
      return r.errorResponse(resp.getErrorCode(), resp.getErrorMessage());
    }
    Map<TopicPartition, AlterPartitionReassignmentsResponse.Result> results = new HashMap<>();
    for (AlterPartitionReassignmentsResponse.Result p : resp.getPartitionsList()) {
      results.put(new TopicPartition(p.getTopic(), p.getPartition()), p);
    }
    AlterPartitionReassignmentsRequestData req = r.body();
    AlterPartitionReassignmentsResponseData out =
        new AlterPartitionReassignmentsResponseData()
            .setThrottleTimeMs(0)
            .setAllowReplicationFactorChange(req.allowReplicationFactorChange())
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(resp.getErrorMessage()));
    for (AlterPartitionReassignmentsRequestData.ReassignableTopic t : req.topics()) {
      AlterPartitionReassignmentsResponseData.ReassignableTopicResponse kt =
          new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName(t.name());
      for (AlterPartitionReassignmentsRequestData.ReassignablePartition p : t.partitions()) {
        TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
        AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse kp =
            new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                .setPartitionIndex(p.partitionIndex());
        Refusal no = call.refused.get(tp);
        AlterPartitionReassignmentsResponse.Result res = results.get(tp);
        if (no != null) {
          kp.setErrorCode(no.error().code()).setErrorMessage(no.message());
        } else if (resp.getErrorCode() != ErrorCode.NONE) {
          kp.setErrorCode(KafkaErrors.code(resp.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(resp.getErrorMessage()));
        } else if (res != null) {
          kp.setErrorCode(KafkaErrors.code(res.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(res.getErrorMessage()));
        } else {
          kp.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())
              .setErrorMessage(tp + ": no answer for this partition");
        }
        kt.partitions().add(kp);
      }
      out.responses().add(kt);
    }
    return r.respond(out);
  }

  // ---------------------------------------------------------------- ListPartitionReassignments

  /**
   * Spool's request, or null when Kafka's names no partition at all (an empty, non-null topic
   * list): the answer is then empty without asking ({@link #listToKafka} with Spool's default
   * answer).
   */
  public static ListPartitionReassignmentsRequest listToSpool(KafkaRequest r) {
    ListPartitionReassignmentsRequestData req = r.body();
    ListPartitionReassignmentsRequest.Builder b = ListPartitionReassignmentsRequest.newBuilder();
    if (req.topics() == null) {
      return b.build();
    }
    for (ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics t : req.topics()) {
      if (!t.partitionIndexes().isEmpty()) {
        b.addPartitions(
            TopicPartitions.newBuilder().setTopic(t.name()).addAllPartitions(t.partitionIndexes()));
      }
    }
    return b.getPartitionsCount() == 0 ? null : b.build();
  }

  public static KafkaResponse listToKafka(KafkaRequest r, ListPartitionReassignmentsResponse resp) {
    Map<String, ListPartitionReassignmentsResponseData.OngoingTopicReassignment> byTopic =
        new LinkedHashMap<>();
    for (ListPartitionReassignmentsResponse.Reassignment p : resp.getPartitionsList()) {
      byTopic
          .computeIfAbsent(
              p.getTopic(),
              t -> new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(t))
          .partitions()
          .add(
              new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                  .setPartitionIndex(p.getPartition())
                  .setReplicas(List.copyOf(p.getReplicasList()))
                  .setAddingReplicas(List.copyOf(p.getAddingReplicasList()))
                  .setRemovingReplicas(List.copyOf(p.getRemovingReplicasList())));
    }
    return r.respond(
        new ListPartitionReassignmentsResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(resp.getErrorMessage()))
            .setTopics(List.copyOf(byTopic.values())));
  }
}
