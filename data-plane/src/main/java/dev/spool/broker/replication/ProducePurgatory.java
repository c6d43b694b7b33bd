package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The acks=all produces of one partition leader that wait until the high watermark passes their
 * last offset (Kafka's produce purgatory, one per partition). Each waits for one offset and has one
 * deadline; it completes with its success once the high watermark reaches that offset, with
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR has meanwhile shrunk below
 * min.insync.replicas, with REQUEST_TIMED_OUT at its deadline, or with the error its partition
 * gives when it stops leading.
 *
 * <p>Threads: owned by the partition's owner thread, like the {@link Partition} that holds it;
 * nothing here locks. Futures complete on that thread, so their callbacks run there and must not
 * block.
 */
final class ProducePurgatory {
  /** A produce waiting until the high watermark reaches {@code requiredOffset}. */
  private record Waiting(
      long requiredOffset,
      long deadlineMs,
      ProduceResult success,
      CompletableFuture<ProduceResult> future) {}

  private final TopicPartition tp;
  private final PriorityQueue<Waiting> waiting =
      new PriorityQueue<>(Comparator.comparingLong(Waiting::requiredOffset));

  // The size as of the owner's last change, for scrapes on other threads.
  private volatile int published;

  ProducePurgatory(TopicPartition tp) {
    this.tp = tp;
  }

  int size() {
    return waiting.size();
  }

  /** The number of waiting produces as of the owner's last change; any thread. */
  int publishedSize() {
    return published;
  }

  private void publish() {
    if (published != waiting.size()) {
      published = waiting.size();
    }
  }

  /**
   * A produce appended up to {@code requiredOffset - 1}: its future completes with {@code success}
   * once the high watermark reaches {@code requiredOffset}.
   */
  CompletableFuture<ProduceResult> await(
      long requiredOffset, long deadlineMs, ProduceResult success) {
    CompletableFuture<ProduceResult> f = new CompletableFuture<>();
    waiting.add(new Waiting(requiredOffset, deadlineMs, success, f));
    publish();
    return f;
  }

  /**
   * The high watermark is {@code highWatermark}: completes every produce it covers. {@code copies}
   * gives the size of the maximal ISR, every member of which has the covered batches (read only
   * when a produce is covered); fewer than {@code minInsyncReplicas} copies means the write is
   * durable on fewer copies than promised, and the answer says so.
   */
  void completeUpTo(long highWatermark, IntSupplier copiesOf, int minInsyncReplicas) {
    while (!waiting.isEmpty() && waiting.peek().requiredOffset() <= highWatermark) {
      Waiting p = waiting.poll();
      publish();
      int copies = copiesOf.getAsInt();
      if (copies >= minInsyncReplicas) {
        p.future().complete(p.success());
      } else {
        p.future()
            .complete(
                ProduceResult.error(
                    ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                    "written at offset "
                        + p.success().baseOffset()
                        + " but the ISR of "
                        + tp
                        + " shrank to "
                        + copies
                        + " members, below min.insync.replicas="
                        + minInsyncReplicas));
      }
    }
  }

  /** Fails every waiting produce with {@code code} (the replica stopped leading); how many. */
  int failAll(ErrorCode code, String message, LeaderHintInfo hint) {
    if (waiting.isEmpty()) {
      return 0;
    }
    List<Waiting> all = new ArrayList<>(waiting);
    waiting.clear();
    publish();
    for (Waiting p : all) {
      p.future().complete(ProduceResult.error(code, message, hint));
    }
    return all.size();
  }

  /**
   * Fails the produces whose deadline is at or before {@code nowMs} with REQUEST_TIMED_OUT; {@code
   * isr} names the replicas they waited for (read only when one expired).
   */
  void expire(long nowMs, Supplier<Object> isr) {
    if (waiting.isEmpty()) {
      return;
    }
    List<Waiting> expired = new ArrayList<>();
    waiting.removeIf(
        p -> {
          if (p.deadlineMs() <= nowMs) {
            expired.add(p);
            return true;
          }
          return false;
        });
    publish();
    for (Waiting p : expired) {
      p.future()
          .complete(
              ProduceResult.error(
                  ErrorCode.REQUEST_TIMED_OUT,
                  "offset "
                      + (p.requiredOffset() - 1)
                      + " of "
                      + tp
                      + " was written but not replicated to the ISR "
                      + isr.get()
                      + " within the timeout"));
    }
  }
}
