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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * UpdateFeatures and the metadata.version bootstrap (docs/architecture.md#versioned-metadata).
 * Upgrades only: a level is accepted when it is at least the finalized one and within the range of
 * the active controller, of every registered broker (fenced ones too: a fenced broker is one that
 * will come back) and of every current voter of the quorum (a controller-only voter never
 * registers; it reports its range to the active controller, {@link VoterRanges}). Refused, with
 * nothing written: an unknown feature or a level below 1 (INVALID_REQUEST), a downgrade, a level
 * some node does not support or a raise while a voter's range is not known yet
 * (FEATURE_UPDATE_FAILED), a feature named twice (INVALID_REQUEST for the whole request). Pure.
 */
public final class FeatureDecisions {
  private FeatureDecisions() {}

  /**
   * As {@link #update(UpdateFeaturesRequest, MetadataImage, ControllerSettings, VoterRanges)} with
   * no voter known.
   */
  public static Decision update(
      UpdateFeaturesRequest req, MetadataImage image, ControllerSettings s) {
    return update(req, image, s, VoterRanges.NONE);
  }

  /**
   * @param voters the quorum's current voters and the ranges they reported to this active
   *     controller
   */
  public static Decision update(
      UpdateFeaturesRequest req, MetadataImage image, ControllerSettings s, VoterRanges voters) {
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
      if (refusal == null) {
        refusal = voterRefusal(u.getMaxVersionLevel(), image, voters);
      }
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
   * Why a voter refuses the level, or null: a voter whose reported range does not hold it, or one
   * that has not reported yet (every controller reports about once a second, so a retry soon
   * succeeds). Keeping the finalized level changes nothing and is never refused here.
   */
  private static Refusal voterRefusal(int level, MetadataImage image, VoterRanges voters) {
    if (level == image.metadataVersion()) {
      return null;
    }
    List<Integer> ids = voters.voters().stream().sorted().toList();
    List<Integer> unknown = new ArrayList<>();
    StringBuilder unable = new StringBuilder();
    for (int id : ids) {
      MetadataVersion.Range r = voters.reported().apply(id);
      if (r == null) {
        unknown.add(id);
      } else if (!r.contains(level)) {
        unable.append(" voter ").append(id).append(" (").append(r).append(')');
      }
    }
    String head = MetadataVersion.FEATURE + " level " + level;
    if (!unable.isEmpty()) {
      return new Refusal(ErrorCode.FEATURE_UPDATE_FAILED, head + " is not supported by" + unable);
    }
    if (!unknown.isEmpty()) {
      return new Refusal(
          ErrorCode.FEATURE_UPDATE_FAILED,
          head
              + " cannot be checked yet: "
              + (unknown.size() == 1
                  ? "voter " + unknown.get(0) + " has not reported its supported range yet"
                  : "voters "
                      + unknown.stream().map(String::valueOf).collect(Collectors.joining(", "))
                      + " have not reported their supported ranges yet")
              + "; retry");
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
