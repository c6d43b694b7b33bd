package dev.spool.record;

import dev.spool.record.internal.ByteBufferOutputStream;
import dev.spool.record.internal.Varint;
import dev.spool.record.internal.VarintReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * Writes what log compaction keeps of record batches, back to back, into one growing buffer: a
 * batch unchanged ({@link #copy}), a batch reduced to some of its records ({@link #begin}, {@link
 * #retain} per kept record, {@link #end}), or a batch reduced to its header ({@link
 * #writeEmptyHeader}) — Kafka's cleaner output, byte for byte the same layout:
 *
 * <ul>
 *   <li>the base offset and the last offset delta stay, so offsets are preserved and the last
 *       sequence of an idempotent producer survives; the record count shrinks; size and CRC are
 *       recomputed;
 *   <li>a record keeps its bytes (offset and timestamp deltas are relative to the unchanged base)
 *       unless the batch gets a delete horizon: then the base timestamp becomes the horizon
 *       (attribute bit 6) and each record's timestamp delta is re-encoded against it;
 *   <li>the max timestamp is that of the kept records (CreateTime) or stays (LogAppendTime);
 *   <li>a compressed batch keeps its codec: the kept records are compressed again with it at the
 *       codec's default level, as Kafka's cleaner does (it too builds the cleaned batch with the
 *       codec's default, not the topic's level);
 *   <li>an empty batch (kept only for its producer fields or its last offset) is an uncompressed
 *       61-byte header with count 0 whose timestamps are the original max timestamp.
 * </ul>
 *
 * Kept records are given as (buffer, position, size) of a record in its encoded form (see {@link
 * RecordCursor#recordPosition()}); for a compressed batch those are the inflated records. Not
 * thread-safe; reused.
 */
public final class RetainedBatchWriter {
  private final VarintReader reader = new VarintReader();
  private ByteBuffer out;
  private final RecordBatch view = new RecordBatch();

  /** Where the kept records of a compressed batch are compressed before they follow its header. */
  private ByteBufferOutputStream compressed = new ByteBufferOutputStream(0);

  private Compression compression = Compression.NONE;

  private int batchStart = -1;
  private long originalBaseTimestamp;
  private long newBaseTimestamp;
  private boolean rebase;
  private boolean logAppendTime;
  private long originalMaxTimestamp;
  private long maxTimestamp;
  private int count;

  public RetainedBatchWriter(int initialCapacityBytes) {
    this.out = ByteBuffer.allocate(Math.max(initialCapacityBytes, RecordBatch.HEADER_SIZE_BYTES));
  }

  /** The output: batches from 0 to its position. Changes when the writer grows. */
  public ByteBuffer buffer() {
    return out;
  }

  /** Forgets what was written (the buffer is kept). */
  public void clear() {
    out.clear();
    batchStart = -1;
  }

  /** Shrinks the buffer back to {@code capacityBytes} when a large batch grew it. */
  public void shrinkTo(int capacityBytes) {
    if (out.capacity() > capacityBytes && out.position() == 0) {
      out = ByteBuffer.allocate(capacityBytes);
    }
    if (compressed.buffer().capacity() > capacityBytes) {
      compressed = new ByteBufferOutputStream(0);
    }
  }

  /** Copies {@code batch} unchanged. */
  public void copy(RecordBatch batch) {
    ensureRoom(batch.sizeInBytes());
    ByteBuffer src = batch.buffer().duplicate();
    src.limit(batch.position() + batch.sizeInBytes()).position(batch.position());
    out.put(src);
  }

  /**
   * Writes {@code batch}'s header alone: count 0, no records, uncompressed, its offsets, producer
   * fields, epoch and flags kept, both timestamps set to its max timestamp.
   */
  public void writeEmptyHeader(RecordBatch batch) {
    ensureRoom(RecordBatch.HEADER_SIZE_BYTES);
    int at = out.position();
    copyHeader(batch, at);
    short attributes =
        (short)
            (batch.attributes()
                & ~RecordBatch.COMPRESSION_CODEC_MASK
                & ~RecordBatch.DELETE_HORIZON_FLAG_MASK);
    out.putInt(
        at + RecordBatch.BATCH_LENGTH_POSITION,
        RecordBatch.HEADER_SIZE_BYTES - RecordBatch.LOG_OVERHEAD);
    out.putShort(at + RecordBatch.ATTRIBUTES_POSITION, attributes);
    out.putLong(at + RecordBatch.BASE_TIMESTAMP_POSITION, batch.maxTimestamp());
    out.putLong(at + RecordBatch.MAX_TIMESTAMP_POSITION, batch.maxTimestamp());
    out.putInt(at + RecordBatch.RECORDS_COUNT_POSITION, 0);
    out.position(at + RecordBatch.HEADER_SIZE_BYTES);
    finishCrc(at);
  }

  /**
   * Starts a reduced copy of {@code batch}. {@code deleteHorizonMs} is the horizon to set (the
   * batch must not have one yet), or {@link RecordBatch#NO_TIMESTAMP} to keep its header as is.
   */
  public void begin(RecordBatch batch, long deleteHorizonMs) {
    if (deleteHorizonMs != RecordBatch.NO_TIMESTAMP && batch.isDeleteHorizonSet()) {
      throw new IllegalArgumentException("the batch already has a delete horizon");
    }
    ensureRoom(RecordBatch.HEADER_SIZE_BYTES);
    batchStart = out.position();
    copyHeader(batch, batchStart);
    out.position(batchStart + RecordBatch.HEADER_SIZE_BYTES);
    originalBaseTimestamp = batch.baseTimestamp();
    rebase = deleteHorizonMs != RecordBatch.NO_TIMESTAMP;
    newBaseTimestamp = rebase ? deleteHorizonMs : originalBaseTimestamp;
    logAppendTime = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
    compression = Compression.of(batch.compressionType());
    originalMaxTimestamp = batch.maxTimestamp();
    maxTimestamp = RecordBatch.NO_TIMESTAMP;
    count = 0;
  }

  /** Keeps the encoded record of {@code size} bytes at {@code position} of {@code src}. */
  public void retain(ByteBuffer src, int position, int size) {
    reader.reset(src, position, position + size);
    int bodySize = reader.readVarint();
    reader.readByte(); // attributes
    int deltaStart = reader.position();
    long delta = reader.readVarlong();
    int restStart = reader.position();
    long timestamp = originalBaseTimestamp + delta;
    maxTimestamp = Math.max(maxTimestamp, timestamp);
    count++;
    if (!rebase) {
      ensureRoom(size);
      ByteBuffer raw = src.duplicate();
      raw.limit(position + size).position(position);
      out.put(raw);
      return;
    }
    long newDelta = timestamp - newBaseTimestamp;
    int newBodySize = bodySize - (restStart - deltaStart) + Varint.sizeOfVarlong(newDelta);
    ensureRoom(Varint.sizeOfVarint(newBodySize) + newBodySize);
    Varint.writeVarint(newBodySize, out);
    out.put((byte) 0);
    Varint.writeVarlong(newDelta, out);
    ByteBuffer rest = src.duplicate();
    rest.limit(position + size).position(restStart);
    out.put(rest);
  }

  /** Records kept since {@link #begin}. */
  public int retainedCount() {
    return count;
  }

  /** Finishes the batch begun last: count, length, timestamps, attributes, CRC. */
  public void end() {
    if (batchStart < 0) {
      throw new IllegalStateException("no batch begun");
    }
    int at = batchStart;
    batchStart = -1;
    if (compression.type() != CompressionType.NONE) {
      compressRecords(at + RecordBatch.RECORDS_POSITION);
    }
    out.putInt(
        at + RecordBatch.BATCH_LENGTH_POSITION, out.position() - at - RecordBatch.LOG_OVERHEAD);
    out.putInt(at + RecordBatch.RECORDS_COUNT_POSITION, count);
    out.putLong(
        at + RecordBatch.MAX_TIMESTAMP_POSITION,
        logAppendTime ? originalMaxTimestamp : maxTimestamp);
    if (rebase) {
      short attributes = out.getShort(at + RecordBatch.ATTRIBUTES_POSITION);
      out.putShort(
          at + RecordBatch.ATTRIBUTES_POSITION,
          (short) (attributes | RecordBatch.DELETE_HORIZON_FLAG_MASK));
      out.putLong(at + RecordBatch.BASE_TIMESTAMP_POSITION, newBaseTimestamp);
    }
    finishCrc(at);
  }

  /** Replaces the records written from {@code recordsStart} on by their compressed form. */
  private void compressRecords(int recordsStart) {
    ByteBuffer records = out.duplicate();
    records.limit(out.position()).position(recordsStart);
    compressed.buffer().clear();
    try (OutputStream c = compression.wrapForOutput(compressed)) {
      Compression.writeTo(records, c);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress a cleaned batch with " + compression, e);
    }
    ByteBuffer blob = compressed.buffer().flip();
    out.position(recordsStart);
    ensureRoom(blob.remaining());
    out.put(blob);
  }

  private void copyHeader(RecordBatch batch, int at) {
    ByteBuffer header = batch.buffer().duplicate();
    header.limit(batch.position() + RecordBatch.HEADER_SIZE_BYTES).position(batch.position());
    out.put(at, header, header.position(), RecordBatch.HEADER_SIZE_BYTES);
  }

  private void finishCrc(int at) {
    view.wrap(out, at);
    out.putInt(at + RecordBatch.CRC_POSITION, (int) view.computeChecksum());
  }

  private void ensureRoom(int bytes) {
    if (out.remaining() >= bytes) {
      return;
    }
    long wanted = Math.max(2L * out.capacity(), (long) out.position() + bytes);
    if (wanted > Integer.MAX_VALUE - 8) {
      throw new RecordTooLargeException(
          "cleaned batches", (int) Math.min(wanted, Integer.MAX_VALUE), Integer.MAX_VALUE - 8);
    }
    ByteBuffer bigger = ByteBuffer.allocate((int) wanted);
    out.flip();
    bigger.put(out);
    out = bigger;
  }
}
