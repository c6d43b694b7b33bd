package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.spool.cli.CliRunner;
import dev.spool.cli.CliRunner.Result;
import dev.spool.quorum.BootstrapMetadata;
import dev.spool.quorum.image.MetadataVersion;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code spool storage format|random-uuid} as a shell runs them: exit code, stdout, stderr. */
@Tag("unit")
class StorageCommandTest {
  private static final String CLUSTER = "J8xW2uQ3RZ6b0h3m6pO9Dg";

  @TempDir Path dir;

  private Result run(String... args) {
    return new CliRunner(SpoolMain::commandLine, Map.of(), dir).run("", args);
  }

  @BeforeEach
  void writeConfig() throws Exception {
    Files.writeString(
        dir.resolve("node.properties"),
        "node.id=1\nlistener=127.0.0.1:0\ndata.dir="
            + dir.resolve("data")
            + "\n"
            + "controller.quorum.voters=1@127.0.0.1:0\n");
  }

  @Test
  void shouldPrintARandomUuidAsKafkaDoes() {
    Result a = run("storage", "random-uuid");
    Result b = run("storage", "random-uuid");
    assertEquals(0, a.exitCode(), a.toString());
    String id = a.out().strip();
    assertTrue(id.matches("[A-Za-z0-9_][A-Za-z0-9_-]{21}"), id);
    assertEquals(Base64Uuid.parse(id).toString(), id);
    assertFalse(id.equals(b.out().strip()));
  }

