package dev.spool.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.checker.LeaderEpochMonotonic;
import dev.spool.chaos.checker.ReplicaDivergence;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.checker.Verdict;
import dev.spool.chaos.fuzz.FuzzCampaign;
import dev.spool.chaos.fuzz.SpoolRequestFuzzer;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.HistoryEntry;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.workload.Workload;
import dev.spool.chaos.workload.WorkloadConfig;
import dev.spool.cli.CliRunner;
import dev.spool.client.Admin;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.ElectionResult;
import dev.spool.client.OffsetAndTimestamp;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.record.Header;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.RawFrameClient;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The data path against three real node processes (one cluster for the whole class): records with
 * keys, headers and timestamps come back field for field; offsets for times; long-poll fetches
 * answer as soon as data arrives; clients follow a leader moved by the quorum; malformed input
 * closes only its own connection; a rolling restart of every node under load fails no send and
 * loses no acknowledged record (last: it restarts every node).
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpoolClusterTest(nodes = 3, mode = ClusterMode.PROCESS)
class DataPathE2ETest {
  private static ProcessCluster cluster;

  @BeforeAll
  static void cluster(ProcessCluster c) {
    cluster = c;
  }

  private Map<String, String> clientProps(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("bootstrap.servers", cluster.bootstrapServers());
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void shouldReturnEveryFieldOfEveryRecordAsProduced() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "fields", 3, Map.of());
    long baseTs = 1_700_000_000_000L;
    List<ProducerRecord> sent = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      byte[] key = i % 7 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
      byte[] value =
          i % 11 == 0
              ? null
              : ("value-" + i + "-" + "x".repeat(i)).getBytes(StandardCharsets.UTF_8);
      List<Header> headers =
          i % 3 == 0
              ? List.of()
              : List.of(
                  new Header("h1", ("a" + i).getBytes(StandardCharsets.UTF_8)),
                  new Header("h-null", null),
                  new Header("h1", new byte[] {0, (byte) i}));
      sent.add(new ProducerRecord("fields", i % 3, key, value, headers, baseTs + i * 1000L));
    }
    List<RecordMetadata> acked = new ArrayList<>();
    try (Producer p = new Producer(clientProps())) {
      List<CompletableFuture<RecordMetadata>> fs = new ArrayList<>();
      for (ProducerRecord r : sent) {
        fs.add(p.send(r));
      }
      for (CompletableFuture<RecordMetadata> f : fs) {
        acked.add(f.get(30, TimeUnit.SECONDS));
      }
    }
    Map<String, ConsumerRecord> read = new HashMap<>();
    try (Consumer c = new Consumer(clientProps())) {
      c.assign(tps);
      c.seekToBeginning(tps);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (read.size() < sent.size() && System.nanoTime() < deadline) {
        for (ConsumerRecord r : c.poll(Duration.ofMillis(500))) {
          read.put(r.partition() + "@" + r.offset(), r);
        }
      }
    }
    assertEquals(sent.size(), read.size(), "every record read once");
    for (int i = 0; i < sent.size(); i++) {
      ProducerRecord s = sent.get(i);
      RecordMetadata m = acked.get(i);
      ConsumerRecord r = read.get(m.partition() + "@" + m.offset());
      String what = "record " + i + " at " + m;
      assertEquals("fields", r.topic(), what);
      assertEquals((int) s.partition(), r.partition(), what);
      assertEquals((long) s.timestamp(), r.timestamp(), what);
      assertEquals((long) s.timestamp(), m.timestamp(), what);
      assertArrayEquals(s.key(), r.key(), what);
      assertArrayEquals(s.value(), r.value(), what);
      assertEquals(s.headers(), r.headers(), what);
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void shouldFindTheFirstOffsetAtOrAfterATimestamp() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "times", 1, Map.of());
    TopicPartition tp = tps.get(0);
    long t0 = 1_600_000_000_000L;
    List<Long> offsets = new ArrayList<>();
    try (Producer p = new Producer(clientProps("linger.ms", "0"))) {
      for (int i = 0; i < 20; i++) {
        // Timestamps 0, 10, 20, ... s after t0; a separate send per record so batches vary.
        offsets.add(
            p.send(
                    new ProducerRecord(
                        "times",
                        0,
                        null,
                        ("v" + i).getBytes(StandardCharsets.UTF_8),
                        List.of(),
                        t0 + i * 10_000L))
                .get(30, TimeUnit.SECONDS)
                .offset());
      }
    }
    try (Consumer c = new Consumer(clientProps())) {
      assertEquals(
          offsets.get(0), c.offsetsForTimes(Map.of(tp, 0L)).get(tp).offset(), "before everything");
      assertEquals(
          offsets.get(0), c.offsetsForTimes(Map.of(tp, t0)).get(tp).offset(), "exactly the first");
      assertEquals(
          offsets.get(7),
          c.offsetsForTimes(Map.of(tp, t0 + 70_000L)).get(tp).offset(),
          "exact hit");
      OffsetAndTimestamp between = c.offsetsForTimes(Map.of(tp, t0 + 70_001L)).get(tp);
      assertEquals(offsets.get(8), between.offset(), "between two records: the later one");
      assertEquals(t0 + 80_000L, between.timestamp());
      assertEquals(
          offsets.get(19),
          c.offsetsForTimes(Map.of(tp, t0 + 190_000L)).get(tp).offset(),
          "the last");
      assertNull(c.offsetsForTimes(Map.of(tp, t0 + 190_001L)).get(tp), "after everything");
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void shouldAnswerALongPollAsSoonAsARecordArrives() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "longpoll", 1, Map.of());
    try (Consumer c =
            new Consumer(clientProps("fetch.max.wait.ms", "20000", "fetch.min.bytes", "1"));
        Producer p = new Producer(clientProps("linger.ms", "0"))) {
      c.assign(tps);
      c.seekToEnd(tps);
      assertEquals(0, c.position(tps.get(0)));
      assertTrue(
          c.poll(Duration.ofMillis(1500)).isEmpty(),
          "nothing there yet; the fetch now waits at the leader");
      // The empty poll left its fetch parked at the leader (20 s long poll, started over a second
      // ago): the record must end that wait, not the deadline.
      p.send(
              new ProducerRecord(
                  "longpoll", 0, null, "wake".getBytes(StandardCharsets.UTF_8), List.of(), null))
          .get(30, TimeUnit.SECONDS);
      long ackedAtNs = System.nanoTime();
      List<ConsumerRecord> got = new ArrayList<>();
      long polledAtNs = 0;
      while (got.isEmpty()) {
        got.addAll(c.poll(Duration.ofSeconds(30)).all());
        polledAtNs = System.nanoTime();
      }
      long latencyMs = TimeUnit.NANOSECONDS.toMillis(polledAtNs - ackedAtNs);
      assertEquals("wake", got.get(0).valueAsString());
      assertTrue(
          latencyMs < 2_000,
          "the waiting fetch answered "
              + latencyMs
              + " ms after the record was acknowledged; fetch.max.wait.ms is 20000");
    }
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void shouldFollowALeaderMovedByAPreferredElectionWithoutErrors() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "moving", 1, Map.of());
    TopicPartition tp = tps.get(0);
    int preferred = cluster.partitionReplicas(tp).get(0);
    // A controlled restart moves leadership away from the preferred replica.
    cluster.restart(preferred);
    cluster.awaitReady(E2e.READY);
    cluster.awaitFullIsr(List.of("moving"), E2e.READY);
    PartitionMetadata before = cluster.newestView(tp).orElseThrow();
    assertNotEquals(preferred, before.getLeaderId(), "the restart moved leadership away");

    AtomicBoolean stop = new AtomicBoolean();
    // Set once the producer has no send in flight, so the consumer reads to its last ack.
    AtomicBoolean producerDone = new AtomicBoolean();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    List<Long> acked = new CopyOnWriteArrayList<>();
    List<Long> read = new CopyOnWriteArrayList<>();
    Thread producer =
        new Thread(
            () -> {
              try (Producer p = new Producer(clientProps("linger.ms", "0"))) {
                for (long v = 0; !stop.get(); v++) {
                  p.send(
                          new ProducerRecord(
                              "moving",
                              0,
                              null,
                              Long.toString(v).getBytes(StandardCharsets.UTF_8),
                              List.of(),
                              null))
                      .get(30, TimeUnit.SECONDS);
                  acked.add(v);
                }
              } catch (Throwable t) {
                errors.add(t);
              } finally {
                producerDone.set(true);
              }
            },
            "e2e-producer");
    Thread consumer =
        new Thread(
            () -> {
              try (Consumer c = new Consumer(clientProps("fetch.max.wait.ms", "200"))) {
                c.assign(tps);
                c.seekToBeginning(tps);
                while (!producerDone.get() || read.size() < acked.size()) {
                  for (ConsumerRecord r : c.poll(Duration.ofMillis(200))) {
                    read.add(Long.parseLong(r.valueAsString()));
                  }
                }
              } catch (Throwable t) {
                errors.add(t);
              }
            },
            "e2e-consumer");
    producer.start();
    consumer.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> acked.size() >= 50 || !errors.isEmpty());
    List<ElectionResult> results =
        cluster
            .admin()
            .electLeaders(Admin.ElectionType.PREFERRED, List.of(tp))
            .get(60, TimeUnit.SECONDS);
    assertTrue(results.get(0).succeeded(), results.toString());
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> cluster.partitionLeader(tp).orElse(-1) == preferred);
    int ackedAtMove = acked.size();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> acked.size() >= ackedAtMove + 50 || !errors.isEmpty());
    stop.set(true);
    producer.join(30_000);
    consumer.join(30_000);

    assertEquals(List.of(), errors, "nothing surfaced to the application");
    PartitionMetadata after = cluster.newestView(tp).orElseThrow();
    assertEquals(preferred, after.getLeaderId());
    assertTrue(after.getLeaderEpoch() > before.getLeaderEpoch(), "a new leader epoch");
    List<Long> expected = new ArrayList<>();
    for (long v = 0; v < acked.size(); v++) {
      expected.add(v);
    }
    assertEquals(expected, read, "every acknowledged record read once, in order, across the move");
  }

  /** Lines of {@code node}'s log where the broker closed a connection with a logged reason. */
  private static long closedConnectionLines(int node) throws IOException {
    try (Stream<String> lines = Files.lines(cluster.logFile(node), StandardCharsets.UTF_8)) {
      return lines
          .filter(
              l ->
                  l.contains(" WARN ")
                      && (l.contains("closing connection") || l.contains("closing the connection")))
          .count();
    }
  }

  /**
   * Counts the brokers' "closing connection" lines, which are rate-limited (20 per 10 s per kind):
   * it runs first, before the fuzzing test below spends that budget in its own storm of bad frames
   * (a full run saw this test's five lines suppressed when it ran 8 s after the fuzzer).
   */
  @Test
  @Order(1)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldCloseOnlyTheConnectionThatSentGarbageAndRefuseABadCrcWithoutAppending()
      throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "garbage", 1, Map.of());
    TopicPartition tp = tps.get(0);
    int leader = cluster.partitionLeader(tp).orElseThrow();
    InetSocketAddress broker = cluster.addresses(leader).broker();
    Random random = new Random(42);
    byte[] randomBytes = new byte[4096];
    random.nextBytes(randomBytes);
    ByteBuffer.wrap(randomBytes).putInt(randomBytes.length - 4); // a plausible length, then noise
    byte[] shorterThanItsHeader =
        ByteBuffer.allocate(16).putInt(12).putInt(100).putInt(0).putInt(0).array();
    byte[] negativeLength = ByteBuffer.allocate(8).putInt(-5).putInt(0).array();
    byte[] hugeLength = ByteBuffer.allocate(8).putInt(Integer.MAX_VALUE).putInt(0).array();
    byte[] unknownApi =
        RawFrameClient.frame(
            RequestHeader.newBuilder()
                .setApiKeyValue(999)
                .setCorrelationId(1)
                .setClientId("e2e")
                .build(),
            MetadataRequest.getDefaultInstance(),
            new byte[0]);
    Map<String, byte[]> garbage = new LinkedHashMap<>();
    garbage.put("random bytes", randomBytes);
    garbage.put("frame shorter than its header", shorterThanItsHeader);
    garbage.put("negative frame length", negativeLength);
    garbage.put("huge frame length", hugeLength);
    garbage.put("unknown API", unknownApi);

    try (Producer p = new Producer(clientProps("linger.ms", "0"));
        Consumer c = new Consumer(clientProps())) {
      long first = p.send(record("garbage", "before")).get(30, TimeUnit.SECONDS).offset();
      long closedBefore = closedConnectionLines(leader);
      for (Map.Entry<String, byte[]> g : garbage.entrySet()) {
        try (RawFrameClient raw = RawFrameClient.connect(broker)) {
          raw.sendRaw(g.getValue());
          assertTrue(raw.closedByPeer(), "the broker closes the connection after " + g.getKey());
        }
        // The client opened before keeps working between two bad connections.
        p.send(record("garbage", "after " + g.getKey())).get(30, TimeUnit.SECONDS);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> closedConnectionLines(leader) >= closedBefore + garbage.size());
      // Exactly one line each: the count stays there (a second line per connection would show up).
      await()
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(5))
          .until(() -> closedConnectionLines(leader) == closedBefore + garbage.size());

      long endBefore = c.endOffsets(tps).get(tp);
      ByteBuffer batch =
          new RecordBatchBuilder(256).append(System.currentTimeMillis(), "k", "crc victim").build();
      byte[] bytes = new byte[batch.remaining()];
      batch.get(bytes);
      bytes[bytes.length - 2] ^= 0x40; // a record byte: covered by the CRC
      try (RawFrameClient raw = RawFrameClient.connect(broker)) {
        ProduceResponse.PartitionResponse corrupt = produce(raw, bytes);
        assertEquals(ErrorCode.CORRUPT_MESSAGE, corrupt.getErrorCode(), corrupt.getErrorMessage());
        bytes[bytes.length - 2] ^= 0x40; // the same batch intact, on the same connection
        ProduceResponse.PartitionResponse ok = produce(raw, bytes);
        assertEquals(ErrorCode.NONE, ok.getErrorCode(), ok.getErrorMessage());
        assertEquals(endBefore, ok.getBaseOffset(), "the corrupt batch took no offset");
      }
      assertEquals(endBefore + 1, c.endOffsets(tps).get(tp));
      long last = p.send(record("garbage", "last")).get(30, TimeUnit.SECONDS).offset();
      assertEquals(first + garbage.size() + 2, last, "every good record got the next offset");
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldSurviveMutatedSpoolRequestsAndKeepServingOtherClients() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "fuzz", 1, Map.of());
    int leader = cluster.partitionLeader(tps.get(0)).orElseThrow();
    FuzzCampaign.Result r =
        new SpoolRequestFuzzer(cluster.addresses(leader).broker(), 13L, "fuzz", 5_000).run(20_000);
    E2e.assertSurvived(cluster, r, 20_000);
    try (Producer p = new Producer(clientProps())) {
      p.send(record("fuzz", "after fuzz")).get(30, TimeUnit.SECONDS);
    }
  }

  private static ProducerRecord record(String topic, String value) {
    return new ProducerRecord(
        topic, 0, null, value.getBytes(StandardCharsets.UTF_8), List.of(), null);
  }

  private static ProduceResponse.PartitionResponse produce(RawFrameClient raw, byte[] batch)
      throws IOException {
    ProduceRequest req =
        ProduceRequest.newBuilder()
            .setAcks(-1)
            .setTimeoutMs(10_000)
            .addTopics(
                ProduceRequest.TopicData.newBuilder()
                    .setName("garbage")
                    .addPartitions(
                        ProduceRequest.PartitionData.newBuilder()
                            .setPartition(0)
                            .setRecordsSize(batch.length)
                            .setLeaderEpoch(-1)))
            .build();
    RawFrameClient.Reply reply = raw.request(ApiKey.PRODUCE, req, batch);
    assertEquals(ErrorCode.NONE, reply.header().getErrorCode(), reply.header().getErrorMessage());
    return ProduceResponse.parseFrom(reply.body()).getTopics(0).getPartitions(0);
  }

  /**
   * An operator's rolling restart (docs/operations.md#upgrades) under the chaos workload: every
   * node (broker and controller voter) in turn gets SIGTERM, so its controlled shutdown moves its
   * leaderships away, is started again, and is back in every ISR before the next one goes. No
   * acks=all send may fail (the idempotent producers retry through every leader move), and the
   * chaos checkers must find every acknowledged value read back, once, in send order, with the
   * metadata.version level unchanged.
   */
  @Test
  @Order(Integer.MAX_VALUE)
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldRestartEveryNodeInTurnUnderLoadWithoutAFailedSendOrALostRecord() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "rolling", 6, Map.of());
    JsonNode featuresBefore = describeFeatures();
    List<HistoryEntry> entries = Collections.synchronizedList(new ArrayList<>());
    Workload workload =
        new Workload(
            new WorkloadConfig(cluster.bootstrapServers(), tps, 3, 1, 40, Map.of(), 16, Map.of()),
            new HistoryRecorder(Clock.SYSTEM, entries::add));
    Workload.Counters sends = workload.counters();
    workload.start();
    try {
      awaitAcks(sends, 100, "before the first restart");
      for (int node : cluster.nodes()) {
        cluster.stop(node);
        assertEquals(143, cluster.exitCode(node), "n" + node + " exited on SIGTERM, not SIGKILL");
        awaitAcks(sends, 50, "while n" + node + " is down");
        cluster.start(node);
        cluster.awaitReady(E2e.READY);
        cluster.awaitFullIsr(List.of("rolling"), E2e.READY);
        awaitAcks(sends, 50, "after n" + node + " is back in every ISR");
      }
      workload.stopProducers(Duration.ofSeconds(60));
      workload.drain(Duration.ofSeconds(60));
    } finally {
      workload.close();
    }
    assertEquals(0, sends.sendFail.get() + sends.sendInfo.get(), "sends that failed or timed out");
    History history;
    synchronized (entries) {
      history = History.of(entries);
    }
    // The white-box checkers need the replicas' files, read from a stopped cluster; not here.
    Verdict verdict =
        new CheckerSuite(
                CheckerSuite.standard().checkers().stream()
                    .filter(
                        c ->
                            !c.name().equals(ReplicaDivergence.NAME)
                                && !c.name().equals(LeaderEpochMonotonic.NAME))
                    .toList())
            .check(history, List.of());
    assertEquals(Validity.TRUE, verdict.valid(), verdict.results().toString());
    for (int node : cluster.nodes()) {
      String log = Files.readString(cluster.logFile(node));
      assertTrue(log.contains("controlled shutdown requested"), "n" + node + " shut down");
      assertFalse(
          log.contains("controlled shutdown not confirmed"),
          "n" + node + "'s controller confirmed every controlled shutdown");
    }
    JsonNode featuresAfter = describeFeatures();
    assertEquals(
        featuresBefore.path("finalized"), featuresAfter.path("finalized"), "metadata.version");
    assertEquals(
        featuresBefore.path("nodes"), featuresAfter.path("nodes"), "every node's range again");
  }

  private static void awaitAcks(Workload.Counters sends, int more, String when) {
    long target = sends.sendOk.get() + more;
    ProcessCluster.await(
        more + " more acknowledged sends " + when,
        Duration.ofSeconds(30),
        () -> sends.sendOk.get() >= target,
        () -> sends.sendOk.get() + " acknowledged, " + sends.sendInfo.get() + " unknown");
  }

  private static JsonNode describeFeatures() throws IOException {
    CliRunner.Result r = E2e.cli(cluster, "features", "describe", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    JsonNode d = new ObjectMapper().readTree(r.out());
    assertEquals(3, d.path("nodes").size(), r.toString());
    return d;
  }
}
