package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.UpdateFeaturesRequest;
import dev.spool.protocol.message.UpdateFeaturesResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import java.util.concurrent.CompletableFuture;

/**
 * UpdateFeatures, forwarded to the quorum as it is (the controller decides;
 * docs/architecture.md#versioned-metadata). The answer waits, bounded by the request's timeout,
 * until this broker's image shows every accepted level. Netty thread.
 */
public final class UpdateFeaturesHandler
    extends MessageHandler<UpdateFeaturesRequest, UpdateFeaturesResponse> {
  private final BrokerContext ctx;

  public UpdateFeaturesHandler(BrokerContext ctx) {
    super(UpdateFeaturesRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<UpdateFeaturesResponse> call(UpdateFeaturesRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      return CompletableFuture.completedFuture(
          UpdateFeaturesResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<UpdateFeaturesResponse> call(UpdateFeaturesRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().updateFeatures(req),
        f -> {
          UpdateFeaturesResponse.Builder b = UpdateFeaturesResponse.newBuilder();
          req.getUpdatesList()
              .forEach(
                  u ->
                      b.addResults(
                          UpdateFeaturesResponse.Result.newBuilder()
                              .setFeature(u.getFeature())
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        req.getValidateOnly(),
        resp -> img -> applied(req, resp, img),
        ctx.adminTimeout(req.getTimeoutMs()));
  }

  private static boolean applied(
      UpdateFeaturesRequest req, UpdateFeaturesResponse resp, MetadataImage img) {
    for (int i = 0; i < req.getUpdatesCount() && i < resp.getResultsCount(); i++) {
      UpdateFeaturesRequest.FeatureUpdate u = req.getUpdates(i);
      if (resp.getResults(i).getErrorCode() == ErrorCode.NONE
          && u.getFeature().equals(MetadataVersion.FEATURE)
          && img.metadataVersion() < u.getMaxVersionLevel()) {
        return false;
      }
    }
    return true;
  }
}
