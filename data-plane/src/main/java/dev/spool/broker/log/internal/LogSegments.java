package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogStorageException;
import dev.spool.broker.log.TimestampAndOffset;
import dev.spool.common.Clock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment files of one partition log, by base offset: which segment is active (the last one),
 * when to roll and rolling, finding the segment that holds an offset or a timestamp, flushing a
 * range, cutting the tail or the whole set on truncation, and removing segments whose files are
 * deleted only after {@code file.delete.delay.ms}, so that file regions handed out before stay
 * readable. The log's offsets (start, end, high watermark, recovery point) and what the batches
 * mean (epochs, producer state) are the business of the {@code PartitionLog} that owns this set.
 *
 * <p>Threads: changed only by the log's owner thread (through its {@code PartitionLog}); read from
 * any thread concurrently (fetches, the post-roll flush on the scheduler, the cleaner): the map is
 * concurrent and the active segment is published through a volatile. A reader that walks from one
 * segment to the next could, while the cleaner's replacement of several segments by one lands, step
 * from an old segment past the range the new one took over; {@link #read} and {@link
 * #findByTimestamp} therefore walk again when {@link #replace} ran meanwhile (its count is
 * published after the map changes).
 */
public final class LogSegments {
  private static final Logger log = LoggerFactory.getLogger(LogSegments.class);

  private final Path dir;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final String logPrefix;
  private final ConcurrentSkipListMap<Long, LogSegment> segments;
  private volatile LogSegment active;
  private volatile long replacements;
  private volatile StepHook stepHook = StepHook.NONE;

  /** The segments {@link LogLoader} opened (at least one); the last is the active segment. */
  public LogSegments(
      Path dir,
      ConcurrentSkipListMap<Long, LogSegment> loaded,
      Clock clock,
      ScheduledExecutorService scheduler,
      String logPrefix) {
    this.dir = dir;
    this.clock = clock;
    this.scheduler = scheduler;
    this.logPrefix = logPrefix;
    this.segments = loaded;
    this.active = loaded.lastEntry().getValue();
  }

  // ---- queries (any thread) ----

  public LogSegment active() {
    return active;
  }

  /** The live map, for replaying producer state over it (owner thread). */
  public ConcurrentSkipListMap<Long, LogSegment> map() {
    return segments;
  }

  public int count() {
    return segments.size();
  }

  public long firstBaseOffset() {
    return segments.firstKey();
  }

  /** Base offsets of the segments, ascending. */
  public List<Long> baseOffsets() {
    return List.copyOf(segments.keySet());
  }

  /** Bytes in all segments. */
  public long sizeInBytes() {
    long total = 0;
    for (LogSegment s : segments.values()) {
      total += s.sizeBytes();
    }
    return total;
  }

  /**
   * Whole batches from the one holding {@code startOffset} (or the first batch after it), read from
   * the first segment that has any below {@code bound}; null when none has.
   */
  public LogSegment.SegmentRead read(
      long startOffset, int maxBytes, long bound, boolean minOneBatch) {
    while (true) {
      long seen = replacements;
      Map.Entry<Long, LogSegment> e = segments.floorEntry(startOffset);
      if (e == null) {
        e = segments.firstEntry();
      }
      boolean stepped = false;
      LogSegment.SegmentRead r = null;
      while (e != null) {
        r = e.getValue().read(startOffset, maxBytes, bound, minOneBatch);
        if (r != null) {
          break;
        }
        e = segments.higherEntry(e.getKey());
        stepped = true;
      }
      if (!stepped || replacements == seen) {
        return r;
      }
    }
  }

  /** The first record at or after {@code minOffset} with a timestamp ≥ {@code timestampMs}. */
  public Optional<TimestampAndOffset> findByTimestamp(long timestampMs, long minOffset) {
    while (true) {
      long seen = replacements;
      Optional<TimestampAndOffset> found = Optional.empty();
      for (LogSegment s : segments.values()) {
        if (s.maxTimestamp() >= timestampMs) {
          found = s.findByTimestamp(timestampMs, minOffset);
          if (found.isPresent()) {
            break;
          }
        }
      }
      if (replacements == seen) {
        return found;
      }
    }
  }

