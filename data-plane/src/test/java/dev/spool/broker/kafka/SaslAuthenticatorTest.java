package dev.spool.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.codec.KafkaApi;
import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaRequestDecoder;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The SASL state machine of one connection, request by request (no network): the order Kafka's
 * broker enforces (ApiVersions, SaslHandshake, SaslAuthenticate until done), what happens out of
 * turn, and that nothing but ApiVersions and the SASL requests is decoded before authentication.
 */
@Tag("unit")
class SaslAuthenticatorTest {
  private static final byte[] SALT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));
  private final SaslAuthenticator sasl =
      new SaslAuthenticator(List.of("PLAIN", "SCRAM-SHA-256"), () -> IMAGE, "[test]", 100);
  private final SaslAuthenticator.Session session =
      sasl.newSession(new InetSocketAddress("127.0.0.1", 5555));

  private static final MetadataImage IMAGE = image();

  private static MetadataImage image() {
    ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    MetadataApplier.apply(
        b,
        MetadataBatch.newBuilder()
            .addRecords(
                Records.scramCredential(
                    "alice", m.credential(SALT, 4096, m.saltedPassword("pw", SALT, 4096))))
            .build(),
        1);
    return b.build(1);
  }

  private ByteBuf frame(ApiMessage body, short version, int correlationId) {
    return Unpooled.wrappedBuffer(KafkaWire.request(body, version, correlationId));
  }

  private KafkaResponse send(ApiMessage body, short version) {
    ByteBuf f = frame(body, version, 1);
    assertNull(sasl.refuseUndecoded(f, session), "refused undecoded");
    KafkaRequest r = decoder.decode(f);
    return sasl.intercept(r, session);
  }

  private KafkaResponse handshake() {
    return send(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1);
  }

  private KafkaResponse plain(String user, String password) {
    return send(
        new SaslAuthenticateRequestData()
            .setAuthBytes(("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8)),
        (short) 1);
  }

  private static void assertOk(KafkaResponse r) {
    assertNotNull(r);
    assertNull(r.error(), String.valueOf(r.error()));
    assertFalse(r.closeAfterSend());
  }

  private static void assertClosesWith(Errors error, KafkaResponse r) {
    assertEquals(error.name(), r.error());
    assertTrue(r.closeAfterSend());
    assertFalse(r.isNone());
  }

  @Test
  void apiVersionsHandshakeAndAuthenticateThenEverythingIsServed() {
    assertNull(send(new ApiVersionsRequestData(), (short) 3), "ApiVersions is served as usual");
    assertOk(handshake());
    assertOk(plain("alice", "pw"));
    assertTrue(session.authenticated());
    assertEquals("User:alice", session.principal());
    assertNull(send(new MetadataRequestData(), (short) 12), "served as usual once authenticated");
  }

  @Test
  void aSecondHandshakeIsIllegalStateAndCloses() {
    assertOk(handshake());
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, handshake());
    assertFalse(session.authenticated());
  }

  @Test
  void authenticateBeforeHandshakeIsIllegalStateAndCloses() {
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
    assertFalse(session.authenticated());
  }

  @Test
  void authenticateAfterSuccessIsIllegalStateAndCloses() {
    assertOk(handshake());
    assertOk(plain("alice", "pw"));
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
  }

  @Test
  void aFailedAuthenticationClosesAfterTheDelayAndNothingIsServedAfterIt() {
    assertOk(handshake());
    KafkaResponse failed = plain("alice", "wrong");
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, failed);
    assertEquals(100, failed.closeDelayMs());
    assertFalse(session.authenticated());
    // a request that still arrives is refused from its api key, unparsed
    assertNotNull(sasl.refuseUndecoded(frame(new MetadataRequestData(), (short) 12, 2), session));
    // and a SASL request is out of turn
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
    assertFalse(session.authenticated());
  }

  @Test
  void aNonSaslRequestBetweenHandshakeAndAuthenticateClosesUnanswered() {
    assertOk(handshake());
    ByteBuf metadata = frame(new MetadataRequestData(), (short) 12, 2);
    assertNotNull(sasl.refuseUndecoded(metadata, session), "refused from its header");
    KafkaResponse r = sasl.intercept(decoder.decode(metadata), session);
    assertTrue(r.closeAfterSend());
    assertTrue(r.isNone(), "unanswered");
    assertFalse(session.authenticated());
  }
}
