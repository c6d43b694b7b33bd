package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.security.SaslVerifiers;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramClient;
import dev.spool.common.ScramMechanism;
import dev.spool.common.SpoolException;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import io.netty.channel.DefaultEventLoop;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The protocol-neutral SASL exchange both listeners run, driven by Spool's own SCRAM client ({@link
 * ScramClient}) against the broker's {@code ScramServer} for both SCRAM mechanisms, and by PLAIN
 * through the verifiers: the outcomes in order, the principal, and every refusal (wrong password,
 * unknown mechanism, out of turn, requests before authentication).
 */
@Tag("unit")
class SaslAuthenticationTest {
  private static final byte[] SALT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final MetadataImage IMAGE = image();

  private final DefaultEventLoop loop = new DefaultEventLoop();
  private final SaslVerifiers verifiers = new SaslVerifiers("sasl-verify-test", 1, 4);
  private final SaslAuthentication sasl =
      new SaslAuthentication(
          List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"),
          () -> IMAGE,
          "[test]",
          100,
          verifiers,
          ScramMechanism.Credential::matches);

  private static MetadataImage image() {
    MetadataBatch.Builder batch = MetadataBatch.newBuilder();
    for (ScramMechanism m : ScramMechanism.values()) {
      batch.addRecords(
          Records.scramCredential(
              "alice", m.credential(SALT, 4096, m.saltedPassword("alice-pw", SALT, 4096))));
    }
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    MetadataApplier.apply(b, batch.build(), 1);
    return b.build(1);
  }

  @AfterEach
  void close() {
    verifiers.close();
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
  }

  private SaslAuthentication.Session session() {
    return sasl.newSession(new InetSocketAddress("127.0.0.1", 5555), loop);
  }

  private SaslAuthentication.Outcome token(SaslAuthentication.Session s, byte[] token)
      throws Exception {
    return sasl.authenticate(s, token).get(10, TimeUnit.SECONDS);
  }

  @Test
  void spoolsScramClientLogsInWithEitherMechanismAndChecksTheServer() throws Exception {
    for (ScramMechanism m : ScramMechanism.values()) {
      SaslAuthentication.Session s = session();
      assertTrue(sasl.refuseBeforeAuthentication(s, "a Metadata request"));
      SaslAuthentication.Outcome h = sasl.handshake(s, m.mechanismName());
      assertEquals(SaslAuthentication.Kind.HANDSHAKE_ACCEPTED, h.kind());
      assertEquals(List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"), h.mechanisms());
      ScramClient client = new ScramClient(m, "alice", "alice-pw", "client-nonce");
      SaslAuthentication.Outcome first = token(s, client.clientFirst());
      assertEquals(SaslAuthentication.Kind.CHALLENGE, first.kind());
      assertFalse(s.authenticated());
      SaslAuthentication.Outcome last = token(s, client.clientFinal(first.token()));
      assertEquals(SaslAuthentication.Kind.CHALLENGE, last.kind());
      client.serverFinal(last.token()); // throws unless the server proved it knows ServerKey
      assertTrue(client.isComplete());
      assertTrue(s.authenticated());
      assertEquals("User:alice", s.principal());
      assertFalse(sasl.refuseBeforeAuthentication(s, "a Metadata request"));
      // no re-authentication
      byte[] again = new ScramClient(m, "alice", "alice-pw", "again").clientFirst();
      assertEquals(SaslAuthentication.Kind.ILLEGAL_STATE, token(s, again).kind());
    }
  }

  @Test
  void aWrongPasswordFailsAfterTheDelayAndTheClientSeesNoServerSignature() throws Exception {
    SaslAuthentication.Session s = session();
    sasl.handshake(s, "SCRAM-SHA-512");
    ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_512, "alice", "wrong", "n0");
    SaslAuthentication.Outcome first = token(s, client.clientFirst());
    SaslAuthentication.Outcome failed = token(s, client.clientFinal(first.token()));
    assertEquals(SaslAuthentication.Kind.AUTHENTICATION_FAILED, failed.kind());
    assertEquals(100, failed.closeDelayMs());
    assertTrue(failed.message().contains("invalid credentials"), failed.message());
    assertFalse(s.authenticated());
    assertNull(s.principal());

    // a server without alice's credential cannot fool the client either: a forged server-final
    ScramClient other = new ScramClient(ScramMechanism.SCRAM_SHA_512, "alice", "alice-pw", "n1");
    SaslAuthentication.Session s2 = session();
    sasl.handshake(s2, "SCRAM-SHA-512");
    other.clientFinal(token(s2, other.clientFirst()).token());
    SpoolException forged =
        assertThrows(
            SpoolException.class,
            () -> other.serverFinal("v=AAAA".getBytes(StandardCharsets.UTF_8)));
    assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED, forged.errorCode());
  }

  @Test
  void plainIsVerifiedOffTheLoopAndRefusalsAreTheKafkaListeners() throws Exception {
    SaslAuthentication.Session s = session();
    assertEquals(
        SaslAuthentication.Kind.ILLEGAL_STATE,
        token(s, new byte[] {1}).kind(),
        "SaslAuthenticate before SaslHandshake");

    SaslAuthentication.Session plain = session();
    sasl.handshake(plain, "PLAIN");
    SaslAuthentication.Outcome ok =
        token(plain, "\0alice\0alice-pw".getBytes(StandardCharsets.UTF_8));
    assertEquals(SaslAuthentication.Kind.CHALLENGE, ok.kind());
    assertEquals("User:alice", plain.principal());

    SaslAuthentication.Session wrong = session();
    sasl.handshake(wrong, "PLAIN");
    SaslAuthentication.Outcome refused =
        token(wrong, "\0alice\0nope".getBytes(StandardCharsets.UTF_8));
    assertEquals(SaslAuthentication.Kind.AUTHENTICATION_FAILED, refused.kind());
    assertEquals("Authentication failed: Invalid username or password", refused.message());

    SaslAuthentication.Session gssapi = session();
    SaslAuthentication.Outcome unsupported = sasl.handshake(gssapi, "GSSAPI");
    assertEquals(SaslAuthentication.Kind.UNSUPPORTED_MECHANISM, unsupported.kind());
    assertEquals(List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"), unsupported.mechanisms());

    SaslAuthentication.Session twice = session();
    sasl.handshake(twice, "PLAIN");
    assertEquals(SaslAuthentication.Kind.ILLEGAL_STATE, sasl.handshake(twice, "PLAIN").kind());
  }
}
