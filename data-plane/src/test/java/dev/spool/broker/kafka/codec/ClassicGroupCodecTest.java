package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The classic group translations against Kafka's own encoders and parsers: the consumer protocol's
 * subscription and assignment decode, version differences of JoinGroup and LeaveGroup, and the
 * classic error codes map onto Kafka's.
 */
@Tag("unit")
class ClassicGroupCodecTest {
  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));

  private KafkaRequest request(ApiMessage body, short version) {
    return decoder.decode(Unpooled.directBuffer().writeBytes(KafkaWire.request(body, version, 7)));
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private static JoinGroupRequestData join(byte[] metadata) {
    JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
        new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
    protocols.add(
        new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
    return new JoinGroupRequestData()
        .setGroupId("g")
        .setMemberId("")
        .setProtocolType("consumer")
        .setSessionTimeoutMs(10_000)
        .setRebalanceTimeoutMs(60_000)
        .setProtocols(protocols);
  }

  @Test
  void shouldDecodeTheConsumerProtocolAndJoinGroupVersions() {
    byte[] subscription =
        bytes(
            ConsumerProtocol.serializeSubscription(
                new ConsumerPartitionAssignor.Subscription(List.of("orders", "audit"))));
    Classic.JoinRequest v9 =
        ClassicGroupCodec.joinToSpool(
            request(join(subscription), (short) 9), new InetSocketAddress("127.0.0.1", 1));
    assertEquals(List.of("audit", "orders"), v9.protocols().get(0).topics(), "Kafka sorts them");
    assertArrayEquals(subscription, v9.protocols().get(0).metadata(), "passed on as sent");
    assertTrue(v9.requireKnownMemberId());
    assertEquals(60_000, v9.rebalanceTimeoutMs());
    Classic.JoinRequest v0 =
        ClassicGroupCodec.joinToSpool(
            request(join(new byte[] {1, 2, 3}), (short) 0), new InetSocketAddress("127.0.0.1", 1));
    assertEquals(List.of(), v0.protocols().get(0).topics(), "undecodable metadata: no topics");
    assertEquals(10_000, v0.rebalanceTimeoutMs(), "v0: the session timeout");
    assertEquals(false, v0.requireKnownMemberId());

    byte[] assignment =
        bytes(
            ConsumerProtocol.serializeAssignment(
                new ConsumerPartitionAssignor.Assignment(
                    List.of(new org.apache.kafka.common.TopicPartition("orders", 2)))));
    Classic.SyncRequest sync =
        ClassicGroupCodec.syncToSpool(
            request(
                new SyncGroupRequestData()
                    .setGroupId("g")
                    .setMemberId("m1")
                    .setGenerationId(1)
                    .setProtocolType("consumer")
                    .setProtocolName("range")
                    .setAssignments(
                        List.of(
                            new SyncGroupRequestData.SyncGroupRequestAssignment()
                                .setMemberId("m1")
                                .setAssignment(assignment))),
                (short) 5));
    assertEquals(Set.of(new TopicPartition("orders", 2)), sync.partitions().get("m1"));
    assertArrayEquals(assignment, sync.assignments().get("m1"));
  }

  @Test
  void shouldAnswerJoinGroupAsEachVersionCan() {
    KafkaRequest v9 = request(join(new byte[0]), (short) 9);
    JoinGroupResponse required =
        KafkaWire.parse(
            ClassicGroupCodec.joinToKafka(
                v9, Classic.JoinResult.error(ErrorCode.MEMBER_ID_REQUIRED, "again", "c-1")),
            new RequestHeader(ApiKeys.JOIN_GROUP, (short) 9, "c", 7));
    assertEquals(Errors.MEMBER_ID_REQUIRED, required.error());
    assertEquals("c-1", required.data().memberId());
    assertNull(required.data().protocolName());

    Classic.JoinResult staticLeader =
        new Classic.JoinResult(
            ErrorCode.NONE,
            "",
            3,
            "consumer",
            "range",
            "m1",
            true,
            "m1",
            List.of(new Classic.JoinMember("m1", "i1", new byte[] {9})));
    JoinGroupResponse r9 =
        KafkaWire.parse(
            ClassicGroupCodec.joinToKafka(v9, staticLeader),
            new RequestHeader(ApiKeys.JOIN_GROUP, (short) 9, "c", 7));
    assertTrue(r9.data().skipAssignment());
    assertEquals(1, r9.data().members().size());
    assertEquals("i1", r9.data().members().get(0).groupInstanceId());
    KafkaRequest v5 = request(join(new byte[0]), (short) 5);
    JoinGroupResponse r5 =
        KafkaWire.parse(
            ClassicGroupCodec.joinToKafka(v5, staticLeader),
            new RequestHeader(ApiKeys.JOIN_GROUP, (short) 5, "c", 7));
    assertEquals(0, r5.data().members().size(), "before v9 a returning leader gets no members");
    assertEquals(3, r5.data().generationId());
  }

  @Test
  void shouldAnswerLeaveGroupPerMemberFromVersion3() {
    Classic.LeaveResult res =
        new Classic.LeaveResult(
            ErrorCode.NONE,
            "",
            List.of(
                new Classic.LeftMember("m1", null, ErrorCode.NONE),
                new Classic.LeftMember("", "i2", ErrorCode.FENCED_INSTANCE_ID)));
    KafkaRequest v5 =
        request(
            new LeaveGroupRequestData()
                .setGroupId("g")
                .setMembers(
                    List.of(
                        new LeaveGroupRequestData.MemberIdentity().setMemberId("m1"),
                        new LeaveGroupRequestData.MemberIdentity()
                            .setMemberId("")
                            .setGroupInstanceId("i2"))),
            (short) 5);
    assertEquals(2, ClassicGroupCodec.leaveToSpool(v5).size());
    LeaveGroupResponse r5 =
        KafkaWire.parse(
            ClassicGroupCodec.leaveToKafka(v5, res),
            new RequestHeader(ApiKeys.LEAVE_GROUP, (short) 5, "c", 7));
    assertEquals(Errors.FENCED_INSTANCE_ID.code(), r5.data().members().get(1).errorCode());
    KafkaRequest v1 =
        request(new LeaveGroupRequestData().setGroupId("g").setMemberId("x"), (short) 1);
    LeaveGroupResponse r1 =
        KafkaWire.parse(
            ClassicGroupCodec.leaveToKafka(
                v1,
                new Classic.LeaveResult(
                    ErrorCode.NONE,
                    "",
                    List.of(new Classic.LeftMember("x", null, ErrorCode.UNKNOWN_MEMBER_ID)))),
            new RequestHeader(ApiKeys.LEAVE_GROUP, (short) 1, "c", 7));
    assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), r1.data().errorCode());
  }

  @Test
  void shouldMapTheClassicErrorCodesOntoKafkas() {
    assertEquals(
        Errors.REBALANCE_IN_PROGRESS.code(), KafkaErrors.code(ErrorCode.REBALANCE_IN_PROGRESS));
    assertEquals(Errors.ILLEGAL_GENERATION.code(), KafkaErrors.code(ErrorCode.ILLEGAL_GENERATION));
    assertEquals(
        Errors.INCONSISTENT_GROUP_PROTOCOL.code(),
        KafkaErrors.code(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    assertEquals(Errors.MEMBER_ID_REQUIRED.code(), KafkaErrors.code(ErrorCode.MEMBER_ID_REQUIRED));
    assertEquals(
        Errors.INVALID_SESSION_TIMEOUT.code(), KafkaErrors.code(ErrorCode.INVALID_SESSION_TIMEOUT));
    assertEquals(Errors.FENCED_INSTANCE_ID.code(), KafkaErrors.code(ErrorCode.FENCED_INSTANCE_ID));
  }
}
