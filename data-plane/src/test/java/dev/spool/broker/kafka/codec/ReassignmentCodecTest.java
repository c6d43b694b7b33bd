package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kafka's AlterPartitionReassignments and ListPartitionReassignments translated to Spool's messages
 * and back; requests encoded and answers parsed by kafka-clients. The image: brokers 1-4, orders-0
 * on [1, 2], orders-1 moving from [1] to [3, 4] (replicas [3, 4, 1], adding [3, 4], removing [1]).
 */
@Tag("unit")
class ReassignmentCodecTest {
  private static final String ORDERS = "a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a";
  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));
  private final MetadataImage image = image();
  private int correlationId;

  private static MetadataImage image() {
    MetadataBatch.Builder batch =
        MetadataBatch.newBuilder()
            .addRecords(
                Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.REASSIGNMENT));
    for (int id = 1; id <= 4; id++) {
      batch.addRecords(Records.registerBroker(id, "inc-" + id, "127.0.0.1", 9000 + id, "", 1));
    }
    batch
        .addRecords(Records.topic("orders", ORDERS))
        .addRecords(Records.partition(ORDERS, 0, List.of(1, 2), List.of(1, 2), 1, 0, 0))
        .addRecords(Records.partition(ORDERS, 1, List.of(1), List.of(1), 1, 0, 0));
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    MetadataApplier.apply(b, batch.build(), 1);
    MetadataImage base = b.build(1);
    ImageBuilder moving = new ImageBuilder(base);
    MetadataApplier.apply(
        moving,
        MetadataBatch.newBuilder()
            .addRecords(
                Records.partitionChange(
                    base.partitions("orders").get(1),
                    1,
                    List.of(1),
                    List.of(3, 4, 1),
                    List.of(3, 4),
                    List.of(1)))
            .build(),
        2);
    MetadataImage img = moving.build(2);
    assertTrue(img.partitions("orders").get(1).isReassigning(), "test image: orders-1 moving");
    return img;
  }

  private KafkaRequest request(ApiMessage body, short version) {
    return decoder.decode(
        Unpooled.directBuffer().writeBytes(KafkaWire.request(body, version, ++correlationId)));
  }

  /** Kafka's answer as kafka-clients parses it. */
  private AlterPartitionReassignmentsResponseData alterAnswer(
      KafkaRequest r, ReassignmentCodec.AlterCall call, AlterPartitionReassignmentsResponse spool) {
    org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse parsed =
        KafkaWire.parse(
            ReassignmentCodec.alterToKafka(r, call, spool),
            KafkaWire.header(
                new AlterPartitionReassignmentsRequestData(), r.version(), r.correlationId()));
    return parsed.data();
  }

  private ListPartitionReassignmentsResponseData listAnswer(
      KafkaRequest r, ListPartitionReassignmentsResponse spool) {
    org.apache.kafka.common.requests.ListPartitionReassignmentsResponse parsed =
        KafkaWire.parse(
            ReassignmentCodec.listToKafka(r, spool),
            KafkaWire.header(
                new ListPartitionReassignmentsRequestData(), r.version(), r.correlationId()));
    return parsed.data();
  }

  private static ReassignablePartition move(int partition, Integer... replicas) {
    return new ReassignablePartition()
        .setPartitionIndex(partition)
        .setReplicas(Arrays.asList(replicas));
  }

  private static ReassignablePartition cancel(int partition) {
    return new ReassignablePartition().setPartitionIndex(partition).setReplicas(null);
  }

  private static AlterPartitionReassignmentsRequestData alter(
      boolean allowRfChange, ReassignableTopic... topics) {
    return new AlterPartitionReassignmentsRequestData()
        .setTimeoutMs(12_345)
        .setAllowReplicationFactorChange(allowRfChange)
        .setTopics(new ArrayList<>(List.of(topics)));
  }

  private static ReassignableTopic topic(String name, ReassignablePartition... partitions) {
    return new ReassignableTopic()
        .setName(name)
        .setPartitions(new ArrayList<>(List.of(partitions)));
  }

  private static AlterPartitionReassignmentsResponse.Result result(
      String topic, int partition, ErrorCode code, String message) {
    return AlterPartitionReassignmentsResponse.Result.newBuilder()
        .setTopic(topic)
        .setPartition(partition)
        .setErrorCode(code)
        .setErrorMessage(message)
        .build();
  }

  private static AlterPartitionReassignmentsRequest.Reassignment spoolMove(
      String topic, int partition, Integer... replicas) {
    return AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
        .setTopic(topic)
        .setPartition(partition)
        .addAllReplicas(List.of(replicas))
        .build();
  }

  private static AlterPartitionReassignmentsRequest.Reassignment spoolCancel(
      String topic, int partition) {
    return AlterPartitionReassignmentsRequest.Reassignment.newBuilder()
        .setTopic(topic)
        .setPartition(partition)
        .setCancel(true)
        .build();
  }

  // ---------------------------------------------------------------- Alter, to Spool

  @Test
  void shouldTranslateEveryAlterFieldAtBothVersions() {
    for (short v = 0; v <= 1; v++) {
      AlterPartitionReassignmentsRequestData body =
          alter(true, topic("orders", move(0, 2, 3), cancel(1)), topic("audit", move(0, 4)));
      ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(request(body, v), image);
      assertNull(call.immediate());
      assertTrue(call.forwards());
      AlterPartitionReassignmentsRequest spool = call.request();
      assertEquals(12_345, spool.getTimeoutMs(), "v" + v);
      assertFalse(spool.hasThrottleBytesPerSec(), "Kafka throttles through configs, not here");
      assertEquals(
          List.of(spoolMove("orders", 0, 2, 3), spoolCancel("orders", 1), spoolMove("audit", 0, 4)),
          spool.getPartitionsList(),
          "v" + v);
    }
  }

  @Test
  void shouldLetVersionZeroChangeTheReplicationFactorSinceItCannotSayOtherwise() {
    AlterPartitionReassignmentsRequestData body = alter(true, topic("orders", move(0, 1, 2, 3)));
    ReassignmentCodec.AlterCall call =
        ReassignmentCodec.alterToSpool(request(body, (short) 0), image);
    assertEquals(List.of(spoolMove("orders", 0, 1, 2, 3)), call.request().getPartitionsList());
    // Kafka's own request builder refuses to send "false" at version 0; its writer likewise.
    AlterPartitionReassignmentsRequestData disallow =
        alter(false, topic("orders", move(0, 1, 2, 3)));
    assertThrows(
        UnsupportedVersionException.class, () -> KafkaWire.request(disallow, (short) 0, 1));
  }

  @Test
  void shouldRefuseAReplicationFactorChangeHereWhenTheClientDisallowsIt() {
    AlterPartitionReassignmentsRequestData body =
        alter(
            false,
            topic(
                "orders",
                move(0, 2, 3, 4), // 2 -> 3 replicas: refused
                move(1, 2, 4))); // moving to [3, 4]: 2 stays 2, forwarded
    KafkaRequest r = request(body, (short) 1);
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, image);
    assertEquals(List.of(spoolMove("orders", 1, 2, 4)), call.request().getPartitionsList());

    AlterPartitionReassignmentsResponseData d =
        alterAnswer(
            r,
            call,
            AlterPartitionReassignmentsResponse.newBuilder()
                .addPartitions(result("orders", 1, ErrorCode.NONE, ""))
                .build());
    assertEquals(Errors.NONE.code(), d.errorCode());
    assertFalse(d.allowReplicationFactorChange(), "v1 echoes the option");
    var partitions = d.responses().get(0).partitions();
    assertEquals(0, partitions.get(0).partitionIndex());
    assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), partitions.get(0).errorCode());
    assertEquals("The replication factor is changed from 2 to 3", partitions.get(0).errorMessage());
    assertEquals(1, partitions.get(1).partitionIndex());
    assertEquals(Errors.NONE.code(), partitions.get(1).errorCode());
    assertNull(partitions.get(1).errorMessage());
  }

  @Test
  void shouldLeaveCancelsUnknownPartitionsAndMalformedTargetsToSpoolWhenRfChangeIsDisallowed() {
    List<ReassignableTopic> asked =
        List.of(
            topic("orders", cancel(1)),
            topic("orders", move(0)),
            topic("orders", move(1, 3, 3, 4)),
            topic("missing", move(0, 1, 2, 3)));
    List<AlterPartitionReassignmentsRequest.Reassignment> forwarded =
        List.of(
            spoolCancel("orders", 1),
            spoolMove("orders", 0),
            spoolMove("orders", 1, 3, 3, 4),
            spoolMove("missing", 0, 1, 2, 3));
    for (int i = 0; i < asked.size(); i++) {
      ReassignmentCodec.AlterCall call =
          ReassignmentCodec.alterToSpool(request(alter(false, asked.get(i)), (short) 1), image);
      assertEquals(List.of(forwarded.get(i)), call.request().getPartitionsList());
    }
  }

  @Test
  void shouldAnswerAnUnknownBrokerBeforeTheReplicationFactorAsKafkasControllerDoes() {
    AlterPartitionReassignmentsRequestData body = alter(false, topic("orders", move(0, 99)));
    KafkaRequest r = request(body, (short) 1);
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, image);
    assertFalse(call.forwards(), "nothing left for Spool");
    var p =
        alterAnswer(r, call, AlterPartitionReassignmentsResponse.getDefaultInstance())
            .responses()
            .get(0)
            .partitions()
            .get(0);
    assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), p.errorCode());
    assertEquals("orders-0: broker 99 is not registered", p.errorMessage());
  }

  @Test
  void shouldRefuseAPartitionNamedTwiceBeforeSpoolSeesAnything() {
    AlterPartitionReassignmentsRequestData body =
        alter(false, topic("orders", move(0, 2, 3, 4)), topic("orders", move(0, 1, 2)));
    KafkaRequest r = request(body, (short) 1);
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, image);
    assertNotNull(call.immediate());
    AlterPartitionReassignmentsResponseData d =
        alterAnswer(r, call, AlterPartitionReassignmentsResponse.getDefaultInstance());
    assertEquals(Errors.INVALID_REQUEST.code(), d.errorCode());
    assertEquals("orders-0 appears more than once in the request", d.errorMessage());
    assertEquals(2, d.responses().size(), "every partition asked carries the error");
    d.responses()
        .forEach(
            t ->
                t.partitions()
                    .forEach(p -> assertEquals(Errors.INVALID_REQUEST.code(), p.errorCode())));
  }

  // ---------------------------------------------------------------- Alter, to Kafka

  @Test
  void shouldMapSpoolsPerPartitionResultsGroupedByTopicInRequestOrder() {
    AlterPartitionReassignmentsRequestData body =
        alter(
            true,
            topic("orders", move(0, 2, 3), cancel(1)),
            topic("audit", move(7, 99)),
            topic("missing", cancel(0)));
    KafkaRequest r = request(body, (short) 0);
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, image);
    var spool =
        AlterPartitionReassignmentsResponse.newBuilder()
            .addPartitions(result("orders", 0, ErrorCode.NONE, ""))
            .addPartitions(
                result(
                    "orders",
                    1,
                    ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                    "orders-1 has no reassignment in progress"))
            .addPartitions(
                result(
                    "audit",
                    7,
                    ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                    "audit-7: broker 99 is not registered"))
            .addPartitions(
                result(
                    "missing", 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "missing-0 does not exist"))
            .build();
    AlterPartitionReassignmentsResponseData d = alterAnswer(r, call, spool);
    assertEquals(0, d.throttleTimeMs());
    assertEquals(Errors.NONE.code(), d.errorCode());
    assertNull(d.errorMessage());
    assertEquals(
        List.of("orders", "audit", "missing"), d.responses().stream().map(t -> t.name()).toList());
    var orders = d.responses().get(0).partitions();
    assertEquals(List.of(0, 1), orders.stream().map(p -> p.partitionIndex()).toList());
    assertEquals(Errors.NONE.code(), orders.get(0).errorCode());
    assertNull(orders.get(0).errorMessage(), "no message: Kafka's clients print none");
    assertEquals(85, orders.get(1).errorCode(), "Kafka's NO_REASSIGNMENT_IN_PROGRESS");
    assertEquals("orders-1 has no reassignment in progress", orders.get(1).errorMessage());
    var audit = d.responses().get(1).partitions().get(0);
    assertEquals(7, audit.partitionIndex());
    assertEquals(Errors.INVALID_REPLICA_ASSIGNMENT.code(), audit.errorCode());
    assertEquals("audit-7: broker 99 is not registered", audit.errorMessage());
    assertEquals(
        Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
        d.responses().get(2).partitions().get(0).errorCode());
  }

  @Test
  void shouldAnswerARequestLevelRefusalAsTheTopLevelErrorOnEveryPartition() {
    AlterPartitionReassignmentsRequestData body =
        alter(true, topic("orders", move(0, 2, 3), cancel(1)));
    KafkaRequest r = request(body, (short) 1);
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, image);
    var spool =
        AlterPartitionReassignmentsResponse.newBuilder()
            .setErrorCode(ErrorCode.UNSUPPORTED_VERSION)
            .setErrorMessage("replica reassignment needs metadata.version 4; the cluster is at 3")
            .build();
    AlterPartitionReassignmentsResponseData d = alterAnswer(r, call, spool);
    assertEquals(Errors.UNSUPPORTED_VERSION.code(), d.errorCode());
    assertEquals(
        "replica reassignment needs metadata.version 4; the cluster is at 3", d.errorMessage());
    assertEquals(2, d.responses().get(0).partitions().size());
    d.responses()
        .get(0)
        .partitions()
        .forEach(p -> assertEquals(Errors.UNSUPPORTED_VERSION.code(), p.errorCode()));
  }

  @Test
  void shouldAnswerAPartitionSpoolLeftOutAsAServerErrorRatherThanDropIt() {
    AlterPartitionReassignmentsRequestData body = alter(true, topic("orders", move(0, 2, 3)));
    KafkaRequest r = request(body, (short) 1);
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, image);
    AlterPartitionReassignmentsResponseData d =
        alterAnswer(r, call, AlterPartitionReassignmentsResponse.getDefaultInstance());
    assertEquals(
        Errors.UNKNOWN_SERVER_ERROR.code(), d.responses().get(0).partitions().get(0).errorCode());
  }

  // ---------------------------------------------------------------- List

  @Test
  void shouldTranslateTheListFilter() {
    ListPartitionReassignmentsRequestData all =
        new ListPartitionReassignmentsRequestData().setTimeoutMs(1000).setTopics(null);
    assertEquals(
        ListPartitionReassignmentsRequest.getDefaultInstance(),
        ReassignmentCodec.listToSpool(request(all, (short) 0)),
        "null topics: every partition, Spool's empty filter");

    ListPartitionReassignmentsRequestData some =
        new ListPartitionReassignmentsRequestData()
            .setTopics(
                List.of(
                    new ListPartitionReassignmentsTopics()
                        .setName("orders")
                        .setPartitionIndexes(List.of(1, 0)),
                    new ListPartitionReassignmentsTopics()
                        .setName("audit")
                        .setPartitionIndexes(List.of()),
                    new ListPartitionReassignmentsTopics()
                        .setName("missing")
                        .setPartitionIndexes(List.of(3))));
    assertEquals(
        ListPartitionReassignmentsRequest.newBuilder()
            .addPartitions(
                TopicPartitions.newBuilder().setTopic("orders").addAllPartitions(List.of(1, 0)))
            .addPartitions(
                TopicPartitions.newBuilder().setTopic("missing").addAllPartitions(List.of(3)))
            .build(),
        ReassignmentCodec.listToSpool(request(some, (short) 0)),
        "a topic with no partition indexes names none");

    ListPartitionReassignmentsRequestData none =
        new ListPartitionReassignmentsRequestData()
            .setTopics(
                List.of(
                    new ListPartitionReassignmentsTopics()
                        .setName("orders")
                        .setPartitionIndexes(List.of())));
    assertNull(ReassignmentCodec.listToSpool(request(none, (short) 0)), "nothing to ask");
    assertNull(
        ReassignmentCodec.listToSpool(
            request(new ListPartitionReassignmentsRequestData().setTopics(List.of()), (short) 0)));
  }

  @Test
  void shouldAnswerTheListGroupedByTopic() {
    ListPartitionReassignmentsRequestData body =
        new ListPartitionReassignmentsRequestData().setTopics(null);
    KafkaRequest r = request(body, (short) 0);
    var spool =
        ListPartitionReassignmentsResponse.newBuilder()
            .setThrottleBytesPerSec(1_000_000)
            .addPartitions(ongoing("audit", 2, List.of(5, 6, 1), List.of(5, 6), List.of(1)))
            .addPartitions(ongoing("orders", 0, List.of(2, 3, 1), List.of(3), List.of(1)))
            .addPartitions(ongoing("orders", 1, List.of(3, 4, 1), List.of(3, 4), List.of(1)))
            .build();
    ListPartitionReassignmentsResponseData d = listAnswer(r, spool);
    assertEquals(Errors.NONE.code(), d.errorCode());
    assertNull(d.errorMessage());
    assertEquals(0, d.throttleTimeMs());
    assertEquals(List.of("audit", "orders"), d.topics().stream().map(t -> t.name()).toList());
    var audit = d.topics().get(0).partitions().get(0);
    assertEquals(2, audit.partitionIndex());
    assertEquals(List.of(5, 6, 1), audit.replicas());
    assertEquals(List.of(5, 6), audit.addingReplicas());
    assertEquals(List.of(1), audit.removingReplicas());
    var orders = d.topics().get(1).partitions();
    assertEquals(List.of(0, 1), orders.stream().map(p -> p.partitionIndex()).toList());
    assertEquals(List.of(2, 3, 1), orders.get(0).replicas());
    assertEquals(List.of(3), orders.get(0).addingReplicas());
    assertEquals(List.of(3, 4), orders.get(1).addingReplicas());

    ListPartitionReassignmentsResponseData empty =
        listAnswer(r, ListPartitionReassignmentsResponse.getDefaultInstance());
    assertEquals(List.of(), empty.topics());
    assertEquals(Errors.NONE.code(), empty.errorCode());
  }

  private static ListPartitionReassignmentsResponse.Reassignment ongoing(
      String topic,
      int partition,
      List<Integer> replicas,
      List<Integer> adding,
      List<Integer> removing) {
    return ListPartitionReassignmentsResponse.Reassignment.newBuilder()
        .setTopic(topic)
        .setPartition(partition)
        .addAllReplicas(replicas)
        .addAllAddingReplicas(adding)
        .addAllRemovingReplicas(removing)
        .addAllIsr(List.of(1))
        .setLeader(1)
        .build();
  }
}
