package dev.spool.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteRecords, DescribeLogDirs, DescribeProducers and CreatePartitions on the Kafka listener,
 * against a real broker core ({@link HandlerTestBroker}: broker 1 leads orders-0 and follows
 * orders-1), with Kafka's own classes encoding the requests and parsing the answers.
 */
@Tag("unit")
@Timeout(30)
class KafkaRecordsApisTest {
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

  @TempDir Path dir;
  private KafkaApisFixture fx;
  private HandlerTestBroker broker;

  @BeforeEach
  void setUp() {
    fx = new KafkaApisFixture(dir, (name, partitions, rf, configs) -> new CompletableFuture<>());
    broker = fx.broker;
    fx.leaderAloneInIsr(ORDERS_0);
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  private <T extends AbstractResponse> T call(ApiMessage body, short version) throws Exception {
    return fx.call(body, version);
  }

  private void produce(int partition, MemoryRecords records) throws Exception {
    ProduceRequestData.TopicProduceDataCollection topics =
        new ProduceRequestData.TopicProduceDataCollection();
    ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData();
    t.setName("orders")
        .partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records));
    topics.add(t);
    ProduceResponse r =
        call(
            new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000).setTopicData(topics),
            (short) 9);
    assertEquals(
        Errors.NONE.code(),
        r.data().responses().iterator().next().partitionResponses().get(0).errorCode());
  }

  private static SimpleRecord[] values(long timestampMs, String... values) {
    List<SimpleRecord> rs = new ArrayList<>();
    for (String v : values) {
      rs.add(new SimpleRecord(timestampMs, null, v.getBytes()));
    }
    return rs.toArray(new SimpleRecord[0]);
  }

  /** DeleteRecords of the given (topic, partition, offset) triples, answered per partition. */
  private Map<String, short[]> deleteRecords(short version, Object... triples) throws Exception {
    List<DeleteRecordsRequestData.DeleteRecordsTopic> topics = new ArrayList<>();
    for (int i = 0; i < triples.length; i += 3) {
      topics.add(
          new DeleteRecordsRequestData.DeleteRecordsTopic()
              .setName((String) triples[i])
              .setPartitions(
                  List.of(
                      new DeleteRecordsRequestData.DeleteRecordsPartition()
                          .setPartitionIndex((Integer) triples[i + 1])
                          .setOffset((Long) triples[i + 2]))));
    }
    DeleteRecordsResponse r =
        call(new DeleteRecordsRequestData().setTopics(topics).setTimeoutMs(1000), version);
    Map<String, short[]> out = new TreeMap<>();
    r.data()
        .topics()
        .forEach(
            t ->
                t.partitions()
                    .forEach(
                        p ->
                            out.put(
                                t.name() + "-" + p.partitionIndex(),
                                new short[] {p.errorCode(), (short) p.lowWatermark()})));
    return out;
  }

  private long earliest() throws Exception {
    ListOffsetsResponse r =
        call(
            new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setTopics(
                    List.of(
                        new ListOffsetsRequestData.ListOffsetsTopic()
                            .setName("orders")
                            .setPartitions(
                                List.of(
                                    new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-2))))),
            (short) 9);
    return r.data().topics().get(0).partitions().get(0).offset();
  }

  private FetchResponseData.PartitionData fetchFrom(long offset) throws Exception {
    FetchResponse f =
        call(
            new FetchRequestData()
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionEpoch(-1)
                .setTopics(
                    List.of(
                        new FetchRequestData.FetchTopic()
                            .setTopic("orders")
                            .setPartitions(
                                List.of(
                                    new FetchRequestData.FetchPartition()
                                        .setPartition(0)
                                        .setFetchOffset(offset)
                                        .setPartitionMaxBytes(1 << 20))))),
            (short) 11);
    return f.data().responses().get(0).partitions().get(0);
  }

  @Test
  void shouldMoveTheLogStartOffsetSoFetchesAndEarliestStartThere() throws Exception {
    produce(0, MemoryRecords.withRecords(Compression.NONE, values(1, "a", "b", "c")));
    produce(0, MemoryRecords.withRecords(Compression.NONE, values(1, "d", "e")));

    assertEquals(
        Map.of("orders-0", List.of(0, 3)), asLists(deleteRecords((short) 2, "orders", 0, 3L)));
    assertEquals(3, earliest());
    assertEquals(3, broker.replicas().partition(ORDERS_0).orElseThrow().log().logStartOffset());
    var below = fetchFrom(0);
    assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), below.errorCode());
    var at = fetchFrom(3);
    assertEquals(Errors.NONE.code(), at.errorCode());
    assertEquals(3, at.logStartOffset());

    // An offset below the start changes nothing; -1 is the high watermark (5).
    assertEquals(
        Map.of("orders-0", List.of(0, 3)), asLists(deleteRecords((short) 0, "orders", 0, 1L)));
    assertEquals(
        Map.of("orders-0", List.of(0, 5)), asLists(deleteRecords((short) 1, "orders", 0, -1L)));
    assertEquals(5, earliest());
  }

  @Test
  void shouldRefuseBadDeleteRecordsWithKafkasErrorsAndChangeNothing() throws Exception {
    produce(0, MemoryRecords.withRecords(Compression.NONE, values(1, "a", "b")));
    short outOfRange = Errors.OFFSET_OUT_OF_RANGE.code();
    assertEquals(
        Map.of("orders-0", List.of((int) outOfRange, -1)),
        asLists(deleteRecords((short) 2, "orders", 0, 3L)),
        "past the high watermark");
    assertEquals(
        Map.of("orders-0", List.of((int) outOfRange, -1)),
        asLists(deleteRecords((short) 2, "orders", 0, -2L)),
        "negative, not -1");
    short unknown = Errors.UNKNOWN_TOPIC_OR_PARTITION.code();
    assertEquals(
        Map.of(
            "nope-0", List.of((int) unknown, -1),
            "orders-9", List.of((int) unknown, -1),
            "orders-1", List.of((int) Errors.NOT_LEADER_OR_FOLLOWER.code(), -1)),
        asLists(deleteRecords((short) 2, "nope", 0, 1L, "orders", 9, 1L, "orders", 1, 0L)));
    assertEquals(0, earliest());

    // Named twice: Kafka's broker keys the request by partition, the offset named last wins.
    assertEquals(
        Map.of("orders-0", List.of(0, 1)),
        asLists(deleteRecords((short) 2, "orders", 0, 2L, "orders", 0, 1L)));
    assertEquals(1, earliest());
  }

  private static Map<String, List<Integer>> asLists(Map<String, short[]> m) {
    Map<String, List<Integer>> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, List.of((int) v[0], (int) v[1])));
    return out;
  }

  @Test
  void shouldDescribeTheOneLogDirWithItsPartitionsAndSpace() throws Exception {
    produce(0, MemoryRecords.withRecords(Compression.NONE, values(1, "a", "b")));
    DescribeLogDirsResponse all = call(new DescribeLogDirsRequestData().setTopics(null), (short) 4);
    assertEquals(1, all.data().results().size());
    var d = all.data().results().get(0);
    assertEquals(Errors.NONE.code(), d.errorCode());
    assertEquals(dir.toAbsolutePath().toString(), d.logDir());
    assertTrue(d.totalBytes() > 0 && d.usableBytes() > 0 && d.usableBytes() <= d.totalBytes());
    Map<Integer, Long> sizes = new TreeMap<>();
    d.topics().get(0).partitions().forEach(p -> sizes.put(p.partitionIndex(), p.partitionSize()));
    assertEquals(List.of(0, 1), List.copyOf(sizes.keySet()));
    assertTrue(sizes.get(0) > 0, "orders-0 holds a batch");
    assertEquals(0L, sizes.get(1));
    d.topics().get(0).partitions().forEach(p -> assertFalse(p.isFutureKey()));
    d.topics().get(0).partitions().forEach(p -> assertEquals(0, p.offsetLag()));

    DescribeLogDirsRequestData.DescribableLogDirTopicCollection one =
        new DescribeLogDirsRequestData.DescribableLogDirTopicCollection();
    one.add(
        new DescribeLogDirsRequestData.DescribableLogDirTopic()
            .setTopic("orders")
            .setPartitions(List.of(1)));
    DescribeLogDirsResponse some = call(new DescribeLogDirsRequestData().setTopics(one), (short) 1);
    var p = some.data().results().get(0).topics().get(0).partitions();
    assertEquals(1, p.size());
    assertEquals(1, p.get(0).partitionIndex());
    assertEquals(-1, some.data().results().get(0).totalBytes(), "no space figures before v4");
  }

  @Test
  void shouldDescribeTheIdempotentProducersOfAPartition() throws Exception {
    produce(
        0,
        MemoryRecords.withIdempotentRecords(
            Compression.NONE, 4000L, (short) 2, 0, values(70, "a", "b")));
    produce(
        0,
        MemoryRecords.withIdempotentRecords(
            Compression.NONE, 4000L, (short) 2, 2, values(90, "c")));
    produce(0, MemoryRecords.withRecords(Compression.NONE, values(95, "not idempotent")));
    DescribeProducersRequestData.TopicRequestCollection topics =
        new DescribeProducersRequestData.TopicRequestCollection();
    topics.add(
        new DescribeProducersRequestData.TopicRequest()
            .setName("orders")
            .setPartitionIndexes(List.of(0, 1, 7)));
    topics.add(
        new DescribeProducersRequestData.TopicRequest()
            .setName("nope")
            .setPartitionIndexes(List.of(0)));
    DescribeProducersResponse r =
        call(new DescribeProducersRequestData().setTopics(topics), (short) 0);
    var orders = r.data().topics().get(0).partitions();
    assertEquals(Errors.NONE.code(), orders.get(0).errorCode());
    assertEquals(1, orders.get(0).activeProducers().size());
    var s = orders.get(0).activeProducers().get(0);
    assertEquals(
        List.of(4000L, 2L, 2L, 90L, -1L, -1L),
        List.of(
            s.producerId(),
            (long) s.producerEpoch(),
            (long) s.lastSequence(),
            s.lastTimestamp(),
            (long) s.coordinatorEpoch(),
            s.currentTxnStartOffset()));
    assertEquals(Errors.NONE.code(), orders.get(1).errorCode(), "a follower answers too");
    assertEquals(0, orders.get(1).activeProducers().size());
    assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), orders.get(2).errorCode());
    assertEquals(
        Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
        r.data().topics().get(1).partitions().get(0).errorCode());
  }

  /**
   * CreatePartitions is served at every version Kafka's clients send, and forwarded: with no quorum
   * to answer (this core has none), each topic gets Kafka's REQUEST_TIMED_OUT with Spool's reason.
   * The real growth, through a quorum, is in the end-to-end tests.
   */
  @Test
  void shouldServeCreatePartitionsAtEveryVersionAndForwardIt() throws Exception {
    assertTrue(fx.apis.served().stream().anyMatch(a -> a.name().equals("CREATE_PARTITIONS")));
    for (short v = 0; v <= 3; v++) {
      CreatePartitionsRequestData.CreatePartitionsTopicCollection topics =
          new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
      topics.add(
          new CreatePartitionsRequestData.CreatePartitionsTopic()
              .setName("orders")
              .setCount(4)
              .setAssignments(
                  List.of(
                      new CreatePartitionsRequestData.CreatePartitionsAssignment()
                          .setBrokerIds(List.of(1)),
                      new CreatePartitionsRequestData.CreatePartitionsAssignment()
                          .setBrokerIds(List.of(2)))));
      CreatePartitionsResponse r =
          call(new CreatePartitionsRequestData().setTopics(topics).setTimeoutMs(1000), v);
      assertEquals(1, r.data().results().size(), "v" + v);
      assertEquals("orders", r.data().results().get(0).name());
      assertEquals(Errors.REQUEST_TIMED_OUT.code(), r.data().results().get(0).errorCode(), "v" + v);
      assertFalse(r.data().results().get(0).errorMessage().isEmpty());
    }
  }
}
