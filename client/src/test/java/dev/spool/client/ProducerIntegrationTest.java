package dev.spool.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.internal.producer.KeyPartitioner;
import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ProduceRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("integration")
@Timeout(60)
class ProducerIntegrationTest {
  private FakeCluster cluster;
  private final List<Producer> producers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    producers.forEach(p -> p.close(Duration.ofSeconds(5)));
    if (cluster != null) {
      cluster.close();
    }
  }

  private Producer producer(String... extra) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.bootstrap());
    props.put("retry.backoff.ms", "10");
    props.put("retry.backoff.max.ms", "50");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    Producer p = new Producer(props);
    producers.add(p);
    return p;
  }

  private static SpoolException failure(CompletableFuture<?> f) {
    CompletionException e = assertThrows(CompletionException.class, f::join);
    return assertInstanceOf(SpoolException.class, e.getCause());
  }

  @Test
  void shouldProduceKeyedRecordsToKafkaCompatiblePartitions() {
    cluster = FakeCluster.start(3);
    cluster.createTopic("orders", 6);
    Producer p = producer();
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      futures.add(p.send(ProducerRecord.of("orders", "key-" + (i % 50), "v" + i)));
    }
    Map<Integer, List<Long>> offsets = new HashMap<>();
    for (int i = 0; i < futures.size(); i++) {
      RecordMetadata m = futures.get(i).join();
      int expected =
          KeyPartitioner.partition(("key-" + (i % 50)).getBytes(StandardCharsets.UTF_8), 6);
      assertEquals(expected, m.partition());
      offsets.computeIfAbsent(m.partition(), k -> new ArrayList<>()).add(m.offset());
    }
    offsets.forEach(
        (partition, list) ->
            assertEquals(
                IntStream.range(0, list.size()).mapToObj(i -> (long) i).toList(),
                list,
                "offsets of partition " + partition + " are consecutive in send order"));
    long total =
        IntStream.range(0, 6)
            .mapToLong(i -> cluster.log(new TopicPartition("orders", i)).logEndOffset())
            .sum();
    assertEquals(1000, total);
    assertEquals(1000, p.metrics().recordsSent());
    assertTrue(
        cluster.broker(1).received(ApiKey.INIT_PRODUCER_ID).size()
                + cluster.broker(2).received(ApiKey.INIT_PRODUCER_ID).size()
                + cluster.broker(3).received(ApiKey.INIT_PRODUCER_ID).size()
            == 1,
        "one producer id");
  }

  @Test
  void shouldKeepOrderWithoutDuplicatesAcrossRetriesTimeoutsAndDroppedConnections() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    AtomicInteger produces = new AtomicInteger();
    cluster.produceHook(
        new FakeCluster.ProduceHook() {
          @Override
          public FakeCluster.Fault decide(TopicPartition t, int broker, byte[] batch) {
            int n = produces.incrementAndGet();
            if (n % 7 == 0) {
              return FakeCluster.Fault.ERROR_BEFORE_APPEND; // NOT_ENOUGH_REPLICAS: nothing written
            }
            if (n % 11 == 0) {
              return FakeCluster.Fault.ERROR_AFTER_APPEND; // written, but answered with an error
            }
            if (n % 13 == 0) {
              return FakeCluster.Fault.CLOSE_CONNECTION;
            }
            return FakeCluster.Fault.NONE;
          }
        });
    Producer p = producer("batch.size", "1024", "linger.ms", "1");
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    // In order: when a record's future completes, the one before it is already done. (Recording
    // the order callbacks run in is racy: a callback registered after its future completed runs on
    // the sending thread, possibly before the producer's thread runs an earlier one's.)
    AtomicReferenceArray<CompletableFuture<RecordMetadata>> all = new AtomicReferenceArray<>(2000);
    List<Integer> outOfOrder = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 2000; i++) {
      int n = i;
      CompletableFuture<RecordMetadata> f =
          p.send(
              new ProducerRecord(
                  "t",
                  0,
                  null,
                  String.format("%06d", i).getBytes(StandardCharsets.UTF_8),
                  null,
                  null));
      all.set(n, f);
      f.whenComplete(
          (m, e) -> {
            if (n > 0 && !all.get(n - 1).isDone()) {
              outOfOrder.add(n);
            }
          });
      futures.add(f);
    }
    for (int i = 0; i < futures.size(); i++) {
      assertEquals(i, futures.get(i).join().offset(), "record " + i);
    }
    List<String> values = cluster.log(tp).values();
    assertEquals(
        IntStream.range(0, 2000).mapToObj(i -> String.format("%06d", i)).toList(),
        values,
        "every record exactly once, in order");
    assertEquals(List.of(), outOfOrder, "futures that completed before the one before them");
    assertTrue(p.metrics().retries() > 0);
  }

  @Test
  void shouldDeliverEveryRecordOnceInOrderUnderRandomFaultsAndLeaderMoves() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    cluster = FakeCluster.start(3);
    cluster.createTopic("t", 4);
    cluster.produceHook(
        (tp, broker, batch) -> {
          int roll;
          synchronized (random) {
            roll = random.nextInt(100);
          }
          if (roll < 5) {
            return FakeCluster.Fault.ERROR_BEFORE_APPEND;
          } else if (roll < 10) {
            return FakeCluster.Fault.ERROR_AFTER_APPEND;
          } else if (roll < 12) {
            return FakeCluster.Fault.CLOSE_CONNECTION;
          }
          return FakeCluster.Fault.NONE;
        });
    Producer p = producer("batch.size", "2048", "linger.ms", "2");
    Map<Integer, List<String>> sent = new HashMap<>();
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    for (int i = 0; i < 4000; i++) {
      int partition = i % 4;
      String v = "r" + i;
      sent.computeIfAbsent(partition, k -> new ArrayList<>()).add(v);
      futures.add(
          p.send(
              new ProducerRecord(
                  "t", partition, null, v.getBytes(StandardCharsets.UTF_8), null, null)));
      if (i % 500 == 250) {
        TopicPartition moved = new TopicPartition("t", random.nextInt(4));
        cluster.moveLeader(moved, 1 + random.nextInt(3));
      }
    }
    for (int i = 0; i < futures.size(); i++) {
      int n = i;
      RecordMetadata m = futures.get(i).join();
      assertEquals(i / 4, m.offset(), () -> "record " + n + " (seed " + seed + ")");
    }
    for (int partition = 0; partition < 4; partition++) {
      assertEquals(
          sent.get(partition),
          cluster.log(new TopicPartition("t", partition)).values(),
          "partition " + partition + " holds each record once, in order (seed " + seed + ")");
    }
  }

  @Test
  void shouldFollowALeaderChangeWithoutLosingOrder() throws Exception {
    cluster = FakeCluster.start(2);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    Producer p = producer("linger.ms", "0");
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      futures.add(
          p.send(
              new ProducerRecord(
                  "t", 0, null, ("r" + i).getBytes(StandardCharsets.UTF_8), null, null)));
      if (i == 100) {
        futures.get(i).join();
        cluster.moveLeader(tp, 2);
      }
    }
    futures.forEach(CompletableFuture::join);
    List<String> values = cluster.log(tp).values();
    assertEquals(IntStream.range(0, 300).mapToObj(i -> "r" + i).toList(), values);
    assertTrue(cluster.broker(2).received(ApiKey.PRODUCE).size() > 0);
  }

  @Test
  void shouldSendTheCachedLeaderEpochWithEachPartition() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    cluster.moveLeader(tp, 1);
    cluster.moveLeader(tp, 1);
    Producer p = producer();
    p.send(ProducerRecord.of("t", null, "x")).join();
    ProduceRequest req =
        cluster.broker(1).received(ApiKey.PRODUCE).get(0).body(ProduceRequest.class);
    assertEquals(2, req.getTopics(0).getPartitions(0).getLeaderEpoch());
    assertEquals(-1, req.getAcks());
  }

  @Test
  void shouldCompleteWithUnknownOffsetsWithAcksZero() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    Producer p = producer("acks", "0");
    RecordMetadata m = p.send(ProducerRecord.of("t", null, "x")).join();
    assertEquals(-1, m.offset());
    await().until(() -> cluster.log(new TopicPartition("t", 0)).logEndOffset() == 1);
    assertTrue(
        cluster.broker(1).received(ApiKey.INIT_PRODUCER_ID).isEmpty(),
        "acks=0 turns idempotence off");
  }

  @Test
  void shouldFailUnknownTopicsAfterAFewLookups() {
    cluster = FakeCluster.start(1);
    Producer p = producer();
    SpoolException e = failure(p.send(ProducerRecord.of("missing", null, "x")));
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, e.errorCode());
    assertTrue(e.getMessage().contains("missing"));
  }

  @Test
  void shouldFailANonexistentPartition() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 2);
    Producer p = producer();
    SpoolException e = failure(p.send(new ProducerRecord("t", 5, null, new byte[1], null, null)));
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, e.errorCode());
  }

  @Test
  void shouldFlushLingeringBatches() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    Producer p = producer("linger.ms", "600000", "delivery.timeout.ms", "900000");
    CompletableFuture<RecordMetadata> f = p.send(ProducerRecord.of("t", null, "x"));
    await().during(Duration.ofMillis(200)).until(() -> !f.isDone());
    p.flush();
    assertTrue(f.isDone());
    assertEquals(0, f.join().offset());
  }

  @Test
  void shouldFailRecordsThatAreNeverAcknowledgedWithinTheDeliveryTimeout() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    cluster.broker(1).handle(ApiKey.PRODUCE, (r, out) -> out.noReply());
    Producer p =
        producer("request.timeout.ms", "300", "delivery.timeout.ms", "800", "linger.ms", "0");
    SpoolException e = failure(p.send(ProducerRecord.of("t", null, "x")));
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, e.errorCode());
  }

  @Test
  void shouldBlockThenFailWhenBufferMemoryStaysFull() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    cluster.broker(1).handle(ApiKey.PRODUCE, (r, out) -> out.noReply());
    Producer p = producer("buffer.memory", "65536", "batch.size", "16384", "max.block.ms", "300");
    SpoolException last = null;
    for (int i = 0; i < 20 && last == null; i++) {
      CompletableFuture<RecordMetadata> f =
          p.send(new ProducerRecord("t", 0, null, new byte[16_000], null, null));
      if (f.isCompletedExceptionally()) {
        last = failure(f);
      }
    }
    assertTrue(last != null, "send gives up once buffer.memory is used up");
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, last.errorCode());
    assertTrue(last.getMessage().contains("buffer.memory"));
  }

  @Test
  void shouldRejectRecordsLargerThanTheRequestLimit() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    Producer p = producer("max.request.size", "2048");
    SpoolException e =
        failure(p.send(new ProducerRecord("t", 0, null, new byte[4096], null, null)));
    assertEquals(ErrorCode.MESSAGE_TOO_LARGE, e.errorCode());
  }

  @Test
  void shouldStickNullKeyRecordsToOnePartitionPerBatch() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 4);
    Producer p = producer("batch.size", "4096", "linger.ms", "50");
    List<CompletableFuture<RecordMetadata>> fs = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      fs.add(p.send(new ProducerRecord("t", null, null, new byte[100], null, null)));
    }
    Set<Integer> used = new HashSet<>();
    int switches = 0;
    int prev = -1;
    for (CompletableFuture<RecordMetadata> f : fs) {
      int part = f.join().partition();
      used.add(part);
      if (part != prev) {
        switches++;
        prev = part;
      }
    }
    assertTrue(used.size() > 1, "records spread over partitions");
    assertTrue(switches <= 400 * 100 / 4096 + 2, "switches only after about a batch: " + switches);
  }

  @Test
  void shouldRejectUnknownConfigKeys() {
    assertThrows(
        dev.spool.config.ConfigException.class,
        () -> new Producer(Map.of("bootstrap.servers", "x:1", "linger.mss", "5")));
    assertThrows(
        dev.spool.config.ConfigException.class,
        () ->
            new Producer(
                Map.of("bootstrap.servers", "x:1", "acks", "1", "enable.idempotence", "true")));
  }
}
