package dev.spool.record;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A sequence of record batches laid back to back in a buffer, from its position to its limit (what
 * a produce request carries and what a fetch returns). The view does not copy and does not move the
 * buffer's position.
 *
 * <p>{@link #batches()} iterates with validation: every batch must lie within the buffer, have
 * magic 2 and a matching CRC, else a {@link CorruptRecordException} carries the batch's position.
 * The iterator hands out one reused {@link RecordBatch} view: copy what you need before calling
 * {@code next()} again. Not thread-safe.
 */
public final class MemoryRecords implements Iterable<RecordBatch> {
  private final ByteBuffer buffer;
  private final int start;
  private final int end;

  private MemoryRecords(ByteBuffer buffer) {
    this.buffer = buffer;
    this.start = buffer.position();
    this.end = buffer.limit();
  }

  public static MemoryRecords wrap(ByteBuffer buffer) {
    return new MemoryRecords(buffer);
  }

  public ByteBuffer buffer() {
    return buffer;
  }

  public int sizeInBytes() {
    return end - start;
  }

  /** A validating iterator (CRC checked). */
  public BatchIterator batches() {
    return new BatchIterator(true);
  }

  /** An iterator that checks structure (length, magic) but not the CRC, for trusted bytes. */
  public BatchIterator batchesWithoutCrcCheck() {
    return new BatchIterator(false);
  }

  @Override
  public Iterator<RecordBatch> iterator() {
    return batches();
  }

  /** Validating iterator over the batches; see the class comment. */
  public final class BatchIterator implements Iterator<RecordBatch> {
    private final RecordBatch view = new RecordBatch();
    private final boolean checkCrc;
    private int next = start;

    private BatchIterator(boolean checkCrc) {
      this.checkCrc = checkCrc;
    }

    @Override
    public boolean hasNext() {
      return next < end;
    }

    @Override
    public RecordBatch next() {
      if (next >= end) {
        throw new NoSuchElementException();
      }
      ByteBuffer bounded = buffer.limit() == end ? buffer : buffer.duplicate().limit(end);
      view.wrap(bounded, next);
      if (checkCrc) {
        view.ensureValid();
      } else {
        ensureStructure(view, end);
      }
      next += view.sizeInBytes();
      return view;
    }

    /** Position of the next batch (== end of the last returned one). */
    public int nextPosition() {
      return next;
    }
  }

  private static void ensureStructure(RecordBatch batch, int end) {
    int pos = batch.position();
    if (end - pos < RecordBatch.LOG_OVERHEAD) {
      throw new CorruptRecordException((end - pos) + " trailing bytes are not a batch", pos);
    }
    int size = batch.sizeInBytes();
    if (size < RecordBatch.HEADER_SIZE_BYTES || size < 0) {
      throw new CorruptRecordException("batch size " + size + " is below the minimum", pos);
    }
    if (size > end - pos) {
      throw new CorruptRecordException(
          "batch of " + size + " bytes runs past the end (" + (end - pos) + " bytes left)", pos);
    }
    if (batch.magic() != RecordBatch.MAGIC) {
      throw new CorruptRecordException("magic is " + batch.magic() + ", expected 2", pos);
    }
  }
}
