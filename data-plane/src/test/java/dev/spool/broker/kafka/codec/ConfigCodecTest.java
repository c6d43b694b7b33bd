package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.quorum.image.MetadataImage;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * IncrementalAlterConfigs as kafka-reassign-partitions.sh sends it around a move: setting Kafka's
 * leader/follower replication throttle rate on brokers sets Spool's cluster throttle (the highest
 * rate asked), deleting it removes the throttle, a topic's throttled-replica lists are accepted and
 * not stored (Spool throttles exactly a move's adding replicas); anything else on a broker, a rate
 * that is not a number and the log-dir throttle are refused.
 */
@Tag("unit")
class ConfigCodecTest {
  private static final byte SET = 0;
  private static final byte DELETE = 1;
  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));

  private static AlterConfigsResource resource(byte type, String name, AlterableConfig... ops) {
    AlterConfigsResource r = new AlterConfigsResource().setResourceType(type).setResourceName(name);
    for (AlterableConfig c : ops) {
      r.configs().add(c);
    }
    return r;
  }

  private static AlterableConfig op(byte operation, String name, String value) {
    return new AlterableConfig().setConfigOperation(operation).setName(name).setValue(value);
  }

  private KafkaRequest request(AlterConfigsResource... resources) {
    IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection c =
        new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
    for (AlterConfigsResource r : resources) {
      c.add(r);
    }
    return decoder.decode(
        Unpooled.directBuffer()
            .writeBytes(
                KafkaWire.request(
                    new IncrementalAlterConfigsRequestData().setResources(c), (short) 1, 3)));
  }

  private static IncrementalAlterConfigsResponseData answer(
      KafkaRequest r,
      ConfigCodec.AlterCall call,
      AlterConfigsResponse spool,
      AlterPartitionReassignmentsResponse throttled) {
    IncrementalAlterConfigsResponse parsed =
        KafkaWire.parse(
            ConfigCodec.incrementalAlterToKafka(r, call, spool, throttled),
            KafkaWire.header(new IncrementalAlterConfigsRequestData(), r.version(), 3));
    return parsed.data();
  }

  @Test
  void shouldTurnTheBrokersThrottleRatesIntoTheClusterThrottleAndRefuseEverythingElseOnABroker() {
    KafkaRequest r =
        request(
            resource(
                ConfigCodec.BROKER,
                "1",
                op(SET, "leader.replication.throttled.rate", "1000000"),
                op(SET, "follower.replication.throttled.rate", "1000000")),
            resource(
                ConfigCodec.BROKER, "2", op(SET, "follower.replication.throttled.rate", "2000000")),
            resource(ConfigCodec.BROKER, "3", op(DELETE, "log.retention.ms", null)),
            resource(
                ConfigCodec.BROKER, "4", op(SET, "follower.replication.throttled.rate", "fast")),
            resource(
                ConfigCodec.BROKER,
                "5",
                op(SET, "replica.alter.log.dirs.io.max.bytes.per.second", "5")),
            resource(ConfigCodec.BROKER, "6"));
    ConfigCodec.AlterCall call = ConfigCodec.incrementalAlterToSpool(r, MetadataImage.EMPTY);
    assertEquals(0, call.request().getTopicsCount(), "no topic: AlterConfigs is not asked");
    assertEquals(OptionalLong.of(2_000_000), call.throttle(), "the highest rate asked");
    var out =
        answer(
                r,
                call,
                AlterConfigsResponse.getDefaultInstance(),
                AlterPartitionReassignmentsResponse.getDefaultInstance())
            .responses();
    assertEquals(Errors.NONE.code(), out.get(0).errorCode());
    assertNull(out.get(0).errorMessage());
    assertEquals(Errors.NONE.code(), out.get(1).errorCode());
    for (int i = 2; i < 6; i++) {
      assertEquals(Errors.INVALID_REQUEST.code(), out.get(i).errorCode(), "broker " + (i + 1));
    }
    assertTrue(out.get(3).errorMessage().contains("must be a number of bytes/s"));
    assertTrue(out.get(4).errorMessage().contains("one data directory per broker"));

    var refused =
        answer(
                r,
                call,
                AlterConfigsResponse.getDefaultInstance(),
                AlterPartitionReassignmentsResponse.newBuilder()
                    .setErrorCode(ErrorCode.UNSUPPORTED_VERSION)
                    .setErrorMessage("needs metadata.version 4")
                    .build())
            .responses();
    assertEquals(Errors.UNSUPPORTED_VERSION.code(), refused.get(0).errorCode());
    assertEquals("needs metadata.version 4", refused.get(1).errorMessage());
  }

  @Test
  void shouldRemoveTheClusterThrottleWhenTheBrokersThrottleIsDeletedAndOnlyCheckWhenValidating() {
    KafkaRequest r =
        request(
            resource(
                ConfigCodec.BROKER,
                "1",
                op(DELETE, "leader.replication.throttled.rate", null),
                op(DELETE, "follower.replication.throttled.rate", null),
                op(DELETE, "replica.alter.log.dirs.io.max.bytes.per.second", null)));
    ConfigCodec.AlterCall call = ConfigCodec.incrementalAlterToSpool(r, MetadataImage.EMPTY);
    assertEquals(OptionalLong.of(0), call.throttle());

    IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection c =
        new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
    c.add(resource(ConfigCodec.BROKER, "1", op(SET, "follower.replication.throttled.rate", "10")));
    KafkaRequest validate =
        decoder.decode(
            Unpooled.directBuffer()
                .writeBytes(
                    KafkaWire.request(
                        new IncrementalAlterConfigsRequestData()
                            .setResources(c)
                            .setValidateOnly(true),
                        (short) 1,
                        3)));
    assertEquals(
        OptionalLong.empty(),
        ConfigCodec.incrementalAlterToSpool(validate, MetadataImage.EMPTY).throttle(),
        "validate only: nothing is sent");
  }

  @Test
  void shouldLeaveATopicsThrottledReplicaListsOutOfWhatSpoolIsAsked() {
    KafkaRequest r =
        request(
            resource(
                ConfigCodec.TOPIC,
                "orders",
                op(DELETE, "leader.replication.throttled.replicas", null),
                op(DELETE, "follower.replication.throttled.replicas", null)),
            resource(
                ConfigCodec.TOPIC,
                "audit",
                op(DELETE, "leader.replication.throttled.replicas", null),
                op(SET, "retention.ms", "1000"),
                op(SET, "follower.replication.throttled.replicas", "0:1")));
    ConfigCodec.AlterCall call = ConfigCodec.incrementalAlterToSpool(r, MetadataImage.EMPTY);
    assertEquals(
        List.of(
            AlterConfigsRequest.Topic.newBuilder().setName("orders").build(),
            AlterConfigsRequest.Topic.newBuilder()
                .setName("audit")
                .putAllSet(Map.of("retention.ms", "1000"))
                .build()),
        call.request().getTopicsList(),
        "the topics still go to Spool (it says whether they exist)");
    assertEquals(OptionalLong.empty(), call.throttle());
  }
}
