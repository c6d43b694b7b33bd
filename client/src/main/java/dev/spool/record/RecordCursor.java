package dev.spool.record;

import dev.spool.record.internal.Codecs;
import dev.spool.record.internal.VarintReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Iterates the records of one batch without allocating: after {@link #next()} the accessors
 * describe the current record, and key, value and headers are exposed as absolute (position,
 * length) pairs into {@link #buffer()} (length -1 = null). The convenience methods that return
 * slices or strings allocate and are meant for tests and tools.
 *
 * <p>A compressed batch is inflated whole by {@link #reset} into an array the cursor keeps and
 * reuses for the next batch (so {@link #buffer()} is that array then, not the batch's buffer): the
 * records are then read exactly as uncompressed ones. {@link #maxInflatedBytes} bounds it; a batch
 * inflating past it throws {@link RecordTooLargeException}. To check a batch from an untrusted
 * source without holding its inflated records, use {@link RecordStreamReader}.
 *
 * <p>Record layout (zig-zag varints, see {@code internal.Varint}):
 *
 * <pre>
 * length          varint   bytes after this field
 * attributes      int8     unused, 0
 * timestampDelta  varlong  timestamp - batch baseTimestamp
 * offsetDelta     varint   offset - batch baseOffset
 * keyLength       varint   -1 = null key
 * key             bytes
 * valueLength     varint   -1 = null value
 * value           bytes
 * headersCount    varint
 * headers         headersCount x { keyLength varint, key UTF-8, valueLength varint (-1 = null), value }
 * </pre>
 *
 * <p>A corrupt compressed payload or a malformed record throws {@link CorruptRecordException} with
 * its position; an unknown codec id (5–7) throws {@link UnsupportedCompressionException}. Not
 * thread-safe (it is a cursor).
 */
public final class RecordCursor {
  private final VarintReader reader = new VarintReader();
  private final VarintReader headerReader = new VarintReader();

  /** The least free room each read of a codec stream is offered (lz4's block maximum). */
  private static final int READ_CHUNK_BYTES = 64 * 1024;

  /** Inflated records of the last compressed batch; kept to be reused by the next one. */
  private byte[] inflated = new byte[0];

  private ByteBuffer inflatedView = ByteBuffer.wrap(inflated);
  private int maxInflatedBytes = Integer.MAX_VALUE - 16;

  private ByteBuffer buffer;
  private int recordsEnd;
  private int remainingRecords;
  private long baseOffset;
  private long baseTimestamp;
  private boolean logAppendTime;
  private long maxTimestamp;

  private int recordPosition;
  private long offset;
  private long timestamp;
  private int keyPosition;
  private int keyLength;
  private int valuePosition;
  private int valueLength;
  private int headerCount;
  private int headersPosition;

  private int headersLeft;
  private int headerKeyPosition;
  private int headerKeyLength;
  private int headerValuePosition;
  private int headerValueLength;

  /**
   * Bounds what one compressed batch may inflate to (default: the largest array). A consumer reads
   * what its broker accepted; a broker re-reading its own log relies on the bound it checked on
   * append.
   */
  public RecordCursor maxInflatedBytes(int bytes) {
    this.maxInflatedBytes = bytes;
    return this;
  }

  /**
   * Positions the cursor before the first record of {@code batch}, inflating it first when it is
   * compressed. The batch must be complete (validate it first).
   */
  public RecordCursor reset(RecordBatch batch) {
    int codec = batch.compressionCodecId();
    int recordsStart;
    if (codec == CompressionType.NONE.id()) {
      this.buffer = batch.buffer();
      recordsStart = batch.position() + RecordBatch.RECORDS_POSITION;
      this.recordsEnd = batch.position() + batch.sizeInBytes();
    } else {
      if (!CompressionType.isKnown(codec)) {
        throw new UnsupportedCompressionException(codec, batch.position());
      }
      this.recordsEnd = inflate(batch, CompressionType.forId(codec));
      this.buffer = inflatedView;
      recordsStart = 0;
    }
    this.remainingRecords = batch.recordsCount();
    this.baseOffset = batch.baseOffset();
    this.baseTimestamp = batch.baseTimestamp();
    this.logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
    this.maxTimestamp = batch.maxTimestamp();
    reader.reset(buffer, recordsStart, recordsEnd);
    this.headersLeft = 0;
    return this;
  }

  /** Inflates the records of {@code batch} into {@link #inflated}; returns their length. */
  private int inflate(RecordBatch batch, CompressionType type) {
    int start = batch.position() + RecordBatch.RECORDS_POSITION;
    ByteBuffer payload =
        batch.buffer().duplicate().limit(batch.position() + batch.sizeInBytes()).position(start);
    if (inflated.length == 0) {
      grow((int) Math.min(maxInflatedBytes, Math.max(64 * 1024, 4L * payload.remaining())));
    }
    int oneShot = inflateOneShot(batch, type, payload);
    if (oneShot != Codecs.NO_ONE_SHOT) {
      return oneShot;
    }
    int length = 0;
    try (InputStream in = Compression.wrapForInput(type, payload)) {
      while (true) {
        if (inflated.length - length < READ_CHUNK_BYTES && inflated.length < maxInflatedBytes) {
          // Room for a whole codec block lets the codec inflate straight into the array.
          grow((int) Math.min(maxInflatedBytes, Math.max(2L * inflated.length, READ_CHUNK_BYTES)));
        }
        if (length == inflated.length) {
          if (in.read() < 0) {
            break;
          }
          throw new RecordTooLargeException(
              "inflated " + type.displayName() + " batch", length + 1, maxInflatedBytes);
        }
        int n = in.read(inflated, length, inflated.length - length);
        if (n < 0) {
          break;
        }
        length += n;
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof RecordTooLargeException tooLarge) {
        throw tooLarge;
      }
      throw new CorruptRecordException(
          "corrupt " + type.displayName() + " payload: " + e.getMessage(), batch.position());
    }
    return length;
  }

  /**
   * Inflates {@code payload} in one call where the codec can (zstd), doubling {@link #inflated}
   * until it fits: the array is kept, so after the first batches a call never retries. Returns the
   * length, or {@link Codecs#NO_ONE_SHOT} for codecs read through a stream.
   */
  private int inflateOneShot(RecordBatch batch, CompressionType type, ByteBuffer payload) {
    try {
      while (true) {
        int n = Codecs.inflateInto(type, payload, inflated);
        if (n != -1) {
          return n;
        }
        if (inflated.length >= maxInflatedBytes) {
          throw new RecordTooLargeException(
              "inflated " + type.displayName() + " batch", inflated.length + 1, maxInflatedBytes);
        }
        // The old contents are garbage after a failed call: allocate without copying them.
        long bigger = Math.max(2L * inflated.length, READ_CHUNK_BYTES);
        inflated = new byte[(int) Math.min(maxInflatedBytes, bigger)];
        inflatedView = ByteBuffer.wrap(inflated);
      }
    } catch (IOException e) {
      throw new CorruptRecordException(
          "corrupt " + type.displayName() + " payload: " + e.getMessage(), batch.position());
    }
  }

  private void grow(int capacity) {
    byte[] bigger = new byte[capacity];
    System.arraycopy(inflated, 0, bigger, 0, Math.min(inflated.length, capacity));
    inflated = bigger;
    inflatedView = ByteBuffer.wrap(bigger);
  }

  /** Advances to the next record; false after the last one. */
  public boolean next() {
    if (remainingRecords <= 0) {
      return false;
    }
    remainingRecords--;
    recordPosition = reader.position();
    int bodySize = reader.readVarint();
    if (bodySize < 0 || bodySize > reader.remaining()) {
      throw new CorruptRecordException(
          "record length "
              + bodySize
              + " does not fit in the "
              + reader.remaining()
              + " bytes left in its batch",
          recordPosition);
    }
    int bodyEnd = reader.position() + bodySize;
    VarintReader body = reader;
    int outerLimit = body.limit();
    body.reposition(body.position(), bodyEnd);
    body.readByte(); // attributes: unused
    long timestampDelta = body.readVarlong();
    timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    offset = baseOffset + body.readVarint();
    keyLength = body.readVarint();
    keyPosition = body.position();
    skipNullable(body, keyLength, "key");
    valueLength = body.readVarint();
    valuePosition = body.position();
    skipNullable(body, valueLength, "value");
    headerCount = body.readVarint();
    if (headerCount < 0) {
      throw new CorruptRecordException("negative header count " + headerCount, recordPosition);
    }
    headersPosition = body.position();
    for (int i = 0; i < headerCount; i++) {
      int keyLen = body.readVarint();
      if (keyLen < 0) {
        throw new CorruptRecordException("null or negative header key length", recordPosition);
      }
      body.skip(keyLen);
      skipNullable(body, body.readVarint(), "header value");
    }
    if (body.position() != bodyEnd) {
      throw new CorruptRecordException(
          "record declares "
              + bodySize
              + " bytes but its fields use "
              + (body.position() - (bodyEnd - bodySize)),
          recordPosition);
    }
    reader.reposition(bodyEnd, outerLimit);
    headersLeft = headerCount;
    if (headerCount > 0) {
      headerReader.reset(buffer, headersPosition, bodyEnd);
    }
    return true;
  }

  private void skipNullable(VarintReader body, int length, String what) {
    if (length < -1) {
      throw new CorruptRecordException("invalid " + what + " length " + length, recordPosition);
    }
    if (length > 0) {
      body.skip(length);
    }
  }

  /** True when every record was consumed and they filled the batch exactly. */
  public boolean consumedExactly() {
    return remainingRecords == 0 && reader.position() == recordsEnd;
  }

  /** Bytes not yet consumed by {@link #next()} in the batch. */
  public int remainingBytes() {
    return recordsEnd - reader.position();
  }

  public ByteBuffer buffer() {
    return buffer;
  }

  public long offset() {
    return offset;
  }

  /** Position in {@link #buffer()} of the current record's first byte (its length varint). */
  public int recordPosition() {
    return recordPosition;
  }

  /** Bytes of the current record, its length varint included: it ends where the next begins. */
  public int recordSizeInBytes() {
    return reader.position() - recordPosition;
  }

  /** The record's timestamp; with LogAppendTime, the batch's max timestamp. */
  public long timestamp() {
    return timestamp;
  }

  public int keyPosition() {
    return keyPosition;
  }

  /** Key length in bytes, -1 for a null key. */
  public int keyLength() {
    return keyLength;
  }

  public int valuePosition() {
    return valuePosition;
  }

  /** Value length in bytes, -1 for a null value. */
  public int valueLength() {
    return valueLength;
  }

  public int headerCount() {
    return headerCount;
  }

  /** Advances to the current record's next header; false after the last one. */
  public boolean nextHeader() {
    if (headersLeft <= 0) {
      return false;
    }
    headersLeft--;
    headerKeyLength = headerReader.readVarint();
    headerKeyPosition = headerReader.position();
    headerReader.skip(headerKeyLength);
    headerValueLength = headerReader.readVarint();
    headerValuePosition = headerReader.position();
    if (headerValueLength > 0) {
      headerReader.skip(headerValueLength);
    }
    return true;
  }

  /** -1 for a null header value. */
  public int headerValueLength() {
    return headerValueLength;
  }

  // ---- allocating conveniences for tools and tests ----

  /** The key as a read-only slice, or null. Allocates. */
  public ByteBuffer key() {
    return slice(keyPosition, keyLength);
  }

  /** The value as a read-only slice, or null. Allocates. */
  public ByteBuffer value() {
    return slice(valuePosition, valueLength);
  }

  public String keyAsString() {
    return string(keyPosition, keyLength);
  }

  public String valueAsString() {
    return string(valuePosition, valueLength);
  }

  public String headerKeyAsString() {
    return string(headerKeyPosition, headerKeyLength);
  }

  public byte[] headerValueAsBytes() {
    return bytes(headerValuePosition, headerValueLength);
  }

  private ByteBuffer slice(int pos, int len) {
    if (len < 0) {
      return null;
    }
    return buffer.asReadOnlyBuffer().limit(pos + len).position(pos).slice();
  }

  private byte[] bytes(int pos, int len) {
    if (len < 0) {
      return null;
    }
    byte[] out = new byte[len];
    buffer.get(pos, out);
    return out;
  }

  private String string(int pos, int len) {
    byte[] b = bytes(pos, len);
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
