package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.config.TopicConfig;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeCluster: every registered broker (fenced ones flagged) from this broker's image, the
 * quorum's state (leader, term, voters and their lag) from the quorum, and counts of partitions
 * with no leader, with an ISR smaller than their replicas, and with an ISR below
 * min.insync.replicas. When the quorum does not answer, the rest is still returned with the error
 * set. Netty thread.
 */
public final class DescribeClusterHandler
    extends MessageHandler<DescribeClusterRequest, DescribeClusterResponse> {
  private final BrokerContext ctx;

  public DescribeClusterHandler(BrokerContext ctx) {
    super(DescribeClusterRequest.parser());
    this.ctx = ctx;
  }

  /**
   * Partitions with no leader, with an ISR smaller than their replicas, and with an ISR below
   * min.insync.replicas, in one image (the node's status page counts with this too, so the page and
   * {@code cluster status} agree).
   */
  public record PartitionCounts(int offline, int underReplicated, int underMinIsr) {
    public static PartitionCounts of(MetadataImage image) {
      int offline = 0;
      int under = 0;
      int underMin = 0;
      for (TopicImage t : image.topics()) {
        for (PartitionState p : t.partitions()) {
          if (!p.hasLeader()) {
            offline++;
          }
          if (isUnderReplicated(p)) {
            under++;
          }
          if (p.isr().size()
              < TopicConfig.effectiveMinInsyncReplicas(t.config(), p.replicationFactor())) {
            underMin++;
          }
        }
      }
      return new PartitionCounts(offline, under, underMin);
    }

    public static boolean isUnderReplicated(PartitionState p) {
      return p.isr().size() < p.replicationFactor();
    }
  }

  @Override
  public CompletableFuture<DescribeClusterResponse> call(
      DescribeClusterRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.DESCRIBE)) {
      return CompletableFuture.completedFuture(
          DescribeClusterResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.DESCRIBE))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<DescribeClusterResponse> call(DescribeClusterRequest req) {
    MetadataImage image = ctx.image();
    DescribeClusterResponse.Builder b =
        DescribeClusterResponse.newBuilder()
            .setClusterId(ctx.clusterId())
            .setMetadataOffset(image.offset());
    image.brokers().values().stream()
        .sorted(Comparator.comparingInt(BrokerRegistration::id))
        .forEach(r -> b.addBrokers(MetadataHandler.brokerInfo(r)));
    PartitionCounts counts = PartitionCounts.of(image);
    b.setOfflinePartitions(counts.offline())
        .setUnderReplicatedPartitions(counts.underReplicated())
        .setUnderMinIsrPartitions(counts.underMinIsr());
    return ctx.quorum()
        .describeQuorum()
        .orTimeout(ctx.adminTimeoutMs(), java.util.concurrent.TimeUnit.MILLISECONDS)
        .handle(
            (q, err) -> {
              if (err != null) {
                AdminForwarding.Failure f = AdminForwarding.failure(err);
                b.setErrorCode(f.code()).setErrorMessage(f.message());
              } else {
                b.setQuorum(q);
              }
              return b.build();
            });
  }
}
