package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.quorum.image.MetadataImage;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * IncrementalAlterConfigs as kafka-reassign-partitions.sh sends it after a move: deleting Kafka's
 * replication throttle configurations from brokers and topics, which Spool never holds, succeeds
 * and changes nothing; setting them, or anything else on a broker, is still refused.
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
      KafkaRequest r, ConfigCodec.AlterCall call, AlterConfigsResponse spool) {
    IncrementalAlterConfigsResponse parsed =
        KafkaWire.parse(
            ConfigCodec.incrementalAlterToKafka(r, call, spool),
            KafkaWire.header(new IncrementalAlterConfigsRequestData(), r.version(), 3));
    return parsed.data();
  }

  @Test
  void shouldAnswerDeletingABrokersThrottleHereAsDoneAndRefuseEverythingElseOnABroker() {
    KafkaRequest r =
        request(
            resource(
                ConfigCodec.BROKER,
                "1",
                op(DELETE, "leader.replication.throttled.rate", null),
                op(DELETE, "follower.replication.throttled.rate", null),
                op(DELETE, "replica.alter.log.dirs.io.max.bytes.per.second", null)),
            resource(
                ConfigCodec.BROKER,
                "2",
                op(SET, "leader.replication.throttled.rate", "1000000"),
                op(DELETE, "follower.replication.throttled.rate", null)),
            resource(ConfigCodec.BROKER, "3", op(DELETE, "log.retention.ms", null)),
            resource(ConfigCodec.BROKER, "4"));
    ConfigCodec.AlterCall call = ConfigCodec.incrementalAlterToSpool(r, MetadataImage.EMPTY);
    assertEquals(0, call.request().getTopicsCount(), "no topic: Spool is not asked");
    var out = answer(r, call, AlterConfigsResponse.getDefaultInstance()).responses();
    assertEquals(Errors.NONE.code(), out.get(0).errorCode());
    assertNull(out.get(0).errorMessage());
    for (int i = 1; i < 4; i++) {
      assertEquals(Errors.INVALID_REQUEST.code(), out.get(i).errorCode(), "broker " + (i + 1));
    }
  }

  @Test
  void shouldLeaveATopicsThrottleDeletesOutOfWhatSpoolIsAsked() {
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
                .putAllSet(
                    Map.of(
                        "retention.ms", "1000", "follower.replication.throttled.replicas", "0:1"))
                .build()),
        call.request().getTopicsList(),
        "the topics still go to Spool (it says whether they exist; it refuses setting a throttle)");
  }
}
