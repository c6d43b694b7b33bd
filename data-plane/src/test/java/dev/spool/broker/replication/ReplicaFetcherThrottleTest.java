package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.Node;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.record.RecordBatchBuilder;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication throttle in {@link ReplicaFetcher}: broker 1 follows, from broker 2, {@code
 * orders-1} (no reassignment), {@code moving-0} (broker 1 is an adding replica, not in the ISR:
 * throttled) and {@code moving-1} (adding, but already in the ISR: not throttled). The throttle is
 * 1000 B/s. The fetcher's I/O thread is the test thread ({@link ManualIo}) and time is a {@link
 * ManualClock}: scheduled tasks run when the test says their delay has passed.
 */
class ReplicaFetcherThrottleTest {
  private static final String MOVING_ID = "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b";
  private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
  private static final TopicPartition MOVING_0 = new TopicPartition("moving", 0);
  private static final TopicPartition MOVING_1 = new TopicPartition("moving", 1);
  private static final int PARTITION_MAX = 1 << 20;
  private static final int MAX_WAIT_MS = 500;
  private static final long BACKOFF_MS = 100;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(1_000_000L);
  private final ManualIo io = new ManualIo();
  private HandlerTestBroker broker;
  private ReplicationQuota quota;
  private ReplicaFetcher fetcher;

