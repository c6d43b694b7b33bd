package dev.spool.client.internal.admin;

import dev.spool.client.internal.metadata.LeaderCalls;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteRecordsResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteRecords for the admin client: each partition goes to its leader and is retried as {@link
 * LeaderCalls} does (a leader that moved, one not elected yet) until {@code
 * default.api.timeout.ms}; a non-retriable error (OFFSET_OUT_OF_RANGE, POLICY_VIOLATION,
 * UNKNOWN_TOPIC_OR_PARTITION) fails the call with the partition named. Any thread.
 */
public final class RecordDeletions {
  private final LeaderCalls calls;
  private final Clock clock;
  private final long defaultApiTimeoutMs;
  private final LeaderCalls.Api<Long, Long> api;

  public RecordDeletions(LeaderCalls calls, Clock clock, long defaultApiTimeoutMs) {
    this.calls = calls;
    this.clock = clock;
    this.defaultApiTimeoutMs = defaultApiTimeoutMs;
    this.api = new DeleteRecordsApi((int) Math.min(Integer.MAX_VALUE, defaultApiTimeoutMs));
  }

  /** The low watermark (new log start offset) of each partition once its leader moved it. */
  public CompletableFuture<Map<TopicPartition, Long>> delete(Map<TopicPartition, Long> offsets) {
    return calls
        .call(api, offsets, clock.monotonicMs() + defaultApiTimeoutMs)
        .thenApply(TreeMap::new);
  }

  /** A leader's share of the partitions, each with the offset to delete below. */
  private record DeleteRecordsApi(int timeoutMs) implements LeaderCalls.Api<Long, Long> {
    @Override
    public ApiKey key() {
      return ApiKey.DELETE_RECORDS;
    }

    @Override
    public String what() {
      return "records of";
    }

    @Override
    public DeleteRecordsRequest request(MetadataSnapshot md, Map<TopicPartition, Long> share) {
      Map<String, DeleteRecordsRequest.Topic.Builder> topics = new LinkedHashMap<>();
      share.forEach(
          (tp, offset) ->
              topics
                  .computeIfAbsent(
                      tp.topic(), t -> DeleteRecordsRequest.Topic.newBuilder().setName(t))
                  .addPartitions(
                      DeleteRecordsRequest.Partition.newBuilder()
                          .setPartition(tp.partition())
                          .setOffset(offset)));
      DeleteRecordsRequest.Builder b = DeleteRecordsRequest.newBuilder().setTimeoutMs(timeoutMs);
      topics.values().forEach(b::addTopics);
      return b.build();
    }

    @Override
    public List<LeaderCalls.Outcome<Long>> outcomes(ClientResponse r) {
      List<LeaderCalls.Outcome<Long>> out = new ArrayList<>();
      for (DeleteRecordsResponse.Topic t : r.body(DeleteRecordsResponse.class).getTopicsList()) {
        for (DeleteRecordsResponse.Partition p : t.getPartitionsList()) {
          out.add(
              new LeaderCalls.Outcome<>(
                  new TopicPartition(t.getName(), p.getPartition()),
                  p.getErrorCode(),
                  p.getErrorMessage(),
                  p.hasCurrentLeader() ? p.getCurrentLeader() : null,
                  p.getLowWatermark()));
        }
      }
      return out;
    }
  }
}