  @Test
  void shouldFormatEveryDirectoryAndSayWhich() {
    Result r = run("storage", "format", "--config", "node.properties", "--cluster-id", CLUSTER);
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.out().contains("Formatted log directory (data.dir)"), r.toString());
    assertTrue(r.out().contains("Formatted quorum directory (metadata.log.dir)"), r.toString());
    assertEquals(CLUSTER, MetaProperties.read(dir.resolve("data")).orElseThrow().clusterId());
    assertTrue(MetaProperties.read(dir.resolve("data/__cluster_metadata")).isPresent());
  }

  @Test
  void shouldPrintJsonWithKafkasShortOptions() throws Exception {
    Result r = run("storage", "format", "-c", "node.properties", "-t", CLUSTER, "--json");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(1, r.out().strip().lines().count(), r.toString());
    List<String> results = new ArrayList<>();
    String clusterId = null;
    try (JsonParser p = new JsonFactory().createParser(r.out())) {
      while (p.nextToken() != null) {
        if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("result")) {
          results.add(p.nextTextValue());
        } else if (p.currentToken() == JsonToken.FIELD_NAME
            && p.currentName().equals("clusterId")) {
          clusterId = p.nextTextValue();
        }
      }
    }
    assertEquals(CLUSTER, clusterId);
    assertEquals(List.of("formatted", "formatted"), results);
    Result again = run("storage", "format", "-c", "node.properties", "-t", CLUSTER, "-g", "--json");
    assertEquals(0, again.exitCode(), again.toString());
    assertTrue(again.out().contains("\"result\":\"already-formatted\""), again.toString());
  }

  @Test
  void shouldFailOnAFormattedDirectoryUnlessIgnoreFormatted() {
    run("storage", "format", "--config", "node.properties", "--cluster-id", CLUSTER);
    Result r = run("storage", "format", "--config", "node.properties", "--cluster-id", CLUSTER);
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(
        r.err().contains("already formatted") && r.err().contains("--ignore-formatted"),
        r.toString());
    Result ignored =
        run(
            "storage",
            "format",
            "--config",
            "node.properties",
            "--cluster-id",
            CLUSTER,
            "--ignore-formatted");
    assertEquals(0, ignored.exitCode(), ignored.toString());
    assertTrue(ignored.out().contains("already formatted"), ignored.toString());
  }

  @Test
  void shouldRefuseAnotherClusterIdOnAFormattedDirectoryAndChangeNothing() throws Exception {
    run("storage", "format", "--config", "node.properties", "--cluster-id", CLUSTER);
    String before = Files.readString(dir.resolve("data/meta.properties"));
    Result r =
        run("storage", "format", "--config", "node.properties", "--cluster-id", "other", "-g");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains("already formatted for cluster " + CLUSTER), r.toString());
    assertEquals(before, Files.readString(dir.resolve("data/meta.properties")));
  }

  @Test
  void shouldRefuseAMalformedClusterIdWithAUsageError() {
    Result r = run("storage", "format", "--config", "node.properties", "--cluster-id", "not/ok");
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("malformed"), r.toString());
    assertFalse(Files.exists(dir.resolve("data")), "nothing written");
  }

  @Test
  void shouldRefuseAMissingConfig() {
    Result missing =
        run("storage", "format", "--config", "absent.properties", "--cluster-id", CLUSTER);
    assertEquals(2, missing.exitCode(), missing.toString());
    assertTrue(missing.err().contains("absent.properties"), missing.toString());
    Result noOption = run("storage", "format", "--cluster-id", CLUSTER);
    assertEquals(2, noOption.exitCode(), noOption.toString());
    assertTrue(noOption.err().contains("--config"), noOption.toString());
    Result noId = run("storage", "format", "--config", "node.properties");
    assertEquals(2, noId.exitCode(), noId.toString());
    assertTrue(noId.err().contains("--cluster-id"), noId.toString());
  }

  @Test
  void shouldRefuseToStartANodeOnAnUnformattedDirectoryWithExitCodeThree() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    int code;
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      code =
          SpoolMain.commandLine()
              .execute("node", "start", "--config", dir.resolve("node.properties").toString());
    } finally {
      System.setErr(old);
    }
    String msg = err.toString(StandardCharsets.UTF_8);
    assertEquals(3, code, msg);
    assertTrue(msg.contains("not formatted") && msg.contains("spool storage format"), msg);
  }

  /** {@code storage format --config node.properties --cluster-id CLUSTER} and {@code extra}. */
  private Result format(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of("storage", "format", "--config", "node.properties", "--cluster-id", CLUSTER));
    args.addAll(List.of(extra));
    return run(args.toArray(new String[0]));
  }

  @Test
  void shouldRecordTheReleaseVersionInTheQuorumDirectoryOnly() throws Exception {
    Result r = format("--release-version", "1");
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.out().contains("the cluster bootstraps at metadata.version 1"), r.toString());
    Path quorum = dir.resolve("data/__cluster_metadata");
    assertEquals(1, BootstrapMetadata.read(quorum));
    assertFalse(Files.exists(dir.resolve("data").resolve(BootstrapMetadata.FILE_NAME)));
    assertTrue(MetaProperties.read(quorum).isPresent());
  }

  @Test
  void shouldRecordAddScramUsersWithoutTheirPasswordsAndRefuseBadSyntax() throws Exception {
    Result bad = format("--add-scram", "SCRAM-SHA-256=[name=admin,pasword=admin-secret]");
    assertEquals(2, bad.exitCode(), bad.toString());
    assertTrue(bad.err().contains("--add-scram: unknown key 'pasword'"), bad.toString());
    Path quorum = dir.resolve("data/__cluster_metadata");
    assertFalse(Files.exists(quorum.resolve(MetaProperties.FILE_NAME)), "nothing written");

    Result r =
        format(
            "--add-scram",
            "SCRAM-SHA-512=[name=admin,password=admin-secret,iterations=8192]",
            "-S",
            "SCRAM-SHA-256=[name=admin,password=admin-secret]");
    assertEquals(0, r.exitCode(), r.toString());
    String file = Files.readString(quorum.resolve(BootstrapMetadata.FILE_NAME));
    assertFalse(file.contains("admin-secret"), file);
    List<dev.spool.quorum.message.ScramCredentialRecord> users =
        BootstrapMetadata.readCredentials(quorum);
    assertEquals(2, users.size());
    assertEquals(8192, users.get(0).getIterations());
    assertTrue(dev.spool.quorum.image.Records.credential(users.get(1)).matches("admin-secret"));
    assertEquals(MetadataVersion.UNSET, BootstrapMetadata.read(quorum));
    assertFalse(Files.exists(dir.resolve("data").resolve(BootstrapMetadata.FILE_NAME)));
  }

  @Test
  void shouldPutTheReleaseVersionInTheJson() {
    Result r =
        run("storage", "format", "-c", "node.properties", "-t", CLUSTER, "-r", "1", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.out().contains("\"bootstrapMetadataVersion\":1"), r.toString());
  }

  @Test
  void shouldWriteNoBootstrapFileWithoutTheReleaseVersion() {
    Result r = format();
    assertEquals(0, r.exitCode(), r.toString());
    assertFalse(r.out().contains("bootstraps"), r.toString());
    Path quorum = dir.resolve("data/__cluster_metadata");
    assertFalse(Files.exists(quorum.resolve(BootstrapMetadata.FILE_NAME)));
    assertEquals(MetadataVersion.UNSET, BootstrapMetadata.read(quorum));
  }

  @Test
  void shouldRefuseAReleaseVersionThisBuildDoesNotSupportAndWriteNothing() {
    for (String level :
        List.of(String.valueOf(MetadataVersion.LATEST + 1), "0", "-1", "2147483647")) {
      Result r = format("--release-version", level);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(
          r.err().contains("--release-version " + level + ": metadata.version " + level)
              && r.err()
                  .contains(
                      "not supported by this build, which supports 1.." + MetadataVersion.LATEST),
          r.toString());
      assertFalse(Files.exists(dir.resolve("data")), "nothing written for " + level);
    }
    for (String bad : List.of("two", "1.5", "")) {
      Result r = format("--release-version", bad);
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains("--release-version"), r.toString());
      assertFalse(Files.exists(dir.resolve("data")), "nothing written for '" + bad + "'");
    }
  }
}
