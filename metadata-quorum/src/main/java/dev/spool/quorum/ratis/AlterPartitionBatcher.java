package dev.spool.quorum.ratis;

import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Coalesces one broker's AlterPartition requests, as Kafka's AlterPartitionManager does: one
 * request in flight per broker registration; what arrives meanwhile is merged into the next request
 * (one Raft entry with many PartitionChangeRecords) and each caller gets its own part of the
 * answer. A partition appears at most once per merged request; a second change of the same
 * partition waits for the following one. Raft commits entries, not records, so this is what lets
 * many partitions change ISR at once without one log entry each.
 *
 * <p>A request that finds the broker idle is sent through {@code firstSend}: a short delay there
 * ({@link RatisQuorumClient} lingers a few ms) lets the rest of a burst (a broker dropping a dead
 * follower from every ISR at once) join the first request instead of waiting a whole round trip for
 * the second.
 *
 * <p>Thread-safe (synchronized on this object; sends happen outside the lock).
 */
final class AlterPartitionBatcher {
  private static final int MAX_PARTITIONS_PER_REQUEST = 1000;

  private record Pending(
      AlterPartitionRequest request, CompletableFuture<AlterPartitionResponse> future) {}

  private final int brokerId;
  private final long brokerEpoch;
  private final Function<AlterPartitionRequest, CompletableFuture<AlterPartitionResponse>> send;
  private final Executor firstSend;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private boolean inFlight;

  /** Sends a request that finds the broker idle at once. */
  AlterPartitionBatcher(
      int brokerId,
      long brokerEpoch,
      Function<AlterPartitionRequest, CompletableFuture<AlterPartitionResponse>> send) {
    this(brokerId, brokerEpoch, send, Runnable::run);
  }

  AlterPartitionBatcher(
      int brokerId,
      long brokerEpoch,
      Function<AlterPartitionRequest, CompletableFuture<AlterPartitionResponse>> send,
      Executor firstSend) {
    this.brokerId = brokerId;
    this.brokerEpoch = brokerEpoch;
    this.send = send;
    this.firstSend = firstSend;
  }

  CompletableFuture<AlterPartitionResponse> submit(AlterPartitionRequest r) {
    Pending p = new Pending(r, new CompletableFuture<>());
    synchronized (this) {
      queue.add(p);
      if (inFlight) {
        return p.future();
      }
      inFlight = true;
    }
    // Until it runs, inFlight holds later requests in the queue, where sendNext finds them.
    firstSend.execute(this::sendNext);
    return p.future();
  }

  private void sendNext() {
    List<Pending> batch = new ArrayList<>();
    synchronized (this) {
      Set<String> seen = new HashSet<>();
      int partitions = 0;
      for (Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
        Pending p = it.next();
        int n = p.request().getPartitionsCount();
        if (!batch.isEmpty() && partitions + n > MAX_PARTITIONS_PER_REQUEST) {
          break;
        }
        boolean collides =
            p.request().getPartitionsList().stream()
                .anyMatch(x -> seen.contains(x.getTopic() + "-" + x.getPartition()));
        if (collides && !batch.isEmpty()) {
          continue;
        }
        p.request()
            .getPartitionsList()
            .forEach(x -> seen.add(x.getTopic() + "-" + x.getPartition()));
        batch.add(p);
        partitions += n;
        it.remove();
      }
      if (batch.isEmpty()) {
        inFlight = false;
        return;
      }
    }
    AlterPartitionRequest.Builder merged =
        AlterPartitionRequest.newBuilder().setBrokerId(brokerId).setBrokerEpoch(brokerEpoch);
    batch.forEach(p -> merged.addAllPartitions(p.request().getPartitionsList()));
    CompletableFuture<AlterPartitionResponse> f;
    try {
      f = send.apply(merged.build());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete(
        (resp, err) -> {
          // The answer without its partitions, copied once: each caller's part is added to it
          // (copying the whole answer per caller cost quadratic time in a merge of many callers).
          AlterPartitionResponse head =
              err == null ? resp.toBuilder().clearPartitions().build() : null;
          int offset = 0;
          for (Pending p : batch) {
            int n = p.request().getPartitionsCount();
            if (err != null) {
              p.future().completeExceptionally(err);
            } else if (resp.getPartitionsCount() < offset + n) {
              // A request-level error (e.g. STALE_BROKER_EPOCH) has no per-partition results.
              p.future().complete(head);
            } else {
              p.future()
                  .complete(
                      head.toBuilder()
                          .addAllPartitions(resp.getPartitionsList().subList(offset, offset + n))
                          .build());
            }
            offset += n;
          }
          sendNext();
        });
  }
}
