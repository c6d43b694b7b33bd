package dev.spool.quorum;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ScramMechanism;
import dev.spool.quorum.controller.BrokerHeartbeatTracker;
import dev.spool.quorum.controller.ClusterDuties;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool storage format --add-scram} in Kafka's syntax: what it accepts (the stored
 * credential matches the password; salt and iterations as given), what it refuses and says why, the
 * bootstrap file (no password in it, read back equal), and the controller writing the credentials
 * with the bootstrap metadata.version.
 */
@Tag("unit")
class BootstrapCredentialsTest {
  private final SecureRandom random = new SecureRandom();
  @TempDir Path dir;

  @Test
  void shouldReadKafkasSyntaxIntoACredentialThatMatchesThePassword() {
    ScramCredentialRecord r =
        BootstrapCredentials.parse("SCRAM-SHA-256=[name=admin,password=admin-secret]", random);
    assertEquals("admin", r.getUser());
    assertEquals("SCRAM-SHA-256", r.getMechanism());
    assertEquals(4096, r.getIterations());
    assertEquals(32, r.getSalt().size());
    assertTrue(Records.credential(r).matches("admin-secret"));
    assertFalse(Records.credential(r).matches("admin-secreT"));

    String salt = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes());
    ScramCredentialRecord s =
        BootstrapCredentials.parse(
            "SCRAM-SHA-512=[name=\"al,ice\",password=\"p,w]x\",iterations=8192,salt=\""
                + salt
                + "\"]",
            random);
    assertEquals("al,ice", s.getUser());
    assertEquals(8192, s.getIterations());
    assertEquals(salt, Base64.getEncoder().encodeToString(s.getSalt().toByteArray()));
    assertTrue(Records.credential(s).matches("p,w]x"));

    // saltedpassword instead of the password: the same credential
    byte[] salted =
        ScramMechanism.SCRAM_SHA_512.saltedPassword("p,w]x", s.getSalt().toByteArray(), 8192);
    ScramCredentialRecord t =
        BootstrapCredentials.parse(
            "SCRAM-SHA-512=[name=x,saltedpassword="
                + Base64.getEncoder().encodeToString(salted)
                + ",salt="
                + salt
                + ",iterations=8192]",
            random);
    assertArrayEquals(s.getStoredKey().toByteArray(), t.getStoredKey().toByteArray());
  }

  @Test
  void shouldRefuseMalformedValuesSayingWhatIsWrong() {
    String[][] bad = {
      {"SCRAM-SHA-1=[name=a,password=b]", "SCRAM-SHA-1"},
      {"SCRAM-SHA-256[name=a,password=b]", "MECHANISM=["},
      {"SCRAM-SHA-256=[name=a,password=b", "MECHANISM=["},
      {"SCRAM-SHA-256=[password=b]", "no name"},
      {"SCRAM-SHA-256=[name=a]", "exactly one of password"},
      {"SCRAM-SHA-256=[name=a,password=b,saltedpassword=c]", "exactly one of password"},
      {"SCRAM-SHA-256=[name=a,password=b,iterations=100]", "iterations 100"},
      {"SCRAM-SHA-256=[name=a,password=b,iterations=lots]", "not a number"},
      {"SCRAM-SHA-256=[name=a,password=b,salt=%%%]", "salt is not base64"},
      {"SCRAM-SHA-256=[name=a,password=b,colour=red]", "unknown key 'colour'"},
      {"SCRAM-SHA-256=[name=a,password=b,name=c]", "given twice"},
      {"SCRAM-SHA-256=[name=,password=b]", "user name is empty"},
      {"SCRAM-SHA-256=[name=a,password=]", "password is empty"},
      {"SCRAM-SHA-256=[name=a,password=\"b]", "closing quote"},
      {"SCRAM-SHA-256=[name=a,saltedpassword=AAAA]", "needs the salt"},
    };
    for (String[] c : bad) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> BootstrapCredentials.parse(c[0], random), c[0]);
      assertTrue(e.getMessage().startsWith("--add-scram: "), e.getMessage());
      assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
      assertFalse(e.getMessage().contains("password=b"), e.getMessage());
    }
  }

  @Test
  void shouldRecordCredentialsWithoutThePasswordAndTheControllerWritesThemOnce() throws Exception {
    List<ScramCredentialRecord> users =
        List.of(
            BootstrapCredentials.parse("SCRAM-SHA-512=[name=admin,password=top-secret]", random),
            BootstrapCredentials.parse("SCRAM-SHA-256=[name=admin,password=top-secret]", random));
    Files.writeString(
        dir.resolve(BootstrapMetadata.FILE_NAME),
        BootstrapMetadata.render(MetadataVersion.UNSET, users));
    String text = Files.readString(dir.resolve(BootstrapMetadata.FILE_NAME));
    assertFalse(text.contains("top-secret"), text);
    assertEquals(users, BootstrapMetadata.readCredentials(dir));
    assertEquals(MetadataVersion.UNSET, BootstrapMetadata.read(dir));

    Files.writeString(dir.resolve(BootstrapMetadata.FILE_NAME), BootstrapMetadata.render(2, users));
    assertEquals(2, BootstrapMetadata.read(dir));
    assertEquals(users, BootstrapMetadata.readCredentials(dir));

    ControllerSettings s = QuorumConfig.defaultControllerSettings().withBootstrapCredentials(users);
    ClusterDuties.Outcome first =
        ClusterDuties.decide(
            MetadataImage.EMPTY, new BrokerHeartbeatTracker(s.sessionTimeoutMs()), 0, false, s);
    List<ScramCredentialRecord> written =
        first.records().stream()
            .filter(MetadataRecord::hasScramCredential)
            .map(MetadataRecord::getScramCredential)
            .toList();
    assertEquals(users, written);
    assertTrue(first.records().get(0).hasFeatureLevel(), "metadata.version comes first");
  }
}