  /** Whether {@code s} is still in the set (not truncated or deleted meanwhile). */
  public boolean contains(LogSegment s) {
    return segments.get(s.baseOffset()) == s;
  }

  /** The segments from the one holding {@code fromOffset} up to (excluding) {@code toOffset}. */
  public List<LogSegment> range(long fromOffset, long toOffset) {
    Long from = segments.floorKey(fromOffset);
    return List.copyOf(segments.subMap(from == null ? 0L : from, toOffset).values());
  }

  /** The segments from the one holding {@code fromOffset} to the end. */
  public List<LogSegment> from(long fromOffset) {
    Long from = segments.floorKey(fromOffset);
    return List.copyOf(segments.tailMap(from == null ? 0L : from).values());
  }

  /** Every segment, oldest first. */
  public List<LogSegment> all() {
    return new ArrayList<>(segments.values());
  }

  // ---- changes (owner thread) ----

  /**
   * Whether {@code size} more bytes ending at {@code lastOffset} need a new segment: the active one
   * is non-empty and would pass {@code segment.bytes} or is older than {@code segment.ms}, or its
   * indexes are full, or the offsets would no longer fit its relative offsets.
   */
  public boolean needsRoll(LogConfig cfg, int size, long lastOffset) {
    LogSegment segment = active;
    boolean nonEmpty = segment.sizeBytes() > 0;
    return nonEmpty
            && ((long) segment.sizeBytes() + size > cfg.segmentBytes()
                || clock.nowMs() - segment.createdMs() >= cfg.segmentMs())
        || segment.indexesFull()
        || lastOffset - segment.baseOffset() > Integer.MAX_VALUE;
  }

  /** Closes the active segment for appends and starts a new one at {@code newBaseOffset}. */
  public LogSegment roll(long newBaseOffset, int indexBytes) {
    LogSegment old = active;
    old.onBecomeInactive();
    LogSegment fresh = LogSegment.open(dir, newBaseOffset, indexBytes, true, clock.nowMs());
    segments.put(newBaseOffset, fresh);
    active = fresh;
    log.debug(
        "{}rolled to segment {} ({} bytes in the previous one)",
        logPrefix,
        newBaseOffset,
        old.sizeBytes());
    return fresh;
  }

  /**
   * Takes every segment whose base offset is at or above {@code offset} out of the set, cuts the
   * new last one at {@code offset} and makes it active. Returns the segments taken out, for {@link
   * #deleteLater} once the log's offsets no longer point into them.
   */
  public List<LogSegment> truncateTo(long offset, int indexBytes) {
    List<LogSegment> removed = new ArrayList<>();
    for (LogSegment s : new ArrayList<>(segments.tailMap(offset, true).values())) {
      if (s.baseOffset() >= offset) {
        segments.remove(s.baseOffset());
        removed.add(s);
      }
    }
    LogSegment last = segments.lastEntry().getValue();
    last.truncateTo(offset);
    if (last != active) {
      last.onBecomeActive(indexBytes);
      active = last;
    }
    return removed;
  }

  /** Deletes every segment (after the delay) and starts over with one empty at {@code base}. */
  public void restartAt(long base, int indexBytes, long deleteDelayMs) {
    List<LogSegment> old = new ArrayList<>(segments.values());
    segments.clear();
    for (LogSegment s : old) {
      // Not trimmed: a concurrent reader may still index into the old mapping's length.
      deleteLater(s, deleteDelayMs);
    }
    LogSegment fresh = LogSegment.open(dir, base, indexBytes, true, clock.nowMs());
    segments.put(base, fresh);
    active = fresh;
  }

  /** Installs the hook called before each file step of {@link #replace} (crash tests). */
  public void setStepHook(StepHook hook) {
    this.stepHook = hook;
  }

  public StepHook stepHook() {
    return stepHook;
  }

