package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.UpdateFeaturesRequest;
import dev.spool.protocol.message.UpdateFeaturesResponse;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * metadata.version decisions (docs/architecture.md#versioned-metadata): bootstrap, raise, the
 * refusals, and registration against the finalized level. Builds of other ranges are simulated with
 * {@link ControllerSettings#withMetadataVersions} and registrations that name their range.
 */
@Tag("unit")
class FeatureDecisionsTest {
  private static final ControllerSettings V1_TO_3 =
      Decisions.SETTINGS.withMetadataVersions(new MetadataVersion.Range(1, 3));

  private final ImageFixture fx = new ImageFixture();

  private void register(int id, int min, int max) {
    ControllerReply r =
        Decisions.commit(fx, BrokerDecisions.register(reg(id, min, max), fx.image(), V1_TO_3));
    assertEquals(ErrorCode.NONE, r.getRegister().getErrorCode(), r.getRegister().getErrorMessage());
  }

  private static BrokerRegistrationRequest reg(int id, int min, int max) {
    return BrokerRegistrationRequest.newBuilder()
        .setBrokerId(id)
        .setIncarnationId("inc-" + id + "-" + max)
        .setHost("h" + id)
        .setPort(9000 + id)
        .setMinMetadataVersion(min)
        .setMaxMetadataVersion(max)
        .build();
  }

  private static UpdateFeaturesRequest upgrade(String feature, int level, boolean validateOnly) {
    return UpdateFeaturesRequest.newBuilder()
        .addUpdates(
            UpdateFeaturesRequest.FeatureUpdate.newBuilder()
                .setFeature(feature)
                .setMaxVersionLevel(level))
        .setValidateOnly(validateOnly)
        .build();
  }

  private UpdateFeaturesResponse.Result update(String feature, int level) {
    Decision d = FeatureDecisions.update(upgrade(feature, level, false), fx.image(), V1_TO_3);
    UpdateFeaturesResponse resp = Decisions.commit(fx, d).getUpdateFeatures();
    assertEquals(ErrorCode.NONE, resp.getErrorCode(), resp.getErrorMessage());
    return resp.getResults(0);
  }

  private void finalize(int level) {
    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, level));
  }

  @Test
  void aFreshClusterBootstrapsAtTheControllersHighestLevel() {
    MetadataRecord r = FeatureDecisions.bootstrap(MetadataImage.EMPTY, V1_TO_3);
    assertEquals(Records.featureLevel(MetadataVersion.FEATURE, 3), r);
    fx.apply(r);
    assertEquals(3, fx.image().metadataVersion());
    assertNull(FeatureDecisions.bootstrap(fx.image(), V1_TO_3), "only once");
    assertEquals(
        MetadataVersion.LATEST,
        FeatureDecisions.bootstrap(MetadataImage.EMPTY, Decisions.SETTINGS)
            .getFeatureLevel()
            .getFeatureLevel(),
        "this build's controller bootstraps at its latest level");
    assertEquals(new MetadataVersion.Range(1, 6), MetadataVersion.SUPPORTED, "this build: 1..6");
  }

  @Test
  void theClusterDutiesBootstrapTheLevelOnce() {
    BrokerHeartbeatTracker tracker = new BrokerHeartbeatTracker(1000);
    ClusterDuties.Outcome o = ClusterDuties.decide(fx.image(), tracker, 0, false, V1_TO_3);
    assertEquals(1, o.records().size(), o.reason());
    fx.apply(o.records());
    assertEquals(3, fx.image().metadataVersion());
    assertTrue(ClusterDuties.decide(fx.image(), tracker, 0, false, V1_TO_3).isEmpty());
  }

  /**
   * {@code spool storage format --release-version 2} on a build that supports 1..3: the first tick
   * finalizes 2, a broker that supports only up to 2 may register before it, and the level can be
   * raised to 3 later.
   */
  @Test
  void aFreshClusterBootstrapsAtTheFormattedLevelInsteadOfTheHighest() {
    ControllerSettings formatted = V1_TO_3.withBootstrapMetadataVersion(2);
    Decision early = BrokerDecisions.register(reg(1, 1, 2), fx.image(), formatted);
    assertEquals(
        ErrorCode.NONE,
        early.reply().getRegister().getErrorCode(),
        early.reply().getRegister().getErrorMessage());
    BrokerHeartbeatTracker tracker = new BrokerHeartbeatTracker(1000);
    ClusterDuties.Outcome o = ClusterDuties.decide(fx.image(), tracker, 0, false, formatted);
    assertEquals(List.of(Records.featureLevel(MetadataVersion.FEATURE, 2)), o.records());
    assertEquals("finalize metadata.version 2 (new)", o.reason());
    fx.apply(o.records());
    assertEquals(2, fx.image().metadataVersion());
    assertNull(FeatureDecisions.bootstrap(fx.image(), formatted), "only once");
    Decision refused = BrokerDecisions.register(reg(2, 1, 1), fx.image(), formatted);
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, refused.reply().getRegister().getErrorCode());
    assertEquals(2, update(MetadataVersion.FEATURE, 3).getPreviousLevel(), "raised later");
    assertEquals(3, fx.image().metadataVersion());
  }

  @Test
  void raisingWithinEveryNodesRangeIsWritten() {
    finalize(1);
    register(1, 1, 3);
    register(2, 1, 2);
    UpdateFeaturesResponse.Result r = update(MetadataVersion.FEATURE, 2);
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    assertEquals(1, r.getPreviousLevel());
    assertEquals(2, fx.image().metadataVersion());
  }

  @Test
  void validateOnlyDecidesAndWritesNothing() {
    finalize(1);
    register(1, 1, 3);
    Decision d =
        FeatureDecisions.update(upgrade(MetadataVersion.FEATURE, 3, true), fx.image(), V1_TO_3);
    assertEquals(0, d.batch().getRecordsCount());
    assertEquals(ErrorCode.NONE, d.reply().getUpdateFeatures().getResults(0).getErrorCode());
  }

  @Test
  void raisingAboveANodesMaximumIsRefusedAndChangesNothing() {
    finalize(1);
    register(1, 1, 3);
    register(2, 1, 2);
    MetadataImage before = fx.image();
    Decision d =
        FeatureDecisions.update(upgrade(MetadataVersion.FEATURE, 3, false), before, V1_TO_3);
    assertEquals(0, d.batch().getRecordsCount());
    UpdateFeaturesResponse.Result r = d.reply().getUpdateFeatures().getResults(0);
    assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, r.getErrorCode());
    assertEquals("metadata.version level 3 is not supported by node 2 (1..2)", r.getErrorMessage());
  }

  @Test
  void raisingAboveTheControllersMaximumIsRefused() {
    finalize(1);
    register(1, 1, 5);
    Decision d =
        FeatureDecisions.update(upgrade(MetadataVersion.FEATURE, 4, false), fx.image(), V1_TO_3);
    assertEquals(0, d.batch().getRecordsCount());
    UpdateFeaturesResponse.Result r = d.reply().getUpdateFeatures().getResults(0);
    assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, r.getErrorCode());
    assertTrue(
        r.getErrorMessage().contains("active controller's supported range 1..3"), r.toString());
  }

  @Test
  void aDowngradeIsRefused() {
    finalize(2);
    register(1, 1, 3);
    Decision d =
        FeatureDecisions.update(upgrade(MetadataVersion.FEATURE, 1, false), fx.image(), V1_TO_3);
    assertEquals(0, d.batch().getRecordsCount());
    UpdateFeaturesResponse.Result r = d.reply().getUpdateFeatures().getResults(0);
    assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, r.getErrorCode());
    assertEquals(
        "metadata.version is at level 2; downgrading to 1 is not supported", r.getErrorMessage());
    assertEquals(2, r.getPreviousLevel());
  }

  @Test
  void anUnknownFeatureALevelBelowOneAndADuplicateAreRefused() {
    finalize(1);
    Decision unknown =
        FeatureDecisions.update(upgrade("kraft.version", 1, false), fx.image(), V1_TO_3);
    assertEquals(0, unknown.batch().getRecordsCount());
    assertEquals(
        ErrorCode.INVALID_REQUEST,
        unknown.reply().getUpdateFeatures().getResults(0).getErrorCode());
    assertEquals(
        "unknown feature 'kraft.version' (known: metadata.version)",
        unknown.reply().getUpdateFeatures().getResults(0).getErrorMessage());
    Decision zero =
        FeatureDecisions.update(upgrade(MetadataVersion.FEATURE, 0, false), fx.image(), V1_TO_3);
    assertEquals(
        ErrorCode.INVALID_REQUEST, zero.reply().getUpdateFeatures().getResults(0).getErrorCode());
    UpdateFeaturesRequest twice =
        upgrade(MetadataVersion.FEATURE, 2, false).toBuilder()
            .addUpdates(
                UpdateFeaturesRequest.FeatureUpdate.newBuilder()
                    .setFeature(MetadataVersion.FEATURE)
                    .setMaxVersionLevel(3))
            .build();
    Decision dup = FeatureDecisions.update(twice, fx.image(), V1_TO_3);
    assertEquals(0, dup.batch().getRecordsCount());
    assertEquals(ErrorCode.INVALID_REQUEST, dup.reply().getUpdateFeatures().getErrorCode());
  }

  @Test
  void aBrokerThatDoesNotSupportTheFinalizedLevelIsRefusedAtRegistration() {
    finalize(3);
    MetadataImage before = fx.image();
    Decision d = BrokerDecisions.register(reg(7, 1, 2), before, V1_TO_3);
    assertEquals(0, d.batch().getRecordsCount(), "nothing written");
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, d.reply().getRegister().getErrorCode());
    assertEquals(
        "broker 7 supports metadata.version 1..2, but the cluster's is 3: run a release that"
            + " supports level 3",
        d.reply().getRegister().getErrorMessage());
    // Before any level is finalized, the level the bootstrap will write decides.
    Decision early = BrokerDecisions.register(reg(7, 1, 2), MetadataImage.EMPTY, V1_TO_3);
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, early.reply().getRegister().getErrorCode());
    // An older broker (no range: 1..1) against level 1 is fine, and its range is recorded.
    ImageFixture v1 = new ImageFixture();
    v1.apply(Records.featureLevel(MetadataVersion.FEATURE, 1));
    ControllerReply ok =
        Decisions.commit(
            v1, BrokerDecisions.register(reg(8, 0, 0), v1.image(), Decisions.SETTINGS));
    assertEquals(ErrorCode.NONE, ok.getRegister().getErrorCode());
    assertEquals(new MetadataVersion.Range(1, 1), v1.image().broker(8).metadataVersions());
  }

  /**
   * A log from before the feature: its brokers support only level 1. A newer controller lowers the
   * bootstrap to 1, and a broker registering before that bootstrap commits is checked against 1
   * too, not against the controller's own maximum.
   */
  @Test
  void beforeTheBootstrapARegistrationIsCheckedAgainstTheLevelTheBootstrapWillWrite() {
    ControllerSettings v1Only =
        Decisions.SETTINGS.withMetadataVersions(new MetadataVersion.Range(1, 1));
    Decisions.commit(fx, BrokerDecisions.register(reg(1, 1, 1), fx.image(), v1Only));
    assertEquals(MetadataVersion.UNSET, fx.image().metadataVersion());
    assertEquals(
        Records.featureLevel(MetadataVersion.FEATURE, 1),
        FeatureDecisions.bootstrap(fx.image(), V1_TO_3));
    Decision d = BrokerDecisions.register(reg(2, 1, 1), fx.image(), V1_TO_3);
    assertEquals(
        ErrorCode.NONE,
        d.reply().getRegister().getErrorCode(),
        d.reply().getRegister().getErrorMessage());
  }

  @Test
  void aBadRangeIsRefusedAtRegistration() {
    Decision d = BrokerDecisions.register(reg(7, 3, 2), fx.image(), V1_TO_3);
    assertEquals(0, d.batch().getRecordsCount());
    assertEquals(ErrorCode.INVALID_REQUEST, d.reply().getRegister().getErrorCode());
  }

  @Test
  void theSameIncarnationWithANewRangeRegistersAgain() {
    finalize(1);
    register(1, 1, 2);
    register(1, 1, 3);
    assertEquals(new MetadataVersion.Range(1, 3), fx.image().broker(1).metadataVersions());
  }

  /** Voters 1..3 of the quorum; 1 is the active controller, 3 a controller-only voter. */
  private static VoterRanges voters(Map<Integer, MetadataVersion.Range> reported) {
    return new VoterRanges(Set.of(1, 2, 3), reported::get);
  }

  private UpdateFeaturesResponse.Result decideWith(int level, boolean dryRun, VoterRanges v) {
    MetadataImage before = fx.image();
    Decision d =
        FeatureDecisions.update(
            upgrade(MetadataVersion.FEATURE, level, dryRun), before, V1_TO_3, v);
    UpdateFeaturesResponse.Result r = d.reply().getUpdateFeatures().getResults(0);
    if (r.getErrorCode() != ErrorCode.NONE) {
      assertEquals(0, d.batch().getRecordsCount(), "nothing written");
    }
    return r;
  }

  @Test
  void raisingAboveAControllerOnlyVotersRangeIsRefusedNamingIt() {
    finalize(1);
    register(1, 1, 3);
    register(2, 1, 3);
    VoterRanges v =
        voters(
            Map.of(
                1, new MetadataVersion.Range(1, 3),
                2, new MetadataVersion.Range(1, 3),
                3, new MetadataVersion.Range(1, 2)));
    for (boolean dryRun : new boolean[] {false, true}) {
      UpdateFeaturesResponse.Result r = decideWith(3, dryRun, v);
      assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, r.getErrorCode(), r.toString());
      assertEquals(
          "metadata.version level 3 is not supported by voter 3 (1..2)", r.getErrorMessage());
    }
    assertEquals(ErrorCode.NONE, decideWith(2, false, v).getErrorCode(), "within every range");
    assertEquals(1, fx.image().metadataVersion(), "nothing written");
  }

  @Test
  void raisingWhileAVoterHasNotReportedIsRefusedUntilItHas() {
    finalize(1);
    register(1, 1, 3);
    VoterRanges oneKnown = voters(Map.of(1, new MetadataVersion.Range(1, 3)));
    for (boolean dryRun : new boolean[] {false, true}) {
      UpdateFeaturesResponse.Result r = decideWith(2, dryRun, oneKnown);
      assertEquals(ErrorCode.FEATURE_UPDATE_FAILED, r.getErrorCode(), r.toString());
      assertEquals(
          "metadata.version level 2 cannot be checked yet: voters 2, 3 have not reported their"
              + " supported ranges yet; retry",
          r.getErrorMessage());
    }
    VoterRanges twoKnown =
        voters(Map.of(1, new MetadataVersion.Range(1, 3), 2, new MetadataVersion.Range(1, 3)));
    assertEquals(
        "metadata.version level 2 cannot be checked yet: voter 3 has not reported its supported"
            + " range yet; retry",
        decideWith(2, false, twoKnown).getErrorMessage());
    assertEquals(
        ErrorCode.NONE,
        decideWith(1, false, oneKnown).getErrorCode(),
        "keeping the finalized level changes nothing and needs no voter's range");
  }

  @Test
  void raisingWithinEveryVotersReportedRangeIsWritten() {
    finalize(1);
    register(1, 1, 3);
    VoterRanges all =
        voters(
            Map.of(
                1, new MetadataVersion.Range(1, 3),
                2, new MetadataVersion.Range(2, 3),
                3, new MetadataVersion.Range(1, 3)));
    Decision d =
        FeatureDecisions.update(
            upgrade(MetadataVersion.FEATURE, 3, false), fx.image(), V1_TO_3, all);
    UpdateFeaturesResponse resp = Decisions.commit(fx, d).getUpdateFeatures();
    assertEquals(ErrorCode.NONE, resp.getResults(0).getErrorCode(), resp.toString());
    assertEquals(3, fx.image().metadataVersion());
  }

  /** A listener (a controller catching up before it becomes a voter) is not asked. */
  @Test
  void aNonVotersNarrowRangeDoesNotBlock() {
    finalize(1);
    register(1, 1, 3);
    Map<Integer, MetadataVersion.Range> reported =
        Map.of(
            1, new MetadataVersion.Range(1, 3),
            2, new MetadataVersion.Range(1, 3),
            3, new MetadataVersion.Range(1, 3),
            4, new MetadataVersion.Range(1, 1));
    UpdateFeaturesResponse.Result r = decideWith(3, false, voters(reported));
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
  }
}
