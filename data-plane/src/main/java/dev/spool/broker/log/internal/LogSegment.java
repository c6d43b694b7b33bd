package dev.spool.broker.log.internal;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.LogStorageException;
import dev.spool.broker.log.TimestampAndOffset;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One segment: a {@code .log} file of record batches back to back (exactly as appended; see {@link
 * RecordBatch} for the layout) plus its {@link OffsetIndex} and {@link TimeIndex}, all named by the
 * segment's base offset as 20 zero-padded digits.
 *
 * <p>Threads: the partition's owner thread appends, truncates, rolls and closes. Any thread may
 * read: the committed size is a volatile published after the bytes are written (and before the
 * index entries that point at them), so a reader never sees an index entry or size that covers
 * unwritten bytes. A truncation concurrent with a read can make that read return a shorter file
 * region than announced; truncation happens only on followers diverging from a new leader.
 */
public final class LogSegment {
  public static final String LOG_SUFFIX = ".log";
  public static final String INDEX_SUFFIX = ".index";
  public static final String TIME_INDEX_SUFFIX = ".timeindex";
  public static final String DELETED_SUFFIX = ".deleted";

  /** A segment the cleaner is writing: not part of the log; deleted by recovery. */
  public static final String CLEANED_SUFFIX = ".cleaned";

  /**
   * A cleaned segment committed to replace the segments its offsets cover; recovery completes the
   * replacement (docs/architecture.md#compaction).
   */
  public static final String SWAP_SUFFIX = ".swap";

  private static final int HEADER_SCAN_BUFFER_BYTES = 16 * 1024;

  private final long baseOffset;
  private final Path dir;
  private volatile String fileSuffix;
  private volatile Path logFile;
  private final FileChannel channel;
  private final OffsetIndex offsetIndex;
  private final TimeIndex timeIndex;
  private final long createdMs;
  private volatile int sizeBytes;
  private volatile long maxTimestamp = RecordBatch.NO_TIMESTAMP;
  private static final long UNKNOWN_TIMESTAMP = Long.MIN_VALUE;
  private volatile long firstBatchTimestamp = UNKNOWN_TIMESTAMP;
  private long offsetOfMaxTimestamp = -1;
  private int bytesSinceLastIndexEntry;
  // Owner-thread scratch for header reads during appends/truncation.
  private final RecordBatch ownerView = new RecordBatch();

  private LogSegment(
      long baseOffset,
      Path dir,
      String fileSuffix,
      Path logFile,
      FileChannel channel,
      OffsetIndex offsetIndex,
      TimeIndex timeIndex,
      int sizeBytes,
      long createdMs) {
    this.baseOffset = baseOffset;
    this.dir = dir;
    this.fileSuffix = fileSuffix;
    this.logFile = logFile;
    this.channel = channel;
    this.offsetIndex = offsetIndex;
    this.timeIndex = timeIndex;
    this.sizeBytes = sizeBytes;
    this.createdMs = createdMs;
  }

  public static String filenamePrefix(long offset) {
    return String.format("%020d", offset);
  }

  public static Path logFile(Path dir, long baseOffset) {
    return dir.resolve(filenamePrefix(baseOffset) + LOG_SUFFIX);
  }

  public static Path offsetIndexFile(Path dir, long baseOffset) {
    return dir.resolve(filenamePrefix(baseOffset) + INDEX_SUFFIX);
  }

  public static Path timeIndexFile(Path dir, long baseOffset) {
    return dir.resolve(filenamePrefix(baseOffset) + TIME_INDEX_SUFFIX);
  }

  /**
   * Opens (or creates) the segment at {@code baseOffset}; an active segment gets full-size indexes.
   */
  public static LogSegment open(
      Path dir, long baseOffset, int maxIndexBytes, boolean active, long nowMs) {
    return open(dir, baseOffset, "", maxIndexBytes, active, nowMs);
  }

