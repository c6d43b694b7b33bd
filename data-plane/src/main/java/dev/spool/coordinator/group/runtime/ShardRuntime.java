package dev.spool.coordinator.group.runtime;

import dev.spool.broker.log.LogReadResult;
import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.ProduceResult;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.core.CoordinatorRecord;
import dev.spool.coordinator.group.core.CoordinatorTimers;
import dev.spool.coordinator.group.core.GroupRecords;
import dev.spool.coordinator.group.core.GroupShard;
import dev.spool.coordinator.group.core.TopicsView;
import dev.spool.coordinator.group.record.OffsetCommitKey;
import dev.spool.coordinator.group.record.OffsetCommitValue;
import dev.spool.record.RecordBatchBuilder;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator of one {@code __consumer_offsets} partition while this broker leads it in one
 * leader epoch: LOADING (replaying the partition into a fresh {@link GroupShard}), ACTIVE, or
 * CLOSED (leadership lost). Runs operations on the shard, appends the records they emit, and
 * answers each once everything written before it is committed.
 *
 * <p>A write that fails (not enough replicas, timed out, leadership lost) may or may not be in the
 * log, and the shard already holds its effects; so the shard is thrown away and loaded again from
 * the log, which is the truth. Answers waiting on it fail with a retriable code.
 *
 * <p>The committed offsets are also kept in a concurrent map for scrapes ({@link
 * #committedOffsets}, read by {@link dev.spool.broker.metrics.GroupLagGauges} on the ops thread),
 * filled from the records this runtime replays and writes, so a scrape never queues work on the
 * owner worker.
 *
 * <p>Threading: every method runs on the partition's owner worker, except {@link #committedOffsets}
 * (any thread); timers hop there through {@link Executor}.
 */
final class ShardRuntime {
  private static final Logger log = LoggerFactory.getLogger(ShardRuntime.class);

  /** Queues work on the partition's owner worker; false when refused. */
  interface Executor {
    boolean execute(Runnable task);
  }

  private enum State {
    LOADING,
    ACTIVE,
    CLOSED
  }

  private record HwWaiter(long offset, CompletableFuture<Void> future) {}

  /** One group's committed offset of one partition, keyed for the scrape-time view. */
  record GroupPartition(String groupId, TopicPartition tp) {}

  private final TopicPartition tp;
  private final int leaderEpoch;
  private final Partition partition;
  private final CoordinatorConfig config;
  private final Executor executor;
  private final Timer timer;
  private final Clock clock;
  private final Supplier<TopicsView> topics;
  private final String logPrefix;
  private final Map<String, Timeout> timeouts = new HashMap<>();
  private final List<HwWaiter> hwWaiters = new ArrayList<>();
  private State state = State.LOADING;
  private int generation;
  private GroupShard shard;
  private CompletableFuture<Void> lastWrite = CompletableFuture.completedFuture(null);

  /** The offsets of the shard being loaded or served; written on the owner worker only. */
  private ConcurrentHashMap<GroupPartition, Long> offsetsView = new ConcurrentHashMap<>();

  /** {@link #offsetsView} once loaded, null while loading or closed: what scrapes read. */
  private volatile Map<GroupPartition, Long> publishedOffsets;

  ShardRuntime(
      Partition partition,
      int leaderEpoch,
      CoordinatorConfig config,
      Executor executor,
      Timer timer,
      Clock clock,
      Supplier<TopicsView> topics,
      int brokerId) {
    this.tp = partition.topicPartition();
    this.partition = partition;
    this.leaderEpoch = leaderEpoch;
    this.config = config;
    this.executor = executor;
    this.timer = timer;
    this.clock = clock;
    this.topics = topics;
    this.logPrefix = "[node=" + brokerId + " coordinator " + tp + " epoch " + leaderEpoch + "]";
  }

  int leaderEpoch() {
    return leaderEpoch;
  }

  boolean isLoading() {
    return state == State.LOADING;
  }

  // ---------------------------------------------------------------- loading

  /** Starts (or restarts) loading the partition into a fresh shard. */
  void load(String why) {
    if (state == State.CLOSED) {
      return;
    }
    generation++;
    cancelTimers();
    state = State.LOADING;
    if (shard != null) {
      // The classic protocol's held JoinGroups and SyncGroups: the members find the coordinator
      // again and rejoin the reloaded group.
      shard.failParked(
          new SpoolException(
              ErrorCode.NOT_COORDINATOR, "the coordinator of " + tp + " is reloading: " + why));
    }
    shard = new GroupShard(config.groups(), new Timers(generation), topics, ShardRuntime::newId);
    publishedOffsets = null;
    offsetsView = new ConcurrentHashMap<>();
    PartitionLog l = partition.log();
    long end = l.logEndOffset();
    long start = l.logStartOffset();
    log.info("{} loading offsets {}..{} ({})", logPrefix, start, end, why);
    int gen = generation;
    long startNs = clock.nanoTime();
    if (!executor.execute(() -> loadStep(gen, start, end, startNs, 0))) {
      retryLater(() -> load(why));
    }
  }

  private static String newId() {
    return UUID.randomUUID().toString();
  }

  private void loadStep(int gen, long next, long end, long startNs, long records) {
    if (gen != generation || state != State.LOADING) {
      return;
    }
    long[] count = {records};
    long at = next;
    if (at < end) {
      try {
        LogReadResult r =
            partition
                .log()
                .read(
                    Math.max(at, partition.log().logStartOffset()),
                    config.loadBufferBytes(),
                    end,
                    true);
        if (!r.slice().isEmpty()) {
          ByteBuffer bytes = RecordReader.read(r.slice());
          at =
              RecordReader.replay(
                  bytes,
                  at,
                  rec -> {
                    shard.replay(rec);
                    track(rec);
                    count[0]++;
                  },
                  logPrefix);
        } else {
          at = end; // nothing more below the end offset we load to
        }
      } catch (IOException | RuntimeException e) {
        log.error("{} loading failed at offset {}; retrying", logPrefix, at, e);
        retryLater(() -> load("retry after a read failure"));
        return;
      }
    }
    if (at < end) {
      long resume = at;
      if (!executor.execute(() -> loadStep(gen, resume, end, startNs, count[0]))) {
        retryLater(() -> load("worker busy while loading"));
      }
      return;
    }
    shard.onLoaded();
    state = State.ACTIVE;
    publishedOffsets = offsetsView;
    lastWrite = whenCommitted(end);
    log.info(
        "{} loaded {} records, {} groups, in {} ms",
        logPrefix,
        count[0],
        shard.groups().size(),
        TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNs));
  }

  private void retryLater(Runnable task) {
    int gen = generation;
    timer.newTimeout(
        t ->
            executor.execute(
                () -> {
                  if (gen == generation) {
                    task.run();
                  }
                }),
        100,
        TimeUnit.MILLISECONDS);
  }

  // ---------------------------------------------------------------- operations

  /**
   * Runs {@code op} on the shard, writes what it emitted, and completes {@code out} with its result
   * once committed, or with {@code onError}'s answer.
   */
  <T> void run(
      Function<GroupShard, T> op, Function<SpoolException, T> onError, CompletableFuture<T> out) {
    if (state == State.CLOSED) {
      out.complete(onError.apply(notCoordinator()));
      return;
    }
    if (state == State.LOADING) {
      out.complete(
          onError.apply(
              new SpoolException(
                  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
                  "the coordinator of " + tp + " is still loading")));
      return;
    }
    T result;
    try {
      result = op.apply(shard);
    } catch (RuntimeException e) {
      log.error("{} operation failed; reloading the partition", logPrefix, e);
      shard.drainRecords();
      List<GroupShard.Reply<?>> lost = shard.drainReplies();
      load("an operation failed: " + e);
      SpoolException failed = new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(e));
      out.complete(onError.apply(failed));
      lost.forEach(r -> r.future().completeExceptionally(failed));
      return;
    }
    List<GroupShard.Reply<?>> replies = shard.drainReplies();
    List<CoordinatorRecord> records = shard.drainRecords();
    // Shown at once, as the shard holds it; a write that fails reloads the shard and this view.
    records.forEach(this::track);
    write(records)
        .whenComplete(
            (v, err) -> {
              if (err == null) {
                out.complete(result);
                replies.forEach(GroupShard.Reply::complete);
              } else {
                SpoolException e = asSpool(err);
                out.complete(onError.apply(e));
                replies.forEach(r -> r.future().completeExceptionally(e));
              }
            });
  }

  SpoolException notCoordinator() {
    return new SpoolException(
        ErrorCode.NOT_COORDINATOR,
        "this broker no longer leads " + tp + ": find the group's coordinator again");
  }

  static SpoolException asSpool(Throwable t) {
    Throwable c =
        t instanceof java.util.concurrent.CompletionException && t.getCause() != null
            ? t.getCause()
            : t;
    return c instanceof SpoolException s
        ? s
        : new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(c));
  }

  /** Appends {@code records}; the future completes when they and every earlier write commit. */
  private CompletableFuture<Void> write(List<CoordinatorRecord> records) {
    if (records.isEmpty()) {
      return lastWrite;
    }
    RecordBatchBuilder b = new RecordBatchBuilder();
    long now = clock.nowMs();
    for (CoordinatorRecord r : records) {
      b.append(now, GroupRecords.encodeKey(r), GroupRecords.encodeValue(r));
    }
    CompletableFuture<ProduceResult> appended;
    try {
      appended = partition.appendAsLeader(b.build(), -1, leaderEpoch, config.commitTimeoutMs());
    } catch (RuntimeException e) {
      appended =
          CompletableFuture.completedFuture(
              ProduceResult.error(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(e)));
    }
    int gen = generation;
    CompletableFuture<Void> done = new CompletableFuture<>();
    appended.whenComplete(
        (r, err) -> {
          ErrorCode code = err != null ? ErrorCode.UNKNOWN_SERVER_ERROR : r.error();
          if (code == ErrorCode.NONE) {
            done.complete(null);
            return;
          }
          String msg = err != null ? String.valueOf(err) : r.message();
          done.completeExceptionally(
              new SpoolException(clientCode(code), "writing to " + tp + " failed: " + msg));
          if (gen == generation && state == State.ACTIVE) {
            log.warn("{} a write failed ({} {}); reloading from the log", logPrefix, code, msg);
            load("a write failed");
          }
        });
    lastWrite = done;
    return done;
  }

  /** Kafka's mapping of a failed write to what the client should do. */
  static ErrorCode clientCode(ErrorCode write) {
    return switch (write) {
      case NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH ->
          ErrorCode.NOT_COORDINATOR;
      case NOT_ENOUGH_REPLICAS,
          NOT_ENOUGH_REPLICAS_AFTER_APPEND,
          REQUEST_TIMED_OUT,
          UNKNOWN_TOPIC_OR_PARTITION,
          STORAGE_ERROR ->
          ErrorCode.COORDINATOR_NOT_AVAILABLE;
      default -> ErrorCode.UNKNOWN_SERVER_ERROR;
    };
  }

  // ---------------------------------------------------------------- offsets for scrapes

  /** Keeps {@link #offsetsView} in step with the shard: commits and their tombstones. */
  private void track(CoordinatorRecord r) {
    if (r.type() != CoordinatorRecord.RecordType.OFFSET_COMMIT) {
      return;
    }
    OffsetCommitKey k = (OffsetCommitKey) r.key();
    GroupPartition gp =
        new GroupPartition(k.getGroupId(), new TopicPartition(k.getTopic(), k.getPartition()));
    if (r.isTombstone()) {
      offsetsView.remove(gp);
    } else {
      offsetsView.put(gp, ((OffsetCommitValue) r.value()).getOffset());
    }
  }

  /**
   * The committed offsets of this shard's groups, null while it loads or after it closed. Any
   * thread: a live concurrent map, so a reader sees each entry current or a moment old.
   */
  Map<GroupPartition, Long> committedOffsets() {
    return publishedOffsets;
  }

  // ---------------------------------------------------------------- high watermark

  private CompletableFuture<Void> whenCommitted(long offset) {
    if (partition.log().highWatermark() >= offset) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> f = new CompletableFuture<>();
    hwWaiters.add(new HwWaiter(offset, f));
    return f;
  }

  void onHighWatermark(long hw) {
    Iterator<HwWaiter> it = hwWaiters.iterator();
    while (it.hasNext()) {
      HwWaiter w = it.next();
      if (w.offset() <= hw) {
        it.remove();
        w.future().complete(null);
      }
    }
  }

  // ---------------------------------------------------------------- stop

  /** Leadership lost: drop the state; whatever waits fails with NOT_COORDINATOR. */
  void close(String why) {
    if (state == State.CLOSED) {
      return;
    }
    log.info("{} unloaded: {}", logPrefix, why);
    state = State.CLOSED;
    publishedOffsets = null;
    generation++;
    cancelTimers();
    SpoolException e = notCoordinator();
    if (shard != null) {
      shard.failParked(e);
    }
    shard = null;
    hwWaiters.forEach(w -> w.future().completeExceptionally(e));
    hwWaiters.clear();
  }

  private void cancelTimers() {
    timeouts.values().forEach(Timeout::cancel);
    timeouts.clear();
  }

  // ---------------------------------------------------------------- timers

  /** The shard's timers on the broker's wheel timer; a fired task runs as an operation. */
  private final class Timers implements CoordinatorTimers {
    private final int gen;

    Timers(int gen) {
      this.gen = gen;
    }

    @Override
    public void schedule(String key, long delayMs, Runnable task) {
      cancel(key);
      Timeout[] self = new Timeout[1];
      self[0] =
          timer.newTimeout(
              t -> fire(key, self[0], task), Math.max(1, delayMs), TimeUnit.MILLISECONDS);
      timeouts.put(key, self[0]);
    }

    @Override
    public void cancel(String key) {
      Timeout t = timeouts.remove(key);
      if (t != null) {
        t.cancel();
      }
    }

    /** Timer thread: hop to the owner worker (later if it is busy). */
    private void fire(String key, Timeout timeout, Runnable task) {
      Runnable onOwner =
          () -> {
            if (gen != generation || state != State.ACTIVE || timeouts.get(key) != timeout) {
              return;
            }
            timeouts.remove(key);
            run(
                s -> {
                  task.run();
                  return null;
                },
                e -> null,
                new CompletableFuture<>());
          };
      if (!executor.execute(onOwner)) {
        timer.newTimeout(t -> fire(key, timeout, task), 100, TimeUnit.MILLISECONDS);
      }
    }
  }
}
