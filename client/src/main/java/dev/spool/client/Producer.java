package dev.spool.client;

import dev.spool.client.internal.ClientContext;
import dev.spool.client.internal.metadata.MetadataWaiter;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.client.internal.producer.BufferPool;
import dev.spool.client.internal.producer.KeyPartitioner;
import dev.spool.client.internal.producer.ProduceState;
import dev.spool.client.internal.producer.ProducerBatch;
import dev.spool.client.internal.producer.ProducerStats;
import dev.spool.client.internal.producer.RecordAccumulator;
import dev.spool.client.internal.producer.Sender;
import dev.spool.client.internal.producer.StickyPartitioner;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends records to Spool, batching them per partition, with idempotence on by default (retries
 * neither duplicate nor reorder records). Thread-safe: many threads may send at once.
 *
 * <pre>{@code
 * try (Producer p = new Producer(Map.of("bootstrap.servers", "127.0.0.1:9092"))) {
 *   p.send(ProducerRecord.of("orders", "key-1", "hello")).join();
 * }
 * }</pre>
 *
 * <p>{@link #send} returns at once with a future, except that it blocks (up to {@code
 * max.block.ms}) while the topic's metadata is unknown or {@code buffer.memory} is used up. The
 * future fails with a {@link ProduceException} (a {@link SpoolException} that also tells whether
 * the record may have been appended anyway) whose code says why: e.g. UNKNOWN_TOPIC_OR_PARTITION,
 * MESSAGE_TOO_LARGE, REQUEST_TIMED_OUT (not acknowledged within {@code delivery.timeout.ms}, or no
 * buffer memory within {@code max.block.ms}), OUT_OF_ORDER_SEQUENCE. Futures of one partition
 * complete in the order of their sends. They complete on the producer's I/O thread: callbacks
 * chained on them must not block (and must not call {@link #flush()}).
 */
public final class Producer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Producer.class);

  private final ProducerConfig config;
  private final ClientContext context;
  private final Clock clock;
  private final RecordAccumulator accumulator;
  private final ProduceState state;
  private final Sender sender;
  private final StickyPartitioner sticky;
  private final ProducerStats stats = new ProducerStats();
  private final long maxBlockMs;
  private final String maxBlockLimit;
  private final int maxRequestSize;
  private final long bufferMemory;
  private volatile boolean closed;

  /**
   * A producer with {@code props} (see {@link ProducerConfig}); only bootstrap.servers is required.
   */
  public Producer(Map<String, String> props) {
    this(new ProducerConfig(props));
  }

  public Producer(ProducerConfig config) {
    this(config, Clock.SYSTEM);
  }

  Producer(ProducerConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.maxBlockMs = config.get(ProducerConfig.MAX_BLOCK_MS);
    this.maxBlockLimit = "max.block.ms=" + maxBlockMs;
    this.maxRequestSize = config.get(ProducerConfig.MAX_REQUEST_SIZE);
    this.bufferMemory = config.get(ProducerConfig.BUFFER_MEMORY);
    int batchSize = config.get(ProducerConfig.BATCH_SIZE);
    int maxInFlight = config.get(ProducerConfig.MAX_IN_FLIGHT);
    this.context =
        new ClientContext(
            "producer",
            ProducerConfig.COMMON.read(config.config()),
            maxInFlight + 1,
            16 * 1024 * 1024,
            clock);
    this.accumulator =
        new RecordAccumulator(
            batchSize,
            config.get(ProducerConfig.LINGER_MS),
            config.get(ProducerConfig.DELIVERY_TIMEOUT_MS),
            new BufferPool(bufferMemory, batchSize),
            config.compression(),
            maxRequestSize,
            config.get(ProducerConfig.QUEUE_TARGET_MS));
    this.state =
        new ProduceState(
            config.idempotent(),
            config.acks() == -1,
            maxInFlight,
            config.get(ProducerConfig.RETRIES),
            config.get(ProducerConfig.DELIVERY_TIMEOUT_MS),
            context.retryBackoff(),
            accumulator,
            stats);
    this.sender =
        new Sender(
            new Sender.Settings(
                config.acks(),
                config.get(ProducerConfig.REQUEST_TIMEOUT_MS),
                maxRequestSize,
                maxInFlight,
                context.retryBackoff()),
            accumulator,
            state,
            context.metadata(),
            context.refresher(),
            context.network(),
            clock,
            stats);
    this.sticky =
        new StickyPartitioner(batchSize, tp -> accumulator.hasQueueRoom(tp, clock.monotonicMs()));
    log.info(
        "[client={}] {} (idempotent={})",
        context.clientId(),
        config.toLogString(),
        config.idempotent());
    sender.wakeup();
  }

  /**
   * Queues {@code record} for sending and returns its future (see the class doc). Throws only
   * {@link IllegalStateException} when the producer is closed, and {@link NullPointerException}.
   */
  public CompletableFuture<RecordMetadata> send(ProducerRecord record) {
    Objects.requireNonNull(record, "record");
    if (closed) {
      throw new IllegalStateException("producer closed");
    }
    RuntimeException fatal = sender.fatalError();
    if (fatal != null) {
      return CompletableFuture.failedFuture(notSent(fatal));
    }
    long deadlineMs = clock.monotonicMs() + maxBlockMs;
    try {
      List<PartitionInfo> partitions =
          awaitPartitions(record.topic(), record.partition(), deadlineMs);
      int partition = choosePartition(record, partitions);
      int size =
          ProducerBatch.estimateSizeUpperBound(record.key(), record.value(), record.headers());
      if (size > maxRequestSize || size > bufferMemory) {
        return CompletableFuture.failedFuture(
            notSent(
                new SpoolException(
                    ErrorCode.MESSAGE_TOO_LARGE,
                    "record of about "
                        + size
                        + " bytes exceeds max.request.size="
                        + maxRequestSize
                        + " or buffer.memory="
                        + bufferMemory)));
      }
      long timestamp = record.timestamp() != null ? record.timestamp() : clock.nowMs();
      long now = clock.monotonicMs();
      RecordAccumulator.AppendResult r =
          accumulator.append(
              new TopicPartition(record.topic(), partition),
              timestamp,
              record.key(),
              record.value(),
              record.headers(),
              Math.max(0, deadlineMs - now),
              now);
      if (record.partition() == null && record.key() == null) {
        sticky.onAppend(record.topic(), partition, r.appendedBytes(), partitions);
      }
      if (r.batchIsFull() || r.newBatchCreated()) {
        sender.wakeup();
      }
      return r.future();
    } catch (SpoolException e) {
      return CompletableFuture.failedFuture(notSent(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A refusal before the record reached a batch: nothing of it can be in any log. */
  private static RuntimeException notSent(RuntimeException e) {
    return e instanceof SpoolException se && !(e instanceof ProduceException)
        ? new ProduceException(se, false)
        : e;
  }

  private int choosePartition(ProducerRecord record, List<PartitionInfo> partitions) {
    if (record.partition() != null) {
      return record.partition();
    }
    if (record.key() != null) {
      return KeyPartitioner.partition(record.key(), partitions.size());
    }
    return sticky.partition(record.topic(), partitions);
  }

  /** The topic's partitions, waiting for metadata up to {@code deadlineMs} (monotonic). */
  private List<PartitionInfo> awaitPartitions(String topic, Integer partition, long deadlineMs)
      throws InterruptedException {
    List<PartitionInfo> known = context.metadata().snapshot().partitionsFor(topic);
    if (known != null && !known.isEmpty() && (partition == null || partition < known.size())) {
      return known; // the common case: no allocation, no lock
    }
    return MetadataWaiter.awaitPartitions(
        context.metadata(), clock, topic, partition, deadlineMs, maxBlockLimit);
  }

  /** The topic's partitions (blocking up to {@code max.block.ms} for metadata). */
  public List<TopicPartition> partitionsFor(String topic) {
    try {
      return awaitPartitions(topic, null, clock.monotonicMs() + maxBlockMs).stream()
          .map(PartitionInfo::topicPartition)
          .toList();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "interrupted", e);
    }
  }

  /**
   * The partition as this producer's metadata cache knows it now (leader, leader epoch, replicas,
   * ISR), without asking the cluster; empty while the partition is unknown. What the next send to
   * it is sent by: e.g. to see when a producer learned of a new leader after a failover.
   */
  public Optional<TopicDescription.PartitionDescription> cachedPartition(TopicPartition tp) {
    PartitionInfo p = context.metadata().snapshot().partition(tp);
    return p == null
        ? Optional.empty()
        : Optional.of(
            new TopicDescription.PartitionDescription(
                tp.partition(),
                p.leaderId(),
                p.leaderEpoch(),
                p.replicas(),
                p.isr(),
                p.offlineReplicas()));
  }

  /**
   * Runs {@code listener} after every change of this producer's metadata cache (a refresh, or a
   * leader named by a produce answer), on the producer's I/O thread: it must be quick and must not
   * block or send. With {@link #cachedPartition} it tells when the producer learned of a change.
   */
  public void addMetadataListener(Runnable listener) {
    context.metadata().addUpdateListener(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Sends everything queued now without waiting for {@code linger.ms} and blocks until each of
   * those records has completed (successfully or not).
   */
  public void flush() {
    if (context.network().inEventLoop()) {
      throw new IllegalStateException("flush() from a send callback would deadlock the I/O thread");
    }
    accumulator.beginFlush();
    try {
      sender.wakeup();
      accumulator.incompleteDone().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException("batch completion failed", e.getCause());
    } finally {
      accumulator.endFlush();
    }
  }

  /** Counters and latency since the producer started. */
  public ProducerMetrics metrics() {
    return stats.snapshot();
  }

  /** The client id sent in requests (configured or generated). */
  public String clientId() {
    return context.clientId();
  }

  /** Closes after every queued record completed, waiting as long as it takes. */
  @Override
  public void close() {
    close(Duration.ofMillis(Long.MAX_VALUE));
  }

  /**
   * Stops accepting records, sends what is queued and waits up to {@code timeout} for it to
   * complete; records still pending then fail with an {@link IllegalStateException}. From a send
   * callback (the I/O thread) the wait is skipped.
   */
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    closed = true;
    accumulator.close();
    sender.wakeup();
    long waitMs = context.network().inEventLoop() ? 0 : timeout.toMillis();
    try {
      accumulator.incompleteDone().get(waitMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.warn(
          "[client={}] closing with records still pending after {} ms", context.clientId(), waitMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    IllegalStateException closedError =
        new IllegalStateException("producer closed before the record was acknowledged");
    accumulator.pool().close();
    Runnable abort = () -> sender.abortAll(closedError);
    if (context.network().inEventLoop()) {
      abort.run();
    } else {
      try {
        context.network().eventLoop().submit(abort).get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.warn(
            "[client={}] aborting pending records failed: {}", context.clientId(), e.toString());
      }
    }
    context.close();
  }
}
