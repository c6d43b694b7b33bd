package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.UpdateFeaturesRequest;
import dev.spool.protocol.message.UpdateFeaturesResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * UpdateFeatures and the metadata.version bootstrap (docs/architecture.md#versioned-metadata).
 * Upgrades only: a level is accepted when it is at least the finalized one and within the range of
 * the active controller and of every registered broker (fenced ones too: a fenced broker is one
 * that will come back). Refused, with nothing written: an unknown feature or a level below 1
 * (INVALID_REQUEST), a downgrade or a level some node does not support (FEATURE_UPDATE_FAILED), a
 * feature named twice (INVALID_REQUEST for the whole request). Pure.
 */
public final class FeatureDecisions {
  private FeatureDecisions() {}

  public static Decision update(
      UpdateFeaturesRequest req, MetadataImage image, ControllerSettings s) {
    UpdateFeaturesResponse.Builder resp = UpdateFeaturesResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    Set<String> seen = new HashSet<>();
    for (UpdateFeaturesRequest.FeatureUpdate u : req.getUpdatesList()) {
      if (!seen.add(u.getFeature())) {
        resp.setErrorCode(ErrorCode.INVALID_REQUEST)
            .setErrorMessage("feature '" + u.getFeature() + "' is named more than once");
        return records.decision(ControllerReply.newBuilder().setUpdateFeatures(resp).build());
      }
    }
    if (req.getUpdatesCount() == 0) {
      resp.setErrorCode(ErrorCode.INVALID_REQUEST).setErrorMessage("no feature to update");
      return records.decision(ControllerReply.newBuilder().setUpdateFeatures(resp).build());
    }
    for (UpdateFeaturesRequest.FeatureUpdate u : req.getUpdatesList()) {
      int item = resp.getResultsCount();
      UpdateFeaturesResponse.Result.Builder r =
          UpdateFeaturesResponse.Result.newBuilder()
              .setFeature(u.getFeature())
              .setPreviousLevel(image.metadataVersion());
      Refusal refusal = refusal(u, image, s);
      if (refusal != null) {
        r.setErrorCode(refusal.code()).setErrorMessage(refusal.message());
      } else if (!req.getValidateOnly() && u.getMaxVersionLevel() != image.metadataVersion()) {
        records.add(Records.featureLevel(u.getFeature(), u.getMaxVersionLevel()), item);
      }
      resp.addResults(r);
    }
    return records.decision(ControllerReply.newBuilder().setUpdateFeatures(resp).build());
  }

  private record Refusal(ErrorCode code, String message) {}

  /** Why the update is refused, or null when it may be written. */
  private static Refusal refusal(
      UpdateFeaturesRequest.FeatureUpdate u, MetadataImage image, ControllerSettings s) {
    if (!u.getFeature().equals(MetadataVersion.FEATURE)) {
      return new Refusal(
          ErrorCode.INVALID_REQUEST,
          "unknown feature '" + u.getFeature() + "' (known: " + MetadataVersion.FEATURE + ")");
    }
    int level = u.getMaxVersionLevel();
    if (level < MetadataVersion.V1) {
      return new Refusal(
          ErrorCode.INVALID_REQUEST,
          MetadataVersion.FEATURE + " level " + level + " is below 1 (features cannot be removed)");
    }
    if (level < image.metadataVersion()) {
      return new Refusal(
          ErrorCode.FEATURE_UPDATE_FAILED,
          MetadataVersion.FEATURE
              + " is at level "
              + image.metadataVersion()
              + "; downgrading to "
              + level
              + " is not supported");
    }
    if (!s.metadataVersions().contains(level)) {
      return new Refusal(
          ErrorCode.FEATURE_UPDATE_FAILED,
          MetadataVersion.FEATURE
              + " level "
              + level
              + " is outside the active controller's supported range "
              + s.metadataVersions());
    }
    List<BrokerRegistration> unable =
        image.brokers().values().stream()
            .filter(b -> !b.metadataVersions().contains(level))
            .sorted(Comparator.comparingInt(BrokerRegistration::id))
            .toList();
    if (!unable.isEmpty()) {
      StringBuilder m =
          new StringBuilder(MetadataVersion.FEATURE + " level " + level + " is not supported by");
      for (BrokerRegistration b : unable) {
        m.append(" node ").append(b.id()).append(" (").append(b.metadataVersions()).append(')');
      }
      return new Refusal(ErrorCode.FEATURE_UPDATE_FAILED, m.toString());
    }
    return null;
  }

  /**
   * The level a registration is checked against: the finalized one, or, before the first one is
   * finalized, the level the bootstrap will write.
   */
  public static int effectiveLevel(MetadataImage image, ControllerSettings s) {
    return image.metadataVersion() != MetadataVersion.UNSET
        ? image.metadataVersion()
        : bootstrapLevel(image, s);
  }

  /**
   * The bootstrap of a fresh cluster, or of one whose log predates the feature: the level {@code
   * spool storage format --release-version} recorded in this controller's quorum directory, else
   * the highest level this controller supports (as Kafka's {@code storage format} defaults to the
   * latest release); lowered to the lowest maximum of the brokers registered already (a log that
   * predates the feature) when this controller supports that level too. Null when a level is
   * finalized already.
   */
  public static MetadataRecord bootstrap(MetadataImage image, ControllerSettings s) {
    if (image.metadataVersion() != MetadataVersion.UNSET) {
      return null;
    }
    return Records.featureLevel(MetadataVersion.FEATURE, bootstrapLevel(image, s));
  }

  private static int bootstrapLevel(MetadataImage image, ControllerSettings s) {
    int level =
        s.bootstrapMetadataVersion() != MetadataVersion.UNSET
            ? s.bootstrapMetadataVersion()
            : s.metadataVersions().max();
    int brokersMax =
        image.brokers().values().stream()
            .mapToInt(b -> b.metadataVersions().max())
            .min()
            .orElse(level);
    if (brokersMax < level && s.metadataVersions().contains(brokersMax)) {
      level = brokersMax;
    }
    return level;
  }
}
