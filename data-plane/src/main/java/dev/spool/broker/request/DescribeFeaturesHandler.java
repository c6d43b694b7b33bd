package dev.spool.broker.request;

import dev.spool.protocol.message.DescribeFeaturesRequest;
import dev.spool.protocol.message.DescribeFeaturesResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeFeatures from this broker's image: the finalized metadata.version and the range each
 * registered broker supports (docs/architecture.md#versioned-metadata). Netty thread.
 */
public final class DescribeFeaturesHandler
    extends MessageHandler<DescribeFeaturesRequest, DescribeFeaturesResponse> {
  private final BrokerContext ctx;

  public DescribeFeaturesHandler(BrokerContext ctx) {
    super(DescribeFeaturesRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeFeaturesResponse> call(DescribeFeaturesRequest req) {
    return CompletableFuture.completedFuture(describe(ctx.image()));
  }

  static DescribeFeaturesResponse describe(MetadataImage image) {
    DescribeFeaturesResponse.Builder b =
        DescribeFeaturesResponse.newBuilder().setMetadataOffset(image.offset());
    if (image.metadataVersion() != MetadataVersion.UNSET) {
      b.addFinalized(
          DescribeFeaturesResponse.FinalizedFeature.newBuilder()
              .setName(MetadataVersion.FEATURE)
              .setLevel(image.metadataVersion()));
    }
    image.brokers().values().stream()
        .sorted(Comparator.comparingInt(BrokerRegistration::id))
        .forEach(
            br ->
                b.addNodes(
                    DescribeFeaturesResponse.NodeFeatures.newBuilder()
                        .setNodeId(br.id())
                        .setFenced(br.fenced())
                        .addSupported(
                            DescribeFeaturesResponse.SupportedFeature.newBuilder()
                                .setName(MetadataVersion.FEATURE)
                                .setMinLevel(br.metadataVersions().min())
                                .setMaxLevel(br.metadataVersions().max()))));
    return b.build();
  }
}