  @BeforeEach
  void setUp() {
    broker = new HandlerTestBroker(dir, clock);
    broker.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.REASSIGNMENT));
    broker.apply(
        Records.topic("moving", MOVING_ID),
        Records.partition(
            new PartitionState(
                MOVING_ID, "moving", 0, List.of(2, 1), List.of(2), 2, 0, 0, List.of(1), List.of())),
        Records.partition(
            new PartitionState(
                MOVING_ID,
                "moving",
                1,
                List.of(2, 1),
                List.of(2, 1),
                2,
                0,
                0,
                List.of(1),
                List.of())),
        Records.replicationThrottle(1000));
    broker.publish();
    Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                follower(MOVING_0).followerFetchState().isPresent()
                    && follower(MOVING_1).followerFetchState().isPresent());
    quota =
        new ReplicationQuota(
            clock, () -> broker.replicas().image().replicationThrottleBytesPerSec());
    fetcher =
        new ReplicaFetcher(
            1,
            2,
            new ReplicaFetcherManager.Settings(
                MAX_WAIT_MS, 1, 10 * PARTITION_MAX, PARTITION_MAX, BACKOFF_MS, 3000),
            io,
            broker.replicas(),
            clock,
            quota);
  }

  @AfterEach
  void tearDown() {
    fetcher.close();
    broker.close();
  }

  private Partition follower(TopicPartition tp) {
    return broker.replicas().partition(tp).orElseThrow();
  }

  private void follow(TopicPartition... tps) {
    for (TopicPartition tp : tps) {
      fetcher.add(follower(tp));
    }
    io.runTasks();
  }

  @Test
  void overQuotaTheThrottledPartitionIsLeftOutUntilTheBucketRefills() {
    follow(ORDERS_1, MOVING_0, MOVING_1);
    FetchRequest first = io.lastRequest();
    assertEquals(Set.of(ORDERS_1, MOVING_0, MOVING_1), Set.copyOf(partitions(first)));
    assertEquals(1000, maxBytes(first, MOVING_0)); // one burst, not the normal max
    assertEquals(PARTITION_MAX, maxBytes(first, ORDERS_1));
    assertEquals(PARTITION_MAX, maxBytes(first, MOVING_1));
    assertEquals(MAX_WAIT_MS, first.getMaxWaitMs());

    quota.record(1300); // 300 B of debt: 300 ms at 1000 B/s
    io.failLastFetch(); // frees the fetch slot; the next fetch goes out after the backoff
    io.runScheduledAfter(BACKOFF_MS);
    FetchRequest over = io.lastRequest();
    assertEquals(Set.of(ORDERS_1, MOVING_1), Set.copyOf(partitions(over)));
    // The others' long poll ends when the bucket has refilled (200 ms left).
    assertEquals(200, over.getMaxWaitMs());

    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    assertEquals(Set.of(ORDERS_1, MOVING_1), Set.copyOf(partitions(io.lastRequest())));

    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    FetchRequest back = io.lastRequest();
    assertEquals(Set.of(ORDERS_1, MOVING_0, MOVING_1), Set.copyOf(partitions(back)));
    assertEquals(MAX_WAIT_MS, back.getMaxWaitMs());
    assertEquals(4, io.sends.size());
  }

  @Test
  void withOnlyThrottledPartitionsItWaitsExactlyUntilTheBucketRefills() {
    follow(MOVING_0);
    assertEquals(List.of(MOVING_0), partitions(io.lastRequest()));
    quota.record(2500); // 1500 B of debt
    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    assertEquals(1, io.sends.size()); // nothing to fetch: no request
    // One wake-up, timed by the bucket (1400 ms left), not a poll every backoff.
    assertEquals(1, io.scheduled.size());
    assertEquals(1400, io.scheduled.get(0).delayMs());
    assertEquals(quota.delayMs(), io.scheduled.get(0).delayMs());
    io.runScheduledAfter(1400);
    assertEquals(2, io.sends.size());
    assertEquals(List.of(MOVING_0), partitions(io.lastRequest()));
  }

  @Test
  void removingTheThrottleAtRuntimeFetchesAtOnceDespiteTheDebt() {
    follow(ORDERS_1, MOVING_0);
    quota.record(10_000);
    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    assertEquals(List.of(ORDERS_1), partitions(io.lastRequest()));

    broker.apply(Records.replicationThrottle(0));
    broker.publish();
    Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> broker.replicas().image().replicationThrottleBytesPerSec() == 0);
    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    FetchRequest unthrottled = io.lastRequest();
    assertEquals(Set.of(ORDERS_1, MOVING_0), Set.copyOf(partitions(unthrottled)));
    assertEquals(PARTITION_MAX, maxBytes(unthrottled, MOVING_0));
  }

  @Test
  void theAnswerCountsOnlyTheThrottledPartitionsBytes() {
    follow(ORDERS_1, MOVING_0);
    ByteBuffer moving = batch(40);
    ByteBuffer orders = batch(40);
    int movingBytes = moving.remaining();
    assertTrue(movingBytes > 1000); // more than the bucket holds: one batch anyway
    Map<TopicPartition, FollowerFetchState> sent = new LinkedHashMap<>();
    sent.put(ORDERS_1, follower(ORDERS_1).followerFetchState().orElseThrow());
    sent.put(MOVING_0, follower(MOVING_0).followerFetchState().orElseThrow());
    FetchResponse body =
        FetchResponse.newBuilder()
            .setErrorCode(ErrorCode.NONE)
            .addTopics(topicAnswer("orders", 1, orders.remaining()))
            .addTopics(topicAnswer("moving", 0, movingBytes))
            .build();
    AtomicBoolean released = new AtomicBoolean();
    fetcher.onAnswer(
        sent,
        Set.of(MOVING_0),
        body,
        Unpooled.wrappedBuffer(orders, moving),
        () -> released.set(true));
    assertEquals(movingBytes, quota.throttledBytesTotal());

    // Both partitions append on their owner worker; then the next fetch goes out without moving-0.
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> !io.tasks.isEmpty());
    io.runTasks();
    assertTrue(released.get());
    assertEquals(40, follower(MOVING_0).log().logEndOffset());
    assertEquals(40, follower(ORDERS_1).log().logEndOffset());
    assertEquals(List.of(ORDERS_1), partitions(io.lastRequest()));
    assertEquals(movingBytes - 1000, quota.delayMs());
  }

  /**
   * How long the fetcher has waited for its leader (what the heartbeat reports, through {@link
   * UnreachableLeaders}): from the first unanswered fetch, through failures and retries, until an
   * answer comes.
   */
  @Test
  void theWaitForAnAnswerLastsThroughFailuresUntilAnAnswer() {
    assertEquals(-1, fetcher.waitingSinceMs(), "nothing sent yet");
    follow(ORDERS_1);
    long firstSent = clock.monotonicMs();
    assertEquals(firstSent, fetcher.waitingSinceMs());
    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    io.failLastFetch();
    io.runScheduledAfter(BACKOFF_MS);
    assertEquals(3, io.sends.size());
    assertEquals(firstSent, fetcher.waitingSinceMs(), "failed fetches are no answer");

    Map<TopicPartition, FollowerFetchState> sent = new LinkedHashMap<>();
    sent.put(ORDERS_1, follower(ORDERS_1).followerFetchState().orElseThrow());
    ByteBuffer orders = batch(1);
    fetcher.onAnswer(
        sent,
        Set.of(),
        FetchResponse.newBuilder()
            .setErrorCode(ErrorCode.NONE)
            .addTopics(topicAnswer("orders", 1, orders.remaining()))
            .build(),
        Unpooled.wrappedBuffer(orders),
        () -> {});
    assertEquals(-1, fetcher.waitingSinceMs(), "answered");
  }

  private static FetchResponse.TopicResponse topicAnswer(String topic, int partition, int size) {
    return FetchResponse.TopicResponse.newBuilder()
        .setName(topic)
        .addPartitions(
            FetchResponse.PartitionResponse.newBuilder()
                .setPartition(partition)
                .setErrorCode(ErrorCode.NONE)
                .setHighWatermark(0)
                .setLogStartOffset(0)
                .setLogEndOffset(40)
                .setRecordsSize(size))
        .build();
  }

  private ByteBuffer batch(int records) {
    RecordBatchBuilder b = new RecordBatchBuilder(4096).baseOffset(0).partitionLeaderEpoch(0);
    for (int i = 0; i < records; i++) {
      b.append(
          clock.nowMs(), ("k" + i).getBytes(), ("value-" + i + "-" + "x".repeat(40)).getBytes());
    }
    return b.build();
  }

  private static List<TopicPartition> partitions(FetchRequest r) {
    List<TopicPartition> out = new ArrayList<>();
    r.getTopicsList()
        .forEach(
            t ->
                t.getPartitionsList()
                    .forEach(p -> out.add(new TopicPartition(t.getName(), p.getPartition()))));
    return out;
  }

  private static int maxBytes(FetchRequest r, TopicPartition tp) {
    Map<TopicPartition, Integer> max = new HashMap<>();
    r.getTopicsList()
        .forEach(
            t ->
                t.getPartitionsList()
                    .forEach(
                        p ->
                            max.put(
                                new TopicPartition(t.getName(), p.getPartition()),
                                p.getPartitionMaxBytes())));
    return max.get(tp);
  }

  /**
   * The fetcher's I/O thread, run by the test: queued tasks run in {@link #runTasks}, scheduled
   * ones when {@link #runScheduledAfter} has moved the clock past their delay; fetches are recorded
   * and answered by the test.
   */
  private final class ManualIo implements ReplicaFetcher.Io {
    record Scheduled(Runnable task, long delayMs, long dueMs) {}

    record Sent(FetchRequest request, CompletableFuture<ClientResponse> answer) {}

    final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    final List<Scheduled> scheduled = new ArrayList<>(); // test thread only
    final List<Sent> sends = new ArrayList<>(); // test thread only

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
      scheduled.add(new Scheduled(task, delayMs, clock.monotonicMs() + delayMs));
    }

    @Override
    public CompletableFuture<ClientResponse> send(
        Node leader, FetchRequest request, long timeoutMs) {
      assertEquals(2, leader.id());
      CompletableFuture<ClientResponse> answer = new CompletableFuture<>();
      sends.add(new Sent(request, answer));
      return answer;
    }

    void runTasks() {
      Runnable r;
      while ((r = tasks.poll()) != null) {
        r.run();
      }
    }

    /** Moves the clock by {@code ms} and runs what is due then (and what that queues). */
    void runScheduledAfter(long ms) {
      clock.advanceMs(ms);
      List<Scheduled> due = new ArrayList<>();
      scheduled.removeIf(s -> s.dueMs() <= clock.monotonicMs() && due.add(s));
      due.forEach(s -> s.task().run());
      runTasks();
    }

    FetchRequest lastRequest() {
      return sends.get(sends.size() - 1).request();
    }

    /** The last fetch fails on the network: the fetcher backs off. */
    void failLastFetch() {
      sends
          .get(sends.size() - 1)
          .answer()
          .completeExceptionally(new IOException("test: no answer"));
      runTasks();
    }
  }
}
