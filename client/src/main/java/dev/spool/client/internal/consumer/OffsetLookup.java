package dev.spool.client.internal.consumer;

import dev.spool.client.OffsetAndTimestamp;
import dev.spool.client.internal.metadata.Metadata;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * ListOffsets with retries: asks each partition's leader (with the cached leader epoch as {@code
 * current_leader_epoch}) for the offset of a timestamp spec — {@link #EARLIEST} (-2), {@link
 * #LATEST} (-1, the high watermark) or a time in ms (the first record at or after it). Partitions
 * whose leader is unknown or that answer with a retriable error are retried after a backoff
 * (refreshing metadata when the error asks for it, applying leader hints at once) until the
 * deadline; a non-retriable error fails the whole lookup. Runs on the network's I/O thread; {@link
 * #lookup} may be called from any thread.
 */
public final class OffsetLookup {
  public static final long EARLIEST = -2;
  public static final long LATEST = -1;

  private final Metadata metadata;
  private final NetworkClient network;
  private final Clock clock;
  private final ExponentialBackoff backoff;
  private final long requestTimeoutMs;

  public OffsetLookup(
      Metadata metadata,
      NetworkClient network,
      Clock clock,
      ExponentialBackoff backoff,
      long requestTimeoutMs) {
    this.metadata = metadata;
    this.network = network;
    this.clock = clock;
    this.backoff = backoff;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /**
   * The offsets for {@code specs} (partition → timestamp spec). A partition with no record at or
   * after the asked time maps to {@code null}.
   */
  public CompletableFuture<Map<TopicPartition, OffsetAndTimestamp>> lookup(
      Map<TopicPartition, Long> specs, long deadlineMs) {
    CompletableFuture<Map<TopicPartition, OffsetAndTimestamp>> result = new CompletableFuture<>();
    metadata.addTopics(
        specs.keySet().stream().map(TopicPartition::topic).collect(Collectors.toSet()),
        clock.monotonicMs());
    Attempt a = new Attempt(new HashMap<>(specs), deadlineMs, result);
    network.eventLoop().execute(() -> a.run(0));
    return result;
  }

  private final class Attempt {
    final Map<TopicPartition, Long> remaining;
    final long deadlineMs;
    final CompletableFuture<Map<TopicPartition, OffsetAndTimestamp>> result;
    final Map<TopicPartition, OffsetAndTimestamp> found = new HashMap<>();
    SpoolException lastError;

    Attempt(
        Map<TopicPartition, Long> remaining,
        long deadlineMs,
        CompletableFuture<Map<TopicPartition, OffsetAndTimestamp>> result) {
      this.remaining = remaining;
      this.deadlineMs = deadlineMs;
      this.result = result;
    }

    void run(int attempt) {
      if (result.isDone()) {
        return;
      }
      MetadataSnapshot md = metadata.snapshot();
      Map<Node, Map<TopicPartition, Long>> byLeader = new HashMap<>();
      for (Map.Entry<TopicPartition, Long> e : remaining.entrySet()) {
        SpoolException topicError = metadata.topicError(e.getKey().topic());
        if (topicError != null) {
          result.completeExceptionally(topicError);
          return;
        }
        Node leader = md.leaderFor(e.getKey());
        if (leader == null) {
          lastError =
              new SpoolException(
                  ErrorCode.LEADER_NOT_AVAILABLE, "no known leader for " + e.getKey());
          metadata.requestUpdate();
        } else {
          byLeader.computeIfAbsent(leader, n -> new HashMap<>()).put(e.getKey(), e.getValue());
        }
      }
      if (byLeader.isEmpty()) {
        retryLater(attempt);
        return;
      }
      AtomicInteger outstanding = new AtomicInteger(byLeader.size());
      byLeader.forEach(
          (node, parts) ->
              network
                  .send(
                      node,
                      ApiKey.LIST_OFFSETS,
                      request(md, parts),
                      Math.min(requestTimeoutMs, Math.max(1, deadlineMs - clock.monotonicMs())))
                  .whenComplete(
                      (response, error) -> {
                        try (ClientResponse r = response) {
                          onAnswer(parts, r, error);
                        }
                        if (outstanding.decrementAndGet() == 0) {
                          if (remaining.isEmpty()) {
                            result.complete(found);
                          } else {
                            retryLater(attempt);
                          }
                        }
                      }));
    }

    private ListOffsetsRequest request(MetadataSnapshot md, Map<TopicPartition, Long> parts) {
      Map<String, ListOffsetsRequest.Topic.Builder> topics = new HashMap<>();
      parts.forEach(
          (tp, spec) -> {
            PartitionInfo p = md.partition(tp);
            topics
                .computeIfAbsent(tp.topic(), t -> ListOffsetsRequest.Topic.newBuilder().setName(t))
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

    private void onAnswer(Map<TopicPartition, Long> parts, ClientResponse r, Throwable error) {
      if (error != null) {
        lastError = MetadataRefresher.asSpoolException(error);
        if (!lastError.retriable()) {
          result.completeExceptionally(lastError);
        } else if (lastError.refreshesMetadata()) {
          metadata.requestUpdate();
        }
        return;
      }
      boolean refresh = false;
      for (ListOffsetsResponse.Topic t : r.body(ListOffsetsResponse.class).getTopicsList()) {
        for (ListOffsetsResponse.Partition p : t.getPartitionsList()) {
          TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
          if (!parts.containsKey(tp)) {
            continue;
          }
          if (p.getErrorCode() == ErrorCode.NONE) {
            remaining.remove(tp);
            found.put(
                tp,
                p.getOffset() < 0
                    ? null
                    : new OffsetAndTimestamp(p.getOffset(), p.getTimestamp(), p.getLeaderEpoch()));
            continue;
          }
          if (p.hasCurrentLeader()) {
            metadata.updateLeader(tp, p.getCurrentLeader());
          }
          lastError =
              new SpoolException(
                  p.getErrorCode(), p.getErrorMessage() + " (ListOffsets " + tp + ")");
          if (!Errors.retriable(p.getErrorCode())) {
            result.completeExceptionally(lastError);
            return;
          }
          refresh |= Errors.refreshesMetadata(p.getErrorCode());
        }
      }
      if (refresh) {
        metadata.requestUpdate();
      }
    }

    private void retryLater(int attempt) {
      long delay = backoff.backoffMs(attempt);
      if (clock.monotonicMs() + delay >= deadlineMs) {
        result.completeExceptionally(
            new SpoolException(
                ErrorCode.REQUEST_TIMED_OUT,
                "offsets for "
                    + remaining.keySet()
                    + " not found in time"
                    + (lastError == null ? "" : " (last error: " + lastError.getMessage() + ")")));
        return;
      }
      network
          .eventLoop()
          .schedule(() -> run(attempt + 1), Math.max(1, delay), TimeUnit.MILLISECONDS);
    }
  }
}
