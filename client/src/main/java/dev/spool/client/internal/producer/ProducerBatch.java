package dev.spool.client.internal.producer;

import dev.spool.client.RecordMetadata;
import dev.spool.common.TopicPartition;
import dev.spool.network.Node;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.Header;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One RecordBatch v2 on its way to a partition leader, with a future per record.
 *
 * <p>Life: <i>open</i> (in the accumulator, records appended under the partition deque's lock) →
 * <i>built</i> (drained by the sender; header, producer id/epoch/sequence and CRC written) → sent,
 * possibly several times (retries resend the same bytes) → <i>finished</i> exactly once, either
 * completing every record future with its offset or failing them all. Sender bookkeeping fields are
 * touched only by the I/O thread.
 */
public final class ProducerBatch {
  /** Upper bound of the bytes a record adds beyond its key, value and headers (varint widths). */
  private static final int MAX_RECORD_OVERHEAD_BYTES = 5 + 1 + 10 + 5 + 5 + 5 + 5;

  private static final int MAX_HEADER_OVERHEAD_BYTES = 5 + 5;

  final TopicPartition topicPartition;
  final long createdMs;
  private final ByteBuffer pooledBuffer;
  private final int allocatedBytes;
  private final RecordBatchBuilder builder;
  private final boolean compressed;

  /** Expected compressed / uncompressed size of the records (1 when not compressed). */
  private final float ratio;

  /** Bound on the uncompressed records, whatever the ratio promises (see the constructor). */
  private final int maxUncompressedBytes;

  private final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
  private long[] timestamps = new long[16];
  private ByteBuffer built;
  private int uncompressedBytes;
  private final AtomicBoolean finished = new AtomicBoolean();

  /** Completes (never exceptionally) once every record future is done; flush waits on it. */
  final CompletableFuture<Void> done = new CompletableFuture<>();

  // ---- sender bookkeeping, I/O thread only ----
  int attempts;
  long retryAfterMs;

  /** Leader and leader epoch (per the metadata) of the last attempt's target; -1 before one. */
  private int sentLeaderId = -1;

  private int sentLeaderEpoch = -1;
  long lastSendMs = -1;
  int generation;
  Node sentTo;
  long producerId = RecordBatch.NO_PRODUCER_ID;
  short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
  int baseSequence = RecordBatch.NO_SEQUENCE;

  /**
   * True once an attempt ended in a way that leaves open whether a broker appended the batch
   * (timeout, lost connection, an answer a broker may give after appending, or an attempt still
   * unanswered when the batch was requeued or failed). Never reset: an earlier copy may be in a log
   * whatever later attempts are told.
   */
  boolean mayHaveBeenAppended;

  /**
   * A batch compressed with {@code compression} when built. Its size counts as the uncompressed
   * records times {@code ratio} (with 5 % slack, as Kafka's estimate), so it takes records until
   * about the limit's worth compressed; {@code maxUncompressedBytes} bounds the records anyway, so
   * that a ratio that was too hopeful cannot make the compressed batch outgrow a request.
   */
  ProducerBatch(
      TopicPartition topicPartition,
      ByteBuffer pooledBuffer,
      int allocatedBytes,
      long createdMs,
      Compression compression,
      float ratio,
      int maxUncompressedBytes) {
    this.topicPartition = topicPartition;
    this.pooledBuffer = pooledBuffer;
    this.allocatedBytes = allocatedBytes;
    this.createdMs = createdMs;
    this.builder = new RecordBatchBuilder(pooledBuffer).compression(compression);
    this.compressed = compression.type() != CompressionType.NONE;
    this.ratio = compressed ? ratio * 1.05f : 1.0f;
    this.maxUncompressedBytes = maxUncompressedBytes;
  }

  /** An upper bound of the bytes one record adds to a fresh batch, header included. */
  public static int estimateSizeUpperBound(byte[] key, byte[] value, List<Header> headers) {
    long size =
        RecordBatch.HEADER_SIZE_BYTES
            + MAX_RECORD_OVERHEAD_BYTES
            + (key == null ? 0 : key.length)
            + (value == null ? 0 : value.length);
    for (Header h : headers) {
      size +=
          MAX_HEADER_OVERHEAD_BYTES
              + h.key().getBytes(StandardCharsets.UTF_8).length
              + (h.value() == null ? 0 : h.value().length);
    }
    return (int) Math.min(Integer.MAX_VALUE, size);
  }

  /**
   * Appends a record if the batch stays within {@code limitBytes} (the first record always fits:
   * the buffer was sized for it); returns its future, or {@code null} when the batch is full.
   * Caller holds the partition deque's lock.
   */
  CompletableFuture<RecordMetadata> tryAppend(
      long timestamp, byte[] key, byte[] value, List<Header> headers, int limitBytes) {
    if (built != null) {
      return null;
    }
    if (compressed) {
      limitBytes = uncompressedLimit(limitBytes);
    }
    ByteBuffer k = key == null ? null : ByteBuffer.wrap(key);
    ByteBuffer v = value == null ? null : ByteBuffer.wrap(value);
    // The exact size check costs as much as encoding; skip it while the upper bound clearly fits.
    long upperBound =
        (long) builder.estimatedSizeInBytes()
            + MAX_RECORD_OVERHEAD_BYTES
            + (key == null ? 0 : key.length)
            + (value == null ? 0 : value.length);
    if ((!headers.isEmpty() || upperBound > limitBytes)
        && !builder.hasRoomFor(timestamp, k, v, headers, limitBytes)) {
      return null;
    }
    builder.append(timestamp, k, v, headers);
    int n = futures.size();
    if (n == timestamps.length) {
      timestamps = Arrays.copyOf(timestamps, n * 2);
    }
    timestamps[n] = timestamp;
    CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
    futures.add(f);
    return f;
  }

  /** The uncompressed size that should compress to about {@code limitBytes}. */
  private int uncompressedLimit(int limitBytes) {
    long records = (long) ((limitBytes - RecordBatch.HEADER_SIZE_BYTES) / (double) ratio);
    long limit = RecordBatch.HEADER_SIZE_BYTES + records;
    return (int) Math.max(limitBytes, Math.min(limit, maxUncompressedBytes));
  }

  /** True when no typical record fits any more, so the batch should go now. */
  boolean isFull(int batchSizeBytes) {
    return built != null
        || estimatedSizeBytes() >= batchSizeBytes
        || builder.estimatedSizeInBytes() >= maxUncompressedBytes;
  }

  public int recordCount() {
    return futures.size();
  }

  /** The built size, or before that the expected one (compressed records at the ratio). */
  public int estimatedSizeBytes() {
    if (built != null) {
      return built.remaining();
    }
    int size = builder.estimatedSizeInBytes();
    if (!compressed) {
      return size;
    }
    return RecordBatch.HEADER_SIZE_BYTES
        + (int) Math.ceil((size - RecordBatch.HEADER_SIZE_BYTES) * (double) ratio);
  }

  /**
   * Compressed / uncompressed size of the built batch's records; -1 before it is built or when it
   * is not compressed.
   */
  float observedRatio() {
    if (built == null || !compressed) {
      return -1;
    }
    int records = uncompressedBytes - RecordBatch.HEADER_SIZE_BYTES;
    return records <= 0
        ? -1
        : (float) (built.remaining() - RecordBatch.HEADER_SIZE_BYTES) / records;
  }

  boolean isBuilt() {
    return built != null;
  }

  boolean hasSequence() {
    return baseSequence != RecordBatch.NO_SEQUENCE;
  }

  int lastSequence() {
    return RecordBatch.incrementSequence(baseSequence, recordCount() - 1);
  }

  /**
   * Sets the idempotence fields. Before the batch is built they go to the builder; afterwards (a
   * re-sequenced retry) the header fields are patched and the CRC recomputed, since the CRC covers
   * them.
   */
  void setProducerState(long producerId, short producerEpoch, int baseSequence) {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    if (built == null) {
      builder.producer(producerId, producerEpoch, baseSequence);
      return;
    }
    int pos = built.position();
    built.putLong(pos + RecordBatch.PRODUCER_ID_POSITION, producerId);
    built.putShort(pos + RecordBatch.PRODUCER_EPOCH_POSITION, producerEpoch);
    built.putInt(pos + RecordBatch.BASE_SEQUENCE_POSITION, baseSequence);
    built.putInt(
        pos + RecordBatch.CRC_POSITION, (int) RecordBatch.at(built, pos).computeChecksum());
  }

  /**
   * Compresses the records (when the producer has a codec), writes header and CRC; no record can be
   * appended afterwards. Idempotent. Runs on the I/O thread as the batch is drained, so the
   * application thread only encodes records.
   */
  void build() {
    if (built == null) {
      uncompressedBytes = builder.estimatedSizeInBytes();
      built = builder.build();
    }
  }

  /** The built batch bytes (a fresh duplicate, position at the first byte). */
  ByteBuffer bytes() {
    if (built == null) {
      throw new IllegalStateException("batch for " + topicPartition + " not built");
    }
    return built.duplicate();
  }

  ByteBuffer pooledBuffer() {
    return pooledBuffer;
  }

  int allocatedBytes() {
    return allocatedBytes;
  }

  boolean isFinished() {
    return finished.get();
  }

  /**
   * Completes every record: offsets from {@code baseOffset} (-1 when unknown, as with acks=0),
   * timestamps from {@code logAppendTimeMs} when the topic uses LogAppendTime (≠ -1), else each
   * record's own. Returns false if the batch was already finished.
   */
  boolean complete(long baseOffset, long logAppendTimeMs) {
    if (!finished.compareAndSet(false, true)) {
      return false;
    }
    for (int i = 0; i < futures.size(); i++) {
      long offset = baseOffset < 0 ? -1 : baseOffset + i;
      long ts = logAppendTimeMs >= 0 ? logAppendTimeMs : timestamps[i];
      futures
          .get(i)
          .complete(
              new RecordMetadata(topicPartition.topic(), topicPartition.partition(), offset, ts));
    }
    done.complete(null);
    return true;
  }

  /** Fails every record with {@code error}. Returns false if the batch was already finished. */
  boolean fail(RuntimeException error) {
    if (!finished.compareAndSet(false, true)) {
      return false;
    }
    for (CompletableFuture<RecordMetadata> f : futures) {
      f.completeExceptionally(error);
    }
    done.complete(null);
    return true;
  }

  void sentToLeader(int leaderId, int leaderEpoch) {
    this.sentLeaderId = leaderId;
    this.sentLeaderEpoch = leaderEpoch;
  }

  /** Whether a leader other than the last attempt's target is now known. */
  boolean leaderMovedTo(int leaderId, int leaderEpoch) {
    return sentLeaderId >= 0
        && leaderId >= 0
        && (leaderId != sentLeaderId || leaderEpoch > sentLeaderEpoch);
  }

  @Override
  public String toString() {
    return "ProducerBatch("
        + topicPartition
        + ", records="
        + recordCount()
        + ", bytes="
        + estimatedSizeBytes()
        + ", seq="
        + baseSequence
        + ", attempts="
        + attempts
        + ")";
  }
}
