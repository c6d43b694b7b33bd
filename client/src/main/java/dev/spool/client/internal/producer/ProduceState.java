package dev.spool.client.internal.producer;

import dev.spool.client.ProduceException;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.Node;
import dev.spool.record.RecordBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sender knows about each partition's batches in flight, and the rules for ordering,
 * retries and idempotent sequence numbers. Pure logic (no I/O, no clock; {@code nowMs} passed in),
 * confined to the producer's I/O thread, tested directly.
 *
 * <p><b>Idempotence</b> (Kafka's rules, KIP-98/KIP-360 in spirit): a batch gets its base sequence
 * when it is first drained, so sequences follow append order; at most five batches of a partition
 * are in flight, all to the same node. A batch's outcome:
 *
 * <ul>
 *   <li>success or DUPLICATE_SEQUENCE (a retried batch the broker already has, answered with its
 *       original offset) completes it;
 *   <li>a retriable error (or OUT_OF_ORDER_SEQUENCE for a batch that is not the next one the broker
 *       expects, i.e. an earlier batch failed) starts a new <i>generation</i>: this batch and every
 *       later batch in flight go back to the front of the queue in sequence order with their
 *       sequences, the answers of the old attempts are ignored when they arrive, and nothing of the
 *       partition is sent until those answers are all in — so the broker sees the sequences again
 *       in order and deduplicates whatever it had already written;
 *   <li>OUT_OF_ORDER_SEQUENCE for the next expected batch, UNKNOWN_PRODUCER_ID,
 *       INVALID_PRODUCER_EPOCH, PRODUCER_FENCED, or an ambiguous failure (retries or delivery
 *       timeout exhausted, unknown server error) fails every pending batch of the partition and
 *       asks for a new producer id, taken once no sequenced batch is pending anywhere;
 *   <li>a definite rejection (e.g. MESSAGE_TOO_LARGE, CORRUPT_MESSAGE, INVALID_RECORD: the broker
 *       wrote nothing) fails that batch only; later batches of the partition take over its sequence
 *       numbers.
 * </ul>
 *
 * Futures of one partition therefore finish in sequence order. Without idempotence a retriable
 * failure requeues only that batch (order is kept only with {@code max.in.flight} = 1, as in
 * Kafka).
 */
public final class ProduceState implements RecordAccumulator.DrainGate {
  private static final Logger log = LoggerFactory.getLogger(ProduceState.class);

  /** The broker keeps the sequences of a producer's last five batches per partition. */
  public static final int MAX_IN_FLIGHT_PER_PARTITION_IDEMPOTENT = 5;

  private static final Set<ErrorCode> FATAL_SEQUENCE_ERRORS =
      EnumSet.of(
          ErrorCode.OUT_OF_ORDER_SEQUENCE, ErrorCode.UNKNOWN_PRODUCER_ID,
          ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.PRODUCER_FENCED);

  /** Errors after which the broker certainly appended nothing of the batch. */
  private static final Set<ErrorCode> DEFINITE_REJECTIONS =
      EnumSet.of(
          ErrorCode.MESSAGE_TOO_LARGE,
          ErrorCode.CORRUPT_MESSAGE,
          ErrorCode.INVALID_RECORD,
          ErrorCode.INVALID_TIMESTAMP,
          ErrorCode.RECORD_LIST_TOO_LARGE,
          ErrorCode.INVALID_REQUEST,
          ErrorCode.INVALID_TOPIC,
          ErrorCode.POLICY_VIOLATION,
          ErrorCode.UNSUPPORTED_VERSION,
          ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
          ErrorCode.INVALID_CONFIG);

  /**
   * Answers a broker gives to a produce only before appending anything of the batch (see the
   * broker's Partition.checkProduce and the log's validation). NOT_LEADER_OR_FOLLOWER is not here:
   * a leader that loses leadership fails the acks=all produces waiting for replication with it,
   * after appending; with acks=0 or 1 nothing waits, so there it is added (see {@link
   * #refusedBeforeAppend}). REQUEST_TIMED_OUT and STORAGE_ERROR are given both before and after.
   */
  private static final Set<ErrorCode> REFUSED_BEFORE_APPEND =
      EnumSet.of(
          ErrorCode.NOT_ENOUGH_REPLICAS,
          ErrorCode.FENCED_LEADER_EPOCH,
          ErrorCode.UNKNOWN_LEADER_EPOCH,
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          ErrorCode.OUT_OF_ORDER_SEQUENCE,
          ErrorCode.UNKNOWN_PRODUCER_ID,
          ErrorCode.INVALID_PRODUCER_EPOCH,
          ErrorCode.MESSAGE_TOO_LARGE,
          ErrorCode.CORRUPT_MESSAGE,
          ErrorCode.INVALID_RECORD,
          ErrorCode.INVALID_TIMESTAMP,
          ErrorCode.RECORD_LIST_TOO_LARGE,
          ErrorCode.INVALID_REQUEST,
          ErrorCode.INVALID_TOPIC,
          ErrorCode.POLICY_VIOLATION,
          ErrorCode.UNSUPPORTED_VERSION,
          ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);

  /** One partition's send state. */
  static final class PartitionState {
    int nextSequence;
    int lastAckedSequence = -1;
    int generation;

    /** Sent and not yet answered, oldest first; stale generations come before current ones. */
    final ArrayDeque<ProducerBatch> inFlight = new ArrayDeque<>();
  }

  private final boolean idempotent;
  private final boolean acksAll;
  private final int maxInFlightPerPartition;
  private final int retries;
  private final long deliveryTimeoutMs;
  private final ExponentialBackoff retryBackoff;
  private final RecordAccumulator accumulator;
  private final ProducerStats stats;
  private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
  private long producerId = RecordBatch.NO_PRODUCER_ID;
  private short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
  private boolean resetPending;
  private int sequencedPending;

  /** A state for acks=all (the strictest reading of which answers prove nothing was appended). */
  public ProduceState(
      boolean idempotent,
      int maxInFlightPerPartition,
      int retries,
      long deliveryTimeoutMs,
      ExponentialBackoff retryBackoff,
      RecordAccumulator accumulator,
      ProducerStats stats) {
    this(
        idempotent,
        true,
        maxInFlightPerPartition,
        retries,
        deliveryTimeoutMs,
        retryBackoff,
        accumulator,
        stats);
  }

  /** {@code acksAll}: whether produce requests carry acks=all (-1). */
  public ProduceState(
      boolean idempotent,
      boolean acksAll,
      int maxInFlightPerPartition,
      int retries,
      long deliveryTimeoutMs,
      ExponentialBackoff retryBackoff,
      RecordAccumulator accumulator,
      ProducerStats stats) {
    this.idempotent = idempotent;
    this.acksAll = acksAll;
    this.maxInFlightPerPartition =
        idempotent
            ? Math.min(maxInFlightPerPartition, MAX_IN_FLIGHT_PER_PARTITION_IDEMPOTENT)
            : maxInFlightPerPartition;
    this.retries = retries;
    this.deliveryTimeoutMs = deliveryTimeoutMs;
    this.retryBackoff = retryBackoff;
    this.accumulator = accumulator;
    this.stats = stats;
  }

  PartitionState state(TopicPartition tp) {
    return partitions.computeIfAbsent(tp, k -> new PartitionState());
  }

  // ------------------------------------------------------------------ producer id

  public boolean idempotent() {
    return idempotent;
  }

  /** True while the producer must (re)acquire a producer id before sending new batches. */
  public boolean needsProducerId() {
    return idempotent && (producerId == RecordBatch.NO_PRODUCER_ID || resetPending);
  }

  /** A new producer id may be taken now: none yet, or a reset with no sequenced batch pending. */
  public boolean canInitProducerId() {
    return idempotent
        && (producerId == RecordBatch.NO_PRODUCER_ID
            || resetPending
                && sequencedPending == 0
                && partitions.values().stream().allMatch(s -> s.inFlight.isEmpty()));
  }

  public void setProducerId(long id, short epoch) {
    producerId = id;
    producerEpoch = epoch;
    resetPending = false;
    for (PartitionState s : partitions.values()) {
      s.nextSequence = 0;
      s.lastAckedSequence = -1;
      s.generation++;
    }
    log.info("producer id {} epoch {}", id, epoch);
  }

  public long producerId() {
    return producerId;
  }

  public short producerEpoch() {
    return producerEpoch;
  }

  public boolean resetPending() {
    return resetPending;
  }

  private void requestReset(String why) {
    if (!resetPending) {
      log.warn("producer id {} will be replaced: {}", producerId, why);
    }
    resetPending = true;
  }

  // ------------------------------------------------------------------ drain gate

  @Override
  public boolean mayDrain(TopicPartition tp, Node leader, ProducerBatch first) {
    PartitionState s = partitions.get(tp);
    if (!idempotent) {
      return s == null || s.inFlight.size() < maxInFlightPerPartition;
    }
    if (producerId == RecordBatch.NO_PRODUCER_ID || resetPending && !first.hasSequence()) {
      return false;
    }
    if (s == null || s.inFlight.isEmpty()) {
      return true;
    }
    return s.inFlight.peekFirst().generation == s.generation
        && leader.equals(s.inFlight.peekLast().sentTo)
        && s.inFlight.size() < maxInFlightPerPartition;
  }

  @Override
  public void onDrain(ProducerBatch batch) {
    if (!idempotent || batch.hasSequence()) {
      return;
    }
    PartitionState s = state(batch.topicPartition);
    batch.setProducerState(producerId, producerEpoch, s.nextSequence);
    s.nextSequence = SequenceNumbers.increment(s.nextSequence, batch.recordCount());
    sequencedPending++;
  }

  /**
   * Records that {@code batch} was written to {@code node} as attempt {@code batch.attempts + 1}.
   */
  public void onSent(ProducerBatch batch, Node node, long nowMs) {
    PartitionState s = state(batch.topicPartition);
    batch.attempts++;
    batch.lastSendMs = nowMs;
    batch.sentTo = node;
    batch.generation = s.generation;
    s.inFlight.addLast(batch);
  }

  /** Expiry may only take batches of partitions with nothing in flight (futures stay in order). */
  public boolean mayExpire(TopicPartition tp) {
    PartitionState s = partitions.get(tp);
    return s == null || s.inFlight.isEmpty();
  }

  /** Every batch in flight on any partition (for aborting on close). */
  public List<ProducerBatch> allInFlight() {
    List<ProducerBatch> all = new ArrayList<>();
    partitions.values().forEach(s -> all.addAll(s.inFlight));
    return all;
  }

  public int inFlightCount(TopicPartition tp) {
    PartitionState s = partitions.get(tp);
    return s == null ? 0 : s.inFlight.size();
  }

  // ------------------------------------------------------------------ outcomes

  /**
   * Handles one batch's answer ({@code error == NONE} for success). {@code baseOffset} and {@code
   * logAppendTimeMs} come from the response (-1 when unknown).
   */
  public void onResult(
      ProducerBatch b,
      ErrorCode error,
      String message,
      long baseOffset,
      long logAppendTimeMs,
      long nowMs) {
    PartitionState s = state(b.topicPartition);
    boolean wasInFlight = s.inFlight.remove(b);
    if (!wasInFlight || b.generation != s.generation || b.isFinished()) {
      return; // a superseded attempt: the batch was requeued or failed when its generation ended
    }
    if (error != ErrorCode.NONE
        && error != ErrorCode.DUPLICATE_SEQUENCE
        && !refusedBeforeAppend(error)) {
      b.mayHaveBeenAppended = true;
    }
    if (error == ErrorCode.NONE || error == ErrorCode.DUPLICATE_SEQUENCE) {
      if (b.hasSequence()) {
        s.lastAckedSequence = b.lastSequence();
      }
      complete(b, baseOffset, logAppendTimeMs);
      return;
    }
    SpoolException e = new SpoolException(error, describe(b, message));
    boolean notNext =
        error == ErrorCode.OUT_OF_ORDER_SEQUENCE
            && b.hasSequence()
            && b.baseSequence != SequenceNumbers.increment(s.lastAckedSequence, 1);
    if (Errors.retriable(error) || notNext) {
      if (b.attempts > retries || nowMs - b.createdMs >= deliveryTimeoutMs) {
        failAmbiguously(
            b,
            s,
            new SpoolException(
                error, describe(b, message) + " (gave up after " + b.attempts + " attempts)"));
      } else {
        retry(b, s, nowMs);
      }
    } else if (idempotent && b.hasSequence() && FATAL_SEQUENCE_ERRORS.contains(error)) {
      failPartition(b, s, e);
      requestReset(error + " for " + b.topicPartition);
    } else if (DEFINITE_REJECTIONS.contains(error) || !b.hasSequence()) {
      reject(b, s, e);
    } else {
      failAmbiguously(b, s, e);
    }
  }

  private void retry(ProducerBatch b, PartitionState s, long nowMs) {
    List<ProducerBatch> requeue = new ArrayList<>();
    requeue.add(b);
    if (idempotent) {
      // Later attempts of this generation will be rejected or deduplicated: resend them too.
      for (ProducerBatch later : s.inFlight) {
        if (later.generation == s.generation && !later.isFinished()) {
          later.mayHaveBeenAppended =
              true; // its attempt is unanswered and its answer will be ignored
          requeue.add(later);
        }
      }
      s.generation++;
    }
    for (ProducerBatch r : requeue) {
      r.retryAfterMs = nowMs + retryBackoff.backoffMs(Math.max(0, r.attempts - 1));
    }
    stats.retries(requeue.size());
    accumulator.reenqueue(requeue);
  }

  /** The broker wrote nothing of {@code b}: fail it; later batches take over its sequences. */
  private void reject(ProducerBatch b, PartitionState s, SpoolException e) {
    fail(b, e);
    if (!idempotent || !b.hasSequence()) {
      return;
    }
    int delta = b.recordCount();
    List<ProducerBatch> requeue = new ArrayList<>();
    for (ProducerBatch later : s.inFlight) {
      if (later.generation == s.generation && !later.isFinished()) {
        later.mayHaveBeenAppended =
            true; // its attempt is unanswered and its answer will be ignored
        requeue.add(later);
      }
    }
    if (!requeue.isEmpty()) {
      s.generation++;
    }
    for (ProducerBatch later : requeue) {
      later.setProducerState(
          producerId, producerEpoch, SequenceNumbers.decrement(later.baseSequence, delta));
    }
    accumulator.forEachQueued(
        b.topicPartition,
        q -> {
          if (q.hasSequence()) {
            q.setProducerState(
                producerId, producerEpoch, SequenceNumbers.decrement(q.baseSequence, delta));
          }
        });
    s.nextSequence = SequenceNumbers.decrement(s.nextSequence, delta);
    accumulator.reenqueue(requeue);
  }

  /**
   * Whether the broker wrote {@code b} is unknown: fail the partition's sequenced batches, reset.
   */
  private void failAmbiguously(ProducerBatch b, PartitionState s, SpoolException e) {
    if (!idempotent || !b.hasSequence()) {
      fail(b, e);
      return;
    }
    failPartition(b, s, e);
    requestReset("outcome of " + b + " unknown: " + e.getMessage());
  }

  /** Fails {@code b} and every other pending batch of its partition, in order. */
  private void failPartition(ProducerBatch b, PartitionState s, SpoolException cause) {
    fail(b, cause);
    List<ProducerBatch> others = new ArrayList<>();
    for (ProducerBatch later : s.inFlight) {
      if (!later.isFinished()) {
        others.add(later);
      }
    }
    others.addAll(accumulator.removeQueued(b.topicPartition, q -> true));
    s.generation++;
    SpoolException follow =
        new SpoolException(
            cause.errorCode(),
            "failed with an earlier batch of " + b.topicPartition + ": " + cause.getMessage());
    for (ProducerBatch o : others) {
      fail(o, follow);
    }
  }

  /** The attempt ended without a protocol answer (client closing): fail the batch as it is. */
  public void onAborted(ProducerBatch b, RuntimeException e) {
    state(b.topicPartition).inFlight.remove(b);
    fail(b, e);
  }

  /**
   * Delivery timeout passed for a batch taken from the queue (nothing of its partition in flight).
   */
  public void onExpired(ProducerBatch b, long nowMs) {
    SpoolException e =
        new SpoolException(
            ErrorCode.REQUEST_TIMED_OUT,
            "expired "
                + b
                + " after "
                + (nowMs - b.createdMs)
                + " ms: delivery.timeout.ms="
                + deliveryTimeoutMs
                + " passed before the broker acknowledged it");
    if (idempotent && b.hasSequence()) {
      failPartition(b, state(b.topicPartition), e);
      requestReset("a sent batch of " + b.topicPartition + " expired unacknowledged");
    } else {
      fail(b, e);
    }
  }

  // ------------------------------------------------------------------ finishing

  void complete(ProducerBatch b, long baseOffset, long logAppendTimeMs) {
    if (b.complete(baseOffset, logAppendTimeMs)) {
      finished(b);
      stats.recordsSent(b.recordCount(), b.estimatedSizeBytes());
    }
  }

  /**
   * Fails {@code b} (any thread state; used also on close). A {@link SpoolException} reaches the
   * record futures as a {@link ProduceException} saying whether the batch may have been appended.
   */
  public void fail(ProducerBatch b, RuntimeException e) {
    if (b.isFinished()) {
      return;
    }
    PartitionState s = partitions.get(b.topicPartition);
    if (s != null && s.inFlight.contains(b)) {
      b.mayHaveBeenAppended = true; // an attempt is still unanswered
    }
    RuntimeException error =
        e instanceof SpoolException se ? new ProduceException(se, b.mayHaveBeenAppended) : e;
    if (b.fail(error)) {
      finished(b);
      stats.recordsFailed(b.recordCount());
    }
  }

  private void finished(ProducerBatch b) {
    if (idempotent && b.hasSequence()) {
      sequencedPending--;
    }
    accumulator.deallocate(b);
  }

  /** True if a broker answers a produce with {@code error} only when it appended nothing. */
  boolean refusedBeforeAppend(ErrorCode error) {
    return REFUSED_BEFORE_APPEND.contains(error)
        || !acksAll && error == ErrorCode.NOT_LEADER_OR_FOLLOWER;
  }

  int sequencedPending() {
    return sequencedPending;
  }

  private static String describe(ProducerBatch b, String message) {
    return (message == null || message.isEmpty() ? "" : message + "; ")
        + b.topicPartition
        + " batch of "
        + b.recordCount()
        + " records"
        + (b.hasSequence() ? " (sequence " + b.baseSequence + ")" : "");
  }
}
