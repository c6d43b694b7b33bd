package dev.spool.broker.log;

import dev.spool.broker.log.ProducerStateEntry.BatchMetadata;
import dev.spool.broker.log.internal.FollowerBatches;
import dev.spool.broker.log.internal.LeaderBatchValidator;
import dev.spool.broker.log.internal.LogLoader;
import dev.spool.broker.log.internal.LogSegment;
import dev.spool.broker.log.internal.LogSegments;
import dev.spool.broker.log.internal.PartitionMetadataFile;
import dev.spool.broker.log.internal.RetentionPolicy;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordTooLargeException;
import dev.spool.record.TimestampType;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition replica: a directory {@code <data.dir>/<topic>-<partition>/} of segments
 * (see {@link LogSegment}), the leader-epoch history, producer state and the {@code
 * partition.metadata} file. Batches are stored exactly as received once the leader has assigned
 * their offsets and stamped its epoch, so reads hand out file regions untouched.
 *
 * <p>The segment files themselves (which is active, rolling, finding an offset or a timestamp,
 * delayed deletion) are a {@link LogSegments}; this class owns the offsets (log start, log end,
 * high watermark, recovery point), the validation and stamping of appends, truncation and retention
 * decisions, and the leader-epoch and producer state that follow them.
 *
 * <p>Threads: every mutation (appends, truncation, high watermark, retention, flush, config, close)
 * happens on ONE owner thread at a time — the partition's worker. A concurrent mutation from a
 * second thread is detected and refused with {@link IllegalStateException} (the check stays on in
 * production: it costs one CAS). {@link #read}, {@link #offsetForTimestamp} and the offset getters
 * are lock-free and safe from any thread concurrently with appends: segments live in a concurrent
 * map, a segment's committed size and the log end offset are volatiles written after the bytes, and
 * index entries are published after the size. A segment removed by retention keeps its channel open
 * for {@code file.delete.delay.ms} so slices handed out before still read correctly.
 */
public final class PartitionLog implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

  private final TopicPartition topicPartition;
  private final Path dir;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final String logPrefix;
  private final LogSegments segments;
  private final LeaderEpochCache epochCache;
  private final ProducerStateManager producerState;
  private final RecoveryReport recoveryReport;
  private final AtomicReference<Thread> mutator = new AtomicReference<>();
  private final Object recoveryPointLock = new Object();

  private volatile String topicId;
  private volatile LogConfig config;
  private volatile long logStartOffset;
  private volatile long logEndOffset;
  private volatile long highWatermark;
  private volatile long recoveryPoint;
  private long truncations; // guarded by recoveryPointLock: invalidates in-flight async flushes
  private volatile boolean closed;
  private volatile CleanerCheckpoint cleanerCheckpoint;

  /** Where each flush's time (ns) goes: set by its LogManager, for the broker's flush metric. */
  volatile LongConsumer flushTimes = ns -> {};

  /** Where a background flush's storage error goes: its LogManager's {@code markOffline}. */
  volatile Consumer<String> backgroundStorageErrors = reason -> {};

  // False while the config is the broker's default a log got at startup, before the topic's own
  // arrived with metadata: retention and the cleaner must not act on a config that may be wrong.
  private volatile boolean configConfirmed = true;

  // Owner-thread scratch: reused across appends so validation allocates nothing per batch.
  private final RecordBatch view = new RecordBatch();
  private final LeaderBatchValidator validator;

  private PartitionLog(
      TopicPartition tp,
      Path dir,
      String topicId,
      LogConfig config,
      Clock clock,
      ScheduledExecutorService scheduler,
      String logPrefix,
      LeaderEpochCache epochCache,
      ProducerStateManager producerState,
      LogLoader.Loaded loaded,
      LogStartupState startup) {
    this.topicPartition = tp;
    this.dir = dir;
    this.topicId = topicId;
    this.config = config;
    this.clock = clock;
    this.scheduler = scheduler;
    this.logPrefix = logPrefix;
    this.epochCache = epochCache;
    this.producerState = producerState;
    this.segments = new LogSegments(dir, loaded.segments(), clock, scheduler, logPrefix);
    this.logStartOffset = loaded.logStartOffset();
    this.logEndOffset = loaded.logEndOffset();
    this.recoveryPoint = loaded.recoveryPoint();
    this.highWatermark =
        clamp(startup.highWatermark(), loaded.logStartOffset(), loaded.logEndOffset());
    this.recoveryReport = loaded.report();
    this.validator = new LeaderBatchValidator(logPrefix);
    this.cleanerCheckpoint = startup.cleaner();
  }

  /**
   * Opens (creating if needed) the log in {@code dir}, recovering it as {@code startup} says.
   * {@code topicId} may be null to keep the one on disk; a new log records it in {@code
   * partition.metadata}. The scheduler runs delayed file deletion and post-roll flushes.
   */
  public static PartitionLog open(
      Path dir,
      TopicPartition tp,
      String topicId,
      LogConfig config,
      LogStartupState startup,
      Clock clock,
      ScheduledExecutorService scheduler) {
    String prefix = "[partition=" + tp + "] ";
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new LogStorageException(prefix + "cannot create " + dir + ": " + e.getMessage(), e);
    }
    Optional<String> onDisk = PartitionMetadataFile.read(dir);
    if (topicId != null && onDisk.isPresent() && !onDisk.get().equals(topicId)) {
      throw new IllegalStateException(
          prefix + dir + " belongs to topic id " + onDisk.get() + ", not " + topicId);
    }
    String effectiveTopicId = topicId != null ? topicId : onDisk.orElse(null);
    if (topicId != null && onDisk.isEmpty()) {
      PartitionMetadataFile.write(dir, topicId);
    }
    PartitionLog[] self = new PartitionLog[1];
    LeaderEpochCache epochs =
        LeaderEpochCache.load(dir, () -> self[0] == null ? 0 : self[0].logEndOffset, prefix);
    ProducerStateManager producers = new ProducerStateManager(dir, prefix);
    LogLoader.Loaded loaded =
        new LogLoader(dir, tp, config, startup, clock, epochs, producers, prefix).load();
    self[0] =
        new PartitionLog(
            tp,
            dir,
            effectiveTopicId,
            config,
            clock,
            scheduler,
            prefix,
            epochs,
            producers,
            loaded,
            startup);
    return self[0];
  }

  /** Records the topic id of a log that had none on disk. */
  void assignTopicId(String id) {
    if (topicId != null) {
      throw new IllegalStateException(logPrefix + "already belongs to topic id " + topicId);
    }
    PartitionMetadataFile.write(dir, id);
    topicId = id;
  }

  // ---- getters (any thread) ----

  public TopicPartition topicPartition() {
    return topicPartition;
  }

  public String topicId() {
    return topicId;
  }

  public Path dir() {
    return dir;
  }

  public LogConfig config() {
    return config;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  public long logEndOffset() {
    return logEndOffset;
  }

  public long highWatermark() {
    return highWatermark;
  }

  public long recoveryPoint() {
    return recoveryPoint;
  }

  public LeaderEpochCache leaderEpochCache() {
    return epochCache;
  }

  /** Producer state; like the mutations, only for the owner thread. */
  public ProducerStateManager producerState() {
    return producerState;
  }

  /** What opening the log did (scan sizes, truncation, duration). */
  public RecoveryReport recoveryReport() {
    return recoveryReport;
  }

  public int numberOfSegments() {
    return segments.count();
  }

  /** Base offsets of the segments, ascending. */
  public List<Long> segmentBaseOffsets() {
    return segments.baseOffsets();
  }

  /** Bytes in all segments. */
  public long sizeInBytes() {
    return segments.sizeInBytes();
  }

  // ---- owner-thread confinement check ----

  private void enter(String operation) {
    Thread me = Thread.currentThread();
    if (!mutator.compareAndSet(null, me)) {
      Thread other = mutator.get();
      throw new IllegalStateException(
          String.format(
              "%s%s on thread %s while thread %s mutates the log: a partition log has one owner"
                  + " thread at a time",
              logPrefix, operation, me.getName(), other == null ? "?" : other.getName()));
    }
    if (closed) {
      mutator.set(null);
      throw new IllegalStateException(logPrefix + operation + " on a closed log");
    }
  }

  private void exit() {
    mutator.set(null);
  }

  // ---- configuration ----

  public void updateConfig(LogConfig newConfig) {
    enter("updateConfig");
    try {
      this.config = newConfig;
      this.configConfirmed = true;
    } finally {
      exit();
    }
  }

  /**
   * Marks the config as the broker's startup default, not yet the topic's: retention and cleaning
   * wait for {@link #updateConfig}. Called before the log is published.
   */
  void markConfigProvisional() {
    configConfirmed = false;
  }

  /** Whether the config is the topic's own (see {@link #markConfigProvisional}). */
  public boolean configConfirmed() {
    return configConfirmed;
  }

  // ---- appends (owner thread) ----

  /**
   * Validates the batches in {@code batches} (position to limit), recompressing those whose codec
   * is not the topic's {@code compression.type} (when it names one), then assigns offsets from the
   * log end offset IN PLACE, stamps {@code leaderEpoch}, rewrites LogAppendTime if configured and
   * appends them. Nothing is written when any batch is refused; the exception says which and why:
   * {@link CorruptRecordException} (incomplete, bad magic/CRC), {@link RecordTooLargeException},
   * {@link InvalidRecordException} (counts, offsets, sequences missing), {@link
   * InvalidTimestampException}, {@link InvalidProducerEpochException}, {@link
   * OutOfOrderSequenceException}. An idempotent retry returns the original offsets with {@code
   * duplicate = true} and appends nothing (as in Kafka, a request holding a retried batch is
   * answered for that batch only: producers send one batch per partition per request). {@code
   * batches} must be writable: the header fields are rewritten in it, then it is written.
   */
  public LogAppendInfo appendAsLeader(ByteBuffer batches, int leaderEpoch) {
    enter("appendAsLeader");
    try {
      if (leaderEpoch < 0) {
        throw new IllegalArgumentException(logPrefix + "invalid leader epoch " + leaderEpoch);
      }
      OptionalInt latestEpoch = epochCache.latestEpoch();
      if (latestEpoch.isPresent() && leaderEpoch < latestEpoch.getAsInt()) {
        throw new IllegalArgumentException(
            logPrefix
                + "leader epoch "
                + leaderEpoch
                + " is older than the log's latest epoch "
                + latestEpoch.getAsInt());
      }
      LogConfig cfg = config;
      long nowMs = clock.nowMs();
      int count = validator.validateLeaderBatches(batches, cfg, nowMs);
      // The request's own buffer, or a new one when a batch was recompressed to the topic's codec.
      batches = validator.validatedBatches();
      if (count == 0) {
        return emptyAppend();
      }
      ProducerStateManager.Staging staging = producerState.stage();
      long next = logEndOffset;
      for (int pos = batches.position(); pos < batches.limit(); pos += view.sizeInBytes()) {
        view.wrap(batches, pos);
        long last = next + view.lastOffsetDelta();
        BatchMetadata dup = staging.checkAndStage(view, next, last);
        if (dup != null) {
          return new LogAppendInfo(
              dup.firstOffset(),
              dup.lastOffset(),
              dup.maxTimestampMs(),
              RecordBatch.NO_TIMESTAMP,
              view.recordsCount(),
              0,
              true);
        }
        next = last + 1;
      }
      long firstOffset = logEndOffset;
      next = firstOffset;
      long maxTimestamp = RecordBatch.NO_TIMESTAMP;
      int records = 0;
      int i = 0;
      boolean logAppendTime = cfg.timestampType() == TimestampType.LOG_APPEND_TIME;
      for (int pos = batches.position(); pos < batches.limit(); pos += view.sizeInBytes(), i++) {
        view.wrap(batches, pos);
        view.setBaseOffset(next);
        view.setPartitionLeaderEpoch(leaderEpoch);
        if (logAppendTime) {
          view.setMaxTimestampAndRecomputeCrc(TimestampType.LOG_APPEND_TIME, nowMs);
        } else {
          view.setMaxTimestampAndRecomputeCrc(
              TimestampType.CREATE_TIME, validator.maxTimestampOf(i));
        }
        maxTimestamp = Math.max(maxTimestamp, view.maxTimestamp());
        records += view.recordsCount();
        next = view.nextOffset();
      }
      long lastOffset = next - 1;
      appendToSegment(batches, firstOffset, lastOffset);
      if (latestEpoch.isEmpty() || leaderEpoch > latestEpoch.getAsInt()) {
        epochCache.assign(leaderEpoch, firstOffset);
      }
      producerState.commit(staging, logEndOffset);
      if (cfg.flushEveryAppend()) {
        flushAll();
      }
      return new LogAppendInfo(
          firstOffset,
          lastOffset,
          maxTimestamp,
          logAppendTime ? nowMs : RecordBatch.NO_TIMESTAMP,
          records,
          batches.remaining(),
          false);
    } finally {
      exit();
    }
  }

  private LogAppendInfo emptyAppend() {
    long leo = logEndOffset;
    return new LogAppendInfo(
        leo, leo - 1, RecordBatch.NO_TIMESTAMP, RecordBatch.NO_TIMESTAMP, 0, 0, false);
  }

  /**
   * Appends batches whose offsets the leader already assigned: the first at or after the log end
   * offset, each after the previous (gaps are fine: the leader's log may be compacted), else {@link
   * InvalidOffsetException} and nothing is written. Batches are checked for integrity (size, magic,
   * CRC) but not against producer state, which is updated as they come.
   */
  public LogAppendInfo appendAsFollower(ByteBuffer batches) {
    enter("appendAsFollower");
    try {
      LogConfig cfg = config;
      int start = batches.position();
      FollowerBatches.Summary sum =
          FollowerBatches.check(batches, logEndOffset, cfg.maxMessageBytes(), view, logPrefix);
      if (sum.batches() == 0) {
        return emptyAppend();
      }
      long firstOffset = view.wrap(batches, start).baseOffset();
      appendToSegment(batches, firstOffset, sum.nextOffset() - 1);
      for (int pos = start; pos < batches.limit(); pos += view.sizeInBytes()) {
        view.wrap(batches, pos);
        int epoch = view.partitionLeaderEpoch();
        OptionalInt latest = epochCache.latestEpoch();
        if (epoch >= 0 && (latest.isEmpty() || epoch > latest.getAsInt())) {
          epochCache.assign(epoch, view.baseOffset());
        }
        producerState.update(view);
      }
      if (cfg.flushEveryAppend()) {
        flushAll();
      }
      return new LogAppendInfo(
          firstOffset,
          sum.nextOffset() - 1,
          sum.maxTimestamp(),
          RecordBatch.NO_TIMESTAMP,
          sum.records(),
          batches.remaining(),
          false);
    } finally {
      exit();
    }
  }

  /** Rolls if needed, writes, publishes the new log end offset. */
  private void appendToSegment(ByteBuffer batches, long firstOffset, long lastOffset) {
    LogConfig cfg = config;
    LogSegment segment = segments.active();
    if (segments.needsRoll(cfg, batches.remaining(), lastOffset)) {
      if (segment.sizeBytes() == 0 && segment.baseOffset() == firstOffset) {
        throw new IllegalStateException(
            logPrefix + "cannot roll the empty segment at " + firstOffset);
      }
      segment = roll(firstOffset);
    }
    if (firstOffset < segment.baseOffset()) {
      throw new IllegalStateException(
          String.format(
              "%soffset %d is below the active segment's base offset %d",
              logPrefix, firstOffset, segment.baseOffset()));
    }
    segment.append(batches, cfg.indexIntervalBytes());
    logEndOffset = lastOffset + 1;
  }

  private LogSegment roll(long newBaseOffset) {
    LogSegment fresh = segments.roll(newBaseOffset, config.segmentIndexBytes());
    producerState.takeSnapshot();
    long generation;
    synchronized (recoveryPointLock) {
      generation = truncations;
    }
    // fsync the rolled segment off the owner thread, then advance the recovery point (as Kafka).
    scheduler.execute(() -> flushUpTo(newBaseOffset, generation));
    return fresh;
  }

  /**
   * Flushes the segments below {@code offset} (they are inactive) and advances the recovery point.
   */
  private void flushUpTo(long offset, long generation) {
    long startNs = clock.nanoTime();
    for (LogSegment s : segments.range(recoveryPoint, offset)) {
      try {
        s.flush();
      } catch (LogStorageException e) {
        if (closed || !segments.contains(s)) {
          return; // closed, truncated or deleted meanwhile: nothing to advance
        }
        log.error(
            "{}flush of {} failed at recovery point {}", logPrefix, s.logFile(), recoveryPoint, e);
        backgroundStorageErrors.accept("flush of " + s.logFile() + " failed: " + e.getMessage());
        return;
      }
    }
    flushTimes.accept(clock.nanoTime() - startNs);
    advanceRecoveryPoint(offset, generation);
  }

  private void advanceRecoveryPoint(long offset, long generation) {
    synchronized (recoveryPointLock) {
      if (generation == truncations && offset > recoveryPoint && offset <= logEndOffset) {
        recoveryPoint = offset;
      }
    }
  }

  // ---- reads (any thread) ----

  /**
   * Whole batches from the one holding {@code startOffset}: see {@link LogSegment#read}. At most
   * one segment is read. Throws {@link OffsetOutOfRangeException} outside [log start, LEO].
   */
  public LogReadResult read(
      long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
    long leo = logEndOffset;
    long lso = logStartOffset;
    long hw = highWatermark;
    if (startOffset < lso || startOffset > leo) {
      throw new OffsetOutOfRangeException(
          logPrefix + "offset " + startOffset + " is outside the log [" + lso + ", " + leo + "]");
    }
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must be >= 0: " + maxBytes);
    }
    long bound = Math.min(maxOffsetExclusive, leo);
    if (startOffset < bound) {
      LogSegment.SegmentRead r = segments.read(startOffset, maxBytes, bound, minOneBatch);
      if (r != null) {
        return new LogReadResult(r.slice(), r.firstBatchBaseOffset(), lso, leo, hw);
      }
    }
    return new LogReadResult(new FileSlice(segments.active().channel(), 0, 0, 0), -1, lso, leo, hw);
  }

  /**
   * The first record whose timestamp is ≥ {@code timestampMs} (at or after the log start), found
   * through the segments' max timestamps, the time index, then a scan (inflating a compressed batch
   * it lands in, to answer with the exact record).
   */
  public Optional<TimestampAndOffset> offsetForTimestamp(long timestampMs) {
    return segments.findByTimestamp(timestampMs, logStartOffset);
  }

  // ---- high watermark, truncation (owner thread) ----

  /** Sets the high watermark, clamped to [log start offset, LEO]. */
  public void updateHighWatermark(long hw) {
    enter("updateHighWatermark");
    try {
      highWatermark = clamp(hw, logStartOffset, logEndOffset);
    } finally {
      exit();
    }
  }

  private static long clamp(long v, long lo, long hi) {
    return Math.max(lo, Math.min(v, hi));
  }

  /**
   * Removes every batch that contains an offset ≥ {@code offset}: whole batches, so the log end
   * offset may end below {@code offset}. Indexes, leader epochs, producer state, the high watermark
   * and the recovery point follow.
   */
  public void truncateTo(long offset) {
    enter("truncateTo");
    try {
      if (offset < 0) {
        throw new IllegalArgumentException(
            logPrefix + "cannot truncate to negative offset " + offset);
      }
      if (offset >= logEndOffset) {
        return;
      }
      if (segments.firstBaseOffset() >= offset || offset <= logStartOffset) {
        truncateFully(Math.min(offset, logStartOffset));
        return;
      }
      long oldLeo = logEndOffset;
      List<LogSegment> removed = segments.truncateTo(offset, config.segmentIndexBytes());
      LogSegment last = segments.active();
      long newLeo = last.sizeBytes() == 0 ? last.baseOffset() : last.readNextOffset();
      setLogEndOffsetAfterTruncation(newLeo);
      for (LogSegment s : removed) {
        segments.deleteLater(s, config.fileDeleteDelayMs());
      }
      epochCache.truncateFromEnd(newLeo);
      producerState.truncateAndReload(newLeo, logStartOffset);
      LogLoader.replayProducerState(
          segments.map(), producerState, producerState.mapEndOffset(), newLeo);
      log.info(
          "{}truncated to offset {} (log end offset {} -> {})", logPrefix, offset, oldLeo, newLeo);
    } finally {
      exit();
    }
  }

  private void setLogEndOffsetAfterTruncation(long newLeo) {
    cleanerCheckpoint = cleanerCheckpoint.truncatedTo(newLeo);
    synchronized (recoveryPointLock) {
      truncations++;
      logEndOffset = newLeo;
      recoveryPoint = Math.min(recoveryPoint, newLeo);
      highWatermark = Math.min(highWatermark, newLeo);
    }
  }

  /**
   * Deletes the whole log and starts it empty at {@code newStartOffset} (a follower far behind).
   */
  public void truncateFullyAndStartAt(long newStartOffset) {
    enter("truncateFullyAndStartAt");
    try {
      truncateFully(newStartOffset);
    } finally {
      exit();
    }
  }

  private void truncateFully(long newStartOffset) {
    if (newStartOffset < 0) {
      throw new IllegalArgumentException(logPrefix + "negative start offset " + newStartOffset);
    }
    segments.restartAt(newStartOffset, config.segmentIndexBytes(), config.fileDeleteDelayMs());
    cleanerCheckpoint = cleanerCheckpoint.truncatedTo(-1);
    synchronized (recoveryPointLock) {
      truncations++;
      logStartOffset = newStartOffset;
      logEndOffset = newStartOffset;
      recoveryPoint = newStartOffset;
      highWatermark = newStartOffset;
    }
    epochCache.clear();
    producerState.deleteAllSnapshots();
    producerState.clear(newStartOffset);
    log.info("{}truncated fully; the log restarts at offset {}", logPrefix, newStartOffset);
  }

  // ---- retention (owner thread) ----

  /**
   * Deletes the oldest whole segments past {@code retention.ms} (by their newest timestamp) or
   * beyond {@code retention.bytes} (with cleanup.policy delete and the topic's own config), and,
   * whatever the policy, those entirely below the log start offset (RetentionPolicy). Advances the
   * log start offset. Returns how many.
   */
  public int deleteRetainedSegments(long nowMs) {
    enter("deleteRetainedSegments");
    try {
      LogConfig cfg = config;
      List<LogSegment> all = segments.all();
      boolean byRetention =
          (cfg.retentionMs() >= 0 || cfg.retentionBytes() >= 0)
              && cfg.cleanup().delete()
              && configConfirmed;
      int count =
          RetentionPolicy.segmentsToDelete(
              all,
              logStartOffset,
              highWatermark,
              byRetention,
              cfg.retentionMs(),
              cfg.retentionBytes(),
              nowMs);
      if (count == 0) {
        return 0;
      }
      advanceLogStart(all.get(count).baseOffset());
      segments.remove(all.subList(0, count), cfg.fileDeleteDelayMs());
      log.info("{}deleted {} segments; log start offset {}", logPrefix, count, logStartOffset);
      return count;
    } finally {
      exit();
    }
  }

  /**
   * Moves the log start offset forward to {@code offset} (DeleteRecords on a leader, or a follower
   * following its leader): records below it are unreadable at once, whole segments below it go at
   * the next retention pass. Past the high watermark: {@link OffsetOutOfRangeException}; at or
   * below the current start: no change. Returns the log start offset after.
   */
  public long incrementLogStartOffset(long offset) {
    enter("incrementLogStartOffset");
    try {
      if (offset > highWatermark) {
        throw new OffsetOutOfRangeException(
            logPrefix + "offset " + offset + " is past the high watermark " + highWatermark);
      }
      if (offset > logStartOffset) {
        advanceLogStart(offset);
        log.info("{}log start offset moved to {}", logPrefix, offset);
      }
      return logStartOffset;
    } finally {
      exit();
    }
  }

  private void advanceLogStart(long offset) {
    logStartOffset = Math.max(logStartOffset, offset);
    epochCache.truncateFromStart(logStartOffset);
    producerState.onLogStartOffsetIncremented(logStartOffset);
  }

  // ---- compaction (docs/architecture.md#compaction) ----

  /** The cleaner's persisted state of this partition (any thread). */
  public CleanerCheckpoint cleanerCheckpoint() {
    return cleanerCheckpoint;
  }

  /** Owner thread (inside {@link #mutate}): records the cleaner's state after a clean. */
  void setCleanerCheckpoint(CleanerCheckpoint checkpoint) {
    cleanerCheckpoint = checkpoint;
  }

  /** How many truncations the log has had: a clean planned before one may not be swapped in. */
  long truncationGeneration() {
    synchronized (recoveryPointLock) {
      return truncations;
    }
  }

  /**
   * Runs {@code body} as a mutation of this log: on its owner thread, refused like any mutation
   * when another thread is mutating or the log is closed. The cleaner's owner-side steps ({@code
   * LogCleaner}) run this way.
   */
  <T> T mutate(String operation, Supplier<T> body) {
    enter(operation);
    try {
      return body.get();
    } finally {
      exit();
    }
  }

  /** The segment set, for the cleaner's reads and the crash tests' step hook. */
  LogSegments segmentSet() {
    return segments;
  }

  // ---- flush and close (owner thread) ----

  /** fsyncs every segment from the recovery point to the end and advances it to the LEO. */
  public void flush() {
    enter("flush");
    try {
      flushAll();
    } finally {
      exit();
    }
  }

  private void flushAll() {
    long leo = logEndOffset;
    long generation;
    synchronized (recoveryPointLock) {
      generation = truncations;
    }
    long startNs = clock.nanoTime();
    segments.from(recoveryPoint).forEach(LogSegment::flush);
    flushTimes.accept(clock.nanoTime() - startNs);
    advanceRecoveryPoint(leo, generation);
  }

  /** Clean close: flush, producer snapshot, indexes trimmed, files closed. */
  @Override
  public void close() {
    enter("close");
    try {
      flushAll();
      producerState.takeSnapshot();
      closed = true;
      segments.closeAll();
      log.debug("{}closed at log end offset {}", logPrefix, logEndOffset);
    } finally {
      mutator.set(null);
    }
  }

  /** Closes the files without flushing (the log is being deleted, or its directory failed). */
  void closeForDeletion() {
    enter("closeForDeletion");
    try {
      closed = true;
      segments.closeChannels();
    } finally {
      mutator.set(null);
    }
  }

  public boolean isClosed() {
    return closed;
  }

  @Override
  public String toString() {
    return String.format(
        "PartitionLog(%s, start=%d, end=%d, hw=%d, segments=%d)",
        topicPartition, logStartOffset, logEndOffset, highWatermark, segments.count());
  }
}
