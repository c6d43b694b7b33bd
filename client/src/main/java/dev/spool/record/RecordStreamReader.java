package dev.spool.record;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Reads the records of one batch, compressed or not, from a stream through a small window, keeping
 * no record: for checking every record of a batch from an untrusted source without holding its
 * inflated payload (a leader validating a produce request). It reads each record's fields (layout
 * in {@link RecordCursor}) and skips keys, values and header bodies, counting every inflated byte
 * against a bound: a batch that inflates past it throws {@link RecordTooLargeException} as soon as
 * the bound is crossed, having held at most one window. Optionally every inflated byte is also
 * written to a sink, which is how a batch is recompressed with another codec in the same pass.
 *
 * <p>Errors: a corrupt compressed payload or a malformed record throws {@link
 * CorruptRecordException}; fewer or more records than the batch declares throw {@link
 * InvalidRecordException} ({@link #next()} at the early end, {@link #finish()} for extra bytes).
 * Not thread-safe (it is a cursor); reusable via {@link #reset}.
 */
public final class RecordStreamReader {
  private static final int WINDOW_BYTES = 16 * 1024;

  private final byte[] window = new byte[WINDOW_BYTES];
  private int windowPosition;
  private int windowLimit;

  /** Inflated bytes before the window's first byte. */
  private long windowStart;

  private InputStream in;
  private OutputStream sink;
  private int maxInflatedBytes;
  private CompressionType type;
  private int remainingRecords;
  private int declaredRecords;
  private long baseTimestamp;

  private int recordSizeBytes;
  private int offsetDelta;
  private long timestampDelta;
  private int keyLength;
  private int valueLength;
  private int headerCount;

  /**
   * Starts reading {@code batch}'s records (the batch must be complete: validate it first). {@code
   * maxInflatedBytes} bounds the records' inflated size; {@code sink}, when not null, receives
   * every inflated byte (not closed here).
   */
  public RecordStreamReader reset(RecordBatch batch, int maxInflatedBytes, OutputStream sink) {
    int codec = batch.compressionCodecId();
    if (!CompressionType.isKnown(codec)) {
      throw new UnsupportedCompressionException(codec, batch.position());
    }
    this.type = CompressionType.forId(codec);
    ByteBuffer payload =
        batch
            .buffer()
            .duplicate()
            .limit(batch.position() + batch.sizeInBytes())
            .position(batch.position() + RecordBatch.RECORDS_POSITION);
    try {
      this.in = Compression.wrapForInput(type, payload);
    } catch (IOException | RuntimeException e) {
      throw corrupt(e);
    }
    this.sink = sink;
    this.maxInflatedBytes = maxInflatedBytes;
    this.declaredRecords = batch.recordsCount();
    this.remainingRecords = declaredRecords;
    this.baseTimestamp = batch.baseTimestamp();
    this.windowPosition = 0;
    this.windowLimit = 0;
    this.windowStart = 0;
    return this;
  }

  /**
   * Reads the next record; false once the declared number was read. Throws {@link
   * InvalidRecordException} when the payload ends before that.
   */
  public boolean next() {
    if (remainingRecords <= 0) {
      return false;
    }
    int index = declaredRecords - remainingRecords;
    if (!fill()) {
      throw new InvalidRecordException(
          "batch declares "
              + declaredRecords
              + " records but its "
              + type.displayName()
              + " payload holds "
              + index);
    }
    remainingRecords--;
    long start = inflatedPosition();
    int bodySize = readVarint();
    if (bodySize < 0) {
      throw new CorruptRecordException("record " + index + " has length " + bodySize, start);
    }
    long bodyStart = inflatedPosition();
    readByte(); // attributes: unused
    timestampDelta = readVarlong();
    offsetDelta = readVarint();
    keyLength = readVarint();
    skipNullable(keyLength, "key", index);
    valueLength = readVarint();
    skipNullable(valueLength, "value", index);
    headerCount = readVarint();
    if (headerCount < 0) {
      throw new CorruptRecordException(
          "record " + index + " has a negative header count " + headerCount, start);
    }
    for (int i = 0; i < headerCount; i++) {
      int headerKeyLength = readVarint();
      if (headerKeyLength < 0) {
        throw new CorruptRecordException(
            "record " + index + " has a null or negative header key length", start);
      }
      skip(headerKeyLength);
      skipNullable(readVarint(), "header value", index);
    }
    long used = inflatedPosition() - bodyStart;
    if (used != bodySize) {
      throw new CorruptRecordException(
          "record " + index + " declares " + bodySize + " bytes but its fields use " + used, start);
    }
    recordSizeBytes = (int) (inflatedPosition() - start);
    return true;
  }

  /**
   * Checks that nothing follows the last declared record (throws {@link InvalidRecordException} if
   * something does) and releases the codec's stream. Call after {@link #next()} returned false.
   */
  public void finish() {
    try {
      if (fill()) {
        throw new InvalidRecordException(
            "batch declares "
                + declaredRecords
                + " records but its "
                + type.displayName()
                + " payload holds more bytes after them");
      }
    } finally {
      close();
    }
  }

  /** Releases the codec's stream (native contexts) without further checks; safe to repeat. */
  public void close() {
    InputStream s = in;
    in = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // Closing an in-memory source frees buffers only; nothing to report.
      }
    }
  }

  /** Inflated bytes read so far. */
  public long inflatedBytes() {
    return inflatedPosition();
  }

  /** Size of the current record in the inflated records, length field included. */
  public int recordSizeInBytes() {
    return recordSizeBytes;
  }

  public int offsetDelta() {
    return offsetDelta;
  }

  /** The record's CreateTime: the batch's base timestamp plus its delta. */
  public long timestamp() {
    return baseTimestamp + timestampDelta;
  }

  /** -1 for a null key. */
  public int keyLength() {
    return keyLength;
  }

  /** -1 for a null value (a tombstone). */
  public int valueLength() {
    return valueLength;
  }

  public int headerCount() {
    return headerCount;
  }

  // ---- the window ----

  private long inflatedPosition() {
    return windowStart + windowPosition;
  }

  /** Makes at least one byte available; false at the end of the payload. */
  private boolean fill() {
    if (windowPosition < windowLimit) {
      return true;
    }
    if (in == null) {
      return false;
    }
    int n;
    try {
      do {
        n = in.read(window, 0, WINDOW_BYTES);
      } while (n == 0);
    } catch (IOException | RuntimeException e) {
      throw corrupt(e);
    }
    if (n < 0) {
      return false;
    }
    windowStart += windowLimit;
    windowPosition = 0;
    windowLimit = n;
    if (windowStart + n > maxInflatedBytes) {
      throw new RecordTooLargeException(
          "batch's " + type.displayName() + " payload inflated",
          (int) Math.min(Integer.MAX_VALUE, windowStart + n),
          maxInflatedBytes);
    }
    if (sink != null) {
      try {
        sink.write(window, 0, n);
      } catch (IOException e) {
        throw new IllegalStateException("cannot write inflated records to the sink", e);
      }
    }
    return true;
  }

  private CorruptRecordException corrupt(Exception e) {
    return new CorruptRecordException(
        "corrupt " + type.displayName() + " payload: " + e.getMessage(), inflatedPosition());
  }

  private byte readByte() {
    if (!fill()) {
      throw new CorruptRecordException(
          "the " + type.displayName() + " payload ends inside a record", inflatedPosition());
    }
    return window[windowPosition++];
  }

  private int readVarint() {
    int value = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      int b = readByte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (value >>> 1) ^ -(value & 1);
      }
    }
    throw new CorruptRecordException("varint longer than 5 bytes", inflatedPosition());
  }

  private long readVarlong() {
    long value = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      long b = readByte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (value >>> 1) ^ -(value & 1);
      }
    }
    throw new CorruptRecordException("varlong longer than 10 bytes", inflatedPosition());
  }

  private void skipNullable(int length, String what, int index) {
    if (length < -1) {
      throw new CorruptRecordException(
          "record " + index + " has an invalid " + what + " length " + length, inflatedPosition());
    }
    if (length > 0) {
      skip(length);
    }
  }

  private void skip(long length) {
    while (length > 0) {
      if (!fill()) {
        throw new CorruptRecordException(
            "the " + type.displayName() + " payload ends inside a record", inflatedPosition());
      }
      int n = (int) Math.min(length, windowLimit - windowPosition);
      windowPosition += n;
      length -= n;
    }
  }
}
