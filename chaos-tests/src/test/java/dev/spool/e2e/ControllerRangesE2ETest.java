package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.node.SpoolMain;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A controller-only voter's supported metadata.version range blocks an upgrade it could not read
 * (docs/operations.md#upgrades): three combined nodes of this build and a controller-only voter,
 * node 4, that acts like an older release supporting only 1..3 (a test-only config key), the
 * cluster formatted at level 3. Node 4 never registers as a broker; it reports its range to the
 * active controller, {@code spool quorum describe} and {@code spool features describe} show it, and
 * {@code spool features upgrade --metadata-version 4} is refused naming node 4 and changes nothing.
 */
@Tag("integration")
@Timeout(120)
class ControllerRangesE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int LATEST = MetadataVersion.LATEST;

  @TempDir Path dir;

  @Test
  void anUpgradeAboveAControllerOnlyVotersRangeIsRefusedNamingIt() throws Exception {
    try (InProcessCluster c =
        InProcessCluster.builder()
            .nodes(4)
            .roles(4, "controller")
            .nodeConfig(4, QuorumConfig.METADATA_VERSIONS_FOR_TESTING.name(), "1..3")
            .releaseVersion(3)
            .dir(dir)
            .start()) {
      if (c.quorumServer(4).isActiveController()) {
        // As the active controller node 4 refuses with its own range; this test is about a voter
        // that is not active (the one the broker registrations never showed).
        c.quorumServer(4).transferLeadership(10_000);
        Awaitility.await().atMost(E2e.READY).until(() -> !c.quorumServer(4).isActiveController());
      }
      Map<Integer, String> expected = new TreeMap<>();
      for (int id = 1; id <= 3; id++) {
        expected.put(id, "1.." + LATEST);
      }
      expected.put(4, "1..3");
      AtomicReference<JsonNode> quorum = new AtomicReference<>();
      Awaitility.await()
          .atMost(E2e.READY)
          .until(
              () -> {
                quorum.set(quorumDescribe(c));
                return quorumRanges(quorum.get()).equals(expected);
              });
      CliRunner.Result text =
          new CliRunner(SpoolMain::commandLine, Map.of(), c.dir())
              .run("", "quorum", "describe", "--bootstrap-controller", c.quorumVoters());
      assertTrue(text.out().contains("METADATA_VERSION"), text.toString());
      assertTrue(text.out().contains("1..3"), text.toString());

      JsonNode features = featuresDescribe(c);
      assertEquals(
          3, features.path("finalized").path("metadata.version").asInt(), features.toString());
      assertEquals(3, features.path("nodes").size(), "node 4 registers no broker: " + features);
      JsonNode four = null;
      for (JsonNode ctl : features.path("controllers")) {
        if (ctl.path("id").asInt() == 4) {
          four = ctl;
        }
      }
      assertTrue(four != null && four.path("voter").asBoolean(), features.toString());
      assertEquals(3, four.path("supported").path("metadata.version").path("max").asInt());

      for (boolean dryRun : new boolean[] {true, false}) {
        CliRunner.Result up =
            dryRun
                ? E2e.cli(c, "features", "upgrade", "--metadata-version", "" + LATEST, "--dry-run")
                : E2e.cli(c, "features", "upgrade", "--metadata-version", "" + LATEST);
        assertEquals(1, up.exitCode(), up.toString());
        assertTrue(up.err().contains("FEATURE_UPDATE_FAILED"), up.toString());
        assertTrue(up.err().contains("voter 4 (1..3)"), up.toString());
      }
      assertEquals(3, featuresDescribe(c).path("finalized").path("metadata.version").asInt());
    }
  }

  private static JsonNode quorumDescribe(InProcessCluster c) throws Exception {
    CliRunner.Result r =
        new CliRunner(SpoolMain::commandLine, Map.of(), c.dir())
            .run("", "quorum", "describe", "--json", "--bootstrap-controller", c.quorumVoters());
    assertEquals(0, r.exitCode(), r.toString());
    return JSON.readTree(r.out());
  }

  /** Each voter's reported range as MIN..MAX, by node id; voters without one are left out. */
  private static Map<Integer, String> quorumRanges(JsonNode d) {
    Map<Integer, String> out = new TreeMap<>();
    for (JsonNode v : d.path("voters")) {
      JsonNode r = v.path("metadataVersion");
      if (r.isObject()) {
        out.put(v.path("nodeId").asInt(), r.path("min").asInt() + ".." + r.path("max").asInt());
      }
    }
    return out;
  }

  private static JsonNode featuresDescribe(InProcessCluster c) throws Exception {
    CliRunner.Result r = E2e.cli(c, "features", "describe", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    return JSON.readTree(r.out());
  }
}
