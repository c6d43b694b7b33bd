package dev.spool.record;

import dev.spool.record.internal.ByteBufferOutputStream;
import dev.spool.record.internal.Varint;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Builds one RecordBatch v2 (layout in {@link RecordBatch}, records in {@link RecordCursor}).
 * Records are encoded as they are appended, behind a 61-byte gap for the header; {@link #build()}
 * compresses them if a {@link #compression} was set, then fills the header, the lengths and the
 * CRC. The batch is written into the caller's buffer from its position on; when that buffer is too
 * small a larger heap buffer replaces it (see {@link #buffer()}).
 *
 * <p>Offsets are consecutive from {@link #baseOffset} (producers use 0; the leader assigns the real
 * base offset on append), or explicit and increasing with {@link #appendWithOffset} (a compacted
 * batch keeps its records' offsets, so it may have gaps). The base timestamp is the first record's,
 * the max timestamp is tracked. Sizes ({@link #estimatedSizeInBytes}, {@link #hasRoomFor}) count
 * the records uncompressed until the batch is built. Not thread-safe; single use: after {@link
 * #build()} no more records may be added.
 */
public final class RecordBatchBuilder {
  private static final List<Header> NO_HEADERS = List.of();

  private ByteBuffer buffer;
  private final int start;
  private long baseOffset;
  private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
  private long producerId = RecordBatch.NO_PRODUCER_ID;
  private short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
  private int baseSequence = RecordBatch.NO_SEQUENCE;
  private TimestampType timestampType = TimestampType.CREATE_TIME;
  private Compression compression = Compression.NONE;

  private int recordCount;
  private int lastOffsetDelta = -1;
  private long baseTimestamp = RecordBatch.NO_TIMESTAMP;
  private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
  private boolean built;

  /** Builds into {@code buffer} starting at its position (replaced by a larger one if needed). */
  public RecordBatchBuilder(ByteBuffer buffer) {
    this.buffer = buffer;
    this.start = buffer.position();
    buffer.position(start + RecordBatch.HEADER_SIZE_BYTES);
  }

  /** Builds into a heap buffer that grows as needed. */
  public RecordBatchBuilder(int initialCapacityBytes) {
    this(ByteBuffer.allocate(Math.max(initialCapacityBytes, RecordBatch.HEADER_SIZE_BYTES)));
  }

  public RecordBatchBuilder() {
    this(1024);
  }

  public RecordBatchBuilder baseOffset(long baseOffset) {
    this.baseOffset = baseOffset;
    return this;
  }

  public RecordBatchBuilder partitionLeaderEpoch(int epoch) {
    this.partitionLeaderEpoch = epoch;
    return this;
  }

  /** Idempotent producer fields; defaults are -1 (not idempotent). */
  public RecordBatchBuilder producer(long producerId, short producerEpoch, int baseSequence) {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.baseSequence = baseSequence;
    return this;
  }

  public RecordBatchBuilder timestampType(TimestampType type) {
    this.timestampType = type;
    return this;
  }

  /** The codec {@link #build()} compresses the records with (default none). */
  public RecordBatchBuilder compression(Compression compression) {
    this.compression = compression;
    return this;
  }

  public int recordCount() {
    return recordCount;
  }

  /** The buffer currently written into (it changes when the builder had to grow). */
  public ByteBuffer buffer() {
    return buffer;
  }

  public RecordBatchBuilder append(long timestampMs, byte[] key, byte[] value) {
    return append(timestampMs, wrap(key), wrap(value), NO_HEADERS);
  }

  public RecordBatchBuilder append(long timestampMs, String key, String value) {
    return append(timestampMs, utf8(key), utf8(value), NO_HEADERS);
  }

  public RecordBatchBuilder append(
      long timestampMs, byte[] key, byte[] value, List<Header> headers) {
    return append(timestampMs, wrap(key), wrap(value), headers);
  }

  /**
   * Appends one record with the next offset. {@code key}/{@code value} are read from their position
   * to their limit and not consumed; null means a null key/value.
   */
  public RecordBatchBuilder append(
      long timestampMs, ByteBuffer key, ByteBuffer value, List<Header> headers) {
    return appendWithOffset(baseOffset + lastOffsetDelta + 1, timestampMs, key, value, headers);
  }

  /**
   * Appends one record at {@code offset}, which must be above the previous record's (the first may
   * be any offset at or above {@link #baseOffset}): offsets may skip, as in a compacted batch.
   */
  public RecordBatchBuilder appendWithOffset(
      long offset, long timestampMs, ByteBuffer key, ByteBuffer value, List<Header> headers) {
    if (built) {
      throw new IllegalStateException("batch already built");
    }
    long delta = offset - baseOffset;
    if (delta <= lastOffsetDelta || delta > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "offset "
              + offset
              + " must be above "
              + (baseOffset + lastOffsetDelta)
              + " and within 2^31 of the base offset "
              + baseOffset);
    }
    if (timestampMs < 0 && timestampMs != RecordBatch.NO_TIMESTAMP) {
      throw new IllegalArgumentException("invalid timestamp " + timestampMs);
    }
    if (recordCount == 0) {
      baseTimestamp = timestampMs;
    }
    long timestampDelta = timestampMs - baseTimestamp;
    int offsetDelta = (int) delta;
    int bodySize = bodySizeInBytes(offsetDelta, timestampDelta, key, value, headers);
    ensureRoom(Varint.sizeOfVarint(bodySize) + bodySize);
    Varint.writeVarint(bodySize, buffer);
    buffer.put((byte) 0);
    Varint.writeVarlong(timestampDelta, buffer);
    Varint.writeVarint(offsetDelta, buffer);
    writeNullable(key);
    writeNullable(value);
    Varint.writeVarint(headers.size(), buffer);
    for (Header h : headers) {
      byte[] k = h.key().getBytes(StandardCharsets.UTF_8);
      Varint.writeVarint(k.length, buffer);
      buffer.put(k);
      writeNullable(wrap(h.value()));
    }
    recordCount++;
    lastOffsetDelta = offsetDelta;
    maxTimestamp = Math.max(maxTimestamp, timestampMs);
    return this;
  }

  private void writeNullable(ByteBuffer bytes) {
    if (bytes == null) {
      Varint.writeVarint(-1, buffer);
    } else {
      Varint.writeVarint(bytes.remaining(), buffer);
      buffer.put(bytes.duplicate());
    }
  }

  /**
   * Bytes of one record after its length field (Kafka's {@code DefaultRecord.sizeOfBodyInBytes}).
   */
  static int bodySizeInBytes(
      int offsetDelta,
      long timestampDelta,
      ByteBuffer key,
      ByteBuffer value,
      List<Header> headers) {
    int size = 1 + Varint.sizeOfVarlong(timestampDelta) + Varint.sizeOfVarint(offsetDelta);
    size += nullableSize(key) + nullableSize(value);
    size += Varint.sizeOfVarint(headers.size());
    for (Header h : headers) {
      int k = h.key().getBytes(StandardCharsets.UTF_8).length;
      size += Varint.sizeOfVarint(k) + k + nullableSize(wrap(h.value()));
    }
    return size;
  }

  private static int nullableSize(ByteBuffer b) {
    return b == null ? 1 : Varint.sizeOfVarint(b.remaining()) + b.remaining();
  }

  /** Size the batch has now (header included); the built batch has exactly this size. */
  public int estimatedSizeInBytes() {
    return buffer.position() - start;
  }

  /**
   * Whether a record with these fields fits without the batch exceeding {@code sizeLimitBytes}. An
   * empty builder always has room for one record (a lone oversized record is the caller's {@link
   * RecordTooLargeException} to raise), as in Kafka.
   */
  public boolean hasRoomFor(
      long timestampMs,
      ByteBuffer key,
      ByteBuffer value,
      List<Header> headers,
      int sizeLimitBytes) {
    if (recordCount == 0) {
      return true;
    }
    int body =
        bodySizeInBytes(lastOffsetDelta + 1, timestampMs - baseTimestamp, key, value, headers);
    return estimatedSizeInBytes() + Varint.sizeOfVarint(body) + body <= sizeLimitBytes;
  }

  public boolean hasRoomFor(long timestampMs, byte[] key, byte[] value, int sizeLimitBytes) {
    return hasRoomFor(timestampMs, wrap(key), wrap(value), NO_HEADERS, sizeLimitBytes);
  }

  private void ensureRoom(int bytes) {
    if (buffer.remaining() >= bytes) {
      return;
    }
    int used = buffer.position();
    long wanted = Math.max(2L * buffer.capacity(), (long) used + bytes);
    if (wanted > Integer.MAX_VALUE - 8) {
      throw new RecordTooLargeException(
          "record batch", (int) Math.min(wanted, Integer.MAX_VALUE), Integer.MAX_VALUE - 8);
    }
    ByteBuffer bigger = ByteBuffer.allocate((int) wanted);
    ByteBuffer old = buffer.duplicate();
    old.flip();
    bigger.put(old);
    buffer = bigger;
  }

  /**
   * Writes the header, lengths and CRC and returns the batch as a buffer positioned at its first
   * byte with its limit at the last. Needs at least one record.
   */
  public ByteBuffer build() {
    if (built) {
      throw new IllegalStateException("batch already built");
    }
    if (recordCount == 0) {
      throw new IllegalStateException("a batch needs at least one record");
    }
    built = true;
    if (compression.type() != CompressionType.NONE) {
      compressRecords();
    }
    int end = buffer.position();
    int size = end - start;
    short attributes =
        (short)
            (compression.type().id()
                | (timestampType == TimestampType.LOG_APPEND_TIME
                    ? RecordBatch.TIMESTAMP_TYPE_MASK
                    : 0));
    buffer.putLong(start + RecordBatch.BASE_OFFSET_POSITION, baseOffset);
    buffer.putInt(start + RecordBatch.BATCH_LENGTH_POSITION, size - RecordBatch.LOG_OVERHEAD);
    buffer.putInt(start + RecordBatch.PARTITION_LEADER_EPOCH_POSITION, partitionLeaderEpoch);
    buffer.put(start + RecordBatch.MAGIC_POSITION, RecordBatch.MAGIC);
    buffer.putShort(start + RecordBatch.ATTRIBUTES_POSITION, attributes);
    buffer.putInt(start + RecordBatch.LAST_OFFSET_DELTA_POSITION, lastOffsetDelta);
    buffer.putLong(start + RecordBatch.BASE_TIMESTAMP_POSITION, baseTimestamp);
    buffer.putLong(start + RecordBatch.MAX_TIMESTAMP_POSITION, maxTimestamp);
    buffer.putLong(start + RecordBatch.PRODUCER_ID_POSITION, producerId);
    buffer.putShort(start + RecordBatch.PRODUCER_EPOCH_POSITION, producerEpoch);
    buffer.putInt(start + RecordBatch.BASE_SEQUENCE_POSITION, baseSequence);
    buffer.putInt(start + RecordBatch.RECORDS_COUNT_POSITION, recordCount);
    long crc = RecordBatch.at(buffer, start).computeChecksum();
    buffer.putInt(start + RecordBatch.CRC_POSITION, (int) crc);
    ByteBuffer out = buffer.duplicate();
    out.limit(end).position(start);
    return out;
  }

  /**
   * Replaces the encoded records after the header gap by their compressed form: compressed into a
   * scratch stream, then copied back over them when they fit in the buffer (they nearly always do:
   * compression rarely grows data by more than a frame header), else into a new buffer.
   */
  private void compressRecords() {
    int recordsStart = start + RecordBatch.HEADER_SIZE_BYTES;
    ByteBuffer records = buffer.duplicate().limit(buffer.position()).position(recordsStart);
    ByteBufferOutputStream scratch =
        new ByteBufferOutputStream(Math.max(256, records.remaining() / 2));
    try (OutputStream out = compression.wrapForOutput(scratch)) {
      Compression.writeTo(records, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress a batch with " + compression, e);
    }
    ByteBuffer compressed = scratch.buffer().flip();
    if (buffer.capacity() - recordsStart < compressed.remaining()) {
      ByteBuffer bigger = ByteBuffer.allocate(recordsStart + compressed.remaining());
      bigger.put(buffer.duplicate().limit(recordsStart).position(0));
      buffer = bigger;
    }
    buffer.limit(buffer.capacity()).position(recordsStart);
    buffer.put(compressed);
  }

  private static ByteBuffer wrap(byte[] bytes) {
    return bytes == null ? null : ByteBuffer.wrap(bytes);
  }

  private static ByteBuffer utf8(String s) {
    return s == null ? null : ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}
