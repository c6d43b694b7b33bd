package dev.spool.broker.request;

import dev.spool.broker.log.CleanerStatus;
import dev.spool.broker.log.LogCleaner;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeLogs: this broker's replicas of the asked topics (all when none is named), each with its
 * size, offsets and the cleaner's state (docs/architecture.md#compaction). Every replica cleans on
 * its own, so the answer is about this broker only; the admin client asks each broker. Netty
 * thread: it reads only what a log publishes for any thread (volatile offsets and sizes, the
 * cleaner checkpoint), so the figures are a moment's estimate, never a lock on the partition.
 */
public final class DescribeLogsHandler implements RequestHandler {
  private final BrokerContext ctx;

  public DescribeLogsHandler(BrokerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    DescribeLogsRequest req = request.frame().parseBody(DescribeLogsRequest.parser());
    Set<String> topics = new HashSet<>(req.getTopicsList());
    LogManager logs = ctx.replicas().logManager();
    Map<TopicPartition, String> uncleanable = logs.cleaner().uncleanablePartitions();
    long nowMs = ctx.clock().nowMs();
    List<PartitionLog> chosen = new ArrayList<>();
    for (PartitionLog l : logs.all()) {
      if (!l.isClosed() && (topics.isEmpty() || topics.contains(l.topicPartition().topic()))) {
        chosen.add(l);
      }
    }
    chosen.sort(Comparator.comparing(PartitionLog::topicPartition));
    DescribeLogsResponse.Builder b = DescribeLogsResponse.newBuilder().setBrokerId(ctx.brokerId());
    for (PartitionLog l : chosen) {
      TopicPartition tp = l.topicPartition();
      CleanerStatus s = LogCleaner.status(l, nowMs);
      b.addPartitions(
          DescribeLogsResponse.ReplicaLog.newBuilder()
              .setTopic(tp.topic())
              .setPartition(tp.partition())
              .setSizeBytes(l.sizeInBytes())
              .setSegments(l.numberOfSegments())
              .setLogStartOffset(l.logStartOffset())
              .setLogEndOffset(l.logEndOffset())
              .setHighWatermark(l.highWatermark())
              .setCompacted(s.compacted())
              .setFirstDirtyOffset(s.firstDirtyOffset())
              .setFirstUncleanableOffset(s.firstUncleanableOffset())
              .setCleanableBytes(s.cleanableBytes())
              .setDirtyRatio(s.dirtyRatio())
              .setLastCleanTimeMs(s.checkpoint().lastCleanTimeMs())
              .setLastCleanDurationMs(s.checkpoint().lastCleanDurationMs())
              .setBytesCleaned(s.checkpoint().bytesCleaned())
              .setUncleanableReason(uncleanable.getOrDefault(tp, "")));
    }
    return CompletableFuture.completedFuture(BrokerResponse.of(b.build()));
  }
}
