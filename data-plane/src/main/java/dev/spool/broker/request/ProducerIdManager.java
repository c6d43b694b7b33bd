package dev.spool.broker.request;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out producer ids for InitProducerId from blocks the quorum allocates to this broker
 * (AllocateProducerIds, as Kafka's ProducerIdManager): ids are unique cluster-wide because each
 * block is committed to the metadata log. The next block is fetched when 90% of the current one is
 * used, so most calls answer at once.
 *
 * <p>Threads: any; state guarded by this object's monitor. Limit: at most {@code maxWaiting}
 * requests wait for a block; more fail at once with a retriable error.
 */
public final class ProducerIdManager {
  private static final Logger log = LoggerFactory.getLogger(ProducerIdManager.class);

  private final int brokerId;
  private final LongSupplier brokerEpoch;
  private final QuorumClient quorum;
  private final int maxWaiting;
  private final ArrayDeque<CompletableFuture<Long>> waiting = new ArrayDeque<>();
  private long next = -1;
  private long end = -1; // exclusive
  private long prefetchedStart = -1;
  private int prefetchedLength;
  private int blockLength = 1;
  private boolean requestInFlight;

  public ProducerIdManager(
      int brokerId, LongSupplier brokerEpoch, QuorumClient quorum, int maxWaiting) {
    this.brokerId = brokerId;
    this.brokerEpoch = brokerEpoch;
    this.quorum = quorum;
    this.maxWaiting = maxWaiting;
  }

  public CompletableFuture<Long> nextProducerId() {
    CompletableFuture<Long> f = new CompletableFuture<>();
    synchronized (this) {
      if (next >= 0 && next < end) {
        f.complete(next++);
        maybePrefetch();
        return f;
      }
      if (prefetchedStart >= 0) {
        useBlock(prefetchedStart, prefetchedLength);
        prefetchedStart = -1;
        f.complete(next++);
        return f;
      }
      if (waiting.size() >= maxWaiting) {
        f.completeExceptionally(
            new SpoolException(
                ErrorCode.QUORUM_UNAVAILABLE,
                waiting.size()
                    + " InitProducerId requests already wait for a block of producer ids"));
        return f;
      }
      waiting.add(f);
      requestBlock();
    }
    return f;
  }

  private void useBlock(long start, int length) {
    next = start;
    end = start + length;
    blockLength = length;
  }

  private void maybePrefetch() {
    if (prefetchedStart < 0 && !requestInFlight && (end - next) * 10 < blockLength) {
      requestBlock();
    }
  }

  private void requestBlock() {
    if (requestInFlight) {
      return;
    }
    requestInFlight = true;
    quorum
        .allocateProducerIds(
            AllocateProducerIdsRequest.newBuilder()
                .setBrokerId(brokerId)
                .setBrokerEpoch(brokerEpoch.getAsLong())
                .build())
        .whenComplete(this::onBlock);
  }

  private void onBlock(AllocateProducerIdsResponse resp, Throwable err) {
    ArrayDeque<CompletableFuture<Long>> failed = new ArrayDeque<>();
    Throwable failure = null;
    synchronized (this) {
      requestInFlight = false;
      if (err != null || resp.getErrorCode() != ErrorCode.NONE || resp.getProducerIdLen() <= 0) {
        failure =
            err != null
                ? err
                : new SpoolException(
                    resp.getErrorCode() == ErrorCode.NONE
                        ? ErrorCode.UNKNOWN_SERVER_ERROR
                        : resp.getErrorCode(),
                    "no producer id block: " + resp.getErrorMessage());
        log.warn("[node={}] producer id block request failed: {}", brokerId, failure.toString());
        failed.addAll(waiting);
        waiting.clear();
      } else if (next >= 0 && next < end) {
        prefetchedStart = resp.getProducerIdStart();
        prefetchedLength = resp.getProducerIdLen();
      } else {
        useBlock(resp.getProducerIdStart(), resp.getProducerIdLen());
        log.info("[node={}] producer ids {}..{} allocated", brokerId, next, end - 1);
        while (!waiting.isEmpty() && next < end) {
          waiting.poll().complete(next++);
        }
        if (!waiting.isEmpty()) {
          requestBlock();
        }
      }
    }
    for (CompletableFuture<Long> f : failed) {
      f.completeExceptionally(failure);
    }
  }
}
