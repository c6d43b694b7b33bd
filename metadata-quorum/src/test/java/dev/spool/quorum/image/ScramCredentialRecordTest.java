package dev.spool.quorum.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SCRAM credential records: applied into the image (never a password), removed, carried through a
 * snapshot, and refused on replay when a name, mechanism, iteration count or size is illegal,
 * leaving the image unchanged.
 */
class ScramCredentialRecordTest {
  private static final byte[] SALT = {1, 2, 3, 4};

  private static MetadataRecord credential(String user, ScramMechanism m, String password) {
    return Records.scramCredential(
        user, m.credential(SALT, 4096, m.saltedPassword(password, SALT, 4096)));
  }

  private static MetadataImage replay(MetadataImage image, MetadataRecord... records) {
    return MetadataApplier.replay(
        image, MetadataBatch.newBuilder().addAllRecords(List.of(records)).build(), 7);
  }

  @Test
  void aCredentialIsAppliedRemovedAndSurvivesASnapshot() {
    MetadataImage img =
        replay(
            MetadataImage.EMPTY,
            credential("alice", ScramMechanism.SCRAM_SHA_256, "pw1"),
            credential("alice", ScramMechanism.SCRAM_SHA_512, "pw1"),
            credential("bob", ScramMechanism.SCRAM_SHA_256, "pw2"));
    ScramCredentialRecord a = img.scramCredential("alice", ScramMechanism.SCRAM_SHA_512);
    assertNotNull(a);
    assertEquals(4096, a.getIterations());
    assertEquals(64, a.getStoredKey().size());
    assertTrue(Records.credential(a).matches("pw1"));
    assertEquals(2, img.scramCredentials().size());

    MetadataImage restored = ImageSnapshots.fromSnapshot(ImageSnapshots.toSnapshot(img));
    assertEquals(img, restored);
    assertEquals(ImageSnapshots.toSnapshot(img), ImageSnapshots.toSnapshot(restored));

    MetadataImage removed =
        replay(img, Records.removeScramCredential("alice", ScramMechanism.SCRAM_SHA_256));
    assertNull(removed.scramCredential("alice", ScramMechanism.SCRAM_SHA_256));
    assertNotNull(removed.scramCredential("alice", ScramMechanism.SCRAM_SHA_512));
    MetadataImage gone =
        replay(removed, Records.removeScramCredential("alice", ScramMechanism.SCRAM_SHA_512));
    assertEquals(List.of("bob"), List.copyOf(gone.scramCredentials().keySet()));
  }

  @Test
  void removingACredentialThatDoesNotExistIsRefused() {
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    RecordResult r =
        MetadataApplier.apply(
            b, Records.removeScramCredential("nobody", ScramMechanism.SCRAM_SHA_256), 3);
    assertEquals(ErrorCode.RESOURCE_NOT_FOUND, r.getErrorCode());
  }

  @Test
  void illegalRecordsAreRefusedOnReplayAndChangeNothing() {
    ScramCredentialRecord good =
        credential("carol", ScramMechanism.SCRAM_SHA_256, "pw").getScramCredential();
    List<ScramCredentialRecord> bad =
        List.of(
            good.toBuilder().setUser("").build(),
            good.toBuilder().setUser("x".repeat(RecordChecks.MAX_USER_NAME_CHARS + 1)).build(),
            good.toBuilder().setUser("ev\nil").build(),
            good.toBuilder().setUser("nul\0").build(),
            good.toBuilder().setMechanism("SCRAM-MD5").build(),
            good.toBuilder().setIterations(4095).build(),
            good.toBuilder().setIterations(16385).build(),
            good.toBuilder().setSalt(ByteString.EMPTY).build(),
            good.toBuilder().setStoredKey(ByteString.copyFrom(new byte[31])).build(),
            good.toBuilder().setServerKey(ByteString.copyFrom(new byte[64])).build());
    for (ScramCredentialRecord r : bad) {
      MetadataRecord rec = MetadataRecord.newBuilder().setScramCredential(r).build();
      RecordResult checked = RecordChecks.check(rec);
      assertNotNull(checked, r.toString());
      assertTrue(
          checked.getErrorCode() == ErrorCode.UNACCEPTABLE_CREDENTIAL
              || checked.getErrorCode() == ErrorCode.UNSUPPORTED_SASL_MECHANISM,
          checked.toString());
      ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
      assertEquals(checked, MetadataApplier.apply(b, rec, 5));
      assertSame(MetadataImage.EMPTY.scramCredentials(), b.build(5).scramCredentials());
    }
    assertNull(RecordChecks.check(MetadataRecord.newBuilder().setScramCredential(good).build()));
    assertNotNull(
        RecordChecks.check(
            MetadataRecord.newBuilder()
                .setRemoveScramCredential(
                    dev.spool.quorum.message.RemoveScramCredentialRecord.newBuilder()
                        .setUser("a")
                        .setMechanism("PLAIN"))
                .build()));
  }
}
