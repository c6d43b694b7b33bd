package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import org.junit.jupiter.api.Test;

/**
 * AlterUserScramCredentials decisions: salted passwords become StoredKey and ServerKey (the salted
 * password itself is not logged), and every kind of bad input is refused per user with Kafka's
 * codes and no record.
 */
class ScramDecisionsTest {
  private static final byte[] SALT = {9, 8, 7};

  private static AlterUserScramCredentialsRequest.Upsertion upsert(
      String user, String mechanism, int iterations, String password) {
    ScramMechanism m = ScramMechanism.forName(mechanism).orElse(ScramMechanism.SCRAM_SHA_256);
    return AlterUserScramCredentialsRequest.Upsertion.newBuilder()
        .setName(user)
        .setMechanism(mechanism)
        .setIterations(iterations)
        .setSalt(ByteString.copyFrom(SALT))
        .setSaltedPassword(ByteString.copyFrom(m.saltedPassword(password, SALT, iterations)))
        .build();
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  @Test
  void theHelperSaltsWithTheIterationsItIsGiven() {
    ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
    assertTrue(
        java.util.Arrays.equals(
            m.saltedPassword("a", SALT, 8192),
            upsert("u", "SCRAM-SHA-256", 8192, "a").getSaltedPassword().toByteArray()));
  }

  @Test
  void anUpsertionBecomesACredentialRecordWithoutTheSaltedPassword() {
    var u = upsert("alice", "SCRAM-SHA-256", 4096, "secret");
    Decision d =
        ScramDecisions.alter(
            AlterUserScramCredentialsRequest.newBuilder().addUpsertions(u).build(),
            MetadataImage.EMPTY);
    assertEquals(1, d.batch().getRecordsCount());
    var rec = d.batch().getRecords(0).getScramCredential();
    assertEquals("alice", rec.getUser());
    // neither the password nor the salted password is anywhere in the record's bytes
    byte[] recordBytes = d.batch().getRecords(0).toByteArray();
    assertFalse(contains(recordBytes, u.getSaltedPassword().toByteArray()));
    assertFalse(contains(recordBytes, "secret".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertTrue(
        !rec.getStoredKey().equals(u.getSaltedPassword())
            && !rec.getServerKey().equals(u.getSaltedPassword()));
    MetadataImage img = MetadataApplier.replay(MetadataImage.EMPTY, d.batch(), 4);
    assertTrue(
        Records.credential(img.scramCredential("alice", ScramMechanism.SCRAM_SHA_256))
            .matches("secret"));
    assertEquals(
        ErrorCode.NONE, d.reply().getAlterUserScramCredentials().getResults(0).getErrorCode());
  }

  @Test
  void badInputIsRefusedPerUserWithKafkasCodesAndNoRecords() {
    AlterUserScramCredentialsRequest req =
        AlterUserScramCredentialsRequest.newBuilder()
            .addUpsertions(upsert("dup", "SCRAM-SHA-256", 4096, "a"))
            .addUpsertions(upsert("dup", "SCRAM-SHA-256", 4096, "b"))
            .addUpsertions(upsert("few", "SCRAM-SHA-256", 1000, "a"))
            .addUpsertions(upsert("many", "SCRAM-SHA-512", 20000, "a"))
            .addUpsertions(upsert("md5", "SCRAM-MD5", 4096, "a"))
            .addUpsertions(upsert("", "SCRAM-SHA-256", 4096, "a"))
            .addUpsertions(
                upsert("short", "SCRAM-SHA-512", 4096, "a").toBuilder()
                    .setSaltedPassword(ByteString.copyFrom(new byte[32]))
                    .build())
            .addDeletions(
                AlterUserScramCredentialsRequest.Deletion.newBuilder()
                    .setName("ghost")
                    .setMechanism("SCRAM-SHA-256"))
            .addUpsertions(upsert("fine", "SCRAM-SHA-256", 8192, "a"))
            .build();
    Decision d = ScramDecisions.alter(req, MetadataImage.EMPTY);
    AlterUserScramCredentialsResponse r = d.reply().getAlterUserScramCredentials();
    // deletions' users first, then upsertions' in order of appearance
    assertEquals("ghost", r.getResults(0).getUser());
    assertEquals(ErrorCode.RESOURCE_NOT_FOUND, r.getResults(0).getErrorCode());
    assertEquals(ErrorCode.DUPLICATE_RESOURCE, r.getResults(1).getErrorCode());
    assertEquals(ErrorCode.UNACCEPTABLE_CREDENTIAL, r.getResults(2).getErrorCode());
    assertEquals(ErrorCode.UNACCEPTABLE_CREDENTIAL, r.getResults(3).getErrorCode());
    assertEquals(ErrorCode.UNSUPPORTED_SASL_MECHANISM, r.getResults(4).getErrorCode());
    assertEquals(ErrorCode.UNACCEPTABLE_CREDENTIAL, r.getResults(5).getErrorCode());
    assertEquals(ErrorCode.UNACCEPTABLE_CREDENTIAL, r.getResults(6).getErrorCode());
    assertEquals("fine", r.getResults(7).getUser());
    assertEquals(ErrorCode.NONE, r.getResults(7).getErrorCode());
    assertEquals(1, d.batch().getRecordsCount());
    assertEquals(java.util.List.of(7), d.recordItem());
    for (int i = 0; i < 7; i++) {
      assertTrue(!r.getResults(i).getErrorMessage().isEmpty(), r.getResults(i).toString());
    }
  }
}
