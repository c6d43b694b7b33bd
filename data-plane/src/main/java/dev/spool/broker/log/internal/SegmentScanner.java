package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogStorageException;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Reads the batches of a segment file sequentially through one buffer (large positional reads, no
 * per-batch system call). Two modes:
 *
 * <ul>
 *   <li>whole batches: every returned batch is entirely in the buffer and fully validated (size,
 *       magic, codec, count, CRC): what recovery needs;
 *   <li>headers only: only the 61-byte header is guaranteed in the buffer and only the structure is
 *       checked (size within the file, magic): for producer-state replay and tail scans.
 * </ul>
 *
 * A problem ends the scan with {@link CorruptRecordException} whose position is the FILE position
 * of the bad batch. Single-threaded; owns its buffer.
 */
public final class SegmentScanner {
  private final FileChannel channel;
  private final Path file;
  private final long endPosition;
  private final boolean wholeBatches;
  private ByteBuffer buffer;
  private long bufferFilePosition; // file position of buffer index 0
  private long nextPosition; // file position of the next batch
  private long batchPosition = -1;
  private final RecordBatch view = new RecordBatch();

  public SegmentScanner(
      FileChannel channel,
      Path file,
      long startPosition,
      long endPosition,
      int bufferBytes,
      boolean wholeBatches) {
    this.channel = channel;
    this.file = file;
    this.endPosition = endPosition;
    this.wholeBatches = wholeBatches;
    this.buffer = allocate(Math.max(bufferBytes, RecordBatch.HEADER_SIZE_BYTES));
    this.buffer.limit(0);
    this.bufferFilePosition = startPosition;
    this.nextPosition = startPosition;
  }

  /**
   * Large scan buffers are direct (one copy less per read, CRC straight from native memory); small
   * ones live on the heap, so opening thousands of partitions does not eat the direct memory limit
   * (which defaults to the heap size) with transient buffers.
   */
  private static ByteBuffer allocate(int bytes) {
    return bytes >= 256 * 1024 ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes);
  }

  /** File position of the batch last returned by {@link #next()}. */
  public long batchPosition() {
    return batchPosition;
  }

  /** File position after the last batch returned: where a truncation would cut. */
  public long nextPosition() {
    return nextPosition;
  }

  /** The next batch, or null at the end of the range. The view is reused by the next call. */
  public RecordBatch next() {
    long remaining = endPosition - nextPosition;
    if (remaining <= 0) {
      return null;
    }
    if (remaining < RecordBatch.HEADER_SIZE_BYTES) {
      throw new CorruptRecordException(
          "a partial batch header of " + remaining + " bytes ends the file", nextPosition);
    }
    ensureBuffered(RecordBatch.HEADER_SIZE_BYTES);
    int at = (int) (nextPosition - bufferFilePosition);
    view.wrap(buffer, at);
    long size = (long) view.batchLength() + RecordBatch.LOG_OVERHEAD;
    if (size < RecordBatch.HEADER_SIZE_BYTES) {
      throw new CorruptRecordException(
          "batch size " + size + " is below the minimum of " + RecordBatch.HEADER_SIZE_BYTES,
          nextPosition);
    }
    if (size > remaining) {
      throw new CorruptRecordException(
          "batch of "
              + size
              + " bytes runs past the end of the file ("
              + remaining
              + " bytes left)",
          nextPosition);
    }
    if (view.magic() != RecordBatch.MAGIC) {
      throw new CorruptRecordException("magic is " + view.magic() + ", expected 2", nextPosition);
    }
    if (wholeBatches) {
      ensureBuffered((int) size);
      at = (int) (nextPosition - bufferFilePosition);
      view.wrap(buffer, at); // the whole batch is buffered: the limit does not cut it
      String problem = view.validationError();
      if (problem != null) {
        throw new CorruptRecordException(problem, nextPosition);
      }
    }
    batchPosition = nextPosition;
    nextPosition += size;
    return view;
  }

  /** Makes sure {@code bytes} from {@code nextPosition} are in the buffer (grows it if needed). */
  private void ensureBuffered(int bytes) {
    long bufferedEnd = bufferFilePosition + buffer.limit();
    if (nextPosition >= bufferFilePosition && nextPosition + bytes <= bufferedEnd) {
      return;
    }
    if (bytes > buffer.capacity()) {
      buffer = allocate(bytes);
    }
    buffer.clear();
    bufferFilePosition = nextPosition;
    long toRead = Math.min(buffer.capacity(), endPosition - nextPosition);
    buffer.limit((int) toRead);
    try {
      while (buffer.hasRemaining()) {
        int n = channel.read(buffer, bufferFilePosition + buffer.position());
        if (n < 0) {
          break;
        }
      }
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot read " + file + " at " + nextPosition + ": " + e.getMessage(), e);
    }
    buffer.flip();
    if (buffer.limit() < bytes) {
      throw new CorruptRecordException(
          "file ends after " + buffer.limit() + " of " + bytes + " bytes", nextPosition);
    }
  }
}
