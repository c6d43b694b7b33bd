package dev.spool.quorum;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.protocol.message.UpdateFeaturesRequest;
import dev.spool.protocol.message.UpdateFeaturesResponse;
import dev.spool.quorum.image.MetadataVersion;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every controller reports its supported metadata.version range to the active controller
 * (docs/architecture.md#versioned-metadata), through real Ratis: three controller-only voters (no
 * broker registers), voter 3 acting like an older release that supports only 1..3, the cluster
 * formatted at level 3. DescribeQuorum shows each voter's range, and raising the level to 4 is
 * refused naming voter 3, also after the active controller changed.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControllerRangesClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int LATEST = MetadataVersion.LATEST;

  private static Map<Integer, String> ranges(QuorumClient client) throws Exception {
    QuorumInfo q = client.describeQuorum().get(10, TimeUnit.SECONDS);
    Map<Integer, String> out = new TreeMap<>();
    for (QuorumInfo.ControllerRange r : q.getControllerRangesList()) {
      out.put(r.getNodeId(), r.getMinMetadataVersion() + ".." + r.getMaxMetadataVersion());
    }
    return out;
  }

  private static UpdateFeaturesResponse.Result upgrade(
      QuorumClient client, int level, boolean dryRun) throws Exception {
    UpdateFeaturesResponse resp =
        client
            .updateFeatures(
                UpdateFeaturesRequest.newBuilder()
                    .addUpdates(
                        UpdateFeaturesRequest.FeatureUpdate.newBuilder()
                            .setFeature(MetadataVersion.FEATURE)
                            .setMaxVersionLevel(level))
                    .setValidateOnly(dryRun)
                    .build())
            .get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NONE, resp.getErrorCode(), resp.getErrorMessage());
    return resp.getResults(0);
  }

  @Test
  void aControllerOnlyVoterWithANarrowerRangeBlocksTheUpgradeNamingIt() throws Exception {
    try (QuorumTestCluster c =
        QuorumTestCluster.builder()
            .voters(3)
            .releaseVersion(3)
            .nodeConfig(3, QuorumConfig.METADATA_VERSIONS_FOR_TESTING.name(), "1..3")
            .start()) {
      QuorumClient client = c.newClient();
      QuorumServer active = c.awaitActiveController();
      if (active.nodeId() == 3) {
        // The narrow voter as the active controller refuses with its own range; this test is
        // about a voter that is not active.
        active.transferLeadership(10_000);
        await().atMost(WAIT).until(() -> !c.server(3).isActiveController());
        active = c.awaitActiveController();
      }
      QuorumServer first = active;
      await().atMost(WAIT).until(() -> first.image().metadataVersion() == 3);
      Map<Integer, String> expected = Map.of(1, "1.." + LATEST, 2, "1.." + LATEST, 3, "1..3");
      await().atMost(WAIT).until(() -> ranges(client).equals(expected));

      for (boolean dryRun : new boolean[] {true, false}) {
        UpdateFeaturesResponse.Result r = upgrade(client, LATEST, dryRun);
        assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, r.getErrorCode(), r.toString());
        assertEquals(
            "metadata.version level " + LATEST + " is not supported by voter 3 (1..3)",
            r.getErrorMessage());
      }
      assertEquals(3, first.image().metadataVersion(), "nothing written");
      assertEquals(ErrorCode.NONE, upgrade(client, 3, false).getErrorCode(), "a no-op is fine");

      // A new active controller starts knowing only its own range and learns the others' from
      // their next reports.
      first.transferLeadership(10_000);
      await()
          .atMost(WAIT)
          .until(() -> !first.isActiveController() && c.awaitActiveController() != first);
      await().atMost(WAIT).until(() -> ranges(client).equals(expected));
      UpdateFeaturesResponse.Result again = upgrade(client, LATEST, false);
      assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, again.getErrorCode(), again.toString());
      // Voter 3 named, or, should it be the active controller now, its own range.
      assertTrue(again.getErrorMessage().contains("1..3"), again.getErrorMessage());
    }
  }
}
