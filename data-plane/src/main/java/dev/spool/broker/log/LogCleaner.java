package dev.spool.broker.log;

import dev.spool.broker.log.internal.CleanPlan;
import dev.spool.broker.log.internal.CleanableRange;
import dev.spool.broker.log.internal.Cleaner;
import dev.spool.broker.log.internal.LogSegment;
import dev.spool.broker.log.internal.LogSegments;
import dev.spool.broker.log.internal.Throttler;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.CorruptRecordException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner of one data directory (docs/architecture.md#compaction): {@code
 * log.cleaner.threads} threads that each pick the compacted partition with the highest dirty ratio
 * (Kafka's "filthiest" log: above {@code min.cleanable.dirty.ratio}, or past {@code
 * max.compaction.lag.ms}, or holding a tombstone whose delete horizon passed), clean it ({@link
 * Cleaner}) and record the result. Each replica cleans on its own; nothing is coordinated with
 * other brokers.
 *
 * <p>Threads: the cleaner threads {@code log-cleaner-<dir>-<n>} read segments lock-free and write
 * cleaned segments that belong to no log yet. Everything that changes a log runs on the log's owner
 * thread through the {@link LogManager.PartitionExecutor} (the partition's worker on a broker):
 * taking the plan (a consistent view with producer state), each replacement of segments, and
 * recording the result. A cleaner thread hands such a step over and waits for it; a step not yet
 * started when the cleaner stops is cancelled (it then never runs), one already running is waited
 * for. A refused step (the worker's queue is full) abandons the clean; it is tried again after
 * {@code log.cleaner.backoff.ms}. A partition whose clean hit a corrupt batch or an I/O error is
 * left alone until the broker restarts, as Kafka does; the broker keeps serving it.
 */
public final class LogCleaner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);
  private static final int PENDING = 0;
  private static final int RUNNING = 1;
  private static final int CANCELLED = 2;

  private final CleanerConfig config;
  private final Clock clock;
  private final Supplier<Collection<PartitionLog>> logs;
  private final Function<TopicPartition, PartitionLog> lookup;
  private final Supplier<LogManager.PartitionExecutor> owners;
  private final Runnable afterClean;
  private final Throttler throttler;
  private final String name;
  private final Set<TopicPartition> inProgress = ConcurrentHashMap.newKeySet();
  private final Map<TopicPartition, Long> retryAfterMs = new ConcurrentHashMap<>();
  private final Map<TopicPartition, String> uncleanable = new ConcurrentHashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  /** Held while a cleaner thread writes checkpoints, and by {@link #close} to interrupt them. */
  private final Object checkpointGate = new Object();

  /**
   * A cleaner over {@code logs} (read on every pick; {@code lookup} tells whether a log is still
   * the one managed for its partition), handing owner steps to {@code owners}' current executor;
   * {@code afterClean} runs on the cleaner thread after each successful clean (the manager writes
   * its checkpoints).
   */
  LogCleaner(
      String name,
      CleanerConfig config,
      Clock clock,
      Supplier<Collection<PartitionLog>> logs,
      Function<TopicPartition, PartitionLog> lookup,
      Supplier<LogManager.PartitionExecutor> owners,
      Runnable afterClean) {
    this.name = name;
    this.config = config;
    this.clock = clock;
    this.logs = logs;
    this.lookup = lookup;
    this.owners = owners;
    this.afterClean = afterClean;
    this.throttler = new Throttler(config.ioMaxBytesPerSecond(), clock);
  }

  /** Starts the threads. */
  synchronized void start() {
    if (!threads.isEmpty() || stopping) {
      return;
    }
    for (int i = 0; i < config.threads(); i++) {
      Cleaner cleaner =
          new Cleaner(
              config.dedupeBufferBytesPerThread(), config.ioBufferBytes(), throttler, clock);
      Thread t = new Thread(() -> run(cleaner), "log-cleaner-" + name + "-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    log.info(
        "log cleaner of {} started: {} threads, {} bytes of key map each",
        name,
        config.threads(),
        config.dedupeBufferBytesPerThread());
  }

  /** Stops the threads: cleans in progress are abandoned at their next step. */
  @Override
  public void close() {
    List<Thread> started;
    synchronized (this) {
      stopping = true;
      started = List.copyOf(threads);
    }
    // Under the gate: a thread writing its checkpoint finishes first (an interrupt would close the
    // file's channel mid-write, ClosedByInterruptException); one that has not begun sees stopping
    // and skips it. The log manager writes every checkpoint on close anyway.
    synchronized (checkpointGate) {
      started.forEach(Thread::interrupt);
    }
    for (Thread t : started) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Partitions left alone after a failed clean, with why. */
  public Map<TopicPartition, String> uncleanablePartitions() {
    return Map.copyOf(uncleanable);
  }

  private void run(Cleaner cleaner) {
    while (!stopping) {
      try {
        if (!cleanFilthiest(cleaner)) {
          Thread.sleep(config.backoffMs());
        }
      } catch (InterruptedException e) {
        if (stopping) {
          return;
        }
      } catch (RuntimeException e) {
        log.error("log cleaner of {}: unexpected failure; going on", name, e);
      }
    }
  }

  /**
   * Cleans the filthiest partition, if one needs it; false when none did. For the cleaner threads
   * and for tests that drive a cleaner themselves.
   */
  boolean cleanFilthiest(Cleaner cleaner) throws InterruptedException {
    PartitionLog chosen = grabFilthiest(clock.nowMs());
    if (chosen == null) {
      return false;
    }
    TopicPartition tp = chosen.topicPartition();
    try {
      clean(cleaner, chosen);
    } catch (Cleaner.AbortedException e) {
      log.info("{}clean abandoned: {}", prefix(chosen), e.getMessage());
      retryAfterMs.put(tp, clock.nowMs() + config.backoffMs());
    } catch (LogStorageException | CorruptRecordException e) {
      uncleanable.put(tp, e.getMessage());
      log.error(
          "{}clean failed; the partition is not cleaned again until the broker restarts",
          prefix(chosen),
          e);
    } finally {
      inProgress.remove(tp);
    }
    return true;
  }

  private PartitionLog grabFilthiest(long nowMs) {
    PartitionLog best = null;
    double bestRatio = -1;
    for (PartitionLog l : logs.get()) {
      TopicPartition tp = l.topicPartition();
      LogConfig cfg = l.config();
      if (!cfg.cleanup().compact()
          || !l.configConfirmed()
          || l.isClosed()
          || inProgress.contains(tp)
          || uncleanable.containsKey(tp)
          || retryAfterMs.getOrDefault(tp, Long.MIN_VALUE) > nowMs) {
        continue;
      }
      CleanerCheckpoint cp = l.cleanerCheckpoint();
      CleanableRange r = range(l, cfg, cp, nowMs);
      boolean tombstonesDue = cp.tombstoneExpiryMs() >= 0 && cp.tombstoneExpiryMs() <= nowMs;
      boolean due =
          tombstonesDue
              || (r.cleanableBytes() > 0
                  && (r.mustCleanNow() || r.dirtyRatio() > cfg.cleanup().minCleanableDirtyRatio()));
      if (due && r.dirtyRatio() > bestRatio) {
        best = l;
        bestRatio = r.dirtyRatio();
      }
    }
    if (best != null && !inProgress.add(best.topicPartition())) {
      return null; // another thread took it meanwhile
    }
    return best;
  }

  private void clean(Cleaner cleaner, PartitionLog l) throws InterruptedException {
    long nowMs = clock.nowMs();
    CleanPlan plan = onOwner(l, () -> plan(l, nowMs));
    if (plan == null) {
      return;
    }
    LogSegments segments = l.segmentSet();
    Cleaner.Result result =
        cleaner.clean(
            plan,
            segments.stepHook(),
            () -> stopping || !live(l),
            (cleaned, old) -> {
              try {
                return onOwner(l, () -> live(l) && replace(l, cleaned, old, plan.generation()));
              } catch (Cleaner.AbortedException refused) {
                return false;
              }
            });
    onOwner(
        l,
        () -> {
          if (l.truncationGeneration() == plan.generation()) {
            CleanerCheckpoint old = l.cleanerCheckpoint();
            l.setCleanerCheckpoint(
                new CleanerCheckpoint(
                    result.endOffset(),
                    clock.nowMs(),
                    result.stats().durationMs(),
                    old.bytesCleaned() + result.stats().bytesRead(),
                    result.tombstoneExpiryMs()));
          }
          return Boolean.TRUE;
        });
    retryAfterMs.remove(l.topicPartition());
    synchronized (checkpointGate) {
      if (!stopping) {
        afterClean.run();
      }
    }
  }

  /** Whether {@code l} is open and still the log of its partition (not deleted, not re-created). */
  private boolean live(PartitionLog l) {
    return !l.isClosed() && lookup.apply(l.topicPartition()) == l;
  }

  /** Owner thread: the plan, or null when there is nothing to clean now. */
  private static CleanPlan plan(PartitionLog l, long nowMs) {
    return l.mutate(
        "planClean",
        () -> {
          LogConfig cfg = l.config();
          if (!cfg.cleanup().compact() || !l.configConfirmed()) {
            return null;
          }
          return CleanPlan.of(
              l.dir(),
              "[partition=" + l.topicPartition() + "] ",
              l.segmentSet().all(),
              range(l, cfg, l.cleanerCheckpoint(), nowMs),
              l.producerState().activeProducers(),
              l.truncationGeneration(),
              cfg,
              nowMs);
        });
  }

  /** Owner thread: the replacement, unless the log changed since the plan. */
  private static boolean replace(
      PartitionLog l, LogSegment cleaned, List<LogSegment> old, long generation) {
    return l.mutate(
        "replaceSegments",
        () -> {
          LogSegments segments = l.segmentSet();
          if (l.truncationGeneration() != generation) {
            return false;
          }
          for (LogSegment s : old) {
            if (!segments.contains(s) || s == segments.active()) {
              return false;
            }
          }
          segments.replace(cleaned, old, l.config().fileDeleteDelayMs());
          return true;
        });
  }

  private static CleanableRange range(
      PartitionLog l, LogConfig cfg, CleanerCheckpoint cp, long nowMs) {
    return CleanableRange.of(
        l.segmentSet().all(),
        l.logStartOffset(),
        l.logEndOffset(),
        l.highWatermark(),
        cp.firstDirtyOffset(),
        cfg.cleanup(),
        nowMs);
  }

  /**
   * What the cleaner could do with {@code l} now, from lock-free reads (any thread; an estimate).
   */
  public static CleanerStatus status(PartitionLog l, long nowMs) {
    LogConfig cfg = l.config();
    CleanerCheckpoint cp = l.cleanerCheckpoint();
    CleanableRange r = range(l, cfg, cp, nowMs);
    return new CleanerStatus(
        cfg.cleanup().compact(),
        r.firstDirtyOffset(),
        r.firstUncleanableOffset(),
        r.cleanableBytes(),
        r.dirtyRatio(),
        cp);
  }

  /**
   * Runs {@code step} on {@code l}'s owner thread and waits for it. Throws {@link
   * Cleaner.AbortedException} when the owner refuses it (queue full) or the log is closed, {@link
   * InterruptedException} when the cleaner stops before the step started (it then never runs).
   */
  private <T> T onOwner(PartitionLog l, Supplier<T> step) throws InterruptedException {
    AtomicInteger state = new AtomicInteger(PENDING);
    CompletableFuture<T> done = new CompletableFuture<>();
    Runnable task =
        () -> {
          if (!state.compareAndSet(PENDING, RUNNING)) {
            return;
          }
          try {
            done.complete(step.get());
          } catch (Throwable t) {
            done.completeExceptionally(t);
          }
        };
    if (!owners.get().execute(l.topicPartition(), task)) {
      throw new Cleaner.AbortedException("the partition's owner refused the step (busy)");
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return done.get(100, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (stopping && state.compareAndSet(PENDING, CANCELLED)) {
            throw new InterruptedException("the cleaner is stopping");
          }
        } catch (InterruptedException e) {
          if (state.compareAndSet(PENDING, CANCELLED)) {
            throw e;
          }
          interrupted = true; // the step runs: wait for it
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IllegalStateException && l.isClosed()) {
            throw new Cleaner.AbortedException("the log was closed");
          }
          if (cause instanceof RuntimeException re) {
            throw re;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static String prefix(PartitionLog l) {
    return "[partition=" + l.topicPartition() + "] ";
  }
}
