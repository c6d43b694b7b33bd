package dev.spool.client.internal.consumer;

import dev.spool.client.OffsetAndTimestamp;
import dev.spool.client.internal.metadata.LeaderCalls;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * ListOffsets with retries: asks each partition's leader (with the cached leader epoch as {@code
 * current_leader_epoch}) for the offset of a timestamp spec — {@link #EARLIEST} (-2), {@link
 * #LATEST} (-1, the high watermark) or a time in ms (the first record at or after it), retried as
 * {@link LeaderCalls} does until the deadline. {@link #lookup} may be called from any thread.
 */
public final class OffsetLookup {
  public static final long EARLIEST = -2;
  public static final long LATEST = -1;

  private final LeaderCalls calls;

  public OffsetLookup(LeaderCalls calls) {
    this.calls = calls;
  }

  /**
   * The offsets for {@code specs} (partition → timestamp spec). A partition with no record at or
   * after the asked time maps to {@code null}.
   */
  public CompletableFuture<Map<TopicPartition, OffsetAndTimestamp>> lookup(
      Map<TopicPartition, Long> specs, long deadlineMs) {
    return calls.call(LIST_OFFSETS, specs, deadlineMs);
  }

  private static final LeaderCalls.Api<Long, OffsetAndTimestamp> LIST_OFFSETS =
      new LeaderCalls.Api<>() {
        @Override
        public ApiKey key() {
          return ApiKey.LIST_OFFSETS;
        }

        @Override
        public String what() {
          return "offsets for";
        }

        /** Each partition with the cached leader epoch as {@code current_leader_epoch}. */
        @Override
        public ListOffsetsRequest request(MetadataSnapshot md, Map<TopicPartition, Long> share) {
          Map<String, ListOffsetsRequest.Topic.Builder> topics = new HashMap<>();
          share.forEach(
              (tp, spec) -> {
                PartitionInfo p = md.partition(tp);
                topics
                    .computeIfAbsent(
                        tp.topic(), t -> ListOffsetsRequest.Topic.newBuilder().setName(t))
                    .addPartitions(
                        ListOffsetsRequest.Partition.newBuilder()
                            .setPartition(tp.partition())
                            .setTimestamp(spec)
                            .setCurrentLeaderEpoch(p == null ? -1 : p.leaderEpoch()));
              });
          ListOffsetsRequest.Builder b = ListOffsetsRequest.newBuilder().setReplicaId(-1);
          topics.values().forEach(b::addTopics);
          return b.build();
        }

        @Override
        public List<LeaderCalls.Outcome<OffsetAndTimestamp>> outcomes(ClientResponse r) {
          List<LeaderCalls.Outcome<OffsetAndTimestamp>> out = new ArrayList<>();
          for (ListOffsetsResponse.Topic t : r.body(ListOffsetsResponse.class).getTopicsList()) {
            for (ListOffsetsResponse.Partition p : t.getPartitionsList()) {
              out.add(
                  new LeaderCalls.Outcome<>(
                      new TopicPartition(t.getName(), p.getPartition()),
                      p.getErrorCode(),
                      p.getErrorMessage(),
                      p.hasCurrentLeader() ? p.getCurrentLeader() : null,
                      p.getOffset() < 0
                          ? null
                          : new OffsetAndTimestamp(
                              p.getOffset(), p.getTimestamp(), p.getLeaderEpoch())));
            }
          }
          return out;
        }
      };
}
