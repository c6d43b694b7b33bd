package dev.spool.client.internal.admin;

import dev.spool.client.internal.ClientContext;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteRecordsResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * DeleteRecords for the admin client: each partition's request goes to its leader (looked up afresh
 * every round), partitions answered with a retriable error (a leader that moved, one not elected
 * yet) go again after a backoff until {@code default.api.timeout.ms}; a non-retriable error
 * (OFFSET_OUT_OF_RANGE, POLICY_VIOLATION, UNKNOWN_TOPIC_OR_PARTITION) fails the call with the
 * partition named. Rounds are scheduled on the client's I/O thread; futures complete there.
 */
public final class RecordDeletions {
  private final ClientContext context;
  private final AdminCalls calls;
  private final long defaultApiTimeoutMs;
  private final Function<Collection<String>, CompletableFuture<Map<TopicPartition, Node>>> leaders;

  /**
   * @param leaders the current leader of every partition of the topics named (a partition without
   *     one is absent)
   */
  public RecordDeletions(
      ClientContext context,
      AdminCalls calls,
      long defaultApiTimeoutMs,
      Function<Collection<String>, CompletableFuture<Map<TopicPartition, Node>>> leaders) {
    this.context = context;
    this.calls = calls;
    this.defaultApiTimeoutMs = defaultApiTimeoutMs;
    this.leaders = leaders;
  }

  /** The low watermark (new log start offset) of each partition once its leader moved it. */
  public CompletableFuture<Map<TopicPartition, Long>> delete(Map<TopicPartition, Long> offsets) {
    CompletableFuture<Map<TopicPartition, Long>> result = new CompletableFuture<>();
    round(
        new TreeMap<>(offsets),
        new TreeMap<>(),
        context.clock().monotonicMs() + defaultApiTimeoutMs,
        0,
        null,
        result);
    return result;
  }

  private void round(
      Map<TopicPartition, Long> left,
      Map<TopicPartition, Long> done,
      long deadlineMs,
      int attempt,
      SpoolException lastError,
      CompletableFuture<Map<TopicPartition, Long>> result) {
    if (left.isEmpty()) {
      result.complete(done);
      return;
    }
    if (context.clock().monotonicMs() >= deadlineMs) {
      result.completeExceptionally(
          new SpoolException(
              ErrorCode.REQUEST_TIMED_OUT,
              "records of "
                  + left.keySet()
                  + " not deleted in time"
                  + (lastError == null ? "" : " (last error: " + lastError.getMessage() + ")")));
      return;
    }
    leaders
        .apply(left.keySet().stream().map(TopicPartition::topic).distinct().toList())
        .thenCompose(leaderOf -> sendToLeaders(left, leaderOf))
        .whenComplete(
            (answers, err) -> {
              SpoolException last = lastError;
              if (err != null) {
                SpoolException e = MetadataRefresher.asSpoolException(err);
                if (!e.retriable()) {
                  result.completeExceptionally(e);
                  return;
                }
                last = e;
              } else {
                for (DeleteRecordsResponse.Topic t : answers) {
                  for (DeleteRecordsResponse.Partition p : t.getPartitionsList()) {
                    TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
                    if (p.getErrorCode() == ErrorCode.NONE) {
                      left.remove(tp);
                      done.put(tp, p.getLowWatermark());
                    } else if (Errors.retriable(p.getErrorCode())) {
                      last = new SpoolException(p.getErrorCode(), tp + ": " + p.getErrorMessage());
                    } else {
                      result.completeExceptionally(
                          new SpoolException(p.getErrorCode(), tp + ": " + p.getErrorMessage()));
                      return;
                    }
                  }
                }
              }
              SpoolException cause = last;
              long delayMs = left.isEmpty() ? 0 : context.retryBackoff().backoffMs(attempt);
              context
                  .network()
                  .eventLoop()
                  .schedule(
                      () -> round(left, done, deadlineMs, attempt + 1, cause, result),
                      delayMs,
                      TimeUnit.MILLISECONDS);
            });
  }

  /** One DeleteRecords request per leader; partitions without a leader wait for the next round. */
  private CompletableFuture<List<DeleteRecordsResponse.Topic>> sendToLeaders(
      Map<TopicPartition, Long> left, Map<TopicPartition, Node> leaderOf) {
    Map<Node, Map<String, DeleteRecordsRequest.Topic.Builder>> byLeader = new HashMap<>();
    left.forEach(
        (tp, offset) -> {
          Node leader = leaderOf.get(tp);
          if (leader != null) {
            byLeader
                .computeIfAbsent(leader, n -> new LinkedHashMap<>())
                .computeIfAbsent(
                    tp.topic(), t -> DeleteRecordsRequest.Topic.newBuilder().setName(t))
                .addPartitions(
                    DeleteRecordsRequest.Partition.newBuilder()
                        .setPartition(tp.partition())
                        .setOffset(offset));
          }
        });
    List<CompletableFuture<DeleteRecordsResponse>> sent = new ArrayList<>();
    byLeader.forEach(
        (node, topics) -> {
          DeleteRecordsRequest.Builder req =
              DeleteRecordsRequest.newBuilder().setTimeoutMs((int) defaultApiTimeoutMs);
          topics.values().forEach(req::addTopics);
          DeleteRecordsRequest request = req.build();
          sent.add(
              calls.callNode(
                  "DeleteRecords at broker " + node.id(),
                  node,
                  ApiKey.DELETE_RECORDS,
                  () -> request,
                  r -> new AdminCalls.Done<>(r.body(DeleteRecordsResponse.class))));
        });
    return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
        .thenApply(v -> sent.stream().flatMap(f -> f.join().getTopicsList().stream()).toList());
  }
}
