package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.protocol.InvalidFrameException;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What the Kafka listener decides before serving a request, checked against Kafka 4.4's rules. */
@Tag("unit")
class KafkaRequestDecoderTest {
  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));

  private KafkaRequest decode(ByteBuffer frame) {
    return decoder.decode(Unpooled.wrappedBuffer(frame));
  }

  private static ByteBuffer raw(int key, int version, int correlationId, byte... rest) {
    ByteBuffer b = ByteBuffer.allocate(11 + rest.length);
    b.putShort((short) key).putShort((short) version).putInt(correlationId).putShort((short) 1);
    return b.put((byte) 'x').put(rest).flip();
  }

  @Test
  void shouldAnswerAnApiVersionsRequestNewerThanItKnowsWithKafkasVersionZeroFallback() {
    // Header v2 (flexible): no tagged fields, then a body nobody parses.
    KafkaRequest r = decode(raw(18, 99, 1, (byte) 0, (byte) 7, (byte) 7));
    assertTrue(r.api().isEmpty());
    byte[] answer = KafkaWire.bytes(r.immediateAnswer());
    // size 16, correlation id 1, UNSUPPORTED_VERSION (35), one entry: ApiVersions 0..5 (KIP-511).
    assertArrayEquals(HexFormat.of().parseHex("0000001000000001002300000001001200000005"), answer);
  }

  @Test
  void shouldCloseOnAnUnknownApiKeyOrAVersionKafkaDoesNotKnow() {
    InvalidFrameException unknown =
        assertThrows(InvalidFrameException.class, () -> decode(raw(9999, 0, 1)));
    assertTrue(unknown.getMessage().contains("unknown Kafka API key 9999"), unknown.getMessage());
    // Produce v2: advertised (librdkafka needs the range to start at 0) but not spoken, as Kafka 4.
    InvalidFrameException old =
        assertThrows(InvalidFrameException.class, () -> decode(raw(0, 2, 1)));
    assertTrue(old.getMessage().contains("Produce version 2 is not supported"), old.getMessage());
  }

  @Test
  void shouldCloseWithAClearReasonWhenTheClientWantsSaslFromAListenerWithout() {
    KafkaRequestDecoder noSasl =
        new KafkaRequestDecoder(
            EnumSet.complementOf(EnumSet.of(KafkaApi.SASL_HANDSHAKE, KafkaApi.SASL_AUTHENTICATE)));
    InvalidFrameException e =
        assertThrows(
            InvalidFrameException.class,
            () -> noSasl.decode(Unpooled.wrappedBuffer(raw(17, 1, 1))));
    assertTrue(e.getMessage().contains("SASL"), e.getMessage());
    assertThrows(
        InvalidFrameException.class, () -> noSasl.decode(Unpooled.wrappedBuffer(raw(36, 2, 1))));
  }

  @Test
  void shouldCloseOnATruncatedOrInconsistentBodyWithoutAllocatingPastTheFrame() {
    ByteBuffer ok =
        KafkaWire.request(new MetadataRequestData().setTopics(List.of()), (short) 12, 5);
    ByteBuffer truncated = ok.duplicate().limit(ok.limit() - 1);
    InvalidFrameException early =
        assertThrows(InvalidFrameException.class, () -> decode(truncated));
    assertEquals(
        "malformed Metadata v12 request: the frame ends before the request does",
        early.getMessage());
    // Metadata v12: header v2 = 2+2+4 + client id (2 + 11) + tags (1) = 22 bytes; then the topics
    // array as a compact length: a count of about 2^28 topics in a frame of a few bytes.
    ByteBuffer huge = ByteBuffer.allocate(22 + 5 + 2);
    huge.put(ok.duplicate().limit(22));
    huge.put(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01, 0, 0}).flip();
    InvalidFrameException e = assertThrows(InvalidFrameException.class, () -> decode(huge));
    assertTrue(e.getMessage().contains("malformed Metadata v12"), e.getMessage());
    assertThrows(InvalidFrameException.class, () -> decode(ByteBuffer.wrap(new byte[] {0, 3})));
  }

  @Test
  void shouldAnswerUnsupportedVersionForApisAndVersionsItDoesNotServe() {
    ApiMessage quotas = new org.apache.kafka.common.message.ListTransactionsRequestData();
    KafkaRequest r = decode(KafkaWire.request(quotas, (short) 1, 8));
    org.apache.kafka.common.requests.ListTransactionsResponse a =
        KafkaWire.parse(r.immediateAnswer(), KafkaWire.header(quotas, (short) 1, 8));
    assertEquals(Errors.UNSUPPORTED_VERSION.code(), a.data().errorCode());
    // The error metrics count it (the answer names its request-level error).
    assertEquals("UNSUPPORTED_VERSION", r.immediateAnswer().error());

    ApiMessage init = new InitProducerIdRequestData().setTransactionalId(null);
    KafkaRequest v6 = decode(KafkaWire.request(init, (short) 6, 9));
    InitProducerIdResponse i =
        KafkaWire.parse(v6.immediateAnswer(), KafkaWire.header(init, (short) 6, 9));
    assertEquals(Errors.UNSUPPORTED_VERSION, i.error());
  }

  @Test
  void shouldFailTransactionalApisAsFatalForKafkasClients() {
    ApiMessage end = new EndTxnRequestData().setTransactionalId("tx");
    KafkaRequest r = decode(KafkaWire.request(end, (short) 4, 3));
    EndTxnResponse e = KafkaWire.parse(r.immediateAnswer(), KafkaWire.header(end, (short) 4, 3));
    assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, e.error());
    assertEquals("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", r.immediateAnswer().error());
  }

  @Test
  void shouldCloseInsteadOfAnsweringAnAcksZeroProduceItDoesNotServe() {
    KafkaRequestDecoder noProduce = new KafkaRequestDecoder(EnumSet.of(KafkaApi.METADATA));
    ApiMessage p = new ProduceRequestData().setAcks((short) 0);
    KafkaRequest r = noProduce.decode(Unpooled.wrappedBuffer(KafkaWire.request(p, (short) 9, 1)));
    assertTrue(r.immediateAnswer().closeAfterSend());
    assertTrue(r.immediateAnswer().isNone());
    ApiMessage acks1 = new ProduceRequestData().setAcks((short) 1);
    KafkaRequest r1 =
        noProduce.decode(Unpooled.wrappedBuffer(KafkaWire.request(acks1, (short) 9, 2)));
    ProduceResponse resp =
        KafkaWire.parse(r1.immediateAnswer(), KafkaWire.header(acks1, (short) 9, 2));
    assertTrue(resp.data().responses().isEmpty());
  }

  @Test
  void shouldDecodeEveryVersionOfEveryServedApi() {
    for (KafkaApi api : KafkaApi.values()) {
      for (short v = api.advertisedMin(); v <= api.max(); v++) {
        if (!api.accepts(v)) {
          continue;
        }
        ApiMessage body = ApiMessageType.fromApiKey(api.id()).newRequest();
        if (body instanceof ApiVersionsRequestData a) {
          a.setClientSoftwareName("test").setClientSoftwareVersion("1");
        }
        if (body instanceof DescribeAclsRequestData d) {
          // Kafka's own parser refuses UNKNOWN (0) filter fields; ANY (1) is the every-ACL filter.
          d.setResourceTypeFilter((byte) 1)
              .setPatternTypeFilter((byte) 1)
              .setOperation((byte) 1)
              .setPermissionType((byte) 1);
        }
        KafkaRequest r = decode(KafkaWire.request(body, v, 42));
        assertEquals(api, r.api().orElseThrow(), api + " v" + v);
        assertNull(r.immediateAnswer(), api + " v" + v);
        assertEquals(42, r.correlationId());
        assertEquals(KafkaWire.CLIENT_ID, r.clientId());
        assertEquals(v, r.version());
      }
    }
  }
}