  /**
   * Opens (or creates) the segment at {@code baseOffset} whose three file names end with {@code
   * fileSuffix} after their usual suffix ({@link #CLEANED_SUFFIX} while the cleaner writes it).
   */
  public static LogSegment open(
      Path dir, long baseOffset, String fileSuffix, int maxIndexBytes, boolean active, long nowMs) {
    Path file = withSuffix(logFile(dir, baseOffset), fileSuffix);
    FileChannel channel = null;
    try {
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      long size = channel.size();
      if (size > Integer.MAX_VALUE) {
        throw new LogStorageException(
            "segment " + file + " is " + size + " bytes, larger than 2 GiB");
      }
      OffsetIndex oi =
          new OffsetIndex(
              withSuffix(offsetIndexFile(dir, baseOffset), fileSuffix),
              baseOffset,
              maxIndexBytes,
              active);
      TimeIndex ti =
          new TimeIndex(
              withSuffix(timeIndexFile(dir, baseOffset), fileSuffix),
              baseOffset,
              maxIndexBytes,
              active);
      LogSegment s =
          new LogSegment(baseOffset, dir, fileSuffix, file, channel, oi, ti, (int) size, nowMs);
      s.maxTimestamp = ti.lastTimestamp();
      s.offsetOfMaxTimestamp = ti.entries() == 0 ? -1 : ti.offsetAt(ti.entries() - 1);
      return s;
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      if (e instanceof LogStorageException lse) {
        throw lse;
      }
      throw new LogStorageException("cannot open segment " + file + ": " + e.getMessage(), e);
    }
  }

  private static Path withSuffix(Path file, String suffix) {
    return suffix.isEmpty() ? file : file.resolveSibling(file.getFileName() + suffix);
  }

