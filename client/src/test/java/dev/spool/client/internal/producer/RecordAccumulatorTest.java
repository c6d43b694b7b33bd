package dev.spool.client.internal.producer;

import static dev.spool.client.internal.producer.ProducerFixtures.NODE_1;
import static dev.spool.client.internal.producer.ProducerFixtures.bytes;
import static dev.spool.client.internal.producer.ProducerFixtures.snapshot;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.Node;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("unit")
@Timeout(10)
class RecordAccumulatorTest {
  private static final TopicPartition TP0 = new TopicPartition("t", 0);
  private static final TopicPartition TP1 = new TopicPartition("t", 1);
  private static final RecordAccumulator.DrainGate OPEN =
      new RecordAccumulator.DrainGate() {
        @Override
        public boolean mayDrain(TopicPartition tp, Node leader, ProducerBatch first) {
          return true;
        }

        @Override
        public void onDrain(ProducerBatch batch) {}
      };

  private final MetadataSnapshot md = snapshot("t", 2, NODE_1);

  private RecordAccumulator accumulator(int batchSize, long lingerMs, long memory) {
    return new RecordAccumulator(batchSize, lingerMs, 120_000, new BufferPool(memory, batchSize));
  }

  @Test
  void shouldBatchRecordsOfAPartitionUntilTheBatchIsFull() throws Exception {
    RecordAccumulator acc = accumulator(1024, 1000, 64 * 1024);
    int appended = 0;
    RecordAccumulator.AppendResult r;
    do {
      r = acc.append(TP0, 1000, null, new byte[100], List.of(), 0, 0);
      appended++;
    } while (!r.batchIsFull());
    assertTrue(appended > 5, "several records share a batch: " + appended);
    assertEquals(
        Set.of(NODE_1), acc.ready(md, 0, OPEN).readyNodes(), "a full batch is ready at once");
    Map<Node, List<ProducerBatch>> drained = acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN);
    ProducerBatch b = drained.get(NODE_1).get(0);
    assertTrue(b.estimatedSizeBytes() <= 1024);
    RecordBatch view = RecordBatch.at(b.bytes(), b.bytes().position());
    assertTrue(view.isValid(), view.validationError());
    assertEquals(b.recordCount(), view.recordsCount());
  }

  @Test
  void compressedBatchesGrowUntilTheirCompressedSizeNearsTheBatchSize() throws Exception {
    int batchSize = 16 * 1024;
    RecordAccumulator acc =
        new RecordAccumulator(
            batchSize,
            1000,
            120_000,
            new BufferPool(1 << 20, batchSize),
            Compression.of(CompressionType.ZSTD),
            1 << 20,
            0);
    byte[] value =
        "{\"event\":\"page_view\",\"path\":\"/home\",\"user\":42}"
            .repeat(10)
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ProducerBatch last = null;
    for (int batch = 0; batch < 200; batch++) {
      RecordAccumulator.AppendResult r;
      do {
        r = acc.append(TP0, 1000, null, value, List.of(), 0, 0);
      } while (!r.batchIsFull());
      last = acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN).get(NODE_1).get(0);
      RecordBatch view = RecordBatch.at(last.bytes(), last.bytes().position());
      assertTrue(view.isValid(), view.validationError());
      assertEquals(CompressionType.ZSTD, view.compressionType());
      assertTrue(view.sizeInBytes() <= batchSize * 11 / 10, "batch " + batch + ": " + view);
      if (batch < 199) {
        acc.deallocate(last);
      }
    }
    // Highly compressible records: the estimate learned the ratio, so the last batch holds far
    // more than batch.size of records (up to 8x), yet compresses to about batch.size or less.
    long uncompressed = (long) last.recordCount() * value.length;
    assertTrue(uncompressed > 4L * batchSize, "records of the last batch: " + uncompressed);
  }

  @Test
  void shouldHoldAPartialBatchForLingerMs() throws Exception {
    RecordAccumulator acc = accumulator(16 * 1024, 5, 64 * 1024);
    acc.append(TP0, 1000, bytes("k"), bytes("v"), List.of(), 0, 100);
    RecordAccumulator.ReadyCheck early = acc.ready(md, 102, OPEN);
    assertTrue(early.readyNodes().isEmpty());
    assertEquals(3, early.nextReadyCheckDelayMs());
    assertEquals(Set.of(NODE_1), acc.ready(md, 105, OPEN).readyNodes());
  }

  @Test
  void shouldMakeEverythingReadyDuringFlush() throws Exception {
    RecordAccumulator acc = accumulator(16 * 1024, 60_000, 64 * 1024);
    acc.append(TP0, 1000, null, bytes("v"), List.of(), 0, 0);
    assertTrue(acc.ready(md, 1, OPEN).readyNodes().isEmpty());
    acc.beginFlush();
    assertEquals(Set.of(NODE_1), acc.ready(md, 1, OPEN).readyNodes());
    acc.endFlush();
  }

  @Test
  void shouldDrainOneBatchPerPartitionPerRequestWithinTheSizeLimit() throws Exception {
    RecordAccumulator acc = accumulator(1024, 0, 64 * 1024);
    for (int i = 0; i < 30; i++) {
      acc.append(TP0, 1000, null, new byte[100], List.of(), 0, 0);
      acc.append(TP1, 1000, null, new byte[100], List.of(), 0, 0);
    }
    Map<Node, List<ProducerBatch>> drained = acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN);
    List<ProducerBatch> batches = drained.get(NODE_1);
    assertEquals(2, batches.size());
    assertEquals(
        Set.of(TP0, TP1), Set.of(batches.get(0).topicPartition, batches.get(1).topicPartition));
    List<ProducerBatch> small = acc.drain(md, Set.of(NODE_1), 100, 0, OPEN).get(NODE_1);
    assertEquals(1, small.size(), "the first batch always goes, the second would exceed the limit");
  }

  @Test
  void shouldEncodeRecordsReadableByTheCursor() throws Exception {
    RecordAccumulator acc = accumulator(16 * 1024, 0, 64 * 1024);
    acc.append(
        TP0,
        1000,
        bytes("k1"),
        bytes("v1"),
        List.of(new dev.spool.record.Header("h", bytes("x"))),
        0,
        0);
    acc.append(TP0, 1001, null, bytes("v2"), List.of(), 0, 0);
    ProducerBatch b = acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN).get(NODE_1).get(0);
    RecordBatch batch = MemoryRecords.wrap(b.bytes()).batches().next();
    RecordCursor c = new RecordCursor().reset(batch);
    assertTrue(c.next());
    assertEquals("k1", c.keyAsString());
    assertEquals("v1", c.valueAsString());
    assertEquals(1, c.headerCount());
    assertTrue(c.next());
    assertEquals(null, c.keyAsString());
    assertEquals(1001, c.timestamp());
    assertFalse(c.next());
  }

  @Test
  void shouldBlockAppendsWhileBufferMemoryIsExhausted() throws Exception {
    RecordAccumulator acc = accumulator(1024, 0, 2048);
    acc.append(TP0, 1000, null, new byte[900], List.of(), 0, 0);
    acc.append(TP1, 1000, null, new byte[900], List.of(), 0, 0);
    CompletableFuture<RecordAccumulator.AppendResult> blocked =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return acc.append(TP0, 1000, null, new byte[900], List.of(), 10_000, 0);
              } catch (InterruptedException e) {
                throw new RuntimeException(e);
              }
            });
    await().until(() -> acc.pool().queuedWaiters() == 1);
    assertEquals(Set.of(NODE_1), acc.ready(md, 0, OPEN).readyNodes(), "waiters make batches ready");
    ProducerBatch sent = acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN).get(NODE_1).get(0);
    assertFalse(blocked.isDone());
    sent.complete(0, -1);
    acc.deallocate(sent);
    assertTrue(blocked.join().newBatchCreated());
  }

  @Test
  void shouldExpireOnlyFromTheFrontAndOnlyWhenAllowed() throws Exception {
    RecordAccumulator acc = new RecordAccumulator(1024, 0, 1000, new BufferPool(64 * 1024, 1024));
    acc.append(TP0, 1000, null, new byte[10], List.of(), 0, 0);
    assertTrue(acc.expiredBatches(999, tp -> true).isEmpty());
    assertTrue(acc.expiredBatches(1000, tp -> false).isEmpty());
    assertEquals(1, acc.expiredBatches(1000, tp -> true).size());
  }

  @Test
  void shouldReenqueueRetriesInSequenceOrderAheadOfNewBatches() throws Exception {
    RecordAccumulator acc = accumulator(1024, 0, 64 * 1024);
    ProducerBatch[] sent = new ProducerBatch[3];
    for (int i = 0; i < 3; i++) {
      acc.append(TP0, 1000, null, new byte[10], List.of(), 0, 0);
      sent[i] = acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN).get(NODE_1).get(0);
      sent[i].setProducerState(5, (short) 0, i * 10);
    }
    acc.append(TP0, 1000, null, new byte[10], List.of(), 0, 0);
    acc.reenqueue(List.of(sent[2]));
    acc.reenqueue(List.of(sent[0], sent[1]));
    List<Integer> order = new java.util.ArrayList<>();
    acc.forEachQueued(TP0, b -> order.add(b.baseSequence));
    assertEquals(List.of(0, 10, 20, -1), order);
  }

  // ------------------------------------------------------------------ queue bound

  private RecordAccumulator bounded(int batchSize, long memory, long queueTargetMs) {
    return new RecordAccumulator(
        batchSize,
        1000,
        120_000,
        new BufferPool(memory, batchSize),
        Compression.NONE,
        1 << 20,
        queueTargetMs);
  }

  /** Appends 100-byte records to {@code tp} without blocking until one is refused; the count. */
  private static int appendUntilRefused(RecordAccumulator acc, TopicPartition tp, long nowMs)
      throws InterruptedException {
    for (int appended = 0; appended < 1_000_000; appended++) {
      try {
        acc.append(tp, 1000, null, new byte[100], List.of(), 0, nowMs);
      } catch (SpoolException e) {
        assertEquals(ErrorCode.REQUEST_TIMED_OUT, e.errorCode(), e.getMessage());
        return appended;
      }
    }
    throw new AssertionError("never refused");
  }

  private static int records(Map<Node, List<ProducerBatch>> drained) {
    return drained.values().stream()
        .flatMap(List::stream)
        .mapToInt(ProducerBatch::recordCount)
        .sum();
  }

  @Test
  void aPartitionWhoseLeaderDoesNotDrainQueuesTwoBatchesNotTheWholeBuffer() throws Exception {
    int batchSize = 1024;
    RecordAccumulator acc = bounded(batchSize, 64 * batchSize, 20);
    int appended = appendUntilRefused(acc, TP0, 0);
    long queued = acc.queuedBytes(TP0);
    assertTrue(
        queued > 2 * batchSize && queued <= 3 * batchSize,
        "two full batches wait and one fills: " + queued);
    assertTrue(
        acc.pool().availableBytes() >= 60 * batchSize,
        "memory is not what stopped it: " + acc.pool().availableBytes());
    // Another partition is not held back by the first one's queue.
    assertTrue(acc.hasQueueRoom(TP1, 0));
    acc.append(TP1, 1000, null, new byte[100], List.of(), 0, 0);
    assertFalse(acc.hasQueueRoom(TP0, 0));
    // The sender takes TP0's first batch: there is room again, and nothing was lost.
    int drained = records(acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN));
    assertTrue(acc.hasQueueRoom(TP0, 0));
    acc.append(TP0, 1000, null, new byte[100], List.of(), 0, 0);
    while (acc.queuedBytes(TP0) > 0) {
      drained += records(acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN));
    }
    assertEquals(appended + 2, drained, "every record drained once");
  }

  @Test
  void anAppendBlockedByTheQueueBoundGoesOnWhenTheSenderTakesABatch() throws Exception {
    int batchSize = 1024;
    RecordAccumulator acc = bounded(batchSize, 64 * batchSize, 20);
    appendUntilRefused(acc, TP0, 0);
    CompletableFuture<RecordAccumulator.AppendResult> blocked = new CompletableFuture<>();
    Thread appender =
        new Thread(
            () -> {
              try {
                blocked.complete(acc.append(TP0, 1000, null, new byte[100], List.of(), 60_000, 0));
              } catch (Throwable t) {
                blocked.completeExceptionally(t);
              }
            });
    appender.start();
    await().until(() -> appender.getState() == Thread.State.TIMED_WAITING);
    assertFalse(blocked.isDone());
    acc.drain(md, Set.of(NODE_1), 1 << 20, 0, OPEN);
    assertTrue(blocked.get(5, java.util.concurrent.TimeUnit.SECONDS).newBatchCreated());
    appender.join();
  }

  @Test
  void closingWakesAnAppendWaitingForQueueRoom() throws Exception {
    RecordAccumulator acc = bounded(1024, 64 * 1024, 20);
    appendUntilRefused(acc, TP0, 0);
    CompletableFuture<Void> blocked = new CompletableFuture<>();
    Thread appender =
        new Thread(
            () -> {
              try {
                acc.append(TP0, 1000, null, new byte[100], List.of(), 60_000, 0);
                blocked.complete(null);
              } catch (Throwable t) {
                blocked.completeExceptionally(t);
              }
            });
    appender.start();
    await().until(() -> appender.getState() == Thread.State.TIMED_WAITING);
    acc.close();
    await().until(blocked::isDone);
    assertTrue(blocked.isCompletedExceptionally());
    appender.join();
  }

  @Test
  void aLeaderThatDrainsQuicklyIsNeverThrottledAndEarnsADeeperQueue() throws Exception {
    int batchSize = 1024;
    RecordAccumulator acc = bounded(batchSize, 64 * batchSize, 20);
    // The sender takes every batch as it fills (a fast leader): no append ever waits. 400 batches
    // in 200 ms is about 2 MB/s, so 20 ms of it is about 40 batches.
    long now = 0;
    int appended = 0;
    int drained = 0;
    for (int batch = 0; batch < 400; batch++) {
      RecordAccumulator.AppendResult r;
      do {
        r = acc.append(TP0, 1000, null, new byte[100], List.of(), 0, now);
        appended++;
      } while (!r.batchIsFull());
      for (List<ProducerBatch> bs : acc.drain(md, Set.of(NODE_1), 1 << 20, now, OPEN).values()) {
        for (ProducerBatch b : bs) {
          drained += b.recordCount();
          acc.deallocate(b);
        }
      }
      if (batch % 2 == 1) {
        now++;
      }
    }
    assertTrue(acc.queueLimitBytes(TP0, now) >= 20L * batchSize, "limit follows the drain rate");
    // Now the leader stops taking batches: the queue grows to the drain rate's 20 ms, not more.
    appended += appendUntilRefused(acc, TP0, now);
    long queued = acc.queuedBytes(TP0);
    assertTrue(queued > 10L * batchSize && queued <= 60L * batchSize, "queued " + queued);
    while (acc.queuedBytes(TP0) > 0) {
      drained += records(acc.drain(md, Set.of(NODE_1), 1 << 20, now, OPEN));
    }
    assertEquals(appended, drained, "every record drained once");
  }

  @Test
  void withoutAQueueTargetOnlyBufferMemoryBoundsThePartition() throws Exception {
    int batchSize = 1024;
    RecordAccumulator acc = bounded(batchSize, 16 * batchSize, 0);
    appendUntilRefused(acc, TP0, 0);
    assertTrue(acc.queuedBytes(TP0) > 14L * batchSize, "queued " + acc.queuedBytes(TP0));
    assertEquals(0, acc.pool().availableBytes());
  }

  @Test
  void drainRateIsTheLastFullWindowUntilItGoesStale() {
    RecordAccumulator.DrainRate rate = new RecordAccumulator.DrainRate();
    assertEquals(0, rate.bytesPerSecond(0));
    for (long t = 0; t <= 200; t += 10) {
      rate.record(1000, t);
    }
    assertEquals(105_000, rate.bytesPerSecond(200), "21 kB in 200 ms");
    assertEquals(105_000, rate.bytesPerSecond(300));
    assertEquals(0, rate.bytesPerSecond(2000), "stale after five windows");
  }
}
