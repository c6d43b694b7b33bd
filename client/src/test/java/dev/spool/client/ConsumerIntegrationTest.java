package dev.spool.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.record.CompressionType;
import dev.spool.record.Header;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("integration")
@Timeout(60)
class ConsumerIntegrationTest {
  private FakeCluster cluster;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private Producer producer() {
    Producer p = new Producer(Map.of("bootstrap.servers", cluster.bootstrap(), "linger.ms", "1"));
    clients.add(p);
    return p;
  }

  private Consumer consumer(String... extra) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.bootstrap());
    props.put("fetch.max.wait.ms", "100");
    props.put("retry.backoff.ms", "10");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    Consumer c = new Consumer(props);
    clients.add(c);
    return c;
  }

  private static List<ConsumerRecord> pollUntil(Consumer c, int count) {
    List<ConsumerRecord> all = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (all.size() < count && System.nanoTime() < deadline) {
      c.poll(Duration.ofMillis(200)).forEach(all::add);
    }
    return all;
  }

  private void produce(String topic, int partition, int from, int to) {
    Producer p = producer();
    for (int i = from; i < to; i++) {
      p.send(
          new ProducerRecord(
              topic,
              partition,
              ("k" + i).getBytes(StandardCharsets.UTF_8),
              ("v" + i).getBytes(StandardCharsets.UTF_8),
              List.of(new Header("h", new byte[] {(byte) i})),
              null));
    }
    p.flush();
  }

  @Test
  void shouldReadEverythingProducedInOffsetOrderPerPartition() {
    cluster = FakeCluster.start(3);
    cluster.createTopic("t", 3);
    Producer p = producer();
    for (int i = 0; i < 3000; i++) {
      p.send(ProducerRecord.of("t", "key-" + i, "value-" + i));
    }
    p.flush();
    Consumer c = consumer("max.poll.records", "200");
    c.assign(c.partitionsFor("t"));
    c.seekToBeginning(c.assignment());
    List<ConsumerRecord> records = pollUntil(c, 3000);
    assertEquals(3000, records.size());
    Map<Integer, Long> next = new HashMap<>();
    for (ConsumerRecord r : records) {
      long expected = next.getOrDefault(r.partition(), 0L);
      assertEquals(expected, r.offset(), "offsets in order in " + r.partition());
      next.put(r.partition(), expected + 1);
      assertEquals(r.keyAsString().replace("key-", "value-"), r.valueAsString());
      assertEquals(0, r.leaderEpoch());
    }
    assertEquals(3000, c.metrics().recordsConsumed());
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
  void shouldSendCompressedBatchesAndReadThemBackTransparently(String codec) {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    Producer p =
        new Producer(
            Map.of(
                "bootstrap.servers",
                cluster.bootstrap(),
                "linger.ms",
                "20",
                "compression.type",
                codec));
    clients.add(p);
    for (int i = 0; i < 2000; i++) {
      p.send(
          ProducerRecord.of(
              "t", "key-" + i, "{\"n\":" + i + ",\"pad\":\"" + "x".repeat(200) + "\"}"));
    }
    p.flush();
    TopicPartition tp = new TopicPartition("t", 0);
    byte[] stored = cluster.log(tp).read(0, Integer.MAX_VALUE);
    RecordBatch first = RecordBatch.at(ByteBuffer.wrap(stored), 0);
    assertEquals(CompressionType.forName(codec), first.compressionType());
    assertTrue(stored.length < 2000 * 200 / 4, codec + " stored " + stored.length + " bytes");
    Consumer c = consumer("max.poll.records", "300");
    c.assign(List.of(tp));
    c.seekToBeginning(c.assignment());
    List<ConsumerRecord> records = pollUntil(c, 2000);
    assertEquals(2000, records.size());
    for (int i = 0; i < 2000; i++) {
      assertEquals(i, records.get(i).offset());
      assertEquals("key-" + i, records.get(i).keyAsString());
      assertTrue(records.get(i).valueAsString().startsWith("{\"n\":" + i + ","));
    }
    // A time lookup that lands inside a compressed batch finds the exact record.
    long ts = records.get(1234).timestamp();
    OffsetAndTimestamp o = c.offsetsForTimes(Map.of(tp, ts)).get(tp);
    assertEquals(ts, o.timestamp());
    assertTrue(o.offset() <= 1234 && records.get((int) o.offset()).timestamp() == ts);
  }

  @Test
  void shouldCarryKeysValuesHeadersAndTimestamps() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    Producer p = producer();
    p.send(
            new ProducerRecord(
                "t",
                0,
                null,
                null,
                List.of(new Header("a", null), new Header("b", new byte[] {1})),
                1234L))
        .join();
    Consumer c = consumer("auto.offset.reset", "earliest");
    c.assign(List.of(new TopicPartition("t", 0)));
    ConsumerRecord r = pollUntil(c, 1).get(0);
    assertNull(r.key());
    assertNull(r.value());
    assertEquals(1234L, r.timestamp());
    assertEquals(dev.spool.record.TimestampType.CREATE_TIME, r.timestampType());
    assertEquals(List.of(new Header("a", null), new Header("b", new byte[] {1})), r.headers());
  }

  @Test
  void shouldStartAtTheEndByDefault() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    produce("t", 0, 0, 10);
    Consumer c = consumer();
    c.assign(List.of(tp));
    assertEquals(10, c.position(tp));
    produce("t", 0, 10, 15);
    List<ConsumerRecord> records = pollUntil(c, 5);
    assertEquals(
        List.of(10L, 11L, 12L, 13L, 14L), records.stream().map(ConsumerRecord::offset).toList());
  }

  @Test
  void shouldSkipRecordsBelowASeekInsideTheFirstBatch() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    produce("t", 0, 0, 100);
    assertTrue(cluster.log(tp).batchCount() < 100, "records share batches");
    Consumer c = consumer();
    c.assign(List.of(tp));
    c.seek(tp, 57);
    List<ConsumerRecord> records = pollUntil(c, 43);
    assertEquals(57, records.get(0).offset());
    assertEquals("v57", records.get(0).valueAsString());
    assertEquals(43, records.size());
    assertEquals(100, c.position(tp));
  }

  @Test
  void shouldReturnAtMostMaxPollRecords() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    produce("t", 0, 0, 100);
    Consumer c = consumer("max.poll.records", "7", "auto.offset.reset", "earliest");
    c.assign(List.of(new TopicPartition("t", 0)));
    ConsumerRecords first;
    do {
      first = c.poll(Duration.ofMillis(500));
    } while (first.isEmpty());
    assertEquals(7, first.count());
  }

  @Test
  void shouldLookUpOffsetsByPositionAndTime() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    Producer p = producer();
    for (int i = 0; i < 10; i++) {
      p.send(new ProducerRecord("t", 0, null, new byte[1], null, 1000L + i * 100));
    }
    p.flush();
    Consumer c = consumer();
    assertEquals(Map.of(tp, 0L), c.beginningOffsets(List.of(tp)));
    assertEquals(Map.of(tp, 10L), c.endOffsets(List.of(tp)));
    OffsetAndTimestamp o = c.offsetsForTimes(Map.of(tp, 1250L)).get(tp);
    assertEquals(3, o.offset());
    assertEquals(1300, o.timestamp());
    assertNull(c.offsetsForTimes(Map.of(tp, 99_999L)).get(tp));
  }

  @Test
  void shouldFollowALeaderChange() {
    cluster = FakeCluster.start(2);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    produce("t", 0, 0, 50);
    Consumer c = consumer("auto.offset.reset", "earliest");
    c.assign(List.of(tp));
    assertEquals(50, pollUntil(c, 50).size());
    cluster.moveLeader(tp, 2);
    produce("t", 0, 50, 80);
    List<ConsumerRecord> more = pollUntil(c, 30);
    assertEquals(
        IntStream.range(50, 80).mapToObj(i -> "v" + i).toList(),
        more.stream().map(ConsumerRecord::valueAsString).toList());
    assertTrue(cluster.broker(2).received(ApiKey.FETCH).size() > 0);
  }

  @Test
  void shouldResumeAfterLostConnections() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    produce("t", 0, 0, 30);
    Consumer c = consumer("auto.offset.reset", "earliest");
    c.assign(List.of(new TopicPartition("t", 0)));
    assertEquals(30, pollUntil(c, 30).size());
    cluster.broker(1).dropConnections();
    produce("t", 0, 30, 60);
    List<ConsumerRecord> more = pollUntil(c, 30);
    assertEquals(
        IntStream.range(30, 60).mapToObj(i -> "v" + i).toList(),
        more.stream().map(ConsumerRecord::valueAsString).toList(),
        "no gap, no duplicate");
  }

  @Test
  void shouldReadEveryRecordOnceWhileLeadersMoveAndConnectionsDrop() {
    long seed = System.nanoTime();
    java.util.Random random = new java.util.Random(seed);
    cluster = FakeCluster.start(3);
    cluster.createTopic("t", 3);
    Producer p = producer();
    for (int i = 0; i < 3000; i++) {
      p.send(
          new ProducerRecord(
              "t", i % 3, null, ("v" + i).getBytes(StandardCharsets.UTF_8), null, null));
    }
    p.flush();
    Consumer c =
        consumer(
            "auto.offset.reset",
            "earliest",
            "max.poll.records",
            "50",
            "max.partition.fetch.bytes",
            "2048");
    c.assign(c.partitionsFor("t"));
    Map<Integer, List<String>> seen = new HashMap<>();
    int total = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    while (total < 3000 && System.nanoTime() < deadline) {
      for (ConsumerRecord r : c.poll(Duration.ofMillis(100))) {
        seen.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.valueAsString());
        total++;
      }
      int roll = random.nextInt(10);
      if (roll == 0) {
        cluster.moveLeader(new TopicPartition("t", random.nextInt(3)), 1 + random.nextInt(3));
      } else if (roll == 1) {
        cluster.broker(1 + random.nextInt(3)).dropConnections();
      }
    }
    for (int partition = 0; partition < 3; partition++) {
      int part = partition;
      assertEquals(
          IntStream.range(0, 3000).filter(i -> i % 3 == part).mapToObj(i -> "v" + i).toList(),
          seen.get(partition),
          "partition " + partition + " read once, in order (seed " + seed + ")");
    }
  }

  @Test
  void shouldRefuseToPollWithoutAssignment() {
    cluster = FakeCluster.start(1);
    Consumer c = consumer();
    assertThrows(IllegalStateException.class, () -> c.poll(Duration.ofMillis(1)));
  }

  @Test
  void shouldMoveBackAndCountWhenTheLogWasTruncatedUnderIt() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    produce("t", 0, 0, 25);
    produce("t", 0, 25, 40);
    Consumer c = consumer("auto.offset.reset", "earliest");
    c.assign(List.of(tp));
    assertEquals(40, pollUntil(c, 40).size());
    cluster.truncate(tp, 25);
    produce("t", 0, 100, 110);
    List<ConsumerRecord> after = pollUntil(c, 10);
    assertEquals(1, c.metrics().truncationsDetected());
    assertEquals(25, after.get(0).offset());
    assertEquals("v100", after.get(0).valueAsString());
    assertEquals(1, after.get(0).leaderEpoch());
    // The fetch after the new records (at offset 35) carries the new epochs; wait until the
    // consumer has sent it rather than reading whichever fetch happened to arrive last.
    FetchRequest.FetchPartition next =
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> {
                  c.poll(Duration.ofMillis(20));
                  return cluster.broker(1).received(ApiKey.FETCH).stream()
                      .map(r -> r.body(FetchRequest.class).getTopics(0).getPartitions(0))
                      .filter(p -> p.getFetchOffset() == 35)
                      .findFirst()
                      .orElse(null);
                },
                java.util.Objects::nonNull);
    assertEquals(1, next.getCurrentLeaderEpoch());
    assertEquals(1, next.getLastFetchedEpoch());
  }

  @Test
  void shouldFailClearlyOnACorruptCompressedPayload() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    ByteBuffer b = new RecordBatchBuilder(256).append(1L, "k", "v").build();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    ByteBuffer w = ByteBuffer.wrap(bytes);
    w.putShort(RecordBatch.ATTRIBUTES_POSITION, (short) 1);
    w.putInt(RecordBatch.CRC_POSITION, (int) RecordBatch.at(w, 0).computeChecksum());
    cluster.log(tp).append(bytes, 0);
    Consumer c = consumer("auto.offset.reset", "earliest");
    c.assign(List.of(tp));
    SpoolException e = assertThrows(SpoolException.class, () -> pollUntil(c, 1));
    // Marked gzip, but the payload is plain records: the inflation fails, naming the codec.
    assertEquals(ErrorCode.CORRUPT_MESSAGE, e.errorCode());
    assertTrue(e.getMessage().contains("corrupt gzip payload"), e.getMessage());
  }

  @Test
  void shouldFailOutOfRangeWithResetNoneAndResetOtherwise() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    TopicPartition tp = new TopicPartition("t", 0);
    produce("t", 0, 0, 5);
    Consumer strict = consumer("auto.offset.reset", "none");
    strict.assign(List.of(tp));
    assertEquals(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        assertThrows(SpoolException.class, () -> strict.poll(Duration.ofMillis(100))).errorCode());
    strict.seek(tp, 1000);
    assertEquals(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        assertThrows(SpoolException.class, () -> pollUntil(strict, 1)).errorCode());

    Consumer lenient = consumer("auto.offset.reset", "earliest");
    lenient.assign(List.of(tp));
    lenient.seek(tp, 1000);
    assertEquals(0, pollUntil(lenient, 5).get(0).offset());
  }

  @Test
  void shouldFailUnknownTopics() {
    cluster = FakeCluster.start(1);
    Consumer c = consumer();
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        assertThrows(SpoolException.class, () -> c.partitionsFor("nope")).errorCode());
    c.assign(List.of(new TopicPartition("nope2", 0)));
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        assertThrows(SpoolException.class, () -> pollUntil(c, 1)).errorCode());
  }

  @Test
  void shouldPipelineTheNextFetchWhileTheApplicationWorks() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    produce("t", 0, 0, 20);
    Consumer c = consumer("auto.offset.reset", "earliest", "max.poll.records", "5");
    c.assign(List.of(new TopicPartition("t", 0)));
    assertEquals(5, pollUntil(c, 1).size());
    // No further poll: the next fetch must already be on its way.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> cluster.broker(1).received(ApiKey.FETCH).size() >= 2);
    FetchRequest second = cluster.broker(1).received(ApiKey.FETCH).get(1).body(FetchRequest.class);
    assertEquals(
        20, second.getTopics(0).getPartitions(0).getFetchOffset(), "fetches ahead of the position");
  }

  @Test
  void shouldReturnEarlyOnWakeup() {
    cluster = FakeCluster.start(1);
    cluster.createTopic("t", 1);
    Consumer c = consumer();
    c.assign(List.of(new TopicPartition("t", 0)));
    c.wakeup();
    long start = System.nanoTime();
    c.poll(Duration.ofSeconds(20));
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 10);
  }
}
