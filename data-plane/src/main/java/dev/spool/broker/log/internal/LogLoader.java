package dev.spool.broker.log.internal;

import dev.spool.broker.log.LeaderEpochCache;
import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.LogStorageException;
import dev.spool.broker.log.ProducerStateManager;
import dev.spool.broker.log.RecoveryReport;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.RecordBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory: removes leftovers of interrupted deletions, opens the segments and
 * brings the log back to a consistent state (docs/architecture.md#crash-recovery).
 *
 * <p>After a clean shutdown nothing is scanned: index files are sanity-checked (rebuilt if they
 * make no sense) and the log end offset is read from the tail after the last index entry. Otherwise
 * every segment from the one holding the recovery point on is scanned batch by batch (size, magic,
 * CRC, offsets); indexes, leader epochs and producer state are rebuilt from what is scanned; the
 * first bad batch ends the log: its segment is cut there and every later segment deleted.
 * Corruption found below the recovery point (data that had been flushed) is logged as an error, and
 * still ends the log there, since nothing after it can be trusted.
 *
 * <p>Offsets may have gaps (the cleaner removes records and batches but keeps offsets), so a batch
 * is checked against its neighbours rather than for contiguity: its base offset is at or above the
 * segment's base and the previous batch's next offset, its last offset within the segment's
 * relative range and below the next segment's base. That still catches a corrupted base offset
 * (which the CRC does not cover) unless it moves the batch within its gap.
 *
 * <p>Before anything else, a cleaner's replacement interrupted by a crash is finished or undone
 * ({@link SwapRecovery}): {@code .cleaned} files are deleted (the old segments are intact), a
 * {@code .log.swap} file replaces every segment its offsets cover.
 *
 * <p>Threads: runs on one recovery thread per partition, before the log is published.
 */
public final class LogLoader {
  private static final Logger log = LoggerFactory.getLogger(LogLoader.class);
  private static final int RECOVERY_BUFFER_BYTES = 1 << 20;
  private static final int HEADER_BUFFER_BYTES = 8 * 1024;

  /** The loaded log. */
  public record Loaded(
      ConcurrentSkipListMap<Long, LogSegment> segments,
      long logStartOffset,
      long logEndOffset,
      long recoveryPoint,
      RecoveryReport report) {}

  private final Path dir;
  private final TopicPartition tp;
  private final LogConfig config;
  private final LogStartupState startup;
  private final Clock clock;
  private final LeaderEpochCache epochCache;
  private final ProducerStateManager producerState;
  private final String logPrefix;
  private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

  private int segmentsScanned;
  private long bytesScanned;
  private long bytesTruncated;
  private int segmentsDeleted;
  private boolean corruptionBelowRecoveryPoint;
  private String truncationReason;

  public LogLoader(
      Path dir,
      TopicPartition tp,
      LogConfig config,
      LogStartupState startup,
      Clock clock,
      LeaderEpochCache epochCache,
      ProducerStateManager producerState,
      String logPrefix) {
    this.dir = dir;
    this.tp = tp;
    this.config = config;
    this.startup = startup;
    this.clock = clock;
    this.epochCache = epochCache;
    this.producerState = producerState;
    this.logPrefix = logPrefix;
  }

  public Loaded load() {
    long startNs = clock.nanoTime();
    try {
      TreeSet<Long> swapped = new SwapRecovery(dir, logPrefix).run();
      TreeSet<Long> bases = listSegmentsAndCleanUp();
      long requestedStart = Math.max(0, startup.logStartOffset());
      if (bases.isEmpty()) {
        bases.add(requestedStart);
      }
      for (long base : bases) {
        boolean active = base == bases.last();
        segments.put(
            base, LogSegment.open(dir, base, config.segmentIndexBytes(), active, clock.nowMs()));
      }
      for (long base : swapped) {
        // A swap finished by recovery has no index files: rebuild them (the segment was flushed
        // before its commit, so a problem in it is corruption, refused like any trusted segment's).
        LogSegment seg = segments.get(base);
        if (seg != null && seg != segments.lastEntry().getValue()) {
          rebuildIndexes(seg, false);
        }
      }
      long logEndOffset = startup.cleanShutdown() ? loadClean() : recover();
      long logStartOffset = Math.min(Math.max(requestedStart, segments.firstKey()), logEndOffset);
      epochCache.truncateFromEnd(logEndOffset);
      epochCache.truncateFromStart(logStartOffset);
      if (producerState.mapEndOffset() > logEndOffset) {
        producerState.truncateAndReload(logEndOffset, logStartOffset);
        replayProducerState(producerState.mapEndOffset(), logEndOffset);
      }
      long durationMs = (clock.nanoTime() - startNs) / 1_000_000L;
      RecoveryReport report =
          new RecoveryReport(
              tp,
              startup.cleanShutdown(),
              segmentsScanned,
              bytesScanned,
              bytesTruncated,
              segmentsDeleted,
              corruptionBelowRecoveryPoint,
              truncationReason,
              logEndOffset,
              durationMs);
      // After a crash nothing was flushed by recovery (a repeated crash repeats the same scan),
      // so the recovery point stays where it was; normal flushes advance it.
      long recoveryPoint =
          startup.cleanShutdown()
              ? logEndOffset
              : Math.min(Math.max(startup.recoveryPoint(), logStartOffset), logEndOffset);
      logOpened(report);
      return new Loaded(segments, logStartOffset, logEndOffset, recoveryPoint, report);
    } catch (RuntimeException e) {
      segments
          .values()
          .forEach(
              s -> {
                try {
                  s.closeChannel();
                } catch (RuntimeException suppressed) {
                  e.addSuppressed(suppressed);
                }
              });
      throw e;
    }
  }

  private void logOpened(RecoveryReport r) {
    if (r.bytesScanned() == 0 && r.bytesTruncated() == 0) {
      log.debug(
          "{}opened in {} ms without scanning (clean shutdown: {}): log end offset {}",
          logPrefix,
          r.durationMs(),
          r.cleanShutdown(),
          r.logEndOffset());
    } else {
      log.info(
          "{}recovered in {} ms: {} segments, {} bytes scanned, {} bytes truncated, log end offset {}",
          logPrefix,
          r.durationMs(),
          r.segmentsScanned(),
          r.bytesScanned(),
          r.bytesTruncated(),
          r.logEndOffset());
    }
  }

  /** Base offsets of the segments; deletes leftovers of interrupted operations. */
  private TreeSet<Long> listSegmentsAndCleanUp() {
    TreeSet<Long> logs = new TreeSet<>();
    List<Path> indexFiles = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        String name = p.getFileName().toString();
        if (name.endsWith(LogSegment.DELETED_SUFFIX)
            || name.endsWith(LogSegment.CLEANED_SUFFIX)
            || name.endsWith(LogSegment.SWAP_SUFFIX)
            || name.endsWith(".tmp")) {
          log.info("{}removing leftover file {}", logPrefix, name);
          Files.deleteIfExists(p);
        } else if (name.endsWith(LogSegment.LOG_SUFFIX)) {
          logs.add(parseBase(name, LogSegment.LOG_SUFFIX));
        } else if (name.endsWith(LogSegment.INDEX_SUFFIX)
            || name.endsWith(LogSegment.TIME_INDEX_SUFFIX)) {
          indexFiles.add(p);
        }
      }
      for (Path p : indexFiles) {
        String name = p.getFileName().toString();
        long base = parseBase(name, name.substring(name.lastIndexOf('.')));
        if (!logs.contains(base)) {
          log.info("{}removing index {} that has no segment", logPrefix, name);
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      throw new LogStorageException(logPrefix + "cannot list " + dir + ": " + e.getMessage(), e);
    }
    return logs;
  }

  private long parseBase(String name, String suffix) {
    String prefix = name.substring(0, name.length() - suffix.length());
    if (prefix.length() != 20) {
      throw new LogStorageException(logPrefix + "unexpected file name " + dir.resolve(name));
    }
    try {
      return Long.parseLong(prefix);
    } catch (NumberFormatException e) {
      throw new LogStorageException(logPrefix + "unexpected file name " + dir.resolve(name));
    }
  }

  // ---- clean shutdown: no scan ----

  private long loadClean() {
    LogSegment active = segments.lastEntry().getValue();
    checkInactiveIndexes(active.baseOffset());
    long logEndOffset;
    String problem = active.offsetIndex().sanityCheck(active.sizeBytes());
    try {
      logEndOffset = problem == null ? active.readNextOffset() : -1;
      if (problem == null) {
        problem = active.timeIndex().sanityCheck(logEndOffset);
      }
    } catch (CorruptRecordException e) {
      problem = "bad tail: " + e.getMessage();
      logEndOffset = -1;
    }
    if (problem != null) {
      // The marker said clean, but the active segment disagrees: recover it like after a crash.
      log.warn(
          "{}clean shutdown marker present, but {} is inconsistent ({}); recovering it",
          logPrefix,
          active.logFile(),
          problem);
      producerState.truncateAndReload(active.baseOffset(), Math.max(0, startup.logStartOffset()));
      replayProducerState(producerState.mapEndOffset(), active.baseOffset());
      return recoverFrom(active.baseOffset(), active.baseOffset());
    }
    producerState.truncateAndReload(logEndOffset, Math.max(0, startup.logStartOffset()));
    replayProducerState(producerState.mapEndOffset(), logEndOffset);
    return logEndOffset;
  }

  /**
   * Sanity-checks the indexes of the (inactive, trusted) segments below {@code beforeBase} and
   * rebuilds those that make no sense.
   */
  private void checkInactiveIndexes(long beforeBase) {
    for (LogSegment seg : segments.headMap(beforeBase).values()) {
      String problem = seg.offsetIndex().sanityCheck(seg.sizeBytes());
      if (problem == null) {
        problem = seg.timeIndex().sanityCheck(segments.higherKey(seg.baseOffset()));
      }
      if (problem != null) {
        log.warn("{}index of {} is invalid ({}); rebuilding it", logPrefix, seg.logFile(), problem);
        rebuildIndexes(seg, false);
      }
    }
  }

  /** Rebuilds one segment's indexes by scanning it (no truncation: used on trusted segments). */
  private long rebuildIndexes(LogSegment seg, boolean active) {
    ScanResult r = scanSegment(seg, seg.baseOffset());
    if (r.problem != null) {
      // Truncating a segment that was believed good would lose acknowledged data silently.
      throw new LogStorageException(
          logPrefix
              + "segment "
              + seg.logFile()
              + " is corrupt at position "
              + r.validBytes
              + " ("
              + r.problem
              + ") while rebuilding its index; refusing to open the partition");
    }
    if (!active) {
      seg.onBecomeInactive();
    }
    return r.nextOffset;
  }

  // ---- unclean shutdown: scan from the recovery point ----

  private long recover() {
    long recoveryPoint = Math.max(startup.recoveryPoint(), 0);
    Long startBase = segments.floorKey(recoveryPoint);
    if (startBase == null) {
      startBase = segments.firstKey();
    }
    checkInactiveIndexes(startBase); // segments before the scan are trusted
    producerState.truncateAndReload(recoveryPoint, Math.max(0, startup.logStartOffset()));
    replayProducerState(producerState.mapEndOffset(), startBase);
    return recoverFrom(startBase, recoveryPoint);
  }

  private long recoverFrom(long startBase, long recoveryPoint) {
    long logEndOffset = startBase;
    long expectedNext = startBase;
    for (LogSegment seg : new ArrayList<>(segments.tailMap(startBase).values())) {
      ScanResult r = scanSegment(seg, expectedNext);
      segmentsScanned++;
      if (r.problem != null) {
        truncateAt(seg, r, recoveryPoint);
        logEndOffset = r.nextOffset;
        break;
      }
      logEndOffset = r.nextOffset;
      expectedNext = r.nextOffset;
    }
    // No fsync here: the recovery point does not move, so a crash now repeats this scan.
    LogSegment last = segments.lastEntry().getValue();
    for (LogSegment seg : segments.tailMap(startBase).values()) {
      if (seg != last) {
        seg.onBecomeInactive();
      }
    }
    last.onBecomeActive(config.segmentIndexBytes());
    return Math.max(logEndOffset, last.baseOffset());
  }

  private record ScanResult(long nextOffset, long validBytes, String problem) {}

  /**
   * Scans a whole segment, rebuilding its indexes, and feeding leader epochs and producer state;
   * stops at the first bad batch (reported, not thrown). {@code minNext} is the least offset its
   * first batch may start at (the previous segment's next offset).
   */
  private ScanResult scanSegment(LogSegment seg, long minNext) {
    seg.onBecomeActive(config.segmentIndexBytes()); // room to rebuild the index
    seg.resetIndexes();
    long size;
    try {
      size = seg.channel().size();
    } catch (IOException e) {
      throw new LogStorageException(logPrefix + "cannot stat " + seg.logFile(), e);
    }
    SegmentScanner scanner =
        new SegmentScanner(seg.channel(), seg.logFile(), 0, size, RECOVERY_BUFFER_BYTES, true);
    long next = Math.max(minNext, seg.baseOffset());
    Long nextBase = segments.higherKey(seg.baseOffset());
    long producerFrom = producerState.mapEndOffset();
    try {
      for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
        String problem = offsetProblem(b, next, seg.baseOffset(), nextBase);
        if (problem != null) {
          throw new CorruptRecordException(problem, scanner.batchPosition());
        }
        seg.indexBatch(b, scanner.batchPosition(), config.indexIntervalBytes());
        int epoch = b.partitionLeaderEpoch();
        if (epoch >= 0
            && (epochCache.latestEpoch().isEmpty()
                || epoch > epochCache.latestEpoch().getAsInt())) {
          epochCache.assign(epoch, b.baseOffset());
        }
        if (b.baseOffset() >= producerFrom) {
          producerState.update(b);
        }
        bytesScanned += b.sizeInBytes();
        next = b.nextOffset();
      }
    } catch (CorruptRecordException e) {
      // The exception's position is the file position of the bad batch: the log ends there.
      return new ScanResult(next, e.position(), e.getMessage());
    }
    seg.setSizeAfterRecovery(scanner.nextPosition());
    return new ScanResult(next, scanner.nextPosition(), null);
  }

  /**
   * Null when batch {@code b} may follow a batch ending before {@code minBase} in the segment at
   * {@code segmentBase} whose successor starts at {@code nextSegmentBase} (null: none), else why
   * not. Offsets only grow; gaps are allowed (compaction).
   */
  static String offsetProblem(RecordBatch b, long minBase, long segmentBase, Long nextSegmentBase) {
    long base = b.baseOffset();
    if (base < minBase) {
      return "batch base offset "
          + base
          + " is below "
          + minBase
          + " (the segment base or the previous batch's next offset): offsets must increase";
    }
    long last = b.lastOffset();
    if (last - segmentBase > Integer.MAX_VALUE) {
      return "batch last offset " + last + " is too far from the segment base " + segmentBase;
    }
    if (nextSegmentBase != null && last >= nextSegmentBase) {
      return "batch last offset " + last + " reaches the next segment's base " + nextSegmentBase;
    }
    return null;
  }

  private void truncateAt(LogSegment seg, ScanResult r, long recoveryPoint) {
    long cut = seg.sizeBytes() - r.validBytes;
    seg.truncateToPosition(r.validBytes);
    bytesTruncated += cut;
    truncationReason = seg.logFile().getFileName() + ": " + r.problem;
    if (r.nextOffset < recoveryPoint) {
      corruptionBelowRecoveryPoint = true;
      log.error(
          "{}CORRUPTION BELOW THE RECOVERY POINT {}: {} is bad at position {} ({}); data at "
              + "offsets >= {} had been flushed and is now cut off. Check the disk and filesystem.",
          logPrefix,
          recoveryPoint,
          seg.logFile(),
          r.validBytes,
          r.problem,
          r.nextOffset);
    } else {
      log.warn(
          "{}recovery truncated {} at position {} ({} bytes): {}",
          logPrefix,
          seg.logFile(),
          r.validBytes,
          cut,
          r.problem);
    }
    for (LogSegment later : new ArrayList<>(segments.tailMap(seg.baseOffset(), false).values())) {
      log.warn(
          "{}recovery deletes segment {} ({} bytes) after the corruption",
          logPrefix,
          later.logFile(),
          later.sizeBytes());
      bytesTruncated += later.sizeBytes();
      segmentsDeleted++;
      segments.remove(later.baseOffset());
      later.closeAndDeleteFiles();
    }
  }

  private void replayProducerState(long fromOffset, long toOffset) {
    replayProducerState(segments, producerState, fromOffset, toOffset);
  }

  /**
   * Feeds producer state with the batch headers in [fromOffset, toOffset) (headers only are read).
   */
  public static void replayProducerState(
      ConcurrentSkipListMap<Long, LogSegment> segments,
      ProducerStateManager producerState,
      long fromOffset,
      long toOffset) {
    if (fromOffset >= toOffset) {
      return; // the state already covers [.., toOffset)
    }
    Long firstBase = segments.floorKey(fromOffset);
    for (LogSegment seg :
        segments.tailMap(firstBase == null ? segments.firstKey() : firstBase).values()) {
      if (seg.baseOffset() >= toOffset) {
        break;
      }
      long from = seg.baseOffset() >= fromOffset ? 0 : seg.offsetIndex().lookupPosition(fromOffset);
      SegmentScanner scanner =
          new SegmentScanner(
              seg.channel(), seg.logFile(), from, seg.sizeBytes(), HEADER_BUFFER_BYTES, false);
      for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
        if (b.baseOffset() >= toOffset) {
          break;
        }
        if (b.baseOffset() >= fromOffset) {
          producerState.update(b);
        }
      }
    }
    producerState.setMapEndOffset(toOffset);
  }
}
