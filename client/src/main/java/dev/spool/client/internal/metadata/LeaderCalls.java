package dev.spool.client.internal.metadata;

import com.google.protobuf.Message;
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
import dev.spool.protocol.message.LeaderHint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Requests that each partition's leader must answer (ListOffsets, DeleteRecords): the partitions go
 * to their leaders from the metadata cache, one request per leader; partitions whose leader is
 * unknown or that answer with a retriable error go again after a backoff (refreshing metadata when
 * the error asks for it, applying leader hints at once) until the deadline; a non-retriable error,
 * of a partition or of its topic, fails the whole call. Runs on the network's I/O thread; {@link
 * #call} may be called from any thread.
 */
public final class LeaderCalls {
  private final Metadata metadata;
  private final NetworkClient network;
  private final Clock clock;
  private final ExponentialBackoff backoff;
  private final long requestTimeoutMs;

  /**
   * One API's part: its key, the request carrying a leader's share of the partitions, and the
   * partitions' outcomes in an answer.
   *
   * @param <V> what the caller asks per partition (a timestamp spec, an offset)
   * @param <R> what a partition's answer gives (an offset; may be null)
   */
  public interface Api<V, R> {
    ApiKey key();

    /** What the call finds, for the timeout's message: e.g. "offsets for". */
    String what();

    Message request(MetadataSnapshot md, Map<TopicPartition, V> share);

    List<Outcome<R>> outcomes(ClientResponse response);
  }

  /** One partition of an answer: its error (NONE: {@code value} is the result) and leader hint. */
  public record Outcome<R>(
      TopicPartition partition, ErrorCode error, String message, LeaderHint hint, R value) {}

  public LeaderCalls(
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

  /** Each partition's result once its leader answered it, or the first definite failure. */
  public <V, R> CompletableFuture<Map<TopicPartition, R>> call(
      Api<V, R> api, Map<TopicPartition, V> args, long deadlineMs) {
    CompletableFuture<Map<TopicPartition, R>> result = new CompletableFuture<>();
    metadata.addTopics(
        args.keySet().stream().map(TopicPartition::topic).collect(Collectors.toSet()),
        clock.monotonicMs());
    Attempt<V, R> a = new Attempt<>(api, new HashMap<>(args), deadlineMs, result);
    network.eventLoop().execute(() -> a.run(0));
    return result;
  }

  /** One call's rounds; confined to the I/O thread. */
  private final class Attempt<V, R> {
    final Api<V, R> api;
    final Map<TopicPartition, V> remaining;
    final long deadlineMs;
    final CompletableFuture<Map<TopicPartition, R>> result;
    final Map<TopicPartition, R> found = new HashMap<>();
    SpoolException lastError;

    Attempt(
        Api<V, R> api,
        Map<TopicPartition, V> remaining,
        long deadlineMs,
        CompletableFuture<Map<TopicPartition, R>> result) {
      this.api = api;
      this.remaining = remaining;
      this.deadlineMs = deadlineMs;
      this.result = result;
    }

    void run(int attempt) {
      if (result.isDone()) {
        return;
      }
      MetadataSnapshot md = metadata.snapshot();
      Map<Node, Map<TopicPartition, V>> byLeader = new HashMap<>();
      for (Map.Entry<TopicPartition, V> e : remaining.entrySet()) {
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
          (node, share) ->
              network
                  .send(
                      node,
                      api.key(),
                      api.request(md, share),
                      Math.min(requestTimeoutMs, Math.max(1, deadlineMs - clock.monotonicMs())))
                  .whenComplete(
                      (response, error) -> {
                        try (ClientResponse r = response) {
                          onAnswer(share, r, error);
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

    private void onAnswer(Map<TopicPartition, V> share, ClientResponse r, Throwable error) {
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
      for (Outcome<R> o : api.outcomes(r)) {
        TopicPartition tp = o.partition();
        if (!share.containsKey(tp)) {
          continue;
        }
        if (o.error() == ErrorCode.NONE) {
          remaining.remove(tp);
          found.put(tp, o.value());
          continue;
        }
        if (o.hint() != null) {
          metadata.updateLeader(tp, o.hint());
        }
        lastError = new SpoolException(o.error(), o.message() + " (" + api.key() + " " + tp + ")");
        if (!Errors.retriable(o.error())) {
          result.completeExceptionally(lastError);
          return;
        }
        refresh |= Errors.refreshesMetadata(o.error());
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
                api.what()
                    + " "
                    + remaining.keySet()
                    + " not done in time"
                    + (lastError == null ? "" : " (last error: " + lastError.getMessage() + ")")));
        return;
      }
      network
          .eventLoop()
          .schedule(() -> run(attempt + 1), Math.max(1, delay), TimeUnit.MILLISECONDS);
    }
  }
}
