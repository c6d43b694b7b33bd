package dev.spool.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.broker.log.PartitionLog;
import dev.spool.client.Admin;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewTopic;
import dev.spool.client.OffsetAndTimestamp;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.quorum.image.PartitionState;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.testing.Bootstrap;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Compression end to end on one three-node in-process cluster (one for the class): a producer per
 * codec and a consumer reading everything back through replicated topics, a zstd topic
 * recompressing what lz4 and uncompressed producers send, followers holding the leader's bytes
 * unchanged, and every kind of bad compressed batch refused over the wire with its own code while
 * the connection and the other partitions of the same request go on.
 */
@Tag("integration")
@Timeout(180)
@SpoolClusterTest(nodes = 3)
class CompressionIntegrationTest {
  private static final int RECORDS = 1500;

  static InProcessCluster cluster;
  static Admin admin;
  static String bootstrap;
  static TestClient client;
  static final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeAll
  static void start(InProcessCluster c, Admin a, @Bootstrap String b) {
    cluster = c;
    admin = a;
    bootstrap = b;
    client = new TestClient();
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    if (client != null) {
      client.close();
    }
  }

  private static void create(String topic, int partitions, Map<String, String> configs)
      throws Exception {
    admin.createTopic(new NewTopic(topic, partitions, 3, configs)).get(30, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= cluster.size(); id++) {
                for (int p = 0; p < partitions; p++) {
                  PartitionState st =
                      cluster.broker(id).image().partition(new TopicPartition(topic, p));
                  if (st == null || !st.hasLeader()) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  private static Producer producer(String codec) {
    Producer p =
        new Producer(
            Map.of("bootstrap.servers", bootstrap, "linger.ms", "20", "compression.type", codec));
    clients.add(p);
    return p;
  }

  private static Consumer consumer() {
    Consumer c =
        new Consumer(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "fetch.max.wait.ms",
                "100",
                "auto.offset.reset",
                "earliest"));
    clients.add(c);
    return c;
  }

  /** A compressible JSON-like event, different for each (source, i). */
  private static String event(String source, int i) {
    return "{\"source\":\""
        + source
        + "\",\"seq\":"
        + i
        + ",\"kind\":\"page_view\",\"path\":\"/catalog/items/"
        + (i % 37)
        + "\",\"agent\":\"Mozilla/5.0 (X11; Linux x86_64)\"}";
  }

  private static void send(Producer p, String topic, int partition, String source, int n)
      throws Exception {
    for (int i = 0; i < n; i++) {
      p.send(
          new ProducerRecord(
              topic,
              partition,
              ("k" + i).getBytes(StandardCharsets.UTF_8),
              event(source, i).getBytes(StandardCharsets.UTF_8),
              List.of(),
              null));
    }
    p.flush();
  }

  private static List<ConsumerRecord> readAll(Consumer c, int count) {
    List<ConsumerRecord> all = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (all.size() < count && System.nanoTime() < deadline) {
      c.poll(Duration.ofMillis(200)).forEach(all::add);
    }
    return all;
  }

  private static Broker leaderOf(TopicPartition tp) {
    return cluster.broker(
        client.partition(cluster.broker(1), tp.topic(), tp.partition()).getLeaderId());
  }

  /**
   * Waits until every replica holds {@code records} records below its high watermark, then returns
   * the leader's stored bytes after checking that each follower's are the same.
   */
  private static byte[] replicatedBytes(TopicPartition tp, long records) {
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= cluster.size(); id++) {
                PartitionLog l = cluster.broker(id).logManager().get(tp).orElse(null);
                if (l == null || l.logEndOffset() != records || l.highWatermark() != records) {
                  return false;
                }
              }
              return true;
            });
    Broker leader = leaderOf(tp);
    byte[] expected = stored(leader, tp, records);
    for (int id = 1; id <= cluster.size(); id++) {
      assertArrayEquals(expected, stored(cluster.broker(id), tp, records), tp + " on broker " + id);
    }
    return expected;
  }

  private static byte[] stored(Broker b, TopicPartition tp, long upTo) {
    ByteBuffer bytes = LogBytes.read(b.logManager().get(tp).orElseThrow(), upTo);
    byte[] out = new byte[bytes.remaining()];
    bytes.get(out);
    return out;
  }

  private static List<RecordBatch> batches(byte[] stored) {
    List<RecordBatch> out = new ArrayList<>();
    MemoryRecords.wrap(ByteBuffer.wrap(stored)).forEach(out::add);
    return out;
  }

  @Test
  void shouldCarryEveryCodecThroughReplicationAndBackToAConsumer() throws Exception {
    List<String> codecs = List.of("none", "gzip", "snappy", "lz4", "zstd");
    create("codecs", codecs.size(), Map.of());
    for (int p = 0; p < codecs.size(); p++) {
      send(producer(codecs.get(p)), "codecs", p, codecs.get(p), RECORDS);
    }
    Consumer c = consumer();
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < codecs.size(); p++) {
      tps.add(new TopicPartition("codecs", p));
    }
    c.assign(tps);
    Map<Integer, List<ConsumerRecord>> byPartition = new HashMap<>();
    for (ConsumerRecord r : readAll(c, RECORDS * codecs.size())) {
      byPartition.computeIfAbsent(r.topicPartition().partition(), k -> new ArrayList<>()).add(r);
    }
    for (int p = 0; p < codecs.size(); p++) {
      String codec = codecs.get(p);
      List<ConsumerRecord> got = byPartition.getOrDefault(p, List.of());
      assertEquals(RECORDS, got.size(), codec);
      for (int i = 0; i < RECORDS; i++) {
        assertEquals(i, got.get(i).offset(), codec);
        assertEquals("k" + i, got.get(i).keyAsString(), codec);
        assertEquals(event(codec, i), got.get(i).valueAsString(), codec);
      }
      // The topic takes the producer's codec: stored as sent, and the same bytes on followers.
      byte[] bytes = replicatedBytes(tps.get(p), RECORDS);
      for (RecordBatch b : batches(bytes)) {
        assertEquals(CompressionType.forName(codec), b.compressionType(), codec);
      }
      if (!codec.equals("none")) {
        assertTrue(bytes.length < RECORDS * 60, codec + " stored " + bytes.length + " bytes");
      }
      // A time lookup landing inside a (compressed) batch answers with the exact record.
      ConsumerRecord probe = got.get(RECORDS * 2 / 3);
      OffsetAndTimestamp o =
          c.offsetsForTimes(Map.of(tps.get(p), probe.timestamp())).get(tps.get(p));
      assertEquals(probe.timestamp(), o.timestamp(), codec);
      assertTrue(o.offset() <= probe.offset(), codec);
      assertTrue(o.offset() == 0 || got.get((int) o.offset() - 1).timestamp() < o.timestamp());
    }
  }

  @Test
  void shouldRecompressLz4AndUncompressedBatchesOnAZstdTopic() throws Exception {
    create("zstd-topic", 1, Map.of("compression.type", "zstd"));
    send(producer("lz4"), "zstd-topic", 0, "lz4", RECORDS);
    send(producer("none"), "zstd-topic", 0, "none", RECORDS);
    Consumer c = consumer();
    TopicPartition tp = new TopicPartition("zstd-topic", 0);
    c.assign(List.of(tp));
    List<ConsumerRecord> got = readAll(c, 2 * RECORDS);
    assertEquals(2 * RECORDS, got.size());
    for (int i = 0; i < 2 * RECORDS; i++) {
      assertEquals(i, got.get(i).offset());
      String source = i < RECORDS ? "lz4" : "none";
      assertEquals(event(source, i % RECORDS), got.get(i).valueAsString());
    }
    // The leader recompressed; followers copied its zstd batches byte for byte.
    List<RecordBatch> stored = batches(replicatedBytes(tp, 2 * RECORDS));
    assertTrue(stored.size() >= 2);
    for (RecordBatch b : stored) {
      assertEquals(CompressionType.ZSTD, b.compressionType());
      assertTrue(b.isValid(), b.validationError());
    }
  }

  // ---- bad input over the wire ----

  private record Bad(String what, ByteBuffer batch, ErrorCode code, String message) {}

  private static RecordBatchBuilder builder(CompressionType type) {
    return new RecordBatchBuilder(256).compression(Compression.of(type));
  }

  private static ByteBuffer good(String value) {
    return builder(CompressionType.LZ4)
        .append(System.currentTimeMillis(), "k", value)
        .append(System.currentTimeMillis(), "k", value + "-2")
        .build();
  }

  private static ByteBuffer resealed(ByteBuffer b) {
    b.putInt(RecordBatch.CRC_POSITION, (int) RecordBatch.at(b, 0).computeChecksum());
    return b;
  }

  private static List<Bad> badBatches() {
    List<Bad> out = new ArrayList<>();
    for (CompressionType type :
        List.of(
            CompressionType.GZIP,
            CompressionType.SNAPPY,
            CompressionType.LZ4,
            CompressionType.ZSTD)) {
      // The compressed stream is cut short (the batch's length and CRC say that is all of it).
      RecordBatchBuilder full = builder(type);
      for (int i = 0; i < 200; i++) {
        full.append(System.currentTimeMillis(), "k" + i, event("bad", i));
      }
      ByteBuffer whole = full.build();
      int cut = (whole.remaining() - RecordBatch.RECORDS_POSITION) / 2;
      ByteBuffer b = ByteBuffer.allocate(whole.remaining() - cut);
      b.put(whole.duplicate().limit(whole.remaining() - cut)).flip();
      b.putInt(RecordBatch.BATCH_LENGTH_POSITION, b.remaining() - RecordBatch.LOG_OVERHEAD);
      out.add(new Bad("truncated", resealed(b), ErrorCode.CORRUPT_MESSAGE, type.displayName()));
    }
    for (int declared : new int[] {4, 6}) {
      RecordBatchBuilder five = builder(CompressionType.ZSTD);
      for (int i = 0; i < 5; i++) {
        five.append(System.currentTimeMillis(), "k", "v" + i);
      }
      ByteBuffer b = five.build();
      b.putInt(RecordBatch.RECORDS_COUNT_POSITION, declared);
      b.putInt(RecordBatch.LAST_OFFSET_DELTA_POSITION, declared - 1);
      out.add(
          new Bad(
              "count " + declared,
              resealed(b),
              ErrorCode.INVALID_RECORD,
              "declares " + declared + " records"));
    }
    for (int id = 5; id <= 7; id++) {
      ByteBuffer b = builder(CompressionType.NONE).append(1L, "k", "v").build();
      b.putShort(RecordBatch.ATTRIBUTES_POSITION, (short) id);
      out.add(
          new Bad(
              "codec " + id,
              resealed(b),
              ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
              "unknown compression codec id " + id));
    }
    // 8 MiB of zeros in a batch of a few hundred bytes, against the topic's 1 MiB bound.
    ByteBuffer bomb =
        builder(CompressionType.ZSTD)
            .append(System.currentTimeMillis(), null, new byte[8 << 20])
            .build();
    assertTrue(bomb.remaining() < 4096, "bomb of " + bomb.remaining() + " bytes");
    out.add(new Bad("bomb", bomb, ErrorCode.MESSAGE_TOO_LARGE, "message.max.decompressed.bytes"));
    return out;
  }

  /** Two partitions of {@code topic} that the same broker leads (there are more than brokers). */
  private static List<Integer> twoWithOneLeader(String topic, int partitions) {
    Map<Integer, Integer> firstByLeader = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      Integer other =
          firstByLeader.putIfAbsent(client.partition(cluster.broker(1), topic, p).getLeaderId(), p);
      if (other != null) {
        return List.of(other, p);
      }
    }
    throw new AssertionError("no broker leads two of " + partitions + " partitions");
  }

  @Test
  void shouldRefuseEachBadCompressedBatchWithItsCodeAndKeepTheRestWorking() throws Exception {
    create("bad", 4, Map.of("message.max.decompressed.bytes", String.valueOf(1 << 20)));
    List<Integer> pair = twoWithOneLeader("bad", 4);
    int badP = pair.get(0);
    int okP = pair.get(1);
    Broker leader = leaderOf(new TopicPartition("bad", badP));
    long okEnd = 0;
    for (Bad bad : badBatches()) {
      List<ProduceResponse.PartitionResponse> rs =
          client.produce(
              leader, "bad", -1, List.of(badP, okP), List.of(bad.batch(), good(bad.what())));
      ProduceResponse.PartitionResponse refused =
          rs.stream().filter(x -> x.getPartition() == badP).findFirst().orElseThrow();
      ProduceResponse.PartitionResponse taken =
          rs.stream().filter(x -> x.getPartition() == okP).findFirst().orElseThrow();
      assertEquals(
          bad.code(), refused.getErrorCode(), bad.what() + ": " + refused.getErrorMessage());
      assertTrue(
          refused.getErrorMessage().contains(bad.message()),
          bad.what() + ": " + refused.getErrorMessage());
      // The other partition of the same request is appended as usual.
      assertEquals(
          ErrorCode.NONE, taken.getErrorCode(), bad.what() + ": " + taken.getErrorMessage());
      assertEquals(okEnd, taken.getBaseOffset(), bad.what());
      okEnd += 2;
    }
    // Nothing of the refused batches was appended, and the same connection still takes a good
    // batch on the partition that refused them.
    ProduceResponse.PartitionResponse after =
        client.produce(leader, "bad", badP, -1, good("after"));
    assertEquals(ErrorCode.NONE, after.getErrorCode(), after.getErrorMessage());
    assertEquals(0, after.getBaseOffset());
    TopicPartition badTp = new TopicPartition("bad", badP);
    List<RecordBatch> stored = batches(replicatedBytes(badTp, 2));
    assertEquals(1, stored.size());
    assertEquals(
        okEnd,
        leader.logManager().get(new TopicPartition("bad", okP)).orElseThrow().logEndOffset());
  }
}