  private static void closeQuietly(FileChannel c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException ignored) {
        // already failing; the first error is the one reported
      }
    }
  }

  public long baseOffset() {
    return baseOffset;
  }

  public Path logFile() {
    return logFile;
  }

  public FileChannel channel() {
    return channel;
  }

  public OffsetIndex offsetIndex() {
    return offsetIndex;
  }

  public TimeIndex timeIndex() {
    return timeIndex;
  }

  /** Committed size: bytes fully written and readable. */
  public int sizeBytes() {
    return sizeBytes;
  }

  public long createdMs() {
    return createdMs;
  }

  /** Largest record timestamp in the segment, or -1 if unknown/none. */
  public long maxTimestamp() {
    return maxTimestamp;
  }

  /** Largest timestamp, or the file's modification time when no batch has one (for retention). */
  public long largestTimestampForRetention() {
    long ts = maxTimestamp;
    if (ts >= 0) {
      return ts;
    }
    try {
      return Files.getLastModifiedTime(logFile).toMillis();
    } catch (IOException e) {
      return Long.MAX_VALUE; // unknown: never old enough to delete by time
    }
  }

  /**
   * The max timestamp of the first batch (Kafka's first-batch timestamp, which {@code
   * max.compaction.lag.ms} counts from), or -1 for an empty segment. Any thread; read once.
   */
  public long firstBatchTimestamp() {
    long cached = firstBatchTimestamp;
    if (cached != UNKNOWN_TIMESTAMP) {
      return cached;
    }
    ByteBuffer header = ByteBuffer.allocate(RecordBatch.HEADER_SIZE_BYTES);
    long ts =
        readHeader(0, header, sizeBytes) ? header.getLong(RecordBatch.MAX_TIMESTAMP_POSITION) : -1;
    if (ts >= 0) {
      firstBatchTimestamp = ts;
    }
    return ts;
  }

  public boolean indexesFull() {
    return offsetIndex.isFull() || timeIndex.isFull();
  }

  // ---- append (owner thread) ----

  /**
   * Writes {@code records} (validated, offsets assigned) at the end of the file, publishes the new
   * size, then indexes each batch. On an I/O error the file is cut back to its old size.
   */
  public void append(ByteBuffer records, int indexIntervalBytes) {
    int start = sizeBytes;
    int length = records.remaining();
    if ((long) start + length > Integer.MAX_VALUE) {
      throw new IllegalStateException("segment " + logFile + " would exceed 2 GiB");
    }
    ByteBuffer src = records.duplicate();
    try {
      long pos = start;
      while (src.hasRemaining()) {
        pos += channel.write(src, pos);
      }
    } catch (IOException e) {
      try {
        channel.truncate(start);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new LogStorageException(
          "cannot append " + length + " bytes to " + logFile + ": " + e.getMessage(), e);
    }
    sizeBytes = start + length;
    int at = records.position();
    int end = records.limit();
    while (at < end) {
      ownerView.wrap(records, at);
      indexBatch(ownerView, start + (at - records.position()), indexIntervalBytes);
      at += ownerView.sizeInBytes();
    }
  }

  /**
   * Updates the indexes and max timestamp for a batch at file {@code position} (append and
   * recovery).
   */
  public void indexBatch(RecordBatch batch, long position, int indexIntervalBytes) {
    long batchMax = batch.maxTimestamp();
    if (batchMax > maxTimestamp) {
      maxTimestamp = batchMax;
      offsetOfMaxTimestamp = batch.lastOffset();
    }
    // A full index (possible only while rebuilding with a smaller segment.index.bytes) just
    // stops getting entries: lookups stay correct, they scan further.
    if (bytesSinceLastIndexEntry > indexIntervalBytes && !indexesFull()) {
      offsetIndex.append(batch.lastOffset(), (int) position);
      if (offsetOfMaxTimestamp >= 0) {
        timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
      }
      bytesSinceLastIndexEntry = 0;
    }
    bytesSinceLastIndexEntry += batch.sizeInBytes();
  }

  /** Adds the final time index entry so the segment's max timestamp survives a restart. */
  private void appendFinalTimeIndexEntry() {
    if (offsetOfMaxTimestamp >= 0 && !timeIndex.isFull()) {
      timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
    }
  }

  /** The segment stops being the active one: final time entry, indexes trimmed. */
  public void onBecomeInactive() {
    appendFinalTimeIndexEntry();
    offsetIndex.trimToValidSize();
    timeIndex.trimToValidSize();
  }

  /** The segment becomes the active one again (after truncation deleted later segments). */
  public void onBecomeActive(int maxIndexBytes) {
    offsetIndex.resizeToMax(maxIndexBytes);
    timeIndex.resizeToMax(maxIndexBytes);
  }

  // ---- recovery support (owner thread) ----

  /** Forgets every index entry and the max timestamp, before a rebuild by scanning. */
  public void resetIndexes() {
    offsetIndex.reset();
    timeIndex.reset();
    maxTimestamp = RecordBatch.NO_TIMESTAMP;
    offsetOfMaxTimestamp = -1;
    bytesSinceLastIndexEntry = 0;
  }

  /** Cuts the file at {@code position} (a batch boundary) and drops index entries past it. */
  public long truncateToPosition(long position) {
    long old = sizeBytes;
    if (position > old) {
      throw new IllegalStateException(
          "cannot truncate " + logFile + " of " + old + " bytes to " + position);
    }
    try {
      channel.truncate(position);
    } catch (IOException e) {
      throw new LogStorageException("cannot truncate " + logFile + ": " + e.getMessage(), e);
    }
    sizeBytes = (int) position;
    firstBatchTimestamp = UNKNOWN_TIMESTAMP;
    offsetIndex.truncateToPosition((int) position);
    return old - position;
  }

  /** Sets the committed size after a recovery scan decided where the valid data ends. */
  public void setSizeAfterRecovery(long validBytes) {
    if (validBytes != sizeBytes) {
      truncateToPosition(validBytes);
    }
  }

  /**
   * Removes every batch containing an offset ≥ {@code offset}; returns the bytes removed. The max
   * timestamp and the time index are recomputed from the remaining batch headers.
   */
  public long truncateTo(long offset) {
    ByteBuffer scratch = ByteBuffer.allocate(RecordBatch.HEADER_SIZE_BYTES);
    long position = findBatchPosition(offset, sizeBytes, scratch);
    if (position < 0) {
      return 0;
    }
    long firstRemovedOffset = scratch.getLong(RecordBatch.BASE_OFFSET_POSITION);
    long removed = truncateToPosition(position);
    // Entries (T, O) with O below the cut still hold; later ones described removed batches.
    timeIndex.truncateToOffset(firstRemovedOffset);
    maxTimestamp = RecordBatch.NO_TIMESTAMP;
    offsetOfMaxTimestamp = -1;
    SegmentScanner scanner =
        new SegmentScanner(channel, logFile, 0, sizeBytes, HEADER_SCAN_BUFFER_BYTES, false);
    for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
      if (b.maxTimestamp() > maxTimestamp) {
        maxTimestamp = b.maxTimestamp();
        offsetOfMaxTimestamp = b.lastOffset();
      }
    }
    int entries = offsetIndex.entries();
    bytesSinceLastIndexEntry = sizeBytes - (entries == 0 ? 0 : offsetIndex.positionAt(entries - 1));
    return removed;
  }

  /**
   * Offset after the last batch, scanning headers from the last offset-index entry (cheap: at most
   * {@code index.interval.bytes} of batches). Also refreshes the max timestamp from them. Used on a
   * clean open; a structural problem throws CorruptRecordException.
   */
  public long readNextOffset() {
    int slot = offsetIndex.entries() - 1;
    long from = slot < 0 ? 0 : offsetIndex.positionAt(slot);
    long next = baseOffset;
    SegmentScanner scanner =
        new SegmentScanner(channel, logFile, from, sizeBytes, HEADER_SCAN_BUFFER_BYTES, false);
    for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
      next = b.nextOffset();
      if (b.maxTimestamp() > maxTimestamp) {
        maxTimestamp = b.maxTimestamp();
        offsetOfMaxTimestamp = b.lastOffset();
      }
      bytesSinceLastIndexEntry = (int) (scanner.nextPosition() - from);
    }
    return next;
  }

  // ---- reads (any thread) ----

  /**
   * Reads up to 61 header bytes at {@code position} into a cleared {@code scratch}; false if fewer.
   */
  private boolean readHeader(long position, ByteBuffer scratch, long limit) {
    if (limit - position < RecordBatch.HEADER_SIZE_BYTES) {
      return false;
    }
    scratch.clear();
    try {
      while (scratch.hasRemaining()) {
        if (channel.read(scratch, position + scratch.position()) < 0) {
          return false;
        }
      }
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot read " + logFile + " at " + position + ": " + e.getMessage(), e);
    }
    return true;
  }

  /**
   * File position of the first batch whose last offset is ≥ {@code offset}, within the first {@code
   * committed} bytes; -1 when there is none.
   */
  public long findBatchPosition(long offset, int committed, ByteBuffer scratch) {
    int entries = offsetIndex.entries();
    int slot = offsetIndex.floorSlotForOffset(offset, entries);
    // The next entry's batch ends after the target (its last offset is > offset). When it also
    // starts at or before the target it is the batch: one header read instead of a scan. This
    // is the common case of a consumer or follower reading on from where its last fetch ended.
    if (slot + 1 < entries) {
      int next = offsetIndex.positionAt(slot + 1);
      if (readHeader(next, scratch, committed)
          && scratch.getLong(RecordBatch.BASE_OFFSET_POSITION) <= offset) {
        return next;
      }
    }
    long position = slot < 0 ? 0 : offsetIndex.positionAt(slot);
    if (position > committed) {
      position = 0;
    }
    while (readHeader(position, scratch, committed)) {
      long base = scratch.getLong(RecordBatch.BASE_OFFSET_POSITION);
      int size = scratch.getInt(RecordBatch.BATCH_LENGTH_POSITION) + RecordBatch.LOG_OVERHEAD;
      long last = base + scratch.getInt(RecordBatch.LAST_OFFSET_DELTA_POSITION);
      if (size < RecordBatch.HEADER_SIZE_BYTES) {
        return -1; // cannot happen for committed bytes; treat as the end
      }
      if (last >= offset) {
        return position;
      }
      position += size;
    }
    return -1;
  }

  /** A read from one segment: the slice and the base offset of its first batch (-1 if empty). */
  public record SegmentRead(FileSlice slice, long firstBatchBaseOffset) {}

  /**
   * Whole batches from the one holding {@code startOffset}, stopping before the first batch whose
   * last offset is ≥ {@code maxOffsetExclusive} or that would exceed {@code maxBytes} (the first
   * batch is returned regardless of size with {@code minOneBatch}). Null when no batch of this
   * segment holds an offset ≥ {@code startOffset}. The slice also carries how many offsets its
   * batches cover, found from the headers this read looks at anyway (see {@link FileSlice}).
   */
  public SegmentRead read(
      long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
    int indexEntries = offsetIndex.entries();
    int committed = sizeBytes; // read after the index count: covers every published entry
    ByteBuffer scratch = ByteBuffer.allocate(RecordBatch.HEADER_SIZE_BYTES);
    long start = findBatchPosition(startOffset, committed, scratch);
    if (start < 0) {
      return null;
    }
    long firstBase = scratch.getLong(RecordBatch.BASE_OFFSET_POSITION);
    int firstSize = scratch.getInt(RecordBatch.BATCH_LENGTH_POSITION) + RecordBatch.LOG_OVERHEAD;
    long firstLast = firstBase + scratch.getInt(RecordBatch.LAST_OFFSET_DELTA_POSITION);
    if (firstLast >= maxOffsetExclusive || (firstSize > maxBytes && !minOneBatch)) {
      return new SegmentRead(new FileSlice(channel, start, 0, 0), -1);
    }
    long end = start + firstSize;
    // The offset after the slice's last batch; -1 while unknown (after an index skip, until the
    // header at the slice's end has been read).
    long next = firstLast + 1;
    long byteLimit = Math.min(committed, start + (long) Math.max(maxBytes, firstSize));
    // Skip ahead with the index: every batch before an indexed batch whose last offset is
    // below the bound also is, so only the batches after the last usable entry need reading.
    int byPosition = offsetIndex.floorSlotForPosition(byteLimit, indexEntries);
    int byOffset = offsetIndex.floorSlotForOffset(maxOffsetExclusive - 1, indexEntries);
    int slot = Math.min(byPosition, byOffset);
    if (slot >= 0 && offsetIndex.positionAt(slot) > end) {
      end = offsetIndex.positionAt(slot);
      next = -1;
    }
    while (end < byteLimit && readHeader(end, scratch, committed)) {
      int size = scratch.getInt(RecordBatch.BATCH_LENGTH_POSITION) + RecordBatch.LOG_OVERHEAD;
      long base = scratch.getLong(RecordBatch.BASE_OFFSET_POSITION);
      long last = base + scratch.getInt(RecordBatch.LAST_OFFSET_DELTA_POSITION);
      if (size < RecordBatch.HEADER_SIZE_BYTES
          || last >= maxOffsetExclusive
          || end + size > byteLimit) {
        if (next < 0) {
          next = base; // the batches skipped over end just before this one
        }
        break;
      }
      end += size;
      next = last + 1;
    }
    if (next < 0) {
      // The skip landed on the byte limit: one header read tells where the skipped batches end.
      next =
          readHeader(end, scratch, committed)
              ? scratch.getLong(RecordBatch.BASE_OFFSET_POSITION)
              : firstLast + 1; // cannot happen: an indexed batch is whole within committed
    }
    return new SegmentRead(
        new FileSlice(channel, start, (int) (end - start), Math.max(0, next - firstBase)),
        firstBase);
  }

  /**
   * The first record at offset ≥ {@code minOffset} whose timestamp is ≥ {@code timestampMs}, or
   * empty. Compressed batches are inflated to find the exact record.
   */
  public Optional<TimestampAndOffset> findByTimestamp(long timestampMs, long minOffset) {
    int committed = sizeBytes;
    int slot = timeIndex.lastSlotBelow(timestampMs);
    long from =
        slot < 0 ? 0 : offsetIndex.lookupPosition(Math.max(timeIndex.offsetAt(slot), minOffset));
    if (slot < 0 && minOffset > baseOffset) {
      from = offsetIndex.lookupPosition(minOffset);
    }
    ByteBuffer header = ByteBuffer.allocate(RecordBatch.HEADER_SIZE_BYTES);
    RecordBatch view = new RecordBatch();
    for (long pos = from; readHeader(pos, header, committed); ) {
      view.wrap(header, 0);
      int size = view.sizeInBytes();
      if (size < RecordBatch.HEADER_SIZE_BYTES) {
        return Optional.empty();
      }
      if (view.lastOffset() >= minOffset && view.maxTimestamp() >= timestampMs) {
        Optional<TimestampAndOffset> found = searchBatch(pos, size, timestampMs, minOffset);
        if (found.isPresent()) {
          return found;
        }
      }
      pos += size;
    }
    return Optional.empty();
  }

  private Optional<TimestampAndOffset> searchBatch(
      long pos, int size, long timestampMs, long minOffset) {
    ByteBuffer whole = ByteBuffer.allocate(size);
    try {
      while (whole.hasRemaining()) {
        if (channel.read(whole, pos + whole.position()) < 0) {
          return Optional.empty();
        }
      }
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot read " + logFile + " at " + pos + ": " + e.getMessage(), e);
    }
    RecordBatch batch = RecordBatch.at(whole, 0);
    // A compressed batch is inflated (the leader bounded its inflated size on append) so the
    // answer is the exact record, as Kafka gives it.
    RecordCursor cursor = new RecordCursor().reset(batch);
    while (cursor.next()) {
      if (cursor.offset() >= minOffset && cursor.timestamp() >= timestampMs) {
        return Optional.of(
            new TimestampAndOffset(
                cursor.timestamp(), cursor.offset(), batch.partitionLeaderEpoch()));
      }
    }
    return Optional.empty();
  }

  // ---- lifecycle ----

  /** Forces the segment's file and indexes to disk. */
  public void flush() {
    try {
      channel.force(true);
    } catch (IOException e) {
      throw new LogStorageException("cannot flush " + logFile + ": " + e.getMessage(), e);
    }
    offsetIndex.flush();
    timeIndex.flush();
  }

  /** Clean close: final time entry, indexes trimmed to their entries, channel closed. */
  public void close() {
    appendFinalTimeIndexEntry();
    offsetIndex.trimToValidSize();
    timeIndex.trimToValidSize();
    closeChannel();
  }

  public void closeChannel() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new LogStorageException("cannot close " + logFile + ": " + e.getMessage(), e);
    }
  }

  /** Renames the three files to {@code *.deleted}; open handles keep working. */
  public void renameToDeleted() {
    changeFileSuffix(DELETED_SUFFIX);
  }

  /** The suffix the file names carry after their usual one ("" for a live segment). */
  public String fileSuffix() {
    return fileSuffix;
  }

  /**
   * Renames the three files so their names end with {@code suffix} after the usual one ("" for the
   * plain names); open handles keep working. The log file goes first: it is the one recovery reads
   * (index files are rebuilt when missing). A missing index file (a segment recovery opened without
   * one) is skipped. A {@code .deleted} name replaces an older file of that name: a segment with
   * the same base offset removed earlier whose files still wait for their delayed deletion (its
   * open handles keep reading; whichever deletion runs first removes the name).
   */
  public void changeFileSuffix(String suffix) {
    Path target = withSuffix(logFile(dir, baseOffset), suffix);
    boolean replace = suffix.equals(DELETED_SUFFIX);
    try {
      if (replace) {
        Files.move(logFile, target, StandardCopyOption.REPLACE_EXISTING);
      } else {
        Files.move(logFile, target);
      }
      logFile = target;
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot rename " + logFile + " to " + target + ": " + e.getMessage(), e);
    }
    offsetIndex.renameTo(withSuffix(offsetIndexFile(dir, baseOffset), suffix), replace);
    timeIndex.renameTo(withSuffix(timeIndexFile(dir, baseOffset), suffix), replace);
    fileSuffix = suffix;
  }

  /** Closes the channel and deletes the files (wherever they are now). */
  public void closeAndDeleteFiles() {
    closeChannel();
    try {
      Files.deleteIfExists(logFile);
    } catch (IOException e) {
      throw new LogStorageException("cannot delete " + logFile + ": " + e.getMessage(), e);
    }
    offsetIndex.deleteIfExists();
    timeIndex.deleteIfExists();
  }

  @Override
  public String toString() {
    return "LogSegment(" + logFile.getFileName() + ", " + sizeBytes + " bytes)";
  }
}
