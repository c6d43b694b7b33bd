package dev.spool.broker.request;

import dev.spool.broker.log.CleanerStatus;
import dev.spool.broker.log.LogCleaner;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
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
 * cleaner checkpoint), so the figures are a moment's estimate, never a lock on the partition. The
 * answer also names the data directory and the size and free space of its file system (Kafka's
 * DescribeLogDirs reports them).
 */
public final class DescribeLogsHandler
    extends MessageHandler<DescribeLogsRequest, DescribeLogsResponse> {
  private final BrokerContext ctx;

  /**
   * The data directory's file system, found once: finding it reads the mount table, which has no
   * place on an event loop at every request; its sizes are then one statvfs each.
   */
  private volatile FileStore dataStore;

  public DescribeLogsHandler(BrokerContext ctx) {
    super(DescribeLogsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeLogsResponse> call(DescribeLogsRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.DESCRIBE)) {
      return CompletableFuture.completedFuture(
          DescribeLogsResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.DESCRIBE))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<DescribeLogsResponse> call(DescribeLogsRequest req) {
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
    DescribeLogsResponse.Builder b =
        DescribeLogsResponse.newBuilder()
            .setBrokerId(ctx.brokerId())
            .setLogDir(logs.dataDir().toAbsolutePath().toString())
            .setTotalBytes(-1)
            .setUsableBytes(-1);
    try {
      FileStore store = dataStore;
      if (store == null) {
        store = Files.getFileStore(logs.dataDir());
        dataStore = store;
      }
      b.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
    } catch (IOException e) {
      // The sizes stay -1 (unknown), as Kafka answers for a directory it cannot measure.
    }
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
    return CompletableFuture.completedFuture(b.build());
  }
}
