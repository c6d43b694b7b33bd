package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.CoordinatorLocation;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.GroupListing;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The KIP-848 translations that name topics by id: Kafka's ids resolve to the coordinator's names
 * through the metadata image and back, and an id the image does not know is dropped from what a
 * member owns and answered UNKNOWN_TOPIC_ID in an offset fetch.
 */
@Tag("unit")
class GroupCodecTest {
  private static final String ORDERS = "a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a";
  private static final Uuid ORDERS_ID =
      new Uuid(
          UUID.fromString(ORDERS).getMostSignificantBits(),
          UUID.fromString(ORDERS).getLeastSignificantBits());

  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));
  private final MetadataImage image = image();

  private static MetadataImage image() {
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    MetadataApplier.apply(
        b,
        MetadataBatch.newBuilder()
            .addRecords(Records.topic("orders", ORDERS))
            .addRecords(Records.partition(ORDERS, 0, List.of(1), List.of(1), 1, 0, 0))
            .addRecords(Records.partition(ORDERS, 1, List.of(1), List.of(1), 1, 0, 0))
            .build(),
        1);
    return b.build(1);
  }

  private KafkaRequest request(ApiMessage body, short version) {
    return decoder.decode(Unpooled.directBuffer().writeBytes(KafkaWire.request(body, version, 7)));
  }

  @Test
  void shouldTranslateAHeartbeatsTopicIdsBothWays() {
    Uuid gone = Uuid.randomUuid();
    KafkaRequest r =
        request(
            new ConsumerGroupHeartbeatRequestData()
                .setGroupId("g")
                .setMemberId("m1")
                .setMemberEpoch(3)
                .setRebalanceTimeoutMs(-1)
                .setSubscribedTopicNames(null)
                .setTopicPartitions(
                    List.of(
                        new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                            .setTopicId(ORDERS_ID)
                            .setPartitions(List.of(1)),
                        new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                            .setTopicId(gone)
                            .setPartitions(List.of(0)))),
            (short) 1);
    HeartbeatRequest hr =
        GroupCodec.heartbeatToSpool(r, image, new InetSocketAddress("127.0.0.1", 5555));
    assertEquals(Set.of(new TopicPartition("orders", 1)), hr.owned(), "the unknown id is dropped");
    assertNull(hr.rebalanceTimeoutMs(), "-1 means unchanged");
    assertNull(hr.subscribedTopicNames(), "null means unchanged");
    assertEquals("/127.0.0.1", hr.clientHost(), "Kafka's form of the host");

    KafkaResponse answer =
        GroupCodec.heartbeatToKafka(
            r,
            new HeartbeatResult(
                ErrorCode.NONE,
                "",
                "m1",
                4,
                500,
                Set.of(new TopicPartition("orders", 1), new TopicPartition("orders", 0))),
            image);
    ConsumerGroupHeartbeatResponse parsed =
        KafkaWire.parse(
            answer, new RequestHeader(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 1, "c", 7));
    assertEquals(4, parsed.data().memberEpoch());
    var tps = parsed.data().assignment().topicPartitions();
    assertEquals(1, tps.size());
    assertEquals(ORDERS_ID, tps.get(0).topicId());
    assertEquals(List.of(0, 1), tps.get(0).partitions());
  }

  @Test
  void shouldAnswerAnOffsetFetchByTopicIdWithUnknownIdsRefused() {
    Uuid gone = Uuid.randomUuid();
    KafkaRequest r =
        request(
            new OffsetFetchRequestData()
                .setGroups(
                    List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup()
                            .setGroupId("g")
                            .setTopics(
                                List.of(
                                    new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                        .setTopicId(ORDERS_ID)
                                        .setPartitionIndexes(List.of(0, 1)),
                                    new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                        .setTopicId(gone)
                                        .setPartitionIndexes(List.of(0)))))),
            (short) 10);
    var groups = GroupOffsetsCodec.offsetFetchToSpool(r, image);
    assertEquals(
        List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1)),
        groups.get(0).request().partitions(),
        "only known topics reach the coordinator");
    OffsetFetchResult res =
        new OffsetFetchResult(
            ErrorCode.NONE,
            "",
            Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(42, 3, "m", 1)));
    OffsetFetchResponse parsed =
        KafkaWire.parse(
            GroupOffsetsCodec.offsetFetchToKafka(r, groups, List.of(res), image),
            new RequestHeader(ApiKeys.OFFSET_FETCH, (short) 10, "c", 7));
    var topics = parsed.data().groups().get(0).topics();
    assertEquals(2, topics.size());
    assertEquals(ORDERS_ID, topics.get(0).topicId());
    assertEquals(42, topics.get(0).partitions().get(0).committedOffset());
    assertEquals(3, topics.get(0).partitions().get(0).committedLeaderEpoch());
    assertEquals(-1, topics.get(0).partitions().get(1).committedOffset(), "none committed");
    assertEquals(gone, topics.get(1).topicId());
    assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), topics.get(1).partitions().get(0).errorCode());
  }

  /**
   * Every version of each group API the listener advertises answers in a form Kafka's own parser
   * reads: a field set outside its versions would fail the whole answer (older clients, such as
   * librdkafka and kafka-python, ask at low versions).
   */
  @Test
  void shouldAnswerEveryAdvertisedVersionOfTheGroupApis() {
    TopicPartition p0 = new TopicPartition("orders", 0);
    OffsetAndMetadata committed = new OffsetAndMetadata(42, 3, "m", 1);
    for (short v = 0; v <= KafkaApi.FIND_COORDINATOR.max(); v++) {
      KafkaRequest r =
          request(
              v < 4
                  ? new FindCoordinatorRequestData().setKey("g")
                  : new FindCoordinatorRequestData().setCoordinatorKeys(List.of("g")),
              v);
      KafkaResponse a =
          GroupCodec.findCoordinatorToKafka(
              r, List.of(new CoordinatorLocation("g", ErrorCode.NONE, "", 7, "h", 1)), image);
      FindCoordinatorResponse f = KafkaWire.parse(a, header(ApiKeys.FIND_COORDINATOR, v));
      short code = v < 4 ? f.data().errorCode() : f.data().coordinators().get(0).errorCode();
      assertEquals(
          Errors.COORDINATOR_NOT_AVAILABLE.code(),
          code,
          "v" + v + ": broker 7 has no Kafka listener");
    }
    for (short v = 1; v <= KafkaApi.OFFSET_FETCH.max(); v++) {
      OffsetFetchRequestData d =
          v < 8
              ? new OffsetFetchRequestData()
                  .setGroupId("g")
                  .setTopics(
                      List.of(
                          new OffsetFetchRequestData.OffsetFetchRequestTopic()
                              .setName("orders")
                              .setPartitionIndexes(List.of(0))))
              : new OffsetFetchRequestData()
                  .setGroups(
                      List.of(
                          new OffsetFetchRequestData.OffsetFetchRequestGroup()
                              .setGroupId("g")
                              .setTopics(
                                  List.of(
                                      new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                          .setName("orders")
                                          .setTopicId(ORDERS_ID)
                                          .setPartitionIndexes(List.of(0))))));
      KafkaRequest r = request(d, v);
      var groups = GroupOffsetsCodec.offsetFetchToSpool(r, image);
      OffsetFetchResponse f =
          KafkaWire.parse(
              GroupOffsetsCodec.offsetFetchToKafka(
                  r,
                  groups,
                  List.of(new OffsetFetchResult(ErrorCode.NONE, "", Map.of(p0, committed))),
                  image),
              header(ApiKeys.OFFSET_FETCH, v));
      long offset =
          v < 8
              ? f.data().topics().get(0).partitions().get(0).committedOffset()
              : f.data().groups().get(0).topics().get(0).partitions().get(0).committedOffset();
      assertEquals(42, offset, "v" + v + " carries the offset");
    }
    for (short v = 2; v <= KafkaApi.OFFSET_COMMIT.max(); v++) {
      KafkaRequest r =
          request(
              new OffsetCommitRequestData()
                  .setGroupId("g")
                  .setMemberId("")
                  .setTopics(
                      List.of(
                          new OffsetCommitRequestData.OffsetCommitRequestTopic()
                              .setName("orders")
                              .setTopicId(ORDERS_ID)
                              .setPartitions(
                                  List.of(
                                      new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                          .setPartitionIndex(0)
                                          .setCommittedOffset(42))))),
              v);
      var call = GroupOffsetsCodec.offsetCommitToSpool(r, image);
      assertEquals(Set.of(p0), call.request().offsets().keySet(), "v" + v);
      OffsetCommitResponse c =
          KafkaWire.parse(
              GroupOffsetsCodec.offsetCommitToKafka(
                  r,
                  call,
                  Map.of(p0, new PartitionResult(ErrorCode.STALE_MEMBER_EPOCH, "moved on"))),
              header(ApiKeys.OFFSET_COMMIT, v));
      assertEquals(Map.of(Errors.STALE_MEMBER_EPOCH, 1), c.errorCounts(), "v" + v);
    }
    for (short v = 0; v <= KafkaApi.LIST_GROUPS.max(); v++) {
      ListGroupsResponse l =
          KafkaWire.parse(
              GroupCodec.listGroupsToKafka(
                  request(new ListGroupsRequestData(), v),
                  ErrorCode.NONE,
                  List.of(new GroupListing("g", "Stable"))),
              header(ApiKeys.LIST_GROUPS, v));
      assertEquals("consumer", l.data().groups().get(0).protocolType(), "v" + v);
    }
    for (short v = 0; v <= KafkaApi.DESCRIBE_GROUPS.max(); v++) {
      DescribeGroupsResponse dg =
          KafkaWire.parse(
              GroupCodec.describeGroupsToKafka(
                  request(new DescribeGroupsRequestData().setGroups(List.of("g")), v),
                  List.of(GroupDescription.error("g", ErrorCode.GROUP_ID_NOT_FOUND, "none"))),
              header(ApiKeys.DESCRIBE_GROUPS, v));
      assertEquals("Dead", dg.data().groups().get(0).groupState(), "v" + v);
      assertEquals(
          v >= 6 ? Errors.GROUP_ID_NOT_FOUND.code() : Errors.NONE.code(),
          dg.data().groups().get(0).errorCode(),
          "v" + v);
    }
  }

  private static RequestHeader header(ApiKeys key, short version) {
    return new RequestHeader(key, version, "c", 7);
  }
}
