package dev.spool.record;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A zero-allocation view of one Kafka RecordBatch v2 (magic 2) inside a {@link ByteBuffer}. It
 * reads and writes with absolute indexing only, so it never moves the buffer's position and one
 * instance is reused for many batches via {@link #wrap}. Accessors read the bytes as they are;
 * nothing is checked until {@link #ensureValid()} (or {@link #validationError()}) is called, so
 * callers validate before trusting a batch that came from the network or a file.
 *
 * <p>Layout (all integers big-endian; positions relative to the batch start):
 *
 * <pre>
 * pos  field                 type    notes
 *   0  baseOffset            int64   offset of the first record; producers send 0, the leader assigns
 *   8  batchLength           int32   bytes after this field: total size = batchLength + 12
 *  12  partitionLeaderEpoch  int32   stamped by the leader; NOT covered by the CRC
 *  16  magic                 int8    2
 *  17  crc                   uint32  CRC-32C (Castagnoli) of bytes 21 .. end of batch
 *  21  attributes            int16   bits 0-2 codec (0 none,1 gzip,2 snappy,3 lz4,4 zstd),
 *                                    bit 3 timestamp type (1 = LogAppendTime), bit 4 transactional,
 *                                    bit 5 control, bit 6 delete horizon set, 7-15 unused
 *  23  lastOffsetDelta       int32   last offset - baseOffset
 *  27  baseTimestamp         int64   first record's timestamp (ms), -1 if none
 *  35  maxTimestamp          int64   largest record timestamp (ms); broker time with LogAppendTime
 *  43  producerId            int64   -1 when not idempotent
 *  51  producerEpoch         int16   -1 when not idempotent
 *  53  baseSequence          int32   -1 when not idempotent
 *  57  recordsCount          int32   number of records
 *  61  records               ...     uncompressed: records back to back (see {@link RecordCursor});
 *                                    compressed: one blob holding them
 * </pre>
 *
 * <p>Not thread-safe (it is a cursor); the buffer may be shared by readers that do not write.
 */
public final class RecordBatch {
  public static final byte MAGIC = 2;

  /** Bytes before and including the batch length field: baseOffset + batchLength. */
  public static final int LOG_OVERHEAD = 12;

  /** Size of the batch header; the smallest valid batch (no records). */
  public static final int HEADER_SIZE_BYTES = 61;

  public static final int BASE_OFFSET_POSITION = 0;
  public static final int BATCH_LENGTH_POSITION = 8;
  public static final int PARTITION_LEADER_EPOCH_POSITION = 12;
  public static final int MAGIC_POSITION = 16;
  public static final int CRC_POSITION = 17;
  public static final int ATTRIBUTES_POSITION = 21;
  public static final int LAST_OFFSET_DELTA_POSITION = 23;
  public static final int BASE_TIMESTAMP_POSITION = 27;
  public static final int MAX_TIMESTAMP_POSITION = 35;
  public static final int PRODUCER_ID_POSITION = 43;
  public static final int PRODUCER_EPOCH_POSITION = 51;
  public static final int BASE_SEQUENCE_POSITION = 53;
  public static final int RECORDS_COUNT_POSITION = 57;
  public static final int RECORDS_POSITION = 61;

  public static final int COMPRESSION_CODEC_MASK = 0x07;
  public static final int TIMESTAMP_TYPE_MASK = 0x08;
  public static final int TRANSACTIONAL_FLAG_MASK = 0x10;
  public static final int CONTROL_FLAG_MASK = 0x20;
  public static final int DELETE_HORIZON_FLAG_MASK = 0x40;

  public static final long NO_PRODUCER_ID = -1L;
  public static final short NO_PRODUCER_EPOCH = -1;
  public static final int NO_SEQUENCE = -1;
  public static final int NO_PARTITION_LEADER_EPOCH = -1;
  public static final long NO_TIMESTAMP = -1L;

  /**
   * Smallest possible uncompressed record: 7 one-byte fields (length, attributes, deltas, null
   * key/value, 0 headers).
   */
  static final int MIN_RECORD_SIZE_BYTES = 7;

  private ByteBuffer buffer;
  private int position;

  // CRC state reused across batches so that validation allocates nothing in steady state.
  private final CRC32C crc = new CRC32C();
  private ByteBuffer crcSource;
  private ByteBuffer crcView;

  /** Points this view at the batch starting at absolute {@code position} of {@code buffer}. */
  public RecordBatch wrap(ByteBuffer buffer, int position) {
    this.buffer = buffer;
    this.position = position;
    return this;
  }

  /**
   * A new view of the batch at {@code position} (allocates one view; use {@link #wrap} in loops).
   */
  public static RecordBatch at(ByteBuffer buffer, int position) {
    return new RecordBatch().wrap(buffer, position);
  }

  public ByteBuffer buffer() {
    return buffer;
  }

  /** Absolute position of the batch's first byte in {@link #buffer()}. */
  public int position() {
    return position;
  }

  public long baseOffset() {
    return buffer.getLong(position + BASE_OFFSET_POSITION);
  }

  public int batchLength() {
    return buffer.getInt(position + BATCH_LENGTH_POSITION);
  }

  /** Total bytes of the batch: {@code batchLength + 12}. */
  public int sizeInBytes() {
    return batchLength() + LOG_OVERHEAD;
  }

  public int partitionLeaderEpoch() {
    return buffer.getInt(position + PARTITION_LEADER_EPOCH_POSITION);
  }

  public byte magic() {
    return buffer.get(position + MAGIC_POSITION);
  }

  /** The stored CRC as an unsigned 32-bit value. */
  public long checksum() {
    return buffer.getInt(position + CRC_POSITION) & 0xffffffffL;
  }

  public short attributes() {
    return buffer.getShort(position + ATTRIBUTES_POSITION);
  }

  public int lastOffsetDelta() {
    return buffer.getInt(position + LAST_OFFSET_DELTA_POSITION);
  }

  public long lastOffset() {
    return baseOffset() + lastOffsetDelta();
  }

  /** The offset after this batch: {@code lastOffset() + 1}. */
  public long nextOffset() {
    return lastOffset() + 1;
  }

  public long baseTimestamp() {
    return buffer.getLong(position + BASE_TIMESTAMP_POSITION);
  }

  public long maxTimestamp() {
    return buffer.getLong(position + MAX_TIMESTAMP_POSITION);
  }

  public long producerId() {
    return buffer.getLong(position + PRODUCER_ID_POSITION);
  }

  public short producerEpoch() {
    return buffer.getShort(position + PRODUCER_EPOCH_POSITION);
  }

  public int baseSequence() {
    return buffer.getInt(position + BASE_SEQUENCE_POSITION);
  }

  /**
   * The sequence of the last record; sequences wrap from {@link Integer#MAX_VALUE} to 0 as in
   * Kafka. {@link #NO_SEQUENCE} when the batch has none.
   */
  public int lastSequence() {
    int base = baseSequence();
    return base == NO_SEQUENCE ? NO_SEQUENCE : incrementSequence(base, lastOffsetDelta());
  }

  /** {@code sequence + increment} wrapping past {@link Integer#MAX_VALUE} to 0 (Kafka's rule). */
  public static int incrementSequence(int sequence, int increment) {
    if (sequence > Integer.MAX_VALUE - increment) {
      return increment - (Integer.MAX_VALUE - sequence) - 1;
    }
    return sequence + increment;
  }

  public int recordsCount() {
    return buffer.getInt(position + RECORDS_COUNT_POSITION);
  }

  public int compressionCodecId() {
    return attributes() & COMPRESSION_CODEC_MASK;
  }

  /** The codec; throws {@link IllegalArgumentException} for the invalid ids 5–7. */
  public CompressionType compressionType() {
    return CompressionType.forId(compressionCodecId());
  }

  public boolean isCompressed() {
    return compressionCodecId() != CompressionType.NONE.id();
  }

  public TimestampType timestampType() {
    return (attributes() & TIMESTAMP_TYPE_MASK) != 0
        ? TimestampType.LOG_APPEND_TIME
        : TimestampType.CREATE_TIME;
  }

  public boolean isTransactional() {
    return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
  }

  public boolean isControl() {
    return (attributes() & CONTROL_FLAG_MASK) != 0;
  }

  /**
   * Whether the cleaner set this batch's delete horizon (attribute bit 6): then {@link
   * #baseTimestamp()} holds it instead of the first record's timestamp.
   */
  public boolean isDeleteHorizonSet() {
    return (attributes() & DELETE_HORIZON_FLAG_MASK) != 0;
  }

  /**
   * When the tombstones of this batch may go (Kafka's {@code deleteHorizonMs}): its base timestamp
   * when the delete horizon bit is set, else {@link #NO_TIMESTAMP}.
   */
  public long deleteHorizonMs() {
    return isDeleteHorizonSet() ? baseTimestamp() : NO_TIMESTAMP;
  }

  public boolean hasProducerId() {
    return producerId() > NO_PRODUCER_ID;
  }

  // ---- validation ----

  /** CRC-32C of bytes {@code attributes .. end}, computed now. Requires a complete batch. */
  public long computeChecksum() {
    return computeChecksum(buffer, position + ATTRIBUTES_POSITION, position + sizeInBytes());
  }

  private long computeChecksum(ByteBuffer source, int from, int to) {
    crc.reset();
    if (source.hasArray()) {
      crc.update(source.array(), source.arrayOffset() + from, to - from);
    } else {
      if (crcSource != source) {
        crcSource = source;
        crcView = source.duplicate();
      }
      crcView.limit(to).position(from);
      crc.update(crcView);
    }
    return crc.getValue();
  }

  /**
   * Null when the batch is valid, else a short reason. Checks, in order: the size field is
   * readable, size ≥ 61, the batch lies within the buffer's limit, magic is 2, the codec is known,
   * the record count is ≥ 0 and fits the size and the last offset delta, and the CRC. Allocates
   * nothing when valid.
   */
  public String validationError() {
    int available = buffer.limit() - position;
    if (available < LOG_OVERHEAD) {
      return "only " + available + " bytes left, too few for a batch's offset and length";
    }
    int batchLength = batchLength();
    if (batchLength < HEADER_SIZE_BYTES - LOG_OVERHEAD) {
      return "batch length "
          + batchLength
          + " is below the minimum of "
          + (HEADER_SIZE_BYTES - LOG_OVERHEAD);
    }
    if (batchLength > available - LOG_OVERHEAD) {
      return "batch of "
          + (batchLength + (long) LOG_OVERHEAD)
          + " bytes runs past the end ("
          + available
          + " bytes left)";
    }
    byte magic = magic();
    if (magic != MAGIC) {
      return "magic is " + magic + ", expected " + MAGIC;
    }
    if (!CompressionType.isKnown(compressionCodecId())) {
      return "unknown compression codec id " + compressionCodecId();
    }
    String countProblem = countError(batchLength + LOG_OVERHEAD);
    if (countProblem != null) {
      return countProblem;
    }
    long stored = checksum();
    long computed = computeChecksum();
    if (stored != computed) {
      return "CRC mismatch: stored "
          + Long.toHexString(stored)
          + ", computed "
          + Long.toHexString(computed);
    }
    return null;
  }

  private String countError(int sizeInBytes) {
    int count = recordsCount();
    int lastOffsetDelta = lastOffsetDelta();
    if (count < 0) {
      return "negative record count " + count;
    }
    if (lastOffsetDelta < 0) {
      return "negative last offset delta " + lastOffsetDelta;
    }
    // Compaction may leave fewer records than offsets, never more.
    if (count > 0 && count - 1 > lastOffsetDelta) {
      return "record count " + count + " exceeds last offset delta + 1 = " + (lastOffsetDelta + 1L);
    }
    if (!isCompressed() && (long) count * MIN_RECORD_SIZE_BYTES > sizeInBytes - HEADER_SIZE_BYTES) {
      return "record count "
          + count
          + " cannot fit in "
          + (sizeInBytes - HEADER_SIZE_BYTES)
          + " bytes of records";
    }
    return null;
  }

  public boolean isValid() {
    return validationError() == null;
  }

  /** Throws {@link CorruptRecordException} naming the problem and this batch's position. */
  public RecordBatch ensureValid() {
    String problem = validationError();
    if (problem != null) {
      throw new CorruptRecordException(problem, position);
    }
    return this;
  }

  // ---- in-place mutation by the broker ----

  /** Sets the base offset; the CRC does not cover it. */
  public void setBaseOffset(long baseOffset) {
    buffer.putLong(position + BASE_OFFSET_POSITION, baseOffset);
  }

  /** Sets the partition leader epoch; the CRC does not cover it. */
  public void setPartitionLeaderEpoch(int epoch) {
    buffer.putInt(position + PARTITION_LEADER_EPOCH_POSITION, epoch);
  }

  /**
   * Sets the timestamp type bit and the max timestamp, then recomputes the CRC (both fields are
   * covered by it). Used for LogAppendTime, and to correct a CreateTime max timestamp.
   */
  public void setMaxTimestampAndRecomputeCrc(TimestampType type, long maxTimestampMs) {
    short attributes = attributes();
    short updated =
        (short)
            (type == TimestampType.LOG_APPEND_TIME
                ? attributes | TIMESTAMP_TYPE_MASK
                : attributes & ~TIMESTAMP_TYPE_MASK);
    if (updated == attributes && maxTimestamp() == maxTimestampMs) {
      return;
    }
    buffer.putShort(position + ATTRIBUTES_POSITION, updated);
    buffer.putLong(position + MAX_TIMESTAMP_POSITION, maxTimestampMs);
    buffer.putInt(position + CRC_POSITION, (int) computeChecksum());
  }

  @Override
  public String toString() {
    if (buffer == null) {
      return "RecordBatch(unwrapped)";
    }
    if (buffer.limit() - position < HEADER_SIZE_BYTES) {
      return "RecordBatch(truncated at " + position + ")";
    }
    return "RecordBatch(baseOffset="
        + baseOffset()
        + ", lastOffset="
        + lastOffset()
        + ", count="
        + recordsCount()
        + ", size="
        + sizeInBytes()
        + ", epoch="
        + partitionLeaderEpoch()
        + ", producerId="
        + producerId()
        + ", baseSequence="
        + baseSequence()
        + ", codec="
        + compressionCodecId()
        + ", "
        + timestampType()
        + ")";
  }
}