  /**
   * Replaces {@code old} (consecutive segments of this set, not the active one) by {@code cleaned}
   * (a complete, flushed segment named {@code *.cleaned} with the first one's base offset, holding
   * what the cleaner kept of them, whose last batch is the last batch of the last one), in the
   * order that keeps a crash recoverable (docs/architecture.md#compaction):
   *
   * <ol>
   *   <li>the cleaned log file is renamed to {@code .swap} and the directory fsynced: the commit
   *       point. Before it, recovery deletes the {@code .cleaned} files and keeps the old segments;
   *       from it on, recovery deletes every segment the swap's offsets cover and renames the swap;
   *   <li>the map takes the cleaned segment in place of the first old one, then drops the others (a
   *       reader never finds a hole: the range stays covered by an old or the new segment);
   *   <li>the old segments' files become {@code .deleted} and go after {@code deleteDelayMs};
   *   <li>the swap files get their final names and the directory is fsynced.
   * </ol>
   *
   * A failure before the commit leaves everything as it was (the cleaned files are deleted); after
   * it, the map already holds the cleaned segment and a restart finishes the file steps.
   */
  public void replace(LogSegment cleaned, List<LogSegment> old, long deleteDelayMs) {
    StepHook hook = stepHook;
    long base = old.get(0).baseOffset();
    if (cleaned.baseOffset() != base || !cleaned.fileSuffix().equals(LogSegment.CLEANED_SUFFIX)) {
      throw new IllegalArgumentException(logPrefix + cleaned + " cannot replace " + old);
    }
    hook.before("commit: rename " + cleaned.logFile().getFileName() + " to .swap");
    try {
      cleaned.changeFileSuffix(LogSegment.SWAP_SUFFIX);
      CheckpointFile.fsyncDirectory(dir);
    } catch (LogStorageException e) {
      deleteCleaned(cleaned);
      throw e;
    }
    segments.put(base, cleaned);
    for (LogSegment s : old.subList(1, old.size())) {
      segments.remove(s.baseOffset());
    }
    replacements++;
    try {
      for (LogSegment s : old) {
        hook.before("rename " + s.logFile().getFileName() + " to .deleted");
        deleteLater(s, deleteDelayMs);
      }
      hook.before("rename " + cleaned.logFile().getFileName() + " to its final name");
      cleaned.changeFileSuffix("");
      CheckpointFile.fsyncDirectory(dir);
    } catch (LogStorageException e) {
      // The map is already right; the files are finished by the next start's recovery.
      log.error(
          "{}replacing {} by {} failed after the commit point; a restart finishes it",
          logPrefix,
          old,
          cleaned,
          e);
    }
  }

  /** Closes and deletes a cleaned segment that will not be swapped in. */
  public void deleteCleaned(LogSegment cleaned) {
    try {
      cleaned.closeAndDeleteFiles();
    } catch (RuntimeException e) {
      log.warn("{}cannot delete {}: {}", logPrefix, cleaned.logFile(), e.toString());
    }
  }

  /** Takes {@code doomed} (never the active segment) out of the set and deletes them later. */
  public void remove(List<LogSegment> doomed, long deleteDelayMs) {
    for (LogSegment s : doomed) {
      segments.remove(s.baseOffset());
      deleteLater(s, deleteDelayMs);
    }
  }

  /** Renames the segment's files to *.deleted now and deletes them after {@code delayMs}. */
  public void deleteLater(LogSegment s, long delayMs) {
    s.renameToDeleted();
    scheduler.schedule(
        () -> {
          try {
            s.closeAndDeleteFiles();
          } catch (RuntimeException e) {
            log.warn("{}cannot delete {}: {}", logPrefix, s.logFile(), e.toString());
          }
        },
        delayMs,
        TimeUnit.MILLISECONDS);
  }

  /** Closes every segment: indexes trimmed, files closed (a clean close, after a flush). */
  public void closeAll() {
    for (LogSegment s : segments.values()) {
      s.close();
    }
  }

  /** Closes the files without flushing or trimming (the log is being deleted). */
  public void closeChannels() {
    for (LogSegment s : segments.values()) {
      s.closeChannel();
    }
  }
}
