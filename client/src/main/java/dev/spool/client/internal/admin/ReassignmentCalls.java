package dev.spool.client.internal.admin;

import dev.spool.client.ReassignmentResult;
import dev.spool.client.Reassignments;
import dev.spool.client.internal.admin.AdminCalls.Done;
import dev.spool.client.internal.admin.AdminCalls.Retry;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.TopicPartitions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The admin side of replica reassignment (docs/operations.md#moving-replicas):
 * AlterPartitionReassignments and ListPartitionReassignments to any broker, which forwards the
 * change to the controller. Thread-safe; futures complete on the I/O thread.
 */
public final class ReassignmentCalls {
  private final AdminCalls calls;
  private final int brokerTimeoutMs;

  public ReassignmentCalls(AdminCalls calls, int brokerTimeoutMs) {
    this.calls = calls;
    this.brokerTimeoutMs = brokerTimeoutMs;
  }

  /**
   * Sends one AlterPartitionReassignments: a target per partition (empty: cancel), and the throttle
   * when given. Answers a result per partition; fails only when the request as a whole is refused.
   */
  public CompletableFuture<Map<TopicPartition, ReassignmentResult>> alter(
      Map<TopicPartition, Optional<List<Integer>>> targets, OptionalLong throttleBytesPerSec) {
    AlterPartitionReassignmentsRequest.Builder b =
        AlterPartitionReassignmentsRequest.newBuilder().setTimeoutMs(brokerTimeoutMs);
    throttleBytesPerSec.ifPresent(b::setThrottleBytesPerSec);
    new TreeMap<>(targets)
        .forEach(
            (tp, target) -> {
              AlterPartitionReassignmentsRequest.Reassignment.Builder r =
                  AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
                      .setTopic(tp.topic())
                      .setPartition(tp.partition());
              if (target.isPresent()) {
                r.addAllReplicas(target.get());
              } else {
                r.setCancel(true);
              }
              b.addPartitions(r);
            });
    AlterPartitionReassignmentsRequest request = b.build();
    AtomicInteger attempts = new AtomicInteger();
    return calls.call(
        "AlterPartitionReassignments",
        ApiKey.ALTER_PARTITION_REASSIGNMENTS,
        () -> {
          attempts.incrementAndGet();
          return request;
        },
        r -> {
          AlterPartitionReassignmentsResponse resp =
              r.body(AlterPartitionReassignmentsResponse.class);
          if (resp.getErrorCode() != ErrorCode.NONE) {
            return AdminCalls.errorOutcome(resp.getErrorCode(), resp.getErrorMessage());
          }
          Map<TopicPartition, ReassignmentResult> out = new TreeMap<>();
          for (AlterPartitionReassignmentsResponse.Result res : resp.getPartitionsList()) {
            TopicPartition tp = new TopicPartition(res.getTopic(), res.getPartition());
            ErrorCode code = res.getErrorCode();
            SpoolException e = new SpoolException(code, res.getErrorMessage());
            if (code != ErrorCode.NONE
                && code != ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                && e.retriable()) {
              // A new target for a partition already moving redirects it, so sending the
              // whole request again is safe. An unknown partition is the controller's refusal,
              // not metadata that has yet to arrive.
              return new Retry<>(e);
            }
            if (code == ErrorCode.NO_REASSIGNMENT_IN_PROGRESS
                && attempts.get() > 1
                && targets.getOrDefault(tp, Optional.of(List.of())).isEmpty()) {
              code = ErrorCode.NONE; // an earlier attempt that timed out did cancel it
            }
            out.put(
                tp,
                new ReassignmentResult(
                    tp, code, code == ErrorCode.NONE ? "" : res.getErrorMessage()));
          }
          return new Done<>(out);
        });
  }

  /** The reassignments in progress among {@code partitions} (every partition when empty). */
  public CompletableFuture<Reassignments> list(Collection<TopicPartition> partitions) {
    Map<String, TopicPartitions.Builder> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic
          .computeIfAbsent(tp.topic(), t -> TopicPartitions.newBuilder().setTopic(t))
          .addPartitions(tp.partition());
    }
    ListPartitionReassignmentsRequest.Builder b = ListPartitionReassignmentsRequest.newBuilder();
    byTopic.values().forEach(b::addPartitions);
    ListPartitionReassignmentsRequest request = b.build();
    return calls.call(
        "ListPartitionReassignments",
        ApiKey.LIST_PARTITION_REASSIGNMENTS,
        () -> request,
        r -> {
          ListPartitionReassignmentsResponse resp =
              r.body(ListPartitionReassignmentsResponse.class);
          List<Reassignments.Reassignment> out = new ArrayList<>();
          for (ListPartitionReassignmentsResponse.Reassignment p : resp.getPartitionsList()) {
            out.add(
                new Reassignments.Reassignment(
                    new TopicPartition(p.getTopic(), p.getPartition()),
                    p.getReplicasList(),
                    p.getAddingReplicasList(),
                    p.getRemovingReplicasList(),
                    p.getIsrList(),
                    p.getLeader()));
          }
          out.sort((x, y) -> x.partition().compareTo(y.partition()));
          return new Done<>(new Reassignments(out, resp.getThrottleBytesPerSec()));
        });
  }
}
