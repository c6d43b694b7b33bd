package dev.spool.broker.log;

import dev.spool.broker.log.internal.CleanerCheckpoints;
import dev.spool.broker.log.internal.OffsetCheckpoints;
import dev.spool.broker.log.internal.PartitionMetadataFile;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All partition logs of one data directory. At {@link #open} it reads the directory's checkpoints,
 * notes and removes the clean-shutdown marker (so a crash from now on is detected), removes
 * leftovers of deleted partitions ({@code *-delete} directories), and opens every partition
 * directory in parallel on a bounded recovery pool; a partition that fails is logged and listed in
 * {@link #failedPartitions()} while the others open, and the directory then goes offline ({@link
 * #markOffline}). {@link #close} is the clean shutdown: flush, producer snapshots, checkpoints,
 * then the marker.
 *
 * <p>Files of the data directory: {@code recovery-point-offset-checkpoint}, {@code
 * replication-offset-checkpoint}, {@code log-start-offset-checkpoint} (layout in {@link
 * OffsetCheckpoints}), {@code cleaner-offset-checkpoint} (layout in {@link CleanerCheckpoints}) and
 * the empty marker {@code .spool_cleanshutdown}.
 *
 * <p>Threads: {@code getOrCreate}, {@code delete} and {@code close} are called by the broker's
 * control thread; {@code get}/{@code all} from any thread. Background tasks (checkpoints every
 * {@code checkpointIntervalMs}, retention every {@code retentionCheckIntervalMs}, delayed file
 * deletion, post-roll flushes) run on a scheduler this manager owns. Retention mutates logs, so it
 * is handed to the {@link PartitionExecutor} (by default run directly on the scheduler thread,
 * which is only right when nothing else mutates the log at that time: the replication layer
 * installs one that runs it on the partition's owner thread). The {@link LogCleaner}'s threads
 * clean compacted partitions once {@link #startCleaner} is called, their swaps going through the
 * same executor.
 */
public final class LogManager implements Closeable {
  /**
   * The quorum's Raft log lives in this directory inside the data directory by default (as Kafka's
   * {@code __cluster_metadata-0}); it is not a partition, and no topic-partition directory can have
   * this name (it has no {@code -<partition>} suffix).
   */
  public static final String METADATA_DIR_NAME = "__cluster_metadata";

  private static final Logger log = LoggerFactory.getLogger(LogManager.class);
  public static final String CLEAN_SHUTDOWN_FILE = ".spool_cleanshutdown";
  public static final String DELETE_DIR_SUFFIX = "-delete";

  /** Runs a task that mutates a partition's log on that partition's owner thread. */
  @FunctionalInterface
  public interface PartitionExecutor {
    /** Queues {@code task} on {@code tp}'s owner; false when refused (then it never runs). */
    boolean execute(TopicPartition tp, Runnable task);
  }

  private final Path dataDir;
  private final LogManagerConfig config;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final ConcurrentHashMap<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
  private volatile LongConsumer flushTimes = ns -> {};
  private final Map<TopicPartition, Throwable> failed = new ConcurrentHashMap<>();
  private final List<RecoveryReport> reports = new ArrayList<>();
  private final OffsetCheckpoints recoveryPoints;
  private final OffsetCheckpoints highWatermarks;
  private final OffsetCheckpoints logStartOffsets;
  private final CleanerCheckpoints cleanerCheckpoints;
  private final LogCleaner cleaner;
  private volatile PartitionExecutor partitionExecutor =
      (tp, task) -> {
        task.run();
        return true;
      };
  private volatile boolean closed;
  private final Object checkpointLock = new Object();
  private final AtomicReference<String> offlineReason = new AtomicReference<>();
  private volatile Consumer<String> onOffline = reason -> {};

  private LogManager(Path dataDir, LogManagerConfig config, Clock clock) {
    this.dataDir = dataDir;
    this.config = config;
    this.clock = clock;
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "log-manager-" + dataDir.getFileName());
              t.setDaemon(true);
              return t;
            });
    s.setRemoveOnCancelPolicy(true);
    // At close, pending delayed deletions are dropped: the next open removes *.deleted files.
    s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.scheduler = s;
    this.recoveryPoints = new OffsetCheckpoints(dataDir, OffsetCheckpoints.RECOVERY_POINT_FILE);
    this.highWatermarks = new OffsetCheckpoints(dataDir, OffsetCheckpoints.HIGH_WATERMARK_FILE);
    this.logStartOffsets = new OffsetCheckpoints(dataDir, OffsetCheckpoints.LOG_START_OFFSET_FILE);
    this.cleanerCheckpoints = new CleanerCheckpoints(dataDir);
    this.cleaner =
        new LogCleaner(
            dataDir.getFileName().toString(),
            config.cleaner(),
            clock,
            () -> isOffline() ? List.of() : all(),
            tp -> logs.get(tp),
            () -> partitionExecutor,
            this::checkpointSafely);
  }

  /**
   * Opens the data directory with the default config for every partition until its own arrives
   * ({@link PartitionLog#updateConfig} or {@link #getOrCreate}): meanwhile retention and the
   * cleaner leave it alone, since the default may be wrong (a compacted topic is not deleted by
   * time).
   */
  public static LogManager open(Path dataDir, LogManagerConfig config, Clock clock) {
    return open(dataDir, config, clock, null);
  }

  /**
   * Opens the data directory; {@code topicConfigs} gives each existing partition its config (null:
   * the default, provisionally, as {@link #open(Path, LogManagerConfig, Clock)}).
   */
  public static LogManager open(
      Path dataDir,
      LogManagerConfig config,
      Clock clock,
      Function<String, LogConfig> topicConfigs) {
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot create data directory " + dataDir + ": " + e.getMessage(), e);
    }
    LogManager m = new LogManager(dataDir, config, clock);
    m.loadLogs(topicConfigs);
    m.offlineIfAReplicaFailedToOpen();
    m.startBackgroundTasks();
    return m;
  }

  private void loadLogs(Function<String, LogConfig> topicConfigs) {
    long startNs = clock.nanoTime();
    Path marker = dataDir.resolve(CLEAN_SHUTDOWN_FILE);
    boolean clean = Files.exists(marker);
    try {
      Files.deleteIfExists(marker);
    } catch (IOException e) {
      throw new LogStorageException("cannot delete " + marker + ": " + e.getMessage(), e);
    }
    Map<TopicPartition, Long> rps = recoveryPoints.read();
    Map<TopicPartition, Long> hws = highWatermarks.read();
    Map<TopicPartition, Long> starts = logStartOffsets.read();
    Map<TopicPartition, CleanerCheckpoint> cleaned = cleanerCheckpoints.read();
    List<Path> partitionDirs = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(dataDir)) {
      for (Path p : (Iterable<Path>) dirs::iterator) {
        String name = p.getFileName().toString();
        if (!Files.isDirectory(p)) {
          continue;
        }
        if (name.endsWith(DELETE_DIR_SUFFIX)) {
          log.info("removing {} left by a partition deletion", p);
          deleteRecursively(p);
        } else {
          partitionDirs.add(p);
        }
      }
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot list data directory " + dataDir + ": " + e.getMessage(), e);
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            config.recoveryThreads(),
            r -> {
              Thread t = new Thread(r, "log-recovery-" + dataDir.getFileName());
              t.setDaemon(true);
              return t;
            });
    Map<TopicPartition, Future<PartitionLog>> futures = new HashMap<>();
    try {
      for (Path p : partitionDirs) {
        TopicPartition tp;
        if (p.getFileName().toString().equals(METADATA_DIR_NAME)) {
          continue;
        }
        try {
          tp = TopicPartition.parse(p.getFileName().toString());
        } catch (IllegalArgumentException e) {
          log.warn("ignoring {}: not a <topic>-<partition> directory", p);
          continue;
        }
        LogStartupState state =
            new LogStartupState(
                rps.getOrDefault(tp, 0L),
                starts.getOrDefault(tp, 0L),
                hws.getOrDefault(tp, 0L),
                clean,
                cleaned.getOrDefault(tp, CleanerCheckpoint.NONE));
        LogConfig cfg =
            topicConfigs == null ? config.defaultLogConfig() : topicConfigs.apply(tp.topic());
        futures.put(
            tp,
            pool.submit(
                () -> {
                  PartitionLog l = PartitionLog.open(p, tp, null, cfg, state, clock, scheduler);
                  l.flushTimes = ns -> flushTimes.accept(ns);
                  l.backgroundStorageErrors = this::markOffline;
                  if (topicConfigs == null) {
                    l.markConfigProvisional();
                  }
                  return l;
                }));
      }
      long scanned = 0;
      long truncated = 0;
      for (Map.Entry<TopicPartition, Future<PartitionLog>> e : futures.entrySet()) {
        try {
          PartitionLog l = e.getValue().get();
          logs.put(e.getKey(), l);
          reports.add(l.recoveryReport());
          scanned += l.recoveryReport().bytesScanned();
          truncated += l.recoveryReport().bytesTruncated();
        } catch (java.util.concurrent.ExecutionException ex) {
          Throwable cause = ex.getCause();
          failed.put(
              e.getKey(),
              new LogRecoveryException(
                  "[partition=" + e.getKey() + "] cannot be opened: " + cause.getMessage(), cause));
          log.error("[partition={}] cannot be opened; it stays offline", e.getKey(), cause);
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
          throw new LogStorageException("interrupted while opening " + dataDir, ex);
        }
      }
      String previous =
          clean
              ? "a clean shutdown"
              : partitionDirs.isEmpty() ? "no previous run" : "an UNCLEAN shutdown";
      log.info(
          "opened {} partitions in {} ({} failed) in {} ms after {}: {} bytes scanned, "
              + "{} bytes truncated",
          logs.size(),
          dataDir,
          failed.size(),
          (clock.nanoTime() - startNs) / 1_000_000L,
          previous,
          scanned,
          truncated);
    } finally {
      pool.shutdownNow();
    }
  }

  private void offlineIfAReplicaFailedToOpen() {
    if (!failed.isEmpty()) {
      // A replica this broker cannot open is a storage error like any other
      // (docs/architecture.md#storage-errors): serving the rest while the controller still counts
      // this replica in its ISR would let it be elected leader of a partition it cannot serve. The
      // directory goes offline, the heartbeat reports it and the controller moves the leaderships.
      markOffline(
          failed.size()
              + " partition(s) could not be opened at startup ("
              + failedSummary()
              + "); repair or remove their directories and restart: a removed replica is"
              + " fetched again from the leader");
    }
  }

  private String failedSummary() {
    StringBuilder b = new StringBuilder();
    failed.entrySet().stream()
        .sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(TopicPartition::toString)))
        .limit(3)
        .forEach(
            e -> {
              if (b.length() > 0) {
                b.append("; ");
              }
              Throwable why =
                  e.getValue().getCause() == null ? e.getValue() : e.getValue().getCause();
              b.append(e.getKey()).append(": ").append(why.getMessage());
            });
    if (failed.size() > 3) {
      b.append("; and ").append(failed.size() - 3).append(" more");
    }
    return b.toString();
  }

  private void startBackgroundTasks() {
    scheduler.scheduleWithFixedDelay(
        this::checkpointSafely,
        config.checkpointIntervalMs(),
        config.checkpointIntervalMs(),
        TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        this::runRetention,
        config.retentionCheckIntervalMs(),
        config.retentionCheckIntervalMs(),
        TimeUnit.MILLISECONDS);
  }

  private void checkpointSafely() {
    if (isOffline()) {
      return;
    }
    try {
      checkpointHighWatermarksAndRecoveryPoints();
    } catch (RuntimeException e) {
      log.error("checkpointing {} failed", dataDir, e);
      if (e instanceof LogStorageException) {
        markOffline("checkpoint failed: " + e.getMessage());
      }
    }
  }

  // ---------------------------------------------------------------- directory failure

  /**
   * Installs what runs, once, when the directory goes offline (the replica manager takes every
   * replica here offline and the broker's heartbeat reports it). Call before any traffic.
   */
  public void onOffline(Consumer<String> action) {
    this.onOffline = action;
  }

  /**
   * The data directory failed: an I/O error on any of its files (append, roll, flush, read,
   * truncation, checkpoint, retention). The one place a storage error takes the directory offline
   * (Kafka's log-dir failure channel): the first call wins and logs; from then on no checkpoint,
   * retention or cleaning runs here, the installed {@link #onOffline} action runs, and {@link
   * #close} writes no clean-shutdown marker, so the next start recovers every log. It stays offline
   * until the node restarts. Any thread.
   */
  public void markOffline(String reason) {
    if (!offlineReason.compareAndSet(null, reason)) {
      return;
    }
    log.error(
        "data directory {} is OFFLINE: {}; its replicas stop serving until the node restarts on a"
            + " healthy disk",
        dataDir,
        reason);
    onOffline.accept(reason);
  }

  /** Whether the directory failed ({@link #markOffline}). Any thread. */
  public boolean isOffline() {
    return offlineReason.get() != null;
  }

  /** The directories that failed: this one once offline, else none (the heartbeat's field). */
  public List<String> offlineDirs() {
    return isOffline() ? List.of(dataDir.toString()) : List.of();
  }

  /** Why the directory went offline ("" while online). */
  public String offlineReason() {
    String r = offlineReason.get();
    return r == null ? "" : r;
  }

  private void runRetention() {
    if (isOffline()) {
      return;
    }
    long nowMs = clock.nowMs();
    for (PartitionLog l : logs.values()) {
      boolean queued =
          partitionExecutor.execute(
              l.topicPartition(),
              () -> {
                try {
                  l.deleteRetainedSegments(nowMs);
                  int expired =
                      l.producerState()
                          .removeExpiredProducers(nowMs, config.producerIdExpirationMs());
                  if (expired > 0) {
                    log.info(
                        "[partition={}] forgot {} expired producers", l.topicPartition(), expired);
                  }
                } catch (RuntimeException e) {
                  log.error("[partition={}] retention failed", l.topicPartition(), e);
                  if (e instanceof LogStorageException) {
                    markOffline(
                        "retention of " + l.topicPartition() + " failed: " + e.getMessage());
                  }
                }
              });
      if (!queued) {
        log.warn("[partition={}] retention skipped: its owner is busy", l.topicPartition());
      }
    }
  }

  /**
   * Where the time (ns) of every log flush goes from now on, for every log open now and later (each
   * reports through this manager): the broker's flush-latency metric. Any thread.
   */
  public void observeFlushes(LongConsumer nanos) {
    flushTimes = nanos; // every log reports through this field
  }

  /** Installs how retention and the cleaner reach a partition's owner thread. */
  public void setPartitionExecutor(PartitionExecutor executor) {
    this.partitionExecutor = executor;
  }

  /**
   * Starts the log cleaner's threads (when {@code log.cleaner.enable}); call after {@link
   * #setPartitionExecutor}, since the cleaner swaps segments through it.
   */
  public void startCleaner() {
    ensureOpen();
    if (config.cleaner().enabled()) {
      cleaner.start();
    }
  }

  /** The log cleaner (its threads run after {@link #startCleaner}). */
  public LogCleaner cleaner() {
    return cleaner;
  }

  public Path dataDir() {
    return dataDir;
  }

  public Optional<PartitionLog> get(TopicPartition tp) {
    return Optional.ofNullable(logs.get(tp));
  }

  public Collection<PartitionLog> all() {
    return List.copyOf(logs.values());
  }

  /** Partitions that could not be opened at startup, with why. */
  public Map<TopicPartition, Throwable> failedPartitions() {
    return Map.copyOf(failed);
  }

  /** One report per partition opened at startup. */
  public List<RecoveryReport> recoveryReports() {
    return List.copyOf(reports);
  }

  /**
   * The log of {@code tp}, created if absent. An existing directory recorded with a different topic
   * id holds a stale log of a deleted topic of the same name: it is deleted and a fresh log
   * created.
   */
  public synchronized PartitionLog getOrCreate(
      TopicPartition tp, String topicId, LogConfig config) {
    ensureOpen();
    PartitionLog existing = logs.get(tp);
    if (existing != null && !existing.configConfirmed() && !existing.isClosed()) {
      existing.updateConfig(
          config); // its own config, at last (on the owner thread, as callers are)
    }
    if (existing != null) {
      if (existing.topicId() == null && topicId != null) {
        existing.assignTopicId(topicId); // a directory from before topic ids were recorded
        return existing;
      }
      if (topicId == null || existing.topicId().equals(topicId)) {
        return existing;
      }
      log.warn(
          "[partition={}] on disk belongs to topic id {}, not {}: deleting the stale log",
          tp,
          existing.topicId(),
          topicId);
      delete(tp);
    }
    Path dir = partitionDir(tp);
    Optional<String> onDisk = PartitionMetadataFile.read(dir);
    if (onDisk.isPresent() && topicId != null && !onDisk.get().equals(topicId)) {
      // A directory that failed to open or was never loaded: stale as well.
      renameAndDeleteLater(dir, tp, null, 0);
    }
    failed.remove(tp);
    PartitionLog created =
        PartitionLog.open(
            dir, tp, topicId, config, new LogStartupState(0, 0, 0, false), clock, scheduler);
    created.flushTimes = ns -> flushTimes.accept(ns);
    created.backgroundStorageErrors = this::markOffline;
    logs.put(tp, created);
    return created;
  }

  /**
   * Removes the partition: its directory is renamed to {@code <dir>.<uuid>-delete} at once (so a
   * restart never reopens it), the log is closed and the files deleted after {@code
   * file.delete.delay.ms} (in-flight reads finish).
   */
  public synchronized void delete(TopicPartition tp) {
    ensureOpen();
    PartitionLog l = logs.remove(tp);
    if (l == null) {
      return;
    }
    renameAndDeleteLater(l.dir(), tp, l, l.config().fileDeleteDelayMs());
  }

  /**
   * The directory of {@code tp}, refused unless it is a direct child of the data dir: the metadata
   * quorum refuses illegal topic names on replay already, and a name that slipped past it must
   * still not create or delete files elsewhere.
   */
  private Path partitionDir(TopicPartition tp) {
    Path dir = dataDir.resolve(tp.toString()).normalize();
    if (!dataDir.normalize().equals(dir.getParent())
        || !dir.getFileName().toString().equals(tp.toString())) {
      throw new IllegalArgumentException(
          "partition " + tp + " would be a directory outside " + dataDir + "; refused");
    }
    return dir;
  }

  private void renameAndDeleteLater(Path dir, TopicPartition tp, PartitionLog l, long delayMs) {
    Path target =
        dataDir.resolve(
            tp + "." + UUID.randomUUID().toString().replace("-", "") + DELETE_DIR_SUFFIX);
    try {
      Files.move(dir, target);
      dev.spool.broker.log.internal.CheckpointFile.fsyncDirectory(dataDir);
    } catch (IOException e) {
      throw new LogStorageException(
          "[partition=" + tp + "] cannot rename " + dir + " for deletion: " + e.getMessage(), e);
    }
    log.info("[partition={}] deleted; files go in {} ms ({})", tp, delayMs, target.getFileName());
    scheduler.schedule(
        () -> {
          try {
            if (l != null && !l.isClosed()) {
              l.closeForDeletion();
            }
            deleteRecursively(target);
          } catch (RuntimeException e) {
            log.warn("[partition={}] cannot remove {}: {}", tp, target, e.toString());
          }
        },
        delayMs,
        TimeUnit.MILLISECONDS);
  }

  /** Writes the three offset checkpoint files from the open logs (any thread). */
  public void checkpointHighWatermarksAndRecoveryPoints() {
    synchronized (checkpointLock) {
      writeCheckpoints();
    }
  }

  private void writeCheckpoints() {
    Map<TopicPartition, Long> hw = new HashMap<>();
    Map<TopicPartition, Long> rp = new HashMap<>();
    Map<TopicPartition, Long> start = new HashMap<>();
    Map<TopicPartition, CleanerCheckpoint> cleaned = new HashMap<>();
    for (PartitionLog l : logs.values()) {
      hw.put(l.topicPartition(), l.highWatermark());
      rp.put(l.topicPartition(), l.recoveryPoint());
      start.put(l.topicPartition(), l.logStartOffset());
      cleaned.put(l.topicPartition(), l.cleanerCheckpoint());
    }
    highWatermarks.write(hw);
    recoveryPoints.write(rp);
    logStartOffsets.write(start);
    cleanerCheckpoints.write(cleaned);
  }

  /**
   * Clean shutdown: stop background tasks, close every log (flush, producer snapshot), write the
   * checkpoints, then the clean-shutdown marker — only if every step succeeded. Partition owner
   * threads must have stopped mutating before.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    // The cleaner first: a swap it handed to an owner thread has run (or never will) after this.
    cleaner.close();
    // Not holding the monitor while waiting: a running checkpoint task may need it.
    scheduler.shutdown();
    try {
      scheduler.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (isOffline()) {
      closeOffline();
      return;
    }
    boolean allClean = failed.isEmpty();
    AtomicInteger closedLogs = new AtomicInteger();
    for (PartitionLog l : logs.values()) {
      try {
        l.close();
        closedLogs.incrementAndGet();
      } catch (RuntimeException e) {
        allClean = false;
        log.error(
            "[partition={}] close failed; the next start will recover it", l.topicPartition(), e);
      }
    }
    try {
      checkpointHighWatermarksAndRecoveryPoints();
      if (allClean) {
        Path marker = dataDir.resolve(CLEAN_SHUTDOWN_FILE);
        Files.write(marker, new byte[0]);
        dev.spool.broker.log.internal.CheckpointFile.fsyncDirectory(dataDir);
      }
    } catch (IOException | RuntimeException e) {
      log.error("clean shutdown of {} incomplete; the next start will recover", dataDir, e);
    }
    log.info(
        "closed {} partitions in {}{}",
        closedLogs.get(),
        dataDir,
        allClean ? " cleanly" : " (not cleanly: recovery will scan at next start)");
  }

  /** Close of a failed directory: files closed unflushed, nothing written, no marker. */
  private void closeOffline() {
    for (PartitionLog l : logs.values()) {
      try {
        l.closeForDeletion();
      } catch (RuntimeException e) {
        log.warn(
            "[partition={}] close of a log in a failed directory: {}",
            l.topicPartition(),
            e.toString());
      }
    }
    log.info(
        "closed {} partitions in the failed directory {} without writing to it: the next start"
            + " recovers them",
        logs.size(),
        dataDir);
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("log manager of " + dataDir + " is closed");
    }
  }

  /** Deletes a directory tree (used for deleted partitions; also by the demo). */
  public static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc)
                throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new LogStorageException("cannot delete " + root + ": " + e.getMessage(), e);
    }
  }
}
