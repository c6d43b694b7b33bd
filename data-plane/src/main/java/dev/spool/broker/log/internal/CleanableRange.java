package dev.spool.broker.log.internal;

import dev.spool.broker.log.CleanupConfig;
import java.util.List;

/**
 * Which part of a compacted log the cleaner may work on now (Kafka's LogCleanerManager rules): the
 * dirty range starts at the cleaner checkpoint (clamped into the log) and ends at the first
 * uncleanable offset, the base of the first segment that is active, reaches the high watermark, or
 * holds a record younger than {@code min.compaction.lag.ms}. Everything below the dirty range was
 * cleaned before.
 *
 * @param firstDirtyOffset where the dirty range starts
 * @param firstUncleanableOffset a segment base: nothing at or above it is cleaned
 * @param cleanBytes bytes of the segments below the dirty range (the one holding its start too)
 * @param cleanableBytes bytes of the segments of the dirty range
 * @param mustCleanNow a dirty record passed {@code max.compaction.lag.ms}
 */
public record CleanableRange(
    long firstDirtyOffset,
    long firstUncleanableOffset,
    long cleanBytes,
    long cleanableBytes,
    boolean mustCleanNow) {

  /** Dirty share of the log, Kafka's "cleanable ratio". */
  public double dirtyRatio() {
    long total = cleanBytes + cleanableBytes;
    return total == 0 ? 0 : (double) cleanableBytes / total;
  }

  /**
   * The range of {@code segments} (ascending, the last one active; read from any thread: sizes and
   * timestamps are volatile) for a log with these offsets. {@code checkpoint} is the cleaner
   * checkpoint, -1 when none.
   */
  public static CleanableRange of(
      List<LogSegment> segments,
      long logStartOffset,
      long logEndOffset,
      long highWatermark,
      long checkpoint,
      CleanupConfig cfg,
      long nowMs) {
    long firstDirty = checkpoint;
    if (firstDirty < logStartOffset || firstDirty > logEndOffset) {
      firstDirty = logStartOffset; // none yet, or no longer valid (truncated, restarted)
    }
    LogSegment active = segments.get(segments.size() - 1);
    long uncleanable = Math.min(active.baseOffset(), highWatermark);
    if (cfg.minCompactionLagMs() > 0) {
      long dirtyBase = floorBase(segments, firstDirty);
      for (LogSegment s : segments) {
        if (s != active
            && s.baseOffset() >= dirtyBase
            && s.maxTimestamp() > nowMs - cfg.minCompactionLagMs()) {
          uncleanable = Math.min(uncleanable, s.baseOffset());
          break;
        }
      }
    }
    // Only whole segments are cleaned: the one holding the bound is not.
    uncleanable = Math.max(firstDirty, floorBase(segments, uncleanable));
    long clean = 0;
    long cleanable = 0;
    boolean mustClean = false;
    long maxLagBound =
        cfg.maxCompactionLagMs() == Long.MAX_VALUE
            ? Long.MIN_VALUE
            : nowMs - cfg.maxCompactionLagMs();
    for (int i = 0; i < segments.size(); i++) {
      LogSegment s = segments.get(i);
      long next = i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : Long.MAX_VALUE;
      if (s.baseOffset() < firstDirty || (firstDirty >= s.baseOffset() && firstDirty < next)) {
        clean += s.sizeBytes();
      }
      if (next > firstDirty && s.baseOffset() < uncleanable) {
        cleanable += s.sizeBytes();
        if (!mustClean && maxLagBound != Long.MIN_VALUE && s.sizeBytes() > 0) {
          long first = s.firstBatchTimestamp();
          mustClean = first >= 0 && first < maxLagBound;
        }
      }
    }
    return new CleanableRange(firstDirty, uncleanable, clean, cleanable, mustClean);
  }

  /** Base offset of the segment holding {@code offset} (the first one's when below it). */
  private static long floorBase(List<LogSegment> segments, long offset) {
    long base = segments.get(0).baseOffset();
    for (LogSegment s : segments) {
      if (s.baseOffset() <= offset) {
        base = s.baseOffset();
      } else {
        break;
      }
    }
    return base;
  }
}
