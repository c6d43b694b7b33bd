package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Each user's credential change is one INFO line naming who and whom, with no key material. */
@Tag("unit")
class ScramAuditTest {
  @Test
  void oneInfoLinePerUserWithThePrincipalAndNoKeyMaterial() {
    byte[] salt = new byte[32];
    byte[] salted = new byte[32];
    for (int i = 0; i < 32; i++) {
      salt[i] = (byte) (i + 1);
      salted[i] = (byte) (100 + i);
    }
    AlterUserScramCredentialsRequest req =
        AlterUserScramCredentialsRequest.newBuilder()
            .addUpsertions(
                AlterUserScramCredentialsRequest.Upsertion.newBuilder()
                    .setName("alice")
                    .setMechanism("SCRAM-SHA-256")
                    .setIterations(4096)
                    .setSalt(ByteString.copyFrom(salt))
                    .setSaltedPassword(ByteString.copyFrom(salted)))
            .addDeletions(
                AlterUserScramCredentialsRequest.Deletion.newBuilder()
                    .setName("alice")
                    .setMechanism("SCRAM-SHA-512"))
            .addDeletions(
                AlterUserScramCredentialsRequest.Deletion.newBuilder()
                    .setName("bob\nforged")
                    .setMechanism("SCRAM-SHA-512"))
            .build();
    AlterUserScramCredentialsResponse resp =
        AlterUserScramCredentialsResponse.newBuilder()
            .addResults(
                AlterUserScramCredentialsResponse.Result.newBuilder()
                    .setUser("bob\nforged")
                    .setErrorCode(ErrorCode.RESOURCE_NOT_FOUND))
            .addResults(AlterUserScramCredentialsResponse.Result.newBuilder().setUser("alice"))
            .build();
    Logger logger = (Logger) LoggerFactory.getLogger(AlterUserScramCredentialsHandler.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    try {
      AlterUserScramCredentialsHandler.audit(
          req, resp, null, "User:admin on connection /127.0.0.1:5000 (Kafka listener)");
    } finally {
      logger.detachAppender(lines);
    }
    assertEquals(2, lines.list.size(), lines.list.toString());
    for (ILoggingEvent e : lines.list) {
      assertEquals(Level.INFO, e.getLevel());
      String line = e.getFormattedMessage();
      assertTrue(line.contains("User:admin on connection /127.0.0.1:5000"), line);
      assertFalse(line.contains("\n"), line);
      for (byte[] secret : new byte[][] {salt, salted}) {
        assertFalse(line.contains(Base64.getEncoder().encodeToString(secret)), line);
        assertFalse(line.contains(HexFormat.of().formatHex(secret)), line);
      }
    }
    String alice = lines.list.get(0).getFormattedMessage();
    assertTrue(alice.contains("user 'alice'"), alice);
    assertTrue(alice.contains("upsert 'SCRAM-SHA-256' (4096 iterations)"), alice);
    assertTrue(alice.contains("delete 'SCRAM-SHA-512'"), alice);
    assertTrue(alice.endsWith("applied"), alice);
    String bob = lines.list.get(1).getFormattedMessage();
    assertTrue(bob.contains("'bob\\u000aforged'"), bob);
    assertTrue(bob.endsWith("refused RESOURCE_NOT_FOUND"), bob);
  }
}
