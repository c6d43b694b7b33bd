package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.protocol.message.DescribeFeaturesRequest;
import dev.spool.protocol.message.DescribeFeaturesResponse;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * DescribeFeatures from this broker's image: the finalized metadata.version and the range each
 * registered broker supports (docs/architecture.md#versioned-metadata); and, from the active
 * controller, the range each controller reported (controller-only nodes never register). Netty
 * thread; the quorum's answer completes on the quorum client's thread.
 */
public final class DescribeFeaturesHandler
    extends MessageHandler<DescribeFeaturesRequest, DescribeFeaturesResponse> {
  private final BrokerContext ctx;

  public DescribeFeaturesHandler(BrokerContext ctx) {
    super(DescribeFeaturesRequest.parser());
    this.ctx = ctx;
  }

  /**
   * The image's part at once; the controllers' part from the active controller (DescribeQuorum),
   * left out when it does not answer within the admin timeout.
   */
  /** Not authorized, as Kafka's DescribeFeatures: the levels are what ApiVersions tells anyone. */
  @Override
  public CompletableFuture<DescribeFeaturesResponse> call(
      DescribeFeaturesRequest req, Caller caller) {
    return call(req);
  }

  @Override
  public CompletableFuture<DescribeFeaturesResponse> call(DescribeFeaturesRequest req) {
    DescribeFeaturesResponse fromImage = describe(ctx.image());
    CompletableFuture<QuorumInfo> quorum;
    try {
      quorum = ctx.quorum().describeQuorum();
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(fromImage);
    }
    return quorum
        .orTimeout(ctx.adminTimeoutMs(), TimeUnit.MILLISECONDS)
        .handle((q, err) -> err == null ? withControllers(fromImage, q) : fromImage);
  }

  /** {@code d} with each controller of {@code q} and the range it reported. */
  static DescribeFeaturesResponse withControllers(DescribeFeaturesResponse d, QuorumInfo q) {
    Set<Integer> voters = new HashSet<>();
    Map<Integer, DescribeFeaturesResponse.ControllerFeatures.Builder> out = new TreeMap<>();
    for (QuorumInfo.Voter v : q.getVotersList()) {
      voters.add(v.getNodeId());
      out.put(v.getNodeId(), DescribeFeaturesResponse.ControllerFeatures.newBuilder());
    }
    for (QuorumInfo.ControllerRange r : q.getControllerRangesList()) {
      out.computeIfAbsent(
              r.getNodeId(), id -> DescribeFeaturesResponse.ControllerFeatures.newBuilder())
          .addSupported(
              DescribeFeaturesResponse.SupportedFeature.newBuilder()
                  .setName(MetadataVersion.FEATURE)
                  .setMinLevel(r.getMinMetadataVersion())
                  .setMaxLevel(r.getMaxMetadataVersion()));
    }
    DescribeFeaturesResponse.Builder b = d.toBuilder();
    out.forEach((id, c) -> b.addControllers(c.setNodeId(id).setVoter(voters.contains(id))));
    return b.build();
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
