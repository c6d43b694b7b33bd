package dev.spool.client;

import dev.spool.client.internal.ClientContext;
import dev.spool.client.internal.consumer.ConsumerStats;
import dev.spool.client.internal.consumer.CoordinatorClient;
import dev.spool.client.internal.consumer.Fetcher;
import dev.spool.client.internal.consumer.GroupHeartbeat;
import dev.spool.client.internal.consumer.GroupReconciler;
import dev.spool.client.internal.consumer.OffsetLookup;
import dev.spool.client.internal.metadata.LeaderCalls;
import dev.spool.client.internal.metadata.MetadataWaiter;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads records, either as a member of a consumer group ({@code group.id} and {@link #subscribe}:
 * the group's coordinator assigns partitions and keeps committed positions) or from partitions the
 * application picks ({@link #assign}, then {@link #seek}/{@link #seekToBeginning}/{@link
 * #seekToEnd} or let {@code auto.offset.reset} decide); then {@link #poll} in a loop.
 *
 * <p>In a group, membership heartbeats run on the client's I/O thread; the rebalance listener runs
 * inside {@code poll}. A newly assigned partition starts at its committed offset (with the leader
 * epoch committed beside it, so a truncation across the handover is detected), else per {@code
 * auto.offset.reset}. With {@code enable.auto.commit} consumed positions are committed every {@code
 * auto.commit.interval.ms}, before partitions are revoked and on close.
 *
 * <pre>{@code
 * try (Consumer c = new Consumer(Map.of("bootstrap.servers", "127.0.0.1:9092"))) {
 *   c.assign(c.partitionsFor("orders"));
 *   c.seekToBeginning(c.assignment());
 *   for (ConsumerRecord r : c.poll(Duration.ofSeconds(1))) { ... }
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one thread uses a consumer at a time, except {@link #wakeup()}. Fetches
 * long-poll ({@code fetch.max.wait.ms}) and are pipelined: the next fetch is on its way while the
 * application processes the previous answer. Leader changes are followed transparently; when the
 * log was truncated under the consumer (an unclean leader election), the position moves back to
 * where the logs agree, a warning is logged and {@link ConsumerMetrics#truncationsDetected()}
 * counts it, instead of returning records that no longer exist. Errors are {@link SpoolException}s
 * thrown by {@code poll}: e.g. UNKNOWN_TOPIC_OR_PARTITION, OFFSET_OUT_OF_RANGE (with {@code
 * auto.offset.reset=none}), CORRUPT_MESSAGE, UNSUPPORTED_COMPRESSION_TYPE.
 */
public final class Consumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Consumer.class);
  private static final long GROUP_POLL_SLICE_MS = 100;

  private final ClientContext context;
  private final Clock clock;
  private final Fetcher fetcher;
  private final ConsumerStats stats = new ConsumerStats();
  private final long defaultApiTimeoutMs;
  private final GroupReconciler group;
  private final CoordinatorClient coordinator;
  private final GroupHeartbeat.Settings heartbeatSettings;
  private volatile boolean closed;
  private volatile boolean wakeupRequested;

  public Consumer(Map<String, String> props) {
    this(new ConsumerConfig(props));
  }

  public Consumer(ConsumerConfig config) {
    this(config, Clock.SYSTEM);
  }

  Consumer(ConsumerConfig config, Clock clock) {
    this.clock = clock;
    this.defaultApiTimeoutMs = config.get(ConsumerConfig.DEFAULT_API_TIMEOUT_MS);
    int maxFrame =
        (int)
            Math.min(
                Integer.MAX_VALUE - 1024,
                (long)
                        Math.max(
                            config.get(ConsumerConfig.FETCH_MAX_BYTES),
                            config.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES))
                    + 16L * 1024 * 1024);
    this.context =
        new ClientContext(
            "consumer", ConsumerConfig.COMMON.read(config.config()), 5, maxFrame, clock);
    Fetcher.Settings settings =
        new Fetcher.Settings(
            config.get(ConsumerConfig.FETCH_MIN_BYTES),
            config.get(ConsumerConfig.FETCH_MAX_WAIT_MS),
            config.get(ConsumerConfig.FETCH_MAX_BYTES),
            config.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES),
            config.get(ConsumerConfig.MAX_POLL_RECORDS),
            Fetcher.PartitionFetchStateReset.valueOf(
                config.get(ConsumerConfig.AUTO_OFFSET_RESET).toUpperCase()),
            config.get(ConsumerConfig.CHECK_CRCS),
            config.get(ConsumerConfig.REQUEST_TIMEOUT_MS));
    OffsetLookup offsets =
        new OffsetLookup(
            new LeaderCalls(
                context.metadata(),
                context.network(),
                clock,
                context.retryBackoff(),
                config.get(ConsumerConfig.REQUEST_TIMEOUT_MS)));
    this.fetcher =
        new Fetcher(
            settings,
            context.metadata(),
            context.network(),
            offsets,
            clock,
            context.retryBackoff(),
            defaultApiTimeoutMs,
            stats);
    String groupId = config.get(ConsumerConfig.GROUP_ID);
    this.heartbeatSettings =
        new GroupHeartbeat.Settings(
            config.get(ConsumerConfig.GROUP_INSTANCE_ID).isEmpty()
                ? null
                : config.get(ConsumerConfig.GROUP_INSTANCE_ID),
            config.get(ConsumerConfig.GROUP_REMOTE_ASSIGNOR),
            config.get(ConsumerConfig.MAX_POLL_INTERVAL_MS),
            config.get(ConsumerConfig.REQUEST_TIMEOUT_MS));
    if (groupId.isEmpty()) {
      this.coordinator = null;
      this.group = null;
    } else {
      this.coordinator =
          new CoordinatorClient(
              groupId,
              context.metadata(),
              context.network(),
              clock,
              context.retryBackoff(),
              config.get(ConsumerConfig.REQUEST_TIMEOUT_MS));
      this.group =
          new GroupReconciler(
              coordinator,
              fetcher,
              clock,
              new GroupReconciler.Settings(
                  config.get(ConsumerConfig.ENABLE_AUTO_COMMIT),
                  config.get(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS),
                  defaultApiTimeoutMs));
    }
    log.info("[client={}] {}", context.clientId(), config.toLogString());
  }

  // ------------------------------------------------------------------ groups

  /**
   * Joins the group ({@code group.id}) subscribed to {@code topics}; the coordinator assigns
   * partitions, which the next polls start reading. Calling it again changes the subscription.
   */
  public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
    Objects.requireNonNull(topics, "topics");
    for (String t : topics) {
      if (t == null || t.isBlank()) {
        throw new IllegalArgumentException("topic names must not be empty: " + topics);
      }
    }
    startGroup(List.copyOf(topics), "", listener);
  }

  public void subscribe(Collection<String> topics) {
    subscribe(topics, ConsumerRebalanceListener.NONE);
  }

  /**
   * Joins the group subscribed to every topic whose whole name matches {@code pattern} (matched by
   * the coordinator, so topics created later are picked up).
   */
  public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
    Objects.requireNonNull(pattern, "pattern");
    startGroup(List.of(), pattern.pattern(), listener);
  }

  private void startGroup(List<String> topics, String regex, ConsumerRebalanceListener listener) {
    checkOpen();
    GroupReconciler g = requireGroup("subscribe");
    if (!g.subscribed() && !fetcher.assignment().isEmpty()) {
      throw new IllegalStateException(
          "subscribe and assign cannot be mixed: assign(List.of()) first");
    }
    GroupHeartbeat hb =
        new GroupHeartbeat(coordinator, context.network(), clock, heartbeatSettings);
    // A poll waiting for records returns when the assignment changes, to apply it at once.
    hb.onChange(fetcher::wakeup);
    // The subscribed topics' metadata is fetched now, beside the coordinator lookup, so the
    // partitions can be fetched as soon as they are granted (a regex's topics are not known yet).
    context.metadata().prefetchTopics(topics);
    g.subscribe(hb, topics, regex, listener);
  }

  private GroupReconciler requireGroup(String what) {
    if (group == null) {
      throw new SpoolException(
          ErrorCode.INVALID_GROUP_ID, what + " needs a consumer group: set group.id");
    }
    return group;
  }

  /** Commits the consumed position of every assigned partition and waits. */
  public void commitSync() {
    commitSync(requireGroup("commitSync").consumedPositions(fetcher.assignment()));
  }

  /**
   * Commits {@code offsets} and waits (up to {@code default.api.timeout.ms}); throws the first
   * partition's error, e.g. PARTITION_NOT_ASSIGNED, OFFSET_METADATA_TOO_LARGE, NON_EMPTY_GROUP.
   */
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
    checkOpen();
    requireGroup("commitSync").commitSync(offsets, defaultApiTimeoutMs);
  }

  public void commitAsync() {
    commitAsync(null);
  }

  /** Commits the consumed positions without waiting; the callback runs in a later poll. */
  public void commitAsync(OffsetCommitCallback callback) {
    commitAsync(requireGroup("commitAsync").consumedPositions(fetcher.assignment()), callback);
  }

  public void commitAsync(
      Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
    checkOpen();
    requireGroup("commitAsync").commitAsync(offsets, callback);
  }

  /** The group's committed offsets of {@code partitions}; a partition without one is absent. */
  public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
    checkOpen();
    return requireGroup("committed").committed(partitions);
  }

  /** Reads exactly these partitions from now on (replacing the previous assignment). */
  public void assign(Collection<TopicPartition> partitions) {
    checkOpen();
    if (group != null && group.subscribed()) {
      throw new IllegalStateException("subscribe and assign cannot be mixed");
    }
    fetcher.assign(List.copyOf(partitions));
  }

  public Set<TopicPartition> assignment() {
    return fetcher.assignment();
  }

  /** The next poll returns records from {@code offset} on. */
  public void seek(TopicPartition tp, long offset) {
    checkOpen();
    fetcher.seek(tp, offset);
  }

  /** Moves to the first offset still in the log (resolved lazily, by the next poll or position). */
  public void seekToBeginning(Collection<TopicPartition> partitions) {
    checkOpen();
    fetcher.seekToBeginning(partitions);
  }

  /** Moves to the high watermark: only records written after now will be read. */
  public void seekToEnd(Collection<TopicPartition> partitions) {
    checkOpen();
    fetcher.seekToEnd(partitions);
  }

  /**
   * The offset of the next record poll returns for {@code tp} (blocks to resolve a pending reset).
   */
  public long position(TopicPartition tp) {
    checkOpen();
    try {
      return fetcher.position(tp);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "interrupted", e);
    }
  }

  /**
   * Records from the assigned partitions, at most {@code max.poll.records}, in offset order per
   * partition; waits up to {@code timeout} for some, returning empty if none came.
   */
  public ConsumerRecords poll(Duration timeout) {
    checkOpen();
    throwIfLoginFailed();
    try {
      if (group == null || !group.subscribed()) {
        if (group != null) {
          group.onPoll();
        }
        ConsumerRecords records = fetcher.poll(timeout.toMillis());
        if (records.isEmpty()) {
          throwIfLoginFailed();
        }
        return records;
      }
      // In a group, poll in short slices so assignment changes are applied while waiting.
      long deadline = clock.monotonicMs() + Math.max(0, timeout.toMillis());
      while (true) {
        group.onPoll();
        long left = deadline - clock.monotonicMs();
        long slice = Math.max(0, Math.min(left, GROUP_POLL_SLICE_MS));
        ConsumerRecords records;
        if (fetcher.assignment().isEmpty()) {
          group.awaitChange(slice);
          records = ConsumerRecords.EMPTY;
        } else {
          records = fetcher.poll(slice);
        }
        if (!records.isEmpty() || clock.monotonicMs() >= deadline || wakeupRequested) {
          wakeupRequested = false;
          return records;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ConsumerRecords.EMPTY;
    }
  }

  /** Makes a poll that is waiting return at once (empty). Safe from any thread. */
  public void wakeup() {
    wakeupRequested = true;
    fetcher.wakeup();
  }

  /** The first offset still in each partition (ListOffsets with -2). */
  public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
    return offsetsOf(partitions, OffsetLookup.EARLIEST);
  }

  /**
   * The high watermark of each partition: the offset the next record will get (ListOffsets with
   * -1).
   */
  public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
    return offsetsOf(partitions, OffsetLookup.LATEST);
  }

  private Map<TopicPartition, Long> offsetsOf(Collection<TopicPartition> partitions, long spec) {
    checkOpen();
    Map<TopicPartition, Long> specs = new HashMap<>();
    partitions.forEach(tp -> specs.put(tp, spec));
    Map<TopicPartition, Long> out = new HashMap<>();
    fetcher.lookup(specs).forEach((tp, o) -> out.put(tp, o == null ? -1L : o.offset()));
    return out;
  }

  /**
   * For each partition, the first record with a timestamp at or after the given one (ms since the
   * epoch), or {@code null} when there is none.
   */
  public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
      Map<TopicPartition, Long> timestamps) {
    checkOpen();
    timestamps
        .values()
        .forEach(
            t -> {
              if (t < 0) {
                throw new IllegalArgumentException("timestamps must be >= 0: " + t);
              }
            });
    return fetcher.lookup(timestamps);
  }

  /** The topic's partitions (blocking up to {@code default.api.timeout.ms} for metadata). */
  public List<TopicPartition> partitionsFor(String topic) {
    checkOpen();
    Objects.requireNonNull(topic, "topic");
    try {
      return MetadataWaiter.awaitPartitions(
              context.metadata(),
              clock,
              topic,
              null,
              clock.monotonicMs() + defaultApiTimeoutMs,
              "default.api.timeout.ms=" + defaultApiTimeoutMs)
          .stream()
          .map(PartitionInfo::topicPartition)
          .toList();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "interrupted", e);
    }
  }

  public ConsumerMetrics metrics() {
    return stats.snapshot();
  }

  public String clientId() {
    return context.clientId();
  }

  /**
   * A failed SASL login (wrong password, mechanism not enabled) reaches the application from poll,
   * as Kafka's consumer throws SaslAuthenticationException, rather than endless empty polls.
   */
  private void throwIfLoginFailed() {
    SpoolException login = context.metadata().authenticationFailure();
    if (login != null) {
      throw new SpoolException(login.errorCode(), login.getMessage(), login);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("consumer closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (group != null) {
      group.close(defaultApiTimeoutMs);
    }
    closed = true;
    context.close();
    fetcher.close();
  }
}
