package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogStorageException;
import dev.spool.common.Clock;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import dev.spool.record.RetainedBatchWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One clean of one partition (docs/architecture.md#compaction), Kafka's cleaner algorithm:
 *
 * <ol>
 *   <li><b>Map</b> the dirty range: every keyed record's key → its latest offset, into the bounded
 *       {@link OffsetMap}. When the map fills, mapping stops there: this clean covers only up to
 *       the last offset mapped (never less than one record), the rest waits for the next.
 *   <li><b>Clean</b> every segment from the log start up to that end, in groups whose total fits
 *       one segment, each group into one new segment ({@code *.cleaned}) with the same base offset.
 *       A record is kept when no later offset of its key is mapped and, for a tombstone, while its
 *       batch's delete horizon has not passed; records past the mapped end are kept whatever they
 *       are; keyless records are dropped. A batch is copied as it is when it keeps everything,
 *       rewritten with what it keeps otherwise ({@link RetainedBatchWriter}; a compressed batch is
 *       inflated, filtered and compressed again with its own codec, as Kafka does); one that keeps
 *       nothing still leaves its header when it is the last batch of a live idempotent producer
 *       (its sequence survives) or the last batch of its group (the group's offset range survives).
 *       Tombstones kept get a delete horizon, now + {@code delete.retention.ms}, the first time.
 *   <li><b>Swap</b>: each cleaned segment, flushed, goes to the log's owner thread ({@link Owner}),
 *       which replaces the group with it ({@link LogSegments#replace}) unless the log changed. A
 *       group that keeps every batch unchanged is not swapped.
 * </ol>
 *
 * Nothing at or above the first uncleanable offset is read or changed, nor anything at or above the
 * mapped end but what shares a segment with it below. Every batch read is CRC-checked: a bad one
 * ends the clean (and the partition's cleaning, see {@code LogCleaner}) instead of spreading.
 *
 * <p>Threads: a cleaner thread owns an instance (its map, buffers and cursor) and runs one clean at
 * a time; only {@link Owner#replace} runs on the log's owner thread.
 */
public final class Cleaner {
  private static final Logger log = LoggerFactory.getLogger(Cleaner.class);
  private static final double MAP_LOAD_FACTOR = 0.9;

  /** The log's owner thread's side of a clean. */
  @FunctionalInterface
  public interface Owner {
    /**
     * Has the owner replace {@code old} by {@code cleaned}; false when the log changed so that it
     * may not (the cleaned segment is then still the caller's to delete).
     */
    boolean replace(LogSegment cleaned, List<LogSegment> old) throws InterruptedException;
  }

  /** Thrown when a clean stops because its partition went away or the cleaner is stopping. */
  public static final class AbortedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public AbortedException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * What a clean did: {@code endOffset} is the new cleaner checkpoint (everything below it is
   * clean); {@code tombstoneExpiryMs} the earliest delete horizon of a tombstone it kept, -1 none.
   */
  public record Result(long endOffset, CleanerStats stats, long tombstoneExpiryMs) {}

  private final int mapBytes;
  private final int ioBufferBytes;
  private final Throttler throttler;
  private final Clock clock;
  private final RecordCursor cursor = new RecordCursor();
  private final RetainedBatchWriter writer;
  private OffsetMap map; // taken on first use: a broker without compacted topics never pays
  private int[] keptPositions = new int[64];
  private int[] keptSizes = new int[64];

  // Per clean.
  private CleanPlan plan;
  private BooleanSupplier aborted;
  private CleanerStats stats;
  private long tombstoneExpiryMs;
  private boolean groupChanged;

  public Cleaner(int mapBytes, int ioBufferBytes, Throttler throttler, Clock clock) {
    this.mapBytes = mapBytes;
    this.ioBufferBytes = ioBufferBytes;
    this.throttler = throttler;
    this.clock = clock;
    this.writer = new RetainedBatchWriter(ioBufferBytes);
  }

  /** Keys one clean can map before it stops at a smaller range. */
  public int mapCapacity() {
    return offsetMap().maxEntries();
  }

  private OffsetMap offsetMap() {
    if (map == null) {
      map = new OffsetMap(mapBytes, MAP_LOAD_FACTOR);
    }
    return map;
  }

  /**
   * Cleans what {@code plan} allows. {@code aborted} is polled between batches; {@code hook} is
   * called before each file step. Throws {@link AbortedException} when aborted, {@link
   * LogStorageException} or {@link dev.spool.record.CorruptRecordException} on I/O errors or a bad
   * batch; cleaned files not yet swapped in are deleted in every case.
   */
  public Result clean(CleanPlan plan, StepHook hook, BooleanSupplier aborted, Owner owner)
      throws InterruptedException {
    this.plan = plan;
    this.aborted = aborted;
    // The map is taken before the clock starts: Kafka's cleaner thread allocates its dedupe buffer
    // when it starts, so its first clean's figures do not include zeroing that memory either.
    offsetMap();
    this.stats = new CleanerStats(clock.nanoTime());
    this.tombstoneExpiryMs = -1;
    try {
      long endOffset = buildOffsetMap();
      stats.mapDoneNs = clock.nanoTime();
      stats.mapUtilization = offsetMap().utilization();
      List<List<LogSegment>> groups = group(endOffset);
      stats.groups = groups.size();
      for (List<LogSegment> group : groups) {
        if (!cleanGroup(group, hook, owner)) {
          throw new AbortedException(
              plan.logPrefix() + "the log changed under the clean (truncation or retention)");
        }
      }
      stats.endNs = clock.nanoTime();
      log.info(
          "{}{}",
          plan.logPrefix(),
          stats.summary(
              plan.dir().getFileName().toString(), plan.range().firstDirtyOffset(), endOffset));
      return new Result(endOffset, stats, tombstoneExpiryMs);
    } finally {
      writer.clear();
      writer.shrinkTo(ioBufferBytes);
      this.plan = null;
    }
  }

  // ---- 1. the offset map ----

  /** Maps the dirty range; returns the end of what this clean covers. */
  private long buildOffsetMap() throws InterruptedException {
    OffsetMap m = offsetMap();
    m.clear();
    long start = plan.range().firstDirtyOffset();
    long end = plan.range().firstUncleanableOffset();
    // Everything below the dirty range was cleaned against itself: only the map can outdate it.
    m.updateLatestOffset(start - 1);
    List<LogSegment> segments = plan.segments();
    for (int i = 0; i < segments.size(); i++) {
      LogSegment s = segments.get(i);
      long next =
          Math.min(
              end, i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : plan.nextBase());
      if (next <= start) {
        continue;
      }
      if (s.baseOffset() >= end) {
        break;
      }
      long from = s.baseOffset() >= start ? 0 : s.offsetIndex().lookupPosition(start);
      SegmentScanner scanner =
          new SegmentScanner(s.channel(), s.logFile(), from, s.sizeBytes(), ioBufferBytes, true);
      for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
        checkAborted();
        stats.mapBytesRead += b.sizeInBytes();
        throttler.maybeThrottle(b.sizeInBytes());
        if (b.lastOffset() < start) {
          continue;
        }
        if (!mapBatch(m, b, start)) {
          return m.latestOffset() + 1; // full: clean what is mapped
        }
        m.updateLatestOffset(b.lastOffset());
      }
      // The segment is mapped whole: offsets up to the next segment's base have nothing left.
      m.updateLatestOffset(Math.min(next, end) - 1);
    }
    return Math.max(start, m.latestOffset() + 1);
  }

  /** Maps the keyed records of {@code b} at or after {@code start}; false when the map filled. */
  private boolean mapBatch(OffsetMap m, RecordBatch b, long start) {
    if (b.isControl()) {
      return true; // kept as they are (transaction markers): their keys outdate nothing
    }
    cursor.reset(b); // inflates a compressed batch
    while (cursor.next()) {
      stats.mapRecordsRead++;
      long offset = cursor.offset();
      if (offset < start) {
        continue;
      }
      if (cursor.keyLength() >= 0) {
        if (m.isFull()) {
          return false;
        }
        m.put(cursor.buffer(), cursor.keyPosition(), cursor.keyLength(), offset);
      }
      m.updateLatestOffset(offset);
    }
    return true;
  }

  // ---- 2. groups ----

  /**
   * The segments below {@code endOffset} in groups that each fit one segment (log and index sizes,
   * offsets relative to the group's base), without trailing empty segments.
   */
  private List<List<LogSegment>> group(long endOffset) {
    LogConfig cfg = plan.config();
    List<LogSegment> all = new ArrayList<>();
    for (LogSegment s : plan.segments()) {
      if (s.baseOffset() < endOffset) {
        all.add(s);
      }
    }
    List<List<LogSegment>> groups = new ArrayList<>();
    int i = 0;
    while (i < all.size()) {
      List<LogSegment> group = new ArrayList<>();
      group.add(all.get(i));
      long logBytes = all.get(i).sizeBytes();
      long indexBytes = indexBytes(all.get(i));
      i++;
      while (i < all.size()) {
        LogSegment s = all.get(i);
        long lastOffset = (i + 1 < all.size() ? all.get(i + 1).baseOffset() : nextBase(s)) - 1;
        if (logBytes + s.sizeBytes() > cfg.segmentBytes()
            || indexBytes + indexBytes(s) > cfg.segmentIndexBytes()
            || lastOffset - group.get(0).baseOffset() > Integer.MAX_VALUE) {
          break;
        }
        group.add(s);
        logBytes += s.sizeBytes();
        indexBytes += indexBytes(s);
        i++;
      }
      while (!group.isEmpty() && group.get(group.size() - 1).sizeBytes() == 0) {
        group.remove(group.size() - 1);
      }
      if (!group.isEmpty()) {
        groups.add(group);
      }
    }
    return groups;
  }

  /**
   * Base offset of the segment after {@code s} in the log (for the last planned one, the plan's).
   */
  private long nextBase(LogSegment s) {
    List<LogSegment> segments = plan.segments();
    int i = segments.indexOf(s);
    return i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : plan.nextBase();
  }

  private static long indexBytes(LogSegment s) {
    return Math.max(
        (long) s.offsetIndex().entries() * OffsetIndex.ENTRY_SIZE,
        (long) s.timeIndex().entries() * TimeIndex.ENTRY_SIZE);
  }

  // ---- 3. clean a group and swap it in ----

  private boolean cleanGroup(List<LogSegment> group, StepHook hook, Owner owner)
      throws InterruptedException {
    LogConfig cfg = plan.config();
    long base = group.get(0).baseOffset();
    deleteStaleCleaned(base);
    LogSegment cleaned =
        LogSegment.open(
            plan.dir(),
            base,
            LogSegment.CLEANED_SUFFIX,
            cfg.segmentIndexBytes(),
            true,
            clock.nowMs());
    // Deleted on the way out unless the owner took it, or a step hook stopped the clean (a
    // simulated crash leaves the files as a kill would).
    boolean keepFiles = false;
    try {
      groupChanged = false;
      writer.clear();
      LogSegment last = group.get(group.size() - 1);
      for (LogSegment s : group) {
        SegmentScanner scanner =
            new SegmentScanner(s.channel(), s.logFile(), 0, s.sizeBytes(), ioBufferBytes, true);
        for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
          checkAborted();
          stats.bytesRead += b.sizeInBytes();
          throttler.maybeThrottle(b.sizeInBytes());
          cleanBatch(b, s == last && scanner.nextPosition() == s.sizeBytes());
          if (writer.buffer().position() >= ioBufferBytes) {
            writeOut(cleaned, hook);
          }
        }
      }
      writeOut(cleaned, hook);
      if (!groupChanged) {
        return true; // nothing to gain: the group stays as it is (the finally deletes the copy)
      }
      cleaned.onBecomeInactive();
      hookedStep(hook, "flush " + cleaned.logFile().getFileName());
      cleaned.flush();
      hookedStep(hook, "hand " + cleaned.logFile().getFileName() + " to the owner for the swap");
      boolean swapped;
      try {
        swapped = owner.replace(cleaned, group);
      } catch (RuntimeException e) {
        // The owner ran into it (a failed commit deletes the files itself, a hook stopped it
        // as a crash would): the files are the owner's business now.
        keepFiles = true;
        throw e;
      }
      keepFiles = swapped;
      if (swapped) {
        stats.groupsSwapped++;
      }
      return swapped;
    } catch (HookStop e) {
      keepFiles = true;
      throw (RuntimeException) e.getCause();
    } finally {
      if (!keepFiles) {
        try {
          cleaned.closeAndDeleteFiles();
        } catch (RuntimeException e) {
          log.warn("{}cannot delete {}: {}", plan.logPrefix(), cleaned.logFile(), e.toString());
        }
      }
    }
  }

  /** Deletes the files of an earlier attempt at this group that could not be cleaned up. */
  private void deleteStaleCleaned(long base) {
    Path dir = plan.dir();
    for (Path p :
        List.of(
            LogSegment.logFile(dir, base),
            LogSegment.offsetIndexFile(dir, base),
            LogSegment.timeIndexFile(dir, base))) {
      try {
        Files.deleteIfExists(p.resolveSibling(p.getFileName() + LogSegment.CLEANED_SUFFIX));
      } catch (IOException e) {
        throw new LogStorageException(plan.logPrefix() + "cannot delete a stale cleaned file", e);
      }
    }
  }

  private void writeOut(LogSegment cleaned, StepHook hook) throws InterruptedException {
    ByteBuffer out = writer.buffer();
    if (out.position() == 0) {
      return;
    }
    out.flip();
    hookedStep(hook, "append " + out.remaining() + " bytes to " + cleaned.logFile().getFileName());
    stats.bytesWritten += out.remaining();
    throttler.maybeThrottle(out.remaining());
    cleaned.append(out, plan.config().indexIntervalBytes());
    writer.clear();
  }

  /** Calls the hook; if it throws, the clean stops as a crash would: its files stay. */
  private void hookedStep(StepHook hook, String step) {
    try {
      hook.before(step);
    } catch (RuntimeException e) {
      throw new HookStop(e);
    }
  }

  /** A step hook stopped the clean: cleaned files are left for recovery, as after a crash. */
  private static final class HookStop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HookStop(RuntimeException cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  /** Writes what the clean keeps of {@code b}. */
  private void cleanBatch(RecordBatch b, boolean lastOfGroup) {
    stats.recordsRead += b.recordsCount();
    if (b.isControl()) {
      writer.copy(b);
      stats.recordsKept += b.recordsCount();
      return;
    }
    long now = plan.nowMs();
    int kept = 0;
    boolean tombstones = false;
    boolean mappedTombstones = false; // ones the map covers: they may expire at the horizon
    cursor.reset(b);
    while (cursor.next()) {
      if (retain(b, now)) {
        if (kept == keptPositions.length) {
          keptPositions = Arrays.copyOf(keptPositions, kept * 2);
          keptSizes = Arrays.copyOf(keptSizes, kept * 2);
        }
        keptPositions[kept] = cursor.recordPosition();
        keptSizes[kept] = cursor.recordSizeInBytes();
        kept++;
        if (cursor.valueLength() < 0) {
          tombstones = true;
          mappedTombstones |= cursor.offset() <= map.latestOffset();
        }
      }
    }
    stats.recordsKept += kept;
    boolean newHorizon = tombstones && !b.isDeleteHorizonSet();
    long horizon =
        newHorizon ? now + plan.config().cleanup().deleteRetentionMs() : b.deleteHorizonMs();
    if (mappedTombstones && (tombstoneExpiryMs < 0 || horizon < tombstoneExpiryMs)) {
      tombstoneExpiryMs = horizon;
    }
    // An empty batch (a header a clean kept before) is never "kept whole": it goes below, where it
    // stays only while it is still needed, else it would outlive its reason forever.
    if (kept == b.recordsCount() && kept > 0 && !newHorizon) {
      writer.copy(b);
      return;
    }
    if (kept > 0) {
      groupChanged = true;
      writer.begin(b, newHorizon ? horizon : RecordBatch.NO_TIMESTAMP);
      for (int i = 0; i < kept; i++) {
        writer.retain(cursor.buffer(), keptPositions[i], keptSizes[i]);
      }
      writer.end();
      return;
    }
    Long producerLast = b.hasProducerId() ? plan.producerLastOffsets().get(b.producerId()) : null;
    boolean keepHeader = lastOfGroup || (producerLast != null && producerLast == b.lastOffset());
    if (!keepHeader) {
      groupChanged = true;
    } else if (b.recordsCount() == 0 && b.sizeInBytes() == RecordBatch.HEADER_SIZE_BYTES) {
      writer.copy(b); // already just a header
    } else {
      groupChanged = true;
      writer.writeEmptyHeader(b);
    }
  }

  /** Whether the cursor's record stays. */
  private boolean retain(RecordBatch b, long now) {
    long offset = cursor.offset();
    OffsetMap m = map;
    if (offset > m.latestOffset()) {
      return true;
    }
    if (cursor.keyLength() < 0) {
      stats.keylessDropped++;
      return false;
    }
    if (offset < m.get(cursor.buffer(), cursor.keyPosition(), cursor.keyLength())) {
      return false;
    }
    if (cursor.valueLength() >= 0 || !b.isDeleteHorizonSet() || now < b.deleteHorizonMs()) {
      return true;
    }
    stats.tombstonesDropped++;
    return false;
  }

  private void checkAborted() {
    if (aborted.getAsBoolean()) {
      throw new AbortedException(plan.logPrefix() + "clean aborted");
    }
  }
}
