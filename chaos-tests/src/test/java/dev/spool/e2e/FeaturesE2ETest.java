package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code spool features} against three in-process nodes of this build
 * (docs/architecture.md#versioned-metadata): the first active controller finalized metadata.version
 * at this build's latest level, every node registered this build's range (1..latest), a no-op
 * upgrade and a dry run succeed, and an upgrade above what the nodes support or a downgrade is
 * refused and changes nothing.
 */
@Tag("integration")
@Timeout(120)
@SpoolClusterTest(nodes = 3)
class FeaturesE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int LATEST = MetadataVersion.LATEST;
  private static InProcessCluster cluster;

  @BeforeAll
  static void startCluster(InProcessCluster c) {
    cluster = c;
  }

  private static CliRunner.Result cli(String... args) {
    return E2e.cli(cluster, args);
  }

  private static JsonNode describe() throws Exception {
    CliRunner.Result r = cli("features", "describe", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    return JSON.readTree(r.out());
  }

  @Test
  void describeShowsTheFinalizedLevelAndEveryNodesRange() throws Exception {
    AtomicReference<JsonNode> seen = new AtomicReference<>();
    Awaitility.await()
        .atMost(E2e.READY)
        .until(
            () -> {
              JsonNode d = describe();
              seen.set(d);
              return d.path("finalized").has("metadata.version") && d.path("nodes").size() == 3;
            });
    JsonNode d = seen.get();
    assertEquals(LATEST, d.path("finalized").path("metadata.version").asInt(), d.toString());
    for (int i = 0; i < 3; i++) {
      JsonNode n = d.path("nodes").get(i);
      assertEquals(i + 1, n.path("id").asInt(), d.toString());
      assertEquals(1, n.path("supported").path("metadata.version").path("min").asInt());
      assertEquals(LATEST, n.path("supported").path("metadata.version").path("max").asInt());
    }
    CliRunner.Result text = cli("features", "describe");
    assertTrue(
        text.out().contains("Feature: metadata.version  Finalized: " + LATEST), text.toString());
    assertTrue(
        text.out().contains("node 3  supports metadata.version 1.." + LATEST), text.toString());

    CliRunner.Result dry =
        cli("features", "upgrade", "--metadata-version", "" + LATEST, "--dry-run", "--json");
    assertEquals(0, dry.exitCode(), dry.toString());
    JsonNode dj = JSON.readTree(dry.out());
    assertEquals(LATEST, dj.path("previous").asInt(), dry.toString());
    assertTrue(dj.path("dryRun").asBoolean(), dry.toString());

    CliRunner.Result same = cli("features", "upgrade", "--metadata-version", "" + LATEST);
    assertEquals(0, same.exitCode(), same.toString());

    CliRunner.Result above = cli("features", "upgrade", "--metadata-version", "" + (LATEST + 1));
    assertEquals(1, above.exitCode(), above.toString());
    assertTrue(above.err().contains("FEATURE_UPDATE_FAILED"), above.toString());
    assertTrue(above.err().contains("level " + (LATEST + 1)), above.toString());

    CliRunner.Result down = cli("features", "upgrade", "--metadata-version", "1");
    assertEquals(1, down.exitCode(), down.toString());
    assertTrue(down.err().contains("downgrading to 1 is not supported"), down.toString());
    assertEquals(LATEST, describe().path("finalized").path("metadata.version").asInt());
  }
}
